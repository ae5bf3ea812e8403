"""Quoted numbers are read from the files they cite: ``reproduce --check-readme`` renders every headline and
marked number again from results/ and names the item, the file and both values when a file changed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from jaxsched import reproduce
from jaxsched.reproduction import numbers
from results_copies import fresh_number_reads, results_with  # noqa: F401  (an autouse fixture)
from jaxsched.core import stats
from jaxsched.reproduction import BY_ID, ITEMS

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"


def test_the_committed_texts_equal_their_files():
    problems = reproduce.check_texts()
    assert not problems, "\n".join(problems[:20])


def test_an_edited_result_file_fails_the_check_naming_item_file_and_values(tmp_path):
    root = results_with(tmp_path, "deeprm_bc_load0.7")
    path = root / "deeprm_bc_load0.7" / "eval.json"
    data = json.loads(path.read_text())
    written = f"{data['policies']['trained-s0-sampled']['mean_slowdown']:.3f}"
    data["policies"]["trained-s0-sampled"]["mean_slowdown"] += 0.1
    path.write_text(json.dumps(data))
    problems = reproduce.check_texts(root)
    mine = [p for p in problems if "deeprm_bc_load0.7" in p and "sampled" in p]
    assert mine, problems
    assert "deeprm_bc_load0.7/eval.json" in mine[0]
    assert repr(written) in mine[0] and repr(f"{float(written) + 0.1:.3f}") in mine[0]


def test_a_typed_number_in_a_marked_prose_line_is_caught():
    item = BY_ID["deeprm_bc_load0.7"]
    right = item.numbers["sampled"].text(RESULTS)
    text = f"The policy reaches {right}<!--n:deeprm_bc_load0.7.sampled--> and SJF 9.999<!--n:deeprm_bc_load0.7.sjf-->."
    wrong = reproduce.text_mismatches(text, "note.md", RESULTS)
    assert [(m.field, m.text) for m in wrong] == [("sjf", "9.999")]
    fixed = reproduce.with_numbers(text, RESULTS)
    assert not reproduce.text_mismatches(fixed, "note.md", RESULTS) and right in fixed


def test_a_marked_headline_is_checked_field_by_field():
    item = BY_ID["deeprm_bc_load0.7"]
    good = reproduce.headline(item)
    text = f"Intro <!--h:deeprm_bc_load0.7-->{good}<!--/h--> end"
    assert not reproduce.text_mismatches(text, "x.md", RESULTS)
    bad = text.replace(item.numbers["sjf"].text(RESULTS), "1.234", 1)
    assert [m.field for m in reproduce.text_mismatches(bad, "x.md", RESULTS)] == ["sjf"]


def test_under_five_seeds_an_interval_is_called_a_range():
    three, five = [2.0, 2.5, 3.0], [2.0, 2.1, 2.5, 2.9, 3.0]
    assert numbers.seed_interval(three).text(".1f") == "[range 2.0, 3.0]"
    interval = numbers.seed_interval(five)
    summary = stats.summarize_over_seeds(np.array(five), reps=numbers.BOOTSTRAP_REPS)
    assert interval.is_ci and (interval.low, interval.high) == (summary["ci_low"], summary["ci_high"])


def test_parse_reads_back_what_render_wrote():
    template = "SJF {a} vs {b} ({c}%)"
    assert numbers.parse(template, "SJF 1.5 vs [1, 2] (-19%)") == {"a": "1.5", "b": "[1, 2]", "c": "-19"}
    assert numbers.parse(template, "Packer 1.5 vs [1, 2] (-19%)") is None
    assert numbers.parse("{a} and {a} again", "3 and 3 again") == {"a": "3"}
    assert numbers.parse("{a} and {a} again", "3 and 4 again") is None


def test_converted_headlines_type_no_measured_decimal():
    """A headline with numbers reads all its measured decimals from files (settings such as a load stay)."""
    typed = {item.id: numbers.typed_decimals(item.headline) for item in ITEMS if item.numbers}
    typed = {k: v for k, v in typed.items() if v}
    assert not typed, typed


def test_every_field_of_every_headline_reads():
    read = 0
    for item in ITEMS:
        assert set(numbers.fields(item.headline)) <= set(item.numbers), item.id
        for name, number in item.numbers.items():
            assert number.text(RESULTS), (item.id, name)
            read += 1
    assert ITEMS and read > 0  # the loops above checked something


def test_both_ends_of_a_range_are_marked_and_a_sign_is_kept_elsewhere():
    text = "costs 4<!--n:bench_event.cost32_r0-->-7<!--n:bench_event.cost1024_r0-->x, 1.47<!--n:a.b-->-1.49<!--n:a.c-->"
    values = [m.group("value") for m in numbers.MARKER.finditer(text)]
    assert values == ["4", "7", "1.47", "1.49"]
    assert [m.group("value") for m in numbers.MARKER.finditer("down (-19<!--n:a.b-->%), +0.5<!--n:a.c-->")] == [
        "-19", "+0.5"]
    assert not reproduce.text_mismatches(text.split(", ")[0], "x.md", RESULTS)


def test_a_page_quotes_a_headline_number_in_its_own_format():
    path = "policies/trained-s0-sampled/mean_slowdown"
    value = numbers.json_value(RESULTS, "deeprm_bc_load0.7/eval.json", path)
    number = numbers.at("deeprm_bc_load0.7/eval.json", path)
    assert number.text(RESULTS) == f"{value:.3f}" and number.to(".1f").text(RESULTS) == f"{value:.1f}"
    assert numbers.part(numbers.given("3/8", "x"), 0).text(RESULTS) == "3"
    assert numbers.span(numbers.given("1", "x"), numbers.given("2", "x")).text(RESULTS) == "[1, 2]"
    with pytest.raises(TypeError):
        numbers.given("1", "x").to(".1f")
    assert BY_ID["sweep_mdp_sparse_reduced_3m"].numbers["packer_r2"].text(RESULTS) == format(
        float(BY_ID["sweep_mdp_sparse_reduced_3m"].numbers["packer"].to(".17g").text(RESULTS)), ".2f")
