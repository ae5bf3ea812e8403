"""Registered environments: ``jaxsched.make(name, **overrides) -> (env, params)``.

Each family (``jaxsched/envs/<family>/variants.py``) holds a ``VARIANTS`` table of named settings
and ``build(name, **overrides) -> Variant``; adding a family is one line in ``FAMILIES``
(or :func:`register` at run time, as the tests' toy family does).
"""

from __future__ import annotations

from types import ModuleType

from jaxsched.core.variant import Variant
from jaxsched.envs.deeprm import variants as deeprm
from jaxsched.envs.grid import variants as grid
from jaxsched.envs.vm import variants as vm

FAMILIES: list[ModuleType] = [deeprm, vm, grid]


def register(family: ModuleType) -> None:
    """Adds a family (a module with ``VARIANTS`` and ``build``); its names must be new."""
    taken = set(registered()) & set(family.VARIANTS)
    if taken:
        raise ValueError(f"environment name(s) {', '.join(sorted(taken))} are already registered")
    FAMILIES.append(family)


def registered() -> list[str]:
    return sorted(name for family in FAMILIES for name in family.VARIANTS)


def build(name: str, **overrides) -> Variant:
    """The variant ``name`` (its env, default params and family answers), with ``overrides``."""
    for family in FAMILIES:
        if name in family.VARIANTS:
            return family.build(name, **overrides)
    raise ValueError(f"unknown environment {name!r}; registered: {', '.join(registered())}")


def make(name: str, **overrides):
    """gymnax-style: the environment and its default params."""
    variant = build(name, **overrides)
    return variant.env, variant.params
