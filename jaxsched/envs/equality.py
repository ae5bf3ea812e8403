"""Environments equal by configuration, so that compiled programs are shared between equal ones.

An environment object holds only static configuration (shapes, reward and observation kinds): its
instances (jobsets, request windows) are data in the params. Compiled programs that take the env as a
static argument (the evaluator, :func:`jaxsched.core.rollout.make_evaluator`) are cached by its hash
and equality; with Python's default identity, every ``build`` of the same setting (one per load of
``evaluate --loads``, one per cell of a sweep, one per CLI command in a notebook) compiled them again.
"""

from __future__ import annotations


class EqualByConfiguration:
    """Mixin: two envs are equal (and hash alike) when they are of the same class with the same
    attributes. Every attribute is set once in ``__init__`` and never changed, and must be hashable."""

    def _configuration(self) -> tuple:
        return tuple(sorted(vars(self).items()))

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and other._configuration() == self._configuration()

    def __hash__(self) -> int:
        return hash((type(self).__qualname__, self._configuration()))
