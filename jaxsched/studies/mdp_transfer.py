"""Transfer: one compact PPO agent evaluated on other scenarios without retraining.

    python -m jaxsched.studies.mdp_transfer RUN_DIR OUT.json bracis-1 bracis-3 ...

The agent (greedy, latest checkpoint of RUN_DIR) and SJF / Packer / Random run on the same
held-out jobsets of each scenario in the compact, time-based MDP (the paper's Fig. 6 set-up)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import jax

from jaxsched.core.unfinished import legend, marked
from jaxsched.experiment import load_policy
from jaxsched.registry import build

NUM_JOBSETS, SEED = 30, 99991


def main(run_dir: Path, out: Path, scenarios: list[str]) -> None:
    agent, trained_on, config = load_policy(run_dir, greedy=True)
    results = {"trained_on": config.env, "env_options": config.env_options, "jobsets": NUM_JOBSETS, "seed": SEED}
    for name in scenarios:
        variant = build(name, observation="bracis", stepping="time", reward_jobs="all")
        jobsets = variant.sample_params(jax.random.PRNGKey(SEED), NUM_JOBSETS)
        policies = {"transferred": agent, **{h: variant.heuristic(h) for h in ("sjf", "packer", "random")}}
        tables = variant.evaluate(policies, jobsets, jax.random.PRNGKey(SEED + 1))
        results[name] = {p: {k: variant.summarize(t)[k] for k in ("mean_slowdown", "finished", "jobs")}
                         for p, t in tables.items()}
        print(name, "  ".join(f"{marked(p, v)} {v['mean_slowdown']:.3f} ({v['finished']}/{v['jobs']})"
                              for p, v in results[name].items()), flush=True)
    for line in legend(v for name in scenarios for v in results[name].values()):
        print(line)
    out.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:])
