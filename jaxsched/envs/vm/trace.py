"""VM request traces (Huawei East-1 / VMAgent) as fixed-shape pytrees for the VM-placement env.

A trace is a time-ordered list of *events*: create a VM (cpu, mem) or delete one created earlier.
Each delete carries ``partner``, the row of its create, so the environment frees exactly what the
create took without any id lookup. Windows cut with :func:`window` shift ``partner``; a delete whose
create lies before the window gets ``partner = -1`` and is a no-op (the cluster starts empty).

Two file formats are read:

* the derived CSV ``vmid,cpu,mem,at,lt`` (dataset ``huawei-east-1``, :mod:`jaxsched.workloads.datasets`): each row is a VM created at ``at`` and
  deleted at ``at + lt``. Events are ordered by time; at equal times **deletes come before creates**,
  because in a real cluster capacity released at time t is available to requests arriving at t
  (this is the ordering that makes a full cluster's behaviour independent of row order). A VM with
  ``lt == 0`` is the exception: its delete follows its own create, so no VM is deleted before it exists.
  Among events of the same kind and time, lower vmid first.
* VMAgent's original ``vmid,cpu,memory,time,type`` with ``type`` 0 = create, 1 = delete (as VMAgent's
  ``handle_delete`` reads it), kept in file order.

Malformed rows raise :class:`VmTraceError` naming the file, the line and the problem: a silently
repaired trace makes results incomparable.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxsched.errors import VmTraceError

CREATE, DELETE = 0, 1
CREATE_EVENT, NO_EVENT = -1, -2  # ``VmRequests.event`` codes besides a delete's create row (>= 0)
LIFETIME_COLUMNS = ("vmid", "cpu", "mem", "at", "lt")
VMAGENT_COLUMNS = ("vmid", "cpu", "memory", "time", "type")


@struct.dataclass
class VmRequests:
    """One event per row, padded to a fixed length; rows with ``valid == False`` are padding."""

    kind: jax.Array  # int32[L] CREATE or DELETE
    vm: jax.Array  # int32[L] VM id (as in the file; informative)
    cpu: jax.Array  # float32[L] vCPUs
    mem: jax.Array  # float32[L] memory (GB)
    partner: jax.Array  # int32[L] for a delete: row of its create in this array, -1 if outside; else -1
    time: jax.Array  # float32[L] event time (s), informative only
    valid: jax.Array  # bool[L]
    duration: jax.Array  # float32[L] for a create: seconds until its delete (0 when the trace has none)
    event: jax.Array  # int32[L] what the env does at the row (see :func:`event_codes`); derived, one read

    @property
    def length(self) -> int:
        return self.kind.shape[-1]


# ---------------------------------------------------------------------- building
def event_codes(kind: jax.Array, partner: jax.Array, valid: jax.Array) -> jax.Array:
    """int32[L]: a delete's create row (>= 0) where the delete frees something, ``CREATE_EVENT`` for
    a create, ``NO_EVENT`` for padding and deletes whose create is outside the rows. One array, so the
    env reads one value per row while skipping to the next create instead of three."""
    kind, partner, valid = jnp.asarray(kind), jnp.asarray(partner), jnp.asarray(valid)
    delete = valid & (kind == DELETE) & (partner >= 0)
    return jnp.where(delete, partner, jnp.where(valid & (kind == CREATE), CREATE_EVENT, NO_EVENT)).astype(jnp.int32)


def make_requests(kind, vm, cpu, mem, partner, time, valid, duration) -> VmRequests:
    """:class:`VmRequests` with its derived ``event`` column."""
    return VmRequests(kind=kind, vm=vm, cpu=cpu, mem=mem, partner=partner, time=time, valid=valid,
                      duration=duration, event=event_codes(kind, partner, valid))


def durations(kind: jax.Array, partner: jax.Array, time: jax.Array) -> jax.Array:
    """float32[L] seconds from each create to its delete, read off the deletes' ``partner`` (the
    income metric needs a VM's lifetime at the moment it is placed, long before its delete)."""
    kind, partner, time = jnp.asarray(kind), jnp.asarray(partner), jnp.asarray(time, jnp.float32)
    length = kind.shape[-1]
    linked = (kind == DELETE) & (partner >= 0)
    created = jnp.where(linked, partner, length)  # out of range: dropped
    lifetime = time - time[jnp.clip(partner, 0, length - 1)]
    return jnp.zeros(length, jnp.float32).at[created].set(lifetime, mode="drop")


def _as_requests(kind, vm, cpu, mem, partner, time, length: int | None = None) -> VmRequests:
    n = len(kind)
    length = n if length is None else length
    if length < n:
        raise ValueError(f"length {length} is shorter than the {n} events")
    pad = length - n

    def padded(x, dtype, fill):
        return jnp.asarray(np.concatenate([np.asarray(x, dtype), np.full(pad, fill, dtype)]))

    kind, partner, time = padded(kind, np.int32, CREATE), padded(partner, np.int32, -1), padded(time, np.float32, 0)
    return make_requests(kind=kind, vm=padded(vm, np.int32, -1), cpu=padded(cpu, np.float32, 0),
                         mem=padded(mem, np.float32, 0), partner=partner, time=time,
                         valid=padded(np.ones(n, bool), bool, False), duration=durations(kind, partner, time))


def from_lifetimes(vmid, cpu, mem, at, lt, length: int | None = None) -> VmRequests:
    """Create/delete events from per-VM (arrival, lifetime), ordered as the module doc says."""
    vmid, cpu, mem = np.asarray(vmid), np.asarray(cpu), np.asarray(mem)
    at, lt = np.asarray(at, np.float64), np.asarray(lt, np.float64)
    n = len(vmid)
    # rank within a time: deletes 0, creates 1, deletes of zero-lifetime VMs 2
    time = np.concatenate([at, at + lt])
    rank = np.concatenate([np.ones(n, np.int64), np.where(lt == 0, 2, 0)])
    ids = np.concatenate([vmid, vmid])
    order = np.lexsort((ids, rank, time))
    position = np.empty(2 * n, np.int64)
    position[order] = np.arange(2 * n)
    kind = np.concatenate([np.full(n, CREATE), np.full(n, DELETE)])[order]
    partner = np.full(2 * n, -1, np.int64)
    partner[position[n:]] = position[:n]
    return _as_requests(kind, ids[order], np.concatenate([cpu, cpu])[order],
                        np.concatenate([mem, mem])[order], partner, time[order], length)


# ---------------------------------------------------------------------- files
def _read_rows(path, columns: tuple[str, ...]):
    """Yields (line number, dict of floats) for each data row, checking header and numbers."""
    with open(path, newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader, None)
        if header is None:
            raise VmTraceError(path, 1, "empty file (expected header " + ",".join(columns) + ")")
        names = tuple(name.strip() for name in header)
        if names != columns:
            raise VmTraceError(path, 1, f"header {','.join(names)!r}, expected {','.join(columns)!r}")
        for index, row in enumerate(reader):
            line = index + 2
            if not row or all(not cell.strip() for cell in row):
                continue
            if len(row) != len(columns):
                raise VmTraceError(path, line, f"{len(row)} fields, expected {len(columns)}")
            values = {}
            for name, cell in zip(columns, row):
                try:
                    value = float(cell)
                except ValueError:
                    raise VmTraceError(path, line, f"{name} {cell.strip()!r} is not a number") from None
                if not np.isfinite(value):
                    raise VmTraceError(path, line, f"{name} {cell.strip()!r} is not finite")
                values[name] = value
            yield line, values


def _check_vm(path, line, values, mem_name: str):
    if values["vmid"] != int(values["vmid"]):
        raise VmTraceError(path, line, f"vmid {values['vmid']} is not an integer")
    for name in ("cpu", mem_name):
        if values[name] <= 0:
            raise VmTraceError(path, line, f"{name} must be > 0, got {values[name]:g}")


def load_lifetimes(path: str | os.PathLike, length: int | None = None) -> VmRequests:
    """The derived ``vmid,cpu,mem,at,lt`` file as events (create at ``at``, delete at ``at + lt``)."""
    path = Path(path)
    seen: dict[int, int] = {}
    rows = []
    for line, values in _read_rows(path, LIFETIME_COLUMNS):
        _check_vm(path, line, values, "mem")
        if values["at"] < 0:
            raise VmTraceError(path, line, f"at must be >= 0, got {values['at']:g}")
        if values["lt"] < 0:
            raise VmTraceError(path, line, f"lt must be >= 0, got {values['lt']:g}")
        vmid = int(values["vmid"])
        if vmid in seen:
            raise VmTraceError(path, line, f"vmid {vmid} already appeared on line {seen[vmid]}")
        seen[vmid] = line
        rows.append([vmid, values["cpu"], values["mem"], values["at"], values["lt"]])
    if not rows:
        raise VmTraceError(path, 2, "no VMs in file")
    data = np.asarray(rows, np.float64)
    return from_lifetimes(data[:, 0].astype(np.int64), data[:, 1], data[:, 2], data[:, 3], data[:, 4], length)


def load_vmagent(path: str | os.PathLike, length: int | None = None) -> VmRequests:
    """VMAgent's ``vmid,cpu,memory,time,type`` file (type 0 create, 1 delete), in file order.

    A delete must match a live VM's cpu and memory; a delete of a VM never created in the file is
    kept (``partner = -1``, a no-op), since the original trace starts mid-stream."""
    path = Path(path)
    live: dict[int, tuple[int, float, float, int]] = {}  # vmid -> (row, cpu, mem, line)
    created: set[int] = set()
    kind, vm, cpu, mem, partner, time = [], [], [], [], [], []
    last_time = -np.inf
    for line, values in _read_rows(path, VMAGENT_COLUMNS):
        _check_vm(path, line, values, "memory")
        if values["type"] not in (CREATE, DELETE):
            raise VmTraceError(path, line, f"type must be 0 (create) or 1 (delete), got {values['type']:g}")
        if values["time"] < last_time:
            raise VmTraceError(path, line, f"time {values['time']:g} goes back (previous {last_time:g})")
        last_time = values["time"]
        vmid, row = int(values["vmid"]), len(kind)
        if values["type"] == CREATE:
            if vmid in created:
                raise VmTraceError(path, line, f"vmid {vmid} created twice")
            created.add(vmid)
            live[vmid] = (row, values["cpu"], values["memory"], line)
            partner.append(-1)
        else:
            if vmid in live:
                create_row, c, m, create_line = live.pop(vmid)
                if (c, m) != (values["cpu"], values["memory"]):
                    raise VmTraceError(path, line, f"delete of vmid {vmid} says cpu {values['cpu']:g}, "
                                       f"memory {values['memory']:g}; its create (line {create_line}) "
                                       f"says {c:g}, {m:g}")
                partner.append(create_row)
            elif vmid in created:
                raise VmTraceError(path, line, f"vmid {vmid} deleted twice")
            else:
                partner.append(-1)
        kind.append(int(values["type"]))
        vm.append(vmid)
        cpu.append(values["cpu"])
        mem.append(values["memory"])
        time.append(values["time"])
    if not kind:
        raise VmTraceError(path, 2, "no requests in file")
    return _as_requests(kind, vm, cpu, mem, partner, time, length)


# ---------------------------------------------------------------------- synthetic traces
# (cpu, mem) types of Huawei East-1 with their share of creations (derived file, rounded; the
# two types below 0.01% are dropped). Double-NUMA under mem > 32: only the last two.
HUAWEI_TYPES = np.array([
    (1, 2, 0.4637), (1, 1, 0.2188), (2, 4, 0.1283), (4, 8, 0.0805), (1, 4, 0.0287),
    (2, 8, 0.0195), (8, 16, 0.0174), (4, 16, 0.0169), (8, 32, 0.0088), (16, 32, 0.0086),
    (12, 24, 0.0055), (64, 128, 0.0022), (32, 64, 0.0011),
], np.float32)


MEDIAN_LIFETIME = 2600.0  # s, the derived trace's median VM lifetime
LIFETIME_SIGMA = 2.5  # of log-lifetime: the trace's heavy tail


def type_table(types=None) -> np.ndarray:
    """``types`` (rows of (cpu, mem, share)) or the Huawei mix, validated, as float64."""
    table = np.asarray(HUAWEI_TYPES if types is None else types, np.float64)
    if table.ndim != 2 or table.shape[1] != 3 or np.any(table[:, :2] <= 0) or np.any(table[:, 2] < 0) \
            or table[:, 2].sum() <= 0:
        raise ValueError("types must be rows of (cpu > 0, mem > 0, share >= 0) with a positive total share")
    return table


def interarrival_for_load(load: float, cluster_cpu: float, types=None, median_lifetime: float = MEDIAN_LIFETIME,
                          lifetime_sigma: float = LIFETIME_SIGMA) -> float:
    """The mean gap between arrivals at which the offered cpu (arrival rate x mean lifetime x mean
    cpu, Little's law) is ``load`` x ``cluster_cpu``."""
    if load <= 0:
        raise ValueError(f"load must be > 0, got {load}")
    table = type_table(types)
    mean_cpu = float(np.sum(table[:, 0] * table[:, 2]) / np.sum(table[:, 2]))
    mean_lifetime = median_lifetime * float(np.exp(lifetime_sigma ** 2 / 2))  # log-normal mean
    return mean_cpu * mean_lifetime / (load * cluster_cpu)


def synthetic(key: jax.Array, num_vms: int, mean_interarrival: float = 23.0,
              median_lifetime: float = MEDIAN_LIFETIME, lifetime_sigma: float = LIFETIME_SIGMA,
              types=None) -> VmRequests:
    """A random trace of ``num_vms`` VMs (2·num_vms events) with the Huawei type mix, or with
    ``types``, rows of (cpu, mem, share) like :data:`HUAWEI_TYPES` (shares need not sum to 1).

    Arrivals are Poisson (the trace's mean gap is ~23 s); lifetimes are log-normal with the trace's
    median (~2600 s) and a heavy tail. Times are whole seconds so the event order is exact in
    float32, and it is the order :func:`from_lifetimes` uses. Jittable (``num_vms`` static)."""
    table = type_table(types).astype(np.float32)
    k_type, k_gap, k_life = jax.random.split(key, 3)
    probs = jnp.asarray(table[:, 2] / table[:, 2].sum())
    drawn = jax.random.choice(k_type, len(table), (num_vms,), p=probs)
    cpu, mem = jnp.asarray(table[:, 0])[drawn], jnp.asarray(table[:, 1])[drawn]
    gaps = jnp.floor(jax.random.exponential(k_gap, (num_vms,)) * mean_interarrival)
    at = jnp.cumsum(gaps) - gaps[0]
    lifetime = median_lifetime * jnp.exp(lifetime_sigma * jax.random.normal(k_life, (num_vms,)))
    lt = jnp.clip(jnp.round(lifetime), 1.0, 2_678_400.0)  # at most a month, as the trace
    vmid = jnp.arange(num_vms, dtype=jnp.int32)

    time = jnp.concatenate([at, at + lt])
    rank = jnp.concatenate([jnp.ones(num_vms, jnp.int32), jnp.zeros(num_vms, jnp.int32)])  # lt >= 1
    ids = jnp.concatenate([vmid, vmid])
    order = jnp.lexsort((ids, rank, time))
    position = jnp.zeros(2 * num_vms, jnp.int32).at[order].set(jnp.arange(2 * num_vms, dtype=jnp.int32))
    kind = jnp.concatenate([jnp.full(num_vms, CREATE, jnp.int32), jnp.full(num_vms, DELETE, jnp.int32)])[order]
    partner = jnp.full(2 * num_vms, -1, jnp.int32).at[position[num_vms:]].set(position[:num_vms])
    time = time[order].astype(jnp.float32)
    return make_requests(kind=kind, vm=ids[order], cpu=jnp.concatenate([cpu, cpu])[order],
                         mem=jnp.concatenate([mem, mem])[order], partner=partner, time=time,
                         valid=jnp.ones(2 * num_vms, bool), duration=durations(kind, partner, time))


# ---------------------------------------------------------------------- windows
def window(requests: VmRequests, start: jax.Array, length: int) -> VmRequests:
    """Rows ``[start, start + length)`` (padded past the end), ``partner`` re-based to the window.

    ``start`` may be traced (``vmap`` over start points); ``length`` is static. ``duration`` keeps
    the whole trace's lifetimes (a VM deleted after the window still earns its full lifetime)."""
    start = jnp.asarray(start, jnp.int32)

    def cut(x, fill):
        padded = jnp.concatenate([x, jnp.full((length,), fill, x.dtype)])
        return jax.lax.dynamic_slice_in_dim(padded, start, length)

    partner = cut(requests.partner, -1)
    partner = jnp.where(partner >= start, partner - start, -1)
    return make_requests(kind=cut(requests.kind, CREATE), vm=cut(requests.vm, -1), cpu=cut(requests.cpu, 0),
                         mem=cut(requests.mem, 0), partner=partner, time=cut(requests.time, 0),
                         valid=cut(requests.valid, False), duration=cut(requests.duration, 0))


def running_vms(requests: VmRequests, pos: jax.Array, placed_pm: jax.Array) -> jax.Array:
    """bool[L]: the create rows before ``pos`` whose VM is on a PM (``placed_pm``) and whose delete
    has not been passed yet: the VMs running when the create at ``pos`` is decided."""
    rows = jnp.arange(requests.length)
    passed_delete = (rows < pos) & (requests.event >= 0)
    deleted = jnp.zeros(requests.length, bool).at[jnp.where(passed_delete, requests.event, requests.length)].set(
        True, mode="drop")
    return (rows < pos) & (placed_pm >= 0) & ~deleted


def imagined_window(requests: VmRequests, pos: jax.Array, running: jax.Array, future: VmRequests,
                    lifetimes: jax.Array, key: jax.Array) -> VmRequests:
    """A window of 2L rows that keeps what is known at the create at ``pos`` and imagines the rest.

    Rows ``[0, pos]`` are ``requests``' (the past and the pending create), so the running VMs keep
    their create rows. After them, by time: ``future``'s rows (a window of another part of the trace,
    shifted to start at the pending create's time) and one delete per ``running`` VM, at its create
    time plus a lifetime drawn from ``lifetimes`` (sorted seconds) among those longer than its age:
    when a running VM leaves is the part of the real future a placer cannot know. The first L of these
    are kept; the rest is padding."""
    length = requests.length
    pos = jnp.asarray(pos, jnp.int32)
    now = requests.time[pos]
    # a residual lifetime per running VM: uniform among the recorded lifetimes longer than its age
    age = now - requests.time
    lowest = jnp.searchsorted(lifetimes, age, side="right")
    pick = lowest + jnp.floor(jax.random.uniform(key, (length,)) * (lifetimes.shape[0] - lowest)).astype(jnp.int32)
    leaves = requests.time + jnp.where(lowest < lifetimes.shape[0], lifetimes[jnp.clip(pick, 0, lifetimes.shape[0] - 1)],
                                       age + 1.0)
    # candidates: the future's L rows, then L possible deletes of running VMs (one per create row)
    shifted = now + future.time - future.time[0]
    valid = jnp.concatenate([future.valid, running])
    time = jnp.where(valid, jnp.concatenate([shifted, leaves]), jnp.inf)
    kind = jnp.concatenate([future.kind, jnp.full(length, DELETE, jnp.int32)])
    order = jnp.lexsort((jnp.arange(2 * length), kind == CREATE, time))[:length]  # deletes first at a tie
    rank = jnp.zeros(2 * length, jnp.int32).at[order].set(jnp.arange(length, dtype=jnp.int32))
    # partners: a future delete's create moves to its merged rank; a running VM's delete keeps its row
    future_partner = jnp.where(future.partner >= 0, pos + 1 + rank[jnp.clip(future.partner, 0, length - 1)], -1)
    partner = jnp.concatenate([future_partner, jnp.arange(length, dtype=jnp.int32)])[order]
    merged = dict(kind=kind[order], vm=jnp.concatenate([future.vm, requests.vm])[order],
                  cpu=jnp.concatenate([future.cpu, requests.cpu])[order],
                  mem=jnp.concatenate([future.mem, requests.mem])[order], partner=partner,
                  time=jnp.where(valid, time, 0.0)[order], valid=valid[order],
                  duration=jnp.concatenate([future.duration, jnp.zeros(length, jnp.float32)])[order])
    fills = dict(kind=CREATE, vm=-1, cpu=0.0, mem=0.0, partner=-1, time=0.0, valid=False, duration=0.0)
    rows = jnp.arange(2 * length)
    known = rows <= pos

    def lay_out(name):  # rows [0, pos] from the past, then the merged rows, then padding
        pad = jnp.full((length,), fills[name], getattr(requests, name).dtype)
        past = jnp.concatenate([getattr(requests, name), pad])
        ahead = jnp.concatenate([merged[name], pad])[jnp.clip(rows - pos - 1, 0, 2 * length - 1)]
        return jnp.where(known, past, ahead)

    return make_requests(**{name: lay_out(name) for name in fills})
