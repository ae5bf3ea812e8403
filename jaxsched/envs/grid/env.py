"""A grid site as a discrete-event simulation (Perez et al., RL supervision with an Echo State Network).

Semantics: ``docs/semantics/grid.md``. One site with identical cores and one shared queue; events are
submission, dispatch and termination, time is int32 seconds. A **decision** happens whenever a core
in service is free and a job waits (every termination, and an arrival to an idle core); the agent
picks one of K candidate waiting jobs (below), which starts at once (greedy: a core never idles while a job
waits). ``transition`` then advances through the events in a bounded ``lax.while_loop`` to the next
decision, so an episode is exactly one decision per job.

Rigid (``pool_sizes=None``): P cores. Elastic: the action is also a pool size from ``pool_sizes``;
the pool may change at most once per ``pool_change_interval`` seconds, never below the smallest
size and never below the jobs running after this dispatch (the mask shows what is allowed; no job is
ever pre-empted).

Rewards are paid when a job completes (so a decision's reward arrives later): responsiveness
W = run / (run + wait) and, rigid, fairness F = 1 − D / max_k w_k with D = max_k (w_k − S_k)+ where
S is each VO's share of the runtime dispatched before the job's election: R = λ W + (1 − λ) F.
Elastic: R = λ W + (1 − λ) U with U the utilisation so far, completed core-seconds / provisioned
core-seconds (the paper's Eq. 3 with the completed work summed up to T_n; with f_n alone, U would
shrink towards 0 as the trace grows, which its "≈ 50% asymptotically" rules out).

Runtime model (static): ``oracle`` shows true runtimes; ``estimated`` shows, for every job, the
median runtime of its class over the last ``estimate_window`` completed jobs of that class
(``EnvParams.prior_runtime`` before any). Dynamics never depend on it, only the observation.

Candidates (static ``candidates``): ``queue`` (default), **every waiting job**, oldest first, up to
the static ``queue_capacity`` (the action is a position in the queue; Q / a heuristic is evaluated on
every waiting job). The queue is a compact int32 array of job indices in submit order; a dispatch
removes its entry, arrivals are appended. A job that arrives while ``queue_capacity`` jobs are listed
waits *beyond the capacity*: it is listed (in submit order) as soon as a place frees, and meanwhile it
is never silently hidden: ``EnvState.hidden`` counts the decisions taken while some waiting job was
beyond the capacity and ``EnvState.queue_peak`` records the most jobs waiting at a decision, so an
evaluation can refuse a capacity that overflowed (:meth:`GridVariant.evaluate`). The bounded
candidate sets stay as explicit options, off by default, taken from the same whole queue:
``oldest``, the ``num_candidates`` oldest waiting jobs; ``per_class``, the K/2 oldest waiting jobs of
each class (interactive in the first slots). (``scan_width``, the window of the former ``oldest``
rule, is accepted for old configs and has no effect.) An action outside the mask dispatches the
oldest candidate and keeps the pool (documented fallback, so no job is ever lost).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from gymnax.environments import environment, spaces

from jaxsched.core.observe_once import ObserveOnceStep
from jaxsched.envs.equality import EqualByConfiguration
from jaxsched.envs.grid.types import (BATCH, INTERACTIVE, NEVER, NUM_CLASSES, PAPER_VO_SHARES, EnvParams, EnvState,
                                      Observation)
from jaxsched.envs.grid.workload import Workload, generate

RUNTIME_MODELS = ("oracle", "estimated")
CANDIDATE_RULES = ("queue", "oldest", "per_class")
QUEUE_CAPACITY = 2048  # default listed waiting jobs (GridSite; the variants choose it from the workload)
ELASTIC_POOL_SIZES = (30, 40, 50, 60, 70, 80, 81, 90, 100, 110, 120)  # 81: the rigid site, as a fixed pool
ARRIVAL_CHUNK = 16  # arrivals read at a time while advancing
STATE_FEATURES = 6  # running work, time to a free core, backlog, idle cores, class means (2); then V VO shares


class GridSite(EqualByConfiguration, ObserveOnceStep, environment.Environment[EnvState, EnvParams]):
    """One grid site: a queue, ``num_cores`` cores (rigid) or an elastic pool; the agent picks jobs."""

    def __init__(self, num_cores: int = 81, num_candidates: int = 16, scan_width: int = 64,
                 vo_shares: tuple = PAPER_VO_SHARES, runtime_model: str = "oracle", estimate_window: int = 1000,
                 pool_sizes: tuple | None = None, initial_pool: int = 81, pool_change_interval: int = 900,
                 time_scale: float = 3600.0, candidates: str = "queue", queue_capacity: int = QUEUE_CAPACITY):
        super().__init__()
        if candidates not in CANDIDATE_RULES:
            raise ValueError(f"candidates must be one of {', '.join(CANDIDATE_RULES)}, got {candidates!r}")
        if candidates == "per_class" and int(num_candidates) % NUM_CLASSES:
            raise ValueError(f"candidates 'per_class' splits num_candidates evenly over the 2 classes; got {num_candidates}")
        if runtime_model not in RUNTIME_MODELS:
            raise ValueError(f"runtime_model must be one of {', '.join(RUNTIME_MODELS)}, got {runtime_model!r}")
        shares = tuple(float(w) for w in vo_shares)
        if not shares or min(shares) < 0 or abs(sum(shares) - 1.0) > 1e-3:
            raise ValueError(f"vo_shares must be non-negative and sum to 1, got {vo_shares}")
        if int(queue_capacity) < 1:
            raise ValueError(f"queue_capacity must be >= 1, got {queue_capacity}")
        if candidates != "queue" and not 1 <= int(num_candidates) <= int(queue_capacity):
            raise ValueError(f"need 1 <= num_candidates <= queue_capacity, got {num_candidates}, {queue_capacity}")
        if pool_sizes is not None:
            pool_sizes = tuple(sorted(int(p) for p in pool_sizes))
            if pool_sizes[0] < 1 or int(initial_pool) not in pool_sizes:
                raise ValueError(f"pool sizes must be >= 1 and include initial_pool {initial_pool}; got {pool_sizes}")
            num_cores = pool_sizes[-1]
        if int(num_cores) < 1:
            raise ValueError(f"num_cores must be >= 1, got {num_cores}")
        self.num_cores = int(num_cores)  # core slots (elastic: the largest pool)
        self.queue_capacity, self.scan_width = int(queue_capacity), int(scan_width)
        # K, the candidate slots the observation and the action cover: the whole queue by default
        self.num_candidates = self.queue_capacity if candidates == "queue" else int(num_candidates)
        self.vo_shares, self.num_vos = shares, len(shares)
        self.runtime_model, self.estimate_window = runtime_model, max(int(estimate_window), 1)
        self.pool_sizes = pool_sizes
        self.initial_pool = int(initial_pool) if pool_sizes is not None else self.num_cores
        self.pool_change_interval, self.time_scale = int(pool_change_interval), float(time_scale)
        self.candidate_rule = candidates

    instance_field = "jobs"  # the episode's job window in the state (see jaxsched.core.rollout)

    @property
    def name(self) -> str:
        return "GridSite" if self.pool_sizes is None else "GridSiteElastic"

    @property
    def elastic(self) -> bool:
        return self.pool_sizes is not None

    @property
    def num_sizes(self) -> int:
        return 1 if self.pool_sizes is None else len(self.pool_sizes)

    @property
    def num_actions(self) -> int:
        return self.num_candidates * self.num_sizes

    @property
    def default_params(self) -> EnvParams:
        return EnvParams(jobs=generate(jax.random.PRNGKey(0), Workload(num_cores=self.num_cores), 200))

    # ------------------------------------------------------------------ dynamics
    def initial_state(self, params: EnvParams) -> EnvState:
        """Empty site at time 0, advanced to the first decision (the first arrival)."""
        jobs = params.jobs
        J, P, V = jobs.length, self.num_cores, self.num_vos
        state = EnvState(
            time=jnp.int32(0), clock=jnp.int32(0), jobs=jobs, start=jnp.full(J, -1, jnp.int32),
            fairness=jnp.zeros(J, jnp.float32), pool_at_start=jnp.zeros(J, jnp.int32),
            arrived=jnp.int32(0), queue=jnp.full(self.queue_capacity, -1, jnp.int32), queue_len=jnp.int32(0),
            listed=jnp.int32(0), queue_peak=jnp.int32(0), hidden=jnp.int32(0),
            candidates=jnp.full(self.num_candidates, -1, jnp.int32),
            slot_job=jnp.full(P, -1, jnp.int32), slot_finish=jnp.full(P, NEVER, jnp.int32),
            slot_runtime=jnp.zeros(P, jnp.int32), slot_class=jnp.zeros(P, jnp.int32), slot_score=jnp.zeros(P, jnp.float32),
            waiting_by_class=jnp.zeros(NUM_CLASSES, jnp.int32), waiting_by_vo=jnp.zeros(V, jnp.int32),
            backlog=jnp.int32(0), service_by_vo=jnp.zeros(V, jnp.float32),
            completed_by_class=jnp.zeros(NUM_CLASSES, jnp.float32), count_by_class=jnp.zeros(NUM_CLASSES, jnp.int32),
            recent_runtime=jnp.zeros((NUM_CLASSES, self._ring_size), jnp.int32),
            completed_work=jnp.float32(0.0), provisioned=jnp.float32(0.0),
            pool=jnp.int32(self.initial_pool), last_pool_change=jnp.int32(-self.pool_change_interval))
        state, _ = self._advance(state, params)
        return self._at_decision(state)

    @property
    def _ring_size(self) -> int:
        return self.estimate_window if self.runtime_model == "estimated" else 1

    def transition(self, state: EnvState, action: Any, params: EnvParams):
        """``(state, reward, terminated, info)``: dispatch the chosen job (and set the pool), then run the
        events up to the next decision. On a finished episode nothing changes. Deterministic."""
        jobs = state.jobs  # the episode's own window (params may hold another: learners pass defaults)
        active = ~self.is_done(state)
        action = jnp.asarray(action, jnp.int32)
        # the action's own entry of the mask (action_mask's rule, without building the whole mask)
        inside = jnp.clip(action, 0, self.num_actions - 1)
        legal = (action >= 0) & (action < self.num_actions) & (state.candidates[inside // self.num_sizes] >= 0) & \
            self.size_allowed(state)[inside % self.num_sizes]
        if self.candidate_rule == "per_class":  # the fallback: the oldest candidate
            oldest = jnp.argmin(jnp.where(state.candidates >= 0, state.candidates, NEVER))
        else:  # the queue, compact and in submit order: its first place
            oldest = jnp.int32(0)
        slot = jnp.where(legal, action // self.num_sizes, oldest)
        job = jnp.where(active, state.candidates[slot], -1)
        go = job >= 0
        safe_job = jnp.maximum(job, 0)
        vo, runtime = jobs.vo[safe_job], jobs.runtime[safe_job]

        pool = state.pool
        last_change = state.last_pool_change
        if self.elastic:
            chosen = jnp.asarray(self.pool_sizes, jnp.int32)[jnp.where(legal, action % self.num_sizes, 0)]
            new_pool = jnp.where(legal & go, chosen, pool)
            last_change = jnp.where(new_pool != pool, state.clock, last_change)
            pool = new_pool

        fairness = self._fairness(state.service_by_vo)
        free_slot = jnp.argmax(state.slot_job < 0)
        where_go = lambda new, old: jnp.where(go, new, old)
        # W and F are known at dispatch (the wait is over, the runtime is the true one): the slot keeps
        # the reward's known part, so the event loop reads no per-job array
        weight = jnp.asarray(params.weight, jnp.float32)
        wait = state.clock - jobs.submit[safe_job]
        responsiveness = runtime / jnp.maximum(runtime + wait, 1).astype(jnp.float32)
        score = weight * responsiveness + (0.0 if self.elastic else (1 - weight) * fairness)
        set_slot = lambda array, value: array.at[free_slot].set(where_go(value, array[free_slot]))
        start = state.start.at[safe_job].set(where_go(state.clock, state.start[safe_job]))
        state = state.replace(
            time=state.time + go.astype(jnp.int32),
            start=start,
            fairness=state.fairness.at[safe_job].set(where_go(fairness, state.fairness[safe_job])),
            pool_at_start=state.pool_at_start.at[safe_job].set(where_go(pool, state.pool_at_start[safe_job])),
            queue=where_go(self._remove(state.queue, job, slot), state.queue), queue_len=state.queue_len - go.astype(jnp.int32),
            slot_job=state.slot_job.at[free_slot].set(where_go(job, state.slot_job[free_slot])),
            slot_finish=set_slot(state.slot_finish, state.clock + runtime),
            slot_runtime=set_slot(state.slot_runtime, runtime), slot_class=set_slot(state.slot_class, jobs.klass[safe_job]),
            slot_score=set_slot(state.slot_score, score),
            waiting_by_class=state.waiting_by_class.at[jobs.klass[safe_job]].add(-go.astype(jnp.int32)),
            waiting_by_vo=state.waiting_by_vo.at[vo].add(-go.astype(jnp.int32)),
            backlog=state.backlog - jnp.where(go, runtime, 0),
            service_by_vo=state.service_by_vo.at[vo].add(jnp.where(go, runtime, 0).astype(jnp.float32)),
            pool=pool, last_pool_change=last_change)
        state, reward = self._advance(state, params)
        state = self._at_decision(state, active)
        terminated = self.is_done(state)
        return state, reward, terminated, {"dispatched": go, "legal": legal}

    def is_done(self, state: EnvState) -> jax.Array:
        """Every job has arrived and finished."""
        jobs = state.jobs
        return (state.arrived >= jnp.sum(jobs.valid)) & (jnp.sum(state.waiting_by_class) == 0) & \
            jnp.all(state.slot_job < 0)

    def is_terminal(self, state: EnvState, params: EnvParams) -> jax.Array:
        return self.is_done(state) | self.is_truncated(state, params)

    def is_truncated(self, state: EnvState, params: EnvParams) -> jax.Array:
        return state.time >= params.max_steps_in_episode

    def _fairness(self, service_by_vo: jax.Array) -> jax.Array:
        """F = 1 − max_k (w_k − S_k)+ / max_k w_k for the service delivered so far (0 before any)."""
        shares = jnp.asarray(self.vo_shares, jnp.float32)
        total = jnp.sum(service_by_vo)
        delivered = jnp.where(total > 0, service_by_vo / jnp.maximum(total, 1e-30), 0.0)
        return 1.0 - jnp.max(jnp.maximum(shares - delivered, 0.0)) / jnp.max(shares)

    def _remove(self, queue: jax.Array, job: jax.Array, slot: jax.Array) -> jax.Array:
        """The queue without ``job`` (a listed job, candidate ``slot``): the entries after it move one
        place up. With the whole queue as candidates the slot is the job's place."""
        position = slot if self.candidate_rule == "queue" else jnp.argmax(queue == job)
        index = jnp.arange(self.queue_capacity)
        after = jnp.where(index + 1 < self.queue_capacity, queue[jnp.minimum(index + 1, self.queue_capacity - 1)], -1)
        return jnp.where(index < position, queue, after)

    def _list(self, state: EnvState) -> EnvState:
        """Appends the arrived, not yet listed jobs (in submit order) to the queue's free places, as many
        as fit: once per decision, after the event loop (no dispatch happens inside it, so listing there
        pass by pass would list the same jobs), one elementwise pass over the queue."""
        count = jnp.minimum(state.arrived - state.listed, self.queue_capacity - state.queue_len)
        offset = jnp.arange(self.queue_capacity) - state.queue_len
        fresh = (offset >= 0) & (offset < count)
        return state.replace(queue=jnp.where(fresh, state.listed + offset, state.queue),
                             queue_len=state.queue_len + count, listed=state.listed + count)

    def _at_decision(self, state: EnvState, counted: jax.Array = True) -> EnvState:
        """The candidates of the decision the state is at, and the queue's counters (``counted``: a step
        of a finished episode counts nothing)."""
        waiting = jnp.sum(state.waiting_by_class)
        beyond = counted & (state.arrived > state.listed)
        return state.replace(candidates=self._candidates(state), hidden=state.hidden + beyond.astype(jnp.int32),
                             queue_peak=jnp.maximum(state.queue_peak, jnp.where(counted, waiting, 0)))

    def _candidates(self, state: EnvState) -> jax.Array:
        """The whole queue (``queue``), its K oldest jobs (``oldest``) or the K/2 oldest of each class,
        interactive first (``per_class``), -1 past the last."""
        if self.candidate_rule == "queue":
            return state.queue
        if self.candidate_rule == "oldest":
            return state.queue[:self.num_candidates]
        per_group = self.num_candidates // NUM_CLASSES
        listed = state.queue >= 0
        klass = state.jobs.klass[jnp.maximum(state.queue, 0)]
        candidates = jnp.full(self.num_candidates, -1, jnp.int32)
        for group in range(NUM_CLASSES):
            member = listed & (klass == group)
            rank = jnp.cumsum(member) - 1
            target = jnp.where(member & (rank < per_group), group * per_group + rank, self.num_candidates)
            candidates = candidates.at[target].set(state.queue, mode="drop")
        return candidates

    def _advance(self, state: EnvState, params: EnvParams) -> tuple[EnvState, jax.Array]:
        """Runs the events up to the next decision (or the episode's end). Returns the state and the
        rewards of the jobs that completed meanwhile.

        Each pass jumps to the time the next decision can be due, retiring every termination up to it
        and admitting the submissions up to it (``ARRIVAL_CHUNK`` per pass): with jobs waiting, the
        earliest termination; with a core free, the next submission; with neither, the later of the
        two; with nothing left to submit, the last termination. Under ``vmap`` a loop runs as many
        passes as its slowest episode, so one pass per decision (not one per event) is what keeps a
        batch fast. Terminations at different times within a pass are accounted as if in time order
        (ties in slot order): the utilisation U of each and the estimated model's ring."""
        jobs = state.jobs
        num_valid = jnp.sum(jobs.valid)
        weight = jnp.asarray(params.weight, jnp.float32)
        cap = 2 * jobs.length + 2 * self.num_cores + 8  # each pass retires a termination or admits a submission
        chunk = jnp.arange(ARRIVAL_CHUNK)
        slots = jnp.arange(self.num_cores)
        # read-only in the loop (the queue is listed once after it): out of the carry, which under vmap
        # every pass selects leaf by leaf
        per_job = dict(jobs=None, start=None, fairness=None, pool_at_start=None, queue=None, candidates=None)

        def next_submit(s):
            return jnp.where(s.arrived < num_valid, jobs.submit[jnp.minimum(s.arrived, jobs.length - 1)], NEVER)

        def all_done(s):
            return (s.arrived >= num_valid) & (jnp.sum(s.waiting_by_class) == 0) & jnp.all(s.slot_job < 0)

        def decision_due(s):
            return (jnp.sum(s.slot_job >= 0) < s.pool) & (jnp.sum(s.waiting_by_class) > 0)

        def cond(carry):
            s, _, passes = carry
            arrivals_due = next_submit(s) <= s.clock  # submitted by now, not read yet: read them first
            return (~decision_due(s) | arrivals_due) & ~all_done(s) & (passes < cap)

        def body(carry):
            s, reward, passes = carry
            busy = s.slot_job >= 0
            waiting = jnp.sum(s.waiting_by_class) > 0
            free = jnp.sum(busy) < s.pool
            submit = next_submit(s)
            earliest = jnp.min(s.slot_finish)
            latest = jnp.max(jnp.where(busy, s.slot_finish, -1))
            now = jnp.where(waiting, jnp.where(free, s.clock, earliest),
                            jnp.where(submit == NEVER, latest, jnp.where(free, submit, jnp.maximum(earliest, submit))))
            now = jnp.maximum(now, s.clock)
            # terminations up to `now`
            ending = busy & (s.slot_finish <= now)
            run = jnp.where(ending, s.slot_runtime, 0)
            if self.elastic:  # U at each job's own finish: work done by then over cores provisioned by then
                before = ending[None, :] & (s.slot_finish[None, :] <= s.slot_finish[:, None])  # [j, k]: k by j's end
                done_by = s.completed_work + jnp.sum(jnp.where(before, run[None, :], 0), axis=1).astype(jnp.float32)
                provisioned_by = s.provisioned + (s.pool * (s.slot_finish - s.clock)).astype(jnp.float32)
                second = (1 - weight) * done_by / jnp.maximum(provisioned_by, 1.0)
            else:
                second = 0.0
            reward = reward + jnp.sum(jnp.where(ending, s.slot_score + second, 0.0))
            ended_class = jnp.where(ending, s.slot_class, NUM_CLASSES)  # NUM_CLASSES: not ending
            by_class = jax.nn.one_hot(ended_class, NUM_CLASSES, dtype=jnp.int32)  # [P, 2]
            recent = s.recent_runtime
            if self.runtime_model == "estimated":  # ring positions in (finish, slot) order within the class
                earlier = (s.slot_finish[None, :] < s.slot_finish[:, None]) | (
                    (s.slot_finish[None, :] == s.slot_finish[:, None]) & (slots[None, :] < slots[:, None]))
                same = ending[None, :] & (ended_class[None, :] == ended_class[:, None]) & earlier
                rank = jnp.sum(same, axis=1)
                cls = jnp.where(ending, ended_class, 0)
                position = (s.count_by_class[cls] + rank) % self._ring_size
                recent = recent.at[cls, jnp.where(ending, position, self._ring_size)].set(run, mode="drop")
            s = s.replace(
                slot_job=jnp.where(ending, -1, s.slot_job), slot_finish=jnp.where(ending, NEVER, s.slot_finish),
                slot_runtime=jnp.where(ending, 0, s.slot_runtime),
                completed_by_class=s.completed_by_class + jnp.sum(by_class * run[:, None], axis=0).astype(jnp.float32),
                count_by_class=s.count_by_class + jnp.sum(by_class, axis=0), recent_runtime=recent,
                completed_work=s.completed_work + jnp.sum(run).astype(jnp.float32),
                provisioned=s.provisioned + (s.pool * (now - s.clock)).astype(jnp.float32), clock=now)
            # submissions up to `now` (ARRIVAL_CHUNK per pass)
            index = s.arrived + chunk
            safe = jnp.minimum(index, jobs.length - 1)
            arriving = (index < num_valid) & (jobs.submit[safe] <= now)
            s = s.replace(
                arrived=s.arrived + jnp.sum(arriving),
                waiting_by_class=s.waiting_by_class + jnp.sum(
                    jax.nn.one_hot(jobs.klass[safe], NUM_CLASSES, dtype=jnp.int32) * arriving[:, None], axis=0),
                waiting_by_vo=s.waiting_by_vo + jnp.sum(
                    jax.nn.one_hot(jobs.vo[safe], self.num_vos, dtype=jnp.int32) * arriving[:, None], axis=0),
                backlog=s.backlog + jnp.sum(jnp.where(arriving, jobs.runtime[safe], 0)))
            return s, reward, passes + 1

        small, reward, _ = jax.lax.while_loop(cond, body, (state.replace(**per_job), jnp.float32(0.0), jnp.int32(0)))
        return self._list(small.replace(jobs=state.jobs, start=state.start, fairness=state.fairness,
                                        pool_at_start=state.pool_at_start, queue=state.queue,
                                        candidates=state.candidates)), reward

    # ------------------------------------------------------------------ observation
    def class_estimates(self, state: EnvState, params: EnvParams) -> jax.Array:
        """float32[2] each class's runtime under the runtime model (estimated: trailing median)."""
        prior = jnp.asarray(params.prior_runtime, jnp.float32)
        if self.runtime_model != "estimated":
            return prior
        filled = jnp.minimum(state.count_by_class, self._ring_size)
        ring = jnp.where(jnp.arange(self._ring_size)[None, :] < filled[:, None], state.recent_runtime, NEVER)
        ordered = jnp.sort(ring, axis=1)
        median = ordered[jnp.arange(NUM_CLASSES), jnp.maximum(filled - 1, 0) // 2].astype(jnp.float32)
        return jnp.where(filled > 0, median, prior)

    def class_means(self, state: EnvState, params: EnvParams) -> jax.Array:
        prior = jnp.asarray(params.prior_runtime, jnp.float32)
        count = state.count_by_class
        return jnp.where(count > 0, state.completed_by_class / jnp.maximum(count, 1), prior)

    def size_allowed(self, state: EnvState) -> jax.Array:
        """bool[S]: the pool sizes allowed now (at least the running jobs + the one dispatched)."""
        if not self.elastic:
            return jnp.ones(1, bool)
        sizes = jnp.asarray(self.pool_sizes, jnp.int32)
        running = jnp.sum(state.slot_job >= 0)
        may_change = state.clock - state.last_pool_change >= self.pool_change_interval
        return (sizes >= running + 1) & (may_change | (sizes == state.pool))

    def action_mask(self, state: EnvState) -> jax.Array:
        return ((state.candidates >= 0)[:, None] & self.size_allowed(state)[None, :]).reshape(-1)

    def get_obs(self, state: EnvState, params: EnvParams | None = None, key=None) -> Observation:
        jobs = state.jobs
        candidate = jnp.maximum(state.candidates, 0)
        present = state.candidates >= 0
        klass, vo = jobs.klass[candidate], jobs.vo[candidate]
        if self.runtime_model == "estimated":
            estimates = self.class_estimates(state, params)
            exec_time = estimates[klass]
            busy = state.slot_job >= 0
            slot_job = jnp.maximum(state.slot_job, 0)
            expected_finish = jnp.maximum(state.start[slot_job] + estimates[jobs.klass[slot_job]], state.clock)
            expected_finish = jnp.where(busy, expected_finish, NEVER)
            backlog = jnp.sum(state.waiting_by_class * estimates)
        else:
            exec_time = jobs.runtime[candidate].astype(jnp.float32)
            expected_finish = state.slot_finish
            backlog = state.backlog.astype(jnp.float32)
        exec_time = jnp.where(present, exec_time, 0.0)
        wait = jnp.where(present, state.clock - jobs.submit[candidate], 0).astype(jnp.float32)
        running = jnp.sum(state.slot_job >= 0)
        idle = state.pool - running
        remaining = jnp.where(state.slot_job >= 0, expected_finish - state.clock, 0)
        to_free = jnp.where(idle > 0, 0, jnp.min(expected_finish) - state.clock)
        queued = jnp.sum(state.waiting_by_class)
        shares = jnp.asarray(self.vo_shares, jnp.float32)
        service = jnp.sum(state.service_by_vo)
        delivered = jnp.where(service > 0, state.service_by_vo / jnp.maximum(service, 1e-30), 0.0)
        class_mean = self.class_means(state, params)
        scale = self.time_scale
        log_time = lambda seconds: jnp.log1p(jnp.maximum(seconds, 0.0) / scale)
        site = [log_time(jnp.sum(remaining).astype(jnp.float32) / self.num_cores), log_time(to_free.astype(jnp.float32)),
                log_time(backlog / self.num_cores), idle.astype(jnp.float32) / self.num_cores,
                log_time(class_mean[INTERACTIVE]), log_time(class_mean[BATCH])]
        site = jnp.concatenate([jnp.stack(site), state.waiting_by_vo / jnp.maximum(queued, 1).astype(jnp.float32)])
        if self.elastic:
            cooldown = jnp.maximum(self.pool_change_interval - (state.clock - state.last_pool_change), 0)
            site = jnp.concatenate([site, jnp.stack([state.pool / self.num_cores,
                                                     cooldown / max(self.pool_change_interval, 1)])])
        per_job = jnp.concatenate([klass[:, None].astype(jnp.float32),
                                   jax.nn.one_hot(vo, self.num_vos, dtype=jnp.float32),
                                   log_time(exec_time)[:, None], log_time(wait)[:, None]], axis=1)
        per_job = jnp.where(present[:, None], per_job, 0.0)
        features = jnp.concatenate([site.astype(jnp.float32), per_job.reshape(-1)])
        return Observation(features=features, action_mask=self.action_mask(state), job=state.candidates,
                           klass=klass, vo=vo, exec_time=exec_time, wait=wait, class_mean=class_mean,
                           vo_deficit=shares - delivered, running=running, queued=queued, pool=state.pool,
                           size_allowed=self.size_allowed(state),
                           pool_sizes=jnp.asarray(self.pool_sizes or (self.num_cores,), jnp.int32))

    @property
    def site_features(self) -> int:
        return STATE_FEATURES + self.num_vos + (2 if self.elastic else 0)

    @property
    def job_features(self) -> int:
        return 3 + self.num_vos

    def feature_shape(self) -> tuple[int, ...]:
        return (self.site_features + self.num_candidates * self.job_features,)

    # ------------------------------------------------------------------ the paper's state-action vector
    def state_action_vector(self, features: jax.Array, slot, extended: bool = False) -> jax.Array:
        """The paper's 19-number state–action vector (7 VOs) of candidate ``slot``: the site state (running
        work, time to a free core, backlog, idle cores, the VOs' shares of the queue) and the job (VO
        one-hot, execution time). The job's class is a function of its execution time under either
        runtime model (oracle: runtime < 900 s; estimated: the class median) and is not repeated.
        ``extended`` appends the job's class and waiting time (not in the paper's vector)."""
        site = features[:self.site_features]
        job = features[self.site_features:].reshape(self.num_candidates, self.job_features)[slot]
        parts = [site[:4], site[STATE_FEATURES:STATE_FEATURES + self.num_vos], job[1:1 + self.num_vos],
                 job[1 + self.num_vos:2 + self.num_vos]]
        if extended:
            parts += [job[:1], job[2 + self.num_vos:3 + self.num_vos]]
        return jnp.concatenate(parts)

    def state_action_size(self, extended: bool = False, sizes_one_hot: bool = False) -> int:
        return 4 + 2 * self.num_vos + 1 + (2 if extended else 0) + self._size_columns(sizes_one_hot)

    def _size_columns(self, sizes_one_hot: bool) -> int:
        """Elastic: the chosen pool size's columns (one number, or one column per allowed size) + the current
        pool size + the cool-down; rigid: none."""
        return ((self.num_sizes if sizes_one_hot else 1) + 2) if self.elastic else 0

    def _chosen_sizes(self, obs: Observation, sizes_one_hot: bool) -> jax.Array:
        """float32[S, C]: the chosen pool size of each size action: size / P (one number, so each input unit is
        linear in it), or a one-hot row (Q free to rank the sizes in any order)."""
        if sizes_one_hot:
            return jnp.eye(self.num_sizes, dtype=jnp.float32)
        return obs.pool_sizes.astype(jnp.float32)[:self.num_sizes, None] / self.num_cores

    def state_action_inputs(self, obs: Observation, extended: bool = False, sizes_one_hot: bool = False) -> jax.Array:
        """float32[A, D]: the state–action vector of every action (elastic: plus the chosen pool size
        (:meth:`_chosen_sizes`), the current pool size and the cool-down, each scaled to [0, 1]), what a
        Q(s, a) reads."""
        per_slot = jax.vmap(lambda slot: self.state_action_vector(obs.features, slot, extended))(
            jnp.arange(self.num_candidates))
        if not self.elastic:
            return per_slot
        sizes = self._chosen_sizes(obs, sizes_one_hot)
        site = obs.features[self.site_features - 2:self.site_features]  # pool / P, cool-down
        extra = jnp.concatenate([sizes, jnp.broadcast_to(site, (sizes.shape[0], 2))], axis=1)
        return jnp.concatenate([jnp.repeat(per_slot, self.num_sizes, axis=0),
                                jnp.tile(extra, (self.num_candidates, 1))], axis=1)

    def state_action_parts(self, obs: Observation, extended: bool = False,
                           sizes_one_hot: bool = False) -> tuple[jax.Array, jax.Array, jax.Array]:
        """``(shared[D], per_candidate[K, D], per_size[S, D])``, :meth:`state_action_inputs` taken apart:
        the columns that depend on the state only, on the candidate job only and on the pool size only,
        each zero elsewhere, so that action ``k * S + s``'s vector is ``shared + per_candidate[k] +
        per_size[s]`` (exactly: each column is one term plus zeros). What lets a Q with a linear first
        layer score the elastic site's K x S actions with K + S products instead of K x S."""
        site = obs.features[:self.site_features]
        jobs = obs.features[self.site_features:].reshape(self.num_candidates, self.job_features)
        job_columns = [jobs[:, 1:2 + self.num_vos]] + ([jobs[:, :1], jobs[:, 2 + self.num_vos:]] if extended else [])
        state_width, job_width = 4 + self.num_vos, 1 + self.num_vos + (2 if extended else 0)
        size_width = self._size_columns(sizes_one_hot)
        zeros = lambda rows, width: jnp.zeros((rows, width), jnp.float32)
        shared = jnp.concatenate([site[:4], site[STATE_FEATURES:STATE_FEATURES + self.num_vos],
                                  jnp.zeros(job_width, jnp.float32)]
                                 + ([jnp.zeros(size_width - 2, jnp.float32), site[self.site_features - 2:]]
                                    if self.elastic else []))
        per_candidate = jnp.concatenate([zeros(self.num_candidates, state_width)] + job_columns
                                        + [zeros(self.num_candidates, size_width)], axis=1)
        per_size = jnp.concatenate([zeros(self.num_sizes, state_width + job_width)]
                                   + ([self._chosen_sizes(obs, sizes_one_hot), zeros(self.num_sizes, 2)]
                                      if self.elastic else []), axis=1)
        return shared, per_candidate, per_size

    # ------------------------------------------------------------------ spaces
    def action_space(self, params: EnvParams | None = None) -> spaces.Discrete:
        return spaces.Discrete(self.num_actions)

    def observation_space(self, params: EnvParams | None = None) -> spaces.Dict:
        return spaces.Dict({
            "features": spaces.Box(-1e6, 1e6, self.feature_shape(), jnp.float32),
            "action_mask": spaces.Box(0, 1, (self.num_actions,), jnp.bool_),
        })
