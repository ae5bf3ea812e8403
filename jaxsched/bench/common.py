"""What the benches share: the policy scans they time, the interleaved timer and its row printing, the
checks that jaxsched's schedules equal the reference simulators' before anything is timed (DeepRM SJF start
times, VM First-Fit placements), the batch split over devices and the hardware line and markdown page every
result file carries. Below every subcommand module of :mod:`jaxsched.bench`, so that none of them imports
another's."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from jaxsched.baselines.deeprm import make_heuristic
from jaxsched.baselines.vm import first_fit
from jaxsched.bench.reference import DeepRMReference, VmReference
from jaxsched.core import host
from jaxsched.core.rollout import auto_reset_step, make_evaluator
from jaxsched.envs.deeprm.metrics import job_table
from jaxsched.envs.vm.types import EnvParams as VmEnvParams

PINNED = "pinned"  # a row's "cores" note: both sides in one process pinned to one core
FORKED = "forked"  # a row's "cores" note: the reference in as many forked processes as jaxsched's devices


def make_policy_scan(env, steps: int, policy=None, mesh=None):
    """A jitted ``(carry, params, initial) -> carry`` of ``steps`` batched decisions of ``policy``
    (default SJF; a deterministic heuristic: its key is unused) and the internal transition + restart
    (finished episodes restart from ``initial``); ``carry = (obs, state, seen)``. The features are summed
    into ``seen`` every step, as a network would read them: XLA drops an observation nobody reads, and the
    figure would be the no-observation speed in disguise. ``mesh``: see :func:`over_devices`."""
    policy = make_heuristic("sjf") if policy is None else policy
    step = jax.vmap(lambda s, a, p, i: auto_reset_step(env, s, a, p, i))

    def run(carry, params, initial):
        def one(carry, _):
            obs, state, seen = carry
            obs, state, _, _, _ = step(state, _decide(policy, obs), params, initial)
            return (obs, state, _read(obs, seen)), None

        return jax.lax.scan(one, carry, None, length=steps)[0]

    return over_devices(run, mesh)


def make_public_scan(env, steps: int, policy=None, mesh=None, step=None):
    """:func:`make_policy_scan` through the public gymnax ``env.step`` (auto-reset) under ``jax.vmap``, as a
    PureJaxRL loop calls it: a jitted ``(carry, params, keys) -> carry``, ``keys`` one per copy (each step's
    key folded in from it, so a copy's play does not depend on how the batch is split over devices).
    ``step``: another function with ``env.step``'s signature (gymnax's own base step, for ``bench
    public-step``)."""
    policy = make_heuristic("sjf") if policy is None else policy
    step = jax.vmap(env.step if step is None else step)
    fold = jax.vmap(jax.random.fold_in, in_axes=(0, None))

    def run(carry, params, keys):
        def one(carry, t):
            obs, state, seen = carry
            obs, state, _, _, _, _ = step(fold(keys, t), state, _decide(policy, obs), params)
            return (obs, state, _read(obs, seen)), None

        return jax.lax.scan(one, carry, jnp.arange(steps))[0]

    return over_devices(run, mesh)


def _decide(policy, obs):
    return jax.vmap(policy, in_axes=(None, 0))(jax.random.PRNGKey(0), obs)


def _read(obs, seen):
    """``seen`` plus each copy's observation features summed (the observation is read, so XLA keeps it)."""
    return seen + jnp.sum(obs.features.reshape(seen.shape[0], -1), axis=-1)


def over_devices(run, mesh=None):
    """``run(carry, params, initial)`` jitted with its carry donated; with a ``mesh`` (:func:`make_mesh`) each
    device runs its own slice of the batch (every argument split along axis 0, no communication): on XLA:CPU
    one host device per core runs its half start to finish, where one device's intra-op threads share every
    op of the step (measured on 2 cores, batch 1024: VM First-Fit at 50 PMs 0.74-1.34M -> ~1.75M steps/s,
    the DeepRM image at M = 10 0.95M -> 1.26M)."""
    if mesh is None or mesh.size == 1:
        return jax.jit(run, donate_argnums=0)
    split = PartitionSpec("batch")
    # out_shardings: the carry comes back laid out as it went in (an empty no-observation feature array would
    # otherwise return with another sharding, and every call would compile again)
    return _batch_split(run, mesh, (split, split, split), donate_argnums=0, out_shardings=NamedSharding(mesh, split))


def _batch_split(run, mesh, in_specs: tuple, **jit_options):
    """``run`` jitted, each device of ``mesh`` running it on its own slice of the batch (results split along
    axis 0; the shards never communicate, so the replication check is off)."""
    return jax.jit(jax.shard_map(run, mesh=mesh, in_specs=in_specs, out_specs=PartitionSpec("batch"),
                                 check_vma=False), **jit_options)


def spread(steps_per_s: list[float]) -> dict:
    return {"min": min(steps_per_s), "median": float(np.median(steps_per_s)), "max": max(steps_per_s),
            "runs": steps_per_s}


def interleave(reference, jaxsched, repeats: int, window_s: float, how: str | None = None) -> dict:
    """Reference and jaxsched timed in turn, ``repeats`` windows each: min / median / max steps/s per
    side, the ratio of the medians (jaxsched / reference), the devices jaxsched's side ran on and the cores
    of each side (``cores``: jaxsched's devices, the reference's processes; ``how``: :data:`PINNED` where
    both ran pinned to one core, :data:`FORKED` where the reference ran in forked processes)."""
    sides = {"reference": [], "jaxsched": []}
    for _ in range(repeats):
        for name, timer in (("reference", reference), ("jaxsched", jaxsched)):
            steps, seconds = timer(window_s)
            sides[name].append(steps / seconds)
    row = {name: spread(rates) for name, rates in sides.items()}
    row["ratio"] = row["jaxsched"]["median"] / row["reference"]["median"]
    row["devices"] = getattr(jaxsched, "devices", 1)
    processes = getattr(reference, "processes", 1)
    row["cores"] = {"jaxsched": row["devices"], "reference": processes,
                    "how": how or (FORKED if processes > 1 else "unpinned")}
    return row


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 'es' if word.endswith('s') else 's'}"


COMPACT_JOBS = "different jobs on each side (same distribution, two generators)"


def row_cores(row: dict) -> dict:
    """An env row's ``cores``; a row written before they were recorded had jaxsched on its devices and the
    reference on one core."""
    return row.get("cores", {"jaxsched": int(row.get("devices", 1)), "reference": 1})


def sides(row: dict) -> str:
    """What each side of an env row ran on, and whether they drew the same jobs: the ratio's terms."""
    devices = int(row.get("devices", 1))
    cores = row_cores(row)
    reference = int(cores["reference"])
    text = (f"jaxsched {plural(int(cores['jaxsched']), 'core')} ({plural(devices, 'XLA:CPU device')}) vs reference "
            f"{plural(reference, 'core')} ({plural(reference, 'Python process')}"
            f"{', forked' if cores.get('how') == FORKED else ''})")
    if cores.get("how") == PINNED:
        text += ", both in one process pinned to one core"
    return text + (f"; {COMPACT_JOBS}" if row.get("family") == "compact" else "")


def print_row(row: dict) -> None:
    ref, mine = row["reference"], row["jaxsched"]
    print(f"{row['family']:7s} {row['size_name']}={row['size']:<4d} load={row['load']:<4} {row['workload']:39s} "
          f"reference {ref['median']:>10,.0f} ({ref['min']:,.0f}-{ref['max']:,.0f})  jaxsched {mine['median']:>10,.0f} "
          f"({mine['min']:,.0f}-{mine['max']:,.0f}) steps/s  ratio {row['ratio']:.2f}x ({sides(row)})", flush=True)


def check_deeprm_schedules(reference: DeepRMReference, variant, params, count: int) -> list[int]:
    """SJF on the first ``count`` jobsets in both simulators: every admitted job's start time must agree
    (exits otherwise). Returns jaxsched's decisions per episode (the reference's may count one more where
    a finished job lingers in its running list, delaying ``all_done``; the start times still agree)."""
    episodes = reference.sjf_schedules(count)
    first = jax.tree.map(lambda x: x[:count], params)
    result = make_evaluator(variant.env, variant.heuristic("sjf"))(first, jax.random.PRNGKey(0))
    table = job_table(result)
    for j, episode in enumerate(episodes):
        mine = table["start"][(table["jobset"] == j) & (table["status"] != "dropped")]
        if not np.array_equal(mine, episode["start"]):
            raise SystemExit(f"bench env: SJF schedules differ on jobset {j} (M={variant.env.num_slots}): "
                             f"jaxsched starts {mine.tolist()[:12]}..., reference {episode['start'].tolist()[:12]}...; "
                             "refusing to time")
    return np.asarray(result.state.time).reshape(-1).tolist()


def check_vm_placements(reference: VmReference, variant, params, starts, window: int) -> list[int]:
    """First-Fit over the windows at ``starts`` in both simulators: every create placed on the same PM
    and NUMA, the same end row, the same remaining cpu / memory on every NUMA (exits otherwise). Returns
    jaxsched's decisions per episode."""
    count = len(starts)
    first = jax.tree.map(lambda x: x[:count], params)
    result = make_evaluator(variant.env, first_fit)(first, jax.random.PRNGKey(0))
    state = jax.tree.map(lambda x: np.asarray(x)[:, 0], result.state)
    for j, start in enumerate(starts):
        theirs = reference.first_fit_episode(int(start), window)
        rows = np.flatnonzero(state.placed_pm[j] >= 0)
        numa = (state.taken[j, rows, 0] == 0).astype(int)  # no cpu from NUMA 0: NUMA 1 (a double VM: 0)
        mine = dict(zip(rows.tolist(), (2 * state.placed_pm[j, rows] + numa).tolist()))
        remaining = np.stack([state.cpu[j], state.mem[j]], axis=-1)  # [N, NUMA, (cpu, mem)] as describe()
        if mine != theirs["actions"] or int(state.pos[j]) != theirs["end"] \
                or not np.allclose(remaining, theirs["remaining"]):
            differ = sorted(r for r in set(mine) | set(theirs["actions"]) if mine.get(r) != theirs["actions"].get(r))
            raise SystemExit(f"bench env: First-Fit placements differ at start row {int(start)} "
                             f"(N={variant.env.num_pms}): {len(differ)} rows differ, first {differ[:5]} "
                             f"(jaxsched {[mine.get(r) for r in differ[:5]]}, VMAgent "
                             f"{[theirs['actions'].get(r) for r in differ[:5]]}); end row {int(state.pos[j])} vs "
                             f"{theirs['end']}; refusing to time")
    return np.asarray(result.decisions).reshape(-1).tolist()


def check_vmagent_rows(reference: VmReference, trace, rows: int) -> None:
    """VMAgent's ``getData`` read the events file back as jaxsched holds the trace (exits otherwise)."""
    theirs = reference.read_back()
    mine = {name: np.asarray(getattr(trace, name))[:rows].astype(np.float64) for name in ("vm", "cpu", "mem", "kind")}
    mine["double"] = (mine["mem"] > VmEnvParams.double_mem_above).astype(np.float64)
    for name, values in mine.items():
        if len(theirs[name]) != rows or not np.array_equal(values, theirs[name]):
            raise SystemExit(f"bench env: VMAgent's getData reads column {name} of the events file otherwise "
                             "than jaxsched's trace; refusing to time")


def hardware() -> str:
    """The machine line every bench file carries: processor, cores, jax version and the platform it ran on."""
    return host.line()


def markdown_page(title: str, meta: dict, table: list[str]) -> str:
    """A bench's markdown file: its title, the run's metadata as a list, then its table."""
    notes = "\n".join(f"- {k}: {v}" for k, v in meta.items())
    return f"# {title}\n\n{notes}\n\n" + "\n".join(table) + "\n"


def split_over_devices(run, devices):
    """``run`` jitted with its batch (axis 0 of the first argument and of the result) split evenly
    over ``devices``; each device runs its share on its own, with its own key (``fold_in``)."""
    def shard(batch, key):
        return run(batch, jax.random.fold_in(key, jax.lax.axis_index("batch")))

    return _batch_split(shard, Mesh(np.asarray(devices), ("batch",)), (PartitionSpec("batch"), PartitionSpec()))
