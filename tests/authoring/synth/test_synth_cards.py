"""Scenario cards: the shipped examples, the defaults, and one-line errors for bad cards."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_revprop.authoring.synth.cards import (
    EXAMPLE_CARDS,
    PATTERN_DESCRIPTIONS,
    example_card_text,
    load_card,
    parse_card,
)
from pytest_revprop.errors import UserError
from pytest_revprop.vocabulary import PATTERNS

MINIMAL = """
domain = "invoice"
theme = "More hours raise the total"
conversation = "hours, rate, total"
edit = "the hours change"
cascade = "arithmetic"
size = 10
"""


def test_every_pattern_has_a_description_for_the_writer() -> None:
    assert set(PATTERN_DESCRIPTIONS) == set(PATTERNS)


@pytest.mark.parametrize("name", EXAMPLE_CARDS)
def test_the_example_cards_load(name: str) -> None:
    card = parse_card(example_card_text(name), Path(f"{name}.toml"))
    assert (card.id, card.size, card.split) == (name, 10, "test")
    assert card.cascade_text.startswith(f"{card.pattern}: ")


def test_a_card_takes_its_id_from_its_file_and_defaults_from_its_size(tmp_path: Path) -> None:
    path = tmp_path / "My Card.toml"
    path.write_text(MINIMAL.replace("size = 10", "size = 50"))
    card = load_card(path)
    assert card.id == "my-card"
    assert (card.leaves_per_turn, card.max_turns, card.tolerance) == (10, 8, 5)
    assert card.source == path


def test_a_free_text_cascade_is_filed_under_its_pattern() -> None:
    text = MINIMAL.replace('cascade = "arithmetic"', 'cascade = "fees follow the tier"')
    card = parse_card(text + 'pattern = "threshold"\nid = "x"')
    assert (card.pattern, card.cascade_text) == ("threshold", "fees follow the tier")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("size = 10", "size = 10\ncolour = 1"), "unknown key 'colour'"),
        (('domain = "invoice"', ""), "missing key 'domain'"),
        (('domain = "invoice"', 'domain = "Invoice Things"'), "domain must be snake_case"),
        (('theme = "More hours raise the total"', 'theme = """a\nb"""'), "theme must be one line"),
        (("size = 10", "size = 2"), "size must be >= 3, got 2"),
        (("size = 10", 'size = "ten"'), "size must be a whole number"),
        (("size = 10", "size = true"), "size must be a whole number"),
        (('cascade = "arithmetic"', 'cascade = "free words"'), "pattern = one of arithmetic"),
        (
            ("size = 10", 'size = 10\npattern = "threshold"'),
            "cascade is 'arithmetic' but pattern says",
        ),
        (("size = 10", 'size = 10\nsplit = "train"'), "split must be one of dev, test"),
        (("size = 10", "size = 10\ntolerance = -1"), "tolerance must be >= 0"),
        (("size = 10", 'size = 10\nid = "Bad_Id"'), "id must be kebab-case"),
        (('edit = "the hours change"', 'edit = "  "'), "edit must not be empty"),
        (("size = 10", "size = [10"), "not valid TOML"),
    ],
)
def test_a_bad_card_is_one_line_naming_the_file_and_key(
    tmp_path: Path, change: tuple[str, str], message: str
) -> None:
    path = tmp_path / "card.toml"
    path.write_text(MINIMAL.replace(*change))
    with pytest.raises(UserError) as info:
        load_card(path)
    assert str(info.value).startswith(f"card {path}: ")
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_a_missing_card_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no such file"):
        load_card(tmp_path / "nope.toml")
