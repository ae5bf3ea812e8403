"""The dataset registry (``jaxsched.datasets``) and its command (``python -m jaxsched.data``): list, fetch with checksum, path, and ``dataset:NAME``
wherever a trace path is taken. Downloads use file:// URLs to local copies (no network needed)."""

from __future__ import annotations

import hashlib

import pytest

from jaxsched.data import main
from jaxsched.datasets import DATASETS, dataset_path, fetch, resolve_path
from jaxsched.errors import DatasetError, InputError

from conftest import TEST_DATA

CTC = DATASETS["ctc-sp2-first969"]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty cache, and no checkout copies (``../shared/data``) to fall back on."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("JAXSCHED_DATA", str(folder))
    monkeypatch.setattr("jaxsched.datasets.checkout_data_dir", lambda: None)
    return folder


@pytest.fixture
def ctc_copy(tmp_path):
    """A local copy of the CTC excerpt (tests/data holds it byte for byte)."""
    copy = tmp_path / "mirror" / CTC.file
    copy.parent.mkdir()
    copy.write_bytes((TEST_DATA / CTC.file).read_bytes())
    return copy


def test_the_shipped_excerpt_matches_the_registry():
    data = (TEST_DATA / CTC.file).read_bytes()
    assert len(data) == CTC.size and hashlib.sha256(data).hexdigest() == CTC.sha256


def test_list_shows_every_dataset_its_terms_and_whether_it_is_here(cache, ctc_copy, capsys):
    assert main(["fetch", CTC.name, "--url", ctc_copy.as_uri()]) == 0
    capsys.readouterr()
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for dataset in DATASETS.values():
        assert dataset.name in out and dataset.licence in out and dataset.source in out
    assert f"here: {cache / CTC.file}" in out
    assert "absent: python -m jaxsched.data fetch huawei-east-1 --url URL" in out
    assert "non-commercial" in out


def test_fetch_from_a_file_url_verifies_and_caches(cache, ctc_copy, capsys):
    assert main(["fetch", CTC.name, "--url", ctc_copy.as_uri()]) == 0
    assert "sha256 verified" in capsys.readouterr().out
    cached = cache / CTC.file
    assert cached.read_bytes() == ctc_copy.read_bytes()
    assert sorted(p.name for p in cache.iterdir()) == [CTC.file]  # no temporary file left
    assert dataset_path(CTC.name) == cached == resolve_path(f"dataset:{CTC.name}")
    assert main(["path", CTC.name]) == 0
    assert capsys.readouterr().out.strip() == str(cached)


def test_a_corrupted_copy_is_refused_and_nothing_is_left(cache, ctc_copy, capsys):
    data = bytearray(ctc_copy.read_bytes())
    data[100] ^= 1
    ctc_copy.write_bytes(bytes(data))
    assert main(["fetch", CTC.name, "--url", ctc_copy.as_uri()]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("error: ") and "does not match dataset ctc-sp2-first969" in err
    assert "nothing was saved" in err
    assert not cache.exists() or list(cache.iterdir()) == []


def test_a_dataset_without_a_known_download_asks_for_a_url(cache):
    with pytest.raises(DatasetError, match="no public download .* pass --url"):
        fetch("huawei-east-1")
    with pytest.raises(DatasetError, match="cannot download"):
        fetch(CTC.name, url=(cache.parent / "missing.swf").as_uri())
    assert not cache.exists() or list(cache.iterdir()) == []


def test_path_of_a_missing_dataset_exits_2_with_one_line(cache, capsys):
    assert main(["path", "huawei-east-1"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == ("error: dataset huawei-east-1 is not here; get it with: "
                            "python -m jaxsched.data fetch huawei-east-1 --url URL\n")
    with pytest.raises(InputError, match="unknown dataset 'nope'; choose from lublin-256"):
        dataset_path("nope")


def test_a_file_of_the_wrong_size_in_the_cache_is_not_used(cache):
    cache.mkdir()
    (cache / CTC.file).write_text("truncated")
    with pytest.raises(DatasetError, match="not here"):
        dataset_path(CTC.name)


def test_commands_and_variants_take_dataset_names(cache, ctc_copy, capsys):
    """``dataset:NAME`` goes through dataset_path in the readers and the VM variants; a missing one
    says how to fetch it."""
    from jaxsched.envs.deeprm.swf import read_swf
    from jaxsched.registry import build
    from jaxsched.studies.swf_eval import main as swf_eval_main

    with pytest.raises(InputError, match="python -m jaxsched.data fetch huawei-east-1"):
        build("vm-huawei", trace="dataset:huawei-east-1")
    assert swf_eval_main(["--trace", f"dataset:{CTC.name}"]) == 2
    assert "python -m jaxsched.data fetch ctc-sp2-first969" in capsys.readouterr().err
    fetch(CTC.name, url=ctc_copy.as_uri())
    assert len(read_swf(f"dataset:{CTC.name}")) == 969
    assert resolve_path("some/file.swf").as_posix() == "some/file.swf"
