"""The site command end to end at a tiny size: python -m jaxsched.studies.trace_policy trains PPO on
the CTC excerpt's training windows and evaluates it, the HPC rules and a synthetic-trained agent on the
later held-out windows."""

import csv
import json

import jax
import numpy as np
import pytest
import yaml

from jaxsched import pretrained, registry
from jaxsched.core.rollout import make_evaluator
from jaxsched.core.runs import read_run_config
from jaxsched.core.unfinished import marked
from jaxsched.envs.deeprm.metrics import job_table
from jaxsched.experiment import load_policy
from jaxsched.studies.swf_eval import ranking
from jaxsched.studies.trace_policy import DEFAULT_CONFIG, family_registered, held_out_stats, load_synthetic, main

SYNTHETIC = "bracis7-ppo-6m"  # the MDP-design agent trained on bracis-7's generated jobs
TINY = {"iterations": 2, "chunk": 2, "checkpoint_every": 2,
        "algo_options": {"num_envs": 4, "num_steps": 16, "minibatch_size": 32, "update_epochs": 1}}


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """One tiny run (2 PPO iterations, windows of 32 jobs, three heuristics, one synthetic-trained agent),
    shared by the tests."""
    root = tmp_path_factory.mktemp("trace_policy")
    config = yaml.safe_load(DEFAULT_CONFIG.read_text())
    config.update(TINY)
    config["algo_options"] = {**config["algo_options"], **TINY["algo_options"]}
    (root / "tiny.yaml").write_text(yaml.safe_dump(config))
    out = root / "out"
    code = main(["--trace", "dataset:ctc-sp2-first969", "--out", str(out), "--config", str(root / "tiny.yaml"),
                 "--window", "32", "--policies", "fcfs,easy,f1", "--episodes", "1", "--synthetic", SYNTHETIC])
    return code, out


def test_the_command_writes_the_report_files(study):
    code, out = study
    assert code == 0
    for name in ("report.md", "eval.json", "learning_curve.png", "held_out_jobs.csv", "run/config.json",
                 "run/metrics.csv"):
        assert (out / name).stat().st_size > 0, name
    report = (out / "report.md").read_text()
    for row in ("| fcfs |", "| easy |", "| f1 |", "| ppo-s0 |", "| ppo-s0-sampled |", "Disjoint: true"):
        assert row in report
    assert "swf-compact" not in registry.registered()  # registered only while the command ran


def test_training_and_held_out_jobs_are_disjoint_and_recorded(study):
    _, out = study
    result = json.loads((out / "eval.json").read_text())
    facts, instances = result["trace_facts"], result["instances"]
    assert instances["disjoint"] is True and facts["disjoint"] is True
    assert facts["training"]["job_index"][1] <= min(instances["evaluation"]["window_starts"])
    assert facts["training"]["submit_s"][1] < facts["split"]["split_submit_s"] <= facts["held_out"]["submit_s"][0]
    run_config = read_run_config(out / "run")
    assert run_config["env"] == "swf-compact"
    assert run_config["env_options"]["train_fraction"] == facts["split"]["train_fraction"] == 0.7
    last_training_id = facts["training"]["job_ids"][1]
    with open(out / "held_out_jobs.csv", newline="") as file:
        rows = list(csv.DictReader(file))
    assert rows and all(int(r["job_id"]) > last_training_id for r in rows)
    jobs = facts["held_out"]["windows"] * 32
    for name, stats in result["policies"].items():
        mine = [r for r in rows if r["policy"] == name]
        assert len(mine) == stats["jobs"] == jobs, name
        assert sum(r["status"] == "finished" for r in mine) == stats["finished"]
        assert stats["mean_bounded_slowdown"] >= 1.0 and stats["mean_wait_s"] >= 0.0


def test_an_unfinished_row_is_never_ranked():
    text = ranking({"done": {"mean_bounded_slowdown": 2.0, "finished": 4, "jobs": 4},
                    "cut": {"mean_bounded_slowdown": 1.0, "finished": 3, "jobs": 4}}, "mean_bounded_slowdown")
    assert "done 2.000." in text and "Not ranked" in text and "cut 1.000 over 3 of 4 jobs" in text


def test_a_missing_trace_is_one_line_error(tmp_path, capsys):
    assert main(["--trace", str(tmp_path / "nope.swf"), "--out", str(tmp_path / "o")]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("error:") and "\n" not in error


def test_the_synthetic_agent_has_rows_beside_the_others(study):
    _, out = study
    result = json.loads((out / "eval.json").read_text())
    report = (out / "report.md").read_text()
    jobs = result["trace_facts"]["held_out"]["windows"] * 32
    for name in (f"synthetic:{SYNTHETIC}", f"synthetic:{SYNTHETIC}-sampled"):
        stats = result["policies"][name]
        assert f"| {marked(name, stats)} |" in report, name
        assert stats["kind"] == "synthetic" and stats["jobs"] == jobs and stats["finished"] <= jobs
        # CTC gives requested times: the label says the agent sees them though it trained on known run times
        assert "requested times" in stats["label"] and "bracis-7" in stats["label"]
    assert result["policies"]["ppo-s0"]["kind"] == "trace-trained" and result["policies"]["f1"]["kind"] == "heuristic"
    assert result["synthetic"][f"synthetic:{SYNTHETIC}"]["backlog_scale"] == pytest.approx(32 / 60)


def test_the_synthetic_agents_greedy_rows_are_its_own_choices(study):
    """Rolled out on a held-out window (the second: its queue overflows the 10 slots), the row's policy
    chooses what the shipped agent chooses when called directly on the same observations (its backlog
    feature at its own scale, length / 60), and the resulting schedule is the one in held_out_jobs.csv."""
    _, out = study
    direct = pretrained.load(SYNTHETIC)
    with family_registered():
        variant = registry.build("swf-compact", trace="dataset:ctc-sp2-first969", window=32)
        (agent,) = load_synthetic([SYNTHETIC], variant)
    env, key = variant.env, jax.random.PRNGKey(0)
    assert env.stepping == direct.variant.env.stepping == agent.stepping == "event"
    batched, _ = variant.held_out(2)
    params = jax.tree.map(lambda x: x[1], batched)
    wrapped, chosen, step = jax.jit(agent.greedy), jax.jit(direct.policy(True)), jax.jit(env.step_env)
    obs, state = env.reset_env(key, params)
    backlog = 2 * 20 + 7 * 10  # the bracis state: 2 H cluster features, 7 per slot, then the backlog length
    actions, backlogged, done = [], 0, False
    while not done:
        backlogged += int(state.backlog_len) > 0
        assert float(obs.features[backlog]) == pytest.approx(float(state.backlog_len) / 32)  # the trace env's scale
        own = obs.replace(features=obs.features.at[backlog].set(state.backlog_len / 60.0))
        action = int(wrapped(key, obs))
        assert action == int(chosen(key, own)), len(actions)
        actions.append(action)
        obs, state, _, done, _ = step(key, state, action, params)
        done = bool(done) or bool(env.is_truncated(state, params))
    assert sum(a < env.num_slots for a in actions) >= 16 and backlogged > 0  # it placed jobs; some waited unseen
    with open(out / "held_out_jobs.csv", newline="") as file:
        rows = [r for r in csv.DictReader(file) if r["policy"] == f"synthetic:{SYNTHETIC}" and r["window"] == "1"]
    assert [int(r["start_step"]) for r in rows] == [int(s) for s in np.asarray(state.start)]


def test_a_synthetic_agent_whose_state_cannot_match_is_one_line_error(tmp_path, capsys):
    # deeprm-mlp-load0.7 reads DeepRM's image, whose width grows with the cluster
    assert main(["--trace", "dataset:ctc-sp2-first969", "--out", str(tmp_path / "o"), "--window", "32",
                 "--synthetic", "deeprm-mlp-load0.7"]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("error: --synthetic deeprm-mlp-load0.7") and "'image'" in error and "\n" not in error
    assert not (tmp_path / "o" / "run").exists()  # refused before any training
    assert main(["--trace", "dataset:ctc-sp2-first969", "--out", str(tmp_path / "p"), "--synthetic", "nope"]) == 2
    assert "neither a pretrained policy" in capsys.readouterr().err


def test_the_adapter_rescales_only_the_backlog_and_refuses_other_layouts():
    """The agent's bracis state on a trace env of another backlog size: only the backlog-length
    feature is rescaled (to length / the agent's backlog); other sizes and time limits are refused."""
    from jaxsched.envs.deeprm.env import DeepRM
    from jaxsched.errors import UsageError
    from jaxsched.studies.trace_policy import adapt_observations, bracis_backlog_index

    common = dict(num_res=1, observation="bracis", allocation="fits_now", stepping="event")
    agent_env = DeepRM(capacity=64, max_job_size=64, backlog_size=60, **common)
    trace_env = DeepRM(capacity=20, max_job_size=20, backlog_size=32, **common)
    seen = lambda key, obs: obs.features  # noqa: E731  (a "policy" that shows what it was fed)
    adapted, scale = adapt_observations(seen, agent_env, trace_env, "agent")
    obs = trace_env.get_obs(trace_env.initial_state(trace_env.default_params))
    fed = np.asarray(adapted(jax.random.PRNGKey(0), obs.replace(features=obs.features.at[110].set(0.5))))
    assert bracis_backlog_index(trace_env) == 110 and scale == pytest.approx(32 / 60)
    assert fed[110] == pytest.approx(0.5 * 32 / 60)  # 16 waiting jobs: 16 / 32 in the trace env, 16 / 60 for the agent
    np.testing.assert_array_equal(np.delete(fed, 110), np.delete(np.asarray(obs.features), 110))
    for other, words in ((DeepRM(capacity=64, max_job_size=64, horizon=15, **common), "horizon 15"),
                         (DeepRM(capacity=64, max_job_size=64, time_limit=50, **common), "L = 50"),
                         (DeepRM(capacity=64, max_job_size=64, num_slots=5, **common), "5 slots")):
        with pytest.raises(UsageError, match=words):
            adapt_observations(seen, other, trace_env, "agent")


def test_a_run_directory_gives_one_agent_per_seed(study):
    """--synthetic also takes a run directory (here the study's own run: another log's agent is a
    transfer between logs), every seed, named after the directory."""
    _, out = study
    with family_registered():
        variant = registry.build("swf-compact", trace="dataset:ctc-sp2-first969", window=32)
        (agent,) = load_synthetic([str(out / "run")], variant)
    assert agent.name == "synthetic:run-s0" and agent.seed == 0 and agent.backlog_scale == 1.0
    assert agent.env_name == "swf-compact windows of dataset:ctc-sp2-first969" and agent.notes == ()


@pytest.fixture(scope="module")
def validated(tmp_path_factory):
    """A tiny run whose checkpoints are chosen on validation windows (the last 10% of the training part):
    8 iterations, every 2nd checkpoint kept, two seeds."""
    root = tmp_path_factory.mktemp("trace_policy_validation")
    config = yaml.safe_load(DEFAULT_CONFIG.read_text())
    config.update(TINY, iterations=8, keep_every=2)
    config["algo_options"] = {**config["algo_options"], **TINY["algo_options"]}
    config["env_options"] = {**config["env_options"], "validation_fraction": 0.1}
    (root / "tiny.yaml").write_text(yaml.safe_dump(config))
    out = root / "out"
    assert main(["--trace", "dataset:ctc-sp2-first969", "--out", str(out), "--config", str(root / "tiny.yaml"),
                 "--window", "32", "--policies", "fcfs", "--episodes", "1", "--seeds", "0,1"]) == 0
    return out


def test_validation_windows_lie_between_training_and_held_out(validated):
    result = json.loads((validated / "eval.json").read_text())
    facts, validation = result["trace_facts"], result["validation"]
    assert facts["training"]["job_index"][1] == facts["validation"]["job_index"][0]
    assert facts["training"]["submit_s"][1] < facts["split"]["validation_submit_s"] <= facts["validation"]["submit_s"][0]
    assert min(validation["window_starts"]) >= facts["validation"]["job_index"][0]
    assert max(validation["window_starts"]) + 32 <= facts["validation"]["job_index"][1] \
        <= min(result["instances"]["evaluation"]["window_starts"])
    assert validation["windows"] == facts["validation"]["windows"] == len(validation["window_starts"]) > 0
    assert result["instances"]["training"]["job_index"] == facts["training"]["job_index"]


def test_each_seed_takes_its_best_kept_checkpoint_on_validation(validated):
    """Every 2nd checkpoint is kept (beyond the newest 3), each seed's row is the one with the lowest
    validation score, and the held-out row is that checkpoint's greedy policy (the last one beside it)."""
    result = json.loads((validated / "eval.json").read_text())
    validation, policies = result["validation"], result["policies"]
    assert validation["checkpoints"] == [2, 4, 6, 8]
    for seed in ("0", "1"):
        scores = {int(k): v for k, v in validation["scores"][seed].items()}
        best = min(scores.values())
        assert validation["chosen_iteration"][seed] == max(k for k, v in scores.items() if v == best)
        assert f"iteration {validation['chosen_iteration'][seed]} chosen" in policies[f"ppo-s{seed}"]["label"]
        assert policies[f"ppo-s{seed}-last"]["label"].endswith("(iteration 8)")
    with family_registered():
        variant = registry.build("swf-compact", **read_run_config(validated / "run")["env_options"])
        step = validation["chosen_iteration"]["1"]
        policy, _, _ = load_policy(validated / "run", greedy=True, seed_index=1, step=step)
        batched, _ = variant.held_out()
        table = job_table(make_evaluator(variant.env, policy)(batched, jax.random.PRNGKey(99991)))
    stats = held_out_stats(table, batched, variant.quantum)
    assert stats["mean_bounded_slowdown"] == policies["ppo-s1"]["mean_bounded_slowdown"]


def test_validation_without_kept_checkpoints_is_refused(tmp_path, capsys):
    config = yaml.safe_load(DEFAULT_CONFIG.read_text())
    config["env_options"] = {**config["env_options"], "validation_fraction": 0.1}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(config))
    assert main(["--trace", "dataset:ctc-sp2-first969", "--out", str(tmp_path / "o"), "--config",
                 str(tmp_path / "c.yaml"), "--window", "32"]) == 2
    assert "keep_every" in capsys.readouterr().err
    assert not (tmp_path / "o" / "run").exists()
