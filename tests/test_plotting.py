"""The small-multiples figure (grid_elastic's pool and utilisation over time): one panel per line."""

import numpy as np
import pytest

from jaxsched.core import plotting


@pytest.mark.parametrize("count", [3, 5, 8])
def test_panels_draw_one_panel_per_series_and_label_each_columns_lowest(monkeypatch, tmp_path, count):
    figures = []
    monkeypatch.setattr(plotting, "_write", lambda fig, path: figures.append(fig))
    series = {f"run {i}": (np.arange(4), np.full(4, i)) for i in range(count)}
    plotting.panels(tmp_path / "p.png", "days", "cores", series, title="t", columns=4)
    (fig,) = figures
    shown = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in shown] == list(series)
    assert [line.get_ydata()[0] for ax in shown for line in ax.get_lines()] == list(range(count))
    labelled = [ax.get_title() for ax in shown if ax.get_xlabel() == "days"]
    lowest = [f"run {max(i for i in range(count) if i % 4 == column)}" for column in range(min(4, count))]
    assert sorted(labelled) == sorted(lowest)


def test_panels_write_a_png(tmp_path):
    plotting.panels(tmp_path / "p.png", "x", "y", {"a": ([0, 1], [1, 2]), "b": ([0, 1], [2, 1])})
    assert (tmp_path / "p.png").read_bytes()[:4] == b"\x89PNG"
