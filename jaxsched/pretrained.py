"""Trained policies that ship with the package, so that a user can run one without training it or
cloning results/.

    python -m jaxsched.pretrained list
    python -m jaxsched.pretrained verify [NAME ...]
    python -m jaxsched.pretrained evaluate NAME [--summary OUT.json]
    python -m jaxsched.pretrained export NAME --run RUN_DIR [--seed-index I] [--description TEXT]

Each policy is one seed's parameters (a flax msgpack file) taken from the newest checkpoint of a training
run in results/, with what is needed to use and to check it, kept in ``pretrained_policies/index.json``:
the run's resolved config, the run's held-out rows of that seed (``trained-sK`` greedy and
``trained-sK-sampled``, with finished / jobs) and of its baselines, copied from its ``eval.json``, and a
fingerprint: the greedy actions on one fixed small instance, so that a load can be checked in a second
(:func:`verify`). ``evaluate`` re-runs the run's held-out evaluation of the policy from the shipped file
(the same instances, key and order as training's final evaluation) and prints it beside the recorded rows.

In Python::

    >>> from jaxsched import pretrained
    >>> pretrained.list()                            # the names
    >>> agent = pretrained.load("deeprm-mlp-load0.7")
    >>> policy = agent.policy()                      # policy(key, obs) -> action, greedy; agent.policy(False): sampled
    >>> agent.variant.env, agent.config, agent.record["held_out"]
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from flax import serialization

from jaxsched.algos import ALGORITHMS
from jaxsched.core.config import to_dict
from jaxsched.core.progress import evaluate_each
from jaxsched.core.runs import read_run_config, shown_path
from jaxsched.errors import CheckpointError, ConfigError, JaxschedError, UsageError
from jaxsched.experiment import TrainConfig, load_run, train_config
from jaxsched.registry import build

HERE = Path(__file__).resolve().parent / "pretrained_policies"
INDEX = "index.json"
FORMAT_VERSION = 1
FINGERPRINT_SEED = 7  # the fixed instance: variant.held_out(1, FINGERPRINT_SEED), a seed no run evaluates on
FINGERPRINT_STEPS = 48  # greedy decisions recorded (fewer when the episode ends first)
MAX_BYTES = 512 * 1024  # a shipped parameter file stays small (the package is installed with them all)


@dataclasses.dataclass(frozen=True)
class Pretrained:
    """A shipped policy: its parameters, the run's config, its record in the index, and the env it was
    trained on (``variant.env``); :meth:`policy` gives the callable the evaluators and rollouts take."""

    name: str
    params: dict
    config: TrainConfig
    record: dict
    variant: object

    def policy(self, greedy: bool = True):
        """``policy(key, obs) -> action``: the argmax action (greedy) or one sampled from the policy."""
        return ALGORITHMS[self.config.algo].policy_from(self.config.algo_config(), self.variant.env, self.params,
                                                        greedy)


def _index(folder: Path = HERE) -> dict:
    path = folder / INDEX
    if not path.exists():
        return {}
    data = json.loads(path.read_text())
    if data.get("format") != FORMAT_VERSION:
        raise CheckpointError(f"{path}: format {data.get('format')} is not {FORMAT_VERSION}")
    return data["policies"]


def names(folder: Path = HERE) -> list[str]:
    """The names of the shipped policies, sorted."""
    return sorted(_index(folder))


list = names  # noqa: A001  (the public name: jaxsched.pretrained.list())


def record(name: str, folder: Path = HERE) -> dict:
    """The index entry of ``name``: source run, seed, config, held-out rows, fingerprint."""
    index = _index(folder)
    if name not in index:
        raise UsageError(f"no pretrained policy {name!r}; shipped: {', '.join(sorted(index)) or 'none'}")
    return index[name]


def load(name: str, folder: Path = HERE) -> Pretrained:
    """The shipped policy ``name`` (its parameter file checked against the index's sha256)."""
    entry = record(name, folder)
    data = (folder / entry["file"]).read_bytes()
    if hashlib.sha256(data).hexdigest() != entry["sha256"]:
        raise CheckpointError(f"{folder / entry['file']} differs from what was exported (sha256)")
    params = jax.tree.map(jnp.asarray, serialization.msgpack_restore(data))
    config = train_config(entry["config"])
    try:
        variant = build(config.env, **config.env_options)
    except (ValueError, TypeError) as error:
        raise ConfigError(f"pretrained {name}: {error}") from None
    return Pretrained(name, params, config, entry, variant)


def fingerprint(variant, policy, steps: int = FINGERPRINT_STEPS) -> list[int]:
    """The greedy ``policy``'s first ``steps`` actions on the fixed instance ``held_out(1, FINGERPRINT_SEED)``
    (fewer when its episode ends first): a check that parameters, network and env are the exported ones."""
    if hasattr(policy, "initial_carry"):
        raise UsageError("a recurrent policy (grid SARSA-ESN) has no step-by-step fingerprint here")
    env = variant.env
    batched, _ = variant.held_out(1, FINGERPRINT_SEED)
    params = jax.tree.map(lambda x: x[0], batched)
    key = jax.random.PRNGKey(FINGERPRINT_SEED)

    @jax.jit
    def actions(key):
        key, reset_key = jax.random.split(key)
        obs, state = env.reset_env(reset_key, params)

        def step(carry, _):
            key, obs, state, done = carry
            key, act_key, step_key = jax.random.split(key, 3)
            action = policy(act_key, obs)
            next_obs, next_state, _, terminated, _ = env.step_env(step_key, state, action, params)
            ended = done | terminated | env.is_truncated(next_state, params)
            recorded = jnp.where(done, -1, jnp.asarray(action, jnp.int32))
            return (key, next_obs, next_state, ended), recorded

        _, taken = jax.lax.scan(step, (key, obs, state, jnp.bool_(False)), None, length=steps)
        return taken

    return [int(a) for a in np.asarray(actions(key)) if a >= 0]


def verify(name: str, folder: Path = HERE) -> Pretrained:
    """``load(name)``, checked: its greedy fingerprint must equal the exported one (``CheckpointError``)."""
    agent = load(name, folder)
    got = fingerprint(agent.variant, agent.policy(greedy=True))
    if got != agent.record["fingerprint"]["actions"]:
        raise CheckpointError(f"pretrained {name}: greedy actions on the fingerprint instance differ from the "
                              f"exported ones (network, env or jax changed?): {got[:12]}... vs "
                              f"{agent.record['fingerprint']['actions'][:12]}...")
    return agent


def held_out_evaluation(agent: Pretrained) -> dict[str, dict]:
    """The run's final held-out evaluation of this seed, from the shipped parameters: ``trained-sK`` and
    ``trained-sK-sampled`` on ``held_out(eval_jobsets, eval_seed)`` with the key training's evaluation used
    (every policy sees the same key, so the rows do not depend on the others evaluated)."""
    config, variant, seed = agent.config, agent.variant, agent.record["seed"]
    policies = {f"trained-s{seed}": agent.policy(True), f"trained-s{seed}-sampled": agent.policy(False)}
    batched, _ = variant.held_out(config.eval_jobsets, config.eval_seed)
    tables = evaluate_each(variant, policies, batched, jax.random.PRNGKey(config.eval_seed + 1), "held-out evaluation")
    return {name: variant.summarize(table) for name, table in tables.items()}


def export(name: str, run_dir: Path, seed_index: int = 0, description: str = "", folder: Path = HERE) -> dict:
    """Writes ``name``'s parameter file (seed ``seed_index`` of the newest checkpoint of ``run_dir``) and
    its index entry; returns the entry."""
    run_dir = Path(run_dir)
    if not (run_dir / "eval.json").exists():
        raise UsageError(f"{run_dir} has no eval.json: export a run whose held-out evaluation was written")
    experiment, states = load_run(run_dir)
    config = experiment.config
    if not 0 <= seed_index < len(config.seeds):
        raise UsageError(f"--seed-index {seed_index}: the run has {len(config.seeds)} seed(s)")
    seed = config.seeds[seed_index]
    params = jax.tree.map(lambda x: np.asarray(x[seed_index]), states.params)
    data = serialization.msgpack_serialize(params)
    if len(data) > MAX_BYTES:
        raise UsageError(f"{name}: {len(data)} bytes of parameters, above the {MAX_BYTES}-byte limit for "
                         "shipped policies")
    evaluation = json.loads((run_dir / "eval.json").read_text())
    rows = evaluation["policies"]
    mine = {kind: rows[f"trained-s{seed}{suffix}"] for kind, suffix in (("greedy", ""), ("sampled", "-sampled"))}
    policy = ALGORITHMS[config.algo].policy_from(experiment.algo, experiment.variant.env,
                                                 jax.tree.map(jnp.asarray, params), True)
    entry = {
        "file": f"{name}.msgpack", "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data),
        "description": description, "source": shown_path(run_dir), "seed": seed, "seed_index": seed_index,
        "seeds_in_run": len(config.seeds), "iteration": int(states.iteration[seed_index]),
        "env": config.env, "algo": config.algo,
        "parameters": int(sum(np.size(x) for x in jax.tree.leaves(params))),
        "config": to_dict(train_config(read_run_config(run_dir))),
        "held_out": {"header": {k: v for k, v in evaluation.items() if k != "policies"}, **mine,
                     "baselines": {k: v for k, v in rows.items() if not k.startswith("trained-")}},
        "fingerprint": {"instance": f"held_out(1, {FINGERPRINT_SEED})", "steps": FINGERPRINT_STEPS,
                        "actions": fingerprint(experiment.variant, policy)},
    }
    folder.mkdir(parents=True, exist_ok=True)
    (folder / entry["file"]).write_bytes(data)
    index = _index(folder) | {name: entry}
    (folder / INDEX).write_text(json.dumps({"format": FORMAT_VERSION, "policies": dict(sorted(index.items()))},
                                           indent=1) + "\n")
    return entry


def _row(stats: dict) -> str:
    return f"slowdown {stats['mean_slowdown']:.4f}  finished {stats['finished']}/{stats['jobs']}" \
        if "mean_slowdown" in stats else json.dumps({k: v for k, v in stats.items() if not isinstance(v, dict)})


def _list(args) -> None:
    for name in names(args.folder):
        entry = record(name, args.folder)
        rows = entry["held_out"]
        print(f"{name}: {entry['env']} {entry['algo']}, seed {entry['seed']} of {entry['seeds_in_run']}, iteration "
              f"{entry['iteration']}, {entry['parameters']:,} parameters ({entry['bytes'] // 1024} KB); from "
              f"{entry['source']}")
        if entry["description"]:
            print(f"  {entry['description']}")
        print(f"  held-out greedy {_row(rows['greedy'])}; sampled {_row(rows['sampled'])}")


def _verify(args) -> None:
    for name in args.names or names(args.folder):
        agent = verify(name, args.folder)
        print(f"{name}: fingerprint matches ({len(agent.record['fingerprint']['actions'])} greedy actions)")


def _evaluate(args) -> None:
    agent = verify(args.name, args.folder)
    summary = held_out_evaluation(agent)
    recorded = {f"trained-s{agent.record['seed']}{suffix}": agent.record["held_out"][kind]
                for kind, suffix in (("greedy", ""), ("sampled", "-sampled"))}
    for policy, stats in summary.items():
        print(f"{policy}: now {_row(stats)}; recorded {_row(recorded[policy])}")
    if args.summary:
        args.summary.parent.mkdir(parents=True, exist_ok=True)
        args.summary.write_text(json.dumps(summary, indent=1))
        print(f"wrote {args.summary}")


def _export(args) -> None:
    entry = export(args.name, args.run, args.seed_index, args.description, args.folder)
    print(f"wrote {args.folder / entry['file']} ({entry['bytes']} bytes, seed {entry['seed']} of "
          f"{entry['seeds_in_run']}, iteration {entry['iteration']}) and its entry in {args.folder / INDEX}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m jaxsched.pretrained", description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, default=HERE, help=argparse.SUPPRESS)  # tests export elsewhere
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="the shipped policies and their held-out numbers").set_defaults(handler=_list)
    check = commands.add_parser("verify", help="load each (or the named) policy and check its fingerprint")
    check.add_argument("names", nargs="*")
    check.set_defaults(handler=_verify)
    again = commands.add_parser("evaluate", help="re-run the policy's held-out evaluation from the shipped file")
    again.add_argument("name")
    again.add_argument("--summary", type=Path, help="write the rows as JSON here")
    again.set_defaults(handler=_evaluate)
    out = commands.add_parser("export", help="ship one seed of a training run's newest checkpoint")
    out.add_argument("name")
    out.add_argument("--run", type=Path, required=True, help="a training run directory (config.json, "
                     "checkpoints/, eval.json), e.g. a sweep's cell")
    out.add_argument("--seed-index", type=int, default=0, help="which of the run's seeds (default the first)")
    out.add_argument("--description", default="", help="one line: what the policy is and what it reproduces")
    out.set_defaults(handler=_export)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        args.handler(args)
    except JaxschedError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
