"""``python -m jaxsched.bench gpu``: absolute throughput on one accelerator, with a roofline.

Every family's env (DeepRM image and no observation at M = 10 and 50, the BRACIS'21 compact state, VM
First-Fit at 50 and 200 PMs, the grid site's FIFO) stepped through the path a user calls (the public
gymnax ``env.step`` under ``vmap``, auto-reset, one heuristic decision per step; the grid: its evaluation
episode, :func:`jaxsched.bench.grid.make_grid_runner`) at batch 2^10 ... 2^17; then training decisions per
second (REINFORCE at the paper's size, PPO on the compact state, CVD-RL at 50 PMs), the update included.

Beside each env row, a roofline: bytes per env-step, read off the carry (state and observation, each read
and written once per step: a lower bound on the traffic when the state lives in device memory between
steps) and off XLA's cost analysis of one compiled step at the largest batch, per env (each fused kernel's
operands and results: an upper estimate, since an array read by several kernels counts each time and L2
serves some of it), and the share of the device's memory bandwidth the measured rate implies at each (of
what a device-to-device copy reaches, measured in the same process, and of the vendor's figure).

A few envs at a time (``--group``), their batches' executables compile on a pool of host threads (on one
H200 host, 64 env executables took 192 s on 16 threads: compilation, not timing, is what a device session
spends), then their rows are timed with nothing compiling beside them: calls repeated for ``--window``
seconds, the median of ``--repeats`` windows kept, after ``block_until_ready``, compilation excluded. The
JSON is rewritten after every row, so a run cut short keeps what it measured. ``--compile-cache DIR``: XLA's
persistent cache, so that a second call on the same machine skips what the first compiled.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import json
import time
from pathlib import Path
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np

from jaxsched.baselines.vm import first_fit
from jaxsched.bench.common import hardware, make_public_scan, markdown_page
from jaxsched.bench.grid import make_grid_runner
from jaxsched.bench.train import TrainIteration
from jaxsched.registry import build

BATCHES = tuple(2 ** k for k in range(10, 18))
# the vendor's memory bandwidth (bytes/s) by jax's device_kind; a device not listed gets the measured copy alone
NOMINAL_BANDWIDTH = {"NVIDIA H200": 4.8e12, "NVIDIA H100 80GB HBM3": 3.35e12, "NVIDIA A100-SXM4-80GB": 2.04e12}


@dataclasses.dataclass(frozen=True)
class EnvWorkload:
    """One env row family: ``build(name, **options)``'s env stepped with ``policy`` (a heuristic name or a
    policy function); ``kind`` "scan" (the public step) or "grid" (the grid's episode runner)."""
    label: str
    name: str
    options: dict
    policy: str | Callable = "sjf"
    kind: str = "scan"


ENV_WORKLOADS = (
    EnvWorkload("DeepRM image, M=10", "deeprm", dict(num_slots=10)),
    EnvWorkload("DeepRM no observation, M=10", "deeprm", dict(num_slots=10, observation="none")),
    EnvWorkload("DeepRM image, M=50", "deeprm", dict(num_slots=50)),
    EnvWorkload("DeepRM no observation, M=50", "deeprm", dict(num_slots=50, observation="none")),
    EnvWorkload("compact state (bracis-1, W=10)", "bracis-1", dict(num_res=2)),
    EnvWorkload("VM First-Fit, 50 PMs", "vm-synthetic", dict(num_pms=50, synthetic_vms=20_000, start_high=20_000),
                first_fit),
    EnvWorkload("VM First-Fit, 200 PMs", "vm-synthetic",
                dict(num_pms=200, synthetic_vms=20_000, start_high=20_000), first_fit),
    EnvWorkload("grid FIFO (81 cores, 500-job windows)", "grid", dict(num_jobs=500, exclude=0), "fifo", "grid"),
)

TRAIN_WORKLOADS = (  # (label, config, overrides)
    ("REINFORCE, paper size (100 jobsets x 20 rollouts), 1 seed", "configs/deeprm_slowdown.yaml", []),
    ("PPO compact state, the study's setting (32 envs x 50 steps)", "configs/mdp_ppo_compact.yaml", []),
    ("PPO compact state, 8192 envs x 64 steps, minibatch 32768, 4 epochs", "configs/mdp_ppo_compact.yaml",
     ["algo_options.num_envs=8192", "algo_options.num_steps=64", "algo_options.minibatch_size=32768",
      "algo_options.update_epochs=4"]),
    ("CVD-RL, 50 PMs, 1 seed", "configs/vm_cvd_frag_impact.yaml", ["env_options.num_pms=50"]),
)


def tree_bytes(tree) -> int:
    """Bytes of every array (or ShapeDtypeStruct) in ``tree``."""
    return int(sum(np.prod(x.shape) * np.dtype(x.dtype).itemsize for x in jax.tree.leaves(tree)))


def xla_bytes(compiled) -> float | None:
    """XLA's cost analysis of ``compiled``: the bytes its operations read and write (None where the backend
    gives none)."""
    analysis = compiled.cost_analysis()
    if isinstance(analysis, (list, tuple)):  # older jax: one dict per computation
        analysis = analysis[0] if analysis else None
    value = (analysis or {}).get("bytes accessed")
    return None if value is None else float(value)


class EnvCase:
    """One (workload, batch) row: its executable compiled ahead (:meth:`compile`), its inputs allocated only
    when timed (:meth:`time`), so that every row's compilation can run at once without holding every
    batch's state in device memory."""

    def __init__(self, workload: EnvWorkload, batch: int, steps: int, cost: bool = True):
        self.workload, self.batch, self.steps = workload, batch, steps
        self.variant = build(workload.name, **workload.options)
        env = self.variant.env
        policy = self.variant.heuristic(workload.policy) if isinstance(workload.policy, str) else workload.policy
        sample = jax.jit(self.variant.sample_params, static_argnums=1)
        self.make_params = lambda: sample(jax.random.PRNGKey(0), batch)
        params = jax.eval_shape(self.make_params)
        if workload.kind == "grid":
            self.fn = jax.jit(make_grid_runner(self.variant, policy))
            self.args = (params, jax.ShapeDtypeStruct((2,), jnp.uint32))
            one = jax.tree.map(lambda x: jax.ShapeDtypeStruct(x.shape[1:], x.dtype), params)
            self.carry_bytes = tree_bytes(jax.eval_shape(env.initial_state, one))
            self.one_step = None
        else:
            self.fn = make_public_scan(env, steps, policy)
            self.one_step = make_public_scan(env, 1, policy) if cost else None
            state = jax.eval_shape(jax.vmap(env.initial_state), params)
            obs = jax.eval_shape(jax.vmap(env.get_obs), state, params)
            carry = (obs, state, jax.ShapeDtypeStruct((batch,), jnp.float32))
            keys = jax.eval_shape(lambda: jax.random.split(jax.random.PRNGKey(0), batch))
            self.args = (carry, params, keys)
            self.carry_bytes = tree_bytes((obs, state)) // batch
        self.compiled = self.step_bytes = None

    def compile(self) -> "EnvCase":
        t0 = time.perf_counter()
        self.compiled = self.fn.lower(*self.args).compile()
        self.compile_s = time.perf_counter() - t0
        if self.one_step is not None:
            self.step_bytes = xla_bytes(self.one_step.lower(*self.args).compile())
        return self

    def inputs(self):
        params = self.make_params()
        if self.workload.kind == "grid":
            return (params, jax.random.PRNGKey(1))
        env = self.variant.env
        state = jax.jit(jax.vmap(env.initial_state))(params)
        obs = jax.jit(jax.vmap(env.get_obs))(state, params)
        keys = jax.random.split(jax.random.PRNGKey(0), self.batch)
        return ((obs, state, jnp.zeros(self.batch, jnp.float32)), params, keys)

    def time(self, repeats: int, window_s: float) -> dict:
        """Env-steps per second: the median of ``repeats`` windows of back-to-back calls (each call ``batch x
        steps`` decisions; the grid: every decision of one episode per window), after a first untimed call."""
        args = self.inputs()
        grid = self.workload.kind == "grid"
        out = jax.block_until_ready(self.compiled(*args))
        per_call = int(np.sum(out[1])) if grid else self.batch * self.steps
        carry = out if not grid else None
        rates = []
        for _ in range(repeats):
            calls, t0 = 0, time.perf_counter()
            while True:
                if grid:
                    jax.block_until_ready(self.compiled(*args))
                else:
                    carry = jax.block_until_ready(self.compiled(carry, *args[1:]))
                calls += 1
                elapsed = time.perf_counter() - t0
                if elapsed >= window_s:
                    break
            rates.append(calls * per_call / elapsed)
        del args, carry
        return {"steps_per_s": float(np.median(rates)), "steps_per_s_min": min(rates),
                "steps_per_s_max": max(rates), "decisions_per_call": per_call}


def copy_bandwidth(size_bytes: int = 2 ** 31, repeats: int = 5) -> float:
    """Bytes read and written per second by a device-to-device copy of ``size_bytes`` (the best of
    ``repeats``): the memory bandwidth this device reaches, the roofline's ceiling."""
    x = jnp.ones(size_bytes // 4, jnp.float32)
    copy = jax.jit(lambda a: a + 1.0)
    jax.block_until_ready(copy(x))
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        jax.block_until_ready(copy(x))
        best = min(best, time.perf_counter() - t0)
    return 2 * size_bytes / best


def roofline(row: dict, measured_bw: float, nominal_bw: float | None) -> dict:
    """The bandwidth the row's rate implies at each bytes-per-step estimate, and its share of the measured
    copy bandwidth (and of the vendor's figure)."""
    out = {}
    for name in ("carry_bytes_per_step", "xla_bytes_per_step"):
        per_step = row.get(name)
        if per_step is None:
            continue
        implied = row["steps_per_s"] * per_step
        key = name.replace("_bytes_per_step", "")
        out[f"{key}_bandwidth_Bps"] = implied
        out[f"{key}_of_copy_bandwidth"] = implied / measured_bw
        if nominal_bw:
            out[f"{key}_of_nominal_bandwidth"] = implied / nominal_bw
    return out


def bench_gpu(workloads=ENV_WORKLOADS, batches=BATCHES, steps: int = 50, repeats: int = 3, window_s: float = 0.5,
              train: tuple = TRAIN_WORKLOADS, train_repeats: int = 3, threads: int = 8, out: Path | None = None,
              group: int = 2, log=print) -> dict:
    """The env rows (``group`` workloads at a time: their batches compiled on ``threads`` threads, then timed
    one by one, nothing compiling beside them), then
    the training rows (:class:`jaxsched.bench.train.TrainIteration`, compiled at once, timed one by one, on
    device 0); ``out``: the JSON (rewritten after every row) and the markdown beside it."""
    device = jax.devices()[0]
    meta = {"hardware": hardware(), "device": device.device_kind, "platform": device.platform,
            "jax": jax.__version__, "steps_per_call": steps,
            "timing": f"median of {repeats} windows of {window_s} s of back-to-back calls, after "
                      "block_until_ready, compilation excluded",
            "step": "one heuristic decision (SJF; VM First-Fit; grid FIFO) + the public env.step under vmap, "
                    "auto-reset; observations summed each step (read, as a network would); grid: its evaluation "
                    "episode (one decision per job)"}
    result = {"meta": meta, "env_rows": [], "train_rows": []}

    def save():
        if out is not None:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps(result, indent=1))
            out.with_suffix(".md").write_text(gpu_markdown(result))

    meta["copy_bandwidth_Bps"] = copy_bandwidth(2 ** 31 if device.platform == "gpu" else 2 ** 26)
    meta["nominal_bandwidth_Bps"] = NOMINAL_BANDWIDTH.get(device.device_kind)
    log(f"{meta['hardware']}; {device.device_kind}: copy bandwidth {meta['copy_bandwidth_Bps'] / 1e9:,.0f} GB/s")
    t0 = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        for first in range(0, len(workloads), group):  # ``group`` envs at a time: compiled at once, timed alone
            # XLA's cost analysis of one step: compiled at the largest batch only, for every row of the env
            cases = list(pool.map(EnvCase.compile, [EnvCase(w, b, steps, cost=b == max(batches))
                                                    for w in workloads[first:first + group] for b in batches]))
            costs = {c.workload.label: c.step_bytes / c.batch for c in cases if c.step_bytes is not None}
            for case in cases:
                row = {"workload": case.workload.label, "batch": case.batch, "compile_s": case.compile_s,
                       **case.time(repeats, window_s), "carry_bytes_per_step": case.carry_bytes,
                       "xla_bytes_per_step": costs.get(case.workload.label)}
                row.update(roofline(row, meta["copy_bandwidth_Bps"], meta["nominal_bandwidth_Bps"]))
                result["env_rows"].append(row)
                which = "xla" if row["xla_bytes_per_step"] is not None else "carry"
                log(f"{row['workload']:40s} batch {row['batch']:>7,d}  {row['steps_per_s']:>15,.0f} steps/s  "
                    f"({row[which + '_of_copy_bandwidth']:.1%} of the copy bandwidth by the {which} bytes; "
                    f"+{time.perf_counter() - t0:.0f} s)")
                save()
            del cases
        meta["env_rows_s"] = time.perf_counter() - t0
        trainers = list(pool.map(TrainIteration.compile, [TrainIteration(Path(config), list(overrides), 1)
                                                          for _, config, overrides in train]))
    for (label, _, _), trainer in zip(train, trainers):
        row = {"workload": label, **trainer.time(train_repeats)}
        row["decisions_per_s"] = row["decisions_per_iteration"] / row["seconds_per_iteration_median"]
        result["train_rows"].append(row)
        log(f"{label:60s} {row['decisions_per_s']:>13,.0f} decisions/s "
            f"({row['seconds_per_iteration_median']:.3f} s/iteration; compile {row['first_call_with_compile_s']:.0f} s)")
        save()
    return result


def _si(value: float | None, unit: str = "") -> str:
    if value is None:
        return "–"
    for scale, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= scale:
            return f"{value / scale:.2f} {prefix}{unit}"
    return f"{value:.0f} {unit}".strip()


def gpu_markdown(result: dict) -> str:
    """The markdown beside the JSON: the env rows with their roofline, then the training rows."""
    meta = result["meta"]
    table = ["| env | batch | steps/s | carry B/step | XLA B/step | implied GB/s (XLA) | of copy bandwidth (XLA; carry) |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for r in result["env_rows"]:
        xla, share = r.get("xla_bandwidth_Bps"), r.get("xla_of_copy_bandwidth")
        table.append(f"| {r['workload']} | {r['batch']:,} | {r['steps_per_s']:,.0f} | {_si(r['carry_bytes_per_step'])} "
                     f"| {_si(r['xla_bytes_per_step'])} | {'–' if xla is None else f'{xla / 1e9:,.0f}'} | "
                     f"{'–' if share is None else f'{share:.1%}'}; {r['carry_of_copy_bandwidth']:.1%} |")
    table += ["", "| training | decisions/iteration | s/iteration | decisions/s |", "|---|---:|---:|---:|"]
    for r in result["train_rows"]:
        table.append(f"| {r['workload']} | {r['decisions_per_iteration']:,.0f} | "
                     f"{r['seconds_per_iteration_median']:.3f} | {r['decisions_per_s']:,.0f} |")
    shown = {k: v for k, v in meta.items() if not k.endswith("_Bps")}
    shown["copy bandwidth (measured)"] = f"{meta['copy_bandwidth_Bps'] / 1e9:,.0f} GB/s"
    if meta.get("nominal_bandwidth_Bps"):
        shown["nominal bandwidth"] = f"{meta['nominal_bandwidth_Bps'] / 1e9:,.0f} GB/s"
    return markdown_page("bench gpu: env steps/s and training decisions/s on one device", shown, table)


def _pick(flag: str, text: str, labels: list[str], parser) -> list[int]:
    """Indices of ``labels`` that contain one of the comma-separated ``text`` (case-insensitive); 'all' / 'none'."""
    if text.strip().lower() in ("all", "none"):
        return list(range(len(labels))) if text.strip().lower() == "all" else []
    wanted = [t.strip().lower() for t in text.split(",") if t.strip()]
    picked = [i for i, label in enumerate(labels) if any(w in label.lower() for w in wanted)]
    missing = [w for w in wanted if not any(w in label.lower() for label in labels)]
    if missing:
        parser.error(f"{flag}: {', '.join(missing)} match no workload; they are: {'; '.join(labels)}")
    return picked


def parse_batches(text: str, parser) -> list[int]:
    """``10-17`` (powers of two, exponents inclusive) or a comma list of batch sizes."""
    try:
        if "-" in text:
            low, high = (int(x) for x in text.split("-"))
            batches = [2 ** k for k in range(low, high + 1)]
        else:
            batches = [int(x) for x in text.split(",")]
    except ValueError:
        batches = []
    if not batches or min(batches) < 1:
        parser.error(f"--batches must be exponents LOW-HIGH (batch 2^LOW ... 2^HIGH) or a comma list of batch sizes, "
                     f"got {text!r}")
    return batches


def add_parser(sub) -> None:
    gpu = sub.add_parser("gpu", help="absolute env steps/s (batch 2^10 ... 2^17) with a roofline, and training "
                         "decisions/s, on the first device")
    gpu.add_argument("--batches", default="10-17", help="exponents LOW-HIGH (2^LOW ... 2^HIGH) or a comma list")
    gpu.add_argument("--workloads", default="all",
                     help="env rows whose label contains one of these (comma list), 'all' or 'none'")
    gpu.add_argument("--train", default="all", help="training rows likewise ('none': no training rows)")
    gpu.add_argument("--steps", type=int, default=50, help="batched steps per call (scan length)")
    gpu.add_argument("--repeats", type=int, default=3, help="timed windows per row (the median kept)")
    gpu.add_argument("--window", type=float, default=0.5, help="seconds per timed window")
    gpu.add_argument("--threads", type=int, default=8, help="threads compiling the env rows")
    gpu.add_argument("--group", type=int, default=2, help="envs whose rows compile together before they are timed")
    gpu.add_argument("--compile-cache", type=Path, help="XLA's persistent compilation cache folder (a second "
                     "call on the same machine reuses what the first compiled)")
    gpu.add_argument("--out", type=Path, default=Path("runs/bench_gpu.json"))


def run(args, parser) -> int:
    batches = parse_batches(args.batches, parser)
    workloads = [ENV_WORKLOADS[i] for i in _pick("--workloads", args.workloads, [w.label for w in ENV_WORKLOADS],
                                                   parser)]
    train = [TRAIN_WORKLOADS[i] for i in _pick("--train", args.train, [w[0] for w in TRAIN_WORKLOADS], parser)]
    if min(args.steps, args.repeats, args.threads, args.group) < 1 or args.window <= 0:
        parser.error("--steps, --repeats, --threads, --group and --window must be > 0")
    if args.compile_cache is not None:
        jax.config.update("jax_compilation_cache_dir", str(args.compile_cache))
    bench_gpu(workloads, batches, args.steps, args.repeats, args.window, tuple(train), args.repeats, args.threads,
              args.out, args.group)
    print(f"wrote {args.out} and {args.out.with_suffix('.md')}")
    return 0
