"""``bench event``: both steppings timed at every batch size, the simulated ticks counted, the file written."""

from __future__ import annotations

import json

from jaxsched.bench.cli import main as bench_main


def test_bench_event_times_both_steppings_and_counts_ticks(tmp_path, capsys):
    out = tmp_path / "event.json"
    assert bench_main(["event", "--scenario", "bracis-1", "--batches", "4", "--steps", "5", "--repeats", "1",
                       "--window", "0.05", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    rows = {row["stepping"]: row for row in result["rows"]}
    assert set(rows) == {"time", "event"} and all(row["batch"] == 4 for row in rows.values())
    assert all(row["decisions_per_s"] > 0 and row["ticks_per_s"] > 0 for row in rows.values())
    # a time-based decision is at most one tick; an event-based one skips the ticks where nothing fits
    assert rows["time"]["ticks_per_decision"] <= 1.0 < rows["event"]["ticks_per_decision"]
    assert "4" in result["event_cost_per_decision"] and "cores" in result["hardware"]
    assert (tmp_path / "event.md").read_text().count("| 4 |") == 2
    assert "event decision costs" in capsys.readouterr().out
