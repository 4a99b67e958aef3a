"""Scenario cards: the TOML file in which a person asks for a case, read and checked here.

A card says what the case is about (domain, theme), how the user builds the document (the
conversation pattern), what the final request changes (the edit), how that change travels
(the cascade: one of the six patterns, or free text with a ``pattern`` to file it under),
how big the document is to grow, and whether the case goes on as a chain: ``followups``
lists the later revisions the user asks for (each described as ``edit`` describes the
first), or is a number N of later revisions the writer proposes in the card's domain.
Every problem is one ``UserError`` naming the file and the key. The shipped example cards
sit beside this module in ``cards/``; docs/synth.md lists every key.
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from pytest_revprop.errors import UserError
from pytest_revprop.vocabulary import PATTERNS, SPLITS

CARD_KEYS = (
    "id", "domain", "theme", "conversation", "edit", "cascade", "pattern", "size", "sizes",
    "split", "notes", "max_turns", "leaves_per_turn", "tolerance", "followups",
)  # fmt: skip
REQUIRED_KEYS = ("domain", "theme", "conversation", "edit", "cascade", "size")
"""Keys a card must have (``sizes``, a list of sizes, may stand for ``size``)."""
MIN_SIZE = 3
"""The smallest document worth a revision: the edited value, one dependent, one bystander."""
MAX_FOLLOWUPS = 10
"""The most follow-ups a card may ask for (each costs a request and the gold samples)."""
EXAMPLE_CARDS = ("invoice-discount", "travel-delay")
"""The commented cards shipped in ``cards/``; the first is ``revprop synth --example``'s."""

PATTERN_DESCRIPTIONS: dict[str, str] = {
    "arithmetic": (
        "values computed from the edited one (sums, products, percentages, conversions) "
        "change, and so do the values computed from those, to the end of the chain"
    ),
    "substitution": (
        "the edit swaps one entity (a supplier, a venue, an owner) for another: everything "
        "that names, copies or points to the old entity takes the new one's details"
    ),
    "add_remove": (
        "the edit adds or removes one element of a list: counts, totals and anything that "
        "lists or summarises the elements follow"
    ),
    "threshold": (
        "the edit moves a value across a limit or band stated in the conversation: the "
        "statuses, tiers, fees or policies tied to that limit switch"
    ),
    "temporal": (
        "the edit moves a date or time: dates, deadlines and durations defined relative to "
        "it move with it"
    ),
    "status_flip": (
        "the edit changes a state (approved, active, enabled): the values that the state "
        "governs switch to what the new state requires"
    ),
}
"""What each propagation pattern means, in the words the writer prompt shows."""

_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_DOMAIN = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass(frozen=True)
class Card:
    """One checked scenario card; ``source`` is the file it came from (None: built in code)."""

    id: str
    domain: str
    theme: str
    conversation: str
    edit: str
    cascade: str
    pattern: str
    size: int
    split: str = "test"
    notes: str = ""
    max_turns: int = 0
    leaves_per_turn: int = 0
    tolerance: int = 0
    followups: tuple[str, ...] = ()
    """The later revisions the card lists, in order, each described as ``edit`` is."""
    proposed_followups: int = 0
    """How many later revisions the writer proposes itself (when ``followups`` lists none)."""
    source: Path | None = None

    @property
    def followup_count(self) -> int:
        """How many follow-ups each draft of the card is to have (0: a single revision)."""
        return len(self.followups) or self.proposed_followups

    @property
    def cascade_text(self) -> str:
        """The cascade as the writer reads it: a pattern's description, or the card's text."""
        if self.cascade in PATTERN_DESCRIPTIONS:
            return f"{self.cascade}: {PATTERN_DESCRIPTIONS[self.cascade]}"
        return self.cascade

    @property
    def label(self) -> str:
        """How messages and records name the card: its file, else its id."""
        return str(self.source) if self.source is not None else self.id


def default_leaves_per_turn(size: int) -> int:
    """At most this many leaves per turn unless the card says otherwise: about a fifth of
    the target, at least 3."""
    return max(3, math.ceil(size / 5))


def default_max_turns(size: int, per_turn: int) -> int:
    """Turns allowed unless the card says otherwise: enough at the per-turn limit, plus 3."""
    return math.ceil(size / per_turn) + 3


def default_tolerance(size: int) -> int:
    """How far the final leaf count may miss the target: a tenth of it, at least 1."""
    return max(1, round(size / 10))


def load_cards(path: Path | str) -> list[Card]:
    """The cards in the TOML file ``path``: one per size it asks for (``size``, or each of
    ``sizes``); UserError (one line) when it is unusable."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"card {path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"card {path}: cannot be read ({exc.__class__.__name__})") from None
    return parse_cards(text, path)


def load_card(path: Path | str) -> Card:
    """The card in the TOML file ``path``, which asks for one size."""
    return _one(load_cards(path), path)


def parse_cards(text: str, source: Path | None = None) -> list[Card]:
    """The cards written in ``text`` (TOML), one per size; ``source`` names it in errors
    and records."""
    where = f"card {source}" if source is not None else "card"
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{where}: not valid TOML ({exc})") from None
    return cards_from_mapping(data, source)


def parse_card(text: str, source: Path | None = None) -> Card:
    """The card written in ``text``, which asks for one size."""
    return _one(parse_cards(text, source), source)


def _one(cards: list[Card], source: Path | str | None) -> Card:
    if len(cards) != 1:
        raise UserError(f"card {source}: asks for {len(cards)} sizes; load it with load_cards")
    return cards[0]


def cards_from_mapping(data: dict[str, Any], source: Path | None = None) -> list[Card]:
    """The cards of one card file's keys: one per size, the same scenario at each (``sizes =
    [10, 50, 100]``, as the paper builds each scenario); the defaults that follow from the
    size (leaves per turn, turns, tolerance) follow each size."""
    where = f"card {source}" if source is not None else "card"
    if "sizes" not in data:
        return [_card(data, source)]
    sizes = data["sizes"]
    if "size" in data:
        raise UserError(f"{where}: give size or sizes, not both")
    if (
        not isinstance(sizes, list)
        or not sizes
        or not all(isinstance(n, int) and not isinstance(n, bool) for n in sizes)
    ):
        raise UserError(f"{where}: sizes must be a list of whole numbers, got {sizes!r}")
    if len(set(sizes)) != len(sizes):
        raise UserError(f"{where}: sizes lists a size twice: {sizes}")
    rest = {key: value for key, value in data.items() if key != "sizes"}
    return [_card(rest | {"size": size}, source) for size in sizes]


def card_from_mapping(data: dict[str, Any], source: Path | None = None) -> Card:
    """A card from its keys (as TOML gives them), which ask for one size."""
    return _one(cards_from_mapping(data, source), source)


def _card(data: dict[str, Any], source: Path | None) -> Card:
    """The card of one size; UserError names the first bad key."""
    where = f"card {source}" if source is not None else "card"
    unknown = [key for key in data if key not in CARD_KEYS]
    if unknown:
        raise UserError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(CARD_KEYS)})")
    missing = [key for key in REQUIRED_KEYS if key not in data]
    if missing:
        raise UserError(f"{where}: missing key {missing[0]!r}")
    texts = {key: _text(data, key, where) for key in ("conversation", "edit", "cascade")}
    theme = _text(data, "theme", where)
    if "\n" in theme:
        raise UserError(f"{where}: theme must be one line")
    notes = _text(data, "notes", where, required=False)
    size = _whole(data, "size", where, minimum=MIN_SIZE)
    assert size is not None
    per_turn = _whole(data, "leaves_per_turn", where, minimum=1) or default_leaves_per_turn(size)
    max_turns = _whole(data, "max_turns", where, minimum=1) or default_max_turns(size, per_turn)
    tolerance = _whole(data, "tolerance", where, minimum=0)
    followups, proposed = _followups(data, where)
    return Card(
        id=_card_id(data, source, where),
        domain=_domain(data, where),
        theme=theme,
        conversation=texts["conversation"],
        edit=texts["edit"],
        cascade=texts["cascade"],
        pattern=_pattern(data, texts["cascade"], where),
        size=size,
        split=_split(data, where),
        notes=notes,
        max_turns=max_turns,
        leaves_per_turn=per_turn,
        tolerance=default_tolerance(size) if tolerance is None else tolerance,
        followups=followups,
        proposed_followups=proposed,
        source=source,
    )


def example_card_text(name: str = EXAMPLE_CARDS[0]) -> str:
    """The text of a shipped example card (commented TOML)."""
    if name not in EXAMPLE_CARDS:
        raise UserError(f"no example card {name!r} (choose from {', '.join(EXAMPLE_CARDS)})")
    folder = resources.files("pytest_revprop.authoring.synth").joinpath("cards")
    return folder.joinpath(f"{name}.toml").read_text(encoding="utf-8")


# ------------------------------------------------------------------------------ one key each


def _text(data: dict[str, Any], key: str, where: str, *, required: bool = True) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise UserError(f"{where}: {key} must be a string, got {value!r}")
    value = value.strip()
    if required and not value:
        raise UserError(f"{where}: {key} must not be empty")
    return value


def _whole(data: dict[str, Any], key: str, where: str, *, minimum: int) -> int | None:
    if key not in data:
        return None
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise UserError(f"{where}: {key} must be a whole number, got {value!r}")
    if value < minimum:
        raise UserError(f"{where}: {key} must be >= {minimum}, got {value}")
    return value


def _card_id(data: dict[str, Any], source: Path | None, where: str) -> str:
    if "id" in data:
        value = data["id"]
    elif source is not None:
        value = re.sub(r"[^a-z0-9]+", "-", source.stem.lower()).strip("-")
    else:
        raise UserError(f"{where}: missing key 'id'")
    if not isinstance(value, str) or not _ID.match(value):
        raise UserError(f"{where}: id must be kebab-case (e.g. invoice-discount), got {value!r}")
    return value


def _domain(data: dict[str, Any], where: str) -> str:
    value = data["domain"]
    if not isinstance(value, str) or not _DOMAIN.match(value):
        raise UserError(f"{where}: domain must be snake_case (e.g. invoice), got {value!r}")
    return value


def _pattern(data: dict[str, Any], cascade: str, where: str) -> str:
    given = data.get("pattern")
    if given is not None and given not in PATTERNS:
        raise UserError(f"{where}: pattern must be one of {', '.join(PATTERNS)}, got {given!r}")
    if cascade in PATTERNS:
        if given is not None and given != cascade:
            raise UserError(f"{where}: cascade is {cascade!r} but pattern says {given!r}")
        return cascade
    if given is None:
        raise UserError(
            f"{where}: cascade is free text, so say which pattern it is filed under: "
            f"pattern = one of {', '.join(PATTERNS)}"
        )
    return str(given)


def _followups(data: dict[str, Any], where: str) -> tuple[tuple[str, ...], int]:
    """The listed follow-ups, or how many the writer proposes (``followups`` is one or the
    other: a list of texts, or a whole number)."""
    value = data.get("followups", [])
    if isinstance(value, int) and not isinstance(value, bool):
        if not 0 <= value <= MAX_FOLLOWUPS:
            raise UserError(
                f"{where}: followups must be between 0 and {MAX_FOLLOWUPS}, got {value}"
            )
        return (), value
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise UserError(
            f"{where}: followups must be a list of non-empty texts (what each later request "
            f"changes) or a whole number (how many the writer proposes), got {value!r}"
        )
    if len(value) > MAX_FOLLOWUPS:
        raise UserError(f"{where}: followups lists {len(value)}; at most {MAX_FOLLOWUPS}")
    return tuple(" ".join(v.split()) for v in value), 0


def _split(data: dict[str, Any], where: str) -> str:
    value = data.get("split", "test")
    if value not in SPLITS:
        raise UserError(f"{where}: split must be one of {', '.join(SPLITS)}, got {value!r}")
    return str(value)
