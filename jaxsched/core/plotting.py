"""Figures written next to the numbers they show (matplotlib, headless)."""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import matplotlib
import numpy as np
from PIL import Image

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (modules that draw import this headless pyplot from here)

from jaxsched.core.stats import performance_profile  # noqa: E402


def _save(fig, ax, path: Path, xlabel: str, ylabel: str, title: str, note: str = "",
          legend_outside: bool = False) -> None:
    """Labels, legend (beside the axes when ``legend_outside``, so that it hides no line) and ``note``
    (a small line under the axes), then the PNG."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    if legend_outside:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    else:
        ax.legend()
    if note:
        fig.text(0.01, 0.005, note, fontsize=7, alpha=0.8)
    fig.tight_layout(rect=(0, 0.03 if note else 0, 1, 1))
    _write(fig, path)


PALETTE_COLOURS = 256  # a plot's flat colours and their anti-aliased edges fit a 256-colour palette


def save_figure(fig, path: Path, dpi: int = 120) -> None:
    """Writes ``fig`` as a palette PNG and closes it: quantised to 256 colours without dithering, about
    2.2x smaller than matplotlib's RGBA PNG and indistinguishable on a plot (results/ stays light)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    plt.close(fig)
    write_palette_png(Image.open(buffer), path)


def write_palette_png(image: Image.Image, path: Path) -> None:
    """``image`` as an optimised 256-colour palette PNG at ``path``."""
    palette = image.convert("RGB").quantize(colors=PALETTE_COLOURS, method=Image.Quantize.MEDIANCUT,
                                            dither=Image.Dither.NONE)
    palette.save(path, format="PNG", optimize=True)


def _write(fig, path: Path) -> None:
    save_figure(fig, path)


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


def _panel_grid(count: int, columns: int, size: tuple[float, float, float], **shared):
    """``(fig, axes[rows, columns])`` for ``count`` panels, the spare axes hidden; ``size``: a panel's width and
    height and the height added for titles and legends (inches)."""
    rows = -(-count // columns)
    width, height, extra = size
    fig, axes = plt.subplots(rows, columns, figsize=(width * columns, height * rows + extra), squeeze=False, **shared)
    for ax in list(axes.flat)[count:]:
        ax.set_visible(False)
    return fig, axes


def panels(path: Path, xlabel: str, ylabel: str, series: dict[str, tuple], title: str = "", columns: int = 4) -> None:
    """One small panel per ``(x, y)`` line, the axes shared: many step-like lines (e.g. a pool size per run)
    stay readable where one axes would hide them under each other."""
    fig, axes = _panel_grid(len(series), columns, (2.6, 1.9, 0.5), sharex=True, sharey=True)
    for ax, (name, (x, y)) in zip(axes.flat, series.items()):
        ax.plot(x, y, lw=0.8)
        ax.set_title(name, fontsize=8)
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=7)
    for column in range(min(columns, len(series))):  # the x axis under each column's lowest panel
        lowest = axes[(len(series) - 1 - column) // columns, column]
        lowest.tick_params(labelbottom=True)
        lowest.set_xlabel(xlabel, fontsize=8)
    for ax in axes[:, 0]:
        ax.set_ylabel(ylabel, fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    _write(fig, path)


def learning_curves_with_spread(series: dict[str, tuple], hlines: dict[str, float], path: Path, xlabel: str,
                                ylabel: str, title: str = "") -> None:
    """One line per run: ``{name: (x [n], y [seeds, n])}``, the mean over seeds with a min-max band
    (NaN-aware: iterations in which no episode ended are skipped), and horizontal reference levels."""
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
    fig, ax = plt.subplots(figsize=(6.5, 4))
    for i, (name, (x, centre, low, high)) in enumerate(series.items()):
        seen = np.isfinite(centre)
        ax.plot(np.asarray(x)[seen], centre[seen], color=f"C{i}", label=name)
        ax.fill_between(np.asarray(x)[seen], low[seen], high[seen], color=f"C{i}", alpha=0.2)
    _save(fig, ax, path, xlabel, ylabel, title)


def series_over_time(series: dict[str, tuple[np.ndarray, np.ndarray]], path: Path, ylabel: str, lower_ylabel: str,
                     xlabel: str, title: str = "") -> None:
    """Two panels over one step axis, one line per name: ``{name: (upper [T], lower [T])}`` (e.g. the CVD-RL
    paper's Fig. 9: CPU allocation rate above, PMs in service below)."""
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 6), sharex=True, height_ratios=(2, 1))
    for i, (name, (upper, lower)) in enumerate(series.items()):
        steps = np.arange(1, len(upper) + 1)
        top.plot(steps, upper, lw=1, color=f"C{i}", label=name)
        bottom.plot(steps, lower, lw=1, color=f"C{i}")
    bottom.set(xlabel=xlabel, ylabel=lower_ylabel)
    bottom.grid(alpha=0.3)
    _save(fig, top, path, "", ylabel, title)  # the step axis is labelled on the lower panel (shared)


def performance_profiles(scores: dict[str, np.ndarray], path: Path, metric: str, higher_is_better: bool) -> None:
    """Run-score distributions (Agarwal et al. 2021): for each threshold, the fraction of runs (seeds)
    doing better than it, one step line per configuration."""
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


def box_groups(values: dict[str, dict[int, np.ndarray]], path: Path, xlabel: str, ylabel: str, title: str = "",
               note: str = "") -> None:
    """Box plots grouped by an integer x (e.g. job length), one box per series and colour per series:
    ``{series: {x: values}}``; the x values that occur are placed side by side (a gap in x leaves no
    empty stretch) and an x a series has no values at gets no box. Fliers are not drawn."""
    xs = sorted({x for per_x in values.values() for x in per_x})
    place = {x: i for i, x in enumerate(xs)}
    count = max(len(values), 1)
    width = 0.8 / count
    fig, ax = plt.subplots(figsize=(max(6.5, 0.3 * len(xs) * count), 4))
    for i, (name, per_x) in enumerate(values.items()):
        present = [x for x in xs if x in per_x and len(per_x[x])]
        offset = (i - (count - 1) / 2) * width
        parts = ax.boxplot([per_x[x] for x in present], positions=[place[x] + offset for x in present], widths=width * 0.9,
                           showfliers=False, patch_artist=True, manage_ticks=False)
        for box in parts["boxes"]:
            box.set(facecolor=f"C{i}", alpha=0.6)
        for median in parts["medians"]:
            median.set(color="black")
        ax.plot([], [], color=f"C{i}", linewidth=6, alpha=0.6, label=name)  # the legend's swatch
    ax.set_xticks(range(len(xs)), [str(x) for x in xs])
    _save(fig, ax, path, xlabel, ylabel, title, note=note)


def grouped_intervals(groups: list[str], series: dict[str, dict[str, tuple[float, float, float]]],
                      marks: dict[str, dict[str, float]], path: Path, ylabel: str,
                      reference: tuple[str, float] | None = None, title: str = "") -> None:
    """Per group (e.g. scenario), one point with its interval per series, side by side:
    ``{series: {group: (centre, low, high)}}``; a group a series lacks gets no point. ``marks``:
    ``{name: {group: level}}`` drawn as short black ticks (e.g. a heuristic's level), ``reference`` a
    horizontal line (e.g. the level everything is divided by)."""
    place = {group: i for i, group in enumerate(groups)}
    width = 0.8 / max(len(series), 1)
    fig, ax = plt.subplots(figsize=(max(6.5, 0.9 * len(groups) + 2.5), 4))
    for i, (name, points) in enumerate(series.items()):
        present = [g for g in groups if g in points]
        x = np.array([place[g] + (i - (len(series) - 1) / 2) * width for g in present])
        centre, low, high = (np.array([points[g][k] for g in present]) for k in range(3))
        ax.errorbar(x, centre, yerr=[centre - low, high - centre], fmt="o", ms=4, capsize=2, color=f"C{i}",
                    label=name)
    for j, (name, levels) in enumerate(marks.items()):
        present = [g for g in groups if g in levels]
        ax.scatter([place[g] for g in present], [levels[g] for g in present], marker="_", s=600, color="k",
                   linewidths=1.5 if j == 0 else 1.0, label=name)
    if reference is not None:
        ax.axhline(reference[1], linestyle="--", color="grey", label=reference[0])
    ax.set_xticks(range(len(groups)), groups, rotation=30)
    _save(fig, ax, path, "", ylabel, title, legend_outside=True)


def panels_with_bands(panels: dict[str, dict[str, tuple]], hlines: dict[str, dict[str, float]], path: Path,
                      xlabel: str, ylabel: str, title: str = "", columns: int = 5) -> None:
    """One panel per key (e.g. scenario), each with :func:`curves_with_bands`' lines ``{name: (x, centre, low,
    high)}`` and its own levels ``hlines[panel]``; a name keeps its colour in every panel, one legend below."""
    names = list(dict.fromkeys(name for lines in panels.values() for name in lines))
    fig, axes = _panel_grid(len(panels), columns, (3.2, 2.6, 0.9))
    for ax, (panel, lines) in zip(axes.flat, panels.items()):
        for name, (x, centre, low, high) in lines.items():
            colour = f"C{names.index(name)}"
            ax.plot(x, centre, color=colour, lw=1.2, label=name)
            ax.fill_between(x, low, high, color=colour, alpha=0.2)
        for level_name, level in hlines.get(panel, {}).items():
            ax.axhline(level, linestyle="--", color="k", lw=1, label=level_name)
        ax.set_title(panel, fontsize=9)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
    handles = {label: handle for ax in axes.flat for handle, label in zip(*ax.get_legend_handles_labels())}
    fig.legend(handles.values(), handles.keys(), loc="lower center", ncol=min(len(handles), 6), fontsize=8)
    fig.supxlabel(xlabel, fontsize=9, y=0.09)
    fig.supylabel(ylabel, fontsize=9)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    _write(fig, path)


HEURISTIC_STYLES = ((0, (6, 3)), ":", "-.", (0, (3, 1, 1, 1, 1, 1)), (0, (1, 3)), (0, (8, 2, 2, 2)))
HEURISTIC_MARKERS = ("s", "^", "D", "v", "P", "X")


def moving_average(y, window: int):
    """The trailing mean of the last ``window`` finite values at each point (NaN until one is seen)."""
    y = np.asarray(y, float)
    finite = np.isfinite(y)
    sums = np.cumsum(np.where(finite, y, 0.0))
    counts = np.cumsum(finite)
    lagged = lambda c: np.concatenate([np.zeros(window), c[:-window]]) if window < len(c) else np.zeros(len(c))  # noqa: E731
    with np.errstate(invalid="ignore", divide="ignore"):
        return (sums - lagged(sums)) / (counts - lagged(counts))


def run_learning_curve(path: Path, training: tuple, held_out: tuple | None, metric: str, title: str,
                       higher_is_better: bool, window: int | None = None) -> None:
    """A training run's curve. ``training``: ``(iterations [n], values [seeds, n])`` of the training
    rollouts' ``metric`` (a thin per-seed min-max band and a moving average of the mean over seeds);
    ``held_out``: ``(iterations [m], values [seeds, m], {heuristic: value}, description)``, each seed's
    policy on the held-out instances (the mean over seeds, bars min-max over seeds) and the heuristics
    on the same instances (one line style and marker each, so that equal levels stay apart)."""
    iterations, values = np.asarray(training[0]), np.asarray(training[1], float)
    seeds = values.shape[0]
    window = window or max(1, len(iterations) // 20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # iterations in which no episode ended stay NaN
        mean, low, high = np.nanmean(values, axis=0), np.nanmin(values, axis=0), np.nanmax(values, axis=0)
    fig, ax = plt.subplots(figsize=(10.5, 4.8))
    ax.fill_between(iterations, low, high, color="C0", alpha=0.2, linewidth=0,
                    label=f"training rollouts: min-max over {seeds} seeds")
    ax.plot(iterations, mean, color="C0", linewidth=0.6, alpha=0.6, label=f"training rollouts: mean over {seeds} seeds")
    ax.plot(iterations, moving_average(mean, window), color="C0", linewidth=2,
            label=f"training rollouts: moving average of the mean, {window} iterations")
    if held_out is not None:
        x, y, heuristics, description = held_out
        y = np.asarray(y, float)
        centre = np.nanmean(y, axis=0)
        ax.errorbar(x, centre, yerr=[centre - np.nanmin(y, axis=0), np.nanmax(y, axis=0) - centre], color="C3",
                    marker="o", markersize=4, capsize=3, linewidth=1.2,
                    label=f"trained (sampled) on {description}: mean, bars min-max over {y.shape[0]} seeds")
        span = np.linspace(min(iterations.min(), np.min(x)), iterations.max(), 25)
        count = max(1, len(heuristics))
        for j, (name, level) in enumerate(heuristics.items()):
            style, marker = HEURISTIC_STYLES[j % len(HEURISTIC_STYLES)], HEURISTIC_MARKERS[j % len(HEURISTIC_MARKERS)]
            ax.plot(span, np.full(span.shape, level), color=f"C{(j + 4) % 10}", linestyle=style, marker=marker,
                    markevery=(j, count + 1), markersize=5, linewidth=1.3, label=f"{name} on the same instances")
    better = "higher" if higher_is_better else "lower"
    _save(fig, ax, path, "training iteration", f"{metric} ({better} is better)", title,
          note=f"training: {metric} over each iteration's training episodes; held-out: over all held-out episodes",
          legend_outside=True)
