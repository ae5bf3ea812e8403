"""Figures written next to the numbers they show (matplotlib, headless)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from jaxsched.core.stats import performance_profile  # noqa: E402


def _save(fig, ax, path: Path, xlabel: str, ylabel: str, title: str) -> None:
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def slowdown_vs_load(loads, curves: dict[str, tuple[list[float], list[float] | None]], path: Path,
                     title: str = "") -> None:
    """DeepRM Figure 4's axes: average job slowdown against cluster load, one line per policy."""
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, (means, stds) in curves.items():
        ax.errorbar(loads, means, yerr=stds, marker="o", capsize=3, label=name)
    _save(fig, ax, path, "average cluster load", "average job slowdown", title)


def learning_curve(x, series: dict[str, list[float]], path: Path, xlabel: str, ylabel: str,
                   hlines: dict[str, float] | None = None, title: str = "") -> None:
    """A metric per iteration, with heuristics' levels as horizontal lines (DeepRM Figure 6)."""
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, values in series.items():
        ax.plot(x, values, label=name)
    for i, (name, level) in enumerate((hlines or {}).items()):
        ax.axhline(level, linestyle="--", color=f"C{i + len(series)}", label=name)
    _save(fig, ax, path, xlabel, ylabel, title)


def curves(path: Path, xlabel: str, ylabel: str, series: dict[str, tuple], hlines: dict[str, float] | None = None,
           title: str = "") -> None:
    """Several ``(x, y)`` lines with their own x values (e.g. runs against wall-clock), plus levels."""
    fig, ax = plt.subplots(figsize=(6.5, 4))
    for name, (x, y) in series.items():
        ax.plot(x, y, label=name)
    for name, level in (hlines or {}).items():
        ax.axhline(level, linestyle="--", color="k", label=name)
    _save(fig, ax, path, xlabel, ylabel, title)


def learning_curves_with_spread(series: dict[str, tuple], hlines: dict[str, float], path: Path, xlabel: str,
                                ylabel: str, title: str = "") -> None:
    """One line per run: ``{name: (x [n], y [seeds, n])}``, the mean over seeds with a min-max band
    (NaN-aware: iterations in which no episode ended are skipped), and horizontal reference levels."""
    import numpy as np

    fig, ax = plt.subplots(figsize=(6.5, 4))
    for i, (name, (x, y)) in enumerate(series.items()):
        y = np.asarray(y, float)
        seen = np.any(np.isfinite(y), axis=0)
        x, y = np.asarray(x)[seen], y[:, seen]
        ax.plot(x, np.nanmean(y, axis=0), color=f"C{i}", label=f"{name} ({y.shape[0]} seeds)")
        ax.fill_between(x, np.nanmin(y, axis=0), np.nanmax(y, axis=0), color=f"C{i}", alpha=0.2)
    for j, (name, level) in enumerate(hlines.items()):
        ax.axhline(level, linestyle="--", color=f"C{j + len(series)}", label=name)
    _save(fig, ax, path, xlabel, ylabel, title)


def curves_with_bands(series: dict[str, tuple], path: Path, xlabel: str, ylabel: str, title: str = "") -> None:
    """One line per run: ``{name: (x, centre, low, high)}`` with its band (e.g. an IQM over seeds and
    its bootstrap confidence interval); points without a value are skipped."""
    import numpy as np

    fig, ax = plt.subplots(figsize=(6.5, 4))
    for i, (name, (x, centre, low, high)) in enumerate(series.items()):
        seen = np.isfinite(centre)
        ax.plot(np.asarray(x)[seen], centre[seen], color=f"C{i}", label=name)
        ax.fill_between(np.asarray(x)[seen], low[seen], high[seen], color=f"C{i}", alpha=0.2)
    _save(fig, ax, path, xlabel, ylabel, title)


def performance_profiles(scores: dict[str, "np.ndarray"], path: Path, metric: str, higher_is_better: bool) -> None:
    """Run-score distributions (Agarwal et al. 2021): for each threshold, the fraction of runs (seeds)
    doing better than it, one step line per configuration."""
    import numpy as np

    fig, ax = plt.subplots(figsize=(6.5, 4))
    values = np.concatenate([np.asarray(v, float) for v in scores.values()])
    values = values[np.isfinite(values)]
    if values.size:
        taus = np.linspace(values.min(), values.max(), 101)
        sign = 1.0 if higher_is_better else -1.0  # fraction with v < tau is the fraction with -v > -tau
        for i, (name, v) in enumerate(scores.items()):
            v = np.asarray(v, float)
            fraction = performance_profile(sign * v, sign * taus)
            ax.step(taus, fraction, where="post", color=f"C{i}", label=f"{name} ({v.size} runs)")
    relation = ">" if higher_is_better else "<"
    _save(fig, ax, path, f"threshold tau on {metric}", f"fraction of runs with {metric} {relation} tau",
          "performance profile")
