"""The environment cards (docs/envs/<family>.md): one per registered family, their generated tables match
the code, every registered name is on a card, and each card's usage example runs."""

from __future__ import annotations

import pytest

from jaxsched import env_cards
from jaxsched.registry import FAMILIES, registered


def test_every_registered_family_has_a_card():
    assert {f.variants for f in env_cards.FAMILIES} >= set(FAMILIES)
    for family in env_cards.FAMILIES:
        assert env_cards.card_path(family).exists(), family.name


def test_every_registered_name_is_on_its_card():
    text = "".join(env_cards.card_path(f).read_text() for f in env_cards.FAMILIES)
    missing = [name for name in registered() if f"| `{name}` |" not in text]
    assert not missing, f"not on a card: {missing}"


@pytest.mark.parametrize("family", env_cards.FAMILIES, ids=lambda f: f.name)
def test_generated_tables_are_current(family):
    text = env_cards.card_path(family).read_text()
    assert env_cards.with_generated(text, family) == text, \
        f"{env_cards.card_path(family)} is stale: python -m jaxsched.env_cards"


@pytest.mark.parametrize("family", env_cards.FAMILIES, ids=lambda f: f.name)
def test_usage_example_runs(family, capsys):
    """The card's example runs (its own asserts included) and prints its one closing line."""
    example = env_cards.first_python_block(env_cards.card_path(family).read_text())
    assert "assert " in example and "print(" in example
    namespace = {"__name__": "card_example"}
    exec(compile(example, str(env_cards.card_path(family)), "exec"), namespace)
    printed = capsys.readouterr().out.strip().splitlines()
    assert len(printed) == 1 and printed[0], printed
    assert {"env", "params", "obs", "state"} <= set(namespace)


def test_field_comments_read_inline_and_preceding_comments():
    class Example:
        plain: int = 3  # inline
        # above, line one
        # line two
        described: float = 1.0
        bare: str

    assert env_cards.field_comments(Example) == [("plain", "3", "inline"),
                                                 ("described", "1.0", "above, line one line two"), ("bare", "", "")]
