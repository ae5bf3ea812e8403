"""Data parallelism over the local devices with JAX's own engine (``jax.sharding``).

A run asks for ``devices: auto | N``. The devices form a 1-D mesh with axis ``"batch"``; parameters
stay replicated and XLA partitions the computation and reduces the gradients. Two splits:

- **seeds**: when the vmapped seeds divide evenly over the devices, each device trains its own seeds
  (the train state's leading axis is sharded; no communication at all);
- **instances**: otherwise the learners mark their batch of instances (jobsets, environments) with
  :func:`shard_batch`, a sharding constraint on its leading axis, and XLA splits the computation;
  the Monte-Carlo rollouts of :func:`jaxsched.core.rollout.collect_batch` run explicitly per device
  (:func:`split_instances`, ``shard_map``): XLA:CPU did not split the rollout loop from the constraint
  alone (1.08x on two cores, measured); REINFORCE's gradient over those instances is split the same
  way (:func:`mean_over_instances`: each device's mean, then ``pmean``).

On CPU, XLA makes one host device per core only when asked before it starts
(``--xla_force_host_platform_device_count``): :func:`restart_for_devices` restarts a command with it.

**Several processes** (hosts, or local processes in a test) join one run through ``jax.distributed``
(:func:`join_from_environment`; on CPU the collectives go through gloo). The mesh then spans every process's
devices, each process holds the whole host value of what it puts on the mesh (:func:`put_global`),
reads results back with :func:`host_copy`, and only the primary process writes files.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import sys
import time

import jax
import numpy as np
from jax.experimental import multihost_utils
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from jaxsched.errors import ConfigError, JaxschedError, UsageError

_FLAG = "--xla_force_host_platform_device_count"
_ACTIVE: list[Mesh] = []  # the mesh learners shard their instances over while a jit traces


def usable_cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


_PIN_THEN_EXEC = ("import os, sys; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
                  "os.execv(sys.argv[1], sys.argv[1:])")


def pinned_to_one_core(command: list[str]) -> list[str]:
    """``command`` run in a process pinned to one core before it starts, so that every thread XLA
    makes inherits the pin (an intra-op pool of one thread): the benches' one-core rows."""
    return [sys.executable, "-c", _PIN_THEN_EXEC, *command]


@contextlib.contextmanager
def threads_on_one_core():
    """Every thread of this process on one core for the block, then back on the cores it had: the benches'
    one-core rows timed in-process (XLA:CPU's intra-op threads included; a thread made inside inherits the
    pin). Linux only; elsewhere, or with one usable core, the block runs as it is."""
    if not hasattr(os, "sched_setaffinity") or not os.path.isdir("/proc/self/task") or usable_cores() == 1:
        yield
        return
    allowed = os.sched_getaffinity(0)

    def pin_every_thread(cores):
        for thread in os.listdir("/proc/self/task"):
            with contextlib.suppress(OSError):  # a thread that ended meanwhile
                os.sched_setaffinity(int(thread), cores)

    pin_every_thread({min(allowed)})
    try:
        yield
    finally:
        pin_every_thread(allowed)


def parse_devices(spec) -> int | None:
    """``"auto"`` -> None (all local devices); an integer >= 1 -> that many."""
    if spec == "auto":
        return None
    if isinstance(spec, bool) or not isinstance(spec, int) or spec < 1:
        raise ConfigError(f"devices must be 'auto' or an integer >= 1, got {spec!r}")
    return spec


def restart_for_devices(spec, module: str, argv: list[str], join: str | None = None) -> None:
    """Starts ``python -m module argv`` again when XLA must start differently: with one host device per
    asked-for device (XLA reads the count only when it starts, and importing jaxsched starts it), and/or
    joined to a multi-process run (``join``, a :func:`join_spec`). Returns when nothing needs a
    restart (one device or the flag already set, and no join or already joined)."""
    count = parse_devices(spec)
    count = usable_cores() if count is None else count
    environment = dict(os.environ)
    if count > 1 and host_device_flag() is None:
        environment["XLA_FLAGS"] = with_host_devices(os.environ.get("XLA_FLAGS", ""), count)
    if join is not None and JOIN_VARIABLE not in os.environ:
        environment[JOIN_VARIABLE] = join
    if environment == dict(os.environ):
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, "-m", module, *argv], environment)


def with_host_devices(xla_flags: str, count: int | None) -> str:
    """``xla_flags`` (an XLA_FLAGS value) asking for ``count`` host devices (XLA's default of one for
    ``None``), its other flags kept: for the environment of a process started with another device count."""
    kept = [flag for flag in xla_flags.split() if not flag.startswith(f"{_FLAG}=")]
    return " ".join(kept + ([] if count is None else [f"{_FLAG}={count}"]))


def host_device_flag() -> int | None:
    match = re.search(rf"{_FLAG}=(\d+)", os.environ.get("XLA_FLAGS", ""))
    return int(match.group(1)) if match else None


def make_mesh(spec) -> Mesh:
    """A 1-D ``"batch"`` mesh of ``spec`` devices of each process (all for ``auto``); a clear error
    when more are asked for than exist. With one process, its local devices."""
    count = parse_devices(spec)
    local = jax.local_devices()
    if count is not None and count > len(local):
        hint = "" if jax.default_backend() != "cpu" else \
            f" (on CPU, start with XLA_FLAGS={_FLAG}={count}; python -m jaxsched.train sets it itself)"
        raise ConfigError(f"devices: {count} asked for, {len(local)} {jax.default_backend()} device(s) here{hint}")
    per_process = count or len(local)
    devices = [device for process in range(jax.process_count())
               for device in sorted((d for d in jax.devices() if d.process_index == process), key=lambda d: d.id)
               [:per_process]]
    return Mesh(np.asarray(devices), ("batch",))


JOIN_VARIABLE = "JAXSCHED_JOIN"  # "HOST:PORT,N,I,TIMEOUT" or "detect,TIMEOUT"; read when jaxsched is imported


def join_spec(coordinator: str | None, num_processes: int | None, process_id: int | None, detect: bool,
              timeout_s: int) -> str | None:
    """The checked :data:`JOIN_VARIABLE` value of a command line's multi-process options (None: one
    process). ``coordinator`` is "HOST:PORT" (process 0 serves it); ``detect`` lets JAX read SLURM's,
    Cloud TPU's, ... variables instead."""
    given = [coordinator is not None, num_processes is not None, process_id is not None]
    if any(given) and detect:
        raise UsageError("give either --distributed (detected from SLURM, TPU, ...) or --coordinator/--num-processes/--process-id")
    if any(given) and not all(given):
        raise UsageError("multi-process runs need all of --coordinator HOST:PORT, --num-processes N, --process-id I")
    if timeout_s < 1:
        raise UsageError(f"--join-timeout {timeout_s}: expected seconds >= 1")
    if detect:
        return f"detect,{timeout_s}"
    if not any(given):
        return None
    if not re.fullmatch(r"[^:,\s]+:\d{1,5}", coordinator):
        raise UsageError(f"--coordinator {coordinator!r}: expected HOST:PORT")
    if num_processes < 1 or not 0 <= process_id < num_processes:
        raise UsageError(f"--process-id {process_id} with --num-processes {num_processes}: expected 0 <= I < N")
    return f"{coordinator},{num_processes},{process_id},{timeout_s}"


def join_from_environment() -> None:
    """Joins the multi-process run named by :data:`JOIN_VARIABLE`, if set, through ``jax.distributed``
    (on CPU with gloo collectives). It must run before anything starts XLA, and importing gymnax does,
    so ``jaxsched/__init__.py`` calls it first; a command asked to join restarts itself with the
    variable set (:func:`restart_for_devices`). Waits at most the given seconds for the other processes."""
    spec = os.environ.get(JOIN_VARIABLE)
    if not spec or jax.distributed.is_initialized():
        return
    *fields, timeout = spec.split(",")
    if fields == ["detect"]:
        coordinator, num_processes, process_id = None, None, None
    else:
        coordinator, num_processes, process_id = fields[0], int(fields[1]), int(fields[2])
    if process_id:  # XLA aborts the process when it cannot reach the coordinator: look first
        _wait_for_coordinator(coordinator, int(timeout))
    jax.config.update("jax_cpu_collectives_implementation", "gloo")  # CPU all-reduces across processes
    try:
        jax.distributed.initialize(coordinator, num_processes, process_id, initialization_timeout=int(timeout))
    except Exception as error:  # XLA reports a missing peer or coordinator as a runtime error
        text = str(error).strip()
        first = text.splitlines()[0] if text else type(error).__name__
        raise JaxschedError(f"could not join the multi-process run at {coordinator or 'the detected coordinator'} "
                            f"within {timeout} s: {first}") from None


def _wait_for_coordinator(coordinator: str, timeout_s: int) -> None:
    host, port = coordinator.rsplit(":", 1)
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            socket.create_connection((host, int(port)), timeout=1.0).close()
            return
        except OSError as error:
            if time.monotonic() >= deadline:
                raise JaxschedError(f"could not reach the coordinator {coordinator} within {timeout_s} s ({error}); "
                                    "is process 0 running?") from None
            time.sleep(0.5)


def is_primary() -> bool:
    """Whether this process writes the run's files (process 0; always true with one process)."""
    return jax.process_index() == 0


def sync_processes(name: str) -> None:
    """A barrier over the processes (a no-op with one)."""
    if jax.process_count() > 1:
        multihost_utils.sync_global_devices(name)


def primary_decides(flag: bool) -> bool:
    """Process 0's ``flag`` on every process, for decisions that must agree but are taken from a local
    reading such as the clock (a collective save that only some processes join would hang)."""
    if jax.process_count() == 1:
        return flag
    return bool(multihost_utils.broadcast_one_to_all(np.asarray(flag)))


def put_global(tree, sharding: NamedSharding):
    """``tree`` laid out with ``sharding``. With several processes every process passes the whole
    host value and keeps the pieces of its own devices; leaves already laid out so are kept."""
    if jax.process_count() == 1:
        return jax.device_put(tree, sharding)

    def put(x):
        if isinstance(x, jax.Array) and x.sharding == sharding:
            return x
        host = np.asarray(x)
        return jax.make_array_from_callback(host.shape, sharding, lambda index: host[index])

    return jax.tree.map(put, tree)


def host_copy(tree):
    """numpy values of ``tree``'s leaves on every process, also of arrays split over processes."""
    if jax.process_count() == 1:
        return jax.tree.map(np.asarray, tree)
    return jax.tree.map(lambda x: np.asarray(multihost_utils.process_allgather(x, tiled=True))
                        if isinstance(x, jax.Array) and not x.is_fully_addressable else np.asarray(x), tree)


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


def split_instances(fn, args: tuple, in_axes: tuple, out_axes):
    """``fn(*args)``, each device running it on its own slice of the instances (``jax.shard_map``
    over the active mesh: no communication inside) when a mesh is active and the instance count
    divides over it; else ``fn(*args)`` itself. ``in_axes`` gives each argument's instance axis and
    ``out_axes`` (a pytree prefix of the output) the outputs'; ``fn`` must compute each instance
    independently of the others, so that the split changes nothing."""
    mesh = _splitting_mesh(args, in_axes)
    if mesh is None:
        return fn(*args)
    out_specs = jax.tree.map(_instance_spec, out_axes, is_leaf=lambda x: x is None)
    return jax.shard_map(fn, mesh=mesh, in_specs=tuple(map(_instance_spec, in_axes)), out_specs=out_specs,
                         check_vma=False)(*args)


def _splitting_mesh(args: tuple, in_axes: tuple) -> Mesh | None:
    """The active mesh if the instances of ``args`` (counted along ``in_axes[0]`` of the first) divide
    evenly over its devices, else None (the computation then runs whole)."""
    mesh = _ACTIVE[-1] if _ACTIVE else None
    count = jax.tree.leaves(args[0])[0].shape[in_axes[0]]
    return None if mesh is None or mesh.size == 1 or count % mesh.size else mesh


def _instance_spec(axis: int | None) -> PartitionSpec | None:
    """Split along ``axis`` over the mesh (None: replicated)."""
    return None if axis is None else PartitionSpec(*([None] * axis), "batch")


def mean_over_instances(fn, args: tuple, in_axes: tuple):
    """``fn(*args)`` for an ``fn`` that is a mean over the instances of its arguments (a loss and its
    gradient, averaged over episodes): each device computes it on its own equal slice (``shard_map``
    over the active mesh) and the devices' results are averaged (``pmean``), which is the mean over
    all instances up to float rounding. Without a mesh, or when the instance count does not divide
    over it, ``fn(*args)`` itself. The explicit split gives each device its share of the gradient's
    work by construction, as :func:`split_instances` does for the rollouts, rather than leaving the
    partitioning to XLA."""
    mesh = _splitting_mesh(args, in_axes)
    if mesh is None:
        return fn(*args)

    def local_mean(*local_args):
        return jax.tree.map(lambda x: jax.lax.pmean(x, "batch"), fn(*local_args))

    return jax.shard_map(local_mean, mesh=mesh, in_specs=tuple(map(_instance_spec, in_axes)),
                         out_specs=PartitionSpec(), check_vma=False)(*args)
