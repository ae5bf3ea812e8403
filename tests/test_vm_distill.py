"""The planner distilled into a learned VM placer (jaxsched.studies.vm_distill)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxsched.envs.vm.episodes import draw_starts, params_at
from jaxsched.registry import build
from jaxsched.studies import vm_distill
from jaxsched.studies.vm_rollout import candidate_set, improved_action

CVD_K = (1, 1, 1)


@pytest.fixture(scope="module")
def setting():
    """A 3-PM vm-frag with short windows, a placer and the planner's decisions at 3 training starts."""
    variant = build("vm-frag", num_pms=3, window=150, held_out_from=5000)
    placer = vm_distill.make_placer(variant, CVD_K, hidden=16)
    candidates, num_tried = candidate_set(variant, CVD_K)
    starts = draw_starts(jax.random.PRNGKey(1), variant, 3)
    decisions, placed = vm_distill.collect(variant, starts, placer.base, candidates, num_tried, 120)
    return variant, placer, starts, decisions, placed


def test_labels_are_the_planners_choices_along_its_own_episode(setting):
    """Replaying improved_action from the first start's initial state, following its choice, gives
    the recorded observations and labels decision by decision."""
    variant, placer, starts, decisions, _ = setting
    env, params = variant.env, params_at(variant, starts[0])
    candidates, num_tried = candidate_set(variant, CVD_K)
    choose = jax.jit(lambda state: improved_action(env, params, placer.base, state, candidates, num_tried))
    state, done, t = env.initial_state(params), False, 0
    while not done and t < 120:  # the episode, or as much of it as was recorded
        action, own = choose(state)
        np.testing.assert_array_equal(decisions.obs.features[t], env.get_obs(state, params).features)
        assert (int(action), int(own)) == (int(decisions.label[t]), int(decisions.own[t]))
        state, _, done, _ = env.transition(state, action, params)
        t += 1
    assert t > 10 and decisions.label.shape[0] > t  # the other starts' decisions follow


def test_scorer_learns_its_labels_better_than_chance_and_deterministically(setting):
    _, placer, _, decisions, _ = setting
    data = vm_distill.dataset(decisions, placer.mix)
    assert data.features.shape[-1] == vm_distill.NUM_FEATURES
    weights = vm_distill.train_scorer(placer, data, seed=0, steps=300, batch=64)
    again = vm_distill.train_scorer(placer, data, seed=0, steps=300, batch=64)
    jax.tree.map(np.testing.assert_array_equal, weights, again)
    untrained = placer.net.init(jax.random.PRNGKey(0), data.features[0])
    assert vm_distill.choice_loss(placer.logits(weights, data.features), data) < \
        vm_distill.choice_loss(placer.logits(untrained, data.features), data)
    chance = float(jnp.mean(jnp.sum(data.best, -1) / jnp.sum(data.tried, -1)))
    accuracy = vm_distill.imitation(placer, weights, data)
    assert accuracy["best"] > chance and accuracy["decisions"] == decisions.label.shape[0]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_learned_policy_picks_only_feasible_candidates(setting, seed):
    """Whatever the weights, the placer chooses among the feasible tried actions."""
    variant, placer, _, decisions, _ = setting
    weights = placer.net.init(jax.random.PRNGKey(seed), jnp.zeros(vm_distill.NUM_FEATURES))
    obs = jax.tree.map(jnp.asarray, decisions.obs)
    actions = jax.jit(jax.vmap(lambda o: placer.policy(weights)(None, o)))(obs)
    feasible = np.asarray(obs.action_mask)[np.arange(len(actions)), np.asarray(actions)]
    assert feasible.all()
    chosen = jax.vmap(lambda o: placer.candidates(o) | (jnp.arange(6) == placer.base(None, o)))(obs)
    assert np.asarray(chosen)[np.arange(len(actions)), np.asarray(actions)].all()


def test_collection_is_deterministic(setting):
    variant, placer, starts, decisions, placed = setting
    candidates, num_tried = candidate_set(variant, CVD_K)
    again, placed_again = vm_distill.collect(variant, starts, placer.base, candidates, num_tried, 120)
    np.testing.assert_array_equal(again.values, decisions.values)
    np.testing.assert_array_equal(placed_again, placed)


def test_pooled_ratio_counts_pairs():
    summary = vm_distill.pooled_ratio(np.array([[2.0, 2.0], [1.0, 4.0]]), np.array([2.0, 2.0]))
    assert (summary["pairs_improved"], summary["pairs_worse"], summary["pairs_equal"]) == (1, 1, 2)
    assert "ratio_ci95" not in summary  # 4 pairs: under 5, the range, never called a CI
    assert summary["ratio_range"] == [0.5, 2.0]


@pytest.mark.parametrize("argv, message", [
    (["--num-pms", "ten"], "--num-pms"),
    (["--seeds", "0"], "--seeds"),
    (["--departure-weight", "0"], "--departure-weight"),
    (["--rounds", "3"], "--rounds"),
    (["--cvd-k", "1,2"], "--cvd-k"),
    (["--held-out-label-starts", "9", "--eval-starts", "4"], "--held-out-label-starts"),
    (["--held-out-from", "10"], "held_out_from"),
])
def test_bad_arguments_give_one_line_errors(argv, message, capsys):
    assert vm_distill.main(["--num-pms", "3", *argv] if argv[0] != "--num-pms" else argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and message in err and "\n" not in err
