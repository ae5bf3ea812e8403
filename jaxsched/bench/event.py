"""What an event-based decision costs under ``vmap``: ``python -m jaxsched.bench event``.

The MDP-design paper's sparse transitions (``stepping="event"``) ask the agent only when a visible
job fits now; the ticks in between are simulated inside the transition. Under ``vmap`` a batch
advances together, so a batched step costs what its member with the most work in between costs.
This bench runs the same scenario and policy with time-based and with event-based steps, batched
(auto-reset, a ``lax.scan`` of decisions per call), and reports per side decisions/s, simulated
ticks/s (``info["elapsed_ticks"]`` summed) and the event / time cost ratio per decision. Compilation
is excluded; every call ends in ``block_until_ready``; the median of ``repeats`` windows is kept.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from jaxsched.core.rollout import auto_reset_step
from jaxsched.registry import build

STEPPINGS = ("time", "event")


def make_decision_scan(env, policy, steps: int):
    """A jitted ``(carry, params, initial) -> carry`` of ``steps`` batched decisions; ``carry`` =
    ``(obs, state, ticks, seen)`` where ``ticks`` sums the simulated ticks and ``seen`` the features (so
    the observation is built as a learner would read it)."""
    step = jax.vmap(lambda s, a, p, i: auto_reset_step(env, s, a, p, i))

    def run(carry, params, initial):
        def one(carry, _):
            obs, state, ticks, seen = carry
            action = jax.vmap(policy, in_axes=(None, 0))(jax.random.PRNGKey(0), obs)
            obs, state, _, _, info = step(state, action, params, initial)
            features = jnp.sum(obs.features.reshape(seen.shape[0], -1), axis=-1)
            return (obs, state, ticks + info["elapsed_ticks"], seen + features), None

        return jax.lax.scan(one, carry, None, length=steps)[0]

    return jax.jit(run, donate_argnums=0)


def time_stepping(scenario: str, overrides: dict, stepping: str, batch: int, steps: int, repeats: int,
                  window_s: float, seed: int) -> dict:
    """Decisions/s and ticks/s of SJF on ``batch`` jobsets of ``scenario`` with ``stepping``."""
    variant = build(scenario, **overrides, stepping=stepping)
    env, policy = variant.env, variant.heuristic("sjf")
    params = variant.sample_params(jax.random.PRNGKey(seed), batch)
    run = make_decision_scan(env, policy, steps)
    initial = jax.jit(jax.vmap(env.initial_state))(params)
    obs = jax.jit(jax.vmap(env.get_obs))(initial, params)
    zeros = jnp.zeros(batch, jnp.int32), jnp.zeros(batch, jnp.float32)
    carry = jax.block_until_ready(run((*jax.tree.map(jnp.copy, (obs, initial)), *zeros), params, initial))
    decisions, ticks = [], []
    for _ in range(repeats):
        before, calls, t0 = int(jnp.sum(carry[2])), 0, time.perf_counter()
        while True:
            carry = jax.block_until_ready(run(carry, params, initial))
            calls += 1
            elapsed = time.perf_counter() - t0
            if elapsed >= window_s:
                break
        decisions.append(calls * steps * batch / elapsed)
        ticks.append((int(jnp.sum(carry[2])) - before) / elapsed)
    return {"scenario": scenario, "stepping": stepping, "batch": batch, "steps_per_call": steps,
            "decisions_per_s": float(np.median(decisions)), "ticks_per_s": float(np.median(ticks)),
            "decisions_per_s_all": decisions, "ticks_per_decision": float(np.median(ticks) / np.median(decisions))}


def bench_event(scenario: str, overrides: dict, batches: list[int], steps: int, repeats: int, window_s: float,
                seed: int, out: Path | None, hardware: str) -> list[dict]:
    """Both steppings at each batch size; prints a table and writes ``out`` (.json, .md beside it)."""
    rows = []
    for batch in batches:
        for stepping in STEPPINGS:
            row = time_stepping(scenario, overrides, stepping, batch, steps, repeats, window_s, seed)
            rows.append(row)
            print(f"{scenario} {stepping:>5s} batch {batch:5d}: {row['decisions_per_s']:12,.0f} decisions/s "
                  f"{row['ticks_per_s']:12,.0f} ticks/s ({row['ticks_per_decision']:.2f} ticks per decision)",
                  flush=True)
    by = {(r["batch"], r["stepping"]): r for r in rows}
    costs = {b: by[(b, "time")]["decisions_per_s"] / by[(b, "event")]["decisions_per_s"] for b in batches}
    for batch, cost in costs.items():
        print(f"event decision costs {cost:.2f}x a time-based one at batch {batch}")
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        meta = {"hardware": hardware, "load_average": list(os.getloadavg()), "scenario": scenario, "overrides": overrides, "policy": "sjf",
                "timing": f"median of {repeats} windows of >= {window_s} s, compilation excluded, "
                          "block_until_ready after every call", "seed": seed}
        out.write_text(json.dumps({**meta, "rows": rows, "event_cost_per_decision": costs}, indent=1) + "\n")
        lines = [f"# Event-based vs time-based decisions under vmap ({scenario}, SJF)", "",
                 f"- hardware: {hardware}; load average {meta['load_average'][0]:.2f} at the end",
                 f"- timing: {meta['timing']}", "",
                 "| batch | stepping | decisions/s | simulated ticks/s | ticks per decision |",
                 "|---:|---|---:|---:|---:|"]
        lines += [f"| {r['batch']} | {r['stepping']} | {r['decisions_per_s']:,.0f} | {r['ticks_per_s']:,.0f} | "
                  f"{r['ticks_per_decision']:.2f} |" for r in rows]
        lines += [""] + [f"Event decision cost / time-based decision cost at batch {b}: {c:.2f}x"
                         for b, c in costs.items()]
        out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    return rows
