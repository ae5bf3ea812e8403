"""Pieces every environment shares."""

from __future__ import annotations

import jax
import jax.numpy as jnp


def select_fields(pred: jax.Array, on_true, on_false, constant: str):
    """``where(pred, on_true, on_false)`` over a state dataclass, field by field, except the field
    ``constant`` (the episode's instance data, identical in both), which is shared rather than copied."""
    shared = getattr(on_false, constant)
    chosen = jax.tree.map(lambda a, b: jnp.where(pred, a, b), on_true.replace(**{constant: None}),
                          on_false.replace(**{constant: None}))
    return chosen.replace(**{constant: shared})
