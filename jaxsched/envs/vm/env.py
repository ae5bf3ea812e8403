"""VM placement on double-NUMA machines (VMAgent / CVD-RL): non-expansion and expansion scenarios.

Semantics: ``docs/semantics/vm.md``. N physical machines (PMs) with two NUMA nodes each. The agent
places one *create* request per step; deletes between two creates are applied automatically (a
delete frees exactly what its create took; one whose create lies outside the trace window is a
no-op). The episode ends when the next create fits nowhere or no create is left.

Scenarios (all ``EnvParams``, so they can be vmapped): ``warm_start`` ρ_ws pre-fills the cluster
with Best-Fit (the default scheduler) from the start of the window until ρ_ws of the in-service CPU
is allocated (or nothing fits); the agent then takes over, and counters (``time``, ``placed``,
``income``) start from zero. *Expansion*: ``initial_pms`` < N puts only that many PMs in service;
whenever the next create fits nowhere, ``pms_per_expansion`` more are added (up to N = ``num_pms``,
the static array size) before the episode would end. ``initial_pms = 0`` means all N (non-expansion).
PMs out of service are masked and show as empty in the features.

Metrics (:meth:`VmPlacement.metrics`): scheduled length (creates the agent placed), the CPU
allocation rate of the in-service PMs **at the episode's end** (its average over the episode's time
is :func:`mean_cpu_allocation`, which needs the episode's sum), and income = Σ over placed VMs of
lifetime (h) × hourly price, with the explicit linear price model ``price_per_cpu_hour · cpu +
price_per_gb_hour · mem`` (no price table is public; the defaults are of the order of public cloud
on-demand list prices and only fix the unit). A VM whose delete is not in the trace earns 0.

Actions ``pm * 2 + numa`` (2N). A single-NUMA VM takes (cpu, mem) from that NUMA. A double-NUMA VM
takes half of each from *both* NUMAs of the PM, so **both** ``pm * 2`` and ``pm * 2 + 1`` are valid
for it and mean the same placement (as in the paper's action space and VMAgent's mask). A VM is
double when ``mem > params.double_mem_above`` or ``cpu >= params.double_cpu_from``; the default is
VMAgent's ``mem > 32`` (set ``double_mem_above = inf, double_cpu_from = 16`` for the cpu ≥ 16 branch).
An action outside the mask places nothing, pays 0 and terminates the episode (policies should obey
the mask; ending is the only choice that keeps the cluster's constraints and is visible in returns).

Rewards (static ``reward``): ``"placement"`` +1 per placed VM (VMAgent), so the undiscounted return
is the scheduled length; ``"allocation"`` the CPU allocation rate 1 − Σ remaining cpu / total cpu of
the state after the placement and the following deletes.

Same contract as :class:`jaxsched.envs.deeprm.env.DeepRM`: static shapes on the object, the trace is data
in ``EnvParams``; ``transition`` is the dynamics without the observation, ``step_env`` adds it.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from gymnax.environments import environment, spaces

from jaxsched.core.observe_once import ObserveOnceStep
from jaxsched.envs.equality import EqualByConfiguration
from jaxsched.envs.vm.trace import CREATE_EVENT, NO_EVENT, synthetic
from jaxsched.envs.vm.types import EnvParams, EnvState, Observation

REWARDS = ("placement", "allocation")
ADVANCE_CHUNK = 32  # trace rows read at a time while skipping deletes (see VmPlacement._advance)
NUM_FEATURES = 7  # per PM: cpu0, cpu1, mem0, mem1 remaining / capacity; request cpu, mem / capacity, double


def best_fit_scores(obs) -> jax.Array:
    """float32[2N] remaining-CPU ratio of the chosen NUMA after placing (a double VM: the larger
    of its PM's two NUMAs); +inf where infeasible. Lower is a tighter fit. Reshapes, not gathers,
    and ``maximum`` of the two NUMAs, not ``max(axis=-1)``: both several times faster on XLA:CPU."""
    single = (obs.cpu.reshape(-1) - obs.request_cpu) / obs.numa_cpu
    left = obs.cpu - 0.5 * obs.request_cpu
    double = jnp.repeat(jnp.maximum(left[:, 0], left[:, 1]), 2) / obs.numa_cpu
    score = jnp.where(obs.is_double, double, single)
    return jnp.where(obs.action_mask, score, jnp.inf)


def best_fit(key: jax.Array, obs) -> jax.Array:
    """The feasible action leaving the smallest remaining-CPU ratio; ties to the lowest index."""
    return jnp.argmin(best_fit_scores(obs)).astype(jnp.int32)


def mean_cpu_allocation(allocation_sum: jax.Array, placed: jax.Array, end_allocation: jax.Array) -> jax.Array:
    """The CVD-RL paper's "Average CPU Utilization" / "CpuAllo" of one episode: the CPU allocation
    rate averaged over the episode's time steps.

    The paper (Sec. 5.2, after VMAgent) defines it only as "the mean CPU utilization across all test
    scenarios"; its Fig. 8 is titled "Average CPU Allocation" and Fig. 9 plots the rate over time. We
    read it as: one time step per allocation request the agent serves (the paper's t), the rate
    1 − Σ remaining cpu / total cpu of the PMs in service after that placement and the deletes before
    the next request, averaged over the agent's placements (warm-start placements excluded), then
    averaged over test episodes like every metric. ``allocation_sum`` is Σ of those per-step rates,
    i.e. the undiscounted return under the ``"allocation"`` reward. An episode with no placement
    has no time step: its value is ``end_allocation``, the rate it starts and ends at."""
    return jnp.where(placed > 0, allocation_sum / jnp.maximum(placed, 1), end_allocation)


class VmPlacement(EqualByConfiguration, ObserveOnceStep, environment.Environment[EnvState, EnvParams]):
    """N double-NUMA PMs fed a window of a VM trace; the agent picks a NUMA (or PM) per create."""

    def __init__(self, num_pms: int = 5, reward: str = "placement"):
        super().__init__()
        if reward not in REWARDS:
            raise ValueError(f"unknown reward {reward!r}; choose one of {', '.join(REWARDS)}")
        if int(num_pms) < 1:
            raise ValueError(f"num_pms must be >= 1, got {num_pms}")
        self.num_pms, self.reward_kind = int(num_pms), reward

    instance_field = "requests"  # the episode's trace window in the state (see jaxsched.core.rollout)

    @property
    def name(self) -> str:
        return "VmPlacement"

    @property
    def num_actions(self) -> int:
        return 2 * self.num_pms

    @property
    def default_params(self) -> EnvParams:
        """Params with a small synthetic trace (seed 0), so the env runs as made."""
        return EnvParams(requests=synthetic(jax.random.PRNGKey(0), 200))

    # ------------------------------------------------------------------ dynamics
    def initial_state(self, params: EnvParams) -> EnvState:
        """Empty cluster at the first create (earlier deletes are no-ops), warm-started if asked."""
        requests = params.requests
        length = requests.length
        initial_pms = jnp.asarray(params.initial_pms, jnp.int32)
        state = EnvState(
            time=jnp.int32(0), pos=jnp.int32(-1),
            cpu=jnp.full((self.num_pms, 2), params.numa_cpu, jnp.float32),
            mem=jnp.full((self.num_pms, 2), params.numa_mem, jnp.float32),
            placed_pm=jnp.full((length,), -1, jnp.int32),
            taken=jnp.zeros((length, 4), jnp.float32),
            placed=jnp.int32(0),
            active=jnp.where(initial_pms > 0, jnp.minimum(initial_pms, self.num_pms), self.num_pms),
            income=jnp.float32(0.0), requests=requests)
        state = self._warm_start(self._advance(state), params)
        state, _ = self._expand(state.replace(time=jnp.int32(0), placed=jnp.int32(0), income=jnp.float32(0.0)),
                                params)
        return state

    def _warm_start(self, state: EnvState, params: EnvParams) -> EnvState:
        """Best-Fit places creates until ``warm_start`` of the in-service CPU is allocated."""
        def filling(state):
            return (self.cpu_allocation(state, params) < params.warm_start) & jnp.any(self.feasible(state, params))

        def place(state):
            action = best_fit(None, self.get_obs(state, params))
            return self._advance(self._place(state, action, params))

        return jax.lax.while_loop(filling, place, state)

    def _expand(self, state: EnvState, params: EnvParams) -> tuple[EnvState, jax.Array]:
        """Adds ``pms_per_expansion`` PMs at a time while the next create fits nowhere; returns the
        state and its feasibility mask (computed once here, reused for ``terminated``)."""
        step = jnp.maximum(jnp.asarray(params.pms_per_expansion, jnp.int32), 1)
        _, _, _, exists = self._request(state, params)

        def overflowing(carry):
            active, mask = carry
            return exists & (active < self.num_pms) & ~jnp.any(mask)

        def add_pms(carry):
            active = jnp.minimum(carry[0] + step, self.num_pms)
            return active, self.feasible(state.replace(active=active), params)

        active, mask = jax.lax.while_loop(overflowing, add_pms, (state.active, self.feasible(state, params)))
        return state.replace(active=active), mask

    def transition(self, state: EnvState, action: Any, params: EnvParams):
        """``(state, reward, terminated, info)``; deterministic (all randomness is in the trace)."""
        action = jnp.asarray(action, jnp.int32)
        mask = self.feasible(state, params)
        valid = (action >= 0) & (action < self.num_actions) & mask[jnp.clip(action, 0, self.num_actions - 1)]
        # masked updates rather than a select between two whole states: under vmap a select copies
        # every trace-sized field each step, the masked place/advance touch one row and a few more
        placed_state = self._advance(self._place(state, action, params, valid), go=valid)
        next_state, next_mask = self._expand(placed_state, params)
        next_state = next_state.replace(time=state.time + 1)
        allocation = self.cpu_allocation(next_state, params)
        if self.reward_kind == "placement":
            reward = valid.astype(jnp.float32)
        else:
            reward = jnp.where(valid, allocation, 0.0).astype(jnp.float32)
        terminated = ~valid | ~jnp.any(next_mask)
        info = {"placed": valid, "cpu_allocation": allocation}
        return next_state, reward, terminated, info

    def with_reward(self, reward: str) -> "VmPlacement":
        """The same cluster with another reward (the dynamics do not depend on it)."""
        return VmPlacement(self.num_pms, reward)

    def is_truncated(self, state: EnvState, params: EnvParams) -> jax.Array:
        return state.time >= params.max_steps_in_episode

    def cpu_allocation(self, state: EnvState, params: EnvParams) -> jax.Array:
        """1 − Σ remaining cpu / total cpu, over the PMs in service."""
        in_service = (jnp.arange(self.num_pms) < state.active)[:, None]
        return 1.0 - jnp.sum(jnp.where(in_service, state.cpu, 0.0)) / (2 * state.active * params.numa_cpu)

    def metrics(self, state: EnvState, params: EnvParams) -> dict[str, jax.Array]:
        """Scheduled length, end-of-episode CPU allocation rate, income, PMs in service."""
        return {"scheduled_length": state.placed, "cpu_allocation": self.cpu_allocation(state, params),
                "income": state.income, "active_pms": state.active}

    def _request(self, state: EnvState, params: EnvParams):
        """(cpu, mem, is_double, exists) of the create at ``state.pos``."""
        requests = state.requests
        row = jnp.clip(state.pos, 0, requests.length - 1)
        exists = (state.pos >= 0) & (state.pos < requests.length)
        cpu = jnp.where(exists, requests.cpu[row], 0.0)
        mem = jnp.where(exists, requests.mem[row], 0.0)
        double = (mem > params.double_mem_above) | (cpu >= params.double_cpu_from)
        return cpu, mem, double & exists, exists

    def _demand(self, state: EnvState, params: EnvParams):
        """float32[N·2 actions, 2 NUMAs] cpu and mem each action takes from the PM's two NUMAs."""
        cpu, mem, double, _ = self._request(state, params)
        numa = jnp.arange(self.num_actions) % 2
        share = jnp.where(double, jnp.full((self.num_actions, 2), 0.5),
                          jax.nn.one_hot(numa, 2, dtype=jnp.float32))
        return share * cpu, share * mem

    def feasible(self, state: EnvState, params: EnvParams) -> jax.Array:
        """bool[2N]: the action's NUMA (a double VM: both NUMAs of its PM) can take the demand.

        Written per [N, 2] NUMA and flattened (action ``pm * 2 + numa``), without gathers: this runs
        every step, and XLA:CPU's gathers and size-2 reductions cost several times an elementwise op."""
        cpu, mem, double, exists = self._request(state, params)
        single = (state.cpu >= cpu) & (state.mem >= mem)
        half = (state.cpu >= 0.5 * cpu) & (state.mem >= 0.5 * mem)
        fits = jnp.where(double, (half[:, 0] & half[:, 1])[:, None], single)
        in_service = (jnp.arange(self.num_pms) < state.active)[:, None]
        return (fits & in_service & exists).reshape(-1)

    def _place(self, state: EnvState, action, params: EnvParams, valid=True) -> EnvState:
        """Puts the create at ``pos`` on ``action``; changes nothing where ``valid`` is False."""
        action = jnp.clip(action, 0, self.num_actions - 1)
        need_cpu, need_mem = self._demand(state, params)
        pm, row = action // 2, jnp.clip(state.pos, 0, state.requests.length - 1)
        cpu, mem, _, _ = self._request(state, params)
        hourly = params.price_per_cpu_hour * cpu + params.price_per_gb_hour * mem
        lifetime_h = state.requests.duration[row] / 3600.0
        take_cpu, take_mem = need_cpu[action] * valid, need_mem[action] * valid
        return state.replace(
            income=state.income + jnp.where(valid, hourly * lifetime_h, 0.0),
            cpu=state.cpu.at[pm].add(-take_cpu), mem=state.mem.at[pm].add(-take_mem),
            placed_pm=state.placed_pm.at[row].set(jnp.where(valid, pm, state.placed_pm[row])),
            taken=state.taken.at[row].set(jnp.where(valid, jnp.concatenate([take_cpu, take_mem]), state.taken[row])),
            placed=state.placed + jnp.asarray(valid, jnp.int32))

    def _advance(self, state: EnvState, go=True) -> EnvState:
        """Moves past ``pos`` to the next valid create (or the end, ``pos = L``), applying the deletes
        in between; stays put where ``go`` is False.

        Rows are read ``ADVANCE_CHUNK`` at a time and a chunk's deletes applied at once (a scatter).
        The first chunk is straight-line code and covers almost every gap between two creates; the
        ``while_loop`` after it runs only while some episode of a vmapped batch has a longer gap (a
        batched loop runs all episodes as long as one needs it, and selects its whole carry each
        time). So the loop carries only the cursor and the capacities: ``placed_pm`` is read, never
        written (each delete row is passed once, so its create needs no clearing)."""
        requests = state.requests
        length = requests.length
        chunk = min(ADVANCE_CHUNK, length)
        offsets = jnp.arange(chunk)

        def read_chunk(carry, go=True):
            """Rows ``last + 1 ...``: the chunk's deletes before its first create are applied (none where
            ``go`` is False, which only the first chunk can be: the loop runs only while searching)."""
            last, room, _ = carry
            rows = last + 1 + offsets
            event = jnp.where(rows < length, requests.event[jnp.clip(rows, 0, length - 1)], NO_EVENT)
            create = event == CREATE_EVENT
            found = jnp.any(create)
            first = jnp.where(found, jnp.argmax(create), chunk)
            created = jnp.clip(event, 0, length - 1)
            pm = state.placed_pm[created]
            free = go & (offsets < first) & (event >= 0) & (pm >= 0)
            room = room.at[jnp.where(free, pm, self.num_pms)].add(state.taken[created], mode="drop")
            result = jnp.where(found, last + 1 + first, jnp.where(last + chunk >= length - 1, length, -1))
            return last + chunk, room, result

        room = jnp.concatenate([state.cpu, state.mem], axis=-1)  # [N, 4] as ``taken``'s columns
        last, room, pos = read_chunk((state.pos, room, jnp.int32(-1)), go)
        pos = jnp.where(go, pos, state.pos)
        _, room, pos = jax.lax.while_loop(lambda carry: carry[-1] < 0, read_chunk, (last, room, pos))
        return state.replace(pos=pos, cpu=room[:, :2], mem=room[:, 2:])

    # ------------------------------------------------------------------ observation
    def get_obs(self, state: EnvState, params: EnvParams | None = None, key=None) -> Observation:
        cpu, mem, double, _ = self._request(state, params)
        request = jnp.stack([cpu / params.numa_cpu, mem / params.numa_mem, double.astype(jnp.float32)])
        cluster = jnp.concatenate([state.cpu / params.numa_cpu, state.mem / params.numa_mem], axis=-1)
        features = jnp.concatenate([cluster, jnp.broadcast_to(request, (self.num_pms, 3))], axis=-1)
        return Observation(features=features.astype(jnp.float32), action_mask=self.feasible(state, params),
                           cpu=state.cpu, mem=state.mem, request_cpu=cpu, request_mem=mem, is_double=double,
                           numa_cpu=jnp.float32(params.numa_cpu), numa_mem=jnp.float32(params.numa_mem))

    # ------------------------------------------------------------------ spaces
    def action_space(self, params: EnvParams | None = None) -> spaces.Discrete:
        return spaces.Discrete(self.num_actions)

    def feature_shape(self) -> tuple[int, ...]:
        return (self.num_pms, NUM_FEATURES)

    def observation_space(self, params: EnvParams | None = None) -> spaces.Dict:
        n = self.num_pms
        return spaces.Dict({
            "features": spaces.Box(0.0, 1e4, (n, NUM_FEATURES), jnp.float32),
            "action_mask": spaces.Box(0, 1, (2 * n,), jnp.bool_),
            "cpu": spaces.Box(0.0, 1e4, (n, 2), jnp.float32),
            "mem": spaces.Box(0.0, 1e6, (n, 2), jnp.float32),
        })
