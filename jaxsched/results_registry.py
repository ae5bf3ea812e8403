"""Every committed item of ``results/``: what paper table or figure it stands for, the commands that
make it, the files it writes and how long it took on the project's 2-core CPU.

One list (:data:`ITEMS`) so that ``python -m jaxsched.reproduce`` and the index of results/README.md
are read from the same place and cannot drift. Commands are jaxsched modules with their arguments;
``{out}`` is the output folder (results/ by default) and ``{scratch}`` a folder for intermediate runs
that results/ does not keep (runs/reproduce_scratch by default). ``quick`` is appended to a command in
``--quick`` mode (train overrides and flags: the last value wins), ``quick_command`` replaces it.
Wall-clock numbers come from the run metadata (metrics.csv ``wall_s``, summed) or from results/README.md;
``estimate=True`` marks those measured by neither. A ``headline`` is a template: each ``{field}`` is one of the
item's ``numbers`` (:mod:`jaxsched.results_numbers`), read from the file it cites whenever the text is written
or checked, so that no measured value is typed by hand.
"""

from __future__ import annotations

import dataclasses
import re
import shlex
from typing import Callable, Mapping

from jaxsched.results_numbers import Number, at, change, given, sweep


@dataclasses.dataclass(frozen=True)
class Step:
    """One command: a module and its arguments, with placeholders ``{out}`` and ``{scratch}``."""

    command: str
    quick: str = ""  # appended in --quick mode
    quick_command: str | None = None  # replaces the command in --quick mode

    def argv(self, out: str, scratch: str, quick: bool = False) -> list[str]:
        text = self.command
        if quick:
            text = self.quick_command if self.quick_command is not None else f"{text} {self.quick}"
        return [part.format(out=out, scratch=scratch) for part in shlex.split(text)]


@dataclasses.dataclass(frozen=True)
class Item:
    """One entry of results/: ``outputs`` are paths under ``{out}``; the item counts as done when they all
    exist. ``inputs`` must exist before it runs; ``needs`` are the items that make them."""

    id: str
    paper: str
    steps: tuple[Step, ...]
    outputs: tuple[str, ...]
    wall_s: float
    headline: str
    estimate: bool = False
    inputs: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()
    note: str = ""
    numbers: Mapping[str, Number] = dataclasses.field(default_factory=dict)  # the headline's {fields}



# Quick forms: a couple of iterations of a tiny batch, so that every command runs end to end in seconds.
TRAIN_QUICK = "iterations=2 chunk=1 checkpoint_every=1 eval_jobsets=2"
REINFORCE_QUICK = f"{TRAIN_QUICK} algo_options.num_jobsets=2 algo_options.num_rollouts=2"
BC_QUICK = "bc.num_jobsets=4 bc.max_epochs=1"
VM_QUICK = f"{TRAIN_QUICK} algo_options.learning_starts=64"
PPO_QUICK = f"{TRAIN_QUICK} algo_options.num_envs=4 algo_options.num_steps=16"
PPO_SUMMARY_QUICK = f"{PPO_QUICK} iterations=12"  # mdp_summary smooths over 10 iterations
GRID_QUICK = f"{TRAIN_QUICK} env_options.num_jobs=300 env_options.exclude=20 algo_options.num_envs=2 " \
             "algo_options.warm_start_iterations=1"


def train(out: str, config: str, *overrides: str, seeds: str = "", quick: str = TRAIN_QUICK) -> Step:
    """``jaxsched.train`` into ``out`` (options first, overrides last, so quick overrides append)."""
    seeds_flag = f" --seeds {seeds}" if seeds else ""
    return Step(f"jaxsched.train --config {config} --out {out}{seeds_flag} {' '.join(overrides)}".rstrip(),
                quick=quick)


def resume(run: str, iterations: int, quick_iterations: int) -> Step:
    return Step(f"jaxsched.train --resume {run} iterations={iterations}", quick=f"iterations={quick_iterations}")


def mdp_budget_item(name: str, paper: str, mdp: str, wall_s: float, headline: str, *,
                    config: str = "configs/mdp_ppo_compact.yaml", checkpoint_every: int = 625,
                    note: str = "", seeds: int = 5, iterations: int = 1875) -> Item:
    """A sweep of the MDP-design study's PPO over ``seeds`` seeds (``config``, bracis-7 unless ``mdp`` overrides
    it) at the paper's budget unless ``iterations`` says otherwise: 1875 iterations of 32 envs x 50 steps = 3.0M
    decisions per seed, 200 held-out jobsets; ``mdp``: the swept overrides, written to ``{out}/name``."""
    base, swept = f"jaxsched.sweep --config {config} --out {{out}}/{name}", f" {mdp}" if mdp else ""
    step = Step(f"{base} --seeds 0:{seeds}{swept} iterations={iterations} chunk=25 checkpoint_every={checkpoint_every} "
                "eval_jobsets=200",
                quick_command=f"{base} --seeds 0:2{swept} iterations=2 chunk=1 checkpoint_every=1 eval_jobsets=5")
    return Item(id=name, paper=paper, steps=(step,), outputs=(f"{name}/summary.csv", f"{name}/report.md"),
                wall_s=wall_s, headline=headline, note=note)


def distill_step(name: str, options: str) -> Step:
    """One run of the planner's distillation (vm-frag, trained at 10 PMs on 32 training starts, 5 seeds,
    measured on vm_planner's 50 held-out starts at 10 and 20 PMs) into ``{out}/vm_distill/name.json``."""
    common = "jaxsched.studies.vm_distill --env vm-frag --held-out-from 7000"
    return Step(f"{common} --num-pms 10,20 --train-starts 32 --seeds 5 {options} --out {{out}}/vm_distill/{name}.json",
                quick_command=f"{common} --num-pms 3 --train-starts 1 --held-out-label-starts 1 --eval-starts 2 "
                              f"--seeds 1 --steps 20 {options} --out {{out}}/vm_distill/{name}.json")


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
                 note: str = "", beside: dict[str, str] | None = None) -> Item:
    """One training run (``training`` writes ``{scratch}/label``) and its learning curves and held-out table
    from ``compare_runs``, written to ``{out}/name``; ``beside``: {label: item id} of other one-run items
    whose runs are compared with it (their checkpoints are this item's inputs)."""
    beside = beside or {}
    runs = " ".join(f"{run}={{scratch}}/{run}" for run in (*beside, label))
    compare = Step(f"jaxsched.studies.compare_runs --out {{out}}/{name} {runs}")
    return Item(id=name, paper=paper, steps=(training, compare),
                outputs=(f"{name}/summary.json", f"{name}/learning_curves_iteration.png"),
                wall_s=wall_s, headline=headline, note=note,
                inputs=tuple(f"{{scratch}}/{run}/checkpoints" for run in beside), needs=tuple(beside.values()))


def copy(source: str, target: str) -> Step:
    """A file kept under another name (e.g. an evaluation before a run was resumed)."""
    return Step(f"copy {source} {target}")


# Tetris*'s knob (its weight on Packer's alignment score; 1 - knob on 1 / duration) from nearly SJF to the default.
TETRIS_KNOBS = ",".join(f"tetris:{knob}" for knob in (0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.8))
VM_CVD = "configs/vm_cvd_frag.yaml"
VM_DQN = "configs/vm_dqn_frag.yaml"
VM_IMPACT = "configs/vm_cvd_frag_impact.yaml"
VM_TABLE_QUICK = "--num-pms 5 --warm-start 0 --starts 2"
DEEPRM_BC = "configs/deeprm_slowdown_bc.yaml"


def _vm_runs(folder: str, config: str, runs: dict[str, str], common: str = "") -> tuple[Step, ...]:
    return tuple(train(f"{{out}}/{folder}/{name}", config, *f"{common} {extra}".split(), quick=VM_QUICK)
                 for name, extra in runs.items())


def _vm_outputs(folder: str, names) -> tuple[str, ...]:
    return tuple(f"{folder}/{name}/eval.json" for name in names)


def _curves(name: str, window: int, **runs: str) -> Step:
    labels = " ".join(f"{label}={{out}}/{run}" for label, run in runs.items())
    return Step(f"jaxsched.studies.compare_runs --out {{out}}/{name} --baseline pm_best_fit --window {window} {labels}")


CANDIDATE_SETS_50PM = {  # run name: CVD-RL's top-k candidate set (k_best_fit + k_pm_best_fit + k_room_fit)
    "k3": "algo_options.k_best_fit=1 algo_options.k_pm_best_fit=1",
    "k5_paper": "algo_options.k_room_fit=0",  # the paper's 2 + 3, without our room_fit candidate
    "k7": "algo_options.k_best_fit=3 algo_options.k_pm_best_fit=3",
    "k10": "algo_options.k_best_fit=5 algo_options.k_pm_best_fit=4",
    "bf_top5": "algo_options.k_best_fit=5 algo_options.k_pm_best_fit=0 algo_options.k_room_fit=0",
    "internal_top5": "algo_options.k_best_fit=0 algo_options.k_pm_best_fit=5 algo_options.k_room_fit=0",
    "room_fit_top5": "algo_options.k_best_fit=0 algo_options.k_pm_best_fit=0 algo_options.k_room_fit=5"}
K_OVER_SEEDS = {name: CANDIDATE_SETS_50PM[name] for name in ("k3", "k5_paper")}  # Fig. 12's two key sets, more seeds


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
GRID_TABLES = ("jaxsched.studies.grid_tables --episodes 8 --seed 12345 --option candidates=per_class "
               "--run rig-ora={out}/grid_esn_oracle --run rig-est={out}/grid_esn_estimated "
               "--run ela-ora-0.5={out}/grid_elastic_esn_l0.5 --run ela-ora-1={out}/grid_elastic_esn_l1.0 "
               "--out {out}/grid")
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


def transfer_3m_item(name: str, paper: str, source: str, specialised: tuple[str, ...], steppings: tuple[str, ...],
                     wall_s: float, headline: str, swept: str = "") -> Item:
    """``mdp_transfer`` of the bracis-7 agent of the sweep ``source`` (cell ``cell000__{swept}<3M settings>``,
    ``swept`` naming its swept overrides) on all ten scenarios, 5 seeds sampled, 200 jobsets, beside the
    specialised agents of the sweeps ``specialised`` (which include ``source``); one step per stepping,
    written to ``{out}/name/<stepping>.{json,md}``."""
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
                wall_s=wall_s, inputs=(f"{{out}}/{source}/cells/cell000__{swept}{MDP_3M_SETTINGS}/config.json",),
                needs=specialised, headline=headline)


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
    evaluations = [Step(f"jaxsched.evaluate --checkpoint {{scratch}}/deeprm2_fig3/{run} --policies {policies} "
                        f"--jobsets 100 --seed 99991 --per-job {out}/{label}.csv --summary {out}/{label}.json",
                        quick="--jobsets 3")
                   for label, run, policies in (("cnn_bc", "cnn_bc_l0.7", "random,sjf,checkpoint-sampled"),
                                                ("mlp", "mlp_l0.7", "checkpoint-sampled"))]
    series = {"Random": "cnn_bc.csv:random", "SJF": "cnn_bc.csv:sjf",
              "DeepRM (MLP, lr 1e-3, 330 it)": "mlp.csv:checkpoint-sampled",
              f"DeepRM2 (CNN + BC, {DEEPRM2_FIG3_ITERATIONS['0.7']} it)": "cnn_bc.csv:checkpoint-sampled"}
    flags = " ".join(shlex.quote(f"--series={label}={out}/{spec}") for label, spec in series.items())
    title = shlex.quote("--title=Slowdown by job length, load 0.7, 100 held-out jobsets (DeepRM2 Fig. 6)")
    return (*evaluations, Step(f"jaxsched.studies.slowdown_by_length --out {out} {flags} {title}"))


def sweep_cell_name(overrides: list[str]) -> str:
    """The folder ``jaxsched.sweep`` gives its first cell for these ``key=value`` overrides: the rule of
    :func:`jaxsched.sweep.cell_name`, restated here so that the registry imports no command
    (tests/test_reproduce.py checks that the two agree)."""
    return re.sub(r"[^A-Za-z0-9._=+-]+", "-", "cell000__" + "__".join(overrides))[:150]


def vm_impact_sweep(num_pms: int, seeds: int, wall_s: int, headline: str, *, iterations: int = 600,
                    warm_start: str = "", tables: Callable[[str, str], tuple[Step, ...]] | None = None,
                    outputs: tuple[str, ...] = ()) -> Item:
    """``configs/vm_cvd_frag_impact.yaml`` swept over ``seeds`` seeds at ``num_pms`` PMs (the config's own 20 PMs
    are not repeated on the command line, as the recorded 20-PM sweep ran) and ``warm_start`` if given;
    ``tables(cell, quick_cell)``: further steps reading the sweep's cell (its first seed), files in ``outputs``."""
    name = f"sweep_vm_cvd_frag_impact_{num_pms}pm" + (f"_ws{warm_start}" if warm_start else "")
    options = ([] if num_pms == 20 else [f"env_options.num_pms={num_pms}"]) + \
        ([f"env_options.warm_start={warm_start}"] if warm_start else [])
    full = [f"iterations={iterations}", f"checkpoint_every={iterations // 3}", "devices=auto", *options]
    quick = ["iterations=2", "chunk=1", "checkpoint_every=1", "eval_jobsets=2", "algo_options.learning_starts=64",
             *options]

    def sweep(count: int, overrides: list[str]) -> str:
        return f"jaxsched.sweep --config {VM_IMPACT} --seeds 0:{count} --out {{out}}/{name} {' '.join(overrides)}"

    def cell(overrides: list[str]) -> str:  # the sweep's first cell, named by its overrides (sweep.cell_name)
        return f"{{out}}/{name}/cells/{sweep_cell_name(overrides)}"

    return Item(
        id=name,
        paper=f"CVD-RL + impact reward at {num_pms} PMs" + (f", warm start {warm_start}" if warm_start else "") +
              f" over {seeds} seeds ({iterations} iterations): IQM and 95% CI",
        steps=(Step(sweep(seeds, full), quick_command=sweep(2, quick)),
               *(tables(cell(full), cell(quick)) if tables else ())),
        outputs=tuple(f"{name}/{file}" for file in ("summary.csv", "report.md")) + outputs,
        wall_s=wall_s, headline=headline)


_TABLE = "--starts 20 --window 40000"
_EXPANSION, _QUICK_EXPANSION = ("--option initial_pms=50 --option pms_per_expansion=10",
                                "--option initial_pms=10 --option pms_per_expansion=5")
_TABLE3 = (f"--num-pms 100 --warm-start 0.3,0.4,0.5,0.6 {_TABLE}",
           f"--num-pms 5 --warm-start 0 {_TABLE} --starts 2 --window 2000")
_TABLE4 = (f"--num-pms 110 --warm-start 0,0.5 {_EXPANSION} {_TABLE}",
           f"--num-pms 20 --warm-start 0 {_QUICK_EXPANSION} {_TABLE} --starts 2 --window 2000")
PAPER_TABLES = {  # vm_paper_tables' files: (vm_table settings, quick settings, every seed of the cell)
    "table3_100pm": (*_TABLE3, False),
    "table4_expansion": (*_TABLE4, False),
    "table2_50pm_seeds": (f"--num-pms 50 --warm-start 0,0.3,0.4,0.5,0.6 {_TABLE}", _TABLE3[1], True),
    "table3_100pm_seeds": (*_TABLE3, True),
    "table4_expansion_seeds": (*_TABLE4, True),
}


def table2_50pm(run: str, quick: str) -> Step:
    """The CVD-RL paper's Table 2 (50 PMs, warm starts 0-0.6) with the policy of ``{out}/run`` beside the
    heuristics, into ``{out}/run_table.json`` (``quick`` appended in the quick form; Double DQN's network runs at
    50 PMs only, so its quick form keeps them)."""
    return Step("jaxsched.studies.vm_table --env vm-frag --num-pms 50 --warm-start 0,0.3,0.4,0.5,0.6 --window 40000 "
                f"--starts 20 --policies first_fit,best_fit,pm_best_fit,room_fit --checkpoint {{out}}/{run} "
                f"--out {{out}}/{run}_table.json", quick=quick)


def vm_paper_tables(name: str) -> Callable[[str, str], tuple[Step, ...]]:
    """The CVD-RL paper's Table 3 (100 PMs, warm starts 0.3-0.6), Table 4 (expansion: 50 PMs in service, +10
    whenever a create fits nowhere, up to 110) and Fig. 9 (allocation over time in the expansion scenario at
    warm start 0.5, one start) from a sweep cell's policy (its first seed), into ``{out}/name/table{3,4}_*`` and
    ``fig9_*/``; Tables 2 (50 PMs, warm starts 0-0.6), 3 and 4 with every seed of the cell (``*_seeds``: IQM and CI
    over seeds). Their files: :func:`vm_paper_table_outputs`."""
    policies = "--policies first_fit,best_fit,pm_best_fit,room_fit"

    def tables(cell: str, quick_cell: str) -> tuple[Step, ...]:
        def step(study: str, settings: str, out: str, quick_settings: str, all_seeds: bool = False) -> Step:
            def command(run: str, these: str) -> str:
                seeds = " --all-seeds" if all_seeds else ""
                return (f"jaxsched.studies.{study} --env vm-frag {these} {policies} --checkpoint {run}{seeds} "
                        f"--out {{out}}/{name}/{out}")
            return Step(command(cell, settings), quick_command=command(quick_cell, quick_settings))

        def vm_tables(every_seed: bool) -> tuple[Step, ...]:
            return tuple(step("vm_table", full, f"{stem}.json", quick, all_seeds)
                         for stem, (full, quick, all_seeds) in PAPER_TABLES.items() if all_seeds == every_seed)
        fig9 = step("vm_allocation_trace", f"--warm-start 0.5 --num-pms 110 --window 40000 {_EXPANSION}",
                    "fig9_expansion", f"--warm-start 0.5 --num-pms 20 --window 2000 {_QUICK_EXPANSION}")
        return (*vm_tables(False), fig9, *vm_tables(True))
    return tables


def vm_paper_table_outputs(name: str) -> tuple[str, ...]:
    """The files :func:`vm_paper_tables` writes into ``{out}/name``."""
    return tuple(f"{name}/{stem}.{ext}" for stem in PAPER_TABLES for ext in ("json", "md")) + \
        tuple(f"{name}/fig9_expansion/trace.{ext}" for ext in ("json", "png"))


ITEMS: list[Item] = [
    # ---- DeepRM (HotNets'16) and DeepRM2 -------------------------------------------------------------
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
        headline="SJF and Packer equal the reference to the last digit (load 1.1: 4.00, 8.99)",
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
        headline="held-out 3.91 vs SJF 3.02 (does not reach SJF)",
    ),
    Item(
        id="deeprm_bc_load0.7",
        paper="DeepRM Fig. 6 set-up: behaviour cloning, then REINFORCE at load 0.7",
        steps=(train("{out}/deeprm_bc_load0.7", DEEPRM_BC, "iterations=300", quick=f"{REINFORCE_QUICK} {BC_QUICK}"),
               resume("{out}/deeprm_bc_load0.7", 700, 4)),
        outputs=("deeprm_bc_load0.7/eval.json", "deeprm_bc_load0.7/metrics.csv", "deeprm_bc_load0.7/checkpoints"),
        wall_s=2586,
        headline="trained (sampled) {sampled} vs SJF {sjf} ({change}%)",
        numbers={"sampled": at("deeprm_bc_load0.7/eval.json", "policies/trained-s0-sampled/mean_slowdown"),
                 "sjf": at("deeprm_bc_load0.7/eval.json", "policies/sjf/mean_slowdown"),
                 "change": change("deeprm_bc_load0.7/eval.json", "policies/trained-s0-sampled/mean_slowdown",
                                  "policies/sjf/mean_slowdown")},
    ),
    Item(
        id="deeprm_fig4_trained_at_0.7",
        paper="DeepRM Fig. 4: slowdown vs load with the policy trained at 0.7",
        steps=(Step("jaxsched.evaluate --checkpoint {out}/deeprm_bc_load0.7 --policies sjf,packer,tetris,random "
                    "--loads 0.1,0.3,0.5,0.7,0.9,1.1,1.3,1.5,1.7,1.9 --jobsets 10 --seeds 0:10 "
                    "--summary {out}/deeprm_fig4_trained_at_0.7/summary.json "
                    "--results-dir {out}/deeprm_fig4_trained_at_0.7",
                    quick="--loads 0.7 --jobsets 2 --seeds 0:1"),),
        outputs=("deeprm_fig4_trained_at_0.7/summary.json", "deeprm_fig4_trained_at_0.7/deeprm_slowdown_vs_load.csv",
                 "deeprm_fig4_trained_at_0.7/deeprm_slowdown_vs_load.png"),
        wall_s=600, estimate=True,
        inputs=("{out}/deeprm_bc_load0.7/checkpoints",), needs=("deeprm_bc_load0.7",),
        headline="sampled policy beats every heuristic from load 0.3 to 1.9 (load 1.1: 3.46 vs SJF 4.20)",
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
        headline="8 seeds, sampled: IQM 3.21 [3.17, 3.32] vs SJF 3.02 (none beats SJF after 300 iterations of "
                 "10 x 10); greedy 2.69 leaves jobs unfinished",
    ),
    Item(
        id="sweep_deeprm_slots_load0.7",
        paper="DeepRM Fig. 6 set-up over 8 seeds (10 x 10 rollouts) with the slot scorer: IQM and 95% CI",
        steps=(slot_scorer_sweep("sweep_deeprm_slots_load0.7"),),
        outputs=("sweep_deeprm_slots_load0.7/summary.csv", "sweep_deeprm_slots_load0.7/report.md"),
        wall_s=1536,
        headline="{seeds} seeds, sampled IQM {iqm} {ci} vs SJF {sjf}, {beating} seeds beat SJF with every job "
                 "finished (the MLP, 300 iterations: {mlp}, none)",
        numbers={"seeds": sweep("sweep_deeprm_slots_load0.7", stat="count"),
                 "iqm": sweep("sweep_deeprm_slots_load0.7"),
                 "ci": sweep("sweep_deeprm_slots_load0.7", stat="interval"),
                 "sjf": sweep("sweep_deeprm_slots_load0.7", policy="sjf", stat="value"),
                 "beating": sweep("sweep_deeprm_slots_load0.7", stat="beating"),
                 "mlp": sweep("sweep_deeprm_bc_load0.7")},
    ),
    Item(
        id="sweep_deeprm_slots_nobc_load0.7",
        paper="the same 8-seed sweep without behaviour cloning (same lr 1e-4): the BC effect, unconfounded",
        steps=(slot_scorer_sweep("sweep_deeprm_slots_nobc_load0.7", "bc=null ", cloned=False),),
        outputs=("sweep_deeprm_slots_nobc_load0.7/summary.csv", "sweep_deeprm_slots_nobc_load0.7/report.md"),
        wall_s=1364,
        headline="no BC, same lr 1e-4, 8 seeds: sampled IQM 4.309 [4.294, 4.320] vs SJF 3.015 (with BC: 2.625): "
                 "at this budget behaviour cloning is what beats SJF",
    ),
    Item(
        id="sweep_deeprm_slots_load1.1",
        paper="DeepRM Fig. 6 set-up at load 1.1 over 8 seeds (10 x 10 rollouts) with the slot scorer: IQM and "
              "95% CI",
        steps=(slot_scorer_sweep("sweep_deeprm_slots_load1.1", "env_options.load=1.1 "),),
        outputs=("sweep_deeprm_slots_load1.1/summary.csv", "sweep_deeprm_slots_load1.1/report.md"),
        wall_s=1248,
        headline="8 seeds, sampled IQM 2.906 [2.820, 3.003] vs SJF 4.063, every seed beats SJF with every job "
                 "finished",
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
        headline="paper sizes: SJF best at every load (0.7: SJF 1.66, Tetris* 2.03, Packer 2.34); one arrival per "
                 "step caps the offered load at 1.02; Tetris* reaches SJF only as its knob goes to 0 (pure SJF)",
    ),
    Item(
        id="sweep_deeprm_paper_slots",
        paper="DeepRM Fig. 4 on the paper's job sizes with a policy trained per load (0.7 and 1.0, the most one "
              "arrival per step offers): the slot scorer, BC then REINFORCE, 6 seeds",
        steps=(slot_scorer_sweep("sweep_deeprm_paper_slots", "env=deeprm-paper env_options.load=0.7,1.0 ",
                                 seeds="0:6"),),
        outputs=("sweep_deeprm_paper_slots/summary.csv", "sweep_deeprm_paper_slots/report.md"),
        wall_s=6000,
        headline="6 seeds, sampled IQM 1.449 [1.420, 1.468] at 0.7 (SJF 1.588, Tetris* 1.910) and 1.600 [1.569, 1.619] "
                 "at 1.0 (SJF 2.052, Tetris* 3.118): every seed beats every heuristic, every job finished",
    ),
    Item(
        id="deeprm_bc_load1.1",
        paper="DeepRM Fig. 6 set-up at load 1.1 (the policy of Fig. 7)",
        steps=(train("{out}/deeprm_bc_load1.1", DEEPRM_BC, "env_options.load=1.1", "iterations=500",
                     quick=f"{REINFORCE_QUICK} {BC_QUICK}"),),
        outputs=("deeprm_bc_load1.1/eval.json", "deeprm_bc_load1.1/checkpoints"),
        wall_s=1823,
        headline="trained (sampled) 3.49 vs SJF 4.06",
    ),
    Item(
        id="deeprm_fig7_load1.1",
        paper="DeepRM Fig. 7: withholding of long jobs",
        steps=(Step("jaxsched.studies.withholding --checkpoint {out}/deeprm_bc_load1.1 --load 1.1 --jobsets 100 "
                    "--out {out}/deeprm_fig7_load1.1", quick="--jobsets 2"),),
        outputs=("deeprm_fig7_load1.1/withholding.json", "deeprm_fig7_load1.1/withheld_job_lengths.png",
                 "deeprm_fig7_load1.1/slowdown_by_job_length.png"),
        wall_s=120, estimate=True,
        inputs=("{out}/deeprm_bc_load1.1/checkpoints",), needs=("deeprm_bc_load1.1",),
        headline="30.1% of move-ons withhold a job that fits; 91% of withheld jobs are long",
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
        headline="slowdown-trained 3.03 vs SJF 4.82; completion-trained 15.46 vs SJF 15.57 (completion time)",
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
        headline="MLP + BC at 20 x 20 reaches SJF at iteration 398 (held-out 3.65 vs SJF 3.83); "
                 "4 x 5 runs do not, CNN = MLP",
    ),
    one_run_item(
        "deeprm_paper_recipe_h200", "paper_recipe",
        paper="DeepRM §4 / Fig. 6 with the paper's own recipe at the paper's size: 100 fixed jobsets x 20 "
              "rollouts, no behaviour cloning, RMSProp 1e-3, load 0.7, 3 seeds (one GPU)",
        training=train("{scratch}/paper_recipe", "configs/deeprm_slowdown.yaml", "algo_options.grad_chunk_len=20",
                       "iterations=840", "checkpoint_every=10", seeds="0,1,2",
                       quick=f"{REINFORCE_QUICK} algo_options.grad_chunk_len=2"),
        wall_s=457,
        headline="840 iterations of 2000 episodes (paper: ~1000): sampled held-out slowdown 2.85 / 2.70 / 2.74 "
                 "vs SJF 3.02, Tetris* 5.12; seed 0 finishes every job, seeds 1 and 2 leave 3 and 1 of 1843",
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
        wall_s=430,
        headline="420 iterations: sampled held-out 4.04 / 3.76 / 4.05 vs SJF 3.83 (seed 1 leaves 1 of 2576 "
                 "unfinished); none beats SJF, the single CPU seed's 3.65 at 500 (deeprm2_load1.0) is not robust",
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
        wall_s=424,
        headline="640 iterations after cloning: sampled held-out slowdown 2.32 / 2.34 / 2.25 vs SJF 3.02 (-23%), "
                 "every job finished on every seed; without cloning 2.85 / 2.70 / 2.74 at 840",
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
        wall_s=95,
        headline="420 iterations at lr 1e-4 without cloning: sampled held-out 5.48 / 5.49 / 5.47 vs SJF 3.83; MLP + BC at the "
                 "same lr and iterations 3.76-4.05: cloning, not REINFORCE, gives DeepRM2 its start",
        note="Recorded on one NVIDIA H200 (jax 0.11.2, beside two other runs; trained and evaluated there).",
        beside={"mlp_bc_20x20": "deeprm2_mlp_bc_h200"},
    ),
    Item(
        id="deeprm2_fig3_h200",
        paper="DeepRM2 Figs. 3 / 4: CNN + BC vs MLP + BC vs MLP (DeepRM) vs SJF / Packer / Tetris* / Random at "
              "loads 0.7 / 1.0 / 1.3, the paper's 20 x 20 rollouts, 3 seeds, both metrics (one GPU)",
        steps=deeprm2_fig3_steps(),
        outputs=tuple(f"deeprm2_fig3_h200/load{load}/summary.json" for load in DEEPRM2_FIG3_ITERATIONS),
        wall_s=700,
        headline="Same cloning and lr: CNN + BC learns faster than MLP + BC (held-out 3.02 vs 3.43 at 0.7 after 190 it, "
                 "4.74 vs 5.31 at 1.3 after 180; at 1.0 its training curve reaches SJF's level by 170 it, the MLP's not "
                 "in 420); at 0.7 every CNN + BC seed is below SJF (3.02 [2.99, 3.05] vs 3.09, all jobs finished), at 1.0 "
                 "not (4.04 vs 3.83), at 1.3 4.74 vs 4.87 leaving 19 of 10110 jobs; DeepRM's MLP at lr 1e-3, 330 it: "
                 "2.88 at 0.7",
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
        wall_s=2500,
        headline="Trained on completion time, sampled mean completion time: CNN + BC 10.10 [9.94, 10.22] (190 it), MLP + BC "
                 "10.56 (190 it), MLP 11.03 (330 it) vs 12.15 / 11.59 / 12.01 trained on slowdown, SJF 9.51: the "
                 "objective moves each policy the paper's way and the CNN is the best learned policy on completion time "
                 "(on slowdown DeepRM's uncloned MLP at lr 1e-3: 2.88 vs 3.02), but none reaches SJF's completion time",
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
        headline="DeepRM's MLP (2.78 vs SJF 3.09) wins by the short jobs (median slowdown 1.00-2.00 at lengths 1-3, upper "
                 "quartile 1.9-4.0 vs SJF's 4.0-6.0) and pays with the long ones (median 2.2-4.1 vs 1.2-1.6 at 10-15); "
                 "the CNN + BC policy after 190 it (3.12) lies between them on long jobs (median 1.7-2.9) and on short "
                 "ones (upper quartile 3.5-6.0): the paper's DeepRM2 < DeepRM is not reproduced at 190 it",
        inputs=tuple(f"{{scratch}}/deeprm2_fig3/{run}/checkpoints" for run in ("cnn_bc_l0.7", "mlp_l0.7")),
        needs=("deeprm2_fig3_h200",),
        note="The two checkpoints evaluated are kept: --scratch results/deeprm2_fig6_load0.7/scratch re-runs this item "
             "from them (seed 0 of each 3-seed run; evaluate --checkpoint takes the first seed).",
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
        headline="5 seeds, sampled IQM 4.082 [4.067, 4.099] vs SJF 4.238, every seed beats SJF with every job "
                 "finished (clone 0.99 up to SJF's ties)",
    ),
    Item(
        id="bench_env",
        paper="environment steps/s beside the reference simulators (DeepRM, sched-rl-gym, VMAgent), same jobs, one run",
        steps=(Step("jaxsched.bench env --family deeprm,compact,vm --sizes 10,20,50 --loads 1.3,0.7 "
                    "--pms 20,50,100,200 --out {out}/bench_env.json",
                    quick="--sizes 5 --loads 1.3 --pms 20 --quick"),),
        outputs=("bench_env.json", "bench_env.md", "bench_env_scaling.png"),
        wall_s=811,
        headline="DeepRM, batch 1024 over both cores, load 1.3: image 45.4x / 22.4x / 9.2x the reference at M = 10 / "
                 "20 / 50 (built and read alone: 76.5x / 26.4x / 13.0x), no observation 85.8x / 85.9x / 52.2x; VM "
                 "First-Fit at 50 PMs 87x",
    ),
    Item(
        id="bench_dispatch",
        paper="one env step per Python call taken apart: XLA:CPU's per-execution cost against the step's own",
        steps=(Step("jaxsched.bench dispatch --sizes 10,20,50 --out {out}/bench_dispatch.json",
                    quick="--sizes 5 --calls 20 --repeats 1"),),
        outputs=("bench_dispatch.json",),
        wall_s=44,
        headline="DeepRM M = 10: one packed step 94 us per Python call, 6.5 us inside a scan; 93 thunks",
    ),
    Item(
        id="bench_event",
        paper="MDP-design study: what an event-based (sparse) decision costs under vmap against a time-based one",
        steps=(Step("jaxsched.bench event --scenario bracis-7 --batches 32,1024 --out {out}/bench_event.json",
                    quick="--batches 4 --steps 5 --repeats 1 --window 0.1"),),
        outputs=("bench_event.json", "bench_event.md"),
        wall_s=60,
        headline="bracis-7, SJF: an event decision costs 4.1x (batch 32) / 7.3x (batch 1024) a time-based one "
                 "(3.9 ticks each); tick-by-tick skipping cost 9-31x",
    ),
    Item(
        id="bench_train",
        paper="training speed, one device vs one per core",
        steps=(Step("jaxsched.bench train --devices 1core,1,auto --out {out}/bench_train.json",
                    quick="--devices 1 --repeats 1 --config configs/quickstart.yaml"),),
        outputs=("bench_train.json",),
        wall_s=223,
        headline="REINFORCE 20 x 10, 2 seeds: 1.22 s -> 0.68 s per iteration (1.80x); paper size 4.24 s -> 3.77 s (1.12x)",
    ),
    Item(
        id="bench_train_cnn_cpu",
        paper="DeepRM2 CNN iteration cost on CPU (20 x 20 rollouts would be ~85 s/iteration)",
        steps=(Step("jaxsched.bench train --devices 1 --repeats 1 --out {out}/bench_train_cnn_cpu.json "
                    "--config configs/deeprm2_cnn_bc.yaml bc=null algo_options.num_jobsets=10 "
                    "algo_options.num_rollouts=10",
                    quick="algo_options.num_jobsets=2 algo_options.num_rollouts=2"),),
        outputs=("bench_train_cnn_cpu.json",),
        wall_s=220,
        headline="85.1 s per iteration at 10 x 10 (CNN, one core)",
    ),
    Item(
        id="bench_train_deeprm2_h200",
        paper="DeepRM2 CNN vs MLP iteration cost at the paper's 20 x 20 rollouts on one GPU (the paper: CNN 37.5% "
              "faster per epoch)",
        steps=tuple(Step(f"jaxsched.bench train --devices 1 --repeats 2 --out {{out}}/bench_train_{net}_h200.json "
                         f"--config configs/deeprm2_cnn_bc.yaml bc=null algo_options.network={net} "
                         "algo_options.num_jobsets=20 algo_options.num_rollouts=20",
                         quick="--repeats 1 algo_options.num_jobsets=2 algo_options.num_rollouts=2")
                    for net in ("cnn", "mlp")),
        outputs=("bench_train_cnn_h200.json", "bench_train_mlp_h200.json"),
        wall_s=81,
        headline="one seed, 47k decisions per iteration: CNN 0.24 s (195k decisions/s), MLP 0.03 s (1.5M/s); the "
                 "CNN is 8x the MLP's cost, not faster",
        note="Recorded on one NVIDIA H200 (jax 0.11.2); one jitted iteration, no scan over iterations.",
    ),
    Item(
        id="bench_train_cnn_seed_batching",
        paper="DeepRM2's CNN, 3 seeds on one CPU device: vmapped (grouped convolutions) vs one call per seed",
        steps=tuple(Step(f"jaxsched.bench train --devices 1 --repeats 2 --out {{out}}/bench_train_cnn_seeds_{mode}.json "
                         "--config configs/deeprm2_cnn_bc.yaml bc=null algo_options.num_jobsets=2 "
                         f"algo_options.num_rollouts=2 seeds=[0,1,2] seed_batching={mode}", quick="--repeats 1")
                    for mode in ("vmap", "loop")),
        outputs=("bench_train_cnn_seeds_vmap.json", "bench_train_cnn_seeds_loop.json"),
        wall_s=198,
        headline="3 seeds, 2 x 2 rollouts (1267 decisions per iteration): vmapped 21.7 s, one call per seed 6.9 s "
                 "per iteration (3.2x); on one H200 at 20 x 20 ~25x (results/README.md)",
        note="Measured on the 2-core CPU while a sweep ran beside it (both rows under the same load).",
    ),
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
        headline="image 2.29, compact 2.55, compact+event 2.56 vs SJF 1.99, Packer 2.51 (bracis-1, held-out)",
    ),
    Item(
        id="mdp_ppo_deeprm",
        paper="PPO on DeepRM (load 0.7) against REINFORCE's wall-clock",
        steps=(train("{scratch}/deeprm_ppo", "configs/deeprm_ppo.yaml", "iterations=250", quick=PPO_SUMMARY_QUICK),
               Step("jaxsched.studies.mdp_summary {out}/mdp_ppo/deeprm {scratch}/deeprm_ppo")),
        outputs=("mdp_ppo/deeprm/summary.json", "mdp_ppo/deeprm/learning_curves.png"),
        wall_s=800,
        note="The recorded run was stopped at iteration 250 of the config's 1000; here it runs 250.",
        headline="greedy 3.12 (91 jobs unfinished), sampled 4.04 vs SJF 3.02",
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
        note="Training (2,933 s recorded, results/mdp_ppo/train_study.sh) plus the 1000-jobset evaluations.",
        headline="compact PPO at Packer/EASY level (bracis-1 2.60 vs Packer 2.61, SJF 2.02); SJF best everywhere",
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
        headline="Lublin: SJF 2.25, PPO (bracis-7) 3.17, Packer 5.52, EASY 7.67, FCFS 42.1",
    ),
    mdp_budget_item(
        "sweep_mdp_sparse_reduced_3m",
        "BRACIS'21 at the paper's budget (3M decisions per agent), compact + sparse + reduced PPO on bracis-7, 5 seeds",
        "", 1022,
        "3M decisions x 5 seeds: sampled IQM 1.471 [1.416, 1.556] vs SJF 1.383, Packer 1.605 (5/5 beat Packer, 0/5 "
        "SJF, every job finished); greedy leaves jobs unfinished on 4 of 5 seeds"),
    mdp_budget_item(
        "sweep_mdp_compact_3m",
        "BRACIS'21 at the paper's budget (3M decisions per agent), compact PPO with time-based steps and every job "
        "in the reward on bracis-7, 5 seeds",
        "env_options.stepping=time env_options.reward_jobs=all", 643,
        "3M decisions x 5 seeds: sampled IQM 1.487 [1.466, 1.556] vs SJF 1.383, Packer 1.605 (5/5 beat Packer, 0/5 "
        "SJF, every job finished): level with compact + sparse + reduced (1.471)"),
    mdp_budget_item(
        "sweep_mdp_compact_3m_scenarios",
        "BRACIS'21 Fig. 4 in one MDP: compact PPO in the image agent's MDP (time-based steps, every job in the reward, "
        "the shared trunk) at the paper's budget on the six other scenarios with image agents, 5 seeds each",
        "env_options.stepping=time env_options.reward_jobs=all env=bracis-1,bracis-2,bracis-10,bracis-9,bracis-8,"
        "bracis-6", 1900,
        "sampled, every job finished, 0/5 seeds reach SJF on each: bracis-1 IQM 2.596, -2 9.249, -10 8.853, -9 2.009, "
        "-8 6.605, -6 2.618; against the image agents in the same MDP: behind on bracis-1, -8, -6 (CIs apart), level "
        "on -2, -10, -9 (and -7: sweep_mdp_compact_3m): compact is never ahead of image in one MDP",
        note="3-5 min of training per scenario for the 5 seeds on the 2-core CPU, partly beside other runs (stop 43); "
             "the final checkpoint of each cell kept."),
    mdp_budget_item(
        "sweep_mdp_image_3m",
        "BRACIS'21 Figs. 3-4 at the paper's budget: the image-like (base) MDP's PPO (configs/mdp_ppo_image.yaml: "
        "time-based steps, every job in the reward, the shared 2 x 64 trunk) on bracis-7, 5 seeds (one GPU)",
        "", 180,
        "3M decisions x 5 seeds in 2 min on one H200: sampled IQM 1.519 [1.509, 1.530] vs SJF 1.383, Packer 1.605 (5/5 "
        "beat Packer, 0/5 SJF, every job finished), beside the compact agent on the same MDP 1.487 [1.466, 1.556]: "
        "compact no worse than image, as the paper finds; greedy leaves jobs unfinished on 3 of 5 seeds",
        config="configs/mdp_ppo_image.yaml", checkpoint_every=125,
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
        "sampled, every job finished, 3/3 seeds beat Packer and 0/3 SJF on each: bracis-10 IQM 9.094 [8.908, 9.208] "
        "vs SJF 4.483, Packer 9.805; bracis-9 2.066 [1.956, 2.144] vs 1.668, 2.265; bracis-8 6.113 [5.852, 6.282] vs "
        "3.457, 7.244; bracis-6 2.410 [2.248, 2.526] vs 1.971, 2.643; behind compact + sparse + reduced on bracis-10 "
        "(7.800, CIs apart), level on -9, -8, -6 (1.881, 5.838, 2.580); behind the separate critic's except level on "
        "bracis-6 (2.259)",
        config="configs/mdp_ppo_image.yaml", checkpoint_every=125, seeds=3,
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
        "sampled, every job finished, 5/5 seeds beat Packer, 0/5 SJF: bracis-1 IQM 2.304 [2.278, 2.389] vs SJF 2.013, "
        "Packer 2.674, ahead of compact in the same MDP (2.596 [2.538, 2.699], CIs apart); bracis-2 8.942 [8.520, "
        "9.331] vs 4.864, 9.751, level with compact (9.249 [9.088, 9.332]): image no worse than compact here",
        config="configs/mdp_ppo_image.yaml", checkpoint_every=125,
        note="Run on the 2-core CPU from runs/cpu_image_small/ (bracis-1 15 min 51 s, bracis-2 19 min 51 s of "
             "training for the 5 seeds, partly beside other runs) and copied here with the final checkpoint only."),
    mdp_budget_item(
        "sweep_mdp_image_3m_small_ent_coef",
        "Is entropy collapse what holds the shared-trunk image agent back? sweep_mdp_image_3m_small's bracis-1 cell "
        "with 5x the entropy coefficient (0.05), 5 seeds",
        "algo_options.ent_coef=0.05 env=bracis-1", 1080,
        "sampled, every job finished, 5/5 seeds beat Packer, 0/5 SJF: IQM 2.456 [2.408, 2.493] vs SJF 2.013, Packer "
        "2.674, worse than ent_coef 0.01 (2.304 [2.278, 2.389], CIs apart) though its entropy stays up (0.132 vs "
        "0.032 over the last 375 iterations): entropy collapse is not what keeps it behind the separate critic (2.089)",
        config="configs/mdp_ppo_image.yaml",
        note="Run on the 2-core CPU from runs/cpu_image_ent/ (16 min of training for the 5 seeds) and copied here "
             "without its checkpoints (the command regenerates them)."),
    mdp_budget_item(
        "sweep_mdp_image_3m_small_vf_coef",
        "Is the value loss swamping the shared trunk? sweep_mdp_image_3m_small's bracis-1 cell with a 5x smaller "
        "value weight (vf_coef 0.1), 5 seeds",
        "algo_options.vf_coef=0.1 env=bracis-1", 1080,
        "sampled, every job finished, 5/5 seeds beat Packer, 0/5 SJF: IQM 2.371 [2.310, 2.516] vs SJF 2.013, Packer "
        "2.674, level with vf_coef 0.5 (2.304 [2.278, 2.389]) and behind the separate critic (2.089 [2.058, 2.158]): "
        "neither the entropy nor the value weight closes the gap; the separate torso carries it",
        config="configs/mdp_ppo_image.yaml",
        note="Run on the 2-core CPU from runs/cpu_image_vf/ (15 min 10 s of training for the 5 seeds) and copied here "
             "without its checkpoints (the command regenerates them)."),
    mdp_budget_item(
        "sweep_mdp_sparse_reduced_3m_h60",
        "BRACIS'21's H = 60 test: the compact + sparse + reduced sweep with a 60-step horizon (the paper: "
        "indistinguishable from H = 20)",
        "env_options.horizon=60", 1116,
        "H = 60, 3M decisions x 5 seeds: sampled IQM 1.586 [1.465, 1.987] vs 1.471 [1.416, 1.556] at H = 20 (CIs "
        "overlap; one H = 60 seed lags at 2.16); SJF 1.383, Packer 1.605"),
    mdp_budget_item(
        "sweep_mdp_sparse_reduced_3m_bracis1",
        "BRACIS'21 at the paper's budget on scenario 1 (10 processors, jobs <= 15 steps): compact + sparse + "
        "reduced PPO, 5 seeds",
        "env=bracis-1", 935,
        "bracis-1, 3M decisions x 5 seeds: sampled IQM 2.590 [2.479, 2.718] vs SJF 2.013, Packer 2.674 (4/5 beat "
        "Packer, 0/5 SJF, every job finished)"),
    mdp_budget_item(
        "sweep_mdp_sparse_reduced_3m_scenarios",
        "BRACIS'21 at the paper's budget on the other eight scenarios (Fig. 4): compact + sparse + reduced PPO, "
        "5 seeds per scenario",
        "env=bracis-10,bracis-9,bracis-8,bracis-6,bracis-5,bracis-4,bracis-3,bracis-2", 8 * 1100,
        "8 of 8 cells, every job finished sampled: sampled IQM 1.1-1.7x SJF; 37 of 40 seeds beat Packer (bracis-6: "
        "4/5, IQM 2.58 vs Packer 2.64; bracis-3: 3/5, 1.973 vs 1.965); one bracis-9 seed beats SJF (1.647 vs 1.668)",
        note="bracis-4 and -3 ran alone at stop 42 (--shard 5/8, 6/8 of the same command: 5 min 0 s and 4 min 9 s of "
             "training on the 2-core CPU); the six others earlier, with two other runs on the CPU (18-30 min)."),
    mdp_budget_item(
        "sweep_mdp_sparse_reduced_3m_separate_critic",
        "BRACIS'21's networks at the paper's budget: compact + sparse + reduced PPO with a separate actor and "
        "critic (the paper's parameter counts) on bracis-7, 5 seeds",
        "algo_options.separate_critic=true", 1470,
        "3M decisions x 5 seeds: sampled IQM 1.267 [1.247, 1.302] vs SJF 1.383, Packer 1.605: 5/5 seeds beat SJF with "
        "every job finished (the shared trunk: 1.471 [1.416, 1.556], 0/5)"),
    mdp_budget_item(
        "sweep_mdp_separate_critic_3m_scenarios",
        "BRACIS'21's networks at the paper's budget on the other nine scenarios: compact + sparse + reduced PPO with "
        "a separate actor and critic, 5 seeds per scenario",
        "algo_options.separate_critic=true env=bracis-1,bracis-9,bracis-2,bracis-10,bracis-8,bracis-6,bracis-5,"
        "bracis-4,bracis-3", 9 * 1440,
        "all 9 cells, sampled, every job finished: bracis-9 IQM 1.376 [1.366, 1.417] vs SJF 1.668, "
        "bracis-2 2.936 [2.865, 3.189] vs 4.864, bracis-10 2.919 [2.785, 3.008] vs 4.483, bracis-8 2.961 [2.844, 3.030] "
        "vs 3.457, bracis-5 2.314 [2.194, 2.484] vs 3.208, bracis-4 2.169 [2.131, 2.256] vs 2.673 (5/5 seeds beat SJF on "
        "each); bracis-1 2.256 [2.218, 2.300] vs SJF 2.013, bracis-6 2.259 [2.159, 2.324] vs 1.971 (5/5 beat Packer on "
        "both), bracis-3 1.789 [1.751, 1.973] vs 1.639 (4/5 beat Packer's 1.965)"),
    mdp_budget_item(
        "sweep_mdp_separate_critic_6m",
        "BRACIS'21's networks at twice the paper's budget (6M decisions per seed) on the three scenarios where 3M "
        "left compact + sparse + reduced with a separate actor and critic above SJF, 5 seeds per scenario",
        "algo_options.separate_critic=true env=bracis-1,bracis-3,bracis-6", 3 * 2200,
        "sampled, every job finished: bracis-1 IQM 1.922 [1.875, 1.974] vs SJF 2.013 (3M: 2.256) and bracis-6 "
        "1.914 [1.874, 1.948] vs 1.971 (3M: 2.259), 5/5 seeds beat SJF on both; bracis-3 level with SJF, 1.635 "
        "[1.627, 1.722] vs 1.639 (3M: 1.789; 3/5 below it); the paper's budget does not saturate these agents; "
        "completion time stays above SJF's (7.5-8.7 vs 6.4-6.5)",
        iterations=3750,
        note="Run on the 2-core CPU from runs/cpu_compact_sep_6m/ (35 min of training per scenario for the 5 seeds "
             "vmapped, 1 min of evaluation) and copied here with the final checkpoint only. Its first 1875 "
             "iterations are sweep_mdp_separate_critic_3m_scenarios' cells bit for bit (every training metric of "
             "every seed equal), so the 3M result is this run's midpoint."),
    mdp_budget_item(
        "sweep_mdp_separate_critic_6m_bracis7",
        "Does twice the paper's budget still help where 3M already beat SJF? BRACIS'21's networks (compact + sparse "
        "+ reduced, separate actor and critic) at 6M decisions on bracis-7, the paper's main scenario, 5 seeds",
        "algo_options.separate_critic=true env=bracis-7", 2300,
        "sampled, every job finished: IQM 1.229 [1.216, 1.236] vs 3M's 1.267 [1.247, 1.302] (CIs apart), SJF 1.383; "
        "5/5 seeds beat SJF sampled, 4/5 greedy (one leaves 3 jobs); completion time 10.0-10.2 vs SJF 9.68 (3M: "
        "10.0-10.4): the gain holds where 3M already won",
        iterations=3750,
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
        "all 6 cells, sampled, every job finished, 5/5 seeds beat SJF on each: bracis-8 IQM 2.376 [2.287, 2.530] "
        "(3M: 2.961) vs SJF 3.457, bracis-9 1.351 [1.320, 1.370] (1.376) vs 1.668, bracis-4 1.920 [1.876, 1.974] "
        "(2.169) vs 2.673, bracis-5 2.035 [2.014, 2.170] (2.314) vs 3.208, bracis-2 2.349 [2.270, 2.474] (2.936) vs 4.864, bracis-10 2.574 [2.409, 2.771] (2.919) vs 4.483; greedy below SJF with every job finished on 29 of 30 "
        "seeds (one bracis-9 seed leaves 4); completion time not grown (bracis-5: 25.3-25.9 vs SJF 25.68)",
        iterations=3750,
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
        "sampled, every job finished: IQM 1.590 [1.570, 1.607] vs SJF 1.639 (6M: 1.635, 3M: 1.789), 5/5 seeds beat "
        "SJF sampled and greedy (greedy 1.571 [1.541, 1.587], every job finished); with it the paper's networks "
        "beat SJF on all ten scenarios; completion time stays above SJF's (7.2-7.8 vs 5.6)",
        iterations=7500,
        note="Run on the 2-core CPU from runs/cpu_compact_sep_12m/ (1 h 4 min of training for the 5 seeds vmapped, "
             "1 min of evaluation) and copied here with the final checkpoint only. Its first 3750 iterations are "
             "sweep_mdp_separate_critic_6m's bracis-3 cell bit for bit (every training metric of every seed equal)."),
    mdp_budget_item(
        "sweep_mdp_image_separate_critic_3m_scenarios",
        "BRACIS'21 Fig. 4's image agent with the paper's networks (a separate actor and critic: 301,068 parameters at "
        "10 processors, the paper's count) at the paper's budget on the two 10-processor scenarios, 5 seeds",
        "algo_options.separate_critic=true env=bracis-1,bracis-2", 3900,
        "sampled, every job finished, 5/5 seeds beat Packer, 0/5 SJF: bracis-1 IQM 2.089 [2.058, 2.158] vs SJF 2.013, "
        "Packer 2.674, ahead of the compact separate critic (2.256 [2.218, 2.300], CIs apart); bracis-2 5.647 "
        "[5.240, 5.884] vs 4.864, 9.751, far behind the compact separate critic (2.936 [2.865, 3.189])",
        config="configs/mdp_ppo_image.yaml", checkpoint_every=125,
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
        "sampled, every job finished, 3/3 seeds beat Packer, 0/3 SJF: IQM 1.509 [1.475, 1.550] vs SJF 1.383, "
        "Packer 1.605, level with the shared-trunk image agent (1.519 [1.509, 1.530]), far behind compact + sparse + "
        "reduced with the same networks (1.267 [1.247, 1.302], CIs apart); greedy 1.476 with every job finished",
        config="configs/mdp_ppo_image.yaml", checkpoint_every=125, seeds=3,
        note="Run on the 2-core CPU from runs/cpu_image_sep64/ (3.5 s per iteration for the 3 seeds vmapped on the "
             "two 20 x 708 torsos: 1 h 50 min of training, 2 min of evaluation) and copied here without its "
             "checkpoints (24 MB for the final one; the command regenerates them)."),
    mdp_budget_item(
        "sweep_mdp_image_separate_critic_3m_largest",
        "BRACIS'21 Fig. 4's image agent with the paper's networks (a separate actor and critic, 1,821,708 parameters) "
        "at the paper's budget on the largest scenarios after bracis-7, 3 seeds each; resumable, one cell at a time",
        "algo_options.separate_critic=true env=bracis-10,bracis-9,bracis-8,bracis-6", 4 * 7000,
        "all 4 cells, sampled, every job finished, 3/3 seeds beat Packer, 0/3 SJF on each: bracis-10 IQM 6.274 "
        "[6.148, 6.341] vs SJF 4.483, Packer 9.805; bracis-9 1.908 [1.786, 2.101] vs 1.668, 2.265; bracis-8 4.518 "
        "[4.389, 4.736] vs 3.457, 7.244; bracis-6 2.180 [2.119, 2.243] vs 1.971, 2.643; lower than the shared-trunk "
        "image agent on each (9.094, 2.066, 6.113, 2.410; CIs apart on -10, -8, -6); behind compact + sparse + "
        "reduced with the same networks on -10, -9, -8 (2.919, 1.376, 2.961), level on bracis-6 (2.259)",
        config="configs/mdp_ppo_image.yaml", checkpoint_every=125, seeds=3,
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
        "sampled, every job finished, 3/3 seeds beat Packer, 0/3 SJF on each: bracis-5 IQM 4.643 [4.459, 4.908] vs "
        "SJF 3.208, Packer 7.038; bracis-4 3.351 [3.172, 3.462] vs 2.673, 5.015; bracis-3 1.770 [1.762, 1.779] vs "
        "1.639, 1.965; behind compact + sparse + reduced with the same networks on -5 and -4 (2.314, 2.169: CIs "
        "apart), level on bracis-3 (1.789 [1.751, 1.973]); greedy leaves jobs unfinished on every cell",
        config="configs/mdp_ppo_image.yaml", checkpoint_every=125, seeds=3,
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
        "time steps, sampled: behind its own type's agents on all 9 other scenarios (CIs apart on 8, e.g. bracis-2 7.42 "
        "vs 2.94, bracis-4 3.57 vs 2.17; overlapping on bracis-3, 1.91 vs 1.79); lower than Packer "
        "on 8 of 10 scenarios and than SJF on bracis-9 (1.47 vs 1.67) but with 4-81 of 29435 jobs unfinished "
        "on 8 of 10; every job finished only on bracis-3 and -7",
        swept="algo_options.separate_critic=True__"),
    transfer_3m_item(
        "mdp_transfer_3m",
        "BRACIS'21 Fig. 6 with the paper's agent type: the compact + sparse + reduced agent trained on "
        "bracis-7 (3M decisions, 5 seeds), sampled, run unchanged on all ten scenarios with time-based steps "
        "(the paper's) and with its own event steps, beside each scenario's own 3M agents and SJF / Packer",
        "sweep_mdp_sparse_reduced_3m",
        ("sweep_mdp_sparse_reduced_3m", "sweep_mdp_sparse_reduced_3m_bracis1", "sweep_mdp_sparse_reduced_3m_scenarios"),
        ("time", "trained"), 710,
        "time steps: behind each of the nine other scenarios' own agents, CIs apart on all but bracis-9 (bracis-1 "
        "4.84 vs 2.59, bracis-3 2.83 vs 1.97); beats Packer only on bracis-7 and -9; the paper's 80% not reproduced"),
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
        headline="relative to SJF over all 10 scenarios: compact + sparse + reduced with the paper's two networks "
                 "0.869 [0.860, 0.877] (35/50 seeds beat SJF), with the shared trunk 1.457 [1.438, 1.478] (1/50); "
                 "image 1.390 (7 scenarios, 0/27), image with two networks 1.158 (10 scenarios, 0/34); every job "
                 "finished; the two networks' training curves still fall at 3M on bracis-2, -4, -5, -8, -10"),
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
        inputs=("{out}/sweep_mdp_compact_3m/cells/" + SWF_3M_CELL + "/config.json",),
        needs=("sweep_mdp_compact_3m",),
        headline="the 3M agent transfers worse than the 96k one: sampled 6.29 on CTC SP2 (SJF 1.48; 96k agent "
                 "1.66), 13.39 on Lublin-256 (SJF 2.40, EASY 9.31; 96k agent 3.17)",
    ),
    # ---- VM placement (CVD-RL, SchedRL) -------------------------------------------------------------
    Item(
        id="vm_heuristics",
        paper="CVD-RL paper's heuristics on the Huawei East-1 trace",
        steps=(Step("jaxsched.studies.vm_table --env vm-huawei --option trace=dataset:huawei-east-1 --num-pms 5,10,20 "
                    "--warm-start 0,0.5 --starts 20 --window 10000 --out {out}/vm_heuristics.json",
                    quick=VM_TABLE_QUICK),),
        outputs=("vm_heuristics.json", "vm_heuristics.md"),
        wall_s=300, estimate=True,
        headline="First-Fit, Best-Fit, PM-level Best-Fit within 0.1% of each other",
    ),
    Item(
        id="bench_vm",
        paper="VM env throughput (Best-Fit decisions/s, batch 1024)",
        steps=(Step("jaxsched.bench vm --out {out}/bench_vm.json",
                    quick="--num-pms 5 --batch 8 --steps 10 --window 200 --repeats 1 --cpu-devices 1"),),
        outputs=("bench_vm.json",),
        wall_s=180, estimate=True,
        headline="1.05 M decisions/s at 50 PMs on 2 cores (24.5x numpy)",
    ),
    Item(
        id="vm_synthetic_300it",
        paper="first CVD-RL and SchedRL runs (3 synthetic PMs)",
        steps=(train("{out}/vm_cvd_synthetic_300it", "configs/vm_cvd_synthetic.yaml", "iterations=300",
                     "checkpoint_every=100", "eval_jobsets=16", quick=VM_QUICK),
               train("{out}/vm_dqn_synthetic_300it", "configs/vm_dqn_synthetic.yaml", "iterations=300",
                     "checkpoint_every=100", "eval_jobsets=16", quick=VM_QUICK)),
        outputs=("vm_cvd_synthetic_300it/eval.json", "vm_dqn_synthetic_300it/eval.json"),
        wall_s=193,
        headline="CVD-RL 214.9, Double DQN 219.9 vs Best-Fit 238.8",
    ),
    Item(
        id="vm_heuristics_frag",
        paper="CVD-RL paper Tables 2-3 shape, heuristics in vm-frag",
        steps=(Step("jaxsched.studies.vm_table --env vm-frag --num-pms 5,20,50,100 --warm-start 0,0.3,0.5 --starts 20 "
                    "--out {out}/vm_heuristics_frag.json", quick=VM_TABLE_QUICK),),
        outputs=("vm_heuristics_frag.json", "vm_heuristics_frag.md"),
        wall_s=256,
        headline="PM-level Best-Fit +34-91% over Best-Fit",
    ),
    Item(
        id="vm_frag_5pm",
        paper="CVD-RL and Double DQN at 5 PMs (+1 reward)",
        steps=(train("{out}/vm_cvd_frag_5pm", VM_CVD, quick=VM_QUICK),
               train("{out}/vm_cvd_frag_5pm_gamma099", VM_CVD, "iterations=3000", "algo_options.gamma=0.99",
                     quick=VM_QUICK),
               train("{out}/vm_dqn_frag_5pm", VM_DQN, quick=VM_QUICK)),
        outputs=("vm_cvd_frag_5pm/eval.json", "vm_cvd_frag_5pm_gamma099/eval.json", "vm_dqn_frag_5pm/eval.json"),
        wall_s=864,
        headline="CVD-RL 77.3, Double DQN 66.7 vs Best-Fit 82.8, PM-level Best-Fit 96.7",
    ),
    Item(
        id="vm_cvd_frag_ablation",
        paper="CVD-RL paper's ablation (operators, k) at 5 PMs, +1 reward",
        steps=(*_vm_runs("vm_cvd_frag_ablation", VM_CVD, {
            "full_k5_3000it": "", "no_top_k": "algo_options.top_k=false",
            "no_decomposition": "algo_options.decomposition=false", "no_lookahead": "algo_options.lookahead=false",
            "k3": "algo_options.k_best_fit=1 algo_options.k_pm_best_fit=2",
            "k7": "algo_options.k_best_fit=3 algo_options.k_pm_best_fit=4",
            "k10": "algo_options.k_best_fit=5 algo_options.k_pm_best_fit=5"},
            common="iterations=3000"),
               train("{out}/vm_cvd_frag_5pm_gamma1", VM_CVD, "iterations=3000", "algo_options.gamma=1.0",
                     quick=VM_QUICK)),
        outputs=(*_vm_outputs("vm_cvd_frag_ablation", ("full_k5_3000it", "no_top_k", "no_decomposition",
                                                       "no_lookahead", "k3", "k7", "k10")),
                 "vm_cvd_frag_5pm_gamma1/eval.json"),
        wall_s=1626,
        note="full_k5_3000it was recorded with k overrides that an old bug ignored; it is the plain k = 5 run.",
        headline="every variant 67-84 greedy, all below Best-Fit 82.8 / PM-BF 96.7 except k=3 (83.4)",
    ),
    Item(
        id="vm_frag_20pm",
        paper="CVD-RL paper Tables 2-4 shape at 20 PMs (+1 reward), the 20-PM policy at 50/100 PMs and in expansion",
        steps=(train("{out}/vm_cvd_frag_20pm", VM_CVD, "iterations=3000", "env_options.num_pms=20", quick=VM_QUICK),
               copy("{out}/vm_cvd_frag_20pm/eval.json", "{out}/vm_cvd_frag_20pm/eval_3000it.json"),
               Step("jaxsched.studies.vm_table --env vm-frag --num-pms 20,50,100 --warm-start 0,0.5 --starts 20 "
                    "--checkpoint {out}/vm_cvd_frag_20pm --out {out}/vm_cvd_frag_20pm_at_n.json", quick=VM_TABLE_QUICK),
               Step("jaxsched.studies.vm_table --env vm-frag --num-pms 110 --warm-start 0,0.5 --starts 20 "
                    "--option initial_pms=50 --option pms_per_expansion=10 --checkpoint {out}/vm_cvd_frag_20pm "
                    "--out {out}/vm_cvd_frag_20pm_expansion.json",
                    quick="--num-pms 20 --warm-start 0 --starts 2 --option initial_pms=10 "
                          "--option pms_per_expansion=5"),
               resume("{out}/vm_cvd_frag_20pm", 6000, 4),
               train("{out}/vm_dqn_frag_20pm", VM_DQN, "iterations=6000", "env_options.num_pms=20", quick=VM_QUICK),
               train("{out}/vm_cvd_frag_20pm_seed1", VM_CVD, "iterations=3000", "env_options.num_pms=20", seeds="1",
                     quick=VM_QUICK)),
        outputs=("vm_cvd_frag_20pm/eval.json", "vm_cvd_frag_20pm/eval_3000it.json", "vm_cvd_frag_20pm_at_n.json",
                 "vm_cvd_frag_20pm_at_n.md", "vm_cvd_frag_20pm_expansion.json", "vm_cvd_frag_20pm_expansion.md",
                 "vm_dqn_frag_20pm/eval.json", "vm_cvd_frag_20pm_seed1/eval.json"),
        wall_s=2140,
        headline="CVD-RL 564.1 vs Best-Fit 424.2, PM-level Best-Fit 592.4; at 50/100 PMs +47-71% over Best-Fit",
    ),
    Item(
        id="vm_cvd_frag_50pm_timing",
        paper="CVD-RL at the paper's 50 PMs: time per iteration only",
        steps=(train("{out}/vm_cvd_frag_50pm_timing", VM_CVD, "iterations=300", "chunk=50", "checkpoint_every=300",
                     "eval_jobsets=5", "env_options.num_pms=50", "env_options.warm_start=0.5", quick=VM_QUICK),),
        outputs=("vm_cvd_frag_50pm_timing/eval.json",),
        wall_s=184,
        headline="0.41 s per iteration (~11-12 h for the paper's budget)",
    ),
    Item(
        id="vm_heuristics_frag_room",
        paper="room_fit, the impact reward's greedy rule, beside the paper's heuristics",
        steps=(Step("jaxsched.studies.vm_table --env vm-frag --num-pms 5,20 --warm-start 0,0.3,0.5 --starts 20 "
                    "--policies first_fit,best_fit,pm_best_fit,room_fit --out {out}/vm_heuristics_frag_room.json",
                    quick=VM_TABLE_QUICK),),
        outputs=("vm_heuristics_frag_room.json", "vm_heuristics_frag_room.md"),
        wall_s=123,
        headline="room_fit +9-27% over PM-level Best-Fit at 5 / 20 PMs",
    ),
    Item(
        id="vm_cvd_frag_impact_variants",
        paper="the impact reward learned vs added to Q exactly (20 PMs)",
        steps=_vm_runs("vm_cvd_frag_impact_variants", VM_CVD, {
            "imp10": "algo_options.impact_reward=10 algo_options.impact_in_q=false",
            "imp3": "algo_options.impact_reward=3 algo_options.impact_in_q=false",
            "imp10_g75": "algo_options.impact_reward=10 algo_options.gamma=0.75 algo_options.impact_in_q=false",
            "imp10_g5": "algo_options.impact_reward=10 algo_options.gamma=0.5 algo_options.impact_in_q=false",
            "known10_g95": "algo_options.impact_reward=10",
            "known10_g5": "algo_options.impact_reward=10 algo_options.gamma=0.5"},
            common="iterations=3000 env_options.num_pms=20"),
        outputs=_vm_outputs("vm_cvd_frag_impact_variants",
                            ("imp10", "imp3", "imp10_g75", "imp10_g5", "known10_g95", "known10_g5")),
        wall_s=3996,
        headline="learned 500-521, added exactly 617.6 / 655.5 (room_fit on the candidates alone: 670.5)",
    ),
    Item(
        id="vm_frag_impact_5pm",
        paper="CVD-RL + impact reward at 5 PMs",
        steps=(train("{out}/vm_cvd_frag_impact_5pm", VM_IMPACT, "env_options.num_pms=5", quick=VM_QUICK),
               _curves("vm_frag_5pm_curves", 200, **{"cvd_gamma0.95": "vm_cvd_frag_5pm",
                                                     "cvd_gamma0.99": "vm_cvd_frag_5pm_gamma099",
                                                     "dqn_gamma0.95": "vm_dqn_frag_5pm",
                                                     "cvd_impact": "vm_cvd_frag_impact_5pm"})),
        outputs=("vm_cvd_frag_impact_5pm/eval.json", "vm_frag_5pm_curves/summary.json"),
        wall_s=220,
        inputs=("{out}/vm_cvd_frag_5pm/metrics.csv",), needs=("vm_frag_5pm",),
        headline="111.9 vs room_fit 114.2, PM-level Best-Fit 96.7",
    ),
    Item(
        id="vm_frag_impact_10pm",
        paper="CVD-RL + impact reward and Double DQN at 10 PMs",
        steps=(train("{out}/vm_cvd_frag_impact_10pm", VM_IMPACT, "env_options.num_pms=10", quick=VM_QUICK),
               train("{out}/vm_dqn_frag_10pm", VM_DQN, "iterations=6000", "env_options.num_pms=10", quick=VM_QUICK),
               _curves("vm_frag_10pm_curves", 100, cvd_impact="vm_cvd_frag_impact_10pm", dqn="vm_dqn_frag_10pm")),
        outputs=("vm_cvd_frag_impact_10pm/eval.json", "vm_dqn_frag_10pm/eval.json", "vm_frag_10pm_curves/summary.json"),
        wall_s=480,
        headline="245.6 vs room_fit 251.3, PM-level Best-Fit 218.2; Double DQN 162.2",
    ),
    Item(
        id="vm_frag_impact_20pm",
        paper="CVD-RL + impact reward at 20 PMs (two seeds), unchanged at 50 / 100 PMs",
        steps=(train("{out}/vm_cvd_frag_impact_20pm", VM_IMPACT, quick=VM_QUICK),
               train("{out}/vm_cvd_frag_impact_20pm_seed1", VM_IMPACT, "seeds=[1]", quick=VM_QUICK),
               _curves("vm_frag_20pm_curves", 100, cvd="vm_cvd_frag_20pm", cvd_impact="vm_cvd_frag_impact_20pm",
                       dqn="vm_dqn_frag_20pm"),
               Step("jaxsched.studies.vm_table --env vm-frag --num-pms 50,100 --warm-start 0,0.5 --window 40000 "
                    "--starts 20 --policies first_fit,best_fit,pm_best_fit,room_fit "
                    "--checkpoint {out}/vm_cvd_frag_impact_20pm --out {out}/vm_cvd_frag_impact_20pm_at_n.json",
                    quick=f"{VM_TABLE_QUICK} --window 2000")),
        outputs=("vm_cvd_frag_impact_20pm/eval.json", "vm_cvd_frag_impact_20pm_seed1/eval.json",
                 "vm_frag_20pm_curves/summary.json", "vm_cvd_frag_impact_20pm_at_n.json",
                 "vm_cvd_frag_impact_20pm_at_n.md"),
        wall_s=2350,
        inputs=("{out}/vm_cvd_frag_20pm/metrics.csv", "{out}/vm_dqn_frag_20pm/metrics.csv"),
        needs=("vm_frag_20pm",),
        headline="732.3 (seed 1: 712.7) vs room_fit 728.8, PM-level Best-Fit 592.4",
    ),
    Item(
        id="vm_frag_impact_50pm",
        paper="CVD-RL paper Tables 2-4 shape at 50 PMs: impact reward, Double DQN, 50/100 PMs and expansion",
        steps=(train("{out}/vm_cvd_frag_impact_50pm", VM_IMPACT, "env_options.num_pms=50", quick=VM_QUICK),
               train("{out}/vm_dqn_frag_50pm", VM_DQN, "iterations=6000", "env_options.num_pms=50", quick=VM_QUICK),
               _curves("vm_frag_50pm_curves", 100, cvd_impact="vm_cvd_frag_impact_50pm", dqn="vm_dqn_frag_50pm"),
               Step("jaxsched.studies.vm_table --env vm-frag --num-pms 50,100 --warm-start 0,0.5 --window 40000 "
                    "--starts 20 --policies first_fit,best_fit,pm_best_fit,room_fit "
                    "--checkpoint {out}/vm_cvd_frag_impact_50pm --out {out}/vm_cvd_frag_impact_50pm_at_n.json",
                    quick=f"{VM_TABLE_QUICK} --window 2000"),
               Step("jaxsched.studies.vm_table --env vm-frag --num-pms 110 --warm-start 0,0.5 --window 40000 "
                    "--starts 20 --policies first_fit,best_fit,pm_best_fit,room_fit --option initial_pms=50 "
                    "--option pms_per_expansion=10 --checkpoint {out}/vm_cvd_frag_impact_50pm "
                    "--out {out}/vm_cvd_frag_impact_50pm_expansion.json",
                    quick="--num-pms 20 --warm-start 0 --starts 2 --window 2000 --option initial_pms=10 "
                          "--option pms_per_expansion=5")),
        outputs=("vm_cvd_frag_impact_50pm/eval.json", "vm_dqn_frag_50pm/eval.json", "vm_frag_50pm_curves/summary.json",
                 "vm_cvd_frag_impact_50pm_at_n.json", "vm_cvd_frag_impact_50pm_at_n.md",
                 "vm_cvd_frag_impact_50pm_expansion.json", "vm_cvd_frag_impact_50pm_expansion.md"),
        wall_s=3700,
        headline="2789.9 vs PM-level Best-Fit 2092.0 (+33%), room_fit 3005.6; Double DQN 970.1",
    ),
    Item(
        id="vm_frag_impact_50pm_ws0.5",
        paper="CVD-RL paper Table 2's setting: CVD-RL (impact reward) and Double DQN (SchedRL) trained at 50 PMs with "
              "warm start 0.5; the CVD-RL policy evaluated at warm starts 0-0.6 beside the heuristics (one seed)",
        steps=(train("{out}/vm_cvd_frag_impact_50pm_ws0.5", VM_IMPACT, "env_options.num_pms=50",
                     "env_options.warm_start=0.5", quick=VM_QUICK),
               train("{out}/vm_dqn_frag_50pm_ws0.5", VM_DQN, "iterations=6000", "env_options.num_pms=50",
                     "env_options.warm_start=0.5", quick=VM_QUICK),
               table2_50pm("vm_cvd_frag_impact_50pm_ws0.5", quick=f"{VM_TABLE_QUICK} --window 2000"),
               table2_50pm("vm_dqn_frag_50pm_ws0.5", quick="--warm-start 0 --starts 2 --window 2000")),
        outputs=("vm_cvd_frag_impact_50pm_ws0.5/eval.json", "vm_dqn_frag_50pm_ws0.5/eval.json",
                 "vm_cvd_frag_impact_50pm_ws0.5_table.json", "vm_cvd_frag_impact_50pm_ws0.5_table.md",
                 "vm_dqn_frag_50pm_ws0.5_table.json", "vm_dqn_frag_50pm_ws0.5_table.md"),
        wall_s=880,
        headline="held-out at warm start 0.5: CVD-RL 2447.3 vs PM-level Best-Fit 1782.2 (+37%), room_fit 2697.1 (-9%); "
                 "Double DQN 530.3, below Best-Fit 915.4; at warm starts 0-0.6 CVD-RL is 26-54% above PM-level Best-Fit "
                 "and 7-12% below room_fit; Double DQN at warm starts 0-0.6 844-415, below Best-Fit at each; "
                 "checkpoints not kept",
    ),
    vm_impact_sweep(20, 8, 2460, "8 seeds: IQM 719.4 [705.8, 733.3] vs room_fit 728.8 (3/8 seeds above), PM-level "
                                 "Best-Fit 592.4 (8/8 above); checkpoints not kept (37 MB of replay buffer)"),
    vm_impact_sweep(5, 5, 240, "5 seeds: IQM 115.6 [112.2, 116.8] vs room_fit 114.2 (4/5 seeds above, the CI holds "
                               "room_fit), PM-level Best-Fit 96.7 (5/5 above); checkpoints not kept"),
    vm_impact_sweep(10, 5, 300, "5 seeds: IQM 244.7 [243.0, 248.8] vs room_fit 251.3 (1/5 seeds above), PM-level "
                                "Best-Fit 218.2 (5/5 above); checkpoints not kept"),
    vm_impact_sweep(
        50, 3, 4000,
        "3 seeds at the paper's Table 2 setting: IQM 2486.9 [2420.3, 2526.7] vs PM-level Best-Fit 1782.2 (3/3 above, "
        "+40%), room_fit 2697.1 (0/3, -8%); seed 0 at 100 PMs (Table 3) +17-23% over PM-BF and -5% to +2% vs "
        "room_fit, in expansion (Table 4) -2% / -4% vs room_fit; Tables 2-4 over the 3 seeds: +18-46% over PM-BF, "
        "-12% to +0.5% vs room_fit; Fig. 9: expands when room_fit does, after First-Fit / Best-Fit / PM-BF; "
        "checkpoints not kept", iterations=3000, warm_start="0.5",
        tables=vm_paper_tables("sweep_vm_cvd_frag_impact_50pm_ws0.5"),
        outputs=vm_paper_table_outputs("sweep_vm_cvd_frag_impact_50pm_ws0.5")),
    Item(
        id="vm_cvd_frag_impact_ablation_10pm",
        paper="CVD-RL paper's ablation and k sweep with the impact reward at 10 PMs",
        steps=_vm_runs("vm_cvd_frag_impact_ablation_10pm", VM_IMPACT, {
            "full": "", "no_top_k": "algo_options.top_k=false", "no_decomposition": "algo_options.decomposition=false",
            "no_lookahead": "algo_options.lookahead=false",
            "k3": "algo_options.k_best_fit=1 algo_options.k_pm_best_fit=1",
            "k7": "algo_options.k_best_fit=3 algo_options.k_pm_best_fit=3",
            "k10": "algo_options.k_best_fit=5 algo_options.k_pm_best_fit=4",
            "lambda30": "algo_options.impact_reward=30"}, common="env_options.num_pms=10"),
        outputs=_vm_outputs("vm_cvd_frag_impact_ablation_10pm", ("full", "no_top_k", "no_decomposition",
                                                                  "no_lookahead", "k3", "k7", "k10", "lambda30")),
        wall_s=3936,
        headline="every variant 243-255 greedy vs room_fit 251.3: no operator or k matters",
    ),
    Item(
        id="vm_cvd_frag_impact_ablation_50pm_ws0.5",
        paper="CVD-RL paper's ablations (Figs. 10-11: no top-k, no decomposition, no look-ahead) at its Table 2 "
              "setting, 50 PMs with warm start 0.5, one seed each, beside seed 0 of the 3-seed sweep there",
        steps=_vm_runs("vm_cvd_frag_impact_ablation_50pm_ws0.5", VM_IMPACT, {
            "no_top_k": "algo_options.top_k=false", "no_decomposition": "algo_options.decomposition=false",
            "no_lookahead": "algo_options.lookahead=false"}, common="env_options.num_pms=50 env_options.warm_start=0.5"),
        outputs=_vm_outputs("vm_cvd_frag_impact_ablation_50pm_ws0.5", ("no_top_k", "no_decomposition", "no_lookahead")),
        wall_s=2700,
        headline="seed 0 each: no top-k 2305.5, no decomposition 2529.4, no look-ahead 2487.7 vs the full model's 2420.3-"
                 "2526.7 over 3 seeds (room_fit 2697.1): only the top-k filter matters (-8%); checkpoints not kept",
        note="Trained beside the 3-seed sweep on the 2-core CPU (75 min for the three runs).",
    ),
    Item(
        id="vm_cvd_frag_impact_k_50pm_ws0.5",
        paper="CVD-RL paper's Fig. 12 (k in {3, 5, 7, 10}) and Fig. 11 (BF-Top-5 vs Internal-Top-5; PM-level Best-Fit "
              "stands in for the paper's undisclosed internal scheduler) at its Table 2 setting, 50 PMs with warm "
              "start 0.5, one seed each; room_fit-Top-5 is ours",
        steps=_vm_runs("vm_cvd_frag_impact_k_50pm_ws0.5", VM_IMPACT, CANDIDATE_SETS_50PM,
                       common="env_options.num_pms=50 env_options.warm_start=0.5"),
        outputs=_vm_outputs("vm_cvd_frag_impact_k_50pm_ws0.5", CANDIDATE_SETS_50PM),
        wall_s=4200, estimate=True,
        headline="seed 0 each (full 2 + 3 + 1: 2486.9 over 3 seeds; room_fit 2697.1): k = 3 2532.5, the paper's 2 + 3 "
                 "2261.4, k = 7 2424.6, k = 10 2239.8; BF-Top-5 1718.8 vs Internal-Top-5 2256.4 (Fig. 11 holds), "
                 "room_fit-Top-5 2368.1; smaller sets are better (Fig. 12's k = 5 optimum not reproduced); checkpoints not kept",
        note="Trained two or three at a time on the 2-core CPU (20-35 min per run).",
    ),
    Item(
        id="vm_cvd_frag_impact_k_50pm_ws0.5_seeds",
        paper="CVD-RL paper's Fig. 12 over seeds: k = 3 and the paper's k = 5 (2 + 3) at 50 PMs, warm start 0.5, seeds "
              "1 and 2 (seed 0 of each: vm_cvd_frag_impact_k_50pm_ws0.5)",
        steps=(*_vm_runs("vm_cvd_frag_impact_k_50pm_ws0.5_seeds", VM_IMPACT, K_OVER_SEEDS,
                         common="env_options.num_pms=50 env_options.warm_start=0.5 seeds=[1,2] devices=1"),
               _curves("vm_cvd_frag_impact_k_50pm_ws0.5_seeds/compare", 100,
                       **{name: f"vm_cvd_frag_impact_k_50pm_ws0.5_seeds/{name}" for name in K_OVER_SEEDS})),
        outputs=(*_vm_outputs("vm_cvd_frag_impact_k_50pm_ws0.5_seeds", K_OVER_SEEDS),
                 "vm_cvd_frag_impact_k_50pm_ws0.5_seeds/compare/summary.json"),
        wall_s=2000,
        headline="seeds 0 / 1 / 2: k = 3 2532.5 / 2428.6 / 2677.9 (mean 2546.3), the paper's k = 5 2261.4 / 2249.0 / "
                 "2349.8 (2286.7): k = 3 above k = 5 on every seed (+11%); room_fit 2697.1; every episode ended",
        note="The two runs trained side by side on the 2-core CPU, one device each; checkpoints not kept.",
    ),
    Item(
        id="vm_rollout_improvement",
        paper="one exact step of policy improvement over room_fit (headroom for a learned value)",
        steps=(Step("jaxsched.studies.vm_rollout --num-pms 5 --starts-from {out}/vm_cvd_frag_impact_10pm/eval.json "
                    "--out {out}/vm_rollout_improvement.json",
                    quick_command="jaxsched.studies.vm_rollout --num-pms 5 --starts 2 "
                                  "--out {out}/vm_rollout_improvement.json"),
               Step("jaxsched.studies.vm_rollout --num-pms 5,10 --cvd-k 2,3,1 "
                    "--starts-from {out}/vm_cvd_frag_impact_10pm/eval.json "
                    "--out {out}/vm_rollout_improvement_cvd_k.json",
                    quick_command="jaxsched.studies.vm_rollout --num-pms 5 --cvd-k 2,3,1 --starts 2 "
                                  "--out {out}/vm_rollout_improvement_cvd_k.json")),
        outputs=("vm_rollout_improvement.json", "vm_rollout_improvement_cvd_k.json"),
        wall_s=1168,
        inputs=("{out}/vm_cvd_frag_impact_10pm/eval.json",), needs=("vm_frag_impact_10pm",),
        headline="+17% over room_fit at 5 PMs (134.0 vs 114.2), +22% at 10 PMs (305.7 vs 251.3)",
    ),
    Item(
        id="vm_planner",
        paper="decision-time planning (the rollout step over CVD-RL's candidates, base room_fit) on held-out start "
              "points from a trace range disjoint from training's",
        steps=(Step("jaxsched.studies.vm_planner --env vm-frag --num-pms 10 --starts 50 --held-out-from 7000 "
                    "--out {out}/vm_planner_10pm.json",
                    quick_command="jaxsched.studies.vm_planner --env vm-frag --num-pms 5 --starts 2 "
                                  "--held-out-from 7000 --out {out}/vm_planner_10pm.json"),
               Step("jaxsched.studies.vm_planner --env vm-frag --num-pms 20 --starts 10 --held-out-from 7000 "
                    "--out {out}/vm_planner_20pm.json",
                    quick_command="jaxsched.studies.vm_planner --env vm-frag --num-pms 5 --starts 2 "
                                  "--held-out-from 7000 --out {out}/vm_planner_20pm.json")),
        outputs=("vm_planner_10pm.json", "vm_planner_20pm.json"),
        wall_s=1100,
        headline="planner / room_fit IQM 1.126 [1.076, 1.210] at 10 PMs (50 starts), 1.097 [1.027, 1.174] at 20 PMs "
                 "(10 starts); better on every start; 9.4 / 58.5 s per episode on CPU",
    ),
    Item(
        id="vm_distill",
        paper="issue 18's expert iteration: the planner distilled into a learned placer that sees only the "
              "observation, on the planner's held-out starts",
        steps=(distill_step("rounds2", "--rounds 2"),
               distill_step("departure20", "--rounds 1 --departure-weight 20"),
               distill_step("departure200", "--rounds 1 --departure-weight 200")),
        outputs=("vm_distill/rounds2.json", "vm_distill/departure20.json", "vm_distill/departure200.json"),
        wall_s=1867,
        headline="negative: learned / room_fit IQM 1.000 at 10 and 20 PMs (5 seeds, CIs contain 1); the planner "
                 "leaves room_fit at ~1% of decisions and the observation predicts 8-28% of those",
    ),
    # ---- Grid site (SARSA + ESN) --------------------------------------------------------------------
    Item(
        id="grid_runs",
        paper="grid paper (SARSA + ESN): rigid oracle/estimated and elastic training runs",
        steps=(train("{out}/grid_esn_oracle", "configs/grid_sarsa_esn.yaml", quick=GRID_QUICK),
               train("{out}/grid_esn_estimated", "configs/grid_sarsa_esn.yaml", "env_options.runtime_model=estimated",
                     quick=GRID_QUICK),
               train("{out}/grid_elastic_esn_l0.5", "configs/grid_elastic_esn.yaml", quick=GRID_QUICK),
               train("{out}/grid_elastic_esn_l1.0", "configs/grid_elastic_esn.yaml", "env_options.weight=1.0",
                     quick=GRID_QUICK)),
        outputs=("grid_esn_oracle/eval.json", "grid_esn_estimated/eval.json", "grid_elastic_esn_l0.5/eval.json",
                 "grid_elastic_esn_l1.0/eval.json"),
        wall_s=1677,
        note="Checkpoints are not committed (13 MB each); grid_tables retrains when they are missing.",
        headline="see grid_tables",
    ),
    Item(
        id="grid_tables",
        paper="grid paper Tables 2-5 and Figs. 6-9 analogues",
        steps=(Step(GRID_TABLES, quick="--episodes 1 --option num_jobs=300 --option exclude=20"),),
        outputs=("grid/grid_tables.json", "grid/grid_tables.md", "grid/grid_fairness.png", "grid/grid_elastic_pool.png",
                 "grid/grid_elastic_utilisation.png"),
        wall_s=600, estimate=True,
        inputs=("{out}/grid_esn_oracle/checkpoints", "{out}/grid_esn_estimated/checkpoints",
                "{out}/grid_elastic_esn_l0.5/checkpoints", "{out}/grid_elastic_esn_l1.0/checkpoints"),
        needs=("grid_runs",),
        headline="rigid W int: SARSA-ESN 0.717 / 0.760 vs FIFO 0.659, SJF 0.805; elastic not reproduced (0.31)",
    ),
    Item(
        id="bench_grid",
        paper="grid env decisions/s against a heapq simulator",
        steps=(Step("jaxsched.bench grid --out {out}/bench_grid.json", quick="--batches 1 --jobs 20 --repeats 1"),),
        outputs=("bench_grid.json", "bench_grid.md"),
        wall_s=300, estimate=True,
        headline="batch 1024: 0.41 M decisions/s, 0.53x the Python simulator",
    ),
    Item(
        id="grid_lublin",
        paper="grid heuristics on Lublin-256 windows (a real trace)",
        steps=(Step("jaxsched.studies.grid_tables --episodes 4 --swf dataset:lublin-256 --option multi_core=split "
                    "--option num_cores=256 --option num_jobs=2000 --option exclude=200 --option candidates=per_class "
                    "--skip-elastic --out {out}/grid_lublin",
                    quick="--episodes 1 --option num_jobs=200 --option exclude=20"),),
        outputs=("grid_lublin/grid_tables.json", "grid_lublin/grid_tables.md", "grid_lublin/grid_fairness.png"),
        wall_s=300, estimate=True,
        headline="W int: FIFO 0.437, EDF 0.472, SJF 0.469, fair-share 0.472",
    ),
]

BY_ID = {item.id: item for item in ITEMS}
