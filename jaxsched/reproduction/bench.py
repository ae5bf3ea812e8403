"""The bench_* items (``python -m jaxsched.bench``; the docs' Speed page), except the VM and grid families'
own (in :mod:`~jaxsched.reproduction.vm` and :mod:`~jaxsched.reproduction.grid`, where the index lists them).
"""

from __future__ import annotations

import functools

from jaxsched.reproduction.items import H200, Item, Step, rounded, with_prose
from jaxsched.reproduction.numbers import Number, NumberError, at, computed, json_value


def _decision_rate(root, file: str) -> float:
    """Decisions per second of a bench train file's one row (decisions per iteration / median seconds)."""
    row = json_value(root, file, "rows/0")
    return row["decisions_per_iteration"] / row["seconds_per_iteration_median"]


def _call_ratios(root) -> list[float]:
    """bench_env's one-step-per-Python-call ratios of the DeepRM and VM families."""
    return [r["ratio"] for r in json_value(root, "bench_env.json", "rows")
            if r["family"] in ("deeprm", "vm") and r["workload"].endswith("one step per Python call")]


def _one_row(root, file: str, **match) -> dict:
    """The one row of a bench file's ``rows`` whose columns equal ``match`` (an error names the file otherwise)."""
    rows = [r for r in json_value(root, file, "rows") if all(r.get(k) == v for k, v in match.items())]
    if len(rows) != 1:
        raise NumberError(f"{file}: {len(rows)} rows with {match}")
    return rows[0]


def _bench_row(file: str, key: str = "ratio", fmt: str = ".1f", **match) -> Number:
    """``key`` (``a/b`` reads a nested field) of the one row of ``file``'s ``rows`` whose columns equal ``match``."""
    def value(root) -> float:
        field = _one_row(root, file, **match)
        for part in key.split("/"):
            field = field[part]
        return float(field)
    return computed(file, value, fmt)


def _vector_split(family: str, size: int, part: str) -> Number:
    """bench_vector_split's microseconds per call of ``part`` (policy, step, read) in the N = 64 row."""
    return _bench_row("bench_vector_split.json", f"jaxsched_us_per_call/{part}", ",.0f", family=family, size=size,
                      copies=64)


def _sb3_row(root, side: str, cores: int, file: str = "bench_train_sb3.json") -> dict:
    """The ``side`` ("sb3", "jaxsched") row of a train-sb3 bench file at ``cores``."""
    return _one_row(root, file, side=side, cores=cores)


def _sb3_ratio(root, cores: int) -> float:
    return _sb3_row(root, "jaxsched", cores)["decisions_per_s"] / _sb3_row(root, "sb3", cores)["decisions_per_s"]


BENCH_GPU = "bench_gpu_h200/bench_gpu.json"


def _gpu(workload: str, batch: int, key: str = "steps_per_s", fmt: str = ".1f", scale: float = 1e-6) -> Number:
    """``key`` (times ``scale``) of bench gpu's env row of ``workload`` at ``batch``."""
    def value(root) -> float:
        rows = [r for r in json_value(root, BENCH_GPU, "env_rows") if r["workload"] == workload and r["batch"] == batch]
        if len(rows) != 1:
            raise NumberError(f"{BENCH_GPU}: {len(rows)} env rows of {workload!r} at batch {batch}")
        return float(rows[0][key]) * scale
    return computed(BENCH_GPU, value, fmt)


ITEMS: list[Item] = [
    Item(
        id="bench_env",
        paper="environment steps/s beside the reference simulators (DeepRM, sched-rl-gym, VMAgent), same jobs, one run",
        steps=(Step("jaxsched.bench env --family deeprm,compact,vm --sizes 10,20,50 --loads 1.3,0.7 "
                    "--pms 20,50,100,200 --out {out}/bench_env.json",
                    quick="--sizes 5 --loads 1.3 --pms 20 --quick"),),
        outputs=("bench_env.json", "bench_env.md", "bench_env_scaling.png"),
        wall_s=1399,
        headline="equal cores, public env.step: DeepRM, batch 1024 on 2 cores vs the reference in 2 processes, load "
                 "1.3: image {image10}x / {image20}x / {image50}x at M = 10 / 20 / 50 (built and read alone: {ceiling10}x "
                 "/ {ceiling20}x / {ceiling50}x), no observation {none10}x / {none20}x / {none50}x; VM First-Fit at 50 "
                 "PMs {vm50}x; vector env, 64 copies per call, one core each: DeepRM M = 10 {vec_deeprm10_64}x, "
                 "VM {vec_vm50_64}x",
        numbers={**{f"{name}{m}": _bench_row("bench_env.json", fmt=".2f" if name == "call" else ".1f", family="deeprm",
                                             size=m, load=1.3, workload=workload)
                    for m in (10, 20, 50) for name, workload in (
                        ("image", "image, batch 1024"), ("none", "no observation, batch 1024"),
                        ("ceiling", "ceiling: image built and read, no dynamics, batch 1024"),
                        ("batch1_", "image, batch 1"), ("call", "image, one step per Python call"))},
                 "compact_call": _bench_row("bench_env.json", fmt=".2f", family="compact",
                                            workload="compact state, one step per Python call"),
                 "vm200_call": _bench_row("bench_env.json", fmt=".2f", family="vm", size=200,
                                          workload="First-Fit, one step per Python call"),
                 "call_low": computed("bench_env.json", lambda root: min(_call_ratios(root)), ".2f"),
                 "call_high": computed("bench_env.json", lambda root: max(r for r in _call_ratios(root) if r < 1),
                                       ".2f"),
                 "vm50": _bench_row("bench_env.json", fmt=".0f", family="vm", size=50, workload="First-Fit, batch 1024")},
    ),
    Item(
        id="bench_public_step",
        paper="the public gymnax env.step (vmapped, auto-reset) against the internal transition + restart, one XLA "
              "device, same episodes checked bit for bit first (issue 52 item 0: within 1.1x)",
        steps=(Step("jaxsched.bench public-step --batch 256 --repeats 7 --out {out}/bench_public_step.json",
                    quick="--batch 4 --steps 5 --repeats 1 --window 0.05"),),
        outputs=("bench_public_step.json",),
        wall_s=96,
        headline="internal / public steps/s: DeepRM M = 10 {deeprm10}, M = 50 {deeprm50}, VM 50 PMs {vm50}, grid {grid} "
                 "(above 1: the public step is slower)",
        numbers={name: _bench_row("bench_public_step.json", "ratio", ".3f", row=row)
                 for name, row in (("deeprm10", "deeprm-10"), ("deeprm50", "deeprm-50"), ("vm50", "vm-50"),
                                   ("grid", "grid"))},
    ),
    Item(
        id="bench_train_sb3",
        paper="BRACIS'21's own stack: SB3 PPO (torch) on sched-rl-gym's compact env against jaxsched's PPO, same "
              "scenario and hyper-parameters (configs/mdp_ppo_compact.yaml), decisions/s with the updates, both sides "
              "pinned to the same cores (issue 52 item 3; goal >= 100x); then jaxsched with one update epoch "
              "instead of 10 (what the updates cost)",
        steps=(Step("jaxsched.bench train-sb3 --cores 1,2 --out {out}/bench_train_sb3.json",
                    quick="--cores 1 --sb3-decisions 1600 --jax-decisions 3200"),
               Step("jaxsched.bench train-sb3 --rows jaxsched --cores 1 --out {out}/bench_train_sb3_one_epoch.json "
                    "algo_options.update_epochs=1", quick="--jax-decisions 3200")),
        outputs=("bench_train_sb3.json", "bench_train_sb3_one_epoch.json"),
        wall_s=180,
        headline="jaxsched / SB3 decisions/s with updates: {ratio1}x on one core, {ratio2}x on two (goal 100x); the "
                 "paper's 3M decisions: {sb3_hours} h SB3 vs {jax_minutes} min jaxsched (one core, extrapolated); "
                 "one update epoch instead of 10: {one_epoch}x faster jaxsched",
        numbers={**{f"ratio{cores}": computed("bench_train_sb3.json", functools.partial(_sb3_ratio, cores=cores), ".1f")
                    for cores in (1, 2)},
                 "sb3_hours": computed("bench_train_sb3.json", lambda root: _sb3_row(root, "sb3", 1)[
                     "hours_for_paper_decisions_extrapolated"], ".2f"),
                 "jax_minutes": computed("bench_train_sb3.json", lambda root: 60 * _sb3_row(root, "jaxsched", 1)[
                     "hours_for_paper_decisions_extrapolated"], ".1f"),
                 "one_epoch": computed("bench_train_sb3_one_epoch.json", lambda root: _sb3_row(
                     root, "jaxsched", 1, "bench_train_sb3_one_epoch.json")["decisions_per_s"] / _sb3_row(
                     root, "jaxsched", 1)["decisions_per_s"], ".1f")},
    ),
    Item(
        id="bench_vector_split",
        paper="the vector-env rows at N = 64 taken apart (issue 52 item 2): what a call of make_vec's env costs in the "
              "Python policy, the jitted step and the read of the observation, beside the reference",
        steps=(Step("jaxsched.bench env --family deeprm,compact,vm --vector-only --vector-sizes 64 --loads 1.3 "
                    "--vector-slots 10,50 --vector-pms 50 --out {out}/bench_vector_split.json",
                    quick="--vector-sizes 2 --vector-slots 5 --quick"),),
        outputs=("bench_vector_split.json", "bench_vector_split.md"),
        wall_s=124,
        headline="N = 64, us per call (policy / env step / read): DeepRM M = 10 {deeprm10_policy} / {deeprm10_step} / "
                 "{deeprm10_read}, M = 50 {deeprm50_policy} / {deeprm50_step} / {deeprm50_read}; VM 50 PMs "
                 "{vm50_policy} / {vm50_step} / {vm50_read}",
        numbers={f"{family}{size}_{part}": _vector_split(family, size, part)
                 for family, size in (("deeprm", 10), ("deeprm", 50), ("compact", 10), ("vm", 50))
                 for part in ("policy", "step", "read")},
    ),
    Item(
        id="bench_dispatch",
        paper="one env step per Python call taken apart: XLA:CPU's per-execution cost against the step's own",
        steps=(Step("jaxsched.bench dispatch --sizes 10,20,50 --out {out}/bench_dispatch.json",
                    quick="--sizes 5 --calls 20 --repeats 1"),),
        outputs=("bench_dispatch.json",),
        wall_s=44,
        headline="DeepRM M = 10: one packed step {call} us per Python call, {scan} us inside a scan; {thunks} thunks",
        numbers={"call": _bench_row("bench_dispatch.json", "us_per_call", ".0f", program="DeepRM M=10: whole step"),
                 "scan": _bench_row("bench_dispatch.json", "us_per_call", ".1f",
                                    program="DeepRM M=10: whole step, per step of a scan"),
                 "thunks": _bench_row("bench_dispatch.json", "thunks", ".0f", program="DeepRM M=10: whole step"),
                 "call_one_core": _bench_row("bench_dispatch.json", "us_per_call_one_core", ".0f",
                                             program="DeepRM M=10: whole step"),
                 "pack": _bench_row("bench_dispatch.json", "us_per_call", ".0f",
                                    program="DeepRM M=10: pack and unpack only")},
    ),
    Item(
        id="bench_event",
        paper="MDP-design study: what an event-based (sparse) decision costs under vmap against a time-based one",
        steps=(Step("jaxsched.bench event --scenario bracis-7 --batches 32,1024 --out {out}/bench_event.json",
                    quick="--batches 4 --steps 5 --repeats 1 --window 0.1"),),
        outputs=("bench_event.json", "bench_event.md"),
        wall_s=60,
        headline="bracis-7, SJF: an event decision costs {cost32}x (batch 32) / {cost1024}x (batch 1024) a time-based "
                 "one ({ticks} ticks each)",
        numbers={"cost32": at("bench_event.json", "event_cost_per_decision/32", ".1f"),
                 "cost1024": at("bench_event.json", "event_cost_per_decision/1024", ".1f"),
                 "ticks": _bench_row("bench_event.json", "ticks_per_decision", ".1f", stepping="event", batch=1024)},
    ),
    Item(
        id="bench_train",
        paper="training speed, one device vs one per core",
        steps=(Step("jaxsched.bench train --devices 1core,1,auto --out {out}/bench_train.json",
                    quick="--devices 1 --repeats 1 --config configs/quickstart.yaml"),),
        outputs=("bench_train.json",),
        wall_s=223,
        headline="REINFORCE 20 x 10, 2 seeds: {small_one} s -> {small_auto} s per iteration ({small_speedup}x); paper "
                 "size {paper_one} s -> {paper_auto} s ({paper_speedup}x)",
        numbers={**{f"{size}_{spec}": _bench_row("bench_train.json", "seconds_per_iteration_median", ".2f",
                                                  workload=workload, device_spec=device)
                    for size, workload in (("small", "REINFORCE, 20 jobsets x 10 rollouts, 2 seeds"),
                                           ("paper", "REINFORCE, paper size (100 jobsets x 20 rollouts), 1 seed"))
                    for spec, device in (("one", "1"), ("auto", "auto"), ("core", "1core"))},
                 "small_speedup": at("bench_train.json", "speedups/REINFORCE, 20 jobsets x 10 rollouts, 2 seeds/1", ".2f"),
                 "paper_speedup": at("bench_train.json",
                                     "speedups/REINFORCE, paper size (100 jobsets x 20 rollouts), 1 seed/1", ".2f"),
                 "small_vs_core": at("bench_train.json",
                                     "speedups/REINFORCE, 20 jobsets x 10 rollouts, 2 seeds/1core", ".2f"),
                 "paper_vs_core": at("bench_train.json",
                                     "speedups/REINFORCE, paper size (100 jobsets x 20 rollouts), 1 seed/1core", ".2f")},
    ),
    Item(
        id="bench_train_cnn_cpu",
        paper="DeepRM2 CNN iteration cost on CPU at 10 x 10 rollouts (20 x 20 is 4x the rollouts)",
        steps=(Step("jaxsched.bench train --devices 1 --repeats 1 --out {out}/bench_train_cnn_cpu.json "
                    "--config configs/deeprm2_cnn_bc.yaml bc=null algo_options.num_jobsets=10 "
                    "algo_options.num_rollouts=10",
                    quick="algo_options.num_jobsets=2 algo_options.num_rollouts=2"),),
        outputs=("bench_train_cnn_cpu.json",),
        wall_s=220,
        headline="{seconds} s per iteration at {jobsets} x {rollouts} (CNN, one XLA device on the 2-core CPU)",
        numbers={"seconds": at("bench_train_cnn_cpu.json", "seconds_per_iteration_median", ".1f"),
                 "jobsets": at("bench_train_cnn_cpu.json", "jobsets", ".0f"),
                 "rollouts": at("bench_train_cnn_cpu.json", "rollouts", ".0f"),
                 "decisions": at("bench_train_cnn_cpu.json", "decisions_per_iteration", ".0f"),
                 # 20 x 20 is 4x the rollouts of the 10 x 10 measured: a linear estimate, not a measurement
                 "at_20x20": at("bench_train_cnn_cpu.json", "seconds_per_iteration_median", ".0f", scale=4),
                 "hours_400_at_20x20": at("bench_train_cnn_cpu.json", "seconds_per_iteration_median", ".0f",
                                          scale=4 * 400 / 3600)},
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
        wall_s=81, hardware=H200,
        headline="one seed, {decisions}k decisions per iteration: CNN {cnn} s ({cnn_rate}k decisions/s), MLP {mlp} s "
                 "({mlp_rate}M/s); the CNN is {ratio}x the MLP's cost, not faster",
        numbers={"decisions": at("bench_train_cnn_h200.json", "rows/0/decisions_per_iteration", ".0f", scale=1e-3),
                 "cnn": at("bench_train_cnn_h200.json", "rows/0/seconds_per_iteration_median", ".2f"),
                 "mlp": at("bench_train_mlp_h200.json", "rows/0/seconds_per_iteration_median", ".2f"),
                 "cnn_rate": computed("bench_train_cnn_h200.json", lambda root: _decision_rate(
                     root, "bench_train_cnn_h200.json") / 1e3, ".0f"),
                 "mlp_rate": computed("bench_train_mlp_h200.json", lambda root: _decision_rate(
                     root, "bench_train_mlp_h200.json") / 1e6, ".1f"),
                 "ratio": computed("bench_train_cnn_h200.json", lambda root: (
                     json_value(root, "bench_train_cnn_h200.json", "rows/0/seconds_per_iteration_median")
                     / json_value(root, "bench_train_mlp_h200.json", "rows/0/seconds_per_iteration_median")), ".0f")},
        note="Recorded on one NVIDIA H200 (jax 0.11.2); one jitted iteration, no scan over iterations.",
    ),
    Item(
        id="bench_gpu_h200",
        paper="Issue 54: every family's env steps/s at batch 2^10 ... 2^17 on one GPU with a roofline, and training "
              "decisions/s (goals on one H200: DeepRM no observation >= 10^8 and image >= 3 x 10^7 steps/s at M = 10)",
        steps=(Step("jaxsched.bench gpu --batches 1024,8192,131072 --train none --threads 16 --window 0.3 "
                    "--out {out}/bench_gpu_h200/bench_gpu.json",
                    quick="--batches 2 --steps 2 --repeats 1 --window 0.05 --workloads M=10 --threads 2"),),
        outputs=("bench_gpu_h200/bench_gpu.json", "bench_gpu_h200/bench_gpu.md"),
        wall_s=181, hardware=H200,
        headline="public env.step under vmap, batch 131,072: DeepRM no observation {none10}M steps/s at M = 10 (goal "
                 "100M), image {image10}M (goal 30M), image at M = 50 {image50}M, whose carry alone moves "
                 "{image50_carry}% of the copy bandwidth ({copy} GB/s); partial: {rows} of the 24 rows asked (the "
                 "compact, VM and grid envs and the training rows not reached in the device time)",
        numbers={"none10": _gpu("DeepRM no observation, M=10", 131072, fmt=".0f"),
                 "image10": _gpu("DeepRM image, M=10", 131072),
                 "image50": _gpu("DeepRM image, M=50", 131072),
                 "image10_1k": _gpu("DeepRM image, M=10", 1024),
                 "none10_1k": _gpu("DeepRM no observation, M=10", 1024),
                 "none50_8k": _gpu("DeepRM no observation, M=50", 8192, fmt=".0f"),
                 "image50_carry": _gpu("DeepRM image, M=50", 131072, "carry_of_copy_bandwidth", ".0f", 100),
                 "image50_xla": _gpu("DeepRM image, M=50", 131072, "xla_of_copy_bandwidth", ".0f", 100),
                 "image10_carry": _gpu("DeepRM image, M=10", 131072, "carry_of_copy_bandwidth", ".0f", 100),
                 "none10_carry": _gpu("DeepRM no observation, M=10", 131072, "carry_of_copy_bandwidth", ".0f", 100),
                 "copy": at(BENCH_GPU, "meta/copy_bandwidth_Bps", ",.0f", scale=1e-9),
                 "rows": computed(BENCH_GPU, lambda root: len(json_value(root, BENCH_GPU, "env_rows")), ".0f")},
        note="Recorded on one NVIDIA H200 (jax 0.11.2) in the second of two device calls of 2026-11-30 "
             "(bench_gpu_h200/device_runs.md): 3 batches x 8 envs asked, cut at its 180 s limit after 11 rows "
             "(75 s of it compiling). The first call's bench compiled 64 env executables in 192 s and was cut "
             "before its first row (call1_bench_gpu.log).",
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
        headline="3 seeds, 2 x 2 rollouts ({decisions} decisions per iteration): vmapped {vmap} s, one call per seed "
                 "{loop} s per iteration ({ratio}x)",
        numbers={"decisions": at("bench_train_cnn_seeds_vmap.json", "rows/0/decisions_per_iteration", ".0f"),
                 "vmap": at("bench_train_cnn_seeds_vmap.json", "rows/0/seconds_per_iteration_median", ".1f"),
                 "loop": at("bench_train_cnn_seeds_loop.json", "rows/0/seconds_per_iteration_median", ".1f"),
                 "ratio": computed("bench_train_cnn_seeds_vmap.json", lambda root: (
                     json_value(root, "bench_train_cnn_seeds_vmap.json", "rows/0/seconds_per_iteration_median")
                     / json_value(root, "bench_train_cnn_seeds_loop.json", "rows/0/seconds_per_iteration_median")),
                     ".1f")},
        note="Measured on the 2-core CPU while a sweep ran beside it (both rows under the same load).",
    ),
]


_HEADLINED = {item.id: item for item in ITEMS}
_rounded = functools.partial(rounded, _HEADLINED)


def _dispatch_span(kind: str, stat: str) -> Number:
    """``stat`` (min, max) of bench_dispatch's ``kind`` rows (fan: independent kernels, chain: chained) in us."""
    pick = {"min": min, "max": max}[stat]
    return computed("bench_dispatch.json", lambda root: pick(
        r["us_per_call"] for r in json_value(root, "bench_dispatch.json", "rows") if r["program"].startswith(f"{kind} ")),
        ".0f")


def _one_call_rate(family: str, size: int, load) -> Number:
    """jaxsched's median steps/s in bench_env's one-step-per-Python-call row of ``family`` at ``size``, ``load``."""
    def value(root) -> float:
        rows = [r for r in json_value(root, "bench_env.json", "rows") if r["family"] == family and r["size"] == size
                and r["load"] == load and r["workload"].endswith("one step per Python call")]
        if len(rows) != 1:
            raise NumberError(f"bench_env.json: {len(rows)} one-call rows of {family} at {size}, load {load}")
        return rows[0]["jaxsched"]["median"]
    return computed("bench_env.json", value, ",.0f")


PROSE: dict[str, dict[str, Number]] = {  # numbers the prose pages quote beside the headlines'
    "bench_train": _rounded("bench_train", "paper_auto", "paper_one", fmt=".1f", suffix="_r1"),
    "bench_env": {"one_call_07": _one_call_rate("deeprm", 10, 0.7), "one_call_13": _one_call_rate("deeprm", 10, 1.3),
                  **_rounded("bench_env", *(f"{kind}{m}" for kind in ("image", "ceiling") for m in (10, 20, 50)),
                             fmt=".0f", suffix="_r0"),
                  **{f"compact{batch}": _bench_row("bench_env.json", fmt=".0f", family="compact",
                                                   workload=f"compact state, batch {batch}") for batch in (1024, 1)},
                  **{f"vm{pms}_r0": _bench_row("bench_env.json", fmt=".0f", family="vm", size=pms,
                                               workload="First-Fit, batch 1024") for pms in (20, 100, 200)},
                  **{f"vm{pms}_call": _bench_row("bench_env.json", fmt=".2f", family="vm", size=pms,
                                                 workload="First-Fit, one step per Python call") for pms in (20, 50, 100)},
                  **{f"vm{pms}_b1": _bench_row("bench_env.json", fmt=".1f", family="vm", size=pms,
                                               workload="First-Fit, batch 1") for pms in (20, 50, 100, 200)},
                  **{f"{name}07_{m}": _bench_row("bench_env.json", fmt=".1f", family="deeprm", size=m, load=0.7,
                                                 workload=workload)
                     for m in (10, 20, 50) for name, workload in (
                         ("image", "image, batch 1024"), ("none", "no observation, batch 1024"),
                         ("batch1_", "image, batch 1"))},
                  **{f"vec_{family}{size}_{copies}": _bench_row(
                      "bench_env.json", fmt=".1f" if copies > 8 else ".2f", family=family, size=size, load=load,
                      copies=copies, workload=f"vector env, {copies} copies per Python call")
                     for family, size, load in (("deeprm", 10, 1.3), ("deeprm", 50, 1.3), ("compact", 10, 0.3),
                                                ("vm", 50, "-"))
                     for copies in (1, 8, 64, 256)}},
    "bench_dispatch": {f"{kind}_{stat}": _dispatch_span(kind, stat) for kind in ("fan", "chain") for stat in ("min", "max")},
    "bench_event": _rounded("bench_event", "cost32", "cost1024", fmt=".0f", suffix="_r0"),
}
ITEMS = with_prose(ITEMS, PROSE)
