"""``python -m jaxsched.data``: the datasets of :mod:`jaxsched.workloads.datasets` from the command line.

    python -m jaxsched.data list                     # each dataset: shipped, fetched or built; source, licence, here?
    python -m jaxsched.data fetch NAME [--url URL]   # download (http(s)://, file:// or a path), verify, cache
    python -m jaxsched.data build NAME [--from SRC]  # derive a dataset from its public source, verify, cache
    python -m jaxsched.data path NAME                # the local file, or how to get it (exit 2)

A separate module from :mod:`jaxsched.workloads.datasets` because the envs import that one while jaxsched
loads, and ``python -m`` must find a module it runs not imported yet.
"""

from __future__ import annotations

import argparse
import sys

from jaxsched.errors import DatasetError
from jaxsched.workloads.datasets import (BUILT, DATASETS, FETCHED, build, cache_dir, dataset_path, fetch, fetch_hint,
                                         find)


def _size(size: int) -> str:
    return f"{size / 1e6:.1f} MB" if size >= 1e5 else f"{size / 1e3:.0f} kB"


def _how(dataset) -> str:
    """How a user gets ``dataset``: the one line ``list`` prints under ``get:``."""
    if dataset.kind == FETCHED:
        return f"fetched: python -m jaxsched.data fetch {dataset.name}  (from {dataset.url})"
    if dataset.kind == BUILT:
        return (f"not fetched automatically (no public copy of this file); build it from its public source: "
                f"python -m jaxsched.data build {dataset.name} [--from FILE]\n"
                f"             source:   {dataset.source_url} (git blob {dataset.source_git_blob})\n"
                f"             steps:    {dataset.build_steps}")
    return "shipped with jaxsched (package data)"


def _list() -> None:
    print(f"cache: {cache_dir()} (set JAXSCHED_DATA to move it)")
    for dataset in DATASETS.values():
        path = find(dataset.name)
        where = f"here: {path}" if path else f"absent: {fetch_hint(dataset.name)}"
        print(f"\n{dataset.name}  [{dataset.kind}]  ({dataset.file}, {_size(dataset.size)})  {where}\n"
              f"    {dataset.description}\n"
              f"    get:     {_how(dataset)}\n"
              f"    sha256:  {dataset.sha256}\n"
              f"    source:  {dataset.source}\n"
              f"    licence: {dataset.licence}\n"
              f"    cite:    {dataset.citation}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jaxsched.data",
                                     description="List, fetch, build and locate the datasets jaxsched reads.")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="each dataset, its source and licence, and whether it is here")
    fetch_parser = commands.add_parser("fetch", help="download a dataset into the cache and verify it")
    fetch_parser.add_argument("name")
    fetch_parser.add_argument("--url", help="where to download from (http(s)://, file:// or a local path); "
                                            "default: the registry's URL")
    build_parser = commands.add_parser("build", help="derive a dataset that is not fetched automatically from its "
                                       "public source, verify and cache it")
    build_parser.add_argument("name")
    build_parser.add_argument("--from", dest="source", help="the public source file (http(s)://, file:// or a "
                                                           "local path); default: its pinned URL")
    path_parser = commands.add_parser("path", help="print the dataset's local file")
    path_parser.add_argument("name")
    args = parser.parse_args(argv)
    try:
        if args.command == "list":
            _list()
        elif args.command == "fetch":
            shipped = DATASETS.get(args.name) is not None and DATASETS[args.name].shipped and args.url is None
            print(f"{args.name}: {fetch(args.name, args.url)} "
                  f"({'ships with jaxsched: nothing to fetch' if shipped else 'sha256 verified'})")
        elif args.command == "build":
            print(f"{args.name}: {build(args.name, args.source)} (source and result verified)")
        else:
            print(dataset_path(args.name))
    except DatasetError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
