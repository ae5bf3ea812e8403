"""DeepRM Figure 7: does a policy *withhold* jobs -- move on while a visible job could start now --
and which ones? Work-conserving heuristics never do; the paper's point is that the learned policy
holds back large jobs to keep room for the short ones that arrive next.

    python -m jaxsched.studies.withholding --checkpoint runs/X [--load 1.1] [--jobsets 100] [--greedy] [--out DIR]
    python -m jaxsched.studies.withholding --pretrained deeprm-mlp-load1.1 [...]

``--checkpoint`` takes a run's first seed; ``--pretrained NAME`` a policy shipped with the package
(:mod:`jaxsched.pretrained`), which gives what ``--checkpoint`` of the run it was exported from gives when
that seed is the run's first (the DeepRM policies), every digit the same.

Writes ``withholding.json`` (per policy: decisions, move-ons, withholding move-ons and their
fraction, a histogram of the lengths of the withheld jobs, mean slowdown per job length) and two
plots: the withheld job lengths, and slowdown by job length for the trained policy against SJF and
Tetris* (the figure's two panels).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np

from jaxsched import pretrained
from jaxsched.core.plotting import plt, save_figure
from jaxsched.core.progress import progress
from jaxsched.core.rollout import collect_batch
from jaxsched.core.unfinished import legend, leaves_unfinished, marked
from jaxsched.envs.deeprm.metrics import job_table
from jaxsched.errors import CheckpointError, ConfigError, UsageError
from jaxsched.experiment import load_policy
from jaxsched.registry import build


def withholding_record(obs, action):
    """Per decision: did it move on (no job scheduled) while some visible job fits now, and which
    slots' jobs fit now (their durations, 0 elsewhere)."""
    num_slots = obs.fits_now.shape[-1]
    scheduled = (action >= 0) & (action < num_slots) & obs.action_mask[jnp.clip(action, 0, num_slots)]
    return {"move_on": ~scheduled, "fit_now_durations": jnp.where(obs.fits_now, obs.slot_duration, 0)}


def withholding_stats(env, batched, policy: Callable, key: jax.Array, max_decisions: int) -> dict:
    """Withholding and slowdown by job length of ``policy`` over the batched jobsets (one rollout each)."""
    run = jax.jit(lambda p, k: collect_batch(env, p, policy, k, 1, max_decisions, withholding_record))
    traj = jax.tree.map(np.asarray, run(batched, key))
    valid = traj.valid
    fit_now = traj.extra["fit_now_durations"]  # [L, J, 1, M]
    move_on = traj.extra["move_on"] & valid
    withheld = move_on & np.any(fit_now > 0, axis=-1)
    lengths = fit_now[withheld]  # [withheld decisions, M]
    max_len = env.max_job_len
    histogram = np.bincount(lengths[lengths > 0], minlength=max_len + 1)[1:]
    table = job_table(SimpleNamespace(state=traj.final_state))  # job_table reads ``result.state``
    done = table["status"] == "finished"
    by_length = {}
    for length in range(1, max_len + 1):
        mine = done & (table["duration"] == length)
        if np.any(mine):
            by_length[length] = float(np.mean(table["slowdown"][mine]))
    return {
        "decisions": int(valid.sum()),
        "move_ons": int(move_on.sum()),
        "withholding_move_ons": int(withheld.sum()),
        "withholding_fraction_of_move_ons": float(withheld.sum() / max(move_on.sum(), 1)),
        "withheld_job_length_histogram": {i + 1: int(c) for i, c in enumerate(histogram)},
        "mean_slowdown": float(np.mean(table["slowdown"][done])) if np.any(done) else float("nan"),
        "slowdown_by_job_length": by_length,
        "jobs": int(done.size),
        "finished": int(done.sum()),
        "unfinished_episodes": int((~traj.terminated).sum()),
    }


def _plots(stats: dict, out: Path, trained: str) -> None:
    hist = stats[trained]["withheld_job_length_histogram"]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.bar([int(k) for k in hist], list(hist.values()))
    ax.set_xlabel("job length (time steps)")
    ax.set_ylabel("times withheld")
    ax.set_title(f"{trained}: {stats[trained]['withholding_fraction_of_move_ons']:.0%} of move-ons withhold a job")
    fig.tight_layout()
    save_figure(fig, out / "withheld_job_lengths.png", dpi=120)

    fig, ax = plt.subplots(figsize=(6, 3.5))
    for name, s in stats.items():
        lengths = sorted(int(k) for k in s["slowdown_by_job_length"])
        ax.plot(lengths, [s["slowdown_by_job_length"][k] for k in lengths], marker="o", label=marked(name, s))
    ax.set_xlabel("job length (time steps)")
    ax.set_ylabel("mean job slowdown")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    save_figure(fig, out / "slowdown_by_job_length.png", dpi=120)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jaxsched.studies.withholding", description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--checkpoint", type=Path, help="a train run directory (its first seed)")
    source.add_argument("--pretrained", metavar="NAME",
                        help="a DeepRM policy shipped with the package (python -m jaxsched.pretrained list)")
    parser.add_argument("--load", type=float, default=None, help="workload load (default: the run's)")
    parser.add_argument("--jobsets", type=int, default=100)
    parser.add_argument("--seed", type=int, default=4242)
    parser.add_argument("--max-decisions", type=int, default=1000)
    parser.add_argument("--greedy", action="store_true",
                        help="act by argmax (default: sample from the policy, as the reference evaluates it)")
    parser.add_argument("--out", type=Path, default=Path("runs/deeprm_withholding"))
    args = parser.parse_args(argv)
    try:
        if args.pretrained:
            agent = pretrained.load(args.pretrained)
            policy, variant, config = agent.policy(greedy=args.greedy), agent.variant, agent.config
            record = agent.record
            origin = {"pretrained": agent.name, "source": record["source"], "source_seed": record["seed"],
                      "iteration": record["iteration"]}
        else:
            policy, variant, config = load_policy(args.checkpoint, greedy=args.greedy)
            origin = {"checkpoint": str(args.checkpoint)}
        if args.load is not None:
            variant = build(config.env, **{**config.env_options, "load": args.load})
    except (CheckpointError, ConfigError, UsageError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    batched = variant.sample_params(jax.random.PRNGKey(args.seed), args.jobsets)
    key = jax.random.PRNGKey(args.seed + 1)
    policies = {"trained": policy, "sjf": variant.heuristic("sjf"), "tetris": variant.heuristic("tetris")}
    stats = {name: withholding_stats(variant.env, batched, p, key, args.max_decisions)
             for name, p in progress(policies.items(), "withholding", total=len(policies))}
    for s in stats.values():
        s["leaves_unfinished"] = leaves_unfinished(s)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "withholding.json").write_text(json.dumps(
        {**origin, "load": variant.workload.load, "jobsets": args.jobsets,
         "seed": args.seed, "policies": stats}, indent=1))
    _plots(stats, args.out, "trained")
    for name, s in stats.items():
        print(f"{marked(name, s):10s} slowdown {s['mean_slowdown']:6.3f}  finished {s['finished']}/{s['jobs']}  "
              f"move-ons {s['move_ons']:6d}  withholding {s['withholding_move_ons']:6d} "
              f"({s['withholding_fraction_of_move_ons']:.1%})")
    for line in legend(stats.values()):
        print(line)
    print(f"wrote {args.out}/withholding.json and plots")
    return 0


if __name__ == "__main__":
    sys.exit(main())
