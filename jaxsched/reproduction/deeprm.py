"""DeepRM (HotNets'16), DeepRM2 and DeepRM_Off items, with the README's quick start: the docs'
"DeepRM, DeepRM2 and DeepRM_Off" results page, in the order of the index.
"""

from __future__ import annotations

import re
import shlex
from typing import Callable, Mapping

import numpy as np

from jaxsched.core import stats
from jaxsched.reproduction.items import (BC_QUICK, CPU, H200, REINFORCE_QUICK, Item, Step, copy, resume, train,
                                         training_minutes, with_prose)
from jaxsched.reproduction.numbers import (Number, NumberError, at, change, column, computed, csv_rows, given, json_value,
                                       noted, seed_interval, seeds, sweep, sweep_summary)


def slot_scorer_sweep(name: str, lead: str = "", cloned: bool = True, seeds: str = "0:8") -> Step:
    """The DeepRM sweep of the shared job scorer over ``seeds`` (150 iterations of 10 x 10; with ``cloned``,
    BC on 400 jobsets first) into ``{out}/name``; ``lead``: overrides (and swept axes) before the common ones."""
    def command(seeds: str, size: str, bc: str) -> str:
        network = "algo_options.network=slots" + (f" bc.network=slots {bc}" if cloned else "")
        return (f"jaxsched.sweep --config configs/deeprm_slowdown_bc.yaml --seeds {seeds} --out {{out}}/{name} "
                f"{lead}{size} {network}")

    return Step(command(seeds, "iterations=150 algo_options.num_jobsets=10 algo_options.num_rollouts=10",
                        "bc.num_jobsets=400 bc.patience=10") + " devices=auto",
                quick_command=command("0:2", "iterations=2 chunk=1 checkpoint_every=1 eval_jobsets=5 "
                                      "algo_options.num_jobsets=2 algo_options.num_rollouts=2",
                                      "bc.num_jobsets=20 bc.max_epochs=5"))


def one_run_item(name: str, label: str, paper: str, training: Step, wall_s: float, headline: str,
                 note: str = "", beside: dict[str, str] | None = None,
                 numbers: Mapping[str, Number] | None = None, hardware: str = CPU) -> Item:
    """One training run (``training`` writes ``{scratch}/label``) and its learning curves and held-out table
    from ``compare_runs``, written to ``{out}/name``; ``beside``: {label: item id} of other one-run items
    whose runs are compared with it (their checkpoints are this item's inputs)."""
    beside = beside or {}
    runs = " ".join(f"{run}={{scratch}}/{run}" for run in (*beside, label))
    compare = Step(f"jaxsched.studies.compare_runs --out {{out}}/{name} {runs}")
    return Item(id=name, paper=paper, steps=(training, compare),
                outputs=(f"{name}/summary.json", f"{name}/learning_curves_iteration.png"),
                wall_s=wall_s, headline=headline, note=note, numbers=numbers or {}, hardware=hardware,
                inputs=tuple(f"{{scratch}}/{run}/checkpoints" for run in beside), needs=tuple(beside.values()))


# Tetris*'s knob (its weight on Packer's alignment score; 1 - knob on 1 / duration) from nearly SJF to the default.
TETRIS_KNOBS = ",".join(f"tetris:{knob}" for knob in (0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.8))


DEEPRM_BC = "configs/deeprm_slowdown_bc.yaml"


# ---- readers of the DeepRM and bench items' own files (compare_runs summaries, bench rows) ----------------


def _seed_rows(root, file: str, run: str) -> list[dict]:
    """The held-out rows of ``run``'s seeds (``trained-sK-sampled``) in a compare_runs summary."""
    held = json_value(root, file, f"runs/{run}/heldout")
    return [row for name, row in held.items() if re.fullmatch(r"trained-s\d+-sampled", name)]


def _jobs_left(file: str, path: str) -> Number:
    """``jobs - finished`` of the policy row at ``path`` of the JSON ``file``."""
    return Number(file, lambda root: str(int(json_value(root, file, f"{path}/jobs"))
                                         - int(json_value(root, file, f"{path}/finished"))))


def _below(file: str, run: str, baseline: str = "sjf", metric: str = "mean_slowdown") -> Number:
    """``k/n``: of ``run``'s seeds, how many are below ``baseline``'s held-out ``metric`` with every job
    finished (a compare_runs summary)."""
    def read(root) -> str:
        theirs = float(json_value(root, file, f"runs/{run}/heldout/{baseline}/{metric}"))
        rows = _seed_rows(root, file, run)
        return f"{sum(r['finished'] == r['jobs'] and r[metric] < theirs for r in rows)}/{len(rows)}"
    return Number(file, read)


def _seeds_interval(file: str, run: str, metric: str = "mean_slowdown", fmt: str = ".2f") -> Number:
    """The interval of ``run``'s sampled seeds in a compare_runs summary (the range under 5 seeds)."""
    return Number(file, lambda root: seed_interval([r[metric] for r in _seed_rows(root, file, run)]).text(fmt))


def _beats_heuristics_from(root) -> float:
    """The lowest load of deeprm_fig4_trained_at_0.7 from which, at every load up, the sampled policy
    finishes every job with a mean slowdown below every heuristic's."""
    loads = json_value(root, "deeprm_fig4_trained_at_0.7/summary.json", "")
    lowest = None
    for load in sorted(loads, key=float, reverse=True):
        rows = loads[load]
        mine = rows["checkpoint-sampled"]
        if mine["finished"] != mine["jobs"] or any(
                mine["mean_slowdown"] >= rows[h]["mean_slowdown"] for h in ("sjf", "packer", "tetris", "random")):
            break
        lowest = float(load)
    if lowest is None:
        raise NumberError("the sampled policy does not beat every heuristic at the highest load")
    return lowest


def _sjf_best(file: str) -> Number:
    """``k/n``: at how many of ``file``'s loads SJF's mean slowdown is the lowest (ties included)."""
    def read(root) -> str:
        loads = json_value(root, file, "")
        best = sum(rows["sjf"]["mean_slowdown"] <= min(r["mean_slowdown"] for r in rows.values())
                   for rows in loads.values())
        return f"{best}/{len(loads)}"
    return Number(file, read)


def _beating_all(name: str, cell: str, heuristics=("sjf", "packer", "tetris", "random")) -> Number:
    """``k/n``: of a sweep cell's seeds, how many finish every job with a sampled mean slowdown below every
    heuristic's."""
    file = f"{name}/summary.csv"
    def read(root) -> str:
        rows = csv_rows(root, file, {"run_dir": cell})
        wins = sum(int(float(r["final_sampled_finished"])) == int(float(r["final_sampled_jobs"])) and
                   float(r["final_sampled_mean_slowdown"]) < min(float(r[f"final_{h}_mean_slowdown"]) for h in heuristics)
                   for r in rows)
        return f"{wins}/{len(rows)}"
    return Number(file, read)


def _withheld_long(root) -> float:
    """The percentage of the jobs the trained policy withholds (deeprm_fig7_load1.1) that are long (>= 10 steps)."""
    counts = json_value(root, "deeprm_fig7_load1.1/withholding.json", "policies/trained/withheld_job_length_histogram")
    return 100 * sum(n for length, n in counts.items() if int(length) >= 10) / sum(counts.values())


def _heldout_seed(file: str, run: str, seed: int, metric: str = "mean_slowdown", fmt: str = ".2f") -> Number:
    """Seed ``seed``'s sampled held-out ``metric`` of ``run`` in a compare_runs summary."""
    return at(file, f"runs/{run}/heldout/trained-s{seed}-sampled/{metric}", fmt)


DRM_RECIPE, DRM_RECIPE_BC = "deeprm_paper_recipe_h200/summary.json", "deeprm_paper_recipe_bc_h200/summary.json"
DRM_MLP_BC, DRM_MLP = "deeprm2_mlp_bc_h200/summary.json", "deeprm2_mlp_h200/summary.json"


DRM2_FIG3 = "deeprm2_fig3_h200/load{}/summary.json"
DRM2_FIG4 = "deeprm2_fig4_load0.7/summary.json"
DRM2_FIG6 = "deeprm2_fig6_load0.7/slowdown_by_length.json"
DRM2_FIG6_SERIES = (("mlp", "DeepRM (MLP, lr 1e-3, 330 it)"), ("sjf", "SJF"), ("cnn", "DeepRM2 (CNN + BC, 190 it)"))
SHORT_JOBS, LONG_JOBS = (1, 2, 3), tuple(range(10, 16))


def _by_length(series: str, stat: str, lengths: tuple[int, ...], fmt: str = ".1f", part: str = "") -> Number:
    """``low-high``: the range over ``lengths`` of ``series``' per-length ``stat`` (median, q3) in deeprm2_fig6
    (``part`` "low" or "high": that end alone)."""
    def read(root) -> str:
        values = [float(json_value(root, DRM2_FIG6, f"series/{series}/by_length/{n}/{stat}")) for n in lengths]
        low, high = f"{min(values):{fmt}}", f"{max(values):{fmt}}"
        return {"low": low, "high": high}.get(part, f"{low}-{high}")
    return Number(DRM2_FIG6, read)


def _seeds_iqm(file: str, run: str, metric: str = "mean_slowdown", fmt: str = ".2f") -> Number:
    """The IQM of ``run``'s sampled seeds' held-out ``metric`` in a compare_runs summary."""
    return Number(file, lambda root: format(float(stats.iqm(np.array([r[metric] for r in _seed_rows(root, file, run)]))),
                                            fmt))


DEEPRM2 = "configs/deeprm2_cnn_bc.yaml"
DEEPRM2_SMALL = ("algo_options.num_jobsets=4", "algo_options.num_rollouts=5", "bc.num_jobsets=50", "bc.max_epochs=15")
# DeepRM2 Fig. 3: per load, the iterations its CNN + BC reached in one H200 session.
DEEPRM2_FIG3_ITERATIONS = {"0.7": 190, "1.0": 190, "1.3": 180}
DEEPRM2_CLONED = ("bc.num_jobsets=200", "bc.max_epochs=100", "algo_options.lr=1e-4")


def deeprm2_fig3_run(label: str, load: str, iterations: int, *options: str) -> Step:
    quick = REINFORCE_QUICK if "bc=null" in options else f"{REINFORCE_QUICK} {BC_QUICK}"
    return train(f"{{scratch}}/deeprm2_fig3/{label}_l{load}", DEEPRM2, f"env_options.load={load}", *options,
                 f"iterations={iterations}", "checkpoint_every=10", seeds="0,1,2", quick=quick)


def deeprm2_fig3_steps() -> tuple[Step, ...]:
    """Per load, CNN + BC at lr 1e-4 (cloning 200 jobsets), 20 x 20 rollouts, 3 seeds, beside MLP + BC for the
    same iterations (at 1.0 deeprm2_mlp_bc_h200's, 420) and the MLP without cloning (0.7: DeepRM's lr 1e-3,
    330 iterations; 1.0: deeprm2_mlp_h200's; 1.3: none). compare_runs writes ``load<L>/``."""
    mlp = {"0.7": {"mlp_bc": "{scratch}/deeprm2_fig3/mlp_bc_l0.7", "mlp": "{scratch}/deeprm2_fig3/mlp_l0.7"},
           "1.0": {"mlp_bc": "{scratch}/mlp_bc_20x20", "mlp": "{scratch}/mlp_20x20"},
           "1.3": {"mlp_bc": "{scratch}/deeprm2_fig3/mlp_bc_l1.3"}}
    steps = [deeprm2_fig3_run("mlp", "0.7", 330, "bc=null", "algo_options.network=mlp", "algo_options.lr=1e-3",
                              "chunk=10")]
    for load, iterations in DEEPRM2_FIG3_ITERATIONS.items():
        steps.append(deeprm2_fig3_run("cnn_bc", load, iterations, *DEEPRM2_CLONED, "chunk=1"))
        if load != "1.0":
            steps.append(deeprm2_fig3_run("mlp_bc", load, iterations, *DEEPRM2_CLONED, "bc.network=mlp",
                                          "algo_options.network=mlp", "chunk=10"))
        labels = " ".join(f"{label}={run}" for label, run in
                          {"cnn_bc": f"{{scratch}}/deeprm2_fig3/cnn_bc_l{load}", **mlp[load]}.items())
        steps.append(Step(f"jaxsched.studies.compare_runs --out {{out}}/deeprm2_fig3_h200/load{load} {labels}"))
    return tuple(steps)


def deeprm2_fig4_steps() -> tuple[Step, ...]:
    """DeepRM2 Fig. 4 at load 0.7: :func:`deeprm2_fig3_steps`' three recipes (DeepRM's MLP, lr 1e-3, 330
    iterations; MLP + BC and CNN + BC, lr 1e-4, the CNN's iterations at 0.7) trained on completion time (reward
    -|J|), then beside the slowdown-trained policies (deeprm2_fig3_h200's copies of their runs) on the same
    held-out jobsets."""
    completion, iterations = "env_options.reward=completion_time", DEEPRM2_FIG3_ITERATIONS["0.7"]
    runs = {"mlp_completion": "{scratch}/deeprm2_fig3/mlp_completion_l0.7",
            "mlp_bc_completion": "{scratch}/deeprm2_fig3/mlp_bc_completion_l0.7",
            "cnn_bc_completion": "{scratch}/deeprm2_fig3/cnn_bc_completion_l0.7",
            **{label: f"{{out}}/deeprm2_fig3_h200/load0.7/{label}" for label in ("mlp", "mlp_bc", "cnn_bc")}}
    labels = " ".join(f"{label}={run}" for label, run in runs.items())
    return (deeprm2_fig3_run("mlp_completion", "0.7", 330, completion, "bc=null", "algo_options.network=mlp",
                             "algo_options.lr=1e-3", "chunk=10"),
            deeprm2_fig3_run("mlp_bc_completion", "0.7", iterations, completion, *DEEPRM2_CLONED, "bc.network=mlp",
                             "algo_options.network=mlp", "chunk=10"),
            deeprm2_fig3_run("cnn_bc_completion", "0.7", iterations, completion, *DEEPRM2_CLONED, "chunk=1"),
            Step(f"jaxsched.studies.compare_runs --out {{out}}/deeprm2_fig4_load0.7 {labels}"))


def deeprm2_fig6_steps() -> tuple[Step, ...]:
    """Per-job outcomes of Random, SJF and the two load-0.7 policies of :func:`deeprm2_fig3_steps` on the held-out
    jobsets their training evaluated (seed 99991), then the box plots per job length."""
    out = "{out}/deeprm2_fig6_load0.7"
    evaluations = [Step(f"jaxsched.evaluate --checkpoint {{scratch}}/deeprm2_fig3/{run} --seed-index 0 "
                        f"--policies {policies} --jobsets 100 --seed 99991 --per-job {out}/{label}.csv "
                        f"--summary {out}/{label}.json",
                        quick="--jobsets 3")
                   for label, run, policies in (("cnn_bc", "cnn_bc_l0.7", "random,sjf,checkpoint-sampled"),
                                                ("mlp", "mlp_l0.7", "checkpoint-sampled"))]
    series = {"Random": "cnn_bc.csv:random", "SJF": "cnn_bc.csv:sjf",
              "DeepRM (MLP, lr 1e-3, 330 it)": "mlp.csv:checkpoint-sampled",
              f"DeepRM2 (CNN + BC, {DEEPRM2_FIG3_ITERATIONS['0.7']} it)": "cnn_bc.csv:checkpoint-sampled"}
    flags = " ".join(shlex.quote(f"--series={label}={out}/{spec}") for label, spec in series.items())
    title = shlex.quote("--title=Slowdown by job length, load 0.7, 100 held-out jobsets (DeepRM2 Fig. 6)")
    return (*evaluations, Step(f"jaxsched.studies.slowdown_by_length --out {out} {flags} {title}"))


ITEMS: list[Item] = [
    Item(
        id="quickstart",
        paper="README's quick start: DeepRM REINFORCE on a small cluster, 2 seeds, held-out against the heuristics",
        steps=(Step("jaxsched.train --config configs/quickstart.yaml --out {out}/quickstart",
                    quick="iterations=2 chunk=1 eval_jobsets=2"),),
        outputs=("quickstart/eval.json", "quickstart/config.json"),
        wall_s=476,
        headline="SJF {sjf}, sampled policies {s0} and {s1} with {f0}/{jobs} and {f1}/{jobs} jobs finished",
        numbers={"sjf": at("quickstart/eval.json", "policies/sjf/mean_slowdown"),
                 "s0": at("quickstart/eval.json", "policies/trained-s0-sampled/mean_slowdown"),
                 "s1": at("quickstart/eval.json", "policies/trained-s1-sampled/mean_slowdown"),
                 "f0": at("quickstart/eval.json", "policies/trained-s0-sampled/finished", ".0f"),
                 "f1": at("quickstart/eval.json", "policies/trained-s1-sampled/finished", ".0f"),
                 "jobs": at("quickstart/eval.json", "policies/sjf/jobs", ".0f"),
                 "g0": at("quickstart/eval.json", "policies/trained-s0/finished", ".0f"),
                 "g1": at("quickstart/eval.json", "policies/trained-s1/finished", ".0f")},
        note="Only eval.json, config.json and metrics.csv are kept (no checkpoints). wall_s was measured on a "
             "2-core AMD EPYC shared with other jobs (load 11); a quiet machine takes about two minutes.",
    ),
    Item(
        id="deeprm_heuristics_vs_load",
        paper="DeepRM Fig. 4 axes (heuristics only), reference check of ../shared/spec/deeprm.md",
        steps=(Step("jaxsched.evaluate --env deeprm --policies sjf,packer,tetris,random,fcfs --loads 0.1:1.9:0.2 "
                    "--jobsets 10 --seeds 0:10 --summary {out}/deeprm_heuristics_vs_load.json --results-dir {out}",
                    quick="--loads 0.3,0.7 --jobsets 2 --seeds 0:2"),),
        outputs=("deeprm_heuristics_vs_load.json", "deeprm_slowdown_vs_load.csv", "deeprm_slowdown_vs_load.png"),
        wall_s=300, estimate=True,
        headline="load 0.7: SJF {sjf}, Packer {packer}, Random {random} (reference {ref_sjf} / {ref_packer} / "
                 "{ref_random})",
        numbers={**{p: at("deeprm_heuristics_vs_load.json", f"0.7/{p}/mean_slowdown", ".2f")
                    for p in ("sjf", "packer", "random")},
                 "ref_sjf": given("2.86", "../shared/spec/deeprm.md, load 0.7"),
                 "ref_packer": given("5.08", "../shared/spec/deeprm.md, load 0.7"),
                 "ref_random": given("7.49", "../shared/spec/deeprm.md, load 0.7")},
    ),
    Item(
        id="deeprm_reference_jobsets",
        paper="DeepRM reference check on the reference code's own jobsets (../shared/spec/deeprm.md)",
        steps=(Step("jaxsched.evaluate --env deeprm --policies sjf,packer,tetris,random,fcfs --loads 0.3,0.7,1.1 "
                    "--jobsets 10 --seeds 0:10 --reference-rng --summary {out}/deeprm_reference_jobsets.json "
                    "--results-dir {scratch}/deeprm_reference_jobsets",
                    quick="--loads 0.7 --jobsets 2 --seeds 0:1 --policies sjf,packer"),),
        outputs=("deeprm_reference_jobsets.json",),
        wall_s=120, estimate=True,
        headline="SJF and Packer equal the reference to the last digit (load 1.1: {sjf}, {packer})",
        numbers={p: computed("deeprm_reference_jobsets.json",  # the spec's mean over seeds of each seed's mean
                             lambda root, p=p: float(np.mean(json_value(root, "deeprm_reference_jobsets.json",
                                                                        f"1.1/{p}/seed_mean_slowdown"))), ".2f")
                 for p in ("sjf", "packer")},
    ),
    Item(
        id="deeprm_load0.7_j20",
        paper="DeepRM Fig. 4 set-up, REINFORCE without behaviour cloning (partial)",
        steps=(train("{out}/deeprm_load0.7_j20", "configs/deeprm_slowdown.yaml", "iterations=300",
                     "algo_options.num_jobsets=20", "algo_options.resample_jobsets=true", "eval_jobsets=100",
                     quick=REINFORCE_QUICK),
               resume("{out}/deeprm_load0.7_j20", 1000, 4)),
        outputs=("deeprm_load0.7_j20/eval.json", "deeprm_load0.7_j20/metrics.csv"),
        wall_s=2169,
        headline="held-out {sampled} vs SJF {sjf} (does not reach SJF)",
        numbers={"sampled": at("deeprm_load0.7_j20/eval.json", "policies/trained-s0-sampled/mean_slowdown", ".2f"),
                 "sjf": at("deeprm_load0.7_j20/eval.json", "policies/sjf/mean_slowdown", ".2f")},
    ),
    Item(
        id="deeprm_bc_load0.7",
        paper="DeepRM Fig. 6 set-up: behaviour cloning, then REINFORCE at load 0.7",
        steps=(train("{out}/deeprm_bc_load0.7", DEEPRM_BC, "iterations=300", quick=f"{REINFORCE_QUICK} {BC_QUICK}"),
               resume("{out}/deeprm_bc_load0.7", 700, 4)),
        outputs=("deeprm_bc_load0.7/eval.json", "deeprm_bc_load0.7/metrics.csv"),
        wall_s=2586,
        headline="trained (sampled) {sampled} vs SJF {sjf} ({change}%)",
        numbers={"sampled": at("deeprm_bc_load0.7/eval.json", "policies/trained-s0-sampled/mean_slowdown"),
                 "sjf": at("deeprm_bc_load0.7/eval.json", "policies/sjf/mean_slowdown"),
                 "change": change("deeprm_bc_load0.7/eval.json", "policies/trained-s0-sampled/mean_slowdown",
                                  "policies/sjf/mean_slowdown"),
                 "sampled2": at("deeprm_bc_load0.7/eval.json", "policies/trained-s0-sampled/mean_slowdown", ".2f"),
                 "sjf2": at("deeprm_bc_load0.7/eval.json", "policies/sjf/mean_slowdown", ".2f")},
    ),
    Item(
        id="deeprm_fig4_trained_at_0.7",
        paper="DeepRM Fig. 4: slowdown vs load with the policy trained at 0.7",
        steps=(Step("jaxsched.evaluate --pretrained deeprm-mlp-load0.7 --policies sjf,packer,tetris,random "
                    "--loads 0.1,0.3,0.5,0.7,0.9,1.1,1.3,1.5,1.7,1.9 --jobsets 10 --seeds 0:10 "
                    "--summary {out}/deeprm_fig4_trained_at_0.7/summary.json "
                    "--results-dir {out}/deeprm_fig4_trained_at_0.7",
                    quick="--loads 0.7 --jobsets 2 --seeds 0:1"),),
        outputs=("deeprm_fig4_trained_at_0.7/summary.json", "deeprm_fig4_trained_at_0.7/deeprm_slowdown_vs_load.csv",
                 "deeprm_fig4_trained_at_0.7/deeprm_slowdown_vs_load.png"),
        wall_s=600, estimate=True,
        note="Evaluates the shipped policy deeprm-mlp-load0.7 (jaxsched.pretrained: deeprm_bc_load0.7's one seed at "
             "its final iteration, 700), as --checkpoint results/deeprm_bc_load0.7 did when results/ kept its "
             "checkpoint: the same rows, every digit; no training needed. To evaluate a re-trained run instead: "
             "--checkpoint RUN.",
        headline="sampled policy (one training seed) below every heuristic from load {lowest} to 1.9 (load 1.1: "
                 "{sampled} vs SJF {sjf})",
        numbers={"lowest": computed("deeprm_fig4_trained_at_0.7/summary.json", _beats_heuristics_from, ".1f"),
                 "sampled": at("deeprm_fig4_trained_at_0.7/summary.json", "1.1/checkpoint-sampled/mean_slowdown",
                               ".2f"),
                 "sjf": at("deeprm_fig4_trained_at_0.7/summary.json", "1.1/sjf/mean_slowdown", ".2f")},
    ),
    Item(
        id="sweep_deeprm_bc_load0.7",
        paper="DeepRM Fig. 6 set-up over 8 seeds (10 x 10 rollouts): IQM and 95% CI, learning curves",
        steps=(Step("jaxsched.sweep --config configs/deeprm_slowdown_bc.yaml --seeds 0:8 "
                    "--out {out}/sweep_deeprm_bc_load0.7 iterations=300 algo_options.num_jobsets=10 "
                    "algo_options.num_rollouts=10 devices=auto",
                    quick_command="jaxsched.sweep --config configs/deeprm_slowdown_bc.yaml --seeds 0:2 "
                                  "--out {out}/sweep_deeprm_bc_load0.7 iterations=2 chunk=1 checkpoint_every=1 "
                                  "eval_jobsets=5 algo_options.num_jobsets=2 algo_options.num_rollouts=2 "
                                  "bc.num_jobsets=20 bc.max_epochs=5"),),  # a greedy policy that finishes jobs
        outputs=("sweep_deeprm_bc_load0.7/summary.csv", "sweep_deeprm_bc_load0.7/report.md"),
        wall_s=3900,
        headline="{seeds} seeds, sampled: IQM {iqm} {ci} vs SJF {sjf} ({beating} beat SJF with every job finished "
                 "after 300 iterations of 10 x 10); greedy leaves {unfinished} of {jobs} jobs unfinished (not ranked)",
        numbers={"seeds": sweep("sweep_deeprm_bc_load0.7", stat="count"),
                 "iqm": sweep("sweep_deeprm_bc_load0.7", fmt=".2f"),
                 "ci": sweep("sweep_deeprm_bc_load0.7", stat="interval", fmt=".2f"),
                 "sjf": sweep("sweep_deeprm_bc_load0.7", policy="sjf", stat="value", fmt=".2f"),
                 "beating": sweep("sweep_deeprm_bc_load0.7", stat="beating"),
                 "unfinished": seeds("sweep_deeprm_bc_load0.7/summary.csv", "final_unfinished", "sum", ".0f"),
                 "jobs": seeds("sweep_deeprm_bc_load0.7/summary.csv", "final_jobs", "sum", ".0f")},
    ),
    Item(
        id="sweep_deeprm_slots_load0.7",
        paper="DeepRM Fig. 6 set-up over 8 seeds (10 x 10 rollouts) with the slot scorer: IQM and 95% CI",
        steps=(slot_scorer_sweep("sweep_deeprm_slots_load0.7"),),
        outputs=("sweep_deeprm_slots_load0.7/summary.csv", "sweep_deeprm_slots_load0.7/report.md"),
        wall_s=1536,
        headline="{seeds} seeds, sampled IQM {iqm} {ci} vs SJF {sjf}, {beating} seeds beat SJF with every job "
                 "finished (the MLP, 300 iterations: {mlp}, none)",
        numbers={**sweep_summary("sweep_deeprm_slots_load0.7"),
                 "beating": sweep("sweep_deeprm_slots_load0.7", stat="beating"),
                 "mlp": sweep("sweep_deeprm_bc_load0.7")},
    ),
    Item(
        id="sweep_deeprm_slots_nobc_load0.7",
        paper="the same 8-seed sweep without behaviour cloning (same lr 1e-4): the BC effect, unconfounded",
        steps=(slot_scorer_sweep("sweep_deeprm_slots_nobc_load0.7", "bc=null ", cloned=False),),
        outputs=("sweep_deeprm_slots_nobc_load0.7/summary.csv", "sweep_deeprm_slots_nobc_load0.7/report.md"),
        wall_s=1364,
        headline="no BC, same lr 1e-4, {seeds} seeds: sampled IQM {iqm} {ci} vs SJF {sjf} (with BC: {bc}): "
                 "at this budget behaviour cloning is what beats SJF",
        numbers={**sweep_summary("sweep_deeprm_slots_nobc_load0.7"),
                 "bc": sweep("sweep_deeprm_slots_load0.7"),
                 "beating": sweep("sweep_deeprm_slots_nobc_load0.7", stat="beating")},
    ),
    Item(
        id="sweep_deeprm_slots_load1.1",
        paper="DeepRM Fig. 6 set-up at load 1.1 over 8 seeds (10 x 10 rollouts) with the slot scorer: IQM and "
              "95% CI",
        steps=(slot_scorer_sweep("sweep_deeprm_slots_load1.1", "env_options.load=1.1 "),),
        outputs=("sweep_deeprm_slots_load1.1/summary.csv", "sweep_deeprm_slots_load1.1/report.md"),
        wall_s=1248,
        headline="{seeds} seeds, sampled IQM {iqm} {ci} vs SJF {sjf}, {beating} seeds beat SJF with every job "
                 "finished",
        numbers={**sweep_summary("sweep_deeprm_slots_load1.1"),
                 "beating": sweep("sweep_deeprm_slots_load1.1", stat="beating")},
    ),
    Item(
        id="deeprm_paper_fig4",
        paper="DeepRM Fig. 4 on the paper's job sizes (deeprm-paper: demands 0.25-0.5r / 0.05-0.1r), heuristics vs "
              "load, and Tetris*'s knob on both workloads (where the paper's ordering, Tetris* best, holds)",
        steps=(Step("jaxsched.evaluate --env deeprm-paper --policies sjf,packer,tetris,random,fcfs --loads 0.1:1.9:0.2 "
                    "--jobsets 10 --seeds 0:10 --summary {out}/deeprm_paper_fig4/heuristics.json "
                    "--results-dir {out}/deeprm_paper_fig4", quick="--loads 0.3,0.7 --jobsets 2 --seeds 0:2"),
               *(Step(f"jaxsched.evaluate --env {env} --policies sjf,{TETRIS_KNOBS} --loads 0.3,0.7,1.1 --jobsets 10 "
                      f"--seeds 0:10 --summary {{out}}/deeprm_paper_fig4/tetris_knob_{env}.json "
                      f"--results-dir {{scratch}}/tetris_knob_{env}", quick="--loads 0.7 --jobsets 2 --seeds 0:1")
                 for env in ("deeprm-paper", "deeprm"))),
        outputs=("deeprm_paper_fig4/heuristics.json", "deeprm_paper_fig4/deeprm-paper_slowdown_vs_load.csv",
                 "deeprm_paper_fig4/deeprm-paper_slowdown_vs_load.png", "deeprm_paper_fig4/tetris_knob_deeprm-paper.json",
                 "deeprm_paper_fig4/tetris_knob_deeprm.json"),
        wall_s=600, estimate=True,
        headline="paper sizes: SJF best (ties included) at {sjf_best} loads (at 0.7: SJF {sjf}, Tetris* {tetris}, "
                 "Packer {packer}); one arrival per step caps the offered load at {cap}; Tetris* reaches SJF only as "
                 "its knob goes to 0, where it is SJF up to ties (its knob at 0.02: {knob} vs SJF {knob_sjf} at 0.7)",
        numbers={"sjf_best": _sjf_best("deeprm_paper_fig4/heuristics.json"),
                 **{p: at("deeprm_paper_fig4/heuristics.json", f"0.7/{p}/mean_slowdown", ".2f")
                    for p in ("sjf", "tetris", "packer")},
                 "cap": at("deeprm_paper_fig4/heuristics.json", "1.9/sjf/offered_load", ".2f"),
                 "knob": at("deeprm_paper_fig4/tetris_knob_deeprm-paper.json", "0.7/tetris:0.02/mean_slowdown"),
                 "knob_sjf": at("deeprm_paper_fig4/tetris_knob_deeprm-paper.json", "0.7/sjf/mean_slowdown"),
                 **{f"{policy.split(':')[0]}_{env}_{load.replace('.', '')}": at(
                     f"deeprm_paper_fig4/tetris_knob_{workload}.json", f"{load}/{policy}/mean_slowdown")
                    for env, workload in (("paper", "deeprm-paper"), ("ref", "deeprm")) for load in ("0.3", "0.7", "1.1")
                    for policy in ("sjf", "tetris:0.02")}},
    ),
    Item(
        id="sweep_deeprm_paper_slots",
        paper="DeepRM Fig. 4 on the paper's job sizes with a policy trained per load (0.7 and 1.0, the most one "
              "arrival per step offers): the slot scorer, BC then REINFORCE, 6 seeds",
        steps=(slot_scorer_sweep("sweep_deeprm_paper_slots", "env=deeprm-paper env_options.load=0.7,1.0 ",
                                 seeds="0:6"),),
        outputs=("sweep_deeprm_paper_slots/summary.csv", "sweep_deeprm_paper_slots/report.md"),
        wall_s=6000,
        headline="{seeds} seeds, sampled IQM {iqm07} {interval07} at 0.7 (SJF {sjf07}, Tetris* {tetris07}) and {iqm10} "
                 "{interval10} "
                 "at 1.0 (SJF {sjf10}, Tetris* {tetris10}): {beat07} and {beat10} seeds beat every heuristic with every "
                 "job finished",
        numbers={"seeds": sweep("sweep_deeprm_paper_slots", stat="count", cell="cell000"),
                 **{f"{stat}{load}": sweep("sweep_deeprm_paper_slots", stat=stat, cell=cell)
                    for stat in ("iqm", "interval") for load, cell in (("07", "cell000"), ("10", "cell001"))},
                 **{f"{policy}{load}": sweep("sweep_deeprm_paper_slots", policy=policy, stat="value", cell=cell)
                    for policy in ("sjf", "tetris") for load, cell in (("07", "cell000"), ("10", "cell001"))},
                 "beat07": _beating_all("sweep_deeprm_paper_slots", "cell000"),
                 "beat10": _beating_all("sweep_deeprm_paper_slots", "cell001")},
    ),
    Item(
        id="deeprm_bc_load1.1",
        paper="DeepRM Fig. 6 set-up at load 1.1 (the policy of Fig. 7)",
        steps=(train("{out}/deeprm_bc_load1.1", DEEPRM_BC, "env_options.load=1.1", "iterations=500",
                     quick=f"{REINFORCE_QUICK} {BC_QUICK}"),),
        outputs=("deeprm_bc_load1.1/eval.json",),
        wall_s=1823,
        headline="trained (sampled) {sampled} vs SJF {sjf}",
        numbers={"sampled": at("deeprm_bc_load1.1/eval.json", "policies/trained-s0-sampled/mean_slowdown", ".2f"),
                 "sjf": at("deeprm_bc_load1.1/eval.json", "policies/sjf/mean_slowdown", ".2f")},
    ),
    Item(
        id="deeprm_fig7_load1.1",
        paper="DeepRM Fig. 7: withholding of long jobs",
        steps=(Step("jaxsched.studies.withholding --pretrained deeprm-mlp-load1.1 --load 1.1 --jobsets 100 "
                    "--out {out}/deeprm_fig7_load1.1", quick="--jobsets 2"),),
        outputs=("deeprm_fig7_load1.1/withholding.json", "deeprm_fig7_load1.1/withheld_job_lengths.png",
                 "deeprm_fig7_load1.1/slowdown_by_job_length.png"),
        wall_s=120, estimate=True,
        note="Evaluates the shipped policy deeprm-mlp-load1.1 (jaxsched.pretrained: deeprm_bc_load1.1's one seed at "
             "its final iteration, 500), as --checkpoint results/deeprm_bc_load1.1 did when results/ kept its "
             "checkpoint: the same numbers, every digit; no training needed. To study a re-trained run instead: "
             "--checkpoint RUN.",
        headline="{withholding}% of move-ons withhold a job that fits; {long}% of withheld jobs are long",
        numbers={"withholding": at("deeprm_fig7_load1.1/withholding.json",
                                   "policies/trained/withholding_fraction_of_move_ons", ".1f", scale=100),
                 "long": computed("deeprm_fig7_load1.1/withholding.json", _withheld_long, ".0f")},
    ),
    Item(
        id="deeprm_fig5_load1.3",
        paper="DeepRM Fig. 5: slowdown- vs completion-time-trained policies at load 1.3",
        steps=(train("{out}/deeprm_fig5_load1.3/slowdown_trained", DEEPRM_BC, "env_options.load=1.3", "iterations=350",
                     quick=f"{REINFORCE_QUICK} {BC_QUICK}"),
               resume("{out}/deeprm_fig5_load1.3/slowdown_trained", 900, 4),
               train("{out}/deeprm_fig5_load1.3/completion_trained", DEEPRM_BC, "env=deeprm-completion",
                     "env_options.load=1.3", "iterations=350", quick=f"{REINFORCE_QUICK} {BC_QUICK}"),
               resume("{out}/deeprm_fig5_load1.3/completion_trained", 900, 3),
               copy("{out}/deeprm_fig5_load1.3/completion_trained/eval.json",
                    "{out}/deeprm_fig5_load1.3/completion_trained/eval_at_iteration900.json"),
               resume("{out}/deeprm_fig5_load1.3/completion_trained", 1200, 4)),
        outputs=("deeprm_fig5_load1.3/slowdown_trained/eval.json", "deeprm_fig5_load1.3/completion_trained/eval.json",
                 "deeprm_fig5_load1.3/completion_trained/eval_at_iteration900.json"),
        wall_s=10325,
        headline="slowdown-trained {slowdown} vs SJF {sjf}; completion-trained {completion} vs SJF {sjf_completion} "
                 "(completion time)",
        numbers={"slowdown": at("deeprm_fig5_load1.3/slowdown_trained/eval.json",
                                "policies/trained-s0-sampled/mean_slowdown", ".2f"),
                 "sjf": at("deeprm_fig5_load1.3/slowdown_trained/eval.json", "policies/sjf/mean_slowdown", ".2f"),
                 "completion": at("deeprm_fig5_load1.3/completion_trained/eval.json",
                                  "policies/trained-s0-sampled/mean_completion_time", ".2f"),
                 "sjf_completion": at("deeprm_fig5_load1.3/completion_trained/eval.json",
                                      "policies/sjf/mean_completion_time", ".2f")},
    ),
    Item(
        id="deeprm2_load1.0",
        paper="DeepRM2 (CNN + behaviour cloning): MLP vs CNN, with and without BC, load 1.0",
        steps=(train("{scratch}/deeprm2_mlp", DEEPRM2, *DEEPRM2_SMALL, "bc=null", "algo_options.network=mlp",
                     "algo_options.lr=1e-3", "iterations=100", "chunk=10", quick=REINFORCE_QUICK),
               train("{scratch}/deeprm2_mlp_bc", DEEPRM2, *DEEPRM2_SMALL, "bc.network=mlp", "algo_options.network=mlp",
                     "algo_options.lr=1e-4", "iterations=100", "chunk=10", quick=f"{REINFORCE_QUICK} {BC_QUICK}"),
               train("{scratch}/deeprm2_cnn", DEEPRM2, *DEEPRM2_SMALL, "bc=null", "algo_options.lr=1e-3",
                     "iterations=100", quick=REINFORCE_QUICK),
               train("{scratch}/deeprm2_cnn_bc", DEEPRM2, *DEEPRM2_SMALL, "algo_options.lr=1e-4", "iterations=100",
                     quick=f"{REINFORCE_QUICK} {BC_QUICK}"),
               *(resume(f"{{scratch}}/{run}", 250, 4)
                 for run in ("deeprm2_mlp", "deeprm2_mlp_bc", "deeprm2_cnn", "deeprm2_cnn_bc")),
               train("{scratch}/deeprm2_mlp_bc_full", DEEPRM2, "bc.network=mlp", "algo_options.network=mlp",
                     "algo_options.num_jobsets=20", "algo_options.num_rollouts=20", "algo_options.lr=1e-4",
                     "bc.num_jobsets=200", "bc.max_epochs=100", "iterations=300", "chunk=10",
                     quick=f"{REINFORCE_QUICK} {BC_QUICK}"),
               resume("{scratch}/deeprm2_mlp_bc_full", 500, 4),
               Step("jaxsched.studies.compare_runs --out {out}/deeprm2_load1.0 mlp_4x5={scratch}/deeprm2_mlp "
                    "mlp_bc_4x5={scratch}/deeprm2_mlp_bc cnn_4x5={scratch}/deeprm2_cnn "
                    "cnn_bc_4x5={scratch}/deeprm2_cnn_bc mlp_bc_20x20={scratch}/deeprm2_mlp_bc_full")),
        outputs=("deeprm2_load1.0/summary.json", "deeprm2_load1.0/learning_curves_iteration.png",
                 "deeprm2_load1.0/learning_curves_wallclock.png"),
        wall_s=7473,
        headline="MLP + BC at 20 x 20 (one seed) reaches SJF at iteration {reaches} (held-out {heldout} vs SJF {sjf}); "
                 "4 x 5 runs do not, CNN = MLP",
        numbers={"reaches": at("deeprm2_load1.0/summary.json", "runs/mlp_bc_20x20/reaches_sjf/iteration", ".0f"),
                 "reaches_min": at("deeprm2_load1.0/summary.json", "runs/mlp_bc_20x20/reaches_sjf/wall_s", ".0f",
                                   scale=1 / 60),
                 "heldout": at("deeprm2_load1.0/summary.json",
                               "runs/mlp_bc_20x20/heldout/trained-s0-sampled/mean_slowdown", ".2f"),
                 "sjf": at("deeprm2_load1.0/summary.json", "runs/mlp_bc_20x20/heldout/sjf/mean_slowdown", ".2f")},
    ),
    one_run_item(
        "deeprm_paper_recipe_h200", "paper_recipe",
        paper="DeepRM §4 / Fig. 6 with the paper's own recipe at the paper's size: 100 fixed jobsets x 20 "
              "rollouts, no behaviour cloning, RMSProp 1e-3, load 0.7, 3 seeds (one GPU)",
        training=train("{scratch}/paper_recipe", "configs/deeprm_slowdown.yaml", "algo_options.grad_chunk_len=20",
                       "iterations=840", "checkpoint_every=10", seeds="0,1,2",
                       quick=f"{REINFORCE_QUICK} algo_options.grad_chunk_len=2"),
        wall_s=457, hardware=H200,
        headline="{iterations} iterations of 2000 episodes (paper: ~1000): sampled held-out slowdown of seed 0 {s0} "
                 "vs SJF {sjf}, Tetris* {tetris}, every job finished; seeds 1 and 2 leave {u1} and {u2} of {jobs} "
                 "unfinished (not ranked)",
        numbers={"iterations": at(DRM_RECIPE, "runs/paper_recipe/iterations", ".0f"),
                 "s0": _heldout_seed(DRM_RECIPE, "paper_recipe", 0),
                 "sjf": at(DRM_RECIPE, "runs/paper_recipe/heldout/sjf/mean_slowdown", ".2f"),
                 "tetris": at(DRM_RECIPE, "runs/paper_recipe/heldout/tetris/mean_slowdown", ".2f"),
                 "u1": _jobs_left(DRM_RECIPE, "runs/paper_recipe/heldout/trained-s1-sampled"),
                 "u2": _jobs_left(DRM_RECIPE, "runs/paper_recipe/heldout/trained-s2-sampled"),
                 "jobs": at(DRM_RECIPE, "runs/paper_recipe/heldout/sjf/jobs", ".0f"),
                 "s0_3": _heldout_seed(DRM_RECIPE, "paper_recipe", 0, fmt=".3f"),
                 "sjf_3": at(DRM_RECIPE, "runs/paper_recipe/heldout/sjf/mean_slowdown"),
                 "iqm_3": _seeds_iqm(DRM_RECIPE, "paper_recipe", fmt=".3f"),
                 "range_3": _seeds_interval(DRM_RECIPE, "paper_recipe", fmt=".3f")},
        note="Recorded on one NVIDIA H200 (jax 0.11.2, 0.71 s per iteration for 3 seeds, sharing the GPU with "
             "two other runs; stopped at 840 of the config's 1000 by the session's device time, then evaluated "
             "at 840 on the CPU). On the 2-core CPU this is many hours.",
    ),
    one_run_item(
        "deeprm2_mlp_bc_h200", "mlp_bc_20x20",
        paper="DeepRM2 at load 1.0: MLP + BC at the paper's 20 x 20 rollouts, lr 1e-4, 3 seeds (one GPU)",
        training=train("{scratch}/mlp_bc_20x20", DEEPRM2, "bc.network=mlp", "algo_options.network=mlp",
                       "algo_options.lr=1e-4", "bc.num_jobsets=200", "bc.max_epochs=100", "iterations=420",
                       "chunk=10", "checkpoint_every=10", seeds="0,1,2", quick=f"{REINFORCE_QUICK} {BC_QUICK}"),
        wall_s=430, hardware=H200,
        headline="{iterations} iterations: sampled held-out {s0} / {s2} (seeds 0 and 2) vs SJF {sjf}, seed 1 leaves "
                 "{u1} of {jobs} unfinished (not ranked); {below} seeds below SJF with every job finished, the single CPU "
                 "seed's {cpu} at 500 (deeprm2_load1.0) is not robust",
        numbers={"iterations": at(DRM_MLP_BC, "runs/mlp_bc_20x20/iterations", ".0f"),
                 "s0": _heldout_seed(DRM_MLP_BC, "mlp_bc_20x20", 0), "s2": _heldout_seed(DRM_MLP_BC, "mlp_bc_20x20", 2),
                 "sjf": at(DRM_MLP_BC, "runs/mlp_bc_20x20/heldout/sjf/mean_slowdown", ".2f"),
                 "u1": _jobs_left(DRM_MLP_BC, "runs/mlp_bc_20x20/heldout/trained-s1-sampled"),
                 "jobs": at(DRM_MLP_BC, "runs/mlp_bc_20x20/heldout/sjf/jobs", ".0f"),
                 "below": _below(DRM_MLP_BC, "mlp_bc_20x20"),
                 "iqm": _seeds_iqm(DRM_MLP_BC, "mlp_bc_20x20"),
                 "range": _seeds_interval(DRM_MLP_BC, "mlp_bc_20x20"),
                 "iqm_3": _seeds_iqm(DRM_MLP_BC, "mlp_bc_20x20", fmt=".3f"),
                 "range_3": _seeds_interval(DRM_MLP_BC, "mlp_bc_20x20", fmt=".3f"),
                 "sjf_3": at(DRM_MLP_BC, "runs/mlp_bc_20x20/heldout/sjf/mean_slowdown"),
                 "cpu": at("deeprm2_load1.0/summary.json", "runs/mlp_bc_20x20/heldout/trained-s0-sampled/mean_slowdown",
                           ".2f")},
        note="Recorded on one NVIDIA H200 (jax 0.11.2, 1.16 s per iteration for 3 seeds, sharing the GPU with "
             "two other runs; stopped at 420 of 500 by the session's device time, then evaluated at 420 on the CPU).",
    ),
    one_run_item(
        "deeprm_paper_recipe_bc_h200", "paper_recipe_bc",
        paper="DeepRM §4 / Fig. 6, the paper's recipe with behaviour cloning on SJF labels first, at the SAME "
              "lr (1e-3) as deeprm_paper_recipe_h200 (no cloning), 3 seeds (one GPU)",
        training=train("{scratch}/paper_recipe_bc", DEEPRM_BC, "algo_options.num_jobsets=100",
                       "algo_options.resample_jobsets=false", "algo_options.lr=1e-3", "algo_options.grad_chunk_len=20",
                       "iterations=640", "checkpoint_every=10", seeds="0,1,2",
                       quick=f"{REINFORCE_QUICK} {BC_QUICK} algo_options.grad_chunk_len=2"),
        wall_s=424, hardware=H200,
        headline="{iterations} iterations after cloning: sampled held-out slowdown {s0} / {s1} / {s2} vs SJF {sjf} "
                 "({change}%), {below} seeds below SJF with every job finished; without cloning seed 0 {recipe} at "
                 "{recipe_iterations} (seeds 1 and 2 leave jobs unfinished)",
        numbers={"iterations": at(DRM_RECIPE_BC, "runs/paper_recipe_bc/iterations", ".0f"),
                 **{f"s{k}": _heldout_seed(DRM_RECIPE_BC, "paper_recipe_bc", k) for k in range(3)},
                 "sjf": at(DRM_RECIPE_BC, "runs/paper_recipe_bc/heldout/sjf/mean_slowdown", ".2f"),
                 "change": computed(DRM_RECIPE_BC, lambda root: 100 * (np.mean([r["mean_slowdown"] for r in _seed_rows(
                     root, DRM_RECIPE_BC, "paper_recipe_bc")]) / json_value(
                     root, DRM_RECIPE_BC, "runs/paper_recipe_bc/heldout/sjf/mean_slowdown") - 1), "+.0f"),
                 "below": _below(DRM_RECIPE_BC, "paper_recipe_bc"),
                 "iqm": _seeds_iqm(DRM_RECIPE_BC, "paper_recipe_bc"),
                 "range": _seeds_interval(DRM_RECIPE_BC, "paper_recipe_bc"),
                 "iqm_3": _seeds_iqm(DRM_RECIPE_BC, "paper_recipe_bc", fmt=".3f"),
                 "range_3": _seeds_interval(DRM_RECIPE_BC, "paper_recipe_bc", fmt=".3f"),
                 "sjf_3": at(DRM_RECIPE_BC, "runs/paper_recipe_bc/heldout/sjf/mean_slowdown"),
                 "recipe": _heldout_seed(DRM_RECIPE_BC, "paper_recipe", 0),
                 "recipe_iterations": at(DRM_RECIPE_BC, "runs/paper_recipe/iterations", ".0f")},
        note="Recorded on one NVIDIA H200 (jax 0.11.2, 0.61 s per iteration for 3 seeds beside two other runs; "
             "stopped at 640 by the session's device time, then evaluated at 640 on the CPU; "
             "device_run.sh says how).",
        beside={"paper_recipe": "deeprm_paper_recipe_h200"},
    ),
    one_run_item(
        "deeprm2_mlp_h200", "mlp_20x20",
        paper="DeepRM2 at load 1.0: the MLP without behaviour cloning at the BC runs' lr (1e-4), 20 x 20 rollouts, "
              "3 seeds (one GPU), beside MLP + BC",
        training=train("{scratch}/mlp_20x20", DEEPRM2, "bc=null", "algo_options.network=mlp", "algo_options.lr=1e-4",
                       "iterations=420", "chunk=10", "checkpoint_every=10", seeds="0,1,2", quick=REINFORCE_QUICK),
        wall_s=95, hardware=H200,
        headline="{iterations} iterations at lr 1e-4 without cloning: sampled held-out {s0} / {s1} / {s2} vs SJF {sjf}; "
                 "MLP + BC at the same lr and iterations {mlp_bc}: cloning, not REINFORCE, gives DeepRM2 its start",
        numbers={"iterations": at(DRM_MLP, "runs/mlp_20x20/iterations", ".0f"),
                 **{f"s{k}": _heldout_seed(DRM_MLP, "mlp_20x20", k) for k in range(3)},
                 "sjf": at(DRM_MLP, "runs/mlp_20x20/heldout/sjf/mean_slowdown", ".2f"),
                 "mlp_bc": _seeds_interval(DRM_MLP, "mlp_bc_20x20")},
        note="Recorded on one NVIDIA H200 (jax 0.11.2, beside two other runs; trained and evaluated there).",
        beside={"mlp_bc_20x20": "deeprm2_mlp_bc_h200"},
    ),
    Item(
        id="deeprm2_fig3_h200",
        paper="DeepRM2 Figs. 3 / 4: CNN + BC vs MLP + BC vs MLP (DeepRM) vs SJF / Packer / Tetris* / Random at "
              "loads 0.7 / 1.0 / 1.3, the paper's 20 x 20 rollouts, 3 seeds, both metrics (one GPU)",
        steps=deeprm2_fig3_steps(),
        outputs=tuple(f"deeprm2_fig3_h200/load{load}/summary.json" for load in DEEPRM2_FIG3_ITERATIONS),
        wall_s=700, hardware=H200,
        run_hardware={"deeprm2_fig3_h200/load*/mlp_bc": CPU},  # the twins at 0.7 and 1.3 (1.0's is another item's)
        headline="Same cloning and lr: every CNN + BC seed below every MLP + BC seed at 0.7 (held-out {cnn07} vs "
                 "{mlp_bc07} after {it07} it; 3 seeds a side, too few for a confident difference); at 1.3 after {it13} "
                 "{cnn13} vs {mlp_bc13} with the CNN leaving jobs unfinished (not ranked); at 1.0 its training curve "
                 "reaches SJF's level by {reach10} it, the MLP's not in {mlp_bc_it10}; at 0.7 {below07} CNN + BC seeds are below SJF ({iqm07} "
                 "{range07} vs {sjf07}, all jobs finished), at 1.0 {below10} ({cnn10} vs {sjf10}, leaving {left10} of "
                 "{jobs10} jobs), at 1.3 it leaves {left13} of {jobs13} jobs unfinished (not ranked against SJF's "
                 "{sjf13}); DeepRM's MLP at lr 1e-3, {mlp_it} it: {mlp07} at 0.7",
        numbers={**{field: at(DRM2_FIG3.format(load), f"runs/{run}/over_seeds/sampled/mean_slowdown/iqm", ".2f")
                    for field, run, load in (("cnn07", "cnn_bc", "0.7"), ("mlp_bc07", "mlp_bc", "0.7"),
                                             ("cnn13", "cnn_bc", "1.3"), ("mlp_bc13", "mlp_bc", "1.3"),
                                             ("cnn10", "cnn_bc", "1.0"), ("mlp07", "mlp", "0.7"))},
                 "it07": at(DRM2_FIG3.format("0.7"), "runs/cnn_bc/iterations", ".0f"),
                 "it13": at(DRM2_FIG3.format("1.3"), "runs/cnn_bc/iterations", ".0f"),
                 "reach10": at(DRM2_FIG3.format("1.0"), "runs/cnn_bc/reaches_sjf/iteration", ".0f"),
                 "mlp_bc_it10": at(DRM2_FIG3.format("1.0"), "runs/mlp_bc/iterations", ".0f"),
                 "below07": _below(DRM2_FIG3.format("0.7"), "cnn_bc"),
                 "iqm07": at(DRM2_FIG3.format("0.7"), "runs/cnn_bc/over_seeds/sampled/mean_slowdown/iqm", ".2f"),
                 "range07": _seeds_interval(DRM2_FIG3.format("0.7"), "cnn_bc"),
                 "mlp_bc_range07": _seeds_interval(DRM2_FIG3.format("0.7"), "mlp_bc"),
                 "mlp_range07": _seeds_interval(DRM2_FIG3.format("0.7"), "mlp"),
                 **{f"sjf{load}": at(DRM2_FIG3.format(dot), "runs/cnn_bc/heldout/sjf/mean_slowdown", ".2f")
                    for load, dot in (("07", "0.7"), ("10", "1.0"), ("13", "1.3"))},
                 "below10": _below(DRM2_FIG3.format("1.0"), "cnn_bc"),
                 **{f"left{load}": _jobs_left(DRM2_FIG3.format(dot), "runs/cnn_bc/over_seeds/sampled")
                    for load, dot in (("10", "1.0"), ("13", "1.3"))},
                 **{f"jobs{load}": at(DRM2_FIG3.format(dot), "runs/cnn_bc/over_seeds/sampled/jobs", ".0f")
                    for load, dot in (("10", "1.0"), ("13", "1.3"))},
                 "mlp_it": at(DRM2_FIG3.format("0.7"), "runs/mlp/iterations", ".0f"),
                 **{f"{run}_{load.replace('.', '')}_3": at(DRM2_FIG3.format(load),
                                                           f"runs/{run}/over_seeds/sampled/mean_slowdown/iqm")
                    for load in ("0.7", "1.0", "1.3") for run in ("cnn_bc", "mlp_bc", "mlp")
                    if (run, load) != ("mlp", "1.3")},
                 **{f"{run}_{load.replace('.', '')}_range_3": _seeds_interval(DRM2_FIG3.format(load), run, fmt=".3f")
                    for load in ("0.7", "1.0", "1.3") for run in ("cnn_bc", "mlp_bc", "mlp")
                    if (run, load) != ("mlp", "1.3")}},
        inputs=("{scratch}/mlp_bc_20x20/checkpoints", "{scratch}/mlp_20x20/checkpoints"),
        needs=("deeprm2_mlp_bc_h200", "deeprm2_mlp_h200"),
        note="The CNN + BC runs (700 s; 0.7: 500 s in a later session, device_run_load0.7.sh) and the MLP at 0.7 were "
             "trained on one NVIDIA H200 (jax 0.11.2; CNN processes sharing it, 54-58 GB of GPU memory each), the MLP "
             "+ BC twins at 0.7 and 1.3 on the 2-core CPU (the H200's MLP + BC processes ran out of GPU memory beside "
             "the CNN ones); the CNN runs at 1.0 / 1.3 were evaluated on the CPU (13-35 min per CNN run), at 0.7 on the "
             "GPU. What ran where: results/deeprm2_fig3_h200/device_run*.sh.",
    ),
    Item(
        id="deeprm2_fig4_load0.7",
        paper="DeepRM2 Fig. 4: both metrics at load 0.7 with a policy trained per objective: the recipes of "
              "deeprm2_fig3_h200 (CNN + BC, MLP + BC, MLP) trained on completion time, beside its slowdown-trained "
              "policies, 3 seeds, the same 100 held-out jobsets",
        steps=deeprm2_fig4_steps(),
        outputs=tuple(f"deeprm2_fig4_load0.7/{name}" for name in
                      ("summary.json", "learning_curves_iteration.png", "learning_curves_wallclock.png")),
        wall_s=2500, hardware=f"{CPU} + {H200}",
        run_hardware={"deeprm2_fig4_load0.7/cnn_bc_completion": H200, "*": CPU},
        headline="Trained on completion time, sampled mean completion time: CNN + BC {cnn_bc_completion} {range} "
                 "({cnn_bc_completion_it} it), MLP + BC {mlp_bc_completion} ({mlp_bc_completion_it} it), MLP "
                 "{mlp_completion} ({mlp_completion_it} it) vs {cnn_bc} / {mlp_bc} / {mlp} trained on slowdown, SJF {sjf}: "
                 "the objective moves each policy the paper's way and every CNN seed is below every other learned seed on "
                 "completion time (on slowdown DeepRM's uncloned MLP at lr 1e-3: {mlp_slowdown} vs {cnn_bc_slowdown}), but none "
                 "reaches SJF's completion time",
        numbers={**{run: at(DRM2_FIG4, f"runs/{run}/over_seeds/sampled/mean_completion_time/iqm", ".2f")
                    for run in ("cnn_bc_completion", "mlp_bc_completion", "mlp_completion", "cnn_bc", "mlp_bc", "mlp")},
                 **{f"{run}_it": at(DRM2_FIG4, f"runs/{run}/iterations", ".0f")
                    for run in ("cnn_bc_completion", "mlp_bc_completion", "mlp_completion")},
                 "range": _seeds_interval(DRM2_FIG4, "cnn_bc_completion", "mean_completion_time"),
                 "sjf": at(DRM2_FIG4, "runs/cnn_bc/heldout/sjf/mean_completion_time", ".2f"),
                 **{f"{run}_slowdown": at(DRM2_FIG4, f"runs/{run}/over_seeds/sampled/mean_slowdown/iqm", ".2f")
                    for run in ("mlp", "cnn_bc")}},
        inputs=tuple(f"{{out}}/deeprm2_fig3_h200/load0.7/{label}/eval.json" for label in ("mlp", "mlp_bc", "cnn_bc")),
        needs=("deeprm2_fig3_h200",),
        note="The MLP completion-time runs were trained on the 2-core CPU (3.6 / 3.9 s per 3-seed iteration), the CNN "
             "+ BC one on one NVIDIA H200 (results/deeprm2_fig3_h200/device_run_load0.7.sh); the slowdown-trained "
             "runs are read from deeprm2_fig3_h200's copies (eval.json, metrics.csv).",
    ),
    Item(
        id="deeprm2_fig6_load0.7",
        paper="DeepRM2 Fig. 6: slowdown by job length (box plots), Random / SJF / DeepRM's MLP / DeepRM2's CNN + BC "
              "at load 0.7, seed 0's policies of deeprm2_fig3_h200 on its 100 held-out jobsets, sampled",
        steps=deeprm2_fig6_steps(),
        outputs=tuple(f"deeprm2_fig6_load0.7/{name}" for name in
                      ("cnn_bc.csv", "mlp.csv", "slowdown_by_length.json", "slowdown_by_length.png")),
        wall_s=150,
        headline="DeepRM's MLP ({mlp} vs SJF {sjf}) wins by the short jobs (median slowdown {mlp_short_median} at lengths "
                 "1-3, upper quartile {mlp_short_q3} vs SJF's {sjf_short_q3}) and pays with the long ones (median "
                 "{mlp_long_median} vs {sjf_long_median} at 10-15); the CNN + BC policy after 190 it ({cnn}) lies between "
                 "them on long jobs (median {cnn_long_median}) and on short ones (upper quartile {cnn_short_q3}): the "
                 "paper's DeepRM2 < DeepRM is not reproduced at 190 it",
        numbers={**{name: at(DRM2_FIG6, f"series/{series}/mean_slowdown", ".2f") for name, series in DRM2_FIG6_SERIES},
                 "mlp_short_median": _by_length("DeepRM (MLP, lr 1e-3, 330 it)", "median", SHORT_JOBS, ".2f"),
                 **{f"{name}_{length}_{stat}": _by_length(series, stat, lengths)
                    for name, series in DRM2_FIG6_SERIES for length, lengths in (("short", SHORT_JOBS),
                                                                                  ("long", LONG_JOBS))
                    for stat in ("median", "q3") if f"{name}_{length}_{stat}" != "mlp_short_median"},
                 **{f"{name}_{length}_{stat}_{part}": _by_length(series, stat, lengths, part=part)
                    for name, series in DRM2_FIG6_SERIES for length, lengths in (("short", SHORT_JOBS),
                                                                                  ("long", LONG_JOBS))
                    for stat in ("median", "q3") for part in ("low", "high")}},
        inputs=tuple(f"{{scratch}}/deeprm2_fig3/{run}/checkpoints" for run in ("cnn_bc_l0.7", "mlp_l0.7")),
        needs=("deeprm2_fig3_h200",),
        note="Evaluates seed 0 of two 3-seed runs of deeprm2_fig3_h200 (evaluate --checkpoint --seed-index 0), whose "
             "checkpoints are not committed: results/deeprm2_fig6_load0.7/scratch keeps their config.json only. "
             "Reproducing this item re-trains deeprm2_fig3_h200 first (and the items it needs), not timed whole on "
             "the 2-core CPU (docs/results/timings.md: 35 min of it on a GPU, 52 min of its runs on the CPU); the "
             "evaluation itself takes 2 min.",
    ),
    Item(
        id="deeprm_off",
        paper="DeepRM2 §4.3 Fig. 7: DeepRM_Off, offline scheduling, 5 seeds (slot scorer cloned from SJF, "
              "then REINFORCE)",
        steps=(Step("jaxsched.sweep --config configs/deeprm_off.yaml --seeds 0:5 --out {out}/deeprm_off",
                    quick_command="jaxsched.sweep --config configs/deeprm_off.yaml --seeds 0:2 "
                                  "--out {out}/deeprm_off iterations=2 chunk=1 checkpoint_every=1 "
                                  "eval_jobsets=5 algo_options.num_jobsets=2 algo_options.num_rollouts=2 "
                                  "bc.num_jobsets=20 bc.max_epochs=5"),),
        outputs=("deeprm_off/summary.csv", "deeprm_off/report.md"),
        wall_s=2923,
        headline="{seeds} seeds, sampled IQM {iqm} {ci} vs SJF {sjf}, {beating} seeds beat SJF with every job "
                 "finished (clone {clone} up to SJF's ties)",
        numbers={**sweep_summary("deeprm_off", baselines=("sjf",)),
                 "beating": sweep("deeprm_off", stat="beating"),
                 "clone": computed("deeprm_off/cells/cell000/behaviour_cloning.json",  # mean over seeds
                                   lambda root: float(np.mean([s["best_val_acc_ties"] for s in json_value(
                                       root, "deeprm_off/cells/cell000/behaviour_cloning.json", "")])), ".2f")},
    ),
]


def _run_minutes(file: str) -> Callable:
    """Minutes of training of one run (its metrics.csv ``wall_s`` of seed 0, summed)."""
    return lambda root: column(root, file, "wall_s", {"seed": 0}).sum() / 60


def _bc_accuracy(name: str, key: str, stat: str, fraction: bool = False) -> Number:
    """``stat`` (min, max, mean) over a sweep's seeds of behaviour cloning's ``key`` (best_val_acc[_ties]), in %
    (``fraction``: as a fraction, two decimals)."""
    file = f"{name}/cells"

    def value(root) -> float:
        files = sorted((root / name / "cells").glob("*/behaviour_cloning.json"))
        if not files:
            raise NumberError(f"{name}/cells/*/behaviour_cloning.json do not exist")
        values = [row[key] for f in files for row in json_value(root, f.relative_to(root).as_posix(), "")]
        return (1 if fraction else 100) * {"min": min, "max": max, "mean": np.mean}[stat](values)
    return computed(file, value, ".2f" if fraction else ".0f")


def _seed_count(file: str, run: str) -> Number:
    """How many sampled seeds ``run`` has in a compare_runs summary."""
    return computed(file, lambda root: len(_seed_rows(root, file, run)), "d")


RECIPE_METRICS = "deeprm_paper_recipe_h200/paper_recipe/metrics.csv"
BC_DEVICE_RUN = "deeprm_paper_recipe_bc_h200/device_run.sh"
CNN_ON_GPU = r"~(\d+)-(\d+) s per iteration for 3 vmapped seeds"


PROSE: dict[str, dict[str, Number]] = {  # numbers the prose pages quote beside the headlines'
    "deeprm_load0.7_j20": {"greedy": at("deeprm_load0.7_j20/eval.json", "policies/trained-s0/mean_slowdown", ".2f"),
                           **{policy: at("deeprm_load0.7_j20/eval.json", f"policies/{policy}/mean_slowdown", ".2f")
                              for policy in ("tetris", "packer", "random")}},
    "deeprm_paper_recipe_bc_h200": {"vmapped_low": noted(BC_DEVICE_RUN, CNN_ON_GPU, 1),
                                    "vmapped_high": noted(BC_DEVICE_RUN, CNN_ON_GPU, 2)},
    "deeprm_bc_load0.7": {"training_minutes": computed("deeprm_bc_load0.7/metrics.csv",
                                                       _run_minutes("deeprm_bc_load0.7/metrics.csv"), ".0f"),
                          "below_sjf": computed("deeprm_bc_load0.7/eval.json", lambda root: 100 * (1 - float(json_value(
                              root, "deeprm_bc_load0.7/eval.json", "policies/trained-s0-sampled/mean_slowdown")) / float(
                              json_value(root, "deeprm_bc_load0.7/eval.json", "policies/sjf/mean_slowdown"))), ".0f"),
                          "greedy": at("deeprm_bc_load0.7/eval.json", "policies/trained-s0/mean_slowdown", ".2f"),
                          "greedy_left": _jobs_left("deeprm_bc_load0.7/eval.json", "policies/trained-s0"),
                          "seconds_per_iteration": seeds("deeprm_bc_load0.7/metrics.csv", "wall_s", "median", ".1f",
                                                         seed=0)},
    "deeprm_bc_load1.1": {"training_minutes": computed("deeprm_bc_load1.1/metrics.csv",
                                                       _run_minutes("deeprm_bc_load1.1/metrics.csv"), ".0f")},
    "sweep_deeprm_slots_load0.7": {
        "clone_ties_low": _bc_accuracy("sweep_deeprm_slots_load0.7", "best_val_acc_ties", "min"),
        "clone_ties_high": _bc_accuracy("sweep_deeprm_slots_load0.7", "best_val_acc_ties", "max"),
        **{f"clone_ties_{stat}_fraction": _bc_accuracy("sweep_deeprm_slots_load0.7", "best_val_acc_ties", stat,
                                                       fraction=True) for stat in ("min", "max")},
        "training_minutes": computed("sweep_deeprm_slots_load0.7/cells",
                                     training_minutes("sweep_deeprm_slots_load0.7"), ".0f")},
    "sweep_deeprm_slots_load1.1": {"training_minutes": computed("sweep_deeprm_slots_load1.1/cells",
                                                                training_minutes("sweep_deeprm_slots_load1.1"), ".0f")},
    "sweep_deeprm_bc_load0.7": {"clone_mean": _bc_accuracy("sweep_deeprm_bc_load0.7", "best_val_acc", "mean"),
                                "clone_mean_fraction": _bc_accuracy("sweep_deeprm_bc_load0.7", "best_val_acc", "mean",
                                                                    fraction=True)},
    "deeprm2_mlp_bc_h200": {"seeds": _seed_count(DRM_MLP_BC, "mlp_bc_20x20")},
    "deeprm2_fig3_h200": {"seeds": _seed_count(DRM2_FIG3.format("0.7"), "cnn_bc"),
                          "it10": at(DRM2_FIG3.format("1.0"), "runs/cnn_bc/iterations", ".0f"),
                          "margin07": computed(DRM2_FIG3.format("0.7"), lambda root: 100 * (1 - float(json_value(
                              root, DRM2_FIG3.format("0.7"), "runs/cnn_bc/over_seeds/sampled/mean_slowdown/iqm")) / float(
                              json_value(root, DRM2_FIG3.format("0.7"), "runs/cnn_bc/heldout/sjf/mean_slowdown"))), ".0f")},
    "deeprm_paper_recipe_h200": {"seeds": _seed_count(DRM_RECIPE, "paper_recipe"),
                                 "median_s": seeds(RECIPE_METRICS, "wall_s", "median", ".2f", seed=0),
                                 "rate_k": computed(RECIPE_METRICS, lambda root: float(np.median(
                                     column(root, RECIPE_METRICS, "steps_per_s"))) / 1e3, ".0f"),
                                 "minutes": at(DRM_RECIPE, "runs/paper_recipe/train_wall_s", ".0f", scale=1 / 60)},
}
ITEMS = with_prose(ITEMS, PROSE)
