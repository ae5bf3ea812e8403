"""Committed runs keep ``metrics.csv`` compressed (``metrics.csv.xz``): every reader gets the same rows
from either form, the compression keeps the bytes, and a resumed run continues from the compressed log."""

import lzma

import numpy as np
import pytest

from jaxsched.core.runs import (MetricsLog, compress_csv, compressed_path, copy_stored, open_csv,
                                per_iteration_means, read_csv_rows, stored_exists)

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
