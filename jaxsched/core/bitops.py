"""Bit-parallel counting for the environments' small per-step vectors.

XLA:CPU lowers a cumulative sum to log2(n) shifted adds over the whole vector; for the flags of a few
dozen slots, packing them into 32-bit words and counting bits is several times cheaper (the DeepRM
step's arrival placement at M = 50 spent most of its time in one ``cumsum``; issue 22).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

WORD = 32


def count_before(flags: jax.Array) -> jax.Array:
    """int32[n]: how many of ``flags`` (bool[n]) are set at positions before each one."""
    n = flags.shape[-1]
    words = -(-n // WORD)
    position = jnp.arange(n)
    bits = jnp.left_shift(jnp.uint32(1), (position % WORD).astype(jnp.uint32))
    total = jnp.zeros(flags.shape, jnp.int32)
    for w in range(words):
        in_word = (position // WORD) == w
        word = jnp.sum(jnp.where(flags & in_word, bits, jnp.uint32(0)), axis=-1, dtype=jnp.uint32, keepdims=True)
        # word w's bits below each position: all of them for later words, the lower ones in the word itself
        below = jnp.where(position // WORD > w, jnp.uint32(0xFFFFFFFF),
                          jnp.where(in_word, bits - jnp.uint32(1), jnp.uint32(0)))
        total = total + jax.lax.population_count(word & below).astype(jnp.int32)
    return total
