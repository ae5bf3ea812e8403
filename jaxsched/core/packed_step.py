"""One environment stepped from Python at the cost of one dispatch: the state packed into one buffer.

A jitted ``env.step`` called once per Python step pays for every array it takes and returns (the
state and params pytrees, ~30 buffers, flattened and allocated on every call), not for the dynamics.
:class:`PackedStep` keeps the episode in one ``uint32`` word buffer (the state, the params and, with
``auto_reset``, the key, each leaf bit-cast into words with a layout fixed once: :class:`WordLayout`),
donated so that XLA updates it in place, and returns what the caller reads in one ``float32`` array,
the flat observation (features then the action mask, :func:`jaxsched.gymnax_env.flatten_observation`)
followed by reward, terminated and truncated. The dynamics are the :class:`FlatObservationEnv`'s own
(``step_env`` / ``reset_env`` / gymnax's ``step``): only the way arguments travel changes, so the
observations, rewards and flags are those of the unpacked env bit for bit.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

WORD = jnp.uint32
_UNSIGNED = {1: jnp.uint8, 2: jnp.uint16, 4: jnp.uint32}


class WordLayout:
    """Where each array leaf of a pytree lies in one ``uint32`` buffer, bit for bit: 32-bit leaves
    bit-cast word for word, 8- and 16-bit leaves (bool included) four or two to a word, typed PRNG keys
    by their key data. Python numbers and weakly typed scalars (:func:`_is_static`) are kept here, not packed."""

    def __init__(self, example):
        leaves, self.treedef = jax.tree.flatten(example)
        self.fields, self.static, offset = [], [], 0
        for index, leaf in enumerate(leaves):
            if _is_static(leaf):
                self.static.append((index, _static_value(leaf)))
                continue
            key_impl = jax.random.key_impl(leaf) if jnp.issubdtype(leaf.dtype, jax.dtypes.prng_key) else None
            data = jax.eval_shape(jax.random.key_data, leaf) if key_impl is not None else leaf
            if getattr(leaf, "weak_type", False):
                raise ValueError(f"leaf {index} is a weakly typed {leaf.shape} array: packing would change its "
                                 "type promotion")
            itemsize = 1 if data.dtype == jnp.bool_ else np.dtype(data.dtype).itemsize
            if itemsize not in _UNSIGNED:
                raise ValueError(f"leaf {index} has dtype {data.dtype}: only 8-, 16- and 32-bit leaves pack into words")
            words = math.ceil(math.prod(data.shape) * itemsize / 4)
            self.fields.append((index, offset, words, itemsize, data.shape, data.dtype, key_impl))
            offset += words
        self.num_leaves, self.size = len(leaves), offset

    def pack(self, tree) -> jax.Array:
        """uint32[size]: ``tree``'s array leaves (traceable)."""
        leaves = jax.tree.leaves(tree)
        chunks = [_to_words(leaves[index], itemsize, key_impl)
                  for index, _, _, itemsize, _, _, key_impl in self.fields]
        return jnp.concatenate(chunks) if chunks else jnp.zeros(0, WORD)

    def unpack(self, words: jax.Array):
        """The pytree :meth:`pack` packed (traceable)."""
        leaves = [None] * self.num_leaves
        for index, value in self.static:
            leaves[index] = value
        for index, offset, count, itemsize, shape, dtype, key_impl in self.fields:
            leaves[index] = _from_words(words[offset:offset + count], itemsize, shape, dtype, key_impl)
        return jax.tree.unflatten(self.treedef, leaves)


def _to_words(leaf, itemsize: int, key_impl) -> jax.Array:
    if key_impl is not None:
        leaf = jax.random.key_data(leaf)
    flat = jnp.ravel(leaf)
    if flat.dtype == jnp.bool_:
        flat = flat.astype(jnp.uint8)
    flat = jax.lax.bitcast_convert_type(flat, _UNSIGNED[itemsize])
    if itemsize == 4:
        return flat
    per_word = 4 // itemsize
    flat = jnp.pad(flat, (0, -flat.shape[0] % per_word))
    return jax.lax.bitcast_convert_type(flat.reshape(-1, per_word), WORD)


def _from_words(words, itemsize: int, shape, dtype, key_impl):
    count = math.prod(shape)
    if itemsize == 4:
        flat = words
    else:
        flat = jax.lax.bitcast_convert_type(words, _UNSIGNED[itemsize]).reshape(-1)[:count]
    if dtype == jnp.bool_:
        leaf = (flat != 0).reshape(shape)
    else:
        leaf = jax.lax.bitcast_convert_type(flat, dtype).reshape(shape)
    return jax.random.wrap_key_data(leaf, impl=key_impl) if key_impl is not None else leaf


def _is_static(leaf) -> bool:
    """Python numbers, and weakly typed scalars (constants such as ``jnp.asarray(0.5)`` in params), which
    behave in every type promotion as the Python number they hold: compiled in, not packed."""
    return not hasattr(leaf, "dtype") or (getattr(leaf, "weak_type", False) and leaf.shape == ()
                                          and not isinstance(leaf, jax.core.Tracer))


def _static_value(leaf):
    return leaf.item() if hasattr(leaf, "dtype") else leaf


def signature(tree) -> tuple:
    """What a :class:`WordLayout` of ``tree`` depends on: its structure, array shapes and dtypes and the
    values of its static leaves; equal signatures share one compiled :class:`PackedStep`."""
    leaves, treedef = jax.tree.flatten(tree)
    return treedef, tuple(("static", _static_value(leaf)) if _is_static(leaf) else (leaf.shape, leaf.dtype)
                          for leaf in leaves)


class PackedStep:
    """``reset(key, params) -> (packed, out)`` and ``step(packed, action) -> (packed, out)``, both jitted,
    ``packed`` the episode in one uint32 buffer (donated to ``step``), ``out`` float32
    ``[observation..., reward, terminated, truncated]`` (module docstring). ``params`` fixes the layout
    (:func:`signature`); reset with params of another signature needs another :class:`PackedStep`.

    Without ``auto_reset`` the step is the env's ``step_env`` (the caller resets after an episode ends,
    as Gymnasium asks); with it, the buffer also carries a key, split on every step as
    ``key, step_key = split(key)``, and the step is gymnax's ``env.step(step_key, ...)`` (a fresh episode
    after ``terminated or truncated``, ``out`` then holding its first observation)."""

    def __init__(self, env, params, auto_reset: bool = False):
        self.env, self.auto_reset = env, bool(auto_reset)
        self.num_obs = env.num_features + env.num_actions
        key = jax.random.key(0)
        state = jax.eval_shape(env.reset_env, key, params)[1]
        self.layout = WordLayout(self._episode(state, params, key))
        self.reset = jax.jit(self._reset)
        self.step = jax.jit(self._step, donate_argnums=0)
        self.state = jax.jit(self._state)

    def _episode(self, state, params, key):
        return (state, params, key) if self.auto_reset else (state, params)

    @staticmethod
    def _out(obs, reward, terminated, truncated) -> jax.Array:
        flags = jnp.stack([jnp.asarray(reward).astype(jnp.float32), terminated.astype(jnp.float32),
                           truncated.astype(jnp.float32)])
        return jnp.concatenate([obs, flags])

    def _reset(self, key, params):
        """The env's ``reset(reset_key, params)`` packed, ``reset_key, carried = split(key)`` with auto-reset
        (``key`` itself without)."""
        reset_key, carried = jax.random.split(key) if self.auto_reset else (key, None)
        obs, state = self.env.reset_env(reset_key, params)
        false = jnp.zeros((), jnp.bool_)
        return self.layout.pack(self._episode(state, params, carried)), self._out(obs, 0.0, false, false)

    def _step(self, packed, action):
        # The barriers keep XLA from fusing the unpacking and packing into the env's own computations:
        # a reduction fused with a word slice may sum in another order than gymnax's step does.
        episode = jax.lax.optimization_barrier(self.layout.unpack(packed))
        state, params = episode[:2]
        if self.auto_reset:
            key, step_key = jax.random.split(episode[2])
            obs, state, reward, terminated, truncated, _ = self.env.step(step_key, state, action, params)
        else:
            key = None
            obs, state, reward, terminated, _ = self.env.step_env(None, state, action, params)
            truncated = self.env.is_truncated(state, params)
        episode, obs, reward, terminated, truncated = jax.lax.optimization_barrier(
            (self._episode(state, params, key), obs, reward, terminated, truncated))
        return self.layout.pack(episode), self._out(obs, reward, terminated, truncated)

    def _state(self, packed):
        """The env state held in ``packed`` (jitted as ``state``: for inspection and rendering; not on the
        hot path)."""
        return self.layout.unpack(packed)[0]
