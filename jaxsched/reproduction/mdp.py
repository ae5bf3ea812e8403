"""The MDP-design items (BRACIS'21): the compact / image state, event stepping, the 3M-decision sweeps,
transfer and the SWF traces.
"""

from __future__ import annotations

import functools
from typing import Callable, Mapping

from jaxsched.reproduction.items import (CPU, H200, PPO_QUICK, PPO_SUMMARY_QUICK, Item, Step, rounded, train,
                                         training_minutes, with_prose)
from jaxsched.reproduction.numbers import (Number, NumberError, at, column, computed, csv_rows, given, json_value, part,
                                       span, sweep, sweep_summary)


def mdp_budget_item(name: str, paper: str, mdp: str, wall_s: float, headline: str, *,
                    config: str = "configs/mdp_ppo_compact.yaml", checkpoint_every: int = 625,
                    note: str = "", seeds: int = 5, iterations: int = 1875,
                    numbers: Mapping[str, Number] | None = None, hardware: str = CPU,
                    run_hardware: Mapping[str, str] | None = None, estimate: bool = False) -> Item:
    """A sweep of the MDP-design study's PPO over ``seeds`` seeds (``config``, bracis-7 unless ``mdp`` overrides
    it) at the paper's budget unless ``iterations`` says otherwise: 1875 iterations of 32 envs x 50 steps = 3.0M
    decisions per seed, 200 held-out jobsets; ``mdp``: the swept overrides, written to ``{out}/name``."""
    base, swept = f"jaxsched.sweep --config {config} --out {{out}}/{name}", f" {mdp}" if mdp else ""
    step = Step(f"{base} --seeds 0:{seeds}{swept} iterations={iterations} chunk=25 checkpoint_every={checkpoint_every} "
                "eval_jobsets=200",
                quick_command=f"{base} --seeds 0:2{swept} iterations=2 chunk=1 checkpoint_every=1 eval_jobsets=5")
    return Item(id=name, paper=paper, steps=(step,), outputs=(f"{name}/summary.csv", f"{name}/report.md"),
                wall_s=wall_s, headline=headline, note=note, numbers=numbers or {}, hardware=hardware,
                run_hardware=run_hardware or {}, estimate=estimate)


MDP_SCENARIOS = ("bracis-1", "bracis-2", "bracis-3", "bracis-7")
MDP_VARIANTS = {  # run-name suffix: observation, stepping, reward_jobs, iterations, chunk (train_study.sh)
    "compact": ("bracis", "time", "all", 60, 10),
    "event": ("bracis", "event", "visible", 8, 2),
    "image": ("image", "time", "all", 30, 5),
}


def _mdp_study_runs() -> tuple[Step, ...]:
    steps = []
    for variant, (observation, stepping, reward_jobs, iterations, chunk) in MDP_VARIANTS.items():
        for scenario in MDP_SCENARIOS:
            steps.append(train(f"{{scratch}}/mdp/{scenario}_{variant}", "configs/mdp_ppo_compact.yaml",
                               f"env={scenario}", f"env_options.observation={observation}",
                               f"env_options.stepping={stepping}", f"env_options.reward_jobs={reward_jobs}",
                               f"iterations={iterations}", f"chunk={chunk}", f"checkpoint_every={iterations}",
                               "eval_jobsets=0", seeds="0,1,2",
                               quick=PPO_QUICK))
    return tuple(steps)


FIG4 = "jaxsched.studies.mdp_study fig4 --runs {scratch}/mdp --jobsets 1000 --out {out}/mdp_ppo/fig4.json"
FIG4_QUICK = "--jobsets 2 --transfer-jobsets 2 --max-time 100"


SWF_EVAL = ("jaxsched.studies.swf_eval --trace dataset:{trace} --window 128 --quantum 600 "
            "--policies sjf,packer,fcfs,easy,random --checkpoint {{scratch}}/mdp/bracis-7_compact "
            "--checkpoint {{scratch}}/mdp/bracis-1_compact --out {{out}}/mdp_swf/{name}.json")
SWF_3M = ("jaxsched.studies.swf_eval --trace dataset:{trace} --window 128 --quantum 600 "
          "--policies sjf,packer,fcfs,easy,random --checkpoint {{out}}/sweep_mdp_compact_3m/cells/{cell} "
          "--num-windows {windows} --episodes {episodes} --out {{out}}/mdp_swf_3m/{name}.json")
SWF_3M_CELL = ("cell000__env_options.stepping=time__env_options.reward_jobs=all__iterations=1875__chunk=25__"
               "checkpoint_every=625__eval_jobsets=200")
SWF_3M_QUICK_CELL = ("cell000__env_options.stepping=time__env_options.reward_jobs=all__iterations=2__chunk=1__"
                     "checkpoint_every=1__eval_jobsets=5")
BRACIS_ALL = " ".join(f"bracis-{n}" for n in range(1, 11))
MDP_3M_SETTINGS = "iterations=1875__chunk=25__checkpoint_every=625__eval_jobsets=200"  # a 3M cell's name, after
MDP_3M_QUICK_SETTINGS = "iterations=2__chunk=1__checkpoint_every=1__eval_jobsets=5"  # its swept overrides
MDP_FIRST, MDP_DEEPRM = "mdp_ppo/bracis-1/summary.json", "mdp_ppo/deeprm/summary.json"  # files the texts quote
MDP_FIG4, MDP_LUBLIN, MDP_FIG4_3M = "mdp_ppo/fig4.json", "mdp_swf/lublin-256.json", "mdp_figures_3m/fig4.json"
SEPARATE_3M_CELLS = {"b1": "cell000", "b9": "cell001", "b2": "cell002", "b10": "cell003", "b8": "cell004",
                     "b6": "cell005", "b5": "cell006", "b4": "cell007", "b3": "cell008"}  # sweep_mdp_separate_critic_3m_scenarios
WON_6M_CELLS = {"b8": "cell000", "b9": "cell001", "b4": "cell002", "b5": "cell003", "b2": "cell004",
                "b10": "cell005"}  # sweep_mdp_separate_critic_6m_won
MDP_TRANSFER, MDP_TRANSFER_SEPARATE = "mdp_transfer_3m/time.json", "mdp_transfer_3m_separate_critic/time.json"
TRANSFER_NOTE = ("The checkpoints it restores (every cell of the sweeps it names, all seeds) are not committed: results/ "
                 "keeps the sweeps' summaries, eval.json, config.json and compressed metrics. Reproducing this item into "
                 "a fresh --out (python -m jaxsched.reproduce ID --out runs/ID) re-trains those sweeps first: {hours} on "
                 "the 2-core CPU in all, 12 min of it the transfer itself (docs/results/timings.md).")
MDP_IMAGE_METRICS = "sweep_mdp_image_3m/cells/cell000__iterations=1875__chunk=25__checkpoint_every=125__" \
                    "eval_jobsets=200/metrics.csv"


def transfer_3m_item(name: str, paper: str, source: str, specialised: tuple[str, ...], steppings: tuple[str, ...],
                     wall_s: float, headline: str, swept: str = "", numbers: Mapping[str, Number] | None = None,
                     note: str = "") -> Item:
    """``mdp_transfer`` of the bracis-7 agent of the sweep ``source`` (cell ``cell000__{swept}<3M settings>``,
    ``swept`` naming its swept overrides) on all ten scenarios, 5 seeds sampled, 200 jobsets, beside the
    specialised agents of the sweeps ``specialised`` (which include ``source``); one step per stepping,
    written to ``{out}/name/<stepping>.{json,md}``. Its input is the source cell's checkpoints, which results/
    does not keep: reproducing it re-trains the sweeps (``needs``) into a fresh ``--out``."""
    def command(settings: str, stepping: str, scenarios: str, jobsets: int) -> str:
        own = " ".join(f"--specialised {{out}}/{sweep}" for sweep in specialised)
        return (f"jaxsched.studies.mdp_transfer {{out}}/{source}/cells/cell000__{swept}{settings} "
                f"{{out}}/{name}/{stepping}.json {scenarios} --all-seeds --sampled --stepping {stepping} "
                f"--jobsets {jobsets} {own}")
    steps = tuple(Step(command(MDP_3M_SETTINGS, stepping, BRACIS_ALL, 200),
                       quick_command=command(MDP_3M_QUICK_SETTINGS, stepping, "bracis-1 bracis-7", 5))
                  for stepping in steppings)
    return Item(id=name, paper=paper, steps=steps,
                outputs=tuple(f"{name}/{stepping}.{ext}" for stepping in steppings for ext in ("json", "md")),
                wall_s=wall_s, inputs=(f"{{out}}/{source}/cells/cell000__{swept}{MDP_3M_SETTINGS}/checkpoints",),
                needs=specialised, headline=headline, numbers=numbers or {}, note=note)


def _cells_where(cell: str) -> dict | None:
    return {"run_dir": cell} if cell else None


def seeds_unfinished(name: str, policy: str = "", cell: str = "") -> Number:
    """How many seeds of the sweep ``name`` (``cell``) leave jobs unfinished (greedy unless ``policy``)."""
    file, prefix = f"{name}/summary.csv", f"final_{policy}_" if policy else "final_"
    return computed(file, lambda root: sum(float(r[prefix + "finished"]) < float(r[prefix + "jobs"])
                                           for r in csv_rows(root, file, _cells_where(cell))), "d")


def jobs_unfinished(name: str, policy: str = "", cell: str = "") -> Number:
    """How many jobs the seeds of the sweep ``name`` (``cell``) leave unfinished, summed (greedy unless ``policy``)."""
    file, prefix = f"{name}/summary.csv", f"final_{policy}_" if policy else "final_"
    return computed(file, lambda root: sum(int(float(r[prefix + "jobs"])) - int(float(r[prefix + "finished"]))
                                           for r in csv_rows(root, file, _cells_where(cell))), "d")



def cell_numbers(name: str, cells, interval: str = "_ci", packer: bool = True, prefix: str = "") -> dict[str, Number]:
    """For each ``(key, cell)`` of ``cells`` (a sweep ``name``'s cells, e.g. one per scenario): the sampled IQM
    as ``prefix + key``, its seed interval (``+ interval``) and SJF's (``_sjf``) and Packer's (``_packer``) levels."""
    cells = cells.items() if isinstance(cells, dict) else cells
    options = {"": {}, interval: {"stat": "interval"}, "_sjf": {"policy": "sjf", "stat": "value"}}
    if packer:
        options["_packer"] = {"policy": "packer", "stat": "value"}
    return {f"{prefix}{key}{suffix}": sweep(name, cell=cell, **option)
            for key, cell in cells for suffix, option in options.items()}

def over_cells(name: str, stat: str, cells: tuple[str, ...], metric: str = "mean_completion_time",
               policy: str = "sampled", fmt: str = ".1f") -> Number:
    """``stat`` (min or max) of ``final_[policy_]metric`` over the seeds of ``cells`` of the sweep ``name``."""
    file, name_of = f"{name}/summary.csv", f"final_{policy}_{metric}" if policy else f"final_{metric}"
    pick = {"min": min, "max": max}[stat]
    return computed(file, lambda root: pick(float(v) for c in cells
                                            for v in column(root, file, name_of, {"run_dir": c})), fmt)


def beating_cells(name: str, cells: tuple[str, ...], than: str = "sjf") -> Number:
    """``k/n``: seeds of ``cells`` of the sweep ``name`` beating ``than`` sampled with every job finished."""
    parts = [sweep(name, stat="beating", cell=cell, than=than) for cell in cells]

    def read(root) -> str:
        counts = [tuple(int(x) for x in part.text(root).split("/")) for part in parts]
        return f"{sum(k for k, _ in counts)}/{sum(n for _, n in counts)}"
    return Number(f"{name}/summary.csv", read)


def iqm_over_sjf(name: str, stat: str, fmt: str = ".1f") -> Number:
    """``stat`` (min or max) over the cells of the sweep ``name`` of the sampled IQM divided by SJF's."""
    file = f"{name}/summary.csv"

    def value(root) -> float:
        cells = sorted({r["run_dir"].split("/")[-1].split("__")[0] for r in csv_rows(root, file)})
        ratios = [float(sweep(name, cell=c, fmt=".17g").text(root)) / float(sweep(name, policy="sjf", stat="value",
                                                                                  cell=c, fmt=".17g").text(root))
                  for c in cells]
        return {"min": min, "max": max}[stat](ratios)
    return computed(file, value, fmt)


def transfer_count(file: str, test: Callable[[dict], bool]) -> Number:
    """How many of the transfer file's scenarios other than the one trained on pass ``test`` (a scenario's entry)."""
    def value(root) -> int:
        trained_on = json_value(root, file, "trained_on")
        return sum(bool(test(entry)) for scenario, entry in json_value(root, file, "scenarios").items()
                   if scenario != trained_on)
    return computed(file, value, "d")


def _unfinished(entry: dict) -> int:
    over = entry["transferred_over_seeds"]
    return int(over["jobs"]) - int(over["finished"])


def transfer_unfinished(file: str, stat: str) -> Number:
    """``stat`` (min or max) of the jobs the transferred agent leaves unfinished (over seeds), over the scenarios
    where it leaves some."""
    pick = {"min": min, "max": max}[stat]
    return computed(file, lambda root: pick(n for n in map(_unfinished, json_value(root, file, "scenarios").values())
                                            if n), "d")


def fig4_seeds(agent: str, beating: str) -> Number:
    """``k/n``: seeds of ``agent`` in mdp_figures_3m's Fig. 4 beating ``beating`` (sjf, packer)."""
    file = "mdp_figures_3m/fig4.json"
    return Number(file, lambda root: f"{json_value(root, file, f'agents/{agent}/seeds_beating_{beating}')}/"
                                     f"{json_value(root, file, f'agents/{agent}/seeds')}")


def late_entropy(metrics: str, last: int = 375, fmt: str = ".3f") -> Number:
    """The policy entropy of a run's ``metrics`` (metrics.csv under results/), averaged over its seeds and its last
    ``last`` iterations."""
    def value(root) -> float:
        rows = csv_rows(root, metrics)
        final = max(int(r["iteration"]) for r in rows)
        late = [float(r["entropy"]) for r in rows if int(r["iteration"]) > final - last]
        return sum(late) / len(late)
    return computed(metrics, value, fmt)


# BRACIS'21 Figs. 3 and 4 at 3M decisions: each agent type and the sweeps that trained it, one cell per scenario.
MDP_FIGURES_3M_AGENTS = {
    "compact_sparse_reduced": ("sweep_mdp_sparse_reduced_3m", "sweep_mdp_sparse_reduced_3m_bracis1",
                               "sweep_mdp_sparse_reduced_3m_scenarios"),
    "compact_sparse_reduced_separate": ("sweep_mdp_sparse_reduced_3m_separate_critic",
                                        "sweep_mdp_separate_critic_3m_scenarios"),
    "image": ("sweep_mdp_image_3m", "sweep_mdp_image_3m_small", "sweep_mdp_image_3m_scenarios"),
    "image_separate": ("sweep_mdp_image_separate_critic_3m_scenarios", "sweep_mdp_image_separate_critic_3m_bracis7",
                       "sweep_mdp_image_separate_critic_3m_largest", "sweep_mdp_image_separate_critic_3m_mid"),
    "compact_image_mdp": ("sweep_mdp_compact_3m", "sweep_mdp_compact_3m_scenarios"),
}
MDP_FIGURES_3M = "jaxsched.studies.mdp_budget_figures --out {out}/mdp_figures_3m " + " ".join(
    f"{label}=" + ",".join(f"{{out}}/{sweep}" for sweep in sweeps) for label, sweeps in MDP_FIGURES_3M_AGENTS.items())


ITEMS: list[Item] = [
    # ---- MDP design (BRACIS'21) ---------------------------------------------------------------------
    Item(
        id="mdp_ppo_first",
        paper="BRACIS'21 MDP study, first PPO measurements on bracis-1 and the transfer check",
        steps=(train("{scratch}/bracis-1_image_time_all", "configs/mdp_ppo_compact.yaml", "env=bracis-1",
                     "iterations=150", "env_options.observation=image", "env_options.stepping=time",
                     "env_options.reward_jobs=all", "eval_jobsets=100", quick=PPO_SUMMARY_QUICK),
               train("{scratch}/bracis-1_bracis_time_all", "configs/mdp_ppo_compact.yaml", "env=bracis-1",
                     "iterations=150", "env_options.observation=bracis", "env_options.stepping=time",
                     "env_options.reward_jobs=all", "eval_jobsets=100", quick=PPO_SUMMARY_QUICK),
               train("{scratch}/bracis-1_bracis_event_visible", "configs/mdp_ppo_compact.yaml", "env=bracis-1",
                     "iterations=50", "env_options.observation=bracis", "env_options.stepping=event",
                     "env_options.reward_jobs=visible", "eval_jobsets=100", quick=PPO_SUMMARY_QUICK),
               Step("jaxsched.studies.mdp_summary {out}/mdp_ppo/bracis-1 {scratch}/bracis-1_image_time_all "
                    "{scratch}/bracis-1_bracis_time_all {scratch}/bracis-1_bracis_event_visible"),
               Step("jaxsched.studies.mdp_transfer {scratch}/bracis-1_bracis_time_all "
                    "{out}/mdp_ppo/bracis-1/transfer_from_bracis-1_compact.json bracis-1 bracis-3 bracis-9")),
        outputs=("mdp_ppo/bracis-1/summary.json", "mdp_ppo/bracis-1/learning_curves.png",
                 "mdp_ppo/bracis-1/transfer_from_bracis-1_compact.json"),
        wall_s=1100,
        headline="image {image} leaves {image_unfinished} of {jobs} unfinished (not ranked); compact {compact}, "
                 "compact+event {event} vs SJF {sjf}, Packer {packer} (bracis-1, held-out)",
        numbers={"image": at(MDP_FIRST, "bracis-1_image_time_all/heldout/trained-s0/mean_slowdown", ".2f"),
                 "image_unfinished": computed(MDP_FIRST, lambda root: int(
                     json_value(root, MDP_FIRST, "bracis-1_image_time_all/heldout/trained-s0/jobs")) - int(
                     json_value(root, MDP_FIRST, "bracis-1_image_time_all/heldout/trained-s0/finished")), "d"),
                 "jobs": at(MDP_FIRST, "bracis-1_image_time_all/heldout/trained-s0/jobs", ".0f"),
                 "compact": at(MDP_FIRST, "bracis-1_bracis_time_all/heldout/trained-s0/mean_slowdown", ".2f"),
                 "event": at(MDP_FIRST, "bracis-1_bracis_event_visible/heldout/trained-s0/mean_slowdown", ".2f"),
                 "sjf": at(MDP_FIRST, "bracis-1_bracis_time_all/heldout/sjf/mean_slowdown", ".2f"),
                 "packer": at(MDP_FIRST, "bracis-1_bracis_time_all/heldout/packer/mean_slowdown", ".2f")},
    ),
    Item(
        id="mdp_ppo_deeprm",
        paper="PPO on DeepRM (load 0.7) against REINFORCE's wall-clock",
        steps=(train("{scratch}/deeprm_ppo", "configs/deeprm_ppo.yaml", "iterations=250", quick=PPO_SUMMARY_QUICK),
               Step("jaxsched.studies.mdp_summary {out}/mdp_ppo/deeprm {scratch}/deeprm_ppo")),
        outputs=("mdp_ppo/deeprm/summary.json", "mdp_ppo/deeprm/learning_curves.png"),
        wall_s=800,
        note="The recorded run was stopped at iteration 250 of the config's 1000; here it runs 250.",
        headline="greedy {greedy} leaves {unfinished} of {jobs} unfinished (not ranked), sampled {sampled} vs SJF {sjf}",
        numbers={"greedy": at(MDP_DEEPRM, "deeprm_ppo/heldout/trained-s0/mean_slowdown", ".2f"),
                 "unfinished": computed(MDP_DEEPRM, lambda root: int(
                     json_value(root, MDP_DEEPRM, "deeprm_ppo/heldout/trained-s0/jobs")) - int(
                     json_value(root, MDP_DEEPRM, "deeprm_ppo/heldout/trained-s0/finished")), "d"),
                 "jobs": at(MDP_DEEPRM, "deeprm_ppo/heldout/trained-s0/jobs", ".0f"),
                 "sampled": at(MDP_DEEPRM, "deeprm_ppo/heldout/trained-s0-sampled/mean_slowdown", ".2f"),
                 "sjf": at(MDP_DEEPRM, "deeprm_ppo/heldout/sjf/mean_slowdown", ".2f")},
    ),
    Item(
        id="mdp_study",
        paper="BRACIS'21 Fig. 4 (1000 jobsets x 4 scenarios), Fig. 6 transfer, learning curves",
        steps=(*_mdp_study_runs(),
               Step(f"{FIG4} --parts heuristics", quick=FIG4_QUICK),
               Step(f"{FIG4} --parts agents --variants compact", quick=FIG4_QUICK),
               Step(f"{FIG4} --parts agents --scenarios bracis-1 --variants event", quick=FIG4_QUICK),
               Step(f"{FIG4} --parts agents --variants image --max-time 600", quick=FIG4_QUICK),
               Step(f"{FIG4} --parts agents --scenarios bracis-2,bracis-3,bracis-7 --variants event --max-time 600",
                    quick=FIG4_QUICK),
               Step(f"{FIG4} --parts transfer --transfer-jobsets 200", quick=FIG4_QUICK),
               Step("jaxsched.studies.mdp_study curves --runs {scratch}/mdp --fig4 {out}/mdp_ppo/fig4.json "
                    "--out {out}/mdp_ppo")),
        outputs=("mdp_ppo/fig4.json", "mdp_ppo/fig4.md", "mdp_ppo/curves_summary.json",
                 *(f"mdp_ppo/{s}/learning_curves_steps.png" for s in MDP_SCENARIOS)),
        wall_s=7200, estimate=True,
        runs=tuple(f"mdp_ppo/bracis-*/{agent}" for agent in ("compact", "event", "image")),  # train_study.sh's copies
        note="Training (2,933 s recorded, results/mdp_ppo/train_study.sh) plus the 1000-jobset evaluations.",
        headline="compact PPO at Packer/EASY level (bracis-1 {compact} vs Packer {packer}, SJF {sjf}); SJF best "
                 "everywhere",
        numbers={"compact": at(MDP_FIG4, "scenarios/bracis-1/ppo-compact/seed_mean_slowdown", ".2f"),
                 "packer": at(MDP_FIG4, "scenarios/bracis-1/packer/mean_slowdown", ".2f"),
                 "sjf": at(MDP_FIG4, "scenarios/bracis-1/sjf/mean_slowdown", ".2f")},
    ),
    Item(
        id="mdp_swf",
        paper="BRACIS'21 on real traces: CTC-SP2 and Lublin-256 windows",
        steps=(Step(SWF_EVAL.format(trace="ctc-sp2-first969", name="ctc-sp2"), quick="--num-windows 1"),
               Step(SWF_EVAL.format(trace="lublin-256", name="lublin-256"), quick="--num-windows 1")),
        outputs=("mdp_swf/ctc-sp2.json", "mdp_swf/ctc-sp2.md", "mdp_swf/lublin-256.json", "mdp_swf/lublin-256.md"),
        wall_s=600, estimate=True,
        inputs=("{scratch}/mdp/bracis-7_compact/config.json", "{scratch}/mdp/bracis-1_compact/config.json"),
        needs=("mdp_study",),
        headline="Lublin: SJF {sjf}, Packer {packer}, EASY {easy}, FCFS {fcfs}; PPO (bracis-7) {ppo} leaves "
                 "{unfinished} of {jobs} unfinished (not ranked)",
        numbers={**{p: at(MDP_LUBLIN, f"policies/{p}/mean_slowdown", ".2f") for p in ("sjf", "packer", "easy")},
                 "fcfs": at(MDP_LUBLIN, "policies/fcfs/mean_slowdown", ".1f"),
                 "ppo": at(MDP_LUBLIN, "policies/ppo:bracis-7_compact/mean_slowdown", ".2f"),
                 "unfinished": computed(MDP_LUBLIN, lambda root: int(
                     json_value(root, MDP_LUBLIN, "policies/ppo:bracis-7_compact/jobs")) - int(
                     json_value(root, MDP_LUBLIN, "policies/ppo:bracis-7_compact/finished")), "d"),
                 "jobs": at(MDP_LUBLIN, "policies/ppo:bracis-7_compact/jobs", ".0f")},
    ),
    mdp_budget_item(
        "sweep_mdp_sparse_reduced_3m",
        "BRACIS'21 at the paper's budget (3M decisions per agent), compact + sparse + reduced PPO on bracis-7, 5 seeds",
        "", 1022,
        "3M decisions x {seeds} seeds: sampled IQM {iqm} {ci} vs SJF {sjf}, Packer {packer} ({beat_packer} beat "
        "Packer, {beat_sjf} SJF, every job finished); greedy leaves jobs unfinished on {greedy_unfinished} of "
        "{seeds_again} seeds",
        numbers={"seeds": sweep("sweep_mdp_sparse_reduced_3m", stat="count"),
                 "seeds_again": sweep("sweep_mdp_sparse_reduced_3m", stat="count"),
                 "iqm": sweep("sweep_mdp_sparse_reduced_3m"),
                 "ci": sweep("sweep_mdp_sparse_reduced_3m", stat="interval"),
                 "sjf": sweep("sweep_mdp_sparse_reduced_3m", policy="sjf", stat="value"),
                 "packer": sweep("sweep_mdp_sparse_reduced_3m", policy="packer", stat="value"),
                 "beat_packer": sweep("sweep_mdp_sparse_reduced_3m", stat="beating", than="packer"),
                 "beat_sjf": sweep("sweep_mdp_sparse_reduced_3m", stat="beating"),
                 "greedy_unfinished": seeds_unfinished("sweep_mdp_sparse_reduced_3m")}),
    mdp_budget_item(
        "sweep_mdp_compact_3m",
        "BRACIS'21 at the paper's budget (3M decisions per agent), compact PPO with time-based steps and every job "
        "in the reward on bracis-7, 5 seeds",
        "env_options.stepping=time env_options.reward_jobs=all", 643,
        "3M decisions x {seeds} seeds: sampled IQM {iqm} {ci} vs SJF {sjf}, Packer {packer} ({beat_packer} beat "
        "Packer, {beat_sjf} SJF, every job finished): level with compact + sparse + reduced ({sparse_reduced})",
        numbers={**sweep_summary("sweep_mdp_compact_3m"),
                 "sparse_reduced": sweep("sweep_mdp_sparse_reduced_3m")}),
    mdp_budget_item(
        "sweep_mdp_compact_3m_scenarios",
        "BRACIS'21 Fig. 4 in one MDP: compact PPO in the image agent's MDP (time-based steps, every job in the reward, "
        "the shared trunk) at the paper's budget on the six other scenarios with image agents, 5 seeds each",
        "env_options.stepping=time env_options.reward_jobs=all env=bracis-1,bracis-2,bracis-10,bracis-9,bracis-8,"
        "bracis-6", 1900,
        "sampled, every job finished, {beat_sjf} seeds reach SJF: bracis-1 IQM {b1}, -2 {b2}, -10 {b10}, -9 {b9}, "
        "-8 {b8}, -6 {b6}; against the image agents in the same MDP: behind on bracis-1 (CIs apart), -8 and -6 (all 3 "
        "image seeds below its CI), level on -2, -10, -9 (and -7: sweep_mdp_compact_3m): compact is "
        "never ahead of image in one MDP",
        numbers={"beat_sjf": sweep("sweep_mdp_compact_3m_scenarios", stat="beating"),
                 **{scenario: sweep("sweep_mdp_compact_3m_scenarios", cell=cell) for scenario, cell in (
                     ("b1", "cell000"), ("b2", "cell001"), ("b10", "cell002"), ("b9", "cell003"), ("b8", "cell004"),
                     ("b6", "cell005"))}},
        note="3-5 min of training per scenario for the 5 seeds on the 2-core CPU, partly beside other runs (stop 43); "
             "the final checkpoint of each cell kept."),
    mdp_budget_item(
        "sweep_mdp_image_3m",
        "BRACIS'21 Figs. 3-4 at the paper's budget: the image-like (base) MDP's PPO (configs/mdp_ppo_image.yaml: "
        "time-based steps, every job in the reward, the shared 2 x 64 trunk) on bracis-7, 5 seeds (one GPU)",
        "", 180,
        "3M decisions x {seeds} seeds in {minutes} min on one H200: sampled IQM {iqm} {ci} vs SJF {sjf}, Packer {packer} "
        "({beat_packer} beat Packer, {beat_sjf} SJF, every job finished), beside the compact agent on the same MDP "
        "{compact} {compact_ci}: compact no worse than image, as the paper finds; greedy leaves jobs unfinished on "
        "{greedy_unfinished} of {seeds_again} seeds",
        config="configs/mdp_ppo_image.yaml", checkpoint_every=125, hardware=H200,
        numbers={"seeds": sweep("sweep_mdp_image_3m", stat="count"),
                 "seeds_again": sweep("sweep_mdp_image_3m", stat="count"),
                 "minutes": computed(MDP_IMAGE_METRICS, lambda root: sum(column(root, MDP_IMAGE_METRICS, "wall_s",
                                                                                {"seed": 0})) / 60, ".0f"),
                 "iqm": sweep("sweep_mdp_image_3m"),
                 "ci": sweep("sweep_mdp_image_3m", stat="interval"),
                 "sjf": sweep("sweep_mdp_image_3m", policy="sjf", stat="value"),
                 "packer": sweep("sweep_mdp_image_3m", policy="packer", stat="value"),
                 "beat_packer": sweep("sweep_mdp_image_3m", stat="beating", than="packer"),
                 "beat_sjf": sweep("sweep_mdp_image_3m", stat="beating"),
                 "compact": sweep("sweep_mdp_compact_3m"),
                 "compact_ci": sweep("sweep_mdp_compact_3m", stat="interval"),
                 "greedy_unfinished": seeds_unfinished("sweep_mdp_image_3m")},
        note="Trained and evaluated on one NVIDIA H200 (jax 0.11.2; 119 s of training for the 5 seeds, 143k steps/s "
             "logged) by results/sweep_mdp_image_3m/device_run.sh; on the 2-core CPU ~100 min (3.3 s per iteration "
             "for 5 seeds, measured on bracis-10; the first layer reads the 20 x 708 image). The checkpoint (21 MB) "
             "is not kept."),
    mdp_budget_item(
        "sweep_mdp_image_3m_scenarios",
        "BRACIS'21 Fig. 4's image agent at the paper's budget on the largest scenarios after bracis-7 (64 processors; "
        "the issue: image agents on at least the four largest): the image-like MDP's PPO as sweep_mdp_image_3m, "
        "3 seeds per scenario (the issue's floor for runs over 30 min: ~62 min per scenario on the 2-core CPU)",
        "env=bracis-10,bracis-9,bracis-8,bracis-6", 4 * 4000,
        "sampled, every job finished, {beat_packer} seeds below Packer and {beat_sjf} below SJF (3 seeds per scenario): "
        "bracis-10 IQM {b10} {b10_range} vs SJF {b10_sjf}, Packer {b10_packer}; bracis-9 {b9} {b9_range} vs {b9_sjf}, "
        "{b9_packer}; bracis-8 {b8} {b8_range} vs {b8_sjf}, {b8_packer}; bracis-6 {b6} {b6_range} vs {b6_sjf}, "
        "{b6_packer}; behind compact + sparse + reduced on bracis-10 ({sr10}; all 3 seeds above its CI), level on "
        "-9, -8, -6 ({sr9}, {sr8}, {sr6}); behind the separate critic's (every seed above its CI) except level on "
        "bracis-6 ({sep6})",
        config="configs/mdp_ppo_image.yaml", checkpoint_every=125, seeds=3,
        numbers={"beat_packer": sweep("sweep_mdp_image_3m_scenarios", stat="beating", than="packer"),
                 "beat_sjf": sweep("sweep_mdp_image_3m_scenarios", stat="beating"),
                 **cell_numbers("sweep_mdp_image_3m_scenarios",
                                (("b10", "cell000"), ("b9", "cell001"), ("b8", "cell002"), ("b6", "cell003")),
                                interval="_range"),
                 **{f"sr{n}": sweep("sweep_mdp_sparse_reduced_3m_scenarios", cell=cell)
                    for n, cell in (("10", "cell000"), ("9", "cell001"), ("8", "cell002"), ("6", "cell003"))},
                 "sep6": sweep("sweep_mdp_separate_critic_3m_scenarios", cell="cell005")},
        note="Run on the 2-core CPU (1.9-2.0 s per iteration for 3 seeds, ~62 min of training per scenario; the first "
             "layer reads the 20 x 708 image) from runs/cpu_image/ and copied here without checkpoints (42 MB per "
             "cell). Resumable: a finished scenario's cell is skipped (bracis-10, -9 ran at stop 41, bracis-8, -6 "
             "at stop 42: 61 min 49 s and 60 min 46 s of training)."),
    mdp_budget_item(
        "sweep_mdp_image_3m_small",
        "BRACIS'21 Fig. 4's image agent at the paper's budget on the two 10-processor scenarios: the image-like "
        "MDP's PPO as sweep_mdp_image_3m, 5 seeds, beside the compact agent in the same MDP "
        "(sweep_mdp_compact_3m_scenarios)",
        "env=bracis-1,bracis-2", 2400,
        "sampled, every job finished, {beat_packer} seeds beat Packer, {beat_sjf} SJF: bracis-1 IQM {b1} {b1_ci} vs SJF "
        "{b1_sjf}, Packer {b1_packer}, ahead of compact in the same MDP ({c1} {c1_ci}, CIs apart); bracis-2 {b2} "
        "{b2_ci} vs {b2_sjf}, {b2_packer}, level with compact ({c2} {c2_ci}): image no worse than compact here",
        config="configs/mdp_ppo_image.yaml", checkpoint_every=125,
        numbers={"beat_packer": sweep("sweep_mdp_image_3m_small", stat="beating", than="packer"),
                 "beat_sjf": sweep("sweep_mdp_image_3m_small", stat="beating"),
                 **{f"{agent}{n}{suffix}": sweep(name, cell=cell, **options)
                    for n, cell in (("1", "cell000"), ("2", "cell001"))
                    for agent, name in (("b", "sweep_mdp_image_3m_small"), ("c", "sweep_mdp_compact_3m_scenarios"))
                    for suffix, options in (("", {}), ("_ci", {"stat": "interval"}),
                                            ("_sjf", {"policy": "sjf", "stat": "value"}),
                                            ("_packer", {"policy": "packer", "stat": "value"}))}},
        note="Run on the 2-core CPU from runs/cpu_image_small/ (bracis-1 15 min 51 s, bracis-2 19 min 51 s of "
             "training for the 5 seeds, partly beside other runs) and copied here with the final checkpoint only."),
    mdp_budget_item(
        "sweep_mdp_image_3m_small_ent_coef",
        "Is entropy collapse what holds the shared-trunk image agent back? sweep_mdp_image_3m_small's bracis-1 cell "
        "with 5x the entropy coefficient (0.05), 5 seeds",
        "algo_options.ent_coef=0.05 env=bracis-1", 1080,
        "sampled, every job finished, {beat_packer} seeds beat Packer, {beat_sjf} SJF: IQM {iqm} {ci} vs SJF {sjf}, "
        "Packer {packer}, worse than ent_coef 0.01 ({base} {base_ci}, CIs apart) though its entropy stays up "
        "({entropy} vs {base_entropy} over the last 375 iterations): entropy collapse is not what keeps it behind the "
        "separate critic ({separate})",
        config="configs/mdp_ppo_image.yaml",
        numbers={**sweep_summary("sweep_mdp_image_3m_small_ent_coef"),
                 "base": sweep("sweep_mdp_image_3m_small", cell="cell000"),
                 "base_ci": sweep("sweep_mdp_image_3m_small", cell="cell000", stat="interval"),
                 "entropy": late_entropy("sweep_mdp_image_3m_small_ent_coef/cells/cell000__algo_options.ent_coef=0.05__"
                                         "env=bracis-1__iterations=1875__chunk=25__checkpoint_every=625__"
                                         "eval_jobsets=200/metrics.csv"),
                 "base_entropy": late_entropy("sweep_mdp_image_3m_small/cells/cell000__env=bracis-1__iterations=1875__"
                                              "chunk=25__checkpoint_every=125__eval_jobsets=200/metrics.csv"),
                 "separate": sweep("sweep_mdp_image_separate_critic_3m_scenarios", cell="cell000")},
        note="Run on the 2-core CPU from runs/cpu_image_ent/ (16 min of training for the 5 seeds) and copied here "
             "without its checkpoints (the command regenerates them)."),
    mdp_budget_item(
        "sweep_mdp_image_3m_small_vf_coef",
        "Is the value loss swamping the shared trunk? sweep_mdp_image_3m_small's bracis-1 cell with a 5x smaller "
        "value weight (vf_coef 0.1), 5 seeds",
        "algo_options.vf_coef=0.1 env=bracis-1", 1080,
        "sampled, every job finished, {beat_packer} seeds beat Packer, {beat_sjf} SJF: IQM {iqm} {ci} vs SJF {sjf}, "
        "Packer {packer}, level with vf_coef 0.5 ({base} {base_ci}) and behind the separate critic ({separate} "
        "{separate_ci}): neither the entropy nor the value weight closes the gap; the separate torso carries it",
        config="configs/mdp_ppo_image.yaml",
        numbers={**sweep_summary("sweep_mdp_image_3m_small_vf_coef"),
                 "base": sweep("sweep_mdp_image_3m_small", cell="cell000"),
                 "base_ci": sweep("sweep_mdp_image_3m_small", cell="cell000", stat="interval"),
                 "separate": sweep("sweep_mdp_image_separate_critic_3m_scenarios", cell="cell000"),
                 "separate_ci": sweep("sweep_mdp_image_separate_critic_3m_scenarios", cell="cell000", stat="interval")},
        note="Run on the 2-core CPU from runs/cpu_image_vf/ (15 min 10 s of training for the 5 seeds) and copied here "
             "without its checkpoints (the command regenerates them)."),
    mdp_budget_item(
        "sweep_mdp_sparse_reduced_3m_h60",
        "BRACIS'21's H = 60 test: the compact + sparse + reduced sweep with a 60-step horizon (the paper: "
        "indistinguishable from H = 20)",
        "env_options.horizon=60", 1116,
        "H = 60, 3M decisions x {seeds} seeds: sampled IQM {iqm} {ci} vs {h20} {h20_ci} at H = 20 (CIs "
        "overlap; one H = 60 seed lags at {worst}); SJF {sjf}, Packer {packer}",
        numbers={"seeds": sweep("sweep_mdp_sparse_reduced_3m_h60", stat="count"),
                 "iqm": sweep("sweep_mdp_sparse_reduced_3m_h60"),
                 "ci": sweep("sweep_mdp_sparse_reduced_3m_h60", stat="interval"),
                 "h20": sweep("sweep_mdp_sparse_reduced_3m"),
                 "h20_ci": sweep("sweep_mdp_sparse_reduced_3m", stat="interval"),
                 "worst": sweep("sweep_mdp_sparse_reduced_3m_h60", stat="max", fmt=".2f"),
                 "sjf": sweep("sweep_mdp_sparse_reduced_3m_h60", policy="sjf", stat="value"),
                 "packer": sweep("sweep_mdp_sparse_reduced_3m_h60", policy="packer", stat="value")}),
    mdp_budget_item(
        "sweep_mdp_sparse_reduced_3m_bracis1",
        "BRACIS'21 at the paper's budget on scenario 1 (10 processors, jobs <= 15 steps): compact + sparse + "
        "reduced PPO, 5 seeds",
        "env=bracis-1", 935,
        "bracis-1, 3M decisions x {seeds} seeds: sampled IQM {iqm} {ci} vs SJF {sjf}, Packer {packer} ({beat_packer} "
        "beat Packer, {beat_sjf} SJF, every job finished)",
        numbers={**sweep_summary("sweep_mdp_sparse_reduced_3m_bracis1")}),
    mdp_budget_item(
        "sweep_mdp_sparse_reduced_3m_scenarios",
        "BRACIS'21 at the paper's budget on the other eight scenarios (Fig. 4): compact + sparse + reduced PPO, "
        "5 seeds per scenario",
        "env=bracis-10,bracis-9,bracis-8,bracis-6,bracis-5,bracis-4,bracis-3,bracis-2", 8 * 1100,
        "8 of 8 cells, every job finished sampled: sampled IQM {low}-{high}x SJF; {beat_packer} seeds beat Packer "
        "(bracis-6: {b6_beat}, IQM {b6} vs Packer {b6_packer}; bracis-3: {b3_beat}, {b3} vs {b3_packer}); {b9_beat} "
        "bracis-9 seeds beat SJF ({b9_best} vs {b9_sjf})",
        numbers={"low": iqm_over_sjf("sweep_mdp_sparse_reduced_3m_scenarios", "min"),
                 "high": iqm_over_sjf("sweep_mdp_sparse_reduced_3m_scenarios", "max"),
                 "beat_packer": sweep("sweep_mdp_sparse_reduced_3m_scenarios", stat="beating", than="packer"),
                 "b6_beat": sweep("sweep_mdp_sparse_reduced_3m_scenarios", cell="cell003", stat="beating", than="packer"),
                 "b6": sweep("sweep_mdp_sparse_reduced_3m_scenarios", cell="cell003", fmt=".2f"),
                 "b6_packer": sweep("sweep_mdp_sparse_reduced_3m_scenarios", cell="cell003", policy="packer",
                                    stat="value", fmt=".2f"),
                 "b3_beat": sweep("sweep_mdp_sparse_reduced_3m_scenarios", cell="cell006", stat="beating", than="packer"),
                 "b3": sweep("sweep_mdp_sparse_reduced_3m_scenarios", cell="cell006"),
                 "b3_packer": sweep("sweep_mdp_sparse_reduced_3m_scenarios", cell="cell006", policy="packer",
                                    stat="value"),
                 "b9_beat": sweep("sweep_mdp_sparse_reduced_3m_scenarios", cell="cell001", stat="beating"),
                 "b9_best": sweep("sweep_mdp_sparse_reduced_3m_scenarios", cell="cell001", stat="min"),
                 "b9_sjf": sweep("sweep_mdp_sparse_reduced_3m_scenarios", cell="cell001", policy="sjf", stat="value")},
        note="bracis-4 and -3 ran alone at stop 42 (--shard 5/8, 6/8 of the same command: 5 min 0 s and 4 min 9 s of "
             "training on the 2-core CPU); the six others earlier, with two other runs on the CPU (18-30 min)."),
    mdp_budget_item(
        "sweep_mdp_sparse_reduced_3m_separate_critic",
        "BRACIS'21's networks at the paper's budget: compact + sparse + reduced PPO with a separate actor and "
        "critic (the paper's parameter counts) on bracis-7, 5 seeds",
        "algo_options.separate_critic=true", 1470,
        "3M decisions x {seeds} seeds: sampled IQM {iqm} {ci} vs SJF {sjf}, Packer {packer}: {beat_sjf} seeds beat SJF "
        "with every job finished (the shared trunk: {shared} {shared_ci}; {shared_beat})",
        numbers={**sweep_summary("sweep_mdp_sparse_reduced_3m_separate_critic"),
                 "packer": sweep("sweep_mdp_sparse_reduced_3m_separate_critic", policy="packer", stat="value"),
                 "beat_sjf": sweep("sweep_mdp_sparse_reduced_3m_separate_critic", stat="beating"),
                 "shared": sweep("sweep_mdp_sparse_reduced_3m"),
                 "shared_ci": sweep("sweep_mdp_sparse_reduced_3m", stat="interval"),
                 "shared_beat": sweep("sweep_mdp_sparse_reduced_3m", stat="beating")}),
    mdp_budget_item(
        "sweep_mdp_separate_critic_3m_scenarios",
        "BRACIS'21's networks at the paper's budget on the other nine scenarios: compact + sparse + reduced PPO with "
        "a separate actor and critic, 5 seeds per scenario",
        "algo_options.separate_critic=true env=bracis-1,bracis-9,bracis-2,bracis-10,bracis-8,bracis-6,bracis-5,"
        "bracis-4,bracis-3", 9 * 1440,
        "all 9 cells, sampled, every job finished: bracis-9 IQM {b9} {b9_ci} vs SJF {b9_sjf}, "
        "bracis-2 {b2} {b2_ci} vs {b2_sjf}, bracis-10 {b10} {b10_ci} vs {b10_sjf}, bracis-8 {b8} {b8_ci} "
        "vs {b8_sjf}, bracis-5 {b5} {b5_ci} vs {b5_sjf}, bracis-4 {b4} {b4_ci} vs {b4_sjf} ({won} seeds beat SJF on "
        "these six); bracis-1 {b1} {b1_ci} vs SJF {b1_sjf}, bracis-6 {b6} {b6_ci} vs {b6_sjf} ({lost} beat Packer on "
        "the two), bracis-3 {b3} {b3_ci} vs {b3_sjf} ({b3_beat} beat Packer's {b3_packer})",
        numbers={**cell_numbers("sweep_mdp_separate_critic_3m_scenarios", SEPARATE_3M_CELLS, packer=False),
                 "won": beating_cells("sweep_mdp_separate_critic_3m_scenarios",
                                      tuple(SEPARATE_3M_CELLS[b] for b in ("b9", "b2", "b10", "b8", "b5", "b4"))),
                 "lost": beating_cells("sweep_mdp_separate_critic_3m_scenarios",
                                       (SEPARATE_3M_CELLS["b1"], SEPARATE_3M_CELLS["b6"]), than="packer"),
                 "b3_beat": sweep("sweep_mdp_separate_critic_3m_scenarios", cell="cell008", stat="beating",
                                  than="packer"),
                 "b3_packer": sweep("sweep_mdp_separate_critic_3m_scenarios", cell="cell008", policy="packer",
                                    stat="value")}),
    mdp_budget_item(
        "sweep_mdp_separate_critic_6m",
        "BRACIS'21's networks at twice the paper's budget (6M decisions per seed) on the three scenarios where 3M "
        "left compact + sparse + reduced with a separate actor and critic above SJF, 5 seeds per scenario",
        "algo_options.separate_critic=true env=bracis-1,bracis-3,bracis-6", 3 * 2200,
        "sampled, every job finished: bracis-1 IQM {b1} {b1_ci} vs SJF {b1_sjf} (3M: {b1_3m}) and bracis-6 "
        "{b6} {b6_ci} vs {b6_sjf} (3M: {b6_3m}), {won} seeds beat SJF on the two; bracis-3 level with SJF, {b3} "
        "{b3_ci} vs {b3_sjf} (3M: {b3_3m}; {b3_beat} below it); the paper's budget does not saturate these agents; "
        "completion time stays above SJF's ({ct_low}-{ct_high} vs {sjf_ct_low}-{sjf_ct_high})",
        iterations=3750,
        numbers={**cell_numbers("sweep_mdp_separate_critic_6m", (("b1", "cell000"), ("b3", "cell001"), ("b6", "cell002")), packer=False),
                 **{f"{b}_3m": sweep("sweep_mdp_separate_critic_3m_scenarios", cell=SEPARATE_3M_CELLS[b])
                    for b in ("b1", "b3", "b6")},
                 "won": beating_cells("sweep_mdp_separate_critic_6m", ("cell000", "cell002")),
                 "b3_beat": sweep("sweep_mdp_separate_critic_6m", cell="cell001", stat="beating"),
                 "ct_low": over_cells("sweep_mdp_separate_critic_6m", "min", ("cell000", "cell002")),
                 "ct_high": over_cells("sweep_mdp_separate_critic_6m", "max", ("cell000", "cell002")),
                 "sjf_ct_low": over_cells("sweep_mdp_separate_critic_6m", "min", ("cell000", "cell002"), policy="sjf"),
                 "sjf_ct_high": over_cells("sweep_mdp_separate_critic_6m", "max", ("cell000", "cell002"),
                                           policy="sjf")},
        note="Run on the 2-core CPU from runs/cpu_compact_sep_6m/ (35 min of training per scenario for the 5 seeds "
             "vmapped, 1 min of evaluation) and copied here with the final checkpoint only. Its first 1875 "
             "iterations are sweep_mdp_separate_critic_3m_scenarios' cells bit for bit (every training metric of "
             "every seed equal), so the 3M result is this run's midpoint."),
    mdp_budget_item(
        "sweep_mdp_separate_critic_6m_bracis7",
        "Does twice the paper's budget still help where 3M already beat SJF? BRACIS'21's networks (compact + sparse "
        "+ reduced, separate actor and critic) at 6M decisions on bracis-7, the paper's main scenario, 5 seeds",
        "algo_options.separate_critic=true env=bracis-7", 2300,
        "sampled, every job finished: IQM {iqm} {ci} vs 3M's {m3} {m3_ci} (CIs apart), SJF {sjf}; "
        "{beat} seeds beat SJF sampled, {greedy_beat} greedy (one leaves {greedy_left} jobs); completion time "
        "{ct_low}-{ct_high} vs SJF {sjf_ct} (3M: {m3_ct_low}-{m3_ct_high}): the gain holds where 3M already won",
        iterations=3750,
        numbers={"iqm": sweep("sweep_mdp_separate_critic_6m_bracis7"),
                 "ci": sweep("sweep_mdp_separate_critic_6m_bracis7", stat="interval"),
                 "m3": sweep("sweep_mdp_sparse_reduced_3m_separate_critic"),
                 "m3_ci": sweep("sweep_mdp_sparse_reduced_3m_separate_critic", stat="interval"),
                 "sjf": sweep("sweep_mdp_separate_critic_6m_bracis7", policy="sjf", stat="value"),
                 "beat": sweep("sweep_mdp_separate_critic_6m_bracis7", stat="beating"),
                 "greedy_beat": sweep("sweep_mdp_separate_critic_6m_bracis7", policy="", stat="beating"),
                 "greedy_left": jobs_unfinished("sweep_mdp_separate_critic_6m_bracis7"),
                 "ct_low": over_cells("sweep_mdp_separate_critic_6m_bracis7", "min", ("cell000",)),
                 "ct_high": over_cells("sweep_mdp_separate_critic_6m_bracis7", "max", ("cell000",)),
                 "sjf_ct": over_cells("sweep_mdp_separate_critic_6m_bracis7", "min", ("cell000",), policy="sjf",
                                      fmt=".2f"),
                 "m3_ct_low": over_cells("sweep_mdp_sparse_reduced_3m_separate_critic", "min", ("cell000",)),
                 "m3_ct_high": over_cells("sweep_mdp_sparse_reduced_3m_separate_critic", "max", ("cell000",))},
        note="Run on the 2-core CPU from runs/cpu_compact_sep_6m_b7/ (36 min of training for the 5 seeds vmapped, "
             "partly beside the quickstart check; 1 min of evaluation) and copied here with the final checkpoint "
             "only. Its first 1875 iterations are sweep_mdp_sparse_reduced_3m_separate_critic's cell bit for bit "
             "(every training metric of every seed equal)."),
    mdp_budget_item(
        "sweep_mdp_separate_critic_6m_won",
        "Does twice the paper's budget still help on the other scenarios 3M already won? BRACIS'21's networks "
        "(compact + sparse + reduced, separate actor and critic) at 6M decisions, 5 seeds per scenario; resumable, "
        "one cell at a time",
        "algo_options.separate_critic=true env=bracis-8,bracis-9,bracis-4,bracis-5,bracis-2,bracis-10", 6 * 1400,
        "all 6 cells, sampled, every job finished, {beat} seeds beat SJF: bracis-8 IQM {b8} {b8_ci} "
        "(3M: {b8_3m}) vs SJF {b8_sjf}, bracis-9 {b9} {b9_ci} ({b9_3m}) vs {b9_sjf}, bracis-4 {b4} {b4_ci} "
        "({b4_3m}) vs {b4_sjf}, bracis-5 {b5} {b5_ci} ({b5_3m}) vs {b5_sjf}, bracis-2 {b2} {b2_ci} ({b2_3m}) vs "
        "{b2_sjf}, bracis-10 {b10} {b10_ci} ({b10_3m}) vs {b10_sjf}; greedy below SJF with every job finished on "
        "{greedy_beat} seeds (one bracis-9 seed leaves {b9_left}); completion time not grown (bracis-5: "
        "{b5_ct_low}-{b5_ct_high} vs SJF {b5_sjf_ct})",
        iterations=3750,
        numbers={"beat": sweep("sweep_mdp_separate_critic_6m_won", stat="beating"),
                 **cell_numbers("sweep_mdp_separate_critic_6m_won", WON_6M_CELLS.items(), packer=False),
                 **{f"{b}_3m": sweep("sweep_mdp_separate_critic_3m_scenarios", cell=SEPARATE_3M_CELLS[b])
                    for b in WON_6M_CELLS},
                 "greedy_beat": sweep("sweep_mdp_separate_critic_6m_won", policy="", stat="beating"),
                 "b9_left": jobs_unfinished("sweep_mdp_separate_critic_6m_won", cell=WON_6M_CELLS["b9"]),
                 "b5_ct_low": over_cells("sweep_mdp_separate_critic_6m_won", "min", (WON_6M_CELLS["b5"],)),
                 "b5_ct_high": over_cells("sweep_mdp_separate_critic_6m_won", "max", (WON_6M_CELLS["b5"],)),
                 "b5_sjf_ct": over_cells("sweep_mdp_separate_critic_6m_won", "min", (WON_6M_CELLS["b5"],),
                                         policy="sjf", fmt=".2f")},
        note="Run on the 2-core CPU (an AMD EPYC) from runs/cpu6m_won/ one cell at a time (--shard I/6 of the same "
             "command; bracis-8 as a one-scenario sweep whose cell is this one's cell000): 20-21 min of training per "
             "scenario for the 5 seeds vmapped, 1 min of evaluation; copied here with the final checkpoints only. "
             "Unlike the earlier 6M items, the first 1875 "
             "iterations are not sweep_mdp_separate_critic_3m_scenarios' cells bit for bit: on this machine (jax 0.10.2, "
             "flax 0.12.8, optax 0.2.8) the first iteration's losses already differ in the 6th-7th significant "
             "digit and the sampled episodes from iteration 12-32 on (likely the host CPU: the quick "
             "start's seed 1 differs across machines with the same versions, README.md), so the two runs are "
             "independent samples of the same recipe."),
    mdp_budget_item(
        "sweep_mdp_separate_critic_12m_bracis3",
        "BRACIS'21's networks at four times the paper's budget (12M decisions per seed) on bracis-3, the one scenario "
        "where 6M left compact + sparse + reduced with a separate actor and critic level with SJF, 5 seeds",
        "algo_options.separate_critic=true env=bracis-3", 3900,
        "sampled, every job finished: IQM {iqm} {ci} vs SJF {sjf} (6M: {m6}, 3M: {m3}), {beat} seeds beat "
        "SJF sampled, {greedy_beat} greedy (greedy {greedy} {greedy_ci}, every job finished); with it the paper's "
        "networks beat SJF on all ten scenarios; completion time stays above SJF's ({ct_low}-{ct_high} vs {sjf_ct})",
        iterations=7500,
        numbers={"iqm": sweep("sweep_mdp_separate_critic_12m_bracis3"),
                 "ci": sweep("sweep_mdp_separate_critic_12m_bracis3", stat="interval"),
                 "sjf": sweep("sweep_mdp_separate_critic_12m_bracis3", policy="sjf", stat="value"),
                 "m6": sweep("sweep_mdp_separate_critic_6m", cell="cell001"),
                 "m3": sweep("sweep_mdp_separate_critic_3m_scenarios", cell=SEPARATE_3M_CELLS["b3"]),
                 "beat": sweep("sweep_mdp_separate_critic_12m_bracis3", stat="beating"),
                 "greedy_beat": sweep("sweep_mdp_separate_critic_12m_bracis3", policy="", stat="beating"),
                 "greedy": sweep("sweep_mdp_separate_critic_12m_bracis3", policy=""),
                 "greedy_ci": sweep("sweep_mdp_separate_critic_12m_bracis3", policy="", stat="interval"),
                 "ct_low": over_cells("sweep_mdp_separate_critic_12m_bracis3", "min", ("cell000",)),
                 "ct_high": over_cells("sweep_mdp_separate_critic_12m_bracis3", "max", ("cell000",)),
                 "sjf_ct": over_cells("sweep_mdp_separate_critic_12m_bracis3", "min", ("cell000",), policy="sjf")},
        note="Run on the 2-core CPU from runs/cpu_compact_sep_12m/ (1 h 4 min of training for the 5 seeds vmapped, "
             "1 min of evaluation) and copied here with the final checkpoint only. Its first 3750 iterations are "
             "sweep_mdp_separate_critic_6m's bracis-3 cell bit for bit (every training metric of every seed equal)."),
    mdp_budget_item(
        "sweep_mdp_image_separate_critic_3m_scenarios",
        "BRACIS'21 Fig. 4's image agent with the paper's networks (a separate actor and critic: 301,068 parameters at "
        "10 processors, the paper's count) at the paper's budget on the two 10-processor scenarios, 5 seeds",
        "algo_options.separate_critic=true env=bracis-1,bracis-2", 3900,
        "sampled, every job finished, {beat_packer} seeds beat Packer, {beat_sjf} SJF: bracis-1 IQM {b1} {b1_ci} vs SJF "
        "{b1_sjf}, Packer {b1_packer}, ahead of the compact separate critic ({c1} {c1_ci}, CIs apart); bracis-2 {b2} "
        "{b2_ci} vs {b2_sjf}, {b2_packer}, far behind the compact separate critic ({c2} {c2_ci})",
        config="configs/mdp_ppo_image.yaml", checkpoint_every=125,
        numbers={"beat_packer": sweep("sweep_mdp_image_separate_critic_3m_scenarios", stat="beating", than="packer"),
                 "beat_sjf": sweep("sweep_mdp_image_separate_critic_3m_scenarios", stat="beating"),
                 **cell_numbers("sweep_mdp_image_separate_critic_3m_scenarios", (("1", "cell000"), ("2", "cell001")),
                                prefix="b"),
                 **{f"c{n}{suffix}": sweep("sweep_mdp_separate_critic_3m_scenarios", cell=SEPARATE_3M_CELLS[f"b{n}"],
                                           **options)
                    for n in ("1", "2") for suffix, options in (("", {}), ("_ci", {"stat": "interval"}))}},
        note="Run on the 2-core CPU from runs/cpu_image_sep/ (~1 s per iteration for the 5 seeds vmapped on the "
             "20 x 114 image; bracis-1 31 min 38 s of training, partly beside another run, bracis-2 28 min 27 s) and "
             "copied here with the final checkpoint only (8 MB per cell). The 38- and 64-processor scenarios "
             "(20 x 422 and 20 x 708 images, two torsos) take hours per scenario here: bracis-7 ran as "
             "sweep_mdp_image_separate_critic_3m_bracis7, bracis-10, -9, -8, -6 in "
             "sweep_mdp_image_separate_critic_3m_largest, bracis-5, -4, -3 in "
             "sweep_mdp_image_separate_critic_3m_mid (the last five on an H200)."),
    mdp_budget_item(
        "sweep_mdp_image_separate_critic_3m_bracis7",
        "BRACIS'21 Fig. 4's image agent with the paper's networks (a separate actor and critic: 1,821,708 parameters "
        "at 64 processors, the paper's count) at the paper's budget on bracis-7, 3 seeds (a run over 30 min)",
        "algo_options.separate_critic=true env=bracis-7", 6780,
        "sampled, every job finished, {beat_packer} seeds below Packer, {beat_sjf} below SJF: IQM {iqm} {ci} vs SJF "
        "{sjf}, Packer {packer}, level with the shared-trunk image agent ({shared} {shared_ci}), far behind compact + "
        "sparse + reduced with the same networks ({compact} {compact_ci}; all 3 seeds above its CI); greedy "
        "{greedy} with every job finished",
        config="configs/mdp_ppo_image.yaml", checkpoint_every=125, seeds=3,
        numbers={**sweep_summary("sweep_mdp_image_separate_critic_3m_bracis7"),
                 "shared": sweep("sweep_mdp_image_3m"),
                 "shared_ci": sweep("sweep_mdp_image_3m", stat="interval"),
                 "compact": sweep("sweep_mdp_sparse_reduced_3m_separate_critic"),
                 "compact_ci": sweep("sweep_mdp_sparse_reduced_3m_separate_critic", stat="interval"),
                 "greedy": sweep("sweep_mdp_image_separate_critic_3m_bracis7", policy="")},
        note="Run on the 2-core CPU from runs/cpu_image_sep64/ (3.5 s per iteration for the 3 seeds vmapped on the "
             "two 20 x 708 torsos: 1 h 50 min of training, 2 min of evaluation) and copied here without its "
             "checkpoints (24 MB for the final one; the command regenerates them)."),
    mdp_budget_item(
        "sweep_mdp_image_separate_critic_3m_largest",
        "BRACIS'21 Fig. 4's image agent with the paper's networks (a separate actor and critic, 1,821,708 parameters) "
        "at the paper's budget on the largest scenarios after bracis-7, 3 seeds each; resumable, one cell at a time",
        "algo_options.separate_critic=true env=bracis-10,bracis-9,bracis-8,bracis-6", 4 * 7000,
        "all 4 cells, sampled, every job finished, {beat_packer} seeds below Packer, {beat_sjf} below SJF (3 seeds per "
        "scenario): bracis-10 IQM {b10} {b10_ci} vs SJF {b10_sjf}, Packer {b10_packer}; bracis-9 {b9} {b9_ci} vs "
        "{b9_sjf}, {b9_packer}; bracis-8 {b8} {b8_ci} vs {b8_sjf}, {b8_packer}; bracis-6 {b6} {b6_ci} vs {b6_sjf}, "
        "{b6_packer}; lower than the shared-trunk image agent on each ({s10}, {s9}, {s8}, {s6}; on -10, -8, -6 every "
        "seed below the other's 3, too few seeds to call a difference with confidence); behind compact + sparse + "
        "reduced with the same networks on -10, -9, -8 ({c10}, {c9}, {c8}; every seed above their CIs), level on "
        "bracis-6 ({c6})",
        config="configs/mdp_ppo_image.yaml", checkpoint_every=125, seeds=3, estimate=True,  # 2 of 4 cells on the CPU
        run_hardware={f"sweep_mdp_image_separate_critic_3m_largest/cells/{cell}_*": H200
                      for cell in ("cell002", "cell003")},
        numbers={"beat_packer": sweep("sweep_mdp_image_separate_critic_3m_largest", stat="beating", than="packer"),
                 "beat_sjf": sweep("sweep_mdp_image_separate_critic_3m_largest", stat="beating"),
                 **cell_numbers("sweep_mdp_image_separate_critic_3m_largest",
                                (("10", "cell000"), ("9", "cell001"), ("8", "cell002"), ("6", "cell003")), prefix="b"),
                 **{f"s{n}": sweep("sweep_mdp_image_3m_scenarios", cell=cell)
                    for n, cell in (("10", "cell000"), ("9", "cell001"), ("8", "cell002"), ("6", "cell003"))},
                 **{f"c{n}": sweep("sweep_mdp_separate_critic_3m_scenarios", cell=SEPARATE_3M_CELLS[f"b{n}"])
                    for n in ("10", "9", "8", "6")}},
        note="bracis-10 and -9 ran on the 2-core CPU from runs/cpu_image_sep_largest/ with --shard 0/4 (1 h 57 min "
             "of training at 3.5 s per iteration, partly beside the CI; 3 min of evaluation) and --shard 1/4 (1 h 51 "
             "min; 3 min); bracis-8 and -6 on one NVIDIA H200 (jax 0.11.2) with --shard 2/4 and 3/4 as two processes "
             "sharing the GPU (device_run.sh here: 4 min 21 s of training each, 5 min 24 s for the call, evaluation "
             "included). Copied here without their checkpoints (~80 MB per cell; the command regenerates them)."),
    mdp_budget_item(
        "sweep_mdp_image_separate_critic_3m_mid",
        "BRACIS'21 Fig. 4's image agent with the paper's networks (a separate actor and critic, 1,089,548 parameters "
        "at 38 processors, the paper's count) at the paper's budget on the three 38-processor scenarios, 3 seeds "
        "each: with the other image items, the paper's image agent on all ten scenarios",
        "algo_options.separate_critic=true env=bracis-5,bracis-4,bracis-3", 3 * 8800,
        "sampled, every job finished, {beat_packer} seeds below Packer, {beat_sjf} below SJF (3 seeds per scenario): "
        "bracis-5 "
        "IQM {b5} {b5_ci} vs SJF {b5_sjf}, Packer {b5_packer}; bracis-4 {b4} {b4_ci} vs {b4_sjf}, {b4_packer}; bracis-3 "
        "{b3} {b3_ci} vs {b3_sjf}, {b3_packer}; behind compact + sparse + reduced with the same networks on -5 and -4 "
        "({c5}, {c4}: every seed above their CIs), level on bracis-3 ({c3} {c3_ci}); greedy leaves jobs "
        "unfinished on every cell",
        config="configs/mdp_ppo_image.yaml", checkpoint_every=125, seeds=3,
        estimate=True,  # its wall_s: from 25 iterations on the CPU
        run_hardware={"*": H200},
        numbers={"beat_packer": sweep("sweep_mdp_image_separate_critic_3m_mid", stat="beating", than="packer"),
                 "beat_sjf": sweep("sweep_mdp_image_separate_critic_3m_mid", stat="beating"),
                 **cell_numbers("sweep_mdp_image_separate_critic_3m_mid",
                                (("5", "cell000"), ("4", "cell001"), ("3", "cell002")), prefix="b"),
                 **{f"c{n}": sweep("sweep_mdp_separate_critic_3m_scenarios", cell=SEPARATE_3M_CELLS[f"b{n}"])
                    for n in ("5", "4", "3")},
                 "c3_ci": sweep("sweep_mdp_separate_critic_3m_scenarios", cell=SEPARATE_3M_CELLS["b3"],
                                stat="interval")},
        note="Trained and evaluated on one NVIDIA H200 (jax 0.11.2) by "
             "results/sweep_mdp_image_separate_critic_3m_largest/device_run.sh with ENVS=bracis-5,bracis-4,bracis-3 "
             "SHARDS='0 1 2': three processes sharing the GPU (6.1 it/s each) cut by the call's 300 s deadline at "
             "iteration ~1550, then resumed from the iteration-1500 checkpoint in a second call (the same command; "
             "a finished cell is skipped, a cut one resumes), ~5 min 40 s of training per cell in all. On the 2-core "
             "CPU ~2.4 h per cell (4.7 s per iteration for the 3 seeds, measured on bracis-5 over iterations "
             "26-50 on a CPU ~1.3x slower than the one the other items' CPU times came from). Copied here without "
             "checkpoints."),
    transfer_3m_item(
        "mdp_transfer_3m_separate_critic",
        "BRACIS'21 Fig. 6 with the paper's networks: the separate actor-critic compact + sparse + reduced agent "
        "trained on bracis-7 (3M decisions, 5 seeds), sampled, run unchanged on all ten scenarios with "
        "time-based steps, beside each scenario's own separate-critic 3M agents and SJF / Packer",
        "sweep_mdp_sparse_reduced_3m_separate_critic",
        ("sweep_mdp_sparse_reduced_3m_separate_critic", "sweep_mdp_separate_critic_3m_scenarios"), ("time",),
        750,
        "time steps, sampled: behind its own type's agents on all {behind} other scenarios (CIs apart on {apart}, e.g. "
        "bracis-2 {t2} vs {s2}, bracis-4 {t4} vs {s4}; overlapping on bracis-3, {t3} vs {s3}); every job finished only "
        "on bracis-3 and -7, below Packer on both and below SJF on bracis-7 ({t7} vs {sjf7}); on the other "
        "{unfinished} it leaves {fewest}-{most} of {jobs} jobs unfinished (not ranked)",
        swept="algo_options.separate_critic=True__",
        numbers={"behind": transfer_count(MDP_TRANSFER_SEPARATE, lambda s: s["transferred_over_seeds"]["iqm"] >
                                          s["specialised_over_seeds"]["iqm"]),
                 "apart": transfer_count(MDP_TRANSFER_SEPARATE, lambda s: s["transferred_over_seeds"]["ci_low"] >
                                         s["specialised_over_seeds"]["ci_high"]),
                 **{f"{agent}{n}": at(MDP_TRANSFER_SEPARATE, f"scenarios/bracis-{n}/{kind}_over_seeds/iqm", ".2f")
                    for n in ("2", "4", "3", "7") for agent, kind in (("t", "transferred"), ("s", "specialised"))},
                 "sjf7": at(MDP_TRANSFER_SEPARATE, "scenarios/bracis-7/sjf/mean_slowdown", ".2f"),
                 "unfinished": computed(MDP_TRANSFER_SEPARATE, lambda root: sum(
                     map(bool, map(_unfinished, json_value(root, MDP_TRANSFER_SEPARATE, "scenarios").values()))), "d"),
                 "fewest": transfer_unfinished(MDP_TRANSFER_SEPARATE, "min"),
                 "most": transfer_unfinished(MDP_TRANSFER_SEPARATE, "max"),
                 "jobs": at(MDP_TRANSFER_SEPARATE, "scenarios/bracis-1/transferred_over_seeds/jobs", ".0f")},
        note=TRANSFER_NOTE.format(hours="5.5 h")),
    transfer_3m_item(
        "mdp_transfer_3m",
        "BRACIS'21 Fig. 6 with the paper's agent type: the compact + sparse + reduced agent trained on "
        "bracis-7 (3M decisions, 5 seeds), sampled, run unchanged on all ten scenarios with time-based steps "
        "(the paper's) and with its own event steps, beside each scenario's own 3M agents and SJF / Packer",
        "sweep_mdp_sparse_reduced_3m",
        ("sweep_mdp_sparse_reduced_3m", "sweep_mdp_sparse_reduced_3m_bracis1", "sweep_mdp_sparse_reduced_3m_scenarios"),
        ("time", "trained"), 710,
        "time steps: behind each of the {behind} other scenarios' own agents, CIs apart on all but bracis-9 (bracis-1 "
        "{t1} vs {s1}, bracis-3 {t3} vs {s3}); IQM below Packer only on bracis-7 and -9; the paper's {paper} not "
        "reproduced",
        numbers={"behind": transfer_count(MDP_TRANSFER, lambda s: s["transferred_over_seeds"]["iqm"] >
                                          s["specialised_over_seeds"]["iqm"]),
                 **{f"{agent}{n}": at(MDP_TRANSFER, f"scenarios/bracis-{n}/{kind}_over_seeds/iqm", ".2f")
                    for n in ("1", "3") for agent, kind in (("t", "transferred"), ("s", "specialised"))},
                 "paper": given("80%", "../shared/spec/mdp-variants.md (BRACIS'21 Fig. 6: transferred beats "
                                       "specialised in 80% of scenarios)")},
        note=TRANSFER_NOTE.format(hours="3.2 h")),
    Item(
        id="mdp_figures_3m",
        paper="BRACIS'21 Figs. 3 and 4 at the paper's budget: every agent type's 3M-decision sweeps on every "
              "scenario it ran; Fig. 4 sampled, IQM [95% CI] over seeds beside SJF / Packer and relative to SJF pooled "
              "over scenarios; Fig. 3 the training curves with bands over seeds (read from the sweeps; no training)",
        steps=(Step(MDP_FIGURES_3M),),
        outputs=tuple(f"mdp_figures_3m/fig{n}.{ext}" for n in (3, 4) for ext in ("md", "json", "png")),
        wall_s=40,
        inputs=tuple(f"{{out}}/{sweep}/summary.csv" for sweeps in MDP_FIGURES_3M_AGENTS.values() for sweep in sweeps),
        needs=tuple(sweep for sweeps in MDP_FIGURES_3M_AGENTS.values() for sweep in sweeps),
        headline="relative to SJF over all {all} scenarios: compact + sparse + reduced with the paper's two networks "
                 "{separate} [{separate_low}, {separate_high}] ({separate_beat} seeds beat SJF), with the shared trunk "
                 "{shared} [{shared_low}, {shared_high}] ({shared_beat}); image {image} ({image_scenarios} scenarios, "
                 "{image_beat}), image with two networks {image_separate} ({image_separate_scenarios} scenarios, "
                 "{image_separate_beat}); every job finished; the two networks' training curves still fall at 3M on "
                 "bracis-2, -4, -5, -8, -10",
        numbers={"all": computed(MDP_FIG4_3M, lambda root: len(json_value(
                     root, MDP_FIG4_3M, "agents/compact_sparse_reduced_separate/relative_to_sjf/scenarios")), "d"),
                 **{f"{label}{suffix}": at(MDP_FIG4_3M, f"agents/{agent}/relative_to_sjf/{key}")
                    for label, agent in (("separate", "compact_sparse_reduced_separate"),
                                         ("shared", "compact_sparse_reduced"), ("image", "image"),
                                         ("image_separate", "image_separate"))
                    for suffix, key in (("", "iqm"), ("_low", "ci_low"), ("_high", "ci_high"))},
                 **{f"{label}_beat": fig4_seeds(agent, "sjf")
                    for label, agent in (("separate", "compact_sparse_reduced_separate"),
                                         ("shared", "compact_sparse_reduced"), ("image", "image"),
                                         ("image_separate", "image_separate"))},
                 **{f"{label}_scenarios": computed(MDP_FIG4_3M, lambda root, agent=agent: len(json_value(
                     root, MDP_FIG4_3M, f"agents/{agent}/relative_to_sjf/scenarios")), "d")
                    for label, agent in (("image", "image"), ("image_separate", "image_separate"))},
                 "separate_below_sjf": computed(MDP_FIG4_3M, lambda root: sum(
                     cell["iqm"] < json_value(root, MDP_FIG4_3M, f"heuristics/{scenario}/sjf")
                     for scenario, cell in json_value(root, MDP_FIG4_3M,
                                                      "agents/compact_sparse_reduced_separate/scenarios").items()), "d")}),
    Item(
        id="mdp_swf_3m",
        paper="BRACIS'21 on real traces with the 3M-decision compact time-based agent (seed 0 of sweep_mdp_compact_3m), "
              "1001 / 1000 sampled episodes (7 x 143, 8 x 125 windows x episodes) as the paper's 1000",
        steps=tuple(Step(SWF_3M.format(trace=trace, name=name, cell=SWF_3M_CELL, windows=windows, episodes=episodes),
                         quick_command=SWF_3M.format(trace=trace, name=name, cell=SWF_3M_QUICK_CELL, windows=1,
                                                     episodes=2))
                    for trace, name, windows, episodes in (("ctc-sp2-first969", "ctc-sp2", 7, 143),
                                                           ("lublin-256", "lublin-256", 8, 125))),
        outputs=("mdp_swf_3m/ctc-sp2.json", "mdp_swf_3m/ctc-sp2.md", "mdp_swf_3m/lublin-256.json",
                 "mdp_swf_3m/lublin-256.md"),
        wall_s=228,
        inputs=("{out}/sweep_mdp_compact_3m/cells/" + SWF_3M_CELL + "/checkpoints",),
        needs=("sweep_mdp_compact_3m",),
        note="The checkpoint it evaluates (seed 0 of sweep_mdp_compact_3m's cell) is not committed: results/ keeps the "
             "sweep's summary, eval.json, config.json and compressed metrics. Reproducing this item into a fresh --out "
             "(python -m jaxsched.reproduce mdp_swf_3m --out runs/mdp_swf_3m) re-trains sweep_mdp_compact_3m first: "
             "15 min on the 2-core CPU in all, 4 min of it this item's evaluation (docs/results/timings.md).",
        headline="the 3M agent transfers worse than the 96k one: sampled {ctc} on CTC SP2 (SJF {ctc_sjf}; 96k agent "
                 "{ctc_96k}, leaving {ctc_96k_left} of {ctc_96k_jobs} unfinished), {lublin} on Lublin-256, leaving "
                 "{lublin_left} of {lublin_jobs} unfinished (SJF {lublin_sjf}, EASY {lublin_easy}; 96k agent "
                 "{lublin_96k}, leaving {lublin_96k_left} of {lublin_96k_jobs}); rows with jobs unfinished not ranked",
        numbers={**{f"{trace}{suffix}": number
                    for trace, name in (("ctc", "ctc-sp2"), ("lublin", "lublin-256"))
                    for agent_file, agent, own in ((f"mdp_swf_3m/{name}.json", f"ppo:{SWF_3M_CELL}-sampled", ""),
                                                   (f"mdp_swf/{name}.json", "ppo:bracis-7_compact", "_96k"))
                    for suffix, number in ((own, at(agent_file, f"policies/{agent}/mean_slowdown", ".2f")),
                                           (f"{own}_left", computed(agent_file, lambda root, f=agent_file, a=agent:
                                                                    int(json_value(root, f, f"policies/{a}/jobs")) -
                                                                    int(json_value(root, f, f"policies/{a}/finished")),
                                                                    "d")),
                                           (f"{own}_jobs", at(agent_file, f"policies/{agent}/jobs", ".0f")))},
                 "ctc_sjf": at("mdp_swf_3m/ctc-sp2.json", "policies/sjf/mean_slowdown", ".2f"),
                 "lublin_sjf": at("mdp_swf_3m/lublin-256.json", "policies/sjf/mean_slowdown", ".2f"),
                 "lublin_easy": at("mdp_swf_3m/lublin-256.json", "policies/easy/mean_slowdown", ".2f")},
    ),
]


_HEADLINED = {item.id: item for item in ITEMS}
_rounded = functools.partial(rounded, _HEADLINED)


def _below_packer(file: str) -> Callable:
    """How many scenarios of a transfer file the transferred agent's IQM is below Packer's on (all of them)."""
    return lambda root: sum(entry["transferred_over_seeds"]["iqm"] < entry["packer"]["mean_slowdown"]
                            for entry in json_value(root, file, "scenarios").values())


def _cells_r2(item_id: str, *cells: str, kinds: tuple[str, ...] = ("", "_sjf")) -> dict[str, Number]:
    return _rounded(item_id, *(f"{cell}{kind}" for cell in cells for kind in kinds))


def _each(name: str, cells: tuple[str, ...], index: int) -> Number:
    """One side (0: seeds beating SJF, 1: seeds) of the ``k/n`` every one of ``cells`` of the sweep ``name`` shares,
    for prose that writes "k of n seeds each"."""
    parts = [sweep(name, stat="beating", cell=cell) for cell in cells]

    def read(root) -> str:
        texts = {number.text(root) for number in parts}
        if len(texts) != 1:
            raise NumberError(f"{name}: the cells {cells} differ ({sorted(texts)})")
        return texts.pop().split("/")[index]
    return Number(f"{name}/summary.csv", read)


PROSE: dict[str, dict[str, Number]] = {  # numbers the prose pages quote beside the headlines'
    "mdp_ppo_deeprm": {policy: at(MDP_DEEPRM, f"deeprm_ppo/heldout/{policy}/mean_slowdown", ".2f")
                       for policy in ("tetris", "packer", "random")},
    "mdp_swf": {"jobs_comma": _HEADLINED["mdp_swf"].numbers["jobs"].to(",.0f")},
    "sweep_mdp_sparse_reduced_3m": {**_rounded("sweep_mdp_sparse_reduced_3m", "iqm", "sjf", "packer"),
                                    "training_minutes": computed("sweep_mdp_sparse_reduced_3m/cells",
                                                                 training_minutes("sweep_mdp_sparse_reduced_3m"), ".0f")},
    "sweep_mdp_compact_3m": {**_rounded("sweep_mdp_compact_3m", "iqm"),
                             "training_minutes": computed("sweep_mdp_compact_3m/cells",
                                                          training_minutes("sweep_mdp_compact_3m"), ".0f")},
    "sweep_mdp_image_3m": _rounded("sweep_mdp_image_3m", "iqm", "ci"),
    "sweep_mdp_image_3m_scenarios": {
        **_rounded("sweep_mdp_image_3m_scenarios", *(f"{k}{n}" for n in ("10", "9", "8", "6") for k in ("b", "sr"))),
        "seeds_per_scenario": sweep("sweep_mdp_image_3m_scenarios", stat="count", cell="cell000")},
    "sweep_mdp_image_3m_small": _rounded("sweep_mdp_image_3m_small", "c1", "b1"),
    "sweep_mdp_sparse_reduced_3m_scenarios": {
        "beat_packer_k": part(_HEADLINED["sweep_mdp_sparse_reduced_3m_scenarios"].numbers["beat_packer"], 0),
        "beat_packer_n": part(_HEADLINED["sweep_mdp_sparse_reduced_3m_scenarios"].numbers["beat_packer"], 1)},
    "sweep_mdp_separate_critic_3m_scenarios": {
        **_cells_r2("sweep_mdp_separate_critic_3m_scenarios", *(f"b{n}" for n in (1, 2, 3, 4, 5, 6, 8, 9, 10))),
        **{f"won_each_{side}": _each("sweep_mdp_separate_critic_3m_scenarios",
                                     tuple(SEPARATE_3M_CELLS[f"b{n}"] for n in (9, 2, 10, 8, 5, 4)), index)
           for side, index in (("k", 0), ("n", 1))}},
    "sweep_mdp_separate_critic_6m": {**_cells_r2("sweep_mdp_separate_critic_6m", "b1", "b3", "b6"),
                                     "seeds": sweep("sweep_mdp_separate_critic_6m", stat="count", cell="cell000")},
    "sweep_mdp_separate_critic_12m_bracis3": _rounded("sweep_mdp_separate_critic_12m_bracis3", "iqm", "sjf"),
    "sweep_mdp_separate_critic_6m_bracis7": _rounded("sweep_mdp_separate_critic_6m_bracis7", "iqm", "m3"),
    "sweep_mdp_separate_critic_6m_won": _cells_r2("sweep_mdp_separate_critic_6m_won", "b2", "b4", "b5", "b8", "b9",
                                                  "b10", kinds=("", "_3m")),
    "sweep_mdp_image_separate_critic_3m_scenarios": _rounded("sweep_mdp_image_separate_critic_3m_scenarios",
                                                             "b1", "c1", "b1_sjf", "b2", "c2"),
    "sweep_mdp_image_separate_critic_3m_bracis7": _rounded("sweep_mdp_image_separate_critic_3m_bracis7",
                                                           "iqm", "compact"),
    "sweep_mdp_image_separate_critic_3m_largest": _cells_r2("sweep_mdp_image_separate_critic_3m_largest",
                                                            "b10", "b9", "b8", "b6", kinds=("", "_sjf")) | _rounded(
        "sweep_mdp_image_separate_critic_3m_largest", "c10", "c9", "c8", "c6", "s10", "s9"),
    "sweep_mdp_image_separate_critic_3m_mid": _rounded("sweep_mdp_image_separate_critic_3m_mid",
                                                       "b5", "c5", "b4", "c4", "b3", "c3"),
    "mdp_figures_3m": {**_rounded("mdp_figures_3m", "separate", "shared"),
                       "separate_interval_r2": span(*_rounded("mdp_figures_3m", "separate_low", "separate_high").values())},
    "mdp_transfer_3m_separate_critic": {
        "below_packer": computed(MDP_TRANSFER_SEPARATE, _below_packer(MDP_TRANSFER_SEPARATE), "d"),
        "scenarios": computed(MDP_TRANSFER_SEPARATE, lambda root: len(json_value(root, MDP_TRANSFER_SEPARATE,
                                                                                  "scenarios")), "d")},
}
ITEMS = with_prose(ITEMS, PROSE)
