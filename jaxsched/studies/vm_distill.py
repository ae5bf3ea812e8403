"""A learned VM placer distilled from the decision-time planner (issue 18: expert iteration).

The planner (:mod:`jaxsched.studies.vm_planner`) beats room_fit by rolling room_fit out from each of
CVD-RL's candidates, so it reads the future trace in the env state. A placer must act on the
observation alone. Here a per-action scorer is trained to imitate the planner: on *training* start
points we record, at every decision of a planner episode, the observation and every tried action's
exact rollout value (:func:`jaxsched.studies.vm_rollout.action_values`); the scorer, one network
shared by all actions (CVD-RL's decomposition: it sees the chosen PM before and after the placement
plus cheap cluster-wide features), is trained with cross-entropy to put its softmax mass, over the
same tried set, on the actions of greatest value (several may tie). The learned placer takes the
scorer's best tried action; it never needs the trace. A second round (``--rounds 2``) relabels with
the planner rolling out the learned placer instead of room_fit and trains again on both rounds'
data (expert iteration).

Both are measured on held-out start points from a range disjoint from the training windows
(``held_out_from``), against room_fit on the same starts, over several training seeds:

    python -m jaxsched.studies.vm_distill --num-pms 10,20 --train-starts 24 --seeds 5 \
        --out runs/vm_distill.json

The scorer is trained at the first ``--num-pms`` size and applied unchanged at the others (its
inputs do not depend on N). Imitation accuracy is reported on the training decisions and on planner
decisions at held-out starts: how much of the planner's choice the observation predicts.

Measured (vm-frag, trained at 10 PMs on 32 training starts, 5 seeds, 50 held-out starts at 10 and
20 PMs; CPU): the planner leaves room_fit at ~1% of decisions. At ``--departure-weight 1`` the
scorer matches none of those departures and acts as room_fit (ratio IQM 1.000, CI [1.000, 1.000];
a second round changes nothing, since the planner over a room_fit copy gives the same labels).
Weighting departures 20x / 200x makes it match 34-74% of the training departures but only 8-28%
of the held-out ones, and its extra departures are as often bad as good: ratio IQM 1.000 / 0.999
with CIs containing 1 at 10 PMs. The observation does not predict the planner's (future-informed)
choices well enough to beat room_fit; see the run JSONs for the numbers.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax

from jaxsched.algos.dqn import MLP
from jaxsched.baselines.vm import (RequestMix, after_placement, best_fit_scores, cvd_candidates, heuristic_policy,
                                   pm_best_fit_scores, pm_ratios, request_mix, room_fit_scores, type_fits,
                                   usable_room)
from jaxsched.core.progress import progress
from jaxsched.core.stats import iqm, seed_interval
from jaxsched.envs.vm.episodes import draw_starts, evaluate_policies, params_at
from jaxsched.errors import UsageError
from jaxsched.registry import build
from jaxsched.studies.vm_planner import BASE, ratio_summary
from jaxsched.studies.vm_rollout import action_values, improved_choice, parse_cvd_k, tried_mask

NUM_FEATURES = 25  # see action_features


class Decisions(NamedTuple):
    """Planner decisions: observations (batched), every tried action's rollout value (-1: not
    tried), the base policy's own action and the planner's choice (ties to it)."""

    obs: object
    values: jax.Array  # int32[M, 2N]
    own: jax.Array  # int32[M]
    label: jax.Array  # int32[M]


def action_features(obs, mix: RequestMix) -> jax.Array:
    """float32[2N, NUM_FEATURES] what the scorer sees of each action, from the observation only:
    the chosen PM's 4 remaining ratios after and before, its usable room after and the room the
    action costs (:func:`jaxsched.baselines.vm.usable_room`), Best-Fit's and the PM-level
    Best-Fit's scores, whether it is room_fit's action; and of the cluster after the action: the
    mix-weighted share of types no PM fits any more, and that fit at most one more, the mean number
    of fits (capped at 4, over 4), the mean usable room per PM; shared by all actions: the request's
    3 features, the cluster's 4 mean remaining ratios, the share of feasible actions."""
    num_actions = obs.action_mask.shape[-1]
    pm = jnp.arange(num_actions) // 2
    before, after = pm_ratios(obs), after_placement(obs)
    fits_before, fits_after = type_fits(mix, before), type_fits(mix, after)  # [N, T], [2N, T]
    cluster_fits = jnp.sum(fits_before, axis=0) - fits_before[pm] + fits_after  # [2N, T]
    room_before, room_after = usable_room(mix, before), usable_room(mix, after)
    lost = room_before[pm] - room_after
    room_fit_choice = jnp.argmin(room_fit_scores(mix, obs))
    per_action = jnp.stack([
        room_after, lost, jnp.where(obs.action_mask, best_fit_scores(obs), 0.0),
        jnp.where(obs.action_mask, pm_best_fit_scores(obs), 0.0) / 4.0,
        (jnp.arange(num_actions) == room_fit_choice).astype(jnp.float32),
        jnp.sum(mix.weight * (cluster_fits < 0.5), axis=-1), jnp.sum(mix.weight * (cluster_fits < 1.5), axis=-1),
        jnp.sum(mix.weight * jnp.minimum(cluster_fits, 4.0), axis=-1) / 4.0,
        (jnp.sum(room_before) - lost) / before.shape[0]], axis=-1)
    shared = jnp.concatenate([obs.features[0, 4:7], jnp.mean(before, axis=0),
                              jnp.mean(obs.action_mask, keepdims=True)])
    return jnp.concatenate([after, before[pm], per_action, jnp.broadcast_to(shared, (num_actions, 8))],
                           axis=-1).astype(jnp.float32)


class Placer(NamedTuple):
    """A learned placer's fixed parts: the scorer network, the request mix, room_fit (whose action
    joins the candidates) and CVD-RL's candidate set it chooses from."""

    net: MLP
    mix: RequestMix
    base: Callable
    candidates: Callable

    def logits(self, weights, features: jax.Array) -> jax.Array:
        return self.net.apply(weights, features)[..., 0]

    def policy(self, weights) -> Callable:
        """``policy(key, obs)``: the tried action the scorer ranks first (feasible whenever any is)."""

        def act(key, obs):
            allowed = tried_mask(obs, self.base(key, obs), self.candidates)
            logits = self.logits(weights, action_features(obs, self.mix))
            return jnp.argmax(jnp.where(allowed, logits, -jnp.inf)).astype(jnp.int32)

        return act


def make_placer(variant, cvd_k: tuple[int, int, int], hidden: int = 64, layers: int = 3) -> Placer:
    mix = request_mix(variant.trace, variant.params)
    return Placer(MLP(hidden, layers, 1), mix, heuristic_policy(BASE, variant),
                  lambda obs: cvd_candidates(obs, *cvd_k, mix=mix))


def planner_decisions(env, params, base: Callable, candidates: Callable, num_tried: int,
                      max_decisions: int) -> tuple[Decisions, jax.Array, jax.Array]:
    """``(decisions, count, placed)``: the first ``max_decisions`` decisions of one planner episode
    over ``base`` (the planner's own actions are followed), padded; how many are real, and the VMs
    the planner placed (over those decisions)."""
    state = env.initial_state(params)
    obs0 = env.get_obs(state, params)
    buffer = Decisions(obs=jax.tree.map(lambda x: jnp.zeros((max_decisions, *x.shape), x.dtype), obs0),
                       values=jnp.full((max_decisions, env.num_actions), -1, jnp.int32),
                       own=jnp.zeros(max_decisions, jnp.int32), label=jnp.zeros(max_decisions, jnp.int32))

    def body(carry):
        state, _, t, buffer = carry
        obs = env.get_obs(state, params)
        values, own = action_values(env, params, base, state, candidates, num_tried)
        label = improved_choice(values, own)
        row = Decisions(obs=obs, values=values, own=own, label=label)
        buffer = jax.tree.map(lambda b, x: b.at[t].set(x), buffer, row)
        state, _, done, _ = env.transition(state, label, params)
        return state, done, t + 1, buffer

    done = ~jnp.any(env.feasible(state, params))
    state, _, count, buffer = jax.lax.while_loop(lambda c: ~c[1] & (c[2] < max_decisions), body,
                                                 (state, done, jnp.int32(0), buffer))
    return buffer, count, state.placed


def collect(variant, starts: jax.Array, base: Callable, candidates: Callable, num_tried: int,
            max_decisions: int) -> tuple[Decisions, np.ndarray]:
    """The planner's real decisions at ``starts``, flattened, and its VMs placed per start.

    One start at a time, not a vmapped batch: each decision rolls out to the episode's end, and a
    batch would run every decision's rollouts as long as its longest episode needs (on one CPU core
    a 32-start batch ran over 25 minutes where the starts one by one take about 3 minutes)."""
    env = variant.env
    episode = jax.jit(lambda s: planner_decisions(env, params_at(variant, s), base, candidates, num_tried,
                                                  max_decisions))
    parts, placed = [], []
    for start in progress(starts, "planner labels", unit="start"):
        buffer, count, vms = episode(start)
        parts.append(jax.tree.map(lambda x: np.asarray(x)[:int(count)], buffer))
        placed.append(int(vms))
    return concat(parts), np.asarray(placed)


def concat(parts: list[Decisions]) -> Decisions:
    return jax.tree.map(lambda *xs: np.concatenate(xs), *parts)


class Dataset(NamedTuple):
    """Decisions as the scorer trains on them: features, which actions were tried, which are best."""

    features: jax.Array  # float32[M, 2N, F]
    tried: jax.Array  # bool[M, 2N]
    best: jax.Array  # bool[M, 2N] tried and of the greatest value
    label: jax.Array  # int32[M]
    own: jax.Array  # int32[M]


def dataset(decisions: Decisions, mix: RequestMix) -> Dataset:
    values = jnp.asarray(decisions.values)
    features = jax.jit(jax.vmap(lambda o: action_features(o, mix)))(jax.tree.map(jnp.asarray, decisions.obs))
    tried = values >= 0
    return Dataset(features, tried, tried & (values == jnp.max(values, axis=-1, keepdims=True)),
                   jnp.asarray(decisions.label), jnp.asarray(decisions.own))


def choice_loss(logits: jax.Array, data: Dataset, departure_weight: float = 1.0) -> jax.Array:
    """−log of the softmax mass (over the tried actions) on the best ones, averaged over the
    decisions; a decision where every tried action is best contributes 0. Decisions where the base
    policy's own action is not among the best (the planner departs, ~1% of them) weigh
    ``departure_weight`` times the others, so that the scorer cannot ignore them."""
    logp = jax.nn.log_softmax(jnp.where(data.tried, logits, -jnp.inf), axis=-1)
    own_best = jnp.take_along_axis(data.best, data.own[:, None], axis=-1)[:, 0]
    weight = jnp.where(own_best, 1.0, departure_weight)
    return -jnp.sum(weight * jax.nn.logsumexp(jnp.where(data.best, logp, -jnp.inf), axis=-1)) / jnp.sum(weight)


def train_scorer(placer: Placer, data: Dataset, seed: int, steps: int = 3000, batch: int = 256,
                 lr: float = 1e-3, departure_weight: float = 1.0):
    """Scorer weights from ``seed`` (initialisation and minibatches): Adam on :func:`choice_loss`."""
    init_key, data_key = jax.random.split(jax.random.PRNGKey(seed))
    weights = placer.net.init(init_key, data.features[0])
    optimizer = optax.adam(lr)
    size = data.label.shape[0]

    def loss(weights, rows):
        part = jax.tree.map(lambda x: x[rows], data)
        return choice_loss(placer.logits(weights, part.features), part, departure_weight)

    def step(carry, key):
        weights, opt_state = carry
        grads = jax.grad(loss)(weights, jax.random.randint(key, (batch,), 0, size))
        updates, opt_state = optimizer.update(grads, opt_state)
        return (optax.apply_updates(weights, updates), opt_state), None

    (weights, _), _ = jax.jit(lambda w: jax.lax.scan(step, (w, optimizer.init(w)),
                                                     jax.random.split(data_key, steps)))(weights)
    return weights


def imitation(placer: Placer, weights, data: Dataset) -> dict:
    """How well the scorer's choice (over the tried actions) matches the planner's: exactly
    (``label``), or among the tied best (``best``); the same for room_fit's own action (the
    planner's base, what imitating nothing gives); and on the decisions where the planner left its
    base (``departures``), how often the scorer left it to the planner's choice."""
    logits = placer.logits(weights, data.features)
    choice = jnp.argmax(jnp.where(data.tried, logits, -jnp.inf), axis=-1)
    picked_best = jnp.take_along_axis(data.best, choice[:, None], axis=-1)[:, 0]
    own_best = jnp.take_along_axis(data.best, data.own[:, None], axis=-1)[:, 0]
    matters = ~jnp.all(data.best | ~data.tried, axis=-1)
    departs = data.label != data.own
    return {"decisions": int(data.label.shape[0]), "label": float(jnp.mean(choice == data.label)),
            "best": float(jnp.mean(picked_best)), "base_label": float(jnp.mean(data.own == data.label)),
            "base_best": float(jnp.mean(own_best)), "decisions_that_matter": int(jnp.sum(matters)),
            "best_where_it_matters": float(jnp.sum(picked_best & matters) / jnp.maximum(jnp.sum(matters), 1)),
            "base_best_where_it_matters": float(jnp.sum(own_best & matters) / jnp.maximum(jnp.sum(matters), 1)),
            "departures": int(jnp.sum(departs)),
            "departures_matched": float(jnp.sum((choice == data.label) & departs) / jnp.maximum(jnp.sum(departs), 1))}


def pooled_ratio(learned: np.ndarray, base: np.ndarray, seed: int = 0) -> dict:
    """Learned / base scheduled length per (seed, start), ``learned[seeds, starts]``: IQM over all of
    them with a 95% bootstrap CI that resamples the starts within each seed (start variation, the
    larger one), and how many (seed, start) pairs got longer or shorter."""
    ratio = learned / base[None, :]
    interval = seed_interval(ratio.T, iqm, reps=2000, confidence=0.95, seed=seed)  # the range under 5 pairs
    return {"ratio_iqm": iqm(ratio), ("ratio_ci95" if interval.is_ci else "ratio_range"): [interval.low, interval.high],
            "ratio_mean": float(ratio.mean()),
            "pairs_improved": int((ratio > 1).sum()), "pairs_worse": int((ratio < 1).sum()),
            "pairs_equal": int((ratio == 1).sum())}


def held_out_lengths(variant, policies: dict, starts) -> dict[str, np.ndarray]:
    """Each policy's scheduled length per held-out start."""
    tables = evaluate_policies(variant, policies, starts, jax.random.PRNGKey(0))
    return {name: table["scheduled_length"] for name, table in tables.items()}


def evaluate_round(variants: list, placer: Placer, seeds_weights: list, eval_starts: dict, train_data: Dataset,
                   held_out_data: Dataset) -> dict:
    """One round's table: imitation per seed, and per cluster size room_fit's and each seed's
    learned placer's scheduled length at the held-out starts with the ratio summaries."""
    out = {"imitation": [{"train": imitation(placer, w, train_data), "held_out": imitation(placer, w, held_out_data)}
                         for w in seeds_weights], "sizes": []}
    for variant in variants:
        sized = placer._replace(base=heuristic_policy(BASE, variant))
        policies = {BASE: sized.base} | {f"learned_{i}": sized.policy(w) for i, w in enumerate(seeds_weights)}
        lengths = held_out_lengths(variant, policies, eval_starts[variant.env.num_pms])
        learned = np.stack([lengths[f"learned_{i}"] for i in range(len(seeds_weights))])
        base = lengths[BASE]
        out["sizes"].append({
            "num_pms": variant.env.num_pms, "room_fit_mean": float(base.mean()),
            "learned_mean_per_seed": [float(x) for x in learned.mean(axis=1)],
            "learned_vs_room_fit": pooled_ratio(learned, base),
            "per_seed": [ratio_summary(row, base, seed=i) for i, row in enumerate(learned)],
            "per_start": {BASE: base.tolist(), "learned": learned.tolist()}})
    return out


def _inputs(args):
    """``(variants, cvd_k, seeds)`` checked before any work (one-line UsageError otherwise)."""
    try:
        sizes = [int(n) for n in args.num_pms.split(",")]
    except ValueError:
        raise UsageError("--num-pms takes comma-separated integers") from None
    if min(sizes) < 1:
        raise UsageError("--num-pms must be >= 1")
    for flag in ("train_starts", "held_out_label_starts", "eval_starts", "seeds", "steps", "max_decisions",
                 "rounds", "batch", "hidden"):
        if getattr(args, flag) < 1:
            raise UsageError(f"--{flag.replace('_', '-')} must be >= 1")
    if args.rounds > 2:
        raise UsageError("--rounds is 1 (distil the planner over room_fit) or 2 (then over the learned placer)")
    if args.held_out_label_starts > args.eval_starts:
        raise UsageError("--held-out-label-starts must be <= --eval-starts (they are the first of them)")
    if args.lr <= 0 or args.departure_weight <= 0:
        raise UsageError("--lr and --departure-weight must be > 0")
    cvd_k = parse_cvd_k(args.cvd_k)
    try:
        variants = [build(args.env, num_pms=n, held_out_from=args.held_out_from) for n in sizes]
    except (ValueError, TypeError) as error:
        raise UsageError(str(error)) from None
    return variants, cvd_k


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jaxsched.studies.vm_distill", description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="vm-frag")
    parser.add_argument("--num-pms", default="10,20", help="cluster sizes; the scorer is trained at the first")
    parser.add_argument("--held-out-from", type=int, default=7000,
                        help="first held-out start row; training windows end before it (variant option held_out_from)")
    parser.add_argument("--train-starts", type=int, default=24, help="training start points labelled per round")
    parser.add_argument("--held-out-label-starts", type=int, default=8,
                        help="held-out starts labelled by the planner, for imitation accuracy only")
    parser.add_argument("--eval-starts", type=int, default=50, help="held-out start points the placers are measured on")
    parser.add_argument("--data-seed", type=int, default=0, help="draws the training start points")
    parser.add_argument("--eval-seed", type=int, default=99991, help="draws the held-out start points (vm_planner's)")
    parser.add_argument("--seeds", type=int, default=5, help="training seeds 0..SEEDS-1")
    parser.add_argument("--cvd-k", default="2,3,1", help="K_BF,K_PMBF,K_ROOM: CVD-RL's candidate set")
    parser.add_argument("--max-decisions", type=int, default=1500, help="decisions recorded per labelled episode")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--departure-weight", type=float, default=1.0,
                        help="loss weight of the decisions where the planner leaves its base (see choice_loss)")
    parser.add_argument("--out", type=Path, default=Path("runs/vm_distill.json"))
    args = parser.parse_args(argv)
    try:
        variants, cvd_k = _inputs(args)
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    trained_at = variants[0]
    placer = make_placer(trained_at, cvd_k, args.hidden)
    num_tried = sum(cvd_k) + 1
    train_starts = draw_starts(jax.random.PRNGKey(args.data_seed), trained_at, args.train_starts)
    eval_starts = {v.env.num_pms: draw_starts(jax.random.PRNGKey(args.eval_seed), v, args.eval_starts, held_out=True)
                   for v in variants}
    label_starts = eval_starts[trained_at.env.num_pms][:args.held_out_label_starts]
    result = {"env": args.env, "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
              "trained_at_num_pms": trained_at.env.num_pms, "train_start_points": [int(s) for s in train_starts],
              "eval_start_points": {n: [int(s) for s in s_] for n, s_ in eval_starts.items()},
              **trained_at.start_ranges(), "device": jax.devices()[0].device_kind, "rounds": []}
    base, train_parts, held_parts = placer.base, [], []
    bar = progress(range(args.rounds), "vm_distill", unit="round")
    for round_index in bar:
        t0 = time.perf_counter()
        decisions, planner_placed = collect(trained_at, train_starts, base, placer.candidates, num_tried,
                                            args.max_decisions)
        held, held_placed = collect(trained_at, label_starts, base, placer.candidates, num_tried, args.max_decisions)
        train_parts.append(decisions)
        held_parts.append(held)
        t1 = time.perf_counter()
        train_data, held_data = dataset(concat(train_parts), placer.mix), dataset(held, placer.mix)
        weights = [train_scorer(placer, train_data, seed, args.steps, args.batch, args.lr, args.departure_weight)
                   for seed in progress(range(args.seeds), "training seeds", unit="seed")]
        t2 = time.perf_counter()
        row = evaluate_round(variants, placer, weights, eval_starts, train_data, held_data)
        t3 = time.perf_counter()
        row |= {"round": round_index + 1, "planner_base": BASE if round_index == 0 else "learned_0",
                "planner_placed_train": planner_placed.tolist(), "planner_placed_held_out_labels": held_placed.tolist(),
                "seconds": {"labels": t1 - t0, "training": t2 - t1, "evaluation": t3 - t2}}
        result["rounds"].append(row)
        for size in row["sizes"]:
            ratio = size["learned_vs_room_fit"]
            bar.write(f"round {round_index + 1} N={size['num_pms']}: room_fit {size['room_fit_mean']:.1f}, learned "
                      f"{' '.join(f'{m:.1f}' for m in size['learned_mean_per_seed'])}; learned/room_fit IQM "
                      f"{ratio['ratio_iqm']:.3f} [{'range ' if 'ratio_range' in ratio else ''}"
                      f"{ratio.get('ratio_ci95', ratio.get('ratio_range'))[0]:.3f}, "
                      f"{ratio.get('ratio_ci95', ratio.get('ratio_range'))[1]:.3f}], "
                      f"better {ratio['pairs_improved']} worse {ratio['pairs_worse']} of (seed, start) pairs")
        accuracy = row["imitation"][0]
        bar.write(f"round {round_index + 1} imitation (seed 0): train best {accuracy['train']['best']:.3f} "
                  f"(room_fit {accuracy['train']['base_best']:.3f}), held-out best {accuracy['held_out']['best']:.3f} "
                  f"(room_fit {accuracy['held_out']['base_best']:.3f}); seconds {row['seconds']}")
        base = placer.policy(weights[0])  # the next round's planner rolls out the first seed's placer
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1))  # after each round: a later one may take long
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
