"""Which instances a policy was trained on and which it is evaluated on, and whether the two overlap.

Every evaluation records ``"instances": {"training": ..., "evaluation": ..., "disjoint": bool}``
(``eval.json``; ``evaluate --summary``: in each policy's stats). Each side is one of

- ``{"kind": "start_rows", "trace": T, "start_range": [lo, hi), "window": W, "rows": [a, b)}``: VM
  placement, episodes starting at rows ``[lo, hi)`` of trace ``T``, each ``W`` rows long, so they read
  rows ``[a, b)``;
- ``{"kind": "generator", "keys": [seed, ...], ...}``: instances (jobsets, grid windows) drawn by the
  env's generator from ``jax.random.PRNGKey(seed)`` for each seed. Training that draws fresh instances
  every iteration records ``"fresh_per_iteration": true`` and the training seeds whose key streams
  they come from (split from ``PRNGKey(seed)``, never that key itself), with ``keys`` empty;
- ``{"kind": "trace_windows", "swf": PATH, "windows": [lo, hi)}``: consecutive job windows of an SWF trace;
- ``{"kind": "reference_rng" | "file", ...}``: the reference DeepRM generator, a jobsets CSV file (never
  what training draws);
- ``None`` on the training side: no trained policy is evaluated (heuristics only).

Two sides overlap when they read the same trace rows (VM), the same SWF windows, or draw from the same
generator key (the same key gives the same first instances whatever their count). An evaluation on
overlapping instances is refused unless asked for (``evaluate --allow-training-instances``,
``train allow_training_instances=true``); then its trained rows are marked :data:`MARK` and the
table carries :data:`LEGEND` (as :mod:`jaxsched.core.unfinished` marks unfinished rows ``*``).
"""

from __future__ import annotations

MARK = "†"
LEGEND = (f"{MARK} evaluated on its training instances (allowed by --allow-training-instances / "
          "allow_training_instances): not a held-out result")
FLAG = "on_training_instances"  # a trained policy's stats: True where it was evaluated on its training instances


def vm_rows(variant, held_out: bool) -> dict:
    """A VM variant's training (or held-out) start rows."""
    low, high = variant.start_range(held_out=held_out)
    return {"kind": "start_rows", "trace": getattr(variant, "trace_name", ""), "start_range": [int(low), int(high)],
            "window": int(variant.window), "rows": [int(low), int(high) - 1 + int(variant.window)]}


def training_instances(variant, config, algo) -> dict:
    """What training with ``config`` (a TrainConfig) and ``algo`` (the learner's config) draws from."""
    if hasattr(variant, "start_range"):  # VM placement: start rows
        return vm_rows(variant, held_out=False)
    swf = getattr(variant, "swf", None)
    if swf is not None:  # grid on an SWF trace: windows drawn (with replacement) from all of them
        return {"kind": "trace_windows", "swf": str(swf), "windows": "all"}
    fixed = not getattr(algo, "resample_jobsets", False)  # dqn / cvd / sarsa pools, reinforce / ppo without resampling
    count = next((getattr(algo, name) for name in ("num_starts", "num_jobsets") if hasattr(algo, name)), None)
    record = {"kind": "generator", "keys": [int(config.jobsets_seed)] if fixed else [],
              "fresh_per_iteration": not fixed, "count": count if fixed else None,
              "seed_streams": [int(s) for s in config.seeds]}
    if config.bc is not None:
        record["behaviour_cloning"] = "jobsets from keys split from the training seeds' keys"
    return record


def held_out_instances(variant, count: int, seed: int) -> dict:
    """What ``variant.held_out(count, seed)`` draws (train's final evaluation, ``evaluate``'s default)."""
    if hasattr(variant, "start_range"):
        return vm_rows(variant, held_out=True) | {"seed": int(seed), "count": int(count)}
    swf = getattr(variant, "swf", None)
    if swf is not None:
        return {"kind": "trace_windows", "swf": str(swf), "windows": "all", "seed": int(seed), "count": int(count)}
    return {"kind": "generator", "keys": [int(seed)], "count": int(count)}


def _intersect(a: list, b: list) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def overlaps(training: dict | None, evaluation: dict) -> bool:
    """Whether the evaluation reads instances the training drew from (see the module's rules)."""
    if training is None:
        return False
    kinds = training["kind"], evaluation["kind"]
    if kinds == ("start_rows", "start_rows"):
        return training["trace"] == evaluation["trace"] and _intersect(training["rows"], evaluation["rows"])
    if kinds == ("trace_windows", "trace_windows"):
        if training["swf"] != evaluation["swf"]:
            return False
        return "all" in (training["windows"], evaluation["windows"]) or _intersect(training["windows"],
                                                                                   evaluation["windows"])
    if kinds == ("generator", "generator"):
        return bool(set(training["keys"]) & set(evaluation["keys"]))
    return False


def record(training: dict | None, evaluation: dict, allowed: bool = False) -> dict:
    """The ``instances`` field: both sides and whether they are disjoint (``allowed``: an overlap was
    asked for)."""
    disjoint = not overlaps(training, evaluation)
    return {"training": training, "evaluation": evaluation, "disjoint": disjoint,
            **({} if disjoint else {"allowed_overlap": bool(allowed)})}


def describe(side: dict | None) -> str:
    """One side in words, for the refusal and the legend."""
    if side is None:
        return "none (no trained policy)"
    kind = side["kind"]
    if kind == "start_rows":
        low, high = side["start_range"]
        return (f"start rows [{low}, {high}) of trace {side['trace'] or '?'} with window {side['window']} "
                f"(rows [{side['rows'][0]}, {side['rows'][1]}))")
    if kind == "trace_windows":
        windows = side["windows"]
        return f"windows {'all' if windows == 'all' else f'[{windows[0]}, {windows[1]})'} of SWF trace {side['swf']}"
    if kind == "generator":
        if side.get("fresh_per_iteration"):
            return f"fresh draws each iteration from the key streams of training seeds {side['seed_streams']}"
        return f"generator key(s) PRNGKey {side['keys']}" + (f" ({side['count']} instances)" if side.get("count") else "")
    return kind + (f" {side['path']}" if "path" in side else "") + (f" seeds {side['seeds']}" if "seeds" in side else "")


def refusal(instances: dict, flag: str) -> str:
    """The one-line error of an overlapping evaluation."""
    hints = {"start_rows": " (VM: split the trace with the env option held_out_from=ROW or held_out_after=ROWS)",
             "generator": " (another eval seed / --seed than the training pool's key)"}
    hint = hints.get(instances["evaluation"]["kind"], "")
    return (f"the evaluation instances overlap the training instances: training {describe(instances['training'])}; "
            f"evaluation {describe(instances['evaluation'])}. Evaluate on disjoint instances{hint}, or give {flag} "
            f"to evaluate on training instances (rows marked {MARK})")


def check(instances: dict, allowed: bool, flag: str) -> None:
    """Raises ``ValueError`` (:func:`refusal`) on an overlap that was not asked for."""
    if not instances["disjoint"] and not allowed:
        raise ValueError(refusal(instances, flag))


def marked(name: str, stats: dict) -> str:
    """``name`` with :data:`MARK` where ``stats`` were measured on the policy's training instances."""
    return f"{name} {MARK}" if stats.get(FLAG) else name


def legend(summaries) -> list[str]:
    """``[LEGEND]`` if any summary was measured on training instances, else ``[]``."""
    return [LEGEND] if any(s.get(FLAG) for s in summaries) else []
