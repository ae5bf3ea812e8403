"""Committed runs keep ``metrics.csv`` compressed (``metrics.csv.xz``): every reader gets the same rows
from either form, the compression keeps the bytes, and a resumed run continues from the compressed log."""

import lzma

import numpy as np
import pytest
from PIL import Image

from jaxsched.core.runs import (MetricsLog, compress_csv, compressed_path, copy_stored, open_csv,
                                per_iteration_means, read_csv_rows, stored_exists)
from jaxsched.reproduction.compact import compact, compact_log

ROWS = [{"iteration": i, "seed": s, "mean_slowdown": 1.0 + i + 0.25 * s, "wall_s": 0.5} for i in (1, 2, 3) for s in (0, 1)]


def _log(path, rows=ROWS):
    log = MetricsLog(path, None)
    log.append(rows)
    return path


def test_compression_keeps_the_bytes_and_readers_read_either_form(tmp_path):
    plain = _log(tmp_path / "metrics.csv")
    data = plain.read_bytes()
    before = (read_csv_rows(plain), per_iteration_means(plain, ("mean_slowdown",)))
    target = compress_csv(plain)
    assert target == compressed_path(plain) and target.name == "metrics.csv.xz"
    assert not plain.exists() and stored_exists(plain)
    assert lzma.decompress(target.read_bytes()) == data
    assert read_csv_rows(plain) == before[0]
    iterations, means = per_iteration_means(plain, ("mean_slowdown",))
    np.testing.assert_array_equal(iterations, before[1][0])
    np.testing.assert_array_equal(means["mean_slowdown"], [2.125, 3.125, 4.125])
    with open_csv(plain) as handle:
        assert handle.readline().startswith("iteration,seed")
    copy = copy_stored(plain, (tmp_path / "copy").mkdir() or tmp_path / "copy")
    assert copy.name == "metrics.csv.xz" and copy.read_bytes() == target.read_bytes()


def test_an_absent_log_is_an_error(tmp_path):
    assert not stored_exists(tmp_path / "metrics.csv")
    with pytest.raises(FileNotFoundError):
        read_csv_rows(tmp_path / "metrics.csv")


def test_a_resume_continues_the_compressed_log(tmp_path):
    path = _log(tmp_path / "metrics.csv")
    compress_csv(path)
    log = MetricsLog(path, resume_from=2)  # rows past the checkpoint are dropped (they are replayed)
    assert path.exists() and not compressed_path(path).exists()
    assert [int(r["iteration"]) for r in read_csv_rows(path)] == [1, 1, 2, 2]
    log.append([{"iteration": 3, "seed": 0, "mean_slowdown": 9.0, "wall_s": 0.5}])
    assert [int(r["iteration"]) for r in read_csv_rows(path)] == [1, 1, 2, 2, 3]


def test_compact_writes_float32_digits_and_keeps_every_value_at_float32(tmp_path):
    """``reproduce --compact`` on a log written by older code (float32 values with float64's digits): the
    file becomes metrics.csv.xz, every float32 value reads back to the same float32, and a float64 field
    (a timing) and the integers are kept as written."""
    value = float(np.float32(0.1))  # 0.10000000149011612 as older code wrote it
    path = tmp_path / "run" / "metrics.csv"
    path.parent.mkdir()
    path.write_text(f"iteration,seed,loss,wall_s\r\n1,0,{value!r},0.6370374690799508\r\n", newline="")
    count, before, after = compact([tmp_path])
    assert count == 1 and before > 0 and after > 0
    assert not path.exists() and compressed_path(path).exists()
    (row,) = read_csv_rows(path)
    assert row == {"iteration": "1", "seed": "0", "loss": "0.1", "wall_s": "0.6370374690799508"}
    assert np.float32(float(row["loss"])) == np.float32(value)
    assert compact_log(compressed_path(path)) == compressed_path(path)  # again: the same rows
    assert read_csv_rows(path) == [row]


def test_compact_refuses_a_csv_it_did_not_write(tmp_path):
    path = tmp_path / "metrics.csv"
    path.write_text("iteration,loss\n1,0.5\n")  # \n line ends: not what MetricsLog writes
    with pytest.raises(ValueError, match="round-trip"):
        compact_log(path)
    assert path.read_text() == "iteration,loss\n1,0.5\n"


def test_compact_figure_keeps_the_pixels_of_a_plot_in_a_palette(tmp_path):
    rgb = np.zeros((20, 30, 3), np.uint8)
    rgb[:, 10:] = (31, 119, 180)  # matplotlib's C0
    rgb[5:8] = (255, 127, 14)
    path = tmp_path / "figure.png"
    Image.fromarray(rgb).save(path)
    compact([path])
    with Image.open(path) as image:
        assert image.mode == "P"
        assert np.array_equal(np.asarray(image.convert("RGB")), rgb)
