"""Benchmarks: ``python -m jaxsched.bench env|train|vm|grid|dispatch|event|public-step|train-sb3``.

``env [--family deeprm,compact,vm] [--sizes 10,20,50] [--loads 1.3,0.7] [--pms 20,50,100,200] [--reference DIR]
[--cpu-devices N] [--vector-sizes 1,8,64,256] [--vector-only] [--quick]``: the reference simulators of
``../shared/reference`` (``--reference``) and jaxsched in one process, on the same jobs, timed in turn; SJF
schedules (VM: First-Fit placements) checked first (:mod:`jaxsched.bench.env`); the batched rows split over N
XLA:CPU devices, default one per core; then the "vector env, N copies per Python call" rows
(:mod:`jaxsched.bench.vector`: ``make_vec``'s env stepped from Python against N reference envs stepped in a
Python loop, as ``SyncVectorEnv`` does; both in one process pinned to one core).
``train [--devices 1,auto] [--config X.yaml key=value ...]``: seconds per training iteration on one
device and on all (paper-size REINFORCE and CVD-RL at 50 PMs by default), each in its own process (:mod:`jaxsched.bench.train`).
``vm [--num-pms 50,100] [--batch 1024] [--steps 200] [--trace FILE] [--cpu-devices N]``: VM placement
steps per second, the batch split over N XLA:CPU devices, default one per core (:mod:`jaxsched.bench.vm`).
``grid [--batches 1,64,1024] [--jobs 500] [--repeats 3] [--out FILE]``: FIFO decisions per second of
the grid site against the plain-Python heapq simulator on the same windows (:mod:`jaxsched.bench.grid`).
``dispatch [--sizes 10,20,50]``: where one env step called from Python spends its time (XLA:CPU's thunk
executor; :mod:`jaxsched.bench.dispatch`).
``event [--scenario bracis-7] [--batches 32,1024]``: what an event-based (sparse) decision of the MDP-design
study costs under ``vmap`` against a time-based one (:mod:`jaxsched.bench.event`).
``public-step [--batch 256]``: the public gymnax ``env.step`` (vmapped, auto-reset) against the internal
transition + restart, one XLA device, interleaved (:mod:`jaxsched.bench.public_step`).
``gpu [--batches 10-17] [--workloads TEXT,...] [--train TEXT,...|none]``: absolute env steps/s of every family at
batch 2^10 ... 2^17 with a roofline (bytes per step, the share of the memory bandwidth), then training decisions/s,
on the first device (:mod:`jaxsched.bench.gpu`; meant for an accelerator, runs anywhere).
``train-sb3 [--cores 1,2] [--sb3-decisions N] [--jax-decisions N]``: PPO training decisions/s, SB3 (torch CPU) on
sched-rl-gym against jaxsched, same scenario, hyper-parameters and cores (:mod:`jaxsched.bench.sb3`).

``env`` reports steps per second of both simulators, excluding compilation, timed after
``block_until_ready``: a step is one SJF (VM: First-Fit) decision plus one transition (episode restarts
included), and every observation is summed each step on both sides (as a network would read it) so that
XLA cannot drop an unused image. Rows: image / no observation at batch ``--batch``, image at batch 1, and
one step per Python call through :func:`jaxsched.make_gymnasium`'s ``step`` (compact state and VM: the
same at batch ``--batch``, batch 1, one step per Python call); DeepRM also gets a ceiling row, the image
built and read at batch ``--batch`` with the dynamics frozen (:func:`jaxsched.bench.env.make_read_scan`), against the image
row's reference.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from pathlib import Path

import jax

from jaxsched.bench import gpu, public_step, sb3
from jaxsched.bench.common import hardware
from jaxsched.bench.dispatch import bench_dispatch, measure as measure_dispatch
from jaxsched.bench.env import (ENV_FAMILIES, VM_PMS, VM_PMS_QUICK, VM_WINDOW, bench_env, env_markdown,
                                missing_references, refuse_missing, sjf_from_flat_image)
from jaxsched.bench.event import bench_event
from jaxsched.bench.grid import bench_grid, grid_markdown
from jaxsched.bench.reference import DEFAULT_REFERENCE
from jaxsched.bench.train import ONE_CORE, TRAIN_WORKLOADS, bench_train, time_train_iteration
from jaxsched.bench.vector import VECTOR_PMS, VECTOR_SIZES, VECTOR_SIZES_QUICK, VECTOR_SLOTS
from jaxsched.bench.vm import bench_vm
from jaxsched.core.devices import restart_for_devices, usable_cores
from jaxsched.envs.deeprm.variants import VARIANTS as DEEPRM_VARIANTS
from jaxsched.errors import ConfigError, DatasetError
from jaxsched.experiment import load_train_config
from jaxsched.workloads.datasets import resolve_path


def render(path: Path) -> Path:
    """``bench render``: rewrite the markdown beside a saved bench_env / bench_grid JSON, timing nothing."""
    saved = json.loads(path.read_text())
    rows, meta = saved["rows"], saved["meta"]
    # os.getloadavg()'s tuple comes back from JSON as a list: written as the run wrote it
    meta = {k: tuple(v) if k == "load_average" and isinstance(v, list) else v for k, v in meta.items()}
    text = grid_markdown(rows, meta) if rows and "jax_decisions_per_s" in rows[0] else env_markdown(rows, meta)
    path.with_suffix(".md").write_text(text)
    return path.with_suffix(".md")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jaxsched.bench", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    env = sub.add_parser("env", help="steps/s beside the reference simulators (SJF, interleaved; the same jobs "
                         "except the compact state's)")
    rendered = sub.add_parser("render", help="rewrite the markdown beside a saved bench_env / bench_grid JSON")
    rendered.add_argument("json", type=Path, nargs="+")
    env.add_argument("--family", default="deeprm,compact,vm", help="comma list of: deeprm, compact, vm")
    env.add_argument("--sizes", default="10,20,50", help="DeepRM: the numbers of job slots M to time")
    env.add_argument("--loads", default="1.3,0.7", help="DeepRM: offered loads")
    env.add_argument("--pms", help=f"VM: the numbers of PMs (default {','.join(map(str, VM_PMS))}; "
                     f"with --quick {','.join(map(str, VM_PMS_QUICK))})")
    env.add_argument("--vm-window", type=int, default=VM_WINDOW, help="VM: trace rows per episode")
    env.add_argument("--reference", type=Path, default=DEFAULT_REFERENCE,
                     help="the folder of the reference simulators (default: ../shared/reference); they are not "
                     "part of jaxsched: where one is absent the command says how to get it and exits 2")
    env.add_argument("--batch", type=int, default=1024, help="jobsets in the batched rows (and the reference's)")
    env.add_argument("--steps", type=int, default=50, help="batched steps per jitted call")
    env.add_argument("--single-steps", type=int, default=2000, help="steps per jitted call at batch 1")
    env.add_argument("--repeats", type=int, default=3, help="alternating windows per side")
    env.add_argument("--window", type=float, default=2.5, help="seconds per timed window")
    env.add_argument("--check", type=int, default=20, help="jobsets whose SJF schedules are checked first")
    env.add_argument("--seed", type=int, default=0, help="the reference generator's seed")
    env.add_argument("--quick", action="store_true",
                     help="a smoke run: batch 8, 10 steps per call, one 0.2 s window per side, 2 checked jobsets")
    env.add_argument("--cpu-devices", type=int, default=usable_cores(),
                     help="XLA:CPU devices the batched rows split over (default: the cores this process may use)")
    env.add_argument("--vector-sizes", default=",".join(map(str, VECTOR_SIZES)),
                     help="the \"vector env, N copies per Python call\" rows: the copies N (default "
                     f"{','.join(map(str, VECTOR_SIZES))}; with --quick "
                     f"{','.join(map(str, VECTOR_SIZES_QUICK))}); 'none': no vector rows")
    env.add_argument("--vector-slots", default=",".join(map(str, VECTOR_SLOTS)),
                     help="DeepRM: the M of the vector rows (at every --loads)")
    env.add_argument("--vector-pms", default=",".join(map(str, VECTOR_PMS)),
                     help="VM: the numbers of PMs of the vector rows")
    env.add_argument("--vector-only", action="store_true", help="only the vector rows")
    env.add_argument("--out", type=Path, default=Path("runs/bench_env.json"))
    train = sub.add_parser("train", help="seconds per training iteration on 1 device and on all (default: "
                           "paper-size REINFORCE and CVD-RL at 50 PMs)")
    train.add_argument("--config", type=Path, help="time this config instead of the default workloads")
    train.add_argument("overrides", nargs="*", help="key=value config overrides (with --config)")
    train.add_argument("--devices", default=f"{ONE_CORE},1,auto",
                       help=f"device counts to compare, e.g. 1,auto or 1,2; {ONE_CORE}: 1 device pinned to one core")
    train.add_argument("--repeats", type=int, default=3)
    train.add_argument("--out", type=Path, default=Path("runs/bench_train.json"))
    worker = sub.add_parser("train-worker", help=argparse.SUPPRESS)
    worker.add_argument("--config", type=Path, required=True)
    worker.add_argument("--devices", required=True)
    worker.add_argument("--repeats", type=int, default=3)
    worker.add_argument("overrides", nargs="*")
    vm = sub.add_parser("vm", help="VM placement steps/s (Best-Fit) for a batch of episodes")
    vm.add_argument("--num-pms", default="50,100")
    vm.add_argument("--batch", type=int, default=1024)
    vm.add_argument("--steps", type=int, default=200, help="decisions per episode per timed run")
    vm.add_argument("--window", type=int, default=1000, help="trace events per episode (state size)")
    vm.add_argument("--repeats", type=int, default=3)
    vm.add_argument("--trace", help="the Huawei trace: dataset:huawei-east-1 or a file path; default: synthetic")
    vm.add_argument("--out", type=Path, default=Path("runs/bench_vm.json"))
    vm.add_argument("--cpu-devices", type=int, default=usable_cores(),
                    help="XLA:CPU devices to split the batch over (default: the cores this process may use)")
    grid = sub.add_parser("grid", help="grid site FIFO decisions/s: JAX at several batch sizes vs the heapq simulator")
    grid.add_argument("--batches", default="1,64,1024", help="comma-separated batch sizes (windows per call)")
    grid.add_argument("--jobs", type=int, default=500,
                      help="jobs per window (= decisions per episode); 500 keeps the default run ~3 min on 2 cores")
    grid.add_argument("--repeats", type=int, default=3)
    grid.add_argument("--python-windows", type=int, default=None,
                      help="time the Python simulator on at most this many windows of each batch (default: all)")
    grid.add_argument("--reference-windows", type=int, default=16,
                      help="windows of each batch the Python RL-loop reference (observation + one SJF call per "
                           "decision) runs and is checked on")
    grid.add_argument("--out", type=Path, default=Path("runs/bench_grid.json"),
                      help="JSON file (the .md beside it), or a folder for bench_grid.json/.md")
    grid.add_argument("--cpu-devices", type=int, default=1,
                      help="XLA:CPU devices to split each batch over (default 1: one vmapped call)")
    dispatch = sub.add_parser("dispatch", help="one env step per Python call, taken apart: XLA:CPU's thunk executor")
    dispatch.add_argument("--sizes", default="10,20,50", help="DeepRM: the numbers of job slots M")
    dispatch.add_argument("--calls", type=int, default=2000, help="calls per timed window")
    dispatch.add_argument("--repeats", type=int, default=3, help="timed windows (the fastest is kept)")
    dispatch.add_argument("--out", type=Path, default=Path("runs/bench_dispatch.json"))
    dispatch_worker = sub.add_parser("dispatch-worker", help=argparse.SUPPRESS)
    for flag, default in (("--sizes", "10,20,50"), ("--calls", 2000), ("--repeats", 3)):
        dispatch_worker.add_argument(flag, type=type(default), default=default)
    event = sub.add_parser("event", help="event-based vs time-based decisions/s under vmap (MDP-design study)")
    event.add_argument("--scenario", default="bracis-7", help="a DeepRM-family env (default: the study's bracis-7)")
    event.add_argument("--observation", default="bracis", choices=("bracis", "compact", "image", "none"))
    event.add_argument("--batches", default="32,1024", help="comma list of batch sizes")
    event.add_argument("--steps", type=int, default=50, help="decisions per jitted call")
    event.add_argument("--repeats", type=int, default=3, help="timed windows per row (median kept)")
    event.add_argument("--window", type=float, default=2.0, help="seconds per timed window")
    event.add_argument("--seed", type=int, default=0)
    event.add_argument("--out", type=Path, default=Path("runs/bench_event.json"))
    public_step.add_parser(sub)
    sb3.add_parser(sub)
    gpu.add_parser(sub)
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv)
    if args.what == "public-step":
        return public_step.run(args, parser)
    if args.what == "train-sb3":
        return sb3.run(args, parser)
    if args.what == "gpu":
        return gpu.run(args, parser)

    def int_list(flag: str, text: str) -> list[int]:
        try:
            return [int(x) for x in text.split(",")]
        except ValueError:
            parser.error(f"{flag} must be comma-separated integers, got {text!r}")

    if args.what == "vm":
        sizes = int_list("--num-pms", args.num_pms)
        restart_for_devices(args.cpu_devices, "jaxsched.bench", argv)
        print(f"hardware: {hardware()}")
        if args.trace is not None:
            try:
                args.trace = resolve_path(args.trace)
            except DatasetError as error:
                parser.error(str(error))
            if not args.trace.exists():
                parser.error(f"--trace {args.trace}: file not found")
        bench_vm(sizes, args.batch, args.steps, args.repeats, args.window, args.out, args.trace)
    if args.what == "render":
        for path in args.json:
            print(f"wrote {render(path)}")
        return 0
    if args.what == "train":
        specs = [s.strip() for s in args.devices.split(",") if s.strip()]
        if not specs or any(s not in ("auto", ONE_CORE) and not s.isdigit() for s in specs):
            parser.error(f"--devices must be a comma list of counts, auto or {ONE_CORE}, got {args.devices!r}")
        if args.repeats < 1:
            parser.error("--repeats must be >= 1")
        if args.config is not None:  # checked here, or each worker process fails with a traceback
            try:
                load_train_config(args.config, args.overrides)
            except ConfigError as error:
                parser.error(str(error))
        workloads = TRAIN_WORKLOADS if args.config is None else ((str(args.config), args.config, args.overrides),)
        print(f"hardware: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, jax {jax.__version__}")
        bench_train(workloads, specs, args.repeats, args.out)
    if args.what == "train-worker":
        devices = args.devices if args.devices == "auto" else int(args.devices)
        print("RESULT " + json.dumps(time_train_iteration(args.config, args.overrides, devices, args.repeats)))
    if args.what == "grid":
        sizes = int_list("--batches", args.batches)
        if args.jobs < 1 or args.repeats < 1 or min(sizes) < 1:
            parser.error("--jobs, --repeats and every batch size must be >= 1")
        restart_for_devices(args.cpu_devices, "jaxsched.bench", argv)
        print(f"hardware: {hardware()}; batches {', '.join(map(str, sizes))}; {args.jobs} jobs per window")
        rows = bench_grid(sizes, args.jobs, args.repeats, args.out, args.python_windows,
                          reference_windows=max(args.reference_windows, 1))
        at = next((r for r in rows if r["batch"] == 1024), max(rows, key=lambda r: r["batch"]))
        digits = 1 if at["ratio"] >= 0.95 else 2  # a slow-down shows as 0.xx, not 0.0
        print(f"grid speedup over the Python simulator at batch {at['batch']}: {at['ratio']:.{digits}f}x")
        if at.get("reference"):
            print(f"grid SJF speedup over the Python RL-loop reference at batch {at['batch']}: "
                  f"{at['reference']['ratio']:.2f}x")
    if args.what in ("dispatch", "dispatch-worker"):
        sizes = int_list("--sizes", args.sizes)
        if min(args.calls, args.repeats, *sizes) < 1:
            parser.error("--calls, --repeats and every size must be >= 1")
        if args.what == "dispatch-worker":
            print("RESULT " + json.dumps(measure_dispatch(sizes, args.calls, args.repeats)))
        else:
            print(f"hardware: {hardware()}; load average {os.getloadavg()[0]:.2f}")
            bench_dispatch(sizes, args.calls, args.repeats, args.out, hardware(), sjf_from_flat_image)
    if args.what == "event":
        batches = int_list("--batches", args.batches)
        if min(args.steps, args.repeats, *batches) < 1 or args.window <= 0:
            parser.error("--steps, --repeats, --window and every batch size must be > 0")
        if args.scenario not in DEEPRM_VARIANTS:
            parser.error(f"--scenario must be a DeepRM-family env (it has event stepping): {', '.join(DEEPRM_VARIANTS)}; "
                         f"got {args.scenario!r}")
        print(f"hardware: {hardware()}; load average {os.getloadavg()[0]:.2f}")
        bench_event(args.scenario, {"observation": args.observation}, batches, args.steps, args.repeats, args.window,
                    args.seed, args.out, hardware())
    if args.what == "env":
        families = [f.strip() for f in args.family.split(",") if f.strip()]
        if not families or any(f not in ENV_FAMILIES for f in families):
            parser.error(f"--family must be a comma list of {', '.join(ENV_FAMILIES)}, got {args.family!r}")
        sizes = int_list("--sizes", args.sizes)
        try:
            loads = [float(x) for x in args.loads.split(",")]
        except ValueError:
            parser.error(f"--loads must be comma-separated numbers, got {args.loads!r}")
        pms = int_list("--pms", args.pms) if args.pms else list(VM_PMS_QUICK if args.quick else VM_PMS)
        vector_default = args.vector_sizes == ",".join(map(str, VECTOR_SIZES))
        if args.quick:
            args.batch, args.steps, args.single_steps, args.repeats, args.window, args.check = 8, 10, 20, 1, 0.2, 2
            if vector_default:
                args.vector_sizes = ",".join(map(str, VECTOR_SIZES_QUICK))
        copies = [] if args.vector_sizes.strip().lower() == "none" else int_list("--vector-sizes", args.vector_sizes)
        vector = {"copies": copies, "slots": int_list("--vector-slots", args.vector_slots),
                  "pms": int_list("--vector-pms", args.vector_pms), "only": args.vector_only}
        if min(copies + vector["slots"] + vector["pms"], default=1) < 1:
            parser.error("--vector-sizes, --vector-slots and --vector-pms must be > 0")
        if args.vector_only and not copies:
            parser.error("--vector-only needs vector rows (--vector-sizes is 'none')")
        if min(args.batch, args.steps, args.single_steps, args.repeats, args.check, args.vm_window, *sizes, *pms) < 1 \
                or args.window <= 0:
            parser.error("--batch, --steps, --single-steps, --repeats, --check, --window, --vm-window and every size "
                         "must be > 0")
        if min(loads) <= 0:
            parser.error("every load must be > 0")
        if args.cpu_devices < 1:
            parser.error("--cpu-devices must be >= 1")
        missing = missing_references(families, args.reference)  # before the restart: fail fast, say how to fix
        if missing:
            return refuse_missing(missing, args.reference)
        restart_for_devices(args.cpu_devices, "jaxsched.bench", argv)
        devices = min(args.cpu_devices, len(jax.local_devices()))
        print(f"hardware: {hardware()}; load average {os.getloadavg()[0]:.2f}; batched rows on {devices} device(s)")
        bench_env(families, args.reference, sizes, loads, args.batch, args.steps, args.single_steps, args.repeats,
                  args.window, args.check, args.seed, args.out, pms, args.vm_window, devices, vector)
    return 0
