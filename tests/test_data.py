"""The dataset registry (``jaxsched.workloads.datasets``) and its command (``python -m jaxsched.data``): the three
kinds (shipped, fetched, built), list, fetch and build with checksums, path, and ``dataset:NAME`` wherever
a trace path is taken. Downloads use file:// URLs to local copies or a patched opener (no network)."""

from __future__ import annotations

import hashlib
import os
import random
import urllib.error

import pytest

from jaxsched.data import main
from jaxsched.errors import DatasetError, InputError
from jaxsched.workloads import datasets
from jaxsched.workloads.datasets import (DATASETS, PACKAGE_DATA, Dataset, build, dataset_path, derive_huawei_lifetimes,
                                         fetch, git_blob_id, resolve_path)

CTC, LUBLIN, HUAWEI = DATASETS["ctc-sp2-first969"], DATASETS["lublin-256"], DATASETS["huawei-east-1"]
TINY = b"; a tiny SWF\n1 0 0 10 1 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
# VMAgent's format: vm 7 lives 0-194, vm 3 is created at 2 and never deleted, vm 5 lives 2-500
# (created at the same time as vm 3: ties keep file order), vm 9 lives 55-609.
VMAGENT = (b"vmid,cpu,memory,time,type\n7,4,16,0,0\n3,8,32,2,0\n5,4,16,2,0\n9,1,1,55,0\n7,4,16,194,1\n"
           b"5,4,16,500,1\n9,1,1,609,1\n")
DERIVED = b"vmid,cpu,mem,at,lt\n0,4,16,0.0,194.0\n1,4,16,2.0,498.0\n2,1,1,55.0,554.0\n"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty cache, and no checkout copies (``../shared/data``) to fall back on."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("JAXSCHED_DATA", str(folder))
    monkeypatch.setattr("jaxsched.workloads.datasets.checkout_data_dir", lambda: None)
    return folder


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    """A fetched dataset ``tiny`` (a pinned https URL, a known sha256) and a local copy of its file."""
    copy = tmp_path / "mirror" / "tiny.swf"
    copy.parent.mkdir()
    copy.write_bytes(TINY)
    dataset = Dataset(name="tiny", file="tiny.swf", description="two lines", source="https://example.org/tiny",
                      licence="public domain", citation="none", sha256=hashlib.sha256(TINY).hexdigest(),
                      size=len(TINY), url="https://example.org/abc123/tiny.swf")
    monkeypatch.setitem(DATASETS, "tiny", dataset)
    return copy


@pytest.fixture
def huawei_source(tmp_path, monkeypatch):
    """A stand-in for VMAgent's file: huawei-east-1 built from ``VMAGENT`` must hash to ``DERIVED``."""
    source = tmp_path / "Huawei-East-1.csv"
    source.write_bytes(VMAGENT)
    monkeypatch.setitem(DATASETS, "huawei-east-1", Dataset(**{
        **HUAWEI.__dict__, "sha256": hashlib.sha256(DERIVED).hexdigest(), "size": len(DERIVED),
        "source_git_blob": git_blob_id(VMAGENT)}))
    return source


def test_every_dataset_is_shipped_fetched_from_a_pinned_url_or_built_from_a_pinned_source():
    kinds = {d.name: d.kind for d in DATASETS.values()}
    assert kinds == {"lublin-256": "fetched", "ctc-sp2-first969": "shipped", "huawei-east-1": "built"}
    assert "/c649e852ab3cabbc5ac8e4f46b81b1dd66625831/" in LUBLIN.url  # a commit, not a branch
    assert f"/{datasets.VMAGENT_COMMIT}/" in HUAWEI.source_url and len(HUAWEI.source_git_blob) == 40
    assert "create time" in HUAWEI.build_steps and HUAWEI.url is None


def test_the_shipped_excerpt_is_package_data_and_matches_the_registry(cache, capsys):
    assert main(["fetch", CTC.name]) == 0
    assert capsys.readouterr().out == f"{CTC.name}: {PACKAGE_DATA / CTC.file} (ships with jaxsched: nothing to fetch)\n"
    data = (PACKAGE_DATA / CTC.file).read_bytes()
    assert len(data) == CTC.size and hashlib.sha256(data).hexdigest() == CTC.sha256
    assert dataset_path(CTC.name) == PACKAGE_DATA / CTC.file == fetch(CTC.name)  # no download, no cache
    assert not cache.exists()
    import tomllib
    package_data = tomllib.loads((PACKAGE_DATA.parents[2] / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert any(PACKAGE_DATA.joinpath(CTC.file).match(f"jaxsched/workloads/{glob}")
               for glob in package_data["jaxsched.workloads"])


def test_list_says_for_each_dataset_how_to_get_it_and_whether_it_is_here(cache, tiny, capsys):
    assert main(["fetch", "tiny", "--url", tiny.as_uri()]) == 0
    capsys.readouterr()
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for dataset in DATASETS.values():
        assert dataset.name in out and dataset.licence in out and dataset.source in out and dataset.sha256 in out
    assert f"ctc-sp2-first969  [shipped]" in out and f"here: {PACKAGE_DATA / CTC.file}" in out
    assert "shipped with jaxsched (package data)" in out
    assert f"lublin-256  [fetched]" in out and f"fetch lublin-256  (from {LUBLIN.url})" in out
    assert "absent: python -m jaxsched.data fetch lublin-256" in out
    assert f"huawei-east-1  [built]" in out and "not fetched automatically" in out
    assert HUAWEI.source_url in out and HUAWEI.build_steps in out and HUAWEI.source_git_blob in out
    assert "absent: python -m jaxsched.data build huawei-east-1" in out
    assert f"here: {cache / 'tiny.swf'}" in out
    assert "non-commercial" in out


def test_fetch_from_a_file_url_verifies_and_caches(cache, tiny, capsys):
    assert main(["fetch", "tiny", "--url", tiny.as_uri()]) == 0
    assert "sha256 verified" in capsys.readouterr().out
    cached = cache / "tiny.swf"
    assert cached.read_bytes() == TINY
    assert sorted(p.name for p in cache.iterdir()) == ["tiny.swf"]  # no temporary file left
    assert dataset_path("tiny") == cached == resolve_path("dataset:tiny")
    assert main(["path", "tiny"]) == 0
    assert capsys.readouterr().out.strip() == str(cached)


def test_fetch_reads_the_pinned_url_by_default(cache, tiny, monkeypatch):
    opened = []

    def opener(url, timeout):
        opened.append(url)
        return open(tiny, "rb")

    monkeypatch.setattr("urllib.request.urlopen", opener)
    assert fetch("tiny").read_bytes() == TINY
    assert opened == ["https://example.org/abc123/tiny.swf"]


def test_a_corrupted_copy_is_refused_and_nothing_is_left(cache, tiny, capsys):
    tiny.write_bytes(TINY.replace(b"10", b"11", 1))
    assert main(["fetch", "tiny", "--url", str(tiny)]) == 2  # a plain path works as well as a URL
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ") and "does not match dataset tiny" in err
    assert "nothing was saved" in err
    assert not cache.exists() or list(cache.iterdir()) == []


def test_no_network_is_one_clear_line_and_leaves_nothing(cache, tiny, monkeypatch, capsys):
    def offline(url, timeout):
        raise urllib.error.URLError(OSError(-3, "Temporary failure in name resolution"))

    monkeypatch.setattr("urllib.request.urlopen", offline)
    assert main(["fetch", "tiny"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith("error: cannot download https://example.org/abc123/tiny.swf: ")
    assert "Temporary failure in name resolution" in captured.err and "no network?" in captured.err
    with pytest.raises(DatasetError, match="cannot download file:.*missing.swf"):
        fetch("tiny", url=(cache.parent / "missing.swf").as_uri())
    assert not cache.exists() or list(cache.iterdir()) == []


def test_the_built_dataset_is_not_fetched_and_says_how_to_build_it(cache, capsys):
    assert main(["fetch", HUAWEI.name]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not fetched automatically" in err
    assert "python -m jaxsched.data build huawei-east-1" in err
    assert main(["path", HUAWEI.name]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("error: dataset huawei-east-1 is not here; get it with: "
                                   "python -m jaxsched.data build huawei-east-1")
    with pytest.raises(InputError, match="unknown dataset 'nope'; choose from lublin-256"):
        dataset_path("nope")
    with pytest.raises(DatasetError, match="lublin-256 is fetched, not built: use python -m jaxsched.data fetch"):
        build(LUBLIN.name)


def test_the_derivation_keeps_deleted_vms_by_create_time_ties_in_file_order():
    assert derive_huawei_lifetimes(VMAGENT) == DERIVED
    with pytest.raises(DatasetError, match="expected vmid,cpu,memory,time,type"):
        derive_huawei_lifetimes(b"vmid,cpu,mem,at,lt\n")
    with pytest.raises(DatasetError, match="line 3: cannot read"):
        derive_huawei_lifetimes(b"vmid,cpu,memory,time,type\n1,2,4,0,0\n1,2,x,5,1\n")


def test_build_checks_the_source_and_the_result_and_caches_it(cache, huawei_source, capsys):
    assert main(["build", "huawei-east-1", "--from", str(huawei_source)]) == 0
    assert "source and result verified" in capsys.readouterr().out
    assert (cache / HUAWEI.file).read_bytes() == DERIVED == dataset_path("huawei-east-1").read_bytes()
    (cache / HUAWEI.file).unlink()
    huawei_source.write_bytes(VMAGENT + b"11,2,4,700,0\n")  # another file than the pinned one
    assert main(["build", "huawei-east-1", "--from", huawei_source.as_uri()]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not the pinned source of huawei-east-1" in err
    assert not (cache / HUAWEI.file).exists()


def test_build_refuses_a_derived_file_with_another_checksum(cache, huawei_source, monkeypatch):
    monkeypatch.setitem(DATASETS, "huawei-east-1", Dataset(**{**DATASETS["huawei-east-1"].__dict__,
                                                               "sha256": "0" * 64}))
    with pytest.raises(DatasetError, match="the file derived from file:.* does not match dataset huawei-east-1"):
        build("huawei-east-1", str(huawei_source))
    assert not cache.exists() or list(cache.iterdir()) == []


def test_the_derivation_reproduces_the_authors_file_from_its_vmagent_form():
    """The authors' derived file (``../shared/data``, skipped where absent) written back in VMAgent's format,
    with the 9,117 never-deleted VMs added at random times and vmids shuffled, derives to the same bytes."""
    derived = datasets.checkout_data_dir() and datasets.checkout_data_dir() / HUAWEI.file
    if not derived or not derived.is_file():
        pytest.skip(f"the authors' {HUAWEI.file} is not here (../shared/data)")
    rows = [line.split(",") for line in derived.read_text().splitlines()[1:]]
    rng = random.Random(0)
    ids = rng.sample(range(10**6, 10**7), len(rows) + 9117)
    events = []  # (time, deletes before creates, vm order, line)
    for i, (_, cpu, mem, at, lt) in enumerate(rows):
        start, end = float(at), float(at) + float(lt)
        events += [(start, 1, i, f"{ids[i]},{cpu},{mem},{int(start)},0"), (end, 0, i, f"{ids[i]},{cpu},{mem},{int(end)},1")]
    for j in range(9117):
        when = rng.randrange(2_678_000)
        events.append((when, 1, len(rows), f"{ids[len(rows) + j]},2,4,{when},0"))
    events.sort(key=lambda event: event[:3])
    source = ("vmid,cpu,memory,time,type\n" + "\n".join(e[3] for e in events) + "\n").encode()
    assert hashlib.sha256(derive_huawei_lifetimes(source)).hexdigest() == HUAWEI.sha256


def test_a_file_of_the_wrong_size_in_the_cache_is_not_used(cache, tiny):
    cache.mkdir()
    (cache / "tiny.swf").write_text("truncated")
    with pytest.raises(DatasetError, match="not here"):
        dataset_path("tiny")


def test_commands_and_variants_take_dataset_names(cache, tiny, capsys):
    """``dataset:NAME`` goes through dataset_path in the readers and the VM variants; a missing one
    says how to get it."""
    from jaxsched.workloads.swf import read_swf
    from jaxsched.registry import build as build_variant
    from jaxsched.studies.swf_eval import main as swf_eval_main

    with pytest.raises(InputError, match="python -m jaxsched.data build huawei-east-1"):
        build_variant("vm-huawei", trace="dataset:huawei-east-1")
    assert swf_eval_main(["--trace", f"dataset:{LUBLIN.name}"]) == 2
    assert "python -m jaxsched.data fetch lublin-256" in capsys.readouterr().err
    assert len(read_swf(f"dataset:{CTC.name}")) == 969  # shipped: here without a fetch
    fetch("tiny", url=tiny.as_uri())
    assert len(read_swf("dataset:tiny")) == 1
    assert resolve_path("some/file.swf").as_posix() == "some/file.swf"
    assert os.fspath(resolve_path(f"dataset:{CTC.name}")) == str(PACKAGE_DATA / CTC.file)
