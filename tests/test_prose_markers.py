"""Prose reads a number straight from a results file with ``<!--f:FILE:PATH|FMT-->``: the value written
before the marker must equal the file's value in that format, and a missing file or path is an error that
names the marker, the file and the path."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from jaxsched import reproduce
from jaxsched.reproduction import numbers
from results_copies import fresh_number_reads, results_with  # noqa: F401  (an autouse fixture)
from jaxsched.core import stats

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"
HEURISTICS = "deeprm_heuristics_vs_load.json"
SWEEP = "sweep_deeprm_paper_slots/summary.csv"


def _sjf(root: Path = RESULTS) -> float:
    return json.loads((root / HEURISTICS).read_text())["0.7"]["sjf"]["mean_slowdown"]


def test_every_file_marker_of_the_committed_texts_equals_its_file():
    problems = [m for path in reproduce.marked_texts()
                for m in numbers.file_marker_mismatches(path.read_text(), path.name, RESULTS)]
    assert not problems, "\n".join(map(str, problems[:20]))


def test_the_check_readme_pass_reads_file_markers():
    """reproduce's text check (``--check-readme``) covers file markers beside ``<!--n:-->`` ones."""
    text = f"SJF {_sjf():.2f}<!--f:{HEURISTICS}:0.7/sjf/mean_slowdown|.2f--> and 9.99<!--f:{HEURISTICS}:0.7/sjf/mean_slowdown|.2f-->"
    wrong = reproduce.text_mismatches(text, "note.md", RESULTS)
    assert [m.text for m in wrong] == ["9.99"]
    assert reproduce.with_numbers(text, RESULTS).count(f"{_sjf():.2f}<!--f:") == 2


def test_an_edited_file_fails_the_marker_naming_the_file_and_both_values(tmp_path):
    written = f"{_sjf():.3f}"
    text = f"SJF at 0.7: {written}<!--f:{HEURISTICS}:0.7/sjf/mean_slowdown|.3f-->."
    assert not numbers.file_marker_mismatches(text, "note.md", RESULTS)
    root = results_with(tmp_path, HEURISTICS)
    data = json.loads((root / HEURISTICS).read_text())
    data["0.7"]["sjf"]["mean_slowdown"] += 0.1
    (root / HEURISTICS).write_text(json.dumps(data))
    [wrong] = numbers.file_marker_mismatches(text, "note.md", root)
    message = str(wrong)
    assert HEURISTICS in message and "note.md:1" in message and "0.7/sjf/mean_slowdown" in message
    assert repr(written) in message and repr(f"{float(written) + 0.1:.3f}") in message
    fixed = numbers.with_file_markers(text, root)
    assert not numbers.file_marker_mismatches(fixed, "note.md", root) and f"{float(written) + 0.1:.3f}<!--f:" in fixed


@pytest.mark.parametrize("spec, says", [
    (f"{HEURISTICS}:0.7/sjf/no_such_metric|.3f", "no_such_metric"),
    ("no_such_item/eval.json:policies/sjf/mean_slowdown|.3f", "no_such_item/eval.json"),
    (f"{SWEEP}:no_such_column|iqm|.3f", "no_such_column"),
    (f"{SWEEP}:final_sampled_mean_slowdown[run_dir=cell999]|iqm|.3f", "cell999"),
    (f"{HEURISTICS}:0.7/sjf/mean_slowdown", "FORMAT"),
    (f"{HEURISTICS}:0.7/sjf/mean_slowdown|median|.3f", "not a list"),
])
def test_an_absent_file_path_column_or_row_is_an_error_naming_marker_and_file(spec, says):
    [wrong] = numbers.file_marker_mismatches(f"it is 1.000<!--f:{spec}-->", "note.md", RESULTS)
    message = str(wrong)
    assert "unreadable" in message and says in message and f"<!--f:{spec}-->" in message
    assert spec.partition(":")[0] in message
    with pytest.raises(numbers.NumberError):
        numbers.with_file_markers(f"1.000<!--f:{spec}-->", RESULTS)


def test_csv_columns_statistics_and_arithmetic():
    rows = numbers.csv_rows(RESULTS, SWEEP, {"run_dir": "cell000"})
    sampled = np.array([float(r["final_sampled_mean_slowdown"]) for r in rows])
    sjf = float(rows[0]["final_sjf_mean_slowdown"])
    column = "final_sampled_mean_slowdown[run_dir=cell000]"
    assert numbers.file_spec_text(f"{SWEEP}:{column}|iqm|.3f", RESULTS) == f"{stats.iqm(sampled):.3f}"
    assert numbers.file_spec_text(f"{SWEEP}:{column}|max|.4f", RESULTS) == f"{sampled.max():.4f}"
    assert numbers.file_spec_text(f"{SWEEP}:{column}|count|d", RESULTS) == str(sampled.size)
    assert numbers.file_spec_text(f"{SWEEP}:final_sjf_mean_slowdown[run_dir=cell000]|value|.3f", RESULTS) == f"{sjf:.3f}"
    change = f"{{{SWEEP}:{column}|iqm}} / {{{SWEEP}:final_sjf_mean_slowdown[run_dir=cell000]|value}} - 1|+.0%"
    assert numbers.file_spec_text(change, RESULTS) == f"{stats.iqm(sampled) / sjf - 1:+.0%}"
    assert numbers.file_spec_text(f"{HEURISTICS}:0.7/sjf/mean_slowdown|.1fx", RESULTS) == f"{_sjf():.1f}x"
    assert numbers.file_spec_text(f"{HEURISTICS}:0.7/sjf/mean_slowdown|.1f%", RESULTS) == f"{_sjf():.1f}%"
    seeds = json.loads((RESULTS / HEURISTICS).read_text())["0.7"]["sjf"]["seed_mean_slowdown"]
    assert numbers.file_spec_text(f"{HEURISTICS}:0.7/sjf/seed_mean_slowdown|median|.3f", RESULTS) == \
        f"{np.median(seeds):.3f}"
    with pytest.raises(numbers.NumberError):
        numbers.file_spec_text(f"{{{HEURISTICS}:0.7/sjf/mean_slowdown}} ** 2|.3f", RESULTS)  # no powers, no names


def test_the_marker_takes_the_whole_number_before_it():
    text = "1,843<!--f:a.json:x|,d--> and -0.5<!--f:a.json:y|.1f-->, [1.4<!--f:a.json:z|.1f-->, 9.8x<!--f:a.json:w|.1fx-->]"
    assert [m.group("value") for m in numbers.FILE_MARKER.finditer(text)] == ["1,843", "-0.5", "1.4", "9.8x"]


def test_the_counter_sees_typed_and_quoted_numbers_of_prose_only():
    text = ("# T\n\nSJF 1.234 vs 2.5<!--n:a.b--> and 3.25<!--f:a.json:x|.2f-->.\n\n    python run.py --lr 0.001\n\n"
            "`x 4.5`\n<!-- reproduce:begin -->\n9.75\n<!-- reproduce:end -->\n| 0.7 | 5.125 |\n")
    assert numbers.quoted_count(text) == 2
    assert [(line, number) for line, number, _ in numbers.typed_numbers(text)] == [(3, "1.234"), (11, "0.7"), (11, "5.125")]
