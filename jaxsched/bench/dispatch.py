"""Where one env step called from Python spends its time: ``python -m jaxsched.bench dispatch``.

A jitted computation runs on XLA:CPU as a sequence of thunks, about one per fusion. XLA's
``ThunkExecutor`` runs them in the calling thread while they form a chain, but whenever several are
ready at once it hands half of them to the intra-op thread pool, and waking a parked worker thread
costs tens of microseconds on a small VM: more than the env's dynamics. It runs a sequence wholly
inline only when every buffer is at most 512 bytes or the sequence has at most 8 thunks: constants in
XLA's ``CpuExecutable``, with no flag or option to change them. A DeepRM step (image, action mask,
state) compiles to ~90 thunks with independent branches, so the Gymnasium adapter's one step per
Python call pays that hand-off on every call, whatever the state's packing.

This bench measures the pieces, each per call after ``block_until_ready`` / a host copy, compilation
excluded, batch 1:

- ``chain K`` / ``fan K``: K small dependent fusions against K independent ones (the same work);
- the packed DeepRM step of :class:`jaxsched.core.packed_step.PackedStep` at each M: unpacking and
  repacking the episode buffer alone, the whole step (with the thunk count of its program), and the
  same step run many times inside one ``lax.scan`` per call (what the dynamics themselves cost);
- the same, in a child process pinned to one core (an intra-op pool of one thread);
- SJF read from the flat observation in numpy (the host side of the bench's Gymnasium row).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from jaxsched.core.devices import pinned_to_one_core
from jaxsched.gymnasium_env import make_gymnasium

FAN_SIZES = (10, 30, 60)
SCANNED_STEPS = 200  # steps per call in the scanned row


def per_call_us(call, calls: int, repeats: int) -> float:
    """The fastest of ``repeats`` windows of ``calls`` calls, in microseconds per call (after 50 warm-up
    calls; ``call`` must wait for its own result)."""
    for _ in range(50):
        call()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            call()
        best = min(best, (time.perf_counter() - start) / calls)
    return best * 1e6


def entry_thunks(compiled_text: str) -> int:
    """Fusions and other kernels in the entry computation of a compiled HLO module (its thunks, near
    enough: parameters, tuples and bitcasts make none)."""
    entry = compiled_text[compiled_text.index("ENTRY"):]
    entry = entry[:entry.index("\n}\n")]
    free = ("parameter", "get-tuple-element", "tuple", "bitcast", "constant")
    ops = re.findall(r"= \S+ ([\w-]+)\(", entry)
    return sum(op not in free for op in ops)


def chain_and_fan(sizes, calls: int, repeats: int) -> list[dict]:
    """K small fusions in a chain (each needs the last) against K independent ones."""
    rows = []
    for k in sizes:
        def chain(x, k=k):
            y = x[:16]
            for i in range(k):
                y = jax.lax.optimization_barrier(jnp.sin(y) + x[i * 16:(i + 1) * 16])
            return y

        def fan(x, k=k):
            return jnp.concatenate([jax.lax.optimization_barrier(jnp.sin(x[i * 16:(i + 1) * 16]))
                                    for i in range(k)])

        x = jnp.zeros(16 * k, jnp.float32)
        for name, fn in (("chain", chain), ("fan", fan)):
            jitted = jax.jit(fn)
            us = per_call_us(lambda: np.asarray(jitted(x)), calls, repeats)
            rows.append({"program": f"{name} {k}", "us_per_call": us})
    return rows


def packed_step_rows(sizes, calls: int, repeats: int) -> list[dict]:
    """The Gymnasium adapter's packed DeepRM step at each M: pack/unpack only, then the whole step."""
    rows = []
    for num_slots in sizes:
        adapter = make_gymnasium("deeprm", seed=0, num_slots=num_slots, load=1.3)
        adapter.reset(seed=0)
        stepper, action = adapter._stepper, np.int32(num_slots)  # the void action: valid in every state

        def repack(packed, action):
            return stepper.layout.pack(stepper.layout.unpack(packed)), jnp.zeros(stepper.num_obs + 3)

        for name, fn in (("pack and unpack only", repack), ("whole step", stepper._step)):
            jitted = jax.jit(fn, donate_argnums=0)
            packed = [jnp.array(adapter._packed)]
            thunks = entry_thunks(jitted.lower(packed[0], action).compile().as_text())

            def call():
                packed[0], out = jitted(packed[0], action)
                np.asarray(out)

            rows.append({"program": f"DeepRM M={num_slots}: {name}", "thunks": thunks,
                         "us_per_call": per_call_us(call, calls, repeats)})

        def scanned(packed, action):  # the same step, SCANNED_STEPS times in one call: its own cost
            return jax.lax.scan(lambda p, _: (stepper._step(p, action)[0], None), packed, None,
                                length=SCANNED_STEPS)[0]

        jitted_scan, start = jax.jit(scanned), jnp.array(adapter._packed)
        us = per_call_us(lambda: jitted_scan(start, action).block_until_ready(), max(calls // SCANNED_STEPS, 1),
                         repeats) / SCANNED_STEPS
        rows.append({"program": f"DeepRM M={num_slots}: whole step, per step of a scan", "us_per_call": us})
    return rows


def host_policy_row(policy, calls: int, repeats: int) -> dict:
    """``policy(flat observation, inner env) -> action`` (the bench's SJF in numpy) on one observation."""
    adapter = make_gymnasium("deeprm", seed=0)
    obs, _ = adapter.reset(seed=0)
    inner = adapter.env.inner
    return {"program": "SJF read from the flat observation (numpy, M=10)",
            "us_per_call": per_call_us(lambda: policy(obs, inner), calls, repeats)}


def measure(sizes, calls: int, repeats: int) -> list[dict]:
    return chain_and_fan(FAN_SIZES, calls, repeats) + packed_step_rows(sizes, calls, repeats)


def bench_dispatch(sizes, calls: int, repeats: int, out: Path | None, hardware: str, host_policy) -> dict:
    """Every row in this process (every core) and in a child pinned to one core; printed and written.
    ``hardware`` describes the machine; ``host_policy`` is timed as :func:`host_policy_row` says."""
    rows = measure(sizes, calls, repeats) + [host_policy_row(host_policy, calls, repeats)]
    command = pinned_to_one_core([sys.executable, "-m", "jaxsched.bench", "dispatch-worker", "--sizes",
                                  ",".join(map(str, sizes)), "--calls", str(calls), "--repeats", str(repeats)])
    done = subprocess.run(command, capture_output=True, text=True)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"bench dispatch: the one-core worker failed:\n{done.stderr[-2000:]}")
    pinned = {row["program"]: row["us_per_call"] for row in json.loads(lines[-1][len("RESULT "):])}
    print(f"{'program':46s} {'thunks':>6s} {'us/call':>9s} {'one core':>9s}")
    for row in rows:
        row["us_per_call_one_core"] = pinned.get(row["program"])
        one_core = "" if row["us_per_call_one_core"] is None else f"{row['us_per_call_one_core']:9.1f}"
        print(f"{row['program']:46s} {row.get('thunks', ''):>6} {row['us_per_call']:9.1f} {one_core:>9s}")
    result = {"hardware": hardware, "load_average": os.getloadavg()[0], "calls": calls, "repeats": repeats,
              "batch": 1, "rows": rows}
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=1))
        print(f"wrote {out}")
    return result
