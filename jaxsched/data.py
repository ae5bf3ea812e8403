"""``python -m jaxsched.data``: the datasets of :mod:`jaxsched.datasets` from the command line.

    python -m jaxsched.data list                     # each dataset, its source, licence, size, whether it is here
    python -m jaxsched.data fetch NAME [--url URL]   # download (http(s)://, file:// or a path), verify, cache
    python -m jaxsched.data path NAME                # the local file, or how to fetch it (exit 2)

A separate module from :mod:`jaxsched.datasets` because the envs import that one while jaxsched
loads, and ``python -m`` must find a module it runs not imported yet.
"""

from __future__ import annotations

import argparse
import sys

from jaxsched.datasets import DATASETS, cache_dir, dataset_path, fetch, fetch_hint, find
from jaxsched.errors import DatasetError


def _size(size: int) -> str:
    return f"{size / 1e6:.1f} MB" if size >= 1e5 else f"{size / 1e3:.0f} kB"


def _list() -> None:
    print(f"cache: {cache_dir()} (set JAXSCHED_DATA to move it)")
    for dataset in DATASETS.values():
        path = find(dataset.name)
        where = f"here: {path}" if path else f"absent: {fetch_hint(dataset.name)}"
        print(f"\n{dataset.name}  ({dataset.file}, {_size(dataset.size)})  {where}\n"
              f"    {dataset.description}\n"
              f"    source:  {dataset.source}\n"
              f"    licence: {dataset.licence}\n"
              f"    cite:    {dataset.citation}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jaxsched.data",
                                     description="List, fetch and locate the datasets jaxsched reads.")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="each dataset, its source and licence, and whether it is here")
    fetch_parser = commands.add_parser("fetch", help="download a dataset into the cache and verify it")
    fetch_parser.add_argument("name")
    fetch_parser.add_argument("--url", help="where to download from (http(s)://, file:// or a local path); "
                                            "default: the registry's URL")
    path_parser = commands.add_parser("path", help="print the dataset's local file")
    path_parser.add_argument("name")
    args = parser.parse_args(argv)
    try:
        if args.command == "list":
            _list()
        elif args.command == "fetch":
            print(f"{args.name}: {fetch(args.name, args.url)} (sha256 verified)")
        else:
            print(dataset_path(args.name))
    except DatasetError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
