"""What a results table says about a policy that leaves work unfinished.

A policy's means cover the jobs it finished. A greedy policy that idles until the clock cap finishes
fewer jobs, often only the easy ones, and then shows a lower mean slowdown than a heuristic that
finished them all. Every table that can hold a learned policy therefore shows ``finished / jobs``
beside the means, marks such a row with :data:`MARK` and prints :data:`LEGEND` (VM: :data:`VM_LEGEND`), and never counts such
a row as beating a heuristic (:func:`beats`).

Job-scheduling families (DeepRM, MDP design, grid) count ``finished`` of ``jobs``. VM placement has
no jobs to finish: an episode ends where a create fits nowhere or the window runs out of requests,
and the scheduled length is its score; the work a VM policy can leave undone is an episode cut by
the step cap before it ended (``episodes_ended`` of ``episodes``).
"""

from __future__ import annotations

MARK = "*"
LEGEND = f"{MARK} leaves jobs unfinished: its means are over finished jobs only and it is not ranked against heuristics"
VM_LEGEND = (f"{MARK} has episodes cut by the step cap: its means cover unended episodes and it is not ranked "
             "against heuristics")


def finished_of(stats: dict) -> tuple[float, float] | None:
    """``(finished, total)`` of a summary (jobs, or VM episodes ended; means over seeds may be
    fractional), None if it counts neither."""
    if "jobs" in stats and "finished" in stats:
        return stats["finished"], stats["jobs"]
    if "episodes_ended" in stats and "episodes" in stats:
        return stats["episodes_ended"], stats["episodes"]
    return None


def leaves_unfinished(stats: dict) -> bool:
    """True when the summary's policy finished fewer jobs (or ended fewer episodes) than it had."""
    counts = finished_of(stats)
    return counts is not None and float(counts[0]) < float(counts[1])


def finished_cell(stats: dict) -> str:
    """``finished/jobs`` (``ended/episodes`` for VM placement), or '' where nothing is counted."""
    counts = finished_of(stats)
    if counts is None:
        return ""
    unit = "jobs" if "jobs" in stats else "episodes ended"
    return f"{count_text(counts[0])}/{count_text(counts[1])} {unit}"


def count_text(count: float) -> str:
    """A count as an integer, or with one decimal where it is a mean over seeds."""
    return f"{count:.0f}" if float(count).is_integer() else f"{count:.1f}"


def marked(name: str, stats: dict) -> str:
    """``name`` with :data:`MARK` appended when its policy leaves jobs unfinished."""
    return f"{name} {MARK}" if leaves_unfinished(stats) else name


def legend_text(summaries) -> str:
    """What :data:`MARK` means for these summaries: :data:`VM_LEGEND` where they count VM episodes
    (no jobs), else :data:`LEGEND`."""
    summaries = list(summaries)
    episodes_only = summaries and all("jobs" not in s and "episodes_ended" in s for s in summaries)
    return VM_LEGEND if episodes_only else LEGEND


def legend(summaries) -> list[str]:
    """``[legend_text]`` if any of the summaries leaves jobs unfinished (or VM episodes cut), else ``[]``."""
    summaries = list(summaries)
    return [legend_text(summaries)] if any(leaves_unfinished(s) for s in summaries) else []


def beats(stats: dict, heuristic: dict, metric: str, higher_is_better: bool = False) -> bool:
    """Whether ``stats``' policy beats ``heuristic`` on ``metric``: a strictly better value, and no
    job left unfinished (a mean over fewer, easier jobs has not won)."""
    if leaves_unfinished(stats):
        return False
    value, level = stats[metric], heuristic[metric]
    return bool(value > level if higher_is_better else value < level)


def with_counts(line: str, stats: dict) -> str:
    """A family's one-line summary with ``finished/jobs`` added where the line does not say it, and a
    trailing :data:`MARK` where the policy leaves jobs unfinished."""
    counts = finished_of(stats)
    if counts is not None and f"{count_text(counts[0])}/{count_text(counts[1])}" not in line:
        line += f"  ({finished_cell(stats)})"
    return line + (f"  {MARK}" if leaves_unfinished(stats) else "")
