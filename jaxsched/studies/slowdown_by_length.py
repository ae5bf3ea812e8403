"""DeepRM2 Figure 6: the distribution of job slowdown for each job length, one box per policy.

The paper's point: a random scheduler makes short jobs wait as long as long ones, so their slowdown
(wait + run) / run is the largest and dominates the mean; a trained policy lowers the short jobs'
slowdown, though (unlike SJF) it does not always start the shortest job first. The boxes show that
spread, which a mean per length hides.

    python -m jaxsched.evaluate --checkpoint RUN --policies random,sjf,checkpoint-sampled \\
        --jobsets 100 --seed 99991 --per-job runs/fig6/cnn.csv
    python -m jaxsched.studies.slowdown_by_length --out runs/fig6 \\
        --series Random=runs/fig6/cnn.csv:random --series "DeepRM2 (CNN + BC)=runs/fig6/cnn.csv:checkpoint-sampled"

Each ``--series LABEL=CSV:POLICY`` takes one policy's rows of a per-job CSV written by ``evaluate
--per-job``. All series must cover the same jobs (same jobsets, arrivals and lengths), else the boxes
compare different workloads. Only finished jobs have a slowdown; each series' ``finished / jobs`` is
in the legend and the JSON, and a series that leaves jobs unfinished is marked as everywhere else.
Writes ``slowdown_by_length.json`` (per series and length: count, mean, quartiles, whiskers) and
``slowdown_by_length.png``.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

import numpy as np

from jaxsched.core.plotting import box_groups
from jaxsched.core.runs import shown_path
from jaxsched.core.unfinished import legend, marked
from jaxsched.errors import UsageError

WHISKER = 1.5  # Tukey's whiskers: the furthest points within 1.5 IQR of the box, as matplotlib draws


def parse_series(spec: str) -> tuple[str, Path, str]:
    """``LABEL=CSV:POLICY`` -> (label, path, policy); the policy follows the last colon."""
    label, sep, rest = spec.partition("=")
    path, colon, policy = rest.rpartition(":")
    if not sep or not colon or not label.strip() or not path or not policy:
        raise UsageError(f"--series {spec!r}: expected LABEL=CSV:POLICY, e.g. Random=runs/fig6/eval.csv:random")
    return label.strip(), Path(path), policy.strip()


def read_policy_rows(path: Path, policy: str, load: float | None = None) -> dict[str, np.ndarray]:
    """One policy's rows of an ``evaluate --per-job`` CSV as columns: jobset, arrival, duration,
    slowdown (NaN unless finished) and status. ``load`` picks one load of a ``--loads`` CSV."""
    if not path.is_file():
        raise UsageError(f"{path}: no such per-job CSV (write one with python -m jaxsched.evaluate --per-job)")
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        needed = {"policy", "jobset", "arrival", "duration", "slowdown", "status"}
        missing = needed - set(reader.fieldnames or ())
        if missing:
            raise UsageError(f"{path}: not a DeepRM-family per-job CSV (missing columns {sorted(missing)})")
        rows = list(reader)
    loads = sorted({row["load"] for row in rows}) if "load" in (reader.fieldnames or ()) else []
    if len(loads) > 1 and load is None:
        raise UsageError(f"{path} holds loads {', '.join(loads)}: pick one with --load")
    if load is not None and loads:
        rows = [row for row in rows if float(row["load"]) == load]
        if not rows:
            raise UsageError(f"{path}: no rows at load {load:g} (it has {', '.join(loads)})")
    mine = [row for row in rows if row["policy"] == policy]
    if not mine:
        have = sorted({row["policy"] for row in rows})
        raise UsageError(f"{path}: no rows of policy {policy!r} (it has {', '.join(have)})")
    return {
        "jobset": np.array([int(r["jobset"]) for r in mine]),
        "arrival": np.array([int(r["arrival"]) for r in mine]),
        "duration": np.array([int(r["duration"]) for r in mine]),
        "slowdown": np.array([float(r["slowdown"]) if r["slowdown"] else np.nan for r in mine]),
        "status": np.array([r["status"] for r in mine]),
    }


def job_keys(columns: dict[str, np.ndarray]) -> np.ndarray:
    """The distinct (jobset, arrival, duration) triples a series covers (rollouts repeat them)."""
    return np.unique(np.stack([columns["jobset"], columns["arrival"], columns["duration"]], axis=1), axis=0)


def box_statistics(values: np.ndarray) -> dict[str, float | int]:
    """Count, mean, quartiles and Tukey whiskers of ``values`` (the numbers a box plot draws)."""
    q1, median, q3 = np.percentile(values, [25, 50, 75])
    reach = WHISKER * (q3 - q1)
    inside = values[(values >= q1 - reach) & (values <= q3 + reach)]
    return {"count": int(values.size), "mean": float(values.mean()), "q1": float(q1), "median": float(median),
            "q3": float(q3), "whisker_low": float(inside.min()), "whisker_high": float(inside.max()),
            "max": float(values.max())}


def slowdowns_by_length(columns: dict[str, np.ndarray]) -> dict[int, np.ndarray]:
    """The finished jobs' slowdowns, per job length that occurs among them."""
    done = columns["status"] == "finished"
    return {int(length): columns["slowdown"][done & (columns["duration"] == length)]
            for length in np.unique(columns["duration"][done])}


def by_length(columns: dict[str, np.ndarray], values: dict[int, np.ndarray]) -> dict:
    """Per series: finished / jobs counts, the mean slowdown and :func:`box_statistics` of ``values``
    (:func:`slowdowns_by_length`) per job length."""
    done = columns["status"] == "finished"
    return {
        "jobs": int(done.size), "finished": int(done.sum()),
        "unfinished": int(np.sum(columns["status"] == "unfinished")),
        "dropped": int(np.sum(columns["status"] == "dropped")),
        "mean_slowdown": float(np.mean(columns["slowdown"][done])) if done.any() else float("nan"),
        "by_length": {length: box_statistics(slowdowns) for length, slowdowns in values.items()},
    }


def compare_series(specs: list[str], load: float | None = None) -> tuple[dict[str, dict], dict[str, dict]]:
    """:func:`by_length` (JSON-ready) and :func:`slowdowns_by_length` (what the boxes draw) for each
    ``LABEL=CSV:POLICY``, after checking that all cover the same jobs."""
    series, values, keys = {}, {}, None
    for spec in specs:
        label, path, policy = parse_series(spec)
        if label in series:
            raise UsageError(f"--series label {label!r} given twice")
        columns = read_policy_rows(path, policy, load)
        these = job_keys(columns)
        if keys is not None and not np.array_equal(these, keys[1]):
            raise UsageError(f"series {label!r} covers other jobs than {keys[0]!r} (different jobsets, seed or "
                             "load): evaluate every policy on the same held-out jobsets")
        keys = keys or (label, these)
        values[label] = slowdowns_by_length(columns)
        series[label] = {"csv": shown_path(path), "policy": policy, **by_length(columns, values[label])}
    return series, values


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jaxsched.studies.slowdown_by_length",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--series", action="append", required=True, metavar="LABEL=CSV:POLICY",
                        help="one policy's rows of an evaluate --per-job CSV (repeat; drawn in this order)")
    parser.add_argument("--load", type=float, help="the load to read from a CSV written with --loads")
    parser.add_argument("--title", default="Slowdown by job length (DeepRM2 Fig. 6)")
    parser.add_argument("--out", type=Path, default=Path("runs/slowdown_by_length"))
    args = parser.parse_args(argv)
    try:
        series, values = compare_series(args.series, args.load)
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    box_groups({marked(label, s): values[label] for label, s in series.items()}, args.out / "slowdown_by_length.png", "job length (time steps)", "job slowdown",
               args.title, note="boxes: quartiles; whiskers: 1.5 IQR; finished jobs only")
    (args.out / "slowdown_by_length.json").write_text(json.dumps({"load": args.load, "series": series}, indent=1))
    lengths = sorted({length for s in series.values() for length in s["by_length"]})
    print("median slowdown by job length (finished jobs)")
    print(f"{'series':28s} {'mean':>7s} {'finished':>12s} " + " ".join(f"{n:>6d}" for n in lengths))
    for label, s in series.items():
        medians = [f"{s['by_length'][n]['median']:6.2f}" if n in s["by_length"] else f"{'-':>6s}" for n in lengths]
        print(f"{marked(label, s):28s} {s['mean_slowdown']:7.3f} {s['finished']:>5d}/{s['jobs']:<6d} "
              + " ".join(medians))
    for line in legend(series.values()):
        print(line)
    print(f"wrote {args.out}/slowdown_by_length.json and .png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
