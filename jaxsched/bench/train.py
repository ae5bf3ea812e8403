"""``python -m jaxsched.bench train``: seconds per training iteration on one device and on all, each device
count in its own process (``train-worker``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import jax
import numpy as np

from jaxsched.bench.common import hardware
from jaxsched.core.devices import pinned_to_one_core, usable_cores
from jaxsched.experiment import Experiment, load_train_config


TRAIN_WORKLOADS = (  # (label, config, overrides): what `bench train` times by default
    ("REINFORCE, paper size (100 jobsets x 20 rollouts), 1 seed", Path("configs/deeprm_slowdown.yaml"), []),
    ("REINFORCE, 20 jobsets x 10 rollouts, 2 seeds", Path("configs/deeprm_slowdown.yaml"),
     ["seeds=[0,1]", "algo_options.num_jobsets=20", "algo_options.num_rollouts=10"]),
    ("CVD-RL, 50 PMs, 1 seed", Path("configs/vm_cvd_frag_impact.yaml"), ["env_options.num_pms=50"]),
)


class TrainIteration:
    """One training iteration of a config (rollouts + update of every seed, one jitted call; one seed unless
    the overrides set ``seeds``) on ``devices``: built and compiled by :meth:`compile` (which can run on a
    thread beside others), timed by :meth:`time`."""

    def __init__(self, config_path: Path, overrides: list[str], devices):
        seeds = [] if any(o.startswith("seeds=") for o in overrides) else ["seeds=[0]"]
        self.config_path, self.overrides = config_path, overrides
        self.config = load_train_config(config_path, overrides + seeds + [f"devices={devices}"])

    def compile(self) -> "TrainIteration":
        t0 = time.perf_counter()
        self.experiment = Experiment.from_config(self.config)
        self.states, _ = self.experiment.initial_states(log=lambda *_: None)
        self.step = self.experiment.make_chunk(1)
        self.states, metrics = self.step(self.states)  # the first call compiles (not timed)
        jax.block_until_ready(metrics)
        self.first_call_s = time.perf_counter() - t0
        return self

    def time(self, repeats: int) -> dict:
        """Seconds per iteration, compilation excluded, after ``block_until_ready``."""
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            self.states, metrics = self.step(self.states)
            jax.block_until_ready(metrics)
            times.append(time.perf_counter() - t0)
        mesh = self.experiment.mesh
        return {"config": str(self.config_path), "overrides": self.overrides,
                "devices": 1 if mesh is None else mesh.size,
                "seconds_per_iteration_median": float(np.median(times)), "seconds_per_iteration_min": min(times),
                "first_call_with_compile_s": self.first_call_s,
                "decisions_per_iteration": float(metrics["decisions"].sum()), "hardware": hardware(),
                "repeats": repeats}


def time_train_iteration(config_path: Path, overrides: list[str], devices, repeats: int) -> dict:
    """Seconds per training iteration (:class:`TrainIteration`) on ``devices``, compilation excluded."""
    return TrainIteration(config_path, overrides, devices).compile().time(repeats)


ONE_CORE = "1core"  # a --devices spec: one device, its process pinned to one core (no intra-op threads)


def bench_train(workloads, device_specs: list, repeats: int, out: Path | None) -> list[dict]:
    """Each workload timed once per device spec, each in its own process (XLA fixes its device count
    at start), and the speed-up of all devices over one device. On one device XLA:CPU already runs
    large operations (the gradient's matrix products) on every core; the spec ``1core`` pins that
    process to one core, to show how much of the one-device time is already parallel."""
    rows = []
    for label, config_path, overrides in workloads:
        for spec in device_specs:
            count = 1 if spec == ONE_CORE else usable_cores() if spec == "auto" else int(spec)
            environment = dict(os.environ, XLA_FLAGS=f"{os.environ.get('XLA_FLAGS', '')} "
                                                     f"--xla_force_host_platform_device_count={max(count, 1)}".strip())
            command = [sys.executable, "-m", "jaxsched.bench", "train-worker", "--config", str(config_path),
                       "--devices", str(count), "--repeats", str(repeats), *overrides]
            if spec == ONE_CORE:  # pinned before the worker starts, so every thread XLA makes inherits it
                command = pinned_to_one_core(command)
            done = subprocess.run(command, env=environment, capture_output=True, text=True)
            lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
            if done.returncode != 0 or not lines:
                raise SystemExit(f"bench train worker failed ({' '.join(command)}):\n{done.stderr[-2000:]}")
            row = {"workload": label, "device_spec": spec, **json.loads(lines[-1][len("RESULT "):])}
            rows.append(row)
            shown = "1 (one core)" if spec == ONE_CORE else row["devices"]
            print(f"{label:50s} devices={shown}  {row['seconds_per_iteration_median']:7.2f} s/iteration "
                  f"(min {row['seconds_per_iteration_min']:.2f}; compile {row['first_call_with_compile_s']:.0f} s), "
                  f"{row['decisions_per_iteration'] / row['seconds_per_iteration_median']:,.0f} decisions/s", flush=True)
    speedups = {}
    for label, _, _ in workloads:
        mine = {r["device_spec"]: r for r in rows if r["workload"] == label}
        most = max(mine.values(), key=lambda r: (r["devices"], r["device_spec"] != ONE_CORE))
        for base_spec, what in (("1", "1 device"), (ONE_CORE, "1 device on one core")):
            if base_spec in mine and most["devices"] > 1:
                speedup = mine[base_spec]["seconds_per_iteration_median"] / most["seconds_per_iteration_median"]
                speedups.setdefault(label, {})[base_spec] = speedup
                print(f"{label}: {most['devices']} devices {speedup:.2f}x faster than {what}")
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps({"rows": rows, "speedups": speedups}, indent=1))
        print(f"wrote {out}")
    headline = next((s["1"] for s in speedups.values() if "1" in s), None)  # the first workload's
    if headline is not None:
        print(f"train speedup with all devices: {headline:.1f}x  ({next(iter(speedups))}, against 1 device)")
    return rows
