"""The datasets jaxsched's traces come from: where each is published, under which terms, and a
checksum, so that a user without the authors' files can fetch a verified copy
(``python -m jaxsched.data``, :mod:`jaxsched.data`, is the command).

Commands and configs name a dataset as ``dataset:NAME`` wherever they take a trace path (``--swf``,
``--trace``, the option ``trace=``); :func:`resolve_path` turns that into a file. :func:`dataset_path`
looks in this order and returns the first file of the right size:

1. the cache, ``$JAXSCHED_DATA`` if set, else ``$XDG_CACHE_HOME/jaxsched`` (default ``~/.cache/jaxsched``),
   where :func:`fetch` puts files (checksum verified);
2. ``../shared/data`` beside a source checkout (the authors' copies; only when jaxsched runs from a
   checkout, i.e. ``pyproject.toml`` sits next to the package).

The files are not part of jaxsched: the Huawei trace is licensed for non-commercial use only, and
the Parallel Workloads Archive asks to be cited; each :class:`Dataset` says so.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

from jaxsched.errors import DatasetError

DATASET_PREFIX = "dataset:"
_CHUNK = 1 << 20


@dataclasses.dataclass(frozen=True)
class Dataset:
    """One published file: what it is, where it comes from, its terms, and what it must hash to."""

    name: str
    file: str
    description: str
    source: str  # the page that documents the data
    licence: str
    citation: str
    sha256: str
    size: int  # bytes
    url: str | None = None  # a download of this exact file, where one is known


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
    ),
    Dataset(
        name="huawei-east-1",
        file="huawei-east-1-lifetimes.csv",
        description="Huawei Cloud East-1 VM requests, derived form vmid,cpu,mem,at,lt: the 116,313 VMs "
                    "deleted within the month (the 9,117 long-lived ones are missing)",
        source="https://github.com/huaweicloud/VMAgent",
        licence="CC BY-NC: research and non-commercial use only",
        citation="J. Sheng et al., VMAgent: Scheduling Simulator for Reinforcement Learning, arXiv:2112.04785",
        sha256="2094a0c8a793b45c0698451a91a28e6a608447e6aeb439064b645c580dda8cd3",
        size=3_056_573,
    ),
)}


def cache_dir() -> Path:
    """Where ``fetch`` stores files: ``$JAXSCHED_DATA``, else the user cache directory."""
    if os.environ.get("JAXSCHED_DATA"):
        return Path(os.environ["JAXSCHED_DATA"]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "jaxsched"


def checkout_data_dir() -> Path | None:
    """``../shared/data`` beside a source checkout (the authors' copies), or None outside one."""
    root = Path(__file__).resolve().parents[1]
    return root.parent / "shared" / "data" if (root / "pyproject.toml").exists() else None


def get(name: str) -> Dataset:
    """The registry's entry ``name``, or a :class:`DatasetError` listing the names."""
    if name not in DATASETS:
        raise DatasetError(f"unknown dataset {name!r}; choose from {', '.join(DATASETS)}")
    return DATASETS[name]


def find(name: str) -> Path | None:
    """The first file of ``name`` of the right size in the cache, then the checkout; None if absent.
    The size, not the hash, is checked here (fetch verified the hash; hashing on every use costs)."""
    dataset = get(name)
    for folder in (cache_dir(), checkout_data_dir()):
        if folder is not None and (folder / dataset.file).is_file() \
                and (folder / dataset.file).stat().st_size == dataset.size:
            return folder / dataset.file
    return None


def fetch_hint(name: str) -> str:
    """The command that gets dataset ``name`` (with ``--url URL`` where no public copy is known)."""
    hint = f"python -m jaxsched.data fetch {name}"
    return hint if get(name).url else hint + " --url URL"


def dataset_path(name: str) -> Path:
    """The local file of dataset ``name``; raises :class:`DatasetError` saying how to fetch it."""
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


def fetch(name: str, url: str | None = None) -> Path:
    """Downloads dataset ``name`` into the cache and verifies its sha256. A copy that does not verify
    is refused and nothing is left behind (the download goes to a temporary file first)."""
    dataset = get(name)
    url = url or dataset.url
    if url is None:
        raise DatasetError(f"no public download of {dataset.file} is known (source: {dataset.source}); "
                           f"pass --url URL of a copy (file:///path/to/{dataset.file} for a local one)")
    if "://" not in url:  # a local path
        url = Path(url).expanduser().resolve().as_uri()
    folder = cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / dataset.file
    handle = tempfile.NamedTemporaryFile(dir=folder, prefix=f".{dataset.file}.", suffix=".part", delete=False)
    partial = Path(handle.name)
    try:
        digest = hashlib.sha256()
        with handle, urllib.request.urlopen(url, timeout=60) as response:
            for block in iter(lambda: response.read(_CHUNK), b""):
                digest.update(block)
                handle.write(block)
        if digest.hexdigest() != dataset.sha256:
            raise DatasetError(f"{url} does not match dataset {name}: sha256 {digest.hexdigest()[:16]}..., "
                               f"expected {dataset.sha256[:16]}...; nothing was saved")
        os.chmod(partial, 0o644)  # a temporary file is private (0600); the cache is not
        os.replace(partial, target)
    except DatasetError:
        raise
    except (urllib.error.URLError, OSError, ValueError) as error:  # ValueError: a malformed URL
        raise DatasetError(f"cannot download {url}: {getattr(error, 'reason', error)}") from None
    finally:
        partial.unlink(missing_ok=True)
    return target
