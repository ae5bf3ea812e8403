"""The datasets jaxsched's traces come from: where each is published, under which terms, and a
checksum, so that a user without the authors' files gets a verified copy
(``python -m jaxsched.data``, :mod:`jaxsched.data`, is the command).

Each dataset is one of three kinds (:attr:`Dataset.kind`), and ``data list`` says which:

* ``shipped``: small, in the package (``jaxsched/workloads/data_files/``), always here;
* ``fetched``: ``python -m jaxsched.data fetch NAME`` downloads it from a public URL pinned to a
  commit and checks its sha256;
* ``built``: no public copy of this exact file exists, so it is not fetched automatically;
  ``python -m jaxsched.data build NAME`` derives it from its public source (pinned, checked by
  its git blob hash) and checks the result's sha256. :attr:`Dataset.build_steps` says the same in words.

Commands and configs name a dataset as ``dataset:NAME`` wherever they take a trace path (``--swf``,
``--trace``, the option ``trace=``); :func:`resolve_path` turns that into a file. :func:`dataset_path`
looks in this order and returns the first file of the right size:

1. the package's ``data_files/`` (shipped datasets);
2. the cache, ``$JAXSCHED_DATA`` if set, else ``$XDG_CACHE_HOME/jaxsched`` (default ``~/.cache/jaxsched``),
   where :func:`fetch` and :func:`build` put files (checksum verified);
3. ``../shared/data`` beside a source checkout (the authors' copies; only when jaxsched runs from a
   checkout, i.e. ``pyproject.toml`` sits next to the package).

The Huawei trace is licensed for non-commercial use only, and the Parallel Workloads Archive asks
to be cited; each :class:`Dataset` says so.
"""

from __future__ import annotations

import dataclasses
import hashlib
import http.client
import os
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

from jaxsched.errors import DatasetError

DATASET_PREFIX = "dataset:"
PACKAGE_DATA = Path(__file__).resolve().parent / "data_files"
_CHUNK = 1 << 20
SHIPPED, FETCHED, BUILT = "shipped", "fetched", "built"


@dataclasses.dataclass(frozen=True)
class Dataset:
    """One published file: what it is, where it comes from, its terms, what it must hash to, and how a
    user gets it (shipped, fetched from ``url``, or built from ``source_url``)."""

    name: str
    file: str
    description: str
    source: str  # the page that documents the data
    licence: str
    citation: str
    sha256: str
    size: int  # bytes
    url: str | None = None  # a download of this exact file, pinned to a commit
    shipped: bool = False  # in the package's data_files/
    source_url: str | None = None  # built: the public file it is derived from, pinned to a commit
    source_git_blob: str | None = None  # built: that file's git blob id (what its repository records)
    build_steps: str | None = None  # built: the derivation in words

    @property
    def kind(self) -> str:
        """``shipped``, ``fetched`` or ``built`` (see the module docstring)."""
        return SHIPPED if self.shipped else FETCHED if self.url else BUILT


VMAGENT_COMMIT = "1ffabd6952df7bb6694d346390762033028e2d89"  # mail-ecnu/VMAgent master, 2023-04-27
HUAWEI_BUILD_STEPS = (
    "read VMAgent's vmagent/data/Huawei-East-1.csv (columns vmid,cpu,memory,time,type; type 0 creates, "
    "1 deletes); keep each VM that has both a create and a delete row; order them by create time, ties "
    "in file order; write the header vmid,cpu,mem,at,lt and one row per VM: its rank in that order, cpu "
    "and memory as integers, at = create time and lt = delete time - create time as floats (Python "
    "repr, e.g. 194.0), LF line ends")

DATASETS: dict[str, Dataset] = {d.name: d for d in (
    Dataset(
        name="lublin-256",
        file="lublin-256.swf",
        description="10,000 jobs on 256 processors drawn from the Lublin-Feitelson workload model (SWF)",
        source="https://www.cs.huji.ac.il/labs/parallel/workload/models.html",
        licence="Parallel Workloads Archive: free to use; cite the archive and the model",
        citation="U. Lublin and D. G. Feitelson, The workload on parallel supercomputers: modeling the "
                 "characteristics of rigid jobs, J. Parallel Distrib. Comput. 63(11), 2003; D. G. Feitelson, "
                 "D. Tsafrir and D. Krakov, Experience with using the Parallel Workloads Archive, J. Parallel "
                 "Distrib. Comput. 74(10), 2014",
        sha256="a394ab3d81179ebcf645a1cbd593a60b6dff7f11a510e1e6285c45f43310c962",
        size=649_089,
        # RLScheduler's copy (same header and byte count as ours)
        url="https://raw.githubusercontent.com/DIR-LAB/deep-batch-scheduler/"
            "c649e852ab3cabbc5ac8e4f46b81b1dd66625831/data/lublin_256.swf",
    ),
    Dataset(
        name="ctc-sp2-first969",
        file="ctc-sp2-1996-first969.swf",
        description="the first 969 jobs of the cleaned Cornell Theory Center IBM SP2 log "
                    "(CTC-SP2-1996-3.1-cln, 430 batch processors; SWF)",
        source="https://www.cs.huji.ac.il/labs/parallel/workload/l_ctc_sp2/index.html",
        licence="Parallel Workloads Archive: free to use; cite the archive, acknowledge Dan Dwyer (CTC)",
        citation="D. G. Feitelson, D. Tsafrir and D. Krakov, Experience with using the Parallel Workloads "
                 "Archive, J. Parallel Distrib. Comput. 74(10), 2014",
        sha256="b971b33f4e79d349c1248277eda3ebf818c76fc4a7249f59284cadd74867bead",
        size=61_521,
        shipped=True,
    ),
    Dataset(
        name="huawei-east-1",
        file="huawei-east-1-lifetimes.csv",
        description="Huawei Cloud East-1 VM requests, derived form vmid,cpu,mem,at,lt: the 116,313 VMs "
                    "deleted within the month (the 9,117 long-lived ones are missing)",
        source="https://github.com/mail-ecnu/VMAgent",
        licence="CC BY-NC: research and non-commercial use only",
        citation="J. Sheng et al., VMAgent: Scheduling Simulator for Reinforcement Learning, arXiv:2112.04785",
        sha256="2094a0c8a793b45c0698451a91a28e6a608447e6aeb439064b645c580dda8cd3",
        size=3_056_573,
        # derived by jaxsched's authors; no public copy of the derived file: built from VMAgent's
        source_url=f"https://raw.githubusercontent.com/mail-ecnu/VMAgent/{VMAGENT_COMMIT}/vmagent/data/Huawei-East-1.csv",
        source_git_blob="bd99b76efa7e01a195e56a1f977992cc81fc9cc2",
        build_steps=HUAWEI_BUILD_STEPS,
    ),
)}


def cache_dir() -> Path:
    """Where ``fetch`` and ``build`` store files: ``$JAXSCHED_DATA``, else the user cache directory."""
    if os.environ.get("JAXSCHED_DATA"):
        return Path(os.environ["JAXSCHED_DATA"]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "jaxsched"


def checkout_data_dir() -> Path | None:
    """``../shared/data`` beside a source checkout (the authors' copies), or None outside one."""
    root = Path(__file__).resolve().parents[2]
    return root.parent / "shared" / "data" if (root / "pyproject.toml").exists() else None


def get(name: str) -> Dataset:
    """The registry's entry ``name``, or a :class:`DatasetError` listing the names."""
    if name not in DATASETS:
        raise DatasetError(f"unknown dataset {name!r}; choose from {', '.join(DATASETS)}")
    return DATASETS[name]


def find(name: str) -> Path | None:
    """The first file of ``name`` of the right size in the package, the cache, then the checkout; None
    if absent. The size, not the hash, is checked here (fetch verified the hash; hashing on every use costs)."""
    dataset = get(name)
    folders = (PACKAGE_DATA if dataset.shipped else None, cache_dir(), checkout_data_dir())
    for folder in folders:
        if folder is not None and (folder / dataset.file).is_file() \
                and (folder / dataset.file).stat().st_size == dataset.size:
            return folder / dataset.file
    return None


def fetch_hint(name: str) -> str:
    """The command that gets dataset ``name``."""
    dataset = get(name)
    if dataset.kind == SHIPPED:
        return f"it ships with jaxsched ({PACKAGE_DATA / dataset.file}); reinstall jaxsched"
    if dataset.kind == BUILT:
        return f"python -m jaxsched.data build {name} (not fetched automatically: see python -m jaxsched.data list)"
    return f"python -m jaxsched.data fetch {name}"


def dataset_path(name: str) -> Path:
    """The local file of dataset ``name``; raises :class:`DatasetError` saying how to get it."""
    path = find(name)
    if path is None:
        raise DatasetError(f"dataset {name} is not here; get it with: {fetch_hint(name)}")
    return path


def resolve_path(value: str | os.PathLike) -> Path:
    """A trace argument as a file: ``dataset:NAME`` is :func:`dataset_path`, anything else a path."""
    text = os.fspath(value)
    if text.startswith(DATASET_PREFIX):
        return dataset_path(text[len(DATASET_PREFIX):])
    return Path(text)


def _as_url(location: str) -> str:
    """A URL for ``location``: itself when it has a scheme, else a local path as ``file://``."""
    return location if "://" in location else Path(location).expanduser().resolve().as_uri()


def _download(url: str) -> bytes:
    """The bytes at ``url``; any failure (no network, 404, a malformed URL) is one :class:`DatasetError` line."""
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return b"".join(iter(lambda: response.read(_CHUNK), b""))
    except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError) as error:
        reason = getattr(error, "reason", None) or error  # ValueError: a malformed URL
        hint = " (no network? download it elsewhere and pass --url with its local path)" \
            if isinstance(error, urllib.error.URLError) and not isinstance(error, urllib.error.HTTPError) \
            and not url.startswith("file:") else ""
        raise DatasetError(f"cannot download {url}: {reason}{hint}") from None


def _save(dataset: Dataset, data: bytes, what: str) -> Path:
    """``data`` written to the cache as ``dataset``'s file if its sha256 matches; else nothing is
    written and a :class:`DatasetError` names ``what`` did not match. Written to a temporary file first."""
    digest = hashlib.sha256(data).hexdigest()
    if digest != dataset.sha256:
        raise DatasetError(f"{what} does not match dataset {dataset.name}: sha256 {digest[:16]}..., "
                           f"expected {dataset.sha256[:16]}...; nothing was saved")
    folder = cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    handle = tempfile.NamedTemporaryFile(dir=folder, prefix=f".{dataset.file}.", suffix=".part", delete=False)
    partial = Path(handle.name)
    try:
        with handle:
            handle.write(data)
        os.chmod(partial, 0o644)  # a temporary file is private (0600); the cache is not
        os.replace(partial, folder / dataset.file)
    finally:
        partial.unlink(missing_ok=True)
    return folder / dataset.file


def fetch(name: str, url: str | None = None) -> Path:
    """Downloads dataset ``name`` (from ``url``, else its pinned URL) into the cache and verifies its
    sha256; a copy that does not verify is refused and nothing is left behind. A shipped dataset is
    returned as it is; a built one without ``url`` is refused with how to build it."""
    dataset = get(name)
    if dataset.kind == SHIPPED and url is None:
        return PACKAGE_DATA / dataset.file
    if url is None and dataset.url is None:
        raise DatasetError(f"{name} is not fetched automatically (no public copy of {dataset.file}); build it "
                           f"from its public source with: python -m jaxsched.data build {name} "
                           f"[--from FILE], or pass --url of a copy you have")
    url = _as_url(url or dataset.url)
    return _save(dataset, _download(url), url)


def git_blob_id(data: bytes) -> str:
    """The id git gives a file of content ``data`` (sha1 of ``blob <size>\\0`` + data): what a repository's
    tree records, so a download can be checked against a pinned commit without the sha256 of the file."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def derive_huawei_lifetimes(vmagent_csv: bytes) -> bytes:
    """VMAgent's ``vmid,cpu,memory,time,type`` file as the derived ``vmid,cpu,mem,at,lt`` file of dataset
    ``huawei-east-1`` (:data:`HUAWEI_BUILD_STEPS`): the VMs deleted within the file, by create time."""
    lines = vmagent_csv.decode("utf-8").splitlines()
    if not lines or lines[0].strip().replace(" ", "") != "vmid,cpu,memory,time,type":
        raise DatasetError(f"not VMAgent's Huawei file: header {lines[0][:60] if lines else ''!r}, "
                           "expected vmid,cpu,memory,time,type")
    creates: dict[str, tuple[int, str, str, float]] = {}  # vmid -> (file order, cpu, memory, time)
    deletes: dict[str, float] = {}
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        try:
            vmid, cpu, memory, time, kind = (field.strip() for field in line.split(","))
            entry = (number, str(int(float(cpu))), str(int(float(memory))), float(time))
            kind = int(float(kind))
        except ValueError:
            raise DatasetError(f"VMAgent's Huawei file, line {number}: cannot read {line[:60]!r}") from None
        if kind == 0:
            creates.setdefault(vmid, entry)
        elif kind == 1:
            deletes.setdefault(vmid, entry[3])
    kept = sorted((created[3], created[0], vmid) for vmid, created in creates.items() if vmid in deletes)
    rows = ["vmid,cpu,mem,at,lt"]
    for rank, (at, _, vmid) in enumerate(kept):
        _, cpu, memory, _ = creates[vmid]
        rows.append(f"{rank},{cpu},{memory},{at!r},{deletes[vmid] - at!r}")
    return ("\n".join(rows) + "\n").encode()


_DERIVATIONS = {"huawei-east-1": derive_huawei_lifetimes}


def build(name: str, source: str | None = None) -> Path:
    """Builds dataset ``name`` from its public source (``source``: a URL or local path, else the pinned
    :attr:`Dataset.source_url`), checking the source's git blob id and the result's sha256; saved to the cache."""
    dataset = get(name)
    if dataset.kind != BUILT:
        raise DatasetError(f"{name} is {dataset.kind}, not built: use python -m jaxsched.data "
                           f"{'path' if dataset.kind == SHIPPED else 'fetch'} {name}")
    url = _as_url(source or dataset.source_url)
    data = _download(url)
    if git_blob_id(data) != dataset.source_git_blob:
        raise DatasetError(f"{url} is not the pinned source of {name}: git blob {git_blob_id(data)[:12]}, "
                           f"expected {dataset.source_git_blob[:12]} ({dataset.source_url}); nothing was saved")
    return _save(dataset, _DERIVATIONS[name](data), f"the file derived from {url}")
