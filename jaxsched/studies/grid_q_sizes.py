"""How a trained elastic SARSA-ESN's Q ranks the pool sizes: at each of a run's first greedy decisions on a
held-out window, Q of the job it dispatches over the sizes allowed then. Reports the share of decisions at
which that Q is monotone in the size and at which its argmax is the smallest or largest allowed size (the
learned pools sit at 30 or 120 cores; this says whether Q itself is the reason).

    python -m jaxsched.studies.grid_q_sizes --run ela-ora-0.5=runs/grid_elastic_esn_oracle [--run ...] \
        [--decisions 400] [--seed 12345] --out DIR

The window is the first of grid_tables' 8 held-out windows (``held_out(8, seed)`` of the rigid site, as that
study draws them). Writes ``DIR/q_over_sizes.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import jax
import numpy as np

from jaxsched.algos.sarsa import greedy_policy, make_q
from jaxsched.errors import UsageError
from jaxsched.experiment import load_run
from jaxsched.registry import build
from jaxsched.studies.grid_tables import parse_runs


def size_profile(rows: list[np.ndarray]) -> dict:
    """``rows``: Q over the allowed sizes (ascending) at each decision; those with >= 3 sizes count. The
    share where Q is monotone in the size, and where its argmax is the first or last allowed size."""
    rows = [np.asarray(row) for row in rows if np.size(row) >= 3]
    if not rows:
        return {"decisions": 0, "monotone": float("nan"), "argmax_at_end": float("nan")}
    monotone = [bool(np.all(np.diff(r) >= 0) or np.all(np.diff(r) <= 0)) for r in rows]
    at_end = [int(np.argmax(r)) in (0, r.size - 1) for r in rows]
    return {"decisions": len(rows), "monotone": float(np.mean(monotone)), "argmax_at_end": float(np.mean(at_end))}


def q_over_sizes(experiment, window, decisions: int):
    """``rows(params) -> list of Q over the allowed sizes``: Q of the dispatched job at each of the first
    ``decisions`` greedy decisions of one episode on ``window`` (the reservoir carried, as in evaluation).
    One scan over the decisions, compiled once for all of a run's seeds (the parameters are an argument)."""
    env = experiment.variant.env
    if not env.elastic:
        raise UsageError(f"{experiment.config.env} is not elastic: it has one pool size")
    q = make_q(env, experiment.algo)
    if not q.memory:
        raise UsageError("the run's ESN does not carry its state (esn_memory: false); this probe reads the carry")

    @jax.jit
    def values_and_allowed(params):
        policy = greedy_policy(q, env, params)

        def step(carry, _):
            state, memory = carry
            obs = env.get_obs(state, window)
            values = q.all_values(params, obs, memory).reshape(env.num_candidates, env.num_sizes)
            action, memory = policy.step(memory, jax.random.PRNGKey(0), obs)
            state = env.transition(state, action, window)[0]
            return (state, memory), (values[action // env.num_sizes], obs.size_allowed)

        return jax.lax.scan(step, (env.initial_state(window), q.initial_carry()), None, length=decisions)[1]

    def rows(params) -> list[np.ndarray]:
        values, allowed = (np.asarray(x) for x in values_and_allowed(params))
        return [row[mask] for row, mask in zip(values, allowed)]

    return rows


def main(argv=None) -> int:
    """``python -m jaxsched.studies.grid_q_sizes``: Q over the pool sizes of trained elastic runs."""
    parser = argparse.ArgumentParser(prog="python -m jaxsched.studies.grid_q_sizes", description=main.__doc__)
    parser.add_argument("--run", action="append", help="NAME=RUN_DIR (repeatable): a trained elastic SARSA-ESN run")
    parser.add_argument("--decisions", type=int, default=400, help="greedy decisions read from the episode's start")
    parser.add_argument("--seed", type=int, default=12345, help="the held-out windows' key (grid_tables' --seed)")
    parser.add_argument("--out", type=Path, default=Path("runs/grid_q_sizes"))
    args = parser.parse_args(argv)
    try:
        runs = parse_runs(args.run)
        if not runs or args.decisions < 1:
            raise UsageError("give at least one --run NAME=RUN_DIR and --decisions >= 1")
        windows, _ = build("grid").held_out(8, args.seed)  # grid_tables' windows (--episodes 8): its first
        window = jax.tree.map(lambda x: x[0], windows)
        results = {"decisions": args.decisions, "seed": args.seed, "runs": {}}
        for name, (run_dir, step) in runs.items():
            experiment, states = load_run(run_dir, step=step)
            rows, per_seed = q_over_sizes(experiment, window, args.decisions), {}
            for s, seed in enumerate(experiment.config.seeds):
                per_seed[str(seed)] = size_profile(rows(jax.tree.map(lambda x: x[s], states.params)))
                print(f"{name} seed {seed}: {per_seed[str(seed)]}", flush=True)
            results["runs"][name] = {"per_seed": per_seed, **{
                key: float(np.mean([r[key] for r in per_seed.values()])) for key in ("monotone", "argmax_at_end")}}
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "q_over_sizes.json").write_text(json.dumps(results, indent=1) + "\n")
    print(f"wrote {args.out / 'q_over_sizes.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
