"""DeepRM: online multi-resource cluster scheduling as an MDP (Mao et al., HotNets'16).

Exact semantics: ``docs/semantics/deeprm.md``. In one sentence: M visible job slots, a FIFO backlog,
a T-row future-occupancy grid per resource; action i < M places slot i's job at its earliest fit in
the horizon without advancing time, anything else ("move on") advances the clock one step, lets the
new arrivals in and pays the reward. Jobs arriving when slots and backlog are full are *counted* as
dropped (the reference loses them silently).

The MDP-design options of Cunha and Chaimowicz (BRACIS'21; ``docs/semantics/mdp-design.md``) are
static constructor arguments of the same environment: ``observation="bracis"`` (the paper's compact
state, whose length does not depend on the cluster size), ``stepping="event"`` (a semi-MDP that asks
the agent only when a visible job fits now; ``info["elapsed_ticks"]`` says how much time passed),
``reward_jobs="visible"`` (the slowdown reward over the visible slots only, so |r| <= M) and
``allocation="fits_now"`` (no future starts; it also allows jobs longer than the horizon); their image
MDP draws each slot ``capacity`` columns wide (``slot_width="capacity"``, sched-rl-gym's image; its
width 11·np + 4 at M = 10 gives the paper's parameter counts) where DeepRM's draws ``max_job_size``.

The environment object holds only static configuration (shapes, reward and observation kinds);
the jobset is data in ``EnvParams`` so one jobset can be replayed by N rollouts and ``vmap`` runs
over jobsets. Gymnax contract: ``reset(key, params)`` / ``step(key, state, action, params)`` with
auto-reset, returning gymnax 1.x's six values ``(obs, state, reward, terminated, truncated, info)``;
the step observes once and restarts only finished copies (:mod:`jaxsched.core.observe_once`).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from gymnax.environments import environment, spaces

from jaxsched.core.bitops import count_before
from jaxsched.core.observe_once import ObserveOnceStep
from jaxsched.core.rollout import select_fields
from jaxsched.envs.deeprm.generator import Workload, generate
from jaxsched.envs.deeprm.observations import bracis_vector, compact_vector, image_cells, refresh_image, render_image
from jaxsched.envs.deeprm.start_windows import MAX_ROWS, earliest, rows_with_room, start_windows
from jaxsched.envs.deeprm.types import EnvParams, EnvState, Observation
from jaxsched.envs.equality import EqualByConfiguration

REWARDS = ("slowdown", "completion_time", "utilisation", "makespan")
TERMINATIONS = ("all_done", "no_new_job")
OBSERVATIONS = ("image", "compact", "bracis", "none")
ALLOCATIONS = ("earliest_fit", "fits_now")
STEPPINGS = ("time", "event")
REWARD_JOBS = ("all", "visible")
SLOT_WIDTHS = ("max_job_size", "capacity")
# The state fields a move-on can change; the event skip's loop carries only these (under vmap every
# carried array is re-selected per iteration, and the jobset is most of the state)
TICK_FIELDS = ("clock", "used", "slots", "backlog", "backlog_len", "dropped", "since_arrival", "at_submit")


class DeepRM(EqualByConfiguration, ObserveOnceStep, environment.Environment[EnvState, EnvParams]):
    """The DeepRM cluster; also DeepRM_Off when the jobset arrives at t = 0 and has no backlog."""

    def __init__(
        self,
        num_res: int = 2,
        capacity: int = 10,
        horizon: int = 20,
        num_slots: int = 10,
        backlog_size: int = 60,
        max_job_len: int = 15,
        max_job_size: int = 10,
        reward: str = "slowdown",
        termination: str = "all_done",
        observation: str = "image",
        allocation: str = "earliest_fit",
        stepping: str = "time",
        reward_jobs: str = "all",
        time_limit: int = 100,
        slot_width: str = "max_job_size",
    ):
        """``time_limit`` is L, the "bracis" observation's time normaliser (the paper's simulation
        length T = 100); keep it fixed across clusters so that a policy transfers between them.
        ``slot_width`` is the image's columns per slot block: DeepRM's ``max_job_size`` or the
        MDP-design paper's ``capacity`` (its image grows with the cluster even for small jobs)."""
        super().__init__()
        for name, value, allowed in (("reward", reward, REWARDS), ("termination", termination, TERMINATIONS),
                                     ("observation", observation, OBSERVATIONS),
                                     ("allocation", allocation, ALLOCATIONS), ("stepping", stepping, STEPPINGS),
                                     ("reward_jobs", reward_jobs, REWARD_JOBS),
                                     ("slot_width", slot_width, SLOT_WIDTHS)):
            if value not in allowed:
                raise ValueError(f"unknown {name} {value!r}; choose one of {', '.join(allowed)}")
        for name, value in (("num_res", num_res), ("capacity", capacity), ("horizon", horizon),
                            ("num_slots", num_slots), ("max_job_len", max_job_len),
                            ("max_job_size", max_job_size), ("time_limit", time_limit)):
            if int(value) < 1:
                raise ValueError(f"{name} must be >= 1, got {value}")
        if backlog_size < 0:
            raise ValueError(f"backlog_size must be >= 0, got {backlog_size}")
        if max_job_len > horizon and allocation != "fits_now":
            raise ValueError(f"max_job_len {max_job_len} exceeds the horizon {horizon}: such jobs never fit "
                             "(allocation='fits_now' allows them)")
        if reward_jobs == "visible" and reward not in ("slowdown", "completion_time"):
            raise ValueError(f"reward_jobs='visible' applies to the per-job rewards (slowdown, "
                             f"completion_time), not to {reward!r}")
        if observation == "bracis" and num_res > 2:
            raise ValueError(f"the bracis observation describes processors and memory (num_res <= 2), "
                             f"got num_res={num_res}")
        if max_job_size > capacity:
            raise ValueError(f"max_job_size {max_job_size} exceeds the capacity {capacity}")
        self.num_res, self.capacity, self.horizon = int(num_res), int(capacity), int(horizon)
        self.num_slots, self.backlog_size = int(num_slots), int(backlog_size)
        self.max_job_len, self.max_job_size = int(max_job_len), int(max_job_size)
        self.reward_kind, self.termination, self.observation = reward, termination, observation
        self.allocation, self.stepping, self.reward_jobs = allocation, stepping, reward_jobs
        self.time_limit, self.slot_width = int(time_limit), slot_width
        # The occupancy grid covers the horizon, or the longest job when fits_now lets jobs outlast
        # the horizon (the paper's d = 33, 48 with H = 20); observations show its first T rows.
        self.grid_len = max(self.horizon, self.max_job_len)
        self.backlog_width = -(-self.backlog_size // self.horizon)  # ceil, as the reference

    instance_field = "jobset"  # the episode's instance data in the state (see jaxsched.core.rollout)

    # ------------------------------------------------------------------ configuration
    @property
    def name(self) -> str:
        return "DeepRM"

    @property
    def num_actions(self) -> int:
        return self.num_slots + 1

    @property
    def slot_columns(self) -> int:
        """The image columns of one slot's block per resource (``slot_width``'s size)."""
        return self.capacity if self.slot_width == "capacity" else self.max_job_size

    @property
    def image_width(self) -> int:
        return self.num_res * (self.capacity + self.num_slots * self.slot_columns) + self.backlog_width + 1

    @property
    def default_params(self) -> EnvParams:
        """Params with one small reference-workload jobset (seed 0), so the env runs as made."""
        workload = Workload(num_res=self.num_res, capacity=self.capacity, max_job_len=self.max_job_len,
                            max_job_size=self.max_job_size, simu_len=50, load=0.7)
        return EnvParams(jobset=generate(jax.random.PRNGKey(0), workload), simu_len=workload.simu_len)

    # ------------------------------------------------------------------ dynamics
    def initial_state(self, params: EnvParams) -> EnvState:
        """The state at t = 0: empty cluster, the jobs arriving at t = 0 admitted."""
        jobset = params.jobset
        num_jobs = jobset.arrival.shape[0]
        state = EnvState(
            time=jnp.int32(0),
            clock=jnp.int32(0),
            jobset=jobset,
            start=jnp.full((num_jobs,), -1, jnp.int32),
            dropped=jnp.zeros((num_jobs,), bool),
            slots=jnp.full((self.num_slots,), -1, jnp.int32),
            backlog=jnp.full((self.backlog_size,), -1, jnp.int32),
            backlog_len=jnp.int32(0),
            used=jnp.zeros((self.grid_len, self.num_res), jnp.int32),
            since_arrival=jnp.int32(0),
            at_submit=jnp.zeros((num_jobs, 3), jnp.int32),
            image=jnp.zeros((1, 1), jnp.uint8),  # a placeholder unless the observation is the image (orbax cannot save 0-size arrays)
        )
        state, _ = self._admit_arrivals(state)
        if self.stepping == "event":  # policy-independent ticks before the first decision; reward unpaid
            state, _, _ = self._skip_idle_ticks(state, jnp.float32(0.0), jnp.int32(1), params)
        if self.observation == "image":
            state = state.replace(image=image_cells(self, state))
        return state

    def transition(self, state: EnvState, action: Any, params: EnvParams):
        """The dynamics without the observation: ``(state, reward, terminated, info)``.

        Deterministic given the state (no key): all randomness lives in the jobset."""
        action = jnp.asarray(action, jnp.int32)
        slot = jnp.clip(action, 0, self.num_slots - 1)
        job = state.slots[slot]
        duration, demand = self._job(state, job)
        offset, fits = self._earliest_start(state.used, duration, demand)
        schedule = (action >= 0) & (action < self.num_slots) & (job >= 0) & fits

        scheduled = self._schedule(state, slot, job, offset)
        moved, move_reward = self._move_on(state)
        next_state = select_fields(schedule, scheduled, moved, self.instance_field).replace(time=state.time + 1)
        reward = jnp.where(schedule, 0.0, move_reward).astype(jnp.float32)
        elapsed = jnp.where(schedule, 0, 1).astype(jnp.int32)
        if self.stepping == "event":
            next_state, reward, elapsed = self._skip_idle_ticks(next_state, reward, elapsed, params)
        if self.observation == "image":
            next_state = next_state.replace(
                image=refresh_image(self, state.image, next_state.slots != state.slots, next_state))
        terminated = jnp.logical_and(elapsed > 0, self.is_terminated(next_state, params))
        info = {"scheduled": schedule, "clock": next_state.clock, "elapsed_ticks": elapsed,
                "dropped": jnp.sum(next_state.dropped, dtype=jnp.int32)}
        return next_state, reward, terminated, info

    def _skip_idle_ticks(self, state: EnvState, reward, elapsed, params: EnvParams):
        """Event-based stepping: advance the clock while no visible job fits now, adding the skipped
        ticks' rewards discounted by gamma^(ticks already elapsed in this transition). Stops at
        termination or at the clock cap, so the loop is bounded by ``params.max_time``.

        The clock jumps from event to event (:meth:`_ticks_to_next_event`: job ends, arrivals): the
        quiet ticks before an event are applied and paid in closed form (:meth:`_quiet_ticks`), the
        event's own tick by :meth:`_move_on`. So a transition costs O(events in the idle stretch), not
        O(ticks): under ``vmap`` a batch no longer waits tick by tick for its longest idle stretch.

        Unlike the paper's simulator, the first tick's reward is kept (it forces it to 0), so that
        with gamma = 1 an event-based episode returns exactly what the time-based one does."""

        def at(moving) -> EnvState:  # the loop carries only what a tick can change
            return state.replace(**dict(zip(TICK_FIELDS, moving)))

        def idle(carry):
            now = at(carry[0])
            return (~jnp.any(self.visible_fits_now(now)) & ~self.is_terminated(now, params)
                    & (now.clock < params.max_time))

        def jump(carry):
            moving, reward, elapsed = carry
            now = at(moving)
            quiet = self._ticks_to_next_event(now, params) - 1
            now, quiet_reward = self._quiet_ticks(now, quiet, elapsed, params.gamma)
            elapsed = elapsed + quiet
            now, tick_reward = self._move_on(now)
            reward = reward + quiet_reward + jnp.power(params.gamma, elapsed) * tick_reward
            return tuple(getattr(now, f) for f in TICK_FIELDS), reward, elapsed + 1

        moving = tuple(getattr(state, f) for f in TICK_FIELDS)
        moving, reward, elapsed = jax.lax.while_loop(idle, jump, (moving, jnp.asarray(reward, jnp.float32), elapsed))
        return at(moving), reward, elapsed

    def _ticks_to_next_event(self, state: EnvState, params: EnvParams) -> jax.Array:
        """Ticks until the first one after which something besides the clock may have changed: a
        scheduled job ends, a job arrives, arrivals end (``simu_len``) or the clock cap. At least 1.

        A visible job that does not fit now can only come to fit right after some job's end: the
        first free window [k, k + d) has row k - 1 blocked and row k less used, so a job ends at k.
        Termination (the system empties) also falls on a job's end or an arrival-related time. This
        needs every job's rows inside the grid (duration <= grid_len), as the generators and the CSV
        and SWF loaders ensure: a longer job's rows would leave the grid before it ends."""
        jobs, clock = state.jobset, state.clock
        cap = params.max_time - clock
        ends = state.start + jobs.duration - clock
        job_end = jnp.min(jnp.where((state.start >= 0) & (ends > 0), ends, cap))
        arrival = jnp.min(jnp.where(jobs.valid & (jobs.arrival > clock), jobs.arrival - clock, cap))
        arrivals_end = jnp.where(params.simu_len > clock, params.simu_len - clock, cap)
        return jnp.maximum(jnp.minimum(jnp.minimum(job_end, arrival), jnp.minimum(arrivals_end, cap)), 1)

    def _quiet_ticks(self, state: EnvState, ticks, elapsed, gamma) -> tuple[EnvState, jax.Array]:
        """``ticks`` move-ons in which nothing arrives or starts, at once: the grid shifted ``ticks``
        rows, and sum_i gamma^(elapsed + i - 1) r_i over them in closed form (each job is charged
        for the ticks it stays in the system, a geometric sum). Equal to ``ticks`` calls of
        :meth:`_move_on` up to float rounding."""
        jobs, clock, G = state.jobset, state.clock, self.grid_len

        def discounted(count):  # sum_{i=1}^{count} gamma^(elapsed + i - 1)
            geometric = (1.0 - jnp.power(gamma, count)) / jnp.where(gamma == 1.0, 1.0, 1.0 - gamma)
            return jnp.power(gamma, elapsed) * jnp.where(gamma == 1.0, count.astype(jnp.float32), geometric)

        present = jobs.valid & (jobs.arrival <= clock) & ~state.dropped
        stays = jnp.where(state.start >= 0, jnp.clip(state.start + jobs.duration - clock - 1, 0, ticks), ticks)
        stays = jnp.where(present, stays, 0)  # ticks i in 1..ticks at whose end the job is in the system
        if self.reward_jobs == "visible":
            counted = jnp.zeros(jobs.arrival.shape, bool).at[jnp.maximum(state.slots, 0)].max(state.slots >= 0)
            stays = jnp.where(counted, ticks, 0)
        if self.reward_kind == "slowdown":
            reward = -jnp.sum(self._slowdown_charge(jobs, discounted(stays)))
        elif self.reward_kind == "completion_time":
            reward = -jnp.sum(discounted(stays))
        elif self.reward_kind == "utilisation":
            rows = jnp.arange(G)
            weight = jnp.where(rows < ticks, jnp.power(gamma, elapsed + rows), 0.0)
            reward = jnp.sum(weight[:, None] * state.used / self.capacity)
        else:  # makespan: busy while a job is in the system or still to arrive
            pending = jnp.any(jobs.valid & (jobs.arrival > clock))
            busy = jnp.where(state.start >= 0, jnp.clip(state.start + jobs.duration - clock, 0, ticks), ticks)
            busy = jnp.where(pending, ticks, jnp.max(jnp.where(present, busy, 0)))
            reward = -discounted(busy)
        shifted = jnp.arange(G) + ticks
        used = jnp.where((shifted < G)[:, None], state.used[jnp.minimum(shifted, G - 1)], 0)
        state = state.replace(clock=clock + ticks, used=used, since_arrival=state.since_arrival + ticks)
        return state, reward.astype(jnp.float32)

    def visible_fits_now(self, state: EnvState) -> jax.Array:
        """bool[M]: the slot holds a job that can start at the current time step."""
        duration, demand = jax.vmap(lambda j: self._job(state, j))(state.slots)
        return (state.slots >= 0) & jax.vmap(self._fits_now, in_axes=(None, 0, 0))(state.used, duration, demand)

    def _fits_now(self, used: jax.Array, duration: jax.Array, demand: jax.Array) -> jax.Array:
        row_ok = jnp.all(self.capacity - used >= demand, axis=-1)
        return jnp.all(row_ok | (jnp.arange(used.shape[0]) >= duration))

    def is_terminated(self, state: EnvState, params: EnvParams) -> jax.Array:
        past_arrivals = state.clock >= params.simu_len
        if self.termination == "no_new_job":
            return past_arrivals
        jobs = state.jobset
        pending = jnp.any(jobs.valid & (jobs.arrival > state.clock))
        return past_arrivals & ~pending & (jnp.sum(self.in_system(state)) == 0)

    def is_truncated(self, state: EnvState, params: EnvParams) -> jax.Array:
        return (state.clock >= params.max_time) | (state.time >= params.max_steps_in_episode)

    def in_system(self, state: EnvState) -> jax.Array:
        """bool[J]: arrived, not dropped and not yet finished (running, slotted or backlogged)."""
        jobs = state.jobset
        finished = (state.start >= 0) & (state.start + jobs.duration <= state.clock)
        return jobs.valid & (jobs.arrival <= state.clock) & ~state.dropped & ~finished

    def _job(self, state: EnvState, job: jax.Array) -> tuple[jax.Array, jax.Array]:
        index = jnp.maximum(job, 0)
        return state.jobset.duration[index], state.jobset.demand[index]

    def _start_offsets(self, used: jax.Array, duration: jax.Array, demand: jax.Array) -> jax.Array:
        """bool[T]: offsets o at which the job fits for its whole duration within the horizon.

        The job fits at o when the run of rows from o on that have room for it is at least its
        duration long. The runs (capped at T, rows past the horizon count as full) come from
        log2(T) shift-and-add passes: O(T log T) per job where a [T, T] offset x row mask is
        O(T^2) -- it was most of a no-observation step at M = 50 (one mask per slot)."""
        offsets = jnp.arange(self.horizon)
        if self.allocation == "fits_now":
            return (offsets == 0) & self._fits_now(used, duration, demand)
        run = jnp.all(self.capacity - used[:self.horizon] >= demand, axis=-1).astype(jnp.int32)
        span = 1  # before each pass, run[o] = min(rows with room from o on, span)
        while span < self.horizon:
            later = jnp.concatenate([run[span:], jnp.zeros((span,), jnp.int32)])
            run = run + jnp.where(run == span, later, 0)
            span *= 2
        return run >= duration

    def _uses_bitmasks(self) -> bool:
        """Earliest-fit allocation over a horizon of at most 32 rows: fits are read from bitmasks
        (:mod:`jaxsched.envs.deeprm.start_windows`); otherwise from per-slot offset scans."""
        return self.allocation == "earliest_fit" and self.horizon <= MAX_ROWS

    def _windows(self, used, duration, demand) -> jax.Array:
        table = rows_with_room(self.capacity - used[:self.horizon], self.capacity)
        return start_windows(table, duration, demand, self.horizon)

    def _slot_fits(self, used, duration, demand) -> tuple[jax.Array, jax.Array]:
        """(bool[M] fits somewhere in the horizon, bool[M] fits now) for the slots' jobs."""
        if self._uses_bitmasks():
            window = self._windows(used, duration, demand)
            return window != 0, (window & 1) != 0
        ok = jax.vmap(self._start_offsets, in_axes=(None, 0, 0))(used, duration, demand)
        return jnp.any(ok, axis=-1), ok[:, 0]

    def _earliest_start(self, used, duration, demand) -> tuple[jax.Array, jax.Array]:
        if self._uses_bitmasks():
            window = self._windows(used, duration, demand)
            return earliest(window), window != 0
        ok = self._start_offsets(used, duration, demand)
        return jnp.argmax(ok).astype(jnp.int32), jnp.any(ok)

    def _schedule(self, state: EnvState, slot, job, offset) -> EnvState:
        duration, demand = self._job(state, job)
        rows = jnp.arange(self.grid_len)
        running = (rows >= offset) & (rows < offset + duration)
        used = state.used + running[:, None].astype(jnp.int32) * demand[None, :]
        start = state.start.at[job].set(state.clock + offset)
        if self.backlog_size == 0:
            return state.replace(used=used, start=start, slots=state.slots.at[slot].set(-1))
        slots = state.slots.at[slot].set(state.backlog[0])  # -1 when the backlog is empty
        backlog = jnp.concatenate([state.backlog[1:], jnp.full((1,), -1, jnp.int32)])
        return state.replace(used=used, start=start, slots=slots, backlog=backlog,
                             backlog_len=jnp.maximum(state.backlog_len - 1, 0))

    def _move_on(self, state: EnvState) -> tuple[EnvState, jax.Array]:
        elapsed_use = state.used[0]
        jobs = state.jobset
        elapsed_busy = jnp.any(self.in_system(state)) | jnp.any(jobs.valid & (jobs.arrival > state.clock))
        used = jnp.concatenate([state.used[1:], jnp.zeros((1, self.num_res), jnp.int32)])
        state = state.replace(clock=state.clock + 1, used=used)
        state, arrived = self._admit_arrivals(state)
        state = state.replace(since_arrival=jnp.where(arrived > 0, 0, state.since_arrival + 1))
        return state, self._reward(state, elapsed_use, elapsed_busy)

    def _admit_arrivals(self, state: EnvState) -> tuple[EnvState, jax.Array]:
        """Places the jobs arriving at ``state.clock``: lowest empty slots, then backlog, then dropped.

        Jobs are indexed in arrival order, so this step's arrivals are the contiguous range
        [first, first + count) and the whole placement is O(J + M + B) without sorting.
        """
        jobs = state.jobset
        arriving = jobs.valid & (jobs.arrival == state.clock)
        count = jnp.sum(arriving, dtype=jnp.int32)
        first = jnp.argmax(arriving).astype(jnp.int32)
        empty = state.slots < 0
        empty_rank = count_before(empty)
        slots = jnp.where(empty & (empty_rank < count), first + empty_rank, state.slots)
        to_slots = jnp.minimum(count, jnp.sum(empty, dtype=jnp.int32))
        rest = count - to_slots
        to_backlog = jnp.minimum(rest, self.backlog_size - state.backlog_len)
        backlog, backlog_len = state.backlog, state.backlog_len
        if self.backlog_size > 0:
            k = jnp.arange(self.backlog_size) - state.backlog_len
            backlog = jnp.where((k >= 0) & (k < to_backlog), first + to_slots + k, state.backlog)
            backlog_len = state.backlog_len + to_backlog
        index = jnp.arange(jobs.arrival.shape[0])
        dropped = state.dropped | ((index >= first + to_slots + to_backlog) & (index < first + count))
        at_submit = state.at_submit  # only the bracis observation reads it (two O(J) scans per tick)
        if self.observation == "bracis":
            at_submit = self._submission_snapshot(state, arriving, first, first + to_slots + to_backlog)
        return state.replace(slots=slots, backlog=backlog, backlog_len=backlog_len, dropped=dropped,
                             at_submit=at_submit), count

    def _submission_snapshot(self, state: EnvState, arriving: jax.Array, first: jax.Array,
                             admitted_end: jax.Array) -> jax.Array:
        """``state.at_submit`` with this step's arrivals' rows set: the jobs waiting (slotted or
        backlogged) when each arrived -- earlier arrivals of the same step included, as if submitted
        one by one -- their work (duration x processors) and the free processors now."""
        jobs = state.jobset
        work = jobs.duration * jobs.demand[:, 0]
        waiting = jobs.valid & (jobs.arrival < state.clock) & ~state.dropped & (state.start < 0)
        admitted_now = arriving & (jnp.arange(jobs.arrival.shape[0]) < admitted_end)
        # admitted earlier in the same step (the step's arrivals are the contiguous [first, first + count))
        ahead = jnp.clip(jnp.arange(jobs.arrival.shape[0]) - first, 0, admitted_end - first)
        ahead_work = jnp.cumsum(jnp.where(admitted_now, work, 0), dtype=jnp.int32) - jnp.where(admitted_now, work, 0)
        snapshot = jnp.stack([jnp.sum(waiting, dtype=jnp.int32) + ahead,
                              jnp.sum(jnp.where(waiting, work, 0), dtype=jnp.int32) + ahead_work,
                              jnp.broadcast_to(self.capacity - state.used[0, 0], ahead.shape)], axis=-1)
        return jnp.where(arriving[:, None], snapshot, state.at_submit)

    def _slowdown_charge(self, jobs, ticks):
        """The slowdown reward's charge to each job for ``ticks`` (discounted) ticks in the system: ticks over its
        length in steps, so that a job's charges over its stay sum to its slowdown."""
        return ticks / jnp.maximum(jobs.duration, 1)

    def _reward(self, state: EnvState, elapsed_use: jax.Array, elapsed_busy: jax.Array) -> jax.Array:
        """Slowdown and completion time count the jobs in the system *after* the move (as the
        reference), so a job is charged at t = arrival .. finish - 1 and, with gamma = 1, an episode's
        return is -sum of slowdowns -- except that jobs present at reset (t = 0, e.g. DeepRM_Off) miss
        their t = 0 term: the return is then -sum slowdown + sum over them of 1/duration, a constant
        per jobset. Utilisation and makespan describe the time step that just elapsed, so that a
        makespan return is exactly -makespan."""
        if self.reward_jobs == "visible":  # the paper's "reduced" job set: only the M slots, |r| <= M
            counted = jnp.zeros(state.jobset.arrival.shape, bool).at[jnp.maximum(state.slots, 0)].max(state.slots >= 0)
        else:
            counted = self.in_system(state)
        if self.reward_kind == "slowdown":
            return -jnp.sum(jnp.where(counted, self._slowdown_charge(state.jobset, 1.0), 0.0))
        if self.reward_kind == "completion_time":
            return -jnp.sum(counted).astype(jnp.float32)
        if self.reward_kind == "utilisation":
            return jnp.sum(elapsed_use / self.capacity).astype(jnp.float32)
        return -elapsed_busy.astype(jnp.float32)  # makespan

    # ------------------------------------------------------------------ observation
    def get_obs(self, state: EnvState, params: EnvParams | None = None, key=None) -> Observation:
        slot_job = state.slots
        filled = slot_job >= 0
        duration, demand = jax.vmap(lambda j: self._job(state, j))(slot_job)
        duration = jnp.where(filled, duration, 0)
        demand = jnp.where(filled[:, None], demand, 0)
        anywhere, now = self._slot_fits(state.used, duration, demand)
        schedulable = filled & anywhere
        return Observation(
            features=self._features(state, duration, demand),
            action_mask=jnp.concatenate([schedulable, jnp.ones((1,), bool)]),
            fits_now=filled & now,
            slot_job=slot_job,
            slot_duration=duration,
            slot_demand=demand,
            free=self.capacity - state.used[:self.horizon],
            free_profile=self.capacity - jnp.concatenate([state.used, jnp.zeros((1, self.num_res), jnp.int32)]),
        )

    def _features(self, state: EnvState, duration, demand) -> jax.Array:
        if self.observation == "image":
            return render_image(self, state)
        if self.observation == "compact":
            return compact_vector(self, state, duration, demand)
        if self.observation == "bracis":
            return bracis_vector(self, state)
        return jnp.zeros((0,), jnp.float32)

    # ------------------------------------------------------------------ spaces
    def action_space(self, params: EnvParams | None = None) -> spaces.Discrete:
        return spaces.Discrete(self.num_actions)

    def feature_shape(self) -> tuple[int, ...]:
        if self.observation == "image":
            return (self.horizon, self.image_width)
        if self.observation == "compact":
            return (self.horizon * (self.num_res + 1) + self.num_slots * (self.num_res + 1) + 1,)
        if self.observation == "bracis":
            return (2 * self.horizon * self.num_res + 7 * self.num_slots + 1 + 3 + 4,)
        return (0,)

    def slot_feature_index(self) -> tuple[tuple[int, ...], ...] | None:
        """Per slot, the indices of its own features in the flat state (the bracis state's per-slot block, see
        :func:`~jaxsched.envs.deeprm.observations.bracis_vector`); None for the other observations. What a
        network shared by the slots reads (``algo_options.network: slots``)."""
        if self.observation != "bracis":
            return None
        first = 2 * self.horizon * self.num_res
        return tuple(tuple(range(first + 7 * i, first + 7 * (i + 1))) for i in range(self.num_slots))

    def observation_space(self, params: EnvParams | None = None) -> spaces.Dict:
        M, T, d = self.num_slots, self.horizon, self.num_res
        high = 1.0 if self.observation == "image" else float(max(self.capacity, self.backlog_size, 1e4))
        low = -1e4 if self.observation == "bracis" else 0.0  # 1 - now / L falls below 0 after L
        return spaces.Dict({
            "features": spaces.Box(low, high, self.feature_shape(), jnp.float32),
            "action_mask": spaces.Box(0, 1, (M + 1,), jnp.bool_),
            "fits_now": spaces.Box(0, 1, (M,), jnp.bool_),
            "slot_job": spaces.Box(-1, jnp.iinfo(jnp.int32).max, (M,), jnp.int32),
            "slot_duration": spaces.Box(0, self.horizon, (M,), jnp.int32),
            "slot_demand": spaces.Box(0, self.capacity, (M, d), jnp.int32),
            "free": spaces.Box(0, self.capacity, (T, d), jnp.int32),
            "free_profile": spaces.Box(0, self.capacity, (self.grid_len + 1, d), jnp.int32),
        })
