"""Decision-time planning as a VM placement policy, measured on held-out start points.

The planner is :func:`jaxsched.studies.vm_rollout.improved_action` used at every decision: try
CVD-RL's candidate actions (plus room_fit's own), roll room_fit out to the episode's end from each,
take the one that places the most VMs. It needs no training, only the env state (the trace window)
and compute at decision time, so it is the learned placers' third competitor: what a value of the
next placement could gain over room_fit, bought with simulation instead of learning. It is compared
with the heuristics on the same start points, drawn from a range disjoint from the one training
uses (``held_out_from``, see :class:`jaxsched.envs.vm.variants.VmVariant`):

    python -m jaxsched.studies.vm_planner --env vm-frag --num-pms 10,20 --starts 50,10 \
        --held-out-from 7000 --out runs/vm_planner.json

Its rollouts read the episode's real trace, so that planner is clairvoyant: an upper reference, not a
placer one could deploy. ``--futures K`` makes it one: each candidate is valued by rollouts over K
windows drawn from the *training* range, each following the present request in place of the real
future, with every running VM's departure drawn from the training range's lifetimes longer than its
age (:func:`jaxsched.studies.vm_rollout.imagined_states`; the same K windows for every decision of an
episode, different per start point; departures drawn afresh per decision), so the planner reads
nothing after the present request.

Per cluster size: each policy's per-start metrics, the planner / room_fit scheduled-length ratio's
IQM with a 95% stratified-bootstrap CI (:mod:`jaxsched.core.stats`), how many starts it improved or
worsened, and seconds per episode on this machine (the planner's episodes run as one vmapped batch;
its compilation is timed apart; the heuristics' times include theirs).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from jaxsched.baselines.vm import HEURISTIC_NAMES, heuristic_policy
from jaxsched.core.progress import progress
from jaxsched.core.stats import iqm, seed_interval
from jaxsched.envs.vm.episodes import draw_starts, evaluate_policies, params_at
from jaxsched.envs.vm.trace import CREATE, window
from jaxsched.errors import UsageError
from jaxsched.registry import build
from jaxsched.studies.vm_rollout import ImaginedFutures, candidate_set, improved_episode, parse_cvd_k

PLANNER = "planner"
BASE = "room_fit"  # the policy the planner rolls out, and the one it is measured against


def planner_episodes(variant, starts, cvd_k: tuple[int, int, int], futures: int = 0, futures_seed: int = 0,
                     margin: float = 0.0) -> tuple[dict[str, np.ndarray], float, float]:
    """``(per-start metrics, compile seconds, run seconds)`` of the planner over room_fit on the
    windows at ``starts`` (one vmapped batch). ``futures`` > 0: the non-clairvoyant planner, valuing
    candidates over that many training-range windows per start (drawn from ``futures_seed``), leaving
    room_fit only for a mean gain above ``margin`` VMs."""
    env, policy = variant.env, heuristic_policy(BASE, variant)
    candidates, num_tried = candidate_set(variant, cvd_k)
    lifetimes = training_lifetimes(variant) if futures > 0 else None  # the clairvoyant planner draws nothing

    def episode(start, key):
        imagined = None
        if futures > 0:
            rows_key, departures_key = jax.random.split(key)
            rows = draw_starts(rows_key, variant, futures, held_out=False)
            windows = jax.vmap(lambda row: window(variant.trace, row, variant.window))(rows)
            imagined = ImaginedFutures(windows=windows, lifetimes=lifetimes, key=departures_key, margin=margin)
        return improved_episode(env, params_at(variant, start), policy, candidates, num_tried, imagined)

    keys = jax.random.split(jax.random.PRNGKey(futures_seed), len(starts))
    batch = jax.jit(jax.vmap(episode))
    t0 = time.perf_counter()
    compiled = batch.lower(starts, keys).compile()
    t1 = time.perf_counter()
    out = jax.block_until_ready(compiled(starts, keys))
    t2 = time.perf_counter()
    return {k: np.asarray(v, np.float64) for k, v in out.items()}, t1 - t0, t2 - t1


def training_lifetimes(variant) -> jax.Array:
    """float32[D] sorted lifetimes (s) of the creates in the rows training windows can cover."""
    low, high = variant.start_range(held_out=False)
    trace = jax.tree.map(np.asarray, variant.trace)
    rows = np.arange(trace.kind.shape[0])
    create = (rows >= low) & (rows < high + variant.window) & trace.valid & (trace.kind == CREATE) & (trace.duration > 0)
    return jnp.asarray(np.sort(trace.duration[create]), jnp.float32)


def heuristic_episodes(variant, starts, names) -> tuple[dict[str, dict], dict[str, float]]:
    """Each heuristic's per-start metrics on the windows at ``starts`` and its seconds (with compilation)."""
    tables, seconds = {}, {}
    for name in names:
        t0 = time.perf_counter()
        tables |= evaluate_policies(variant, {name: heuristic_policy(name, variant)}, starts, jax.random.PRNGKey(0))
        seconds[name] = time.perf_counter() - t0
    return tables, seconds


def _ratio_interval(ratio: dict) -> str:
    """``95% CI low, high`` (``range low, high`` under 5 starts) of a :func:`ratio_summary`."""
    label, key = ("95% CI", "ratio_ci95") if "ratio_ci95" in ratio else ("range", "ratio_range")
    return f"{label} {ratio[key][0]:.3f}, {ratio[key][1]:.3f}"


def ratio_summary(planner: np.ndarray, base: np.ndarray, seed: int = 0) -> dict:
    """The planner / base scheduled-length ratio per start: IQM, its 95% bootstrap CI, and how many
    starts the planner made longer or shorter."""
    ratio = planner / base
    interval = seed_interval(ratio, iqm, reps=2000, confidence=0.95, seed=seed)  # the range under 5 starts
    return {"ratio_iqm": iqm(ratio), ("ratio_ci95" if interval.is_ci else "ratio_range"): [interval.low, interval.high],
            "ratio_mean": float(ratio.mean()),
            "starts_improved": int((planner > base).sum()), "starts_worse": int((planner < base).sum()),
            "starts_equal": int((planner == base).sum())}


def measure(variant, num_starts: int, seed: int, cvd_k: tuple[int, int, int], heuristics, futures: int = 0,
            futures_seed: int = 0, margin: float = 0.0) -> dict:
    """One cluster size's row: start points, per-policy means and per-start metrics, ratio, timings."""
    starts = draw_starts(jax.random.PRNGKey(seed), variant, num_starts, held_out=True)
    tables, seconds = heuristic_episodes(variant, starts, heuristics)
    planner, compile_s, run_s = planner_episodes(variant, starts, cvd_k, futures, futures_seed, margin)
    tables[PLANNER] = planner
    metrics = ("scheduled_length", "cpu_allocation", "cpu_allocation_mean", "income")
    return {"num_pms": variant.env.num_pms, "starts": num_starts, "seed": seed, "cvd_k": list(cvd_k),
            "futures": futures, "futures_seed": futures_seed if futures else None, "margin": margin if futures else None,
            "start_points": [int(s) for s in starts], **variant.start_ranges(),
            "means": {name: {m: float(t[m].mean()) for m in metrics} for name, t in tables.items()},
            f"{PLANNER}_vs_{BASE}": ratio_summary(planner["scheduled_length"], tables[BASE]["scheduled_length"]),
            "departures_per_episode": float(planner["departures"].mean()),
            "seconds_per_episode": {**{name: s / num_starts for name, s in seconds.items()},
                                    PLANNER: run_s / num_starts},
            "planner_batch_seconds": run_s, "planner_compile_seconds": compile_s,
            "per_start": {name: {m: t[m].tolist() for m in metrics} for name, t in tables.items()}}


def _inputs(args) -> tuple[list, list[int], tuple[int, int, int], tuple[str, ...]]:
    """``(variants, starts per size, cvd_k, heuristics)``, checked before any work."""
    try:
        sizes = [int(n) for n in args.num_pms.split(",")]
        counts = [int(n) for n in args.starts.split(",")]
    except ValueError:
        raise UsageError("--num-pms and --starts take comma-separated integers") from None
    if len(counts) == 1:
        counts *= len(sizes)
    if len(counts) != len(sizes) or min(sizes) < 1 or min(counts) < 1:
        raise UsageError("--starts: one count >= 1, or one per --num-pms entry")
    cvd_k = parse_cvd_k(args.cvd_k)
    heuristics = tuple(h for h in args.heuristics.split(",") if h)
    if args.futures < 0 or args.margin < 0:
        raise UsageError("--futures and --margin must be >= 0 (--futures 0: the clairvoyant planner)")
    if BASE not in heuristics or set(heuristics) - set(HEURISTIC_NAMES):
        raise UsageError(f"--heuristics must include {BASE} and name only {', '.join(HEURISTIC_NAMES)}")
    try:
        variants = [build(args.env, num_pms=n, held_out_from=args.held_out_from) for n in sizes]
    except (ValueError, TypeError) as error:
        raise UsageError(str(error)) from None
    return variants, counts, cvd_k, heuristics


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jaxsched.studies.vm_planner", description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="vm-frag")
    parser.add_argument("--num-pms", default="10")
    parser.add_argument("--starts", default="50", help="held-out start points: one count, or one per --num-pms")
    parser.add_argument("--held-out-from", type=int, default=7000,
                        help="first held-out start row; training windows end before it (variant option held_out_from)")
    parser.add_argument("--seed", type=int, default=99991)
    parser.add_argument("--cvd-k", default="2,3,1", help="K_BF,K_PMBF,K_ROOM: CVD-RL's candidate set the planner tries")
    parser.add_argument("--heuristics", default="first_fit,best_fit,pm_best_fit,room_fit")
    parser.add_argument("--futures", type=int, default=0,
                        help="K > 0: value candidates over K imagined futures (training-range windows) instead of "
                             "the real trace; 0: the clairvoyant planner")
    parser.add_argument("--futures-seed", type=int, default=0, help="draws the imagined futures' windows")
    parser.add_argument("--margin", type=float, default=0.0,
                        help="with --futures: leave room_fit only for a mean imagined gain above this many VMs")
    parser.add_argument("--out", type=Path, default=Path("runs/vm_planner.json"))
    args = parser.parse_args(argv)
    try:
        variants, counts, cvd_k, heuristics = _inputs(args)
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    rows = []
    bar = progress(list(zip(variants, counts)), "vm_planner", unit="cluster")
    for variant, count in bar:
        row = measure(variant, count, args.seed, cvd_k, heuristics, args.futures, args.futures_seed, args.margin)
        rows.append(row)
        ratio, means = row[f"{PLANNER}_vs_{BASE}"], row["means"]
        lengths = "  ".join(f"{name} {m['scheduled_length']:.1f}" for name, m in means.items())
        low, high = row["held_out_start_range"]
        bar.write(f"N={row['num_pms']} ({count} held-out starts in [{low}, {high})): {lengths}; "
                  f"{PLANNER}/{BASE} IQM {ratio['ratio_iqm']:.3f} [{_ratio_interval(ratio)}], better on {ratio['starts_improved']}, worse on "
                  f"{ratio['starts_worse']}; {row['seconds_per_episode'][PLANNER]:.1f} s per planner episode "
                  f"(+{row['planner_compile_seconds']:.0f} s compile), {BASE} "
                  f"{row['seconds_per_episode'][BASE]:.2f} s")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"env": args.env, "base": BASE, "held_out_from": args.held_out_from,
                                    "device": jax.devices()[0].device_kind, "rows": rows}, indent=1))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
