"""Progress bars for the long evaluation loops (policies, loads, windows, runs).

One look for all of them: tqdm on stderr, redrawn at most every few seconds (a bar must not cost the
2-core CPU it reports on), shown on a console and switched off when stderr is not a terminal (logs,
tests, CI)."""

from __future__ import annotations

from typing import Iterable, TypeVar

from tqdm import tqdm

T = TypeVar("T")
REDRAW_SECONDS = 3.0


def progress(items: Iterable[T], desc: str, unit: str = "policy", total: int | None = None) -> tqdm:
    """``items`` wrapped in a bar labelled ``desc``, counting ``unit``."""
    return tqdm(items, desc=desc, unit=unit, total=total, dynamic_ncols=True, mininterval=REDRAW_SECONDS,
                disable=None, leave=False)


def evaluate_each(variant, policies: dict, batched_params, key, desc: str, **options) -> dict:
    """``variant.evaluate`` one policy at a time under a bar; the same ``key`` for every policy, as
    ``variant.evaluate`` uses for all of them at once, so the tables are the same."""
    return {name: variant.evaluate({name: policy}, batched_params, key, **options)[name]
            for name, policy in progress(policies.items(), desc, total=len(policies))}
