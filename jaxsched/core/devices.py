"""Data parallelism over the local devices with JAX's own engine (``jax.sharding``).

A run asks for ``devices: auto | N``. The devices form a 1-D mesh with axis ``"batch"``; parameters
stay replicated and XLA partitions the computation and reduces the gradients. Two splits:

- **seeds**: when the vmapped seeds divide evenly over the devices, each device trains its own seeds
  (the train state's leading axis is sharded; no communication at all);
- **instances**: otherwise the learners mark their batch of instances (jobsets, environments) with
  :func:`shard_batch`, a sharding constraint on its leading axis, and XLA splits the rollouts.

On CPU, XLA makes one host device per core only when asked before it starts
(``--xla_force_host_platform_device_count``): :func:`rerun_with_host_devices` restarts a command with it.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from jaxsched.errors import ConfigError

_FLAG = "--xla_force_host_platform_device_count"
_ACTIVE: list[Mesh] = []  # the mesh learners shard their instances over while a jit traces


def usable_cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def parse_devices(spec) -> int | None:
    """``"auto"`` -> None (all local devices); an integer >= 1 -> that many."""
    if spec == "auto":
        return None
    if isinstance(spec, bool) or not isinstance(spec, int) or spec < 1:
        raise ConfigError(f"devices must be 'auto' or an integer >= 1, got {spec!r}")
    return spec


def rerun_with_host_devices(spec, module: str, argv: list[str]) -> None:
    """Starts ``python -m module argv`` again with one XLA host device per asked-for device, unless the
    flag is already set or one device is asked for. XLA reads the device count only when it starts,
    and importing jaxsched starts it, hence a new process (the same command, the same arguments)."""
    count = parse_devices(spec)
    count = usable_cores() if count is None else count
    if count <= 1 or host_device_flag() is not None:
        return
    flags = os.environ.get("XLA_FLAGS", "")
    environment = dict(os.environ, XLA_FLAGS=f"{flags} {_FLAG}={count}".strip())
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, "-m", module, *argv], environment)


def host_device_flag() -> int | None:
    match = re.search(rf"{_FLAG}=(\d+)", os.environ.get("XLA_FLAGS", ""))
    return int(match.group(1)) if match else None


def make_mesh(spec) -> Mesh:
    """A 1-D ``"batch"`` mesh of ``spec`` local devices (all for ``auto``); a clear error when more
    are asked for than exist."""
    count = parse_devices(spec)
    local = jax.local_devices()
    if count is not None and count > len(local):
        hint = "" if jax.default_backend() != "cpu" else \
            f" (on CPU, start with XLA_FLAGS={_FLAG}={count}; python -m jaxsched.train sets it itself)"
        raise ConfigError(f"devices: {count} asked for, {len(local)} {jax.default_backend()} device(s) here{hint}")
    return Mesh(np.asarray(local[:count or len(local)]), ("batch",))


@contextlib.contextmanager
def sharding_instances(mesh: Mesh | None):
    """While active (at trace time), :func:`shard_batch` constrains batches over ``mesh``."""
    _ACTIVE.append(mesh)
    try:
        yield
    finally:
        _ACTIVE.pop()


def shard_batch(tree):
    """``tree``'s leaves split along their leading axis over the active mesh (a no-op without one, or
    for leaves whose leading axis does not divide evenly)."""
    mesh = _ACTIVE[-1] if _ACTIVE else None
    if mesh is None or mesh.size == 1:
        return tree
    sharding = NamedSharding(mesh, PartitionSpec("batch"))

    def constrain(x):
        if getattr(x, "ndim", 0) >= 1 and x.shape[0] % mesh.size == 0:
            return jax.lax.with_sharding_constraint(x, sharding)
        return x

    return jax.tree.map(constrain, tree)


def seed_sharding(mesh: Mesh) -> NamedSharding:
    """The stacked train states' sharding when the seeds are split over the devices."""
    return NamedSharding(mesh, PartitionSpec("batch"))
