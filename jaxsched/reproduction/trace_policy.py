"""The trace_policy items (issue 53): PPO trained on the first 70% of a real log, evaluated on its later
windows beside the rules sites deploy.
"""

from __future__ import annotations

import re

from jaxsched.core import stats
from jaxsched.reproduction.items import Item, Step
from jaxsched.reproduction.numbers import Number, NumberError, at, computed, json_value, seed_interval


def _ppo_rows(root, name: str, suffix: str) -> list[dict]:
    """The trace-trained PPO rows of one kind ("" greedy, "-sampled"), one per seed, of a trace_policy eval.json."""
    policies = json_value(root, f"{name}/eval.json", "policies")
    rows = [row for key, row in policies.items() if re.fullmatch(rf"ppo-s\d+{suffix}", key)]
    if not rows:
        raise NumberError(f"{name}/eval.json: no ppo-s<seed>{suffix} rows")
    return rows


def _trace_ppo(root, name: str, suffix: str = "") -> list[float]:
    """Held-out mean bounded slowdown of each trace-trained PPO seed in a trace_policy eval.json, of one kind ("" greedy,
    "-sampled", "-last": greedy from the last checkpoint beside a validation choice)."""
    return [row["mean_bounded_slowdown"] for row in _ppo_rows(root, name, suffix)]


def _seed_summary(file: str, name: str, suffix: str) -> tuple[Number, Number]:
    """The IQM over seeds of one kind of PPO row (see :func:`_trace_ppo`) and its interval."""
    return (computed(file, lambda root: stats.iqm(_trace_ppo(root, name, suffix))),
            Number(file, lambda root: seed_interval(_trace_ppo(root, name, suffix)).text(".3f")))


def trace_policy_numbers(name: str, agents_finish: bool = True) -> dict[str, Number]:
    """The headline fields of a trace_policy study: PPO's IQM and interval over seeds (greedy and sampled; greedy's
    IQM mean wait and seeds below F1 + EASY too), the deployed rules it is measured against (F1 + EASY's mean wait
    too), and the held-out job count every row finished (with ``agents_finish`` false, every rule; then PPO's
    finished / jobs per kind, summed over seeds)."""
    file = f"{name}/eval.json"
    numbers = {"seeds": computed(file, lambda root: len(_trace_ppo(root, name)), ".0f")}
    for kind, suffix in (("greedy", ""), ("sampled", "-sampled")):
        numbers[kind], numbers[f"{kind}_ci"] = _seed_summary(file, name, suffix)
    for rule in ("f1+easy", "f1", "easy", "sjf-requested+easy", "unicep+easy", "fcfs"):
        numbers[rule.replace("+", "_").replace("-", "_")] = at(file, f"policies/{rule}/mean_bounded_slowdown")
    numbers["greedy_wait"] = computed(file, lambda root: stats.iqm(
        [row["mean_wait_s"] for row in _ppo_rows(root, name, "")]), ".0f")
    numbers["f1_easy_wait"] = at(file, "policies/f1+easy/mean_wait_s", ".0f")
    numbers["greedy_below_f1_easy"] = computed(file, lambda root: _seeds_below(root, name, "f1+easy"), ".0f")
    numbers["jobs"] = computed(file, lambda root: _every_row_finished(root, name, agents_finish), ".0f")
    numbers["best_rule"] = Number(file, lambda root: "{} {:.3f}".format(*_best_rule(root, name)))
    numbers["greedy_below_best_rule"] = computed(file, lambda root: _seeds_below(root, name, _best_rule(root, name)[0]),
                                                 ".0f")
    if not agents_finish:
        for kind, suffix in (("greedy", ""), ("sampled", "-sampled")):
            numbers[f"{kind}_finished"] = Number(file, lambda root, x=suffix: "{}/{}".format(
                *_ppo_finished(root, name, x)))
            numbers[f"{kind}_all_seeds"] = Number(file, lambda root, x=suffix: "{}/{}".format(
                *_ppo_seeds_finishing(root, name, x)))
    return numbers


def _best_rule(root, name: str) -> tuple[str, float]:
    """The deployable rule (every heuristic row but the run-time oracle ``sjf-actual``) with the lowest held-out mean
    bounded slowdown, and that value."""
    policies = json_value(root, f"{name}/eval.json", "policies")
    rules = {key: row["mean_bounded_slowdown"] for key, row in policies.items()
             if not key.startswith(("ppo-", "synthetic:")) and key != "sjf-actual"}
    best = min(rules, key=rules.get)
    return best, rules[best]


def _seeds_below(root, name: str, rule: str) -> int:
    """Greedy PPO seeds whose held-out mean bounded slowdown is below ``rule``'s."""
    bar = json_value(root, f"{name}/eval.json", "policies")[rule]["mean_bounded_slowdown"]
    return sum(value < bar for value in _trace_ppo(root, name))


def _ppo_finished(root, name: str, suffix: str) -> tuple[int, int]:
    """Finished and held-out jobs of the trace-trained PPO rows of one kind ("" greedy, "-sampled"), summed."""
    rows = _ppo_rows(root, name, suffix)
    return sum(r["finished"] for r in rows), sum(r["jobs"] for r in rows)


def _ppo_seeds_finishing(root, name: str, suffix: str) -> tuple[int, int]:
    """Seeds whose PPO row of one kind finished every held-out job, and seeds."""
    rows = _ppo_rows(root, name, suffix)
    return sum(r["finished"] == r["jobs"] for r in rows), len(rows)


def _every_row_finished(root, name: str, agents_too: bool = True) -> int:
    """The held-out job count, read only if every heuristic and (``agents_too``) trace-trained row of the study
    finished all its jobs (the headline says so; synthetic agents' rows are quoted with their own finished /
    jobs, and so are PPO's where ``agents_too`` is false)."""
    policies = json_value(root, f"{name}/eval.json", "policies")
    unfinished = [key for key, row in policies.items()
                  if row["finished"] != row["jobs"] and not key.startswith("synthetic:")
                  and (agents_too or not key.startswith("ppo-"))]
    if unfinished:
        raise NumberError(f"{name}/eval.json: {', '.join(unfinished)} leave jobs unfinished")
    return policies["fcfs"]["jobs"]


SYNTHETIC_AGENTS = ("bracis7-ppo-6m", "bracis3-ppo-12m")  # the shipped MDP-design agents the ablations run beside


def trace_policy_item(name: str, trace: str, label: str, wall_s: float, ablation: str = "",
                      iterations: int | None = None, synthetic: bool = True, agents_finish: bool = True,
                      seeds: int = 5, window: int | None = None, validation: bool = False) -> Item:
    """A trace_policy study; ``ablation`` names a configs/studies/trace_ppo_compact_<ablation>.yaml that differs
    from the study's config in one choice, run with the shipped synthetic agents beside it unless ``synthetic``
    is false (an ablation whose state they cannot read: another number of slots); ``iterations`` (the budget
    ablation) trains the study's config for another number of iterations than its 500; ``seeds`` 0 .. seeds - 1;
    ``window``: jobs per window instead of the config's 64 (training and held-out windows alike); ``validation``: the
    config chooses each seed's checkpoint on validation windows (its ``-last`` rows quoted beside)."""
    options = "--seeds " + ",".join(map(str, range(seeds))) + (f" --iterations {iterations}" if iterations else "")
    options += f" --window {window}" if window else ""
    numbers = trace_policy_numbers(name, agents_finish)
    headline = ("{seeds} seeds, held-out mean bounded slowdown: PPO greedy IQM {greedy} {greedy_ci}, sampled "
                "{sampled} {sampled_ci}; best deployable rule {best_rule}; F1 + EASY {f1_easy} (F1 {f1}), SJF by "
                "requested time + EASY {sjf_requested_easy}, FCFS + EASY {easy}; every rule and PPO row finished "
                "{jobs}/{jobs} jobs")
    if not agents_finish:  # PPO rows that leave jobs unfinished: their means are quoted beside finished / jobs
        headline = ("{seeds} seeds, held-out mean bounded slowdown over the jobs each row finished: PPO greedy IQM "
                    "{greedy} {greedy_ci} with {greedy_finished} jobs finished ({greedy_all_seeds} seeds finish "
                    "all), sampled {sampled} {sampled_ci} with {sampled_finished} ({sampled_all_seeds} seeds); "
                    "not ranked where jobs are left; best deployable rule {best_rule}; F1 + EASY {f1_easy} (F1 "
                    "{f1}), SJF by requested time + EASY {sjf_requested_easy}; every rule finished {jobs}/{jobs} jobs")
    if validation:
        numbers["greedy_last"], numbers["greedy_last_ci"] = _seed_summary(f"{name}/eval.json", name, "-last")
        numbers["chosen"] = Number(f"{name}/eval.json", lambda root: ", ".join(map(str, json_value(
            root, f"{name}/eval.json", "validation/chosen_iteration").values())))
        headline += ("; greedy from each seed's checkpoint chosen on the validation windows (iterations {chosen}); "
                     "the last checkpoints of the same runs: IQM {greedy_last} {greedy_last_ci}")
    if ablation:
        options += f" --config configs/studies/trace_ppo_compact_{ablation}.yaml"
    if ablation and synthetic:
        options += f" --synthetic {','.join(SYNTHETIC_AGENTS)}"
        for agent in SYNTHETIC_AGENTS:
            field = agent.split("-")[0]
            numbers[field] = at(f"{name}/eval.json", f"policies/synthetic:{agent}-sampled/mean_bounded_slowdown")
            numbers[f"{field}_greedy"] = at(f"{name}/eval.json", f"policies/synthetic:{agent}/mean_bounded_slowdown")
            numbers[f"{field}_greedy_finished"] = at(f"{name}/eval.json", f"policies/synthetic:{agent}/finished", ".0f")
        headline += ("; synthetic-trained agents (sampled): bracis-7's {bracis7}, bracis-3's {bracis3}; greedy they "
                     "leave jobs unfinished ({bracis7_greedy_finished} and {bracis3_greedy_finished} of {jobs})")
    return Item(
        id=name,
        paper=f"issue 53: PPO (compact state) trained on the first 70% of {label}'s jobs, evaluated on the later "
              "disjoint windows beside the rules sites deploy (RLScheduler's protocol)"
              + ("; the jobs from 60% to 70% of the trace kept out of training as validation windows that choose "
                 "each seed's checkpoint (every 50 iterations)" if validation else "")
              + (f"; ablation '{ablation}' of the study's config" if ablation else "")
              + (f"; budget ablation: {iterations} iterations instead of 500" if iterations else "")
              + (f"; windows of {window} jobs instead of 64 (more, shorter training windows; the rules evaluated "
                 "on the same held-out windows)" if window else ""),
        steps=(Step(f"jaxsched.studies.trace_policy --trace {trace} --out {{out}}/{name} {options}",
                    quick="--quick"),),
        outputs=(f"{name}/report.md", f"{name}/eval.json", f"{name}/learning_curve.png"),
        wall_s=wall_s,
        headline=headline,
        numbers=numbers,
        note="Kept: report.md, eval.json, learning_curve.png, run/config.json and run/metrics.csv; the per-job "
             "CSV and the checkpoints are not kept (the command rewrites them). wall_s measured on a 2-core AMD "
             "EPYC shared with other jobs.",
    )


ITEMS: list[Item] = [
    trace_policy_item("trace_policy_lublin", "dataset:lublin-256", "the Lublin-256 trace", 697),
    trace_policy_item("trace_policy_ctc", "dataset:ctc-sp2-first969", "the CTC SP2 excerpt", 962),
    trace_policy_item("trace_policy_lublin_dense", "dataset:lublin-256", "the Lublin-256 trace", 1370, "dense"),
    trace_policy_item("trace_policy_lublin_reduced", "dataset:lublin-256", "the Lublin-256 trace", 392, "reduced"),
    trace_policy_item("trace_policy_ctc_dense", "dataset:ctc-sp2-first969", "the CTC SP2 excerpt", 541, "dense"),
    trace_policy_item("trace_policy_ctc_it25", "dataset:ctc-sp2-first969", "the CTC SP2 excerpt", 145, iterations=25),
    trace_policy_item("trace_policy_ctc_it100", "dataset:ctc-sp2-first969", "the CTC SP2 excerpt", 203, iterations=100),
    trace_policy_item("trace_policy_lublin_it100", "dataset:lublin-256", "the Lublin-256 trace", 239, iterations=100),
    trace_policy_item("trace_policy_ctc_slots20", "dataset:ctc-sp2-first969", "the CTC SP2 excerpt", 1000, "slots20",
                      synthetic=False),
    trace_policy_item("trace_policy_lublin_slots20", "dataset:lublin-256", "the Lublin-256 trace", 960, "slots20",
                      synthetic=False),
    trace_policy_item("trace_policy_ctc_reduced", "dataset:ctc-sp2-first969", "the CTC SP2 excerpt", 1146, "reduced",
                      synthetic=False),
    trace_policy_item("trace_policy_lublin_it1000", "dataset:lublin-256", "the Lublin-256 trace", 1408,
                      iterations=1000),
    trace_policy_item("trace_policy_lublin_seconds", "dataset:lublin-256", "the Lublin-256 trace", 602, "seconds",
                      synthetic=False),
    trace_policy_item("trace_policy_lublin_bsld", "dataset:lublin-256", "the Lublin-256 trace", 563, "bsld",
                      synthetic=False),
    trace_policy_item("trace_policy_lublin_slotnet", "dataset:lublin-256", "the Lublin-256 trace", 1257, "slotnet",
                      synthetic=False, agents_finish=False),
    trace_policy_item("trace_policy_ctc_slotnet", "dataset:ctc-sp2-first969", "the CTC SP2 excerpt", 1242, "slotnet",
                      synthetic=False, agents_finish=False),
    trace_policy_item("trace_policy_lublin_slotnet_idle_10seeds", "dataset:lublin-256", "the Lublin-256 trace", 1947,
                      "slotnet_idle", synthetic=False, seeds=10),
    trace_policy_item("trace_policy_ctc_slotnet_idle", "dataset:ctc-sp2-first969", "the CTC SP2 excerpt", 1128,
                      "slotnet_idle", synthetic=False),
    trace_policy_item("trace_policy_ctc_slotnet_idle_it100", "dataset:ctc-sp2-first969", "the CTC SP2 excerpt", 282,
                      "slotnet_idle", iterations=100, synthetic=False),
    trace_policy_item("trace_policy_ctc_slotnet_idle_w32_it100", "dataset:ctc-sp2-first969", "the CTC SP2 excerpt",
                      248, "slotnet_idle", iterations=100, synthetic=False, window=32),
    trace_policy_item("trace_policy_ctc_slotnet_idle_w32", "dataset:ctc-sp2-first969", "the CTC SP2 excerpt",
                      1071, "slotnet_idle", synthetic=False, window=32),
    trace_policy_item("trace_policy_lublin_slotnet_idle_w32", "dataset:lublin-256", "the Lublin-256 trace",
                      645, "slotnet_idle", synthetic=False, window=32),
    trace_policy_item("trace_policy_lublin_slotnet_idle_w32_validation", "dataset:lublin-256", "the Lublin-256 trace",
                      1099, "slotnet_idle_validation", synthetic=False, window=32, validation=True),
    trace_policy_item("trace_policy_lublin_slotnet_idle_w32_validation_it1000", "dataset:lublin-256",
                      "the Lublin-256 trace", 1996, "slotnet_idle_validation", synthetic=False, window=32,
                      validation=True, iterations=1000),
    trace_policy_item("trace_policy_ctc_slotnet_idle_w32_validation_it1000", "dataset:ctc-sp2-first969",
                      "the CTC SP2 excerpt", 1927, "slotnet_idle_validation", synthetic=False, window=32,
                      validation=True, iterations=1000),
]
