"""The grid site items (SARSA + ESN), bench_grid among them.
"""

from __future__ import annotations

import functools

from jaxsched.reproduction.items import GRID_QUICK, Item, Step, rounded, train, with_prose
from jaxsched.reproduction.numbers import Number, NumberError, at, computed, given, json_value


GRID_TABLES = ("jaxsched.studies.grid_tables --episodes 8 --seed 12345 "
               "--run rig-ora={out}/grid_esn_oracle --run rig-est={out}/grid_esn_estimated "
               "--run rig-ora-l1={out}/grid_esn_oracle_l1.0 --run rig-est-l1={out}/grid_esn_estimated_l1.0 "
               "--run rig-ora-it60={out}/grid_esn_oracle@60 --run rig-ora-rest={out}/grid_esn_oracle_from_rest "
               "--out {out}/grid")
# The elastic runs (the paper's Table 4 / 5 names): (their numbers' key, run folder, overrides, the rigid row each is
# compared with in Table 5's speed-up). These first runs gave Q the chosen pool size as one number (size / 81,
# ``size_input=scalar``); configs/grid_elastic_esn.yaml now gives it one-hot (GRID_ELASTIC_ONEHOT below, the main
# rows of the headline), so each names its input.
SCALAR = "algo_options.size_input=scalar"
ONE_HOT = "algo_options.size_input=one_hot"
GRID_ELASTIC_RUNS = {"ela-ora-0.5": ("ela_ora", "grid_elastic_esn_oracle", (SCALAR,), "rig-ora"),
                     "ela-ora-1": ("ela_ora_l1", "grid_elastic_esn_oracle_l1.0", ("env_options.weight=1.0", SCALAR),
                                   "rig-ora-l1"),
                     "ela-est-0.5": ("ela_est", "grid_elastic_esn_estimated",
                                     ("env_options.runtime_model=estimated", SCALAR), "rig-est"),
                     "ela-est-1": ("ela_est_l1", "grid_elastic_esn_estimated_l1.0",
                                   ("env_options.runtime_model=estimated", "env_options.weight=1.0", SCALAR),
                                   "rig-est-l1")}
# ablations of ela-ora-0.5 for the elastic gap (issue 51): (their numbers' key, run folder, overrides, the rigid run of
# their speed-up: ela-ora-0.5's)
GRID_ELASTIC_ABLATIONS = {
    "ela-ora-0.5-g0.95": ("abl_gamma", "grid_elastic_esn_oracle_gamma0.95", (SCALAR, "algo_options.gamma=0.95"),
                          "rig-ora"),
    "ela-ora-0.5-warm-qp": ("abl_warm_qp", "grid_elastic_esn_oracle_warm_qp",
                            (SCALAR, "algo_options.warm_start_policy=queue_proportional"), "rig-ora"),
    "ela-ora-0.5-onehot": ("abl_onehot", "grid_elastic_esn_oracle_onehot", (ONE_HOT,), "rig-ora"),
    # the budget: three times the iterations (the paper trains online and states none)
    "ela-ora-0.5-onehot-it240": ("abl_it240", "grid_elastic_esn_oracle_onehot_it240", (ONE_HOT, "iterations=240"),
                                 "rig-ora"),
}
# the one-hot pool-size input (the ablation that closed most of the gap, now the config's default) in the paper's
# three other settings
GRID_ELASTIC_ONEHOT = {
    "ela-ora-1-onehot": ("oh_ora_l1", "grid_elastic_esn_oracle_l1.0_onehot", ("env_options.weight=1.0", ONE_HOT),
                         "rig-ora-l1"),
    "ela-est-0.5-onehot": ("oh_est", "grid_elastic_esn_estimated_onehot",
                           ("env_options.runtime_model=estimated", ONE_HOT), "rig-est"),
    "ela-est-1-onehot": ("oh_est_l1", "grid_elastic_esn_estimated_l1.0_onehot",
                         ("env_options.runtime_model=estimated", "env_options.weight=1.0", ONE_HOT), "rig-est-l1"),
}
_ELASTIC_ALL = {**GRID_ELASTIC_RUNS, **GRID_ELASTIC_ABLATIONS, **GRID_ELASTIC_ONEHOT}  # name: (key, run folder, overrides, ...)
_ELASTIC_RUN_FOLDERS = {name: run for name, (_, run, *_) in _ELASTIC_ALL.items()}
GRID_ELASTIC_TABLES = ("jaxsched.studies.grid_tables --episodes 8 --seed 12345 "
                       + " ".join(f"--run {name}={{out}}/{run}" for name, run in _ELASTIC_RUN_FOLDERS.items())
                       + " " + " ".join(f"--speedup {name}={rigid}" for name, (*_, rigid) in _ELASTIC_ALL.items())
                       + " --rigid-rows {out}/grid/grid_tables.json --out {out}/grid_elastic")
GRID_Q_SIZES = ("jaxsched.studies.grid_q_sizes --decisions 400 --seed 12345 "
                + " ".join(f"--run {name}={{out}}/{run}" for name, run in _ELASTIC_RUN_FOLDERS.items())
                + " --out {out}/grid_elastic")
GRID_RIGID_RUNS = ("grid_esn_oracle", "grid_esn_estimated", "grid_esn_oracle_l1.0", "grid_esn_estimated_l1.0",
                   "grid_esn_oracle_from_rest")


def grid_seed_interval(policy: str, file: str = "grid/grid_tables.json") -> Number:
    """The interval over seeds of a learner's interactive W in a grid_tables file (``policy``: "rigid/rig-ora"):
    ``[low, high]`` (its CI) over >= 5 seeds, else ``[range low, high]`` (with 3 seeds the file's CI bounds are
    the seeds' extremes)."""
    def read(root) -> str:
        over = json_value(root, file, f"{policy}/interactive_W_over_seeds")
        text = f"{over['ci_low']:.3f}, {over['ci_high']:.3f}"
        return f"[{text}]" if over["n"] >= 5 else f"[range {text}]"
    return Number(file, read)


def _speedups(names) -> Number:
    """The queue-delay speed-ups of elastic runs ``names`` over their rigid pairs, "a% / b% / ..."."""
    return Number("grid_elastic/grid_tables.json", lambda root: " / ".join(
        f"{100 * json_value(root, 'grid_elastic/grid_tables.json', f'speedup/{name}/speedup'):.0f}%" for name in names))


def _bench_grid_1024(root, table: str = "rows") -> dict:
    """bench_grid.json's row at batch 1024 (``table``: "rows", FIFO vs heapq; "reference_rows", the RL loop)."""
    rows = [r for r in json_value(root, "bench_grid.json", table) if r["batch"] == 1024]
    if len(rows) != 1:
        raise NumberError(f"bench_grid.json: {len(rows)} rows at batch 1024")
    return rows[0]


ITEMS: list[Item] = [
    # ---- Grid site (SARSA + ESN) --------------------------------------------------------------------
    Item(
        id="grid_runs",
        paper="grid paper (SARSA + ESN): rigid training runs, oracle / estimated runtimes, λ_s = 0.5 / 1 (issue 51: "
              "5 seeds, the whole queue as candidates, the ESN carrying its state; and the from-rest ESN ablation, "
              "esn_memory: false)",
        steps=(train("{out}/grid_esn_oracle", "configs/grid_sarsa_esn.yaml", quick=GRID_QUICK),
               train("{out}/grid_esn_estimated", "configs/grid_sarsa_esn.yaml", "env_options.runtime_model=estimated",
                     quick=GRID_QUICK),
               train("{out}/grid_esn_oracle_l1.0", "configs/grid_sarsa_esn.yaml", "env_options.weight=1.0",
                     quick=GRID_QUICK),
               train("{out}/grid_esn_estimated_l1.0", "configs/grid_sarsa_esn.yaml", "env_options.runtime_model=estimated",
                     "env_options.weight=1.0", quick=GRID_QUICK),
               train("{out}/grid_esn_oracle_from_rest", "configs/grid_sarsa_esn.yaml", "algo_options.esn_memory=false",
                     quick=GRID_QUICK)),
        outputs=tuple(f"{run}/metrics.csv" for run in GRID_RIGID_RUNS),
        wall_s=10400,
        note="Checkpoints are not committed (~60 MB per run); grid_tables retrains when they are missing. The "
             "held-out evaluation is grid_tables' (eval_jobsets: 0); the elastic runs are grid_elastic's. wall_s: the five "
             "runs summed, on a shared 2-core CPU (the from-rest run, ~60 min, on a busier one).",
        headline="see grid_tables",
    ),
    Item(
        id="grid_tables",
        paper="grid paper Tables 2-5 and Figs. 6-9 analogues",
        # quick: the quick runs keep checkpoints 1 and 2 only, so the budget row reads iteration 1
        steps=(Step(GRID_TABLES, quick_command=GRID_TABLES.replace("@60", "@1")
                    + " --episodes 1 --option num_jobs=300 --option exclude=20"),),
        outputs=("grid/grid_tables.json", "grid/grid_tables.md", "grid/grid_fairness.png", "grid/grid_elastic_pool.png",
                 "grid/grid_elastic_utilisation.png", "grid/grid_W_icdf.png", "grid/grid_wait_cdf.png"),
        wall_s=2500, estimate=True,  # 2100 for five runs, plus one run's share for the from-rest run
        inputs=tuple(f"{{out}}/{run}/checkpoints" for run in GRID_RIGID_RUNS),
        needs=("grid_runs",),
        headline="rigid W int, 5 seeds: SARSA-ESN IQM {oracle} {oracle_interval} (oracle) / {estimated} "
                 "{estimated_interval} (estimated) vs FIFO {fifo}, EDF {edf}, SJF {sjf}; elastic: grid_elastic",
        numbers={**{key: at("grid/grid_tables.json", f"rigid/{policy}/interactive_W_over_seeds/iqm")
                    for key, policy in (("oracle", "rig-ora"), ("estimated", "rig-est"), ("oracle_l1", "rig-ora-l1"),
                                        ("estimated_l1", "rig-est-l1"), ("it60", "rig-ora-it60"),
                                        ("from_rest", "rig-ora-rest"))},
                 **{key: at("grid/grid_tables.json", f"rigid/{policy}/interactive_W_mean")
                    for key, policy in (("fifo", "fifo"), ("sjf", "sjf"))},
                 **{f"{policy}_over_09": at("grid/grid_tables.json", f"rigid/{policy}/interactive_W_over_0.9")
                    for policy in ("rig-ora", "sjf", "fifo")},
                 "oracle_under_120s": at("grid/grid_tables.json", "rigid/rig-ora/interactive_wait_under_120s"),
                 **{f"{key}_2": at("grid/grid_tables.json", f"rigid/{policy}/interactive_W_over_seeds/iqm", ".2f")  # prose
                    for key, policy in (("oracle", "rig-ora"), ("estimated", "rig-est"))},
                 **{f"{key}_2": at("grid/grid_tables.json", f"rigid/{key}/interactive_W_mean", ".2f")
                    for key in ("fifo", "sjf", "edf")},
                 "edf": at("grid/grid_tables.json", "rigid/edf/interactive_W_mean"),
                 **{f"{key}_interval": grid_seed_interval(f"rigid/{policy}")
                    for key, policy in (("oracle", "rig-ora"), ("estimated", "rig-est"), ("oracle_l1", "rig-ora-l1"),
                                        ("estimated_l1", "rig-est-l1"), ("it60", "rig-ora-it60"),
                                        ("from_rest", "rig-ora-rest"))}},
    ),
    Item(
        id="grid_elastic",
        paper="grid paper Table 4 / Figs. 8-9 (elastic: W, pool, utilisation) and Table 5 / Fig. 10 (queue-delay "
              "speed-up over rigid), oracle and estimated runtimes, λ_e = 0.5 / 1, with the pool size a one-hot "
              "input (the config's default) and, the first runs, one number (size / 81); two ablations of the latter "
              "(γ, the warm start's teacher)",
        steps=(*(train(f"{{out}}/{run}", "configs/grid_elastic_esn.yaml", *overrides, quick=GRID_QUICK)
                 for _, run, overrides, *_ in _ELASTIC_ALL.values()),
               Step(GRID_ELASTIC_TABLES, quick_command=GRID_ELASTIC_TABLES
                    + " --episodes 1 --option num_jobs=300 --option exclude=20"),
               Step(GRID_Q_SIZES, quick="--decisions 20")),
        outputs=(*(f"{run}/metrics.csv" for run in _ELASTIC_RUN_FOLDERS.values()),
                 *(f"grid_elastic/{name}" for name in ("grid_tables.json", "grid_tables.md", "grid_fairness.png",
                                                       "grid_elastic_pool.png",
                                                       "grid_elastic_utilisation.png", "grid_W_icdf.png",
                                                       "grid_wait_cdf.png", "q_over_sizes.json"))),
        wall_s=31860,
        inputs=("{out}/grid/grid_tables.json",),
        needs=("grid_tables",),
        note="The rigid rows of Table 5 are grid_tables' (--rigid-rows: same windows, its heuristic rows checked "
             "equal). factored_q (the elastic config) scores the 2048 x 11 actions per decision on a CPU. wall_s: the "
             "eleven runs' training (22520 s summed from their metrics.csv, on a 2-core CPU shared with 1-4 other "
             "jobs; two runs partly paused; the 240-iteration run is the 80-iteration one-hot run resumed from a copy, "
             "its first 80 iterations counted as a fresh run pays them) and their evaluations (~34 min for the first "
             "three; ~65 min for the next three, evaluated side by side into --cache runs/grid_el/cache; 5-7 min each "
             "for the five one-hot runs) and the final study (22 min reading six runs from the cache; 44 s on "
             "2026-11-30 with every row cached; q_sizes 57 s).",
        headline="elastic W int, 5 seeds, SARSA-ESN with the pool size a one-hot input (the config's default): IQM "
                 "{abl_onehot} {abl_onehot_interval} (oracle) / {oh_est} {oh_est_interval} (estimated) / {oh_ora_l1} "
                 "{oh_ora_l1_interval} (oracle, W only) / {oh_est_l1} {oh_est_l1_interval} (estimated, W only), mean pool "
                 "{onehot_pool} cores (oracle), vs fixed 81 cores {fixed_81}, 120 {fixed_120}, and with SJF jobs 90 "
                 "{fixed_90_sjf}, 120 {fixed_120_sjf} (paper {paper}); queue-delay "
                 "speed-up over the rigid runs {onehot_speedups} (paper 45% / 73% / 58% / 64%); with the size as one "
                 "number (size / 81, the first runs): {ela_ora} {ela_ora_interval} / {ela_est} {ela_est_interval} / "
                 "{ela_ora_l1} {ela_ora_l1_interval} / {ela_est_l1} {ela_est_l1_interval}, speed-ups {speedups}; "
                 "ablations of that run: γ 0.95 {abl_gamma}, warm start from queue_proportional {abl_warm_qp}; the one-hot "
                 "oracle run at 3x the iterations (240): {abl_it240} {abl_it240_interval} (speed-up {it240_speedup})",
        numbers={**{key: at("grid_elastic/grid_tables.json", f"elastic/{name}/interactive_W_over_seeds/iqm")
                    for name, (key, *_) in _ELASTIC_ALL.items()},
                 **{f"{key}_interval": grid_seed_interval(f"elastic/{name}", "grid_elastic/grid_tables.json")
                    for name, (key, *_) in _ELASTIC_ALL.items()},
                 **{policy: at("grid_elastic/grid_tables.json", f"elastic/{policy}/interactive_W_mean")
                    for policy in ("fixed_81", "fixed_120", "fixed_90_sjf", "fixed_120_sjf")},
                 "paper": given("0.96", "../shared/spec/grid.md (the paper's elastic interactive W, 0.958-0.971)"),
                 "onehot_pool": at("grid_elastic/grid_tables.json", "elastic/ela-ora-0.5-onehot/mean_pool", ".0f"),
                 "onehot_speedup": at("grid_elastic/grid_tables.json", "speedup/ela-ora-0.5-onehot/speedup", ".0%"),
                 "it240_speedup": at("grid_elastic/grid_tables.json", "speedup/ela-ora-0.5-onehot-it240/speedup", ".0%"),
                 "speedups": _speedups(GRID_ELASTIC_RUNS),
                 "onehot_speedups": _speedups(("ela-ora-0.5-onehot", *GRID_ELASTIC_ONEHOT))},
    ),
    Item(
        id="bench_grid",
        paper="grid env decisions/s against a heapq simulator",
        steps=(Step("jaxsched.bench grid --out {out}/bench_grid.json", quick="--batches 1 --jobs 20 --repeats 1"),),
        outputs=("bench_grid.json", "bench_grid.md"),
        wall_s=35,
        headline="batch 1024 on one core: the env {rate} M decisions/s, {ratio}x a FIFO-only heapq simulator, "
                 "{rl_ratio}x a Python RL loop (observation + policy call per decision); the FIFO-only JAX simulator "
                 "(closed-form FIFO, starts equal to the env's) {fast_rate} M decisions/s, {fast_ratio}x the heapq one",
        numbers={"rate": computed("bench_grid.json", lambda root: _bench_grid_1024(root)["jax_decisions_per_s"] / 1e6,
                                  ".2f"),
                 "ratio": computed("bench_grid.json", lambda root: _bench_grid_1024(root)["ratio"], ".2f"),
                 "rl_ratio": computed("bench_grid.json", lambda root: _bench_grid_1024(root, "reference_rows")["ratio"],
                                      ".2f"),
                 "fast_rate": computed("bench_grid.json",
                                       lambda root: _bench_grid_1024(root)["fast_decisions_per_s"] / 1e6, ".1f"),
                 "fast_ratio": computed("bench_grid.json", lambda root: _bench_grid_1024(root)["fast_ratio"], ".1f")},
    ),
    Item(
        id="grid_lublin",
        paper="grid heuristics on Lublin-256 windows (a real trace)",
        steps=(Step("jaxsched.studies.grid_tables --episodes 4 --swf dataset:lublin-256 --option multi_core=split "
                    "--option num_cores=256 --option num_jobs=2000 --option exclude=200 "
                    "--skip-elastic --out {out}/grid_lublin",
                    quick="--episodes 1 --option num_jobs=200 --option exclude=20"),),
        outputs=("grid_lublin/grid_tables.json", "grid_lublin/grid_tables.md", "grid_lublin/grid_fairness.png",
                 "grid_lublin/grid_W_icdf.png", "grid_lublin/grid_wait_cdf.png"),
        wall_s=14,
        headline="W int: FIFO {fifo}, EDF {edf}, SJF {sjf}, fair-share {fairshare}",
        numbers={policy: at("grid_lublin/grid_tables.json", f"rigid/{policy}/interactive_W_mean")
                 for policy in ("fifo", "edf", "sjf", "fairshare")},
    ),
]


_HEADLINED = {item.id: item for item in ITEMS}
_rounded = functools.partial(rounded, _HEADLINED)


PROSE: dict[str, dict[str, Number]] = {  # numbers the prose pages quote beside the headlines'
    "grid_tables": {"seeds": at("grid/grid_tables.json", "rigid/rig-ora/interactive_W_over_seeds/n", ".0f"),
                    "paper_elastic": given("0.96", "../shared/spec/grid.md (the paper's elastic interactive W, "
                                                   "0.958-0.971)")},
    "bench_grid": _rounded("bench_grid", "rate", fmt=".1f", suffix="_r1"),
    "grid_elastic": {f"{key}_2": at("grid_elastic/grid_tables.json", f"elastic/{name}/interactive_W_over_seeds/iqm",
                                    ".2f") for name, key in (("ela-ora-0.5", "ela_ora"), ("ela-ora-0.5-onehot", "abl_onehot"))},
}
ITEMS = with_prose(ITEMS, PROSE)
