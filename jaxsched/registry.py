"""Registered environments: ``jaxsched.make(id, **overrides) -> (env, params)``.

Each family (``jaxsched/envs/<family>/variants.py``) holds a ``VARIANTS`` table of named settings
and ``build(name, **overrides) -> Variant``; adding a family is one line in ``FAMILIES``
(or :func:`register` at run time, as the tests' toy family does).

**Ids.** Every variant ``NAME`` has the versioned id ``NAME-v1`` (:func:`env_ids`); the version changes
when the variant's dynamics or defaults change in a way that changes results. The bare ``NAME`` stays
accepted everywhere as an alias of its current version, and ``variant.name`` is always the bare name
(what run directories record).

**Gymnasium.** Every id is registered with Gymnasium under the namespace ``jaxsched``
(``gymnasium.make("jaxsched/deeprm-v1")``, ``gymnasium.make_vec("jaxsched/deeprm-v1", num_envs=8)``)
by entry-point strings: registering builds and compiles nothing, and imports no adapter until an env
is made.
"""

from __future__ import annotations

import re
from types import ModuleType

from gymnasium.envs import registration

from jaxsched.core.variant import Variant
from jaxsched.envs.deeprm import variants as deeprm
from jaxsched.envs.grid import variants as grid
from jaxsched.envs.vm import variants as vm

FAMILIES: list[ModuleType] = [deeprm, vm, grid]
VERSION = 1  # the version every registered variant is at
NAMESPACE = "jaxsched"  # the Gymnasium namespace: gymnasium.make("jaxsched/<id>")
_VERSIONED = re.compile(r"^(?P<name>.+)-v(?P<version>\d+)$")


def register(family: ModuleType) -> None:
    """Adds a family (a module with ``VARIANTS`` and ``build``); its names must be new, and none may
    look like a versioned id. Its ids are registered with Gymnasium too."""
    taken = set(registered()) & set(family.VARIANTS)
    if taken:
        raise ValueError(f"environment name(s) {', '.join(sorted(taken))} are already registered")
    versioned = sorted(name for name in family.VARIANTS if _VERSIONED.match(name))
    if versioned:
        raise ValueError(f"environment name(s) {', '.join(versioned)} end in -vN, which is reserved for versions")
    FAMILIES.append(family)
    register_with_gymnasium(family.VARIANTS)


def registered() -> list[str]:
    """The bare variant names (aliases of :func:`env_ids`)."""
    return sorted(name for family in FAMILIES for name in family.VARIANTS)


def env_id(name: str) -> str:
    """The versioned id of the variant ``name``: ``NAME-v1``."""
    return f"{name}-v{VERSION}"


def env_ids() -> list[str]:
    """Every registered env's versioned id, sorted."""
    return [env_id(name) for name in registered()]


def variant_name(env: str) -> str:
    """The bare variant name of a versioned id or alias; ``ValueError`` listing the ids otherwise."""
    names = registered()
    if env in names:
        return env
    match = _VERSIONED.match(env)
    if match and match["name"] in names:
        if int(match["version"]) == VERSION:
            return match["name"]
        raise ValueError(f"environment {env!r}: version v{match['version']} is not available; "
                         f"use {env_id(match['name'])}")
    raise ValueError(f"unknown environment {env!r}; registered: {', '.join(env_ids())} "
                     f"(or the same without -v{VERSION}: {', '.join(names)})")


def build(name: str, **overrides) -> Variant:
    """The variant ``name`` (a versioned id or its alias: its env, default params and family answers),
    with ``overrides``."""
    name = variant_name(name)
    for family in FAMILIES:
        if name in family.VARIANTS:
            return family.build(name, **overrides)
    raise AssertionError(f"{name} is registered but no family holds it")


def make(name: str, **overrides):
    """gymnax-style: the environment and its default params."""
    variant = build(name, **overrides)
    return variant.env, variant.params


def register_with_gymnasium(names) -> None:
    """Registers ``jaxsched/NAME-v1`` for each variant name with Gymnasium (entry points are strings:
    nothing is imported or built until ``gymnasium.make``)."""
    for name in names:
        gym_id = f"{NAMESPACE}/{env_id(name)}"
        if gym_id in registration.registry:
            continue
        registration.register(gym_id, entry_point="jaxsched.gymnasium_env:make_gymnasium",
                              vector_entry_point="jaxsched.vector_env:make_vec", kwargs={"name": name})


register_with_gymnasium(registered())
