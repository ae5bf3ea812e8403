"""RGB frames of any family's state: ``render_state`` for one state, ``render_rollout`` for the stacked
states of a jitted ``lax.scan`` rollout (a notebook's video), numpy only.

``env`` is a family env (``jaxsched.make(name)[0]``), the gymnax env of ``jaxsched.make_gymnax(name)``
or any wrapper that keeps the wrapped env as ``inner`` or ``_env``; a wrapper's state that keeps the
family's state as ``env_state`` is unwrapped too. Each family draws itself in its ``viewer`` module
(DeepRM: the cluster and job-slot image of the paper's Fig. 1; VM: each PM's NUMA occupancy; grid:
the cores and the queue). A frame's size depends only on the env's settings, so frames stack.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, NamedTuple

import jax
import numpy as np

from jaxsched.core import canvas
from jaxsched.envs.deeprm import viewer as deeprm_viewer
from jaxsched.envs.deeprm.env import DeepRM
from jaxsched.envs.deeprm.types import EnvState as DeepRMState
from jaxsched.envs.grid import viewer as grid_viewer
from jaxsched.envs.grid.env import GridSite
from jaxsched.envs.grid.types import EnvParams as GridParams, EnvState as GridState
from jaxsched.envs.vm import viewer as vm_viewer
from jaxsched.envs.vm.env import VmPlacement
from jaxsched.envs.vm.types import EnvParams as VmParams, EnvState as VmState


class Viewer(NamedTuple):
    """How a family is drawn: its viewer module (``render``, ``load``, ``layout``), its state type and
    the params used when none are given (only constants are read from them: NUMA capacities, priors)."""

    module: ModuleType
    state_type: type
    default_params: Any


VIEWERS: dict[type, Viewer] = {
    DeepRM: Viewer(deeprm_viewer, DeepRMState, None),
    VmPlacement: Viewer(vm_viewer, VmState, VmParams()),
    GridSite: Viewer(grid_viewer, GridState, GridParams()),
}
STRIP_HEIGHT, STRIP_PLOT = 30, 16  # the time strip under a rollout's frames, and its plot's height (pixels)
STRIP_PAST, STRIP_CURSOR = (31, 119, 180), (214, 39, 40)


def _wrapped(env):
    """The env a wrapper keeps (jaxsched's ``inner``, gymnax wrappers' ``_env``), or None."""
    inner = getattr(env, "inner", None)
    return getattr(env, "_env", None) if inner is None else inner


def family_env(env):
    """The family env inside ``env`` (itself, or what wrappers keep as ``inner`` / ``_env``)."""
    seen = env
    while not isinstance(env, tuple(VIEWERS)):
        inner = _wrapped(env)
        if inner is None:
            raise TypeError(f"cannot render {type(seen).__name__}: not a jaxsched family env "
                            f"({', '.join(c.__name__ for c in VIEWERS)}) or a wrapper of one")
        env = inner
    return env


def _params_for(env, params):
    """``params`` or, when None, the outermost variant's params (``make_gymnax``'s env keeps its
    variant), else the family's default constants (NUMA capacities, prior runtimes)."""
    if params is not None:
        return params
    while env is not None:
        variant = getattr(env, "variant", None)
        if variant is not None:
            return variant.params
        env = _wrapped(env)
    return None


def _host_state(env, viewer: Viewer, state, batch_dims: int):
    """The family state on the host, checked to have ``batch_dims`` leading axes."""
    while hasattr(state, "env_state"):
        state = state.env_state
    if not isinstance(state, viewer.state_type):
        raise TypeError(f"expected a {env.name} state, got {type(state).__name__}")
    shape = np.shape(state.time)
    if len(shape) != batch_dims:
        what = "one state" if batch_dims == 0 else "states stacked along one leading (time) axis"
        raise ValueError(f"{what} expected, got leading shape {shape}: index the batch first")
    return jax.device_get(state)


def _viewer(env, params):
    """(the family env, its Viewer, the params to draw with)."""
    family = family_env(env)
    viewer = next(value for cls, value in VIEWERS.items() if isinstance(family, cls))
    params = _params_for(env, params)
    return family, viewer, viewer.default_params if params is None else params


def render_state(env, state, params=None) -> np.ndarray:
    """uint8[H, W, 3]: one state of ``env`` drawn (host or device arrays; ``params`` as the env's)."""
    family, viewer, params = _viewer(env, params)
    return viewer.module.render(family, _host_state(family, viewer, state, 0), params)


def render_rollout(env, states, params=None, time_strip: bool = True) -> np.ndarray:
    """uint8[T, H, W, 3]: each of ``states`` (a pytree stacked along a leading time axis, as a
    ``lax.scan`` returns it) drawn; ``time_strip`` adds a strip under each frame plotting the
    family's load over the whole rollout (cluster in use, CPU allocated, cores busy) with the frame's
    step marked."""
    family, viewer, params = _viewer(env, params)
    host = _host_state(family, viewer, states, 1)
    steps = int(np.shape(host.time)[0])
    if steps == 0:
        raise ValueError("no states to render: the rollout is empty")
    each = [jax.tree.map(lambda x, t=t: x[t], host) for t in range(steps)]
    frames = np.stack([viewer.module.render(family, state, params) for state in each])
    if not time_strip:
        return frames
    loads = np.array([viewer.module.load(family, state, params) for state in each])
    return np.concatenate([frames, _strips(loads, frames.shape[2])], axis=1)


def _strips(loads: np.ndarray, width: int) -> np.ndarray:
    """uint8[T, STRIP_HEIGHT, width, 3]: the load of every step as columns (the steps up to the frame's
    in colour, later ones grey), a cursor at the frame's step and its number."""
    steps, left = len(loads), 4
    plot_width = max(width - 2 * left - canvas.text_width(f"{steps}/{steps}") - 6, 1)
    step_of = (np.arange(plot_width) * steps) // plot_width  # plot column -> the (first) step it shows
    heights = np.round(np.clip(loads, 0.0, 1.0) * STRIP_PLOT).astype(int)[step_of]
    base = canvas.blank(STRIP_HEIGHT, width)
    top = STRIP_HEIGHT - 4 - STRIP_PLOT
    canvas.fill(base, top, left, STRIP_PLOT, plot_width, canvas.FREE)
    lit = np.arange(STRIP_PLOT)[:, None] >= STRIP_PLOT - heights[None, :]  # [plot rows, plot columns]
    strips = np.repeat(base[None], steps, axis=0)
    for t in range(steps):
        region = strips[t, top:top + STRIP_PLOT, left:left + plot_width]
        region[lit] = canvas.MUTED
        region[lit & (step_of <= t)[None, :]] = STRIP_PAST
        cursor = min(int(np.searchsorted(step_of, t, side="right")) - 1, plot_width - 1)  # the column showing t
        region[:, cursor:cursor + 1] = STRIP_CURSOR
        canvas.draw_text(strips[t], top + (STRIP_PLOT - canvas.GLYPH_HEIGHT) // 2, left + plot_width + 6,
                         f"{t + 1}/{steps}")
    return strips
