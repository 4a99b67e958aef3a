"""The mechanical fact check of reworded texts: which facts a text states, when a rewording
keeps them, and which changes it catches."""

from __future__ import annotations

from decimal import Decimal

import pytest

from pytest_revprop.authoring.synth.facts import (
    added_numbers,
    facts_of,
    missing_facts,
    states_value,
)
from pytest_revprop.authoring.synth.paraphrase import text_reasons

TEXT = (
    "Bill Harbor Lane Bakery for 12 hours at $85 an hour on March 14, 2026; invoice "
    "INV-2041 in USD, due 2026-04-01 at 2:30 pm. Please send it to ops_team@example.com. "
    "The total was 1,020.00 for two lines."
)


def test_a_text_states_numbers_dates_times_identifiers_and_names() -> None:
    facts = facts_of(TEXT)
    assert facts.numbers == {Decimal(12), Decimal(85), Decimal(1020), Decimal(2)}
    assert facts.dates == {(2026, 3, 14), (2026, 4, 1)}
    assert facts.times == {"14:30"}
    assert facts.identifiers == {"INV-2041", "USD", "ops_team@example.com"}
    assert facts.names == {"Harbor", "Lane", "Bakery"}


def test_a_rewording_in_other_forms_keeps_every_fact() -> None:
    reworded = (
        "Please invoice Harbor Lane Bakery (INV-2041, USD): two lines, 12 hours at $85.00 "
        "each, 14 March 2026, 1020 in all; it is due 2026-04-01 14:30, to ops_team@example.com."
    )
    assert missing_facts(TEXT, reworded) == []
    assert added_numbers(TEXT, reworded) == []


@pytest.mark.parametrize(
    ("change", "missing"),
    [
        (("12 hours", "14 hours"), "the number 12"),
        (("March 14, 2026", "March 15, 2026"), "the date March 14, 2026"),
        (("2:30 pm", "2:45 pm"), "the time 2:30 pm"),
        (("INV-2041", "invoice 2041"), "the identifier INV-2041"),
        (("Harbor Lane Bakery", "the bakery"), "the name Harbor"),
    ],
)
def test_a_changed_fact_is_missing_from_the_rewording(
    change: tuple[str, str], missing: str
) -> None:
    assert missing in missing_facts(TEXT, TEXT.replace(*change))


def test_a_changed_number_is_also_a_number_the_original_does_not_state() -> None:
    assert added_numbers(TEXT, TEXT.replace("12 hours", "14 hours")) == ["14"]
    assert added_numbers("Bill one line.", "Bill 1 line.") == []


def test_words_that_start_sentences_are_not_names() -> None:
    assert facts_of("Please bill Acme. Then Alice signs. We are done.").names == {"Acme", "Alice"}


@pytest.mark.parametrize(
    ("text", "value", "stated"),
    [
        ("Make it 15% instead.", 15, True),
        ("Make it 15.0 percent.", 15, True),
        ("Make it a bit more.", 15, False),
        ("Land at 3:15 pm now.", "15:15", True),
        ("Move it to April 2, 2026.", "2026-04-02", True),
        ("Switch the venue to the Grand Hall.", "Grand Hall", True),
        ("Switch the venue.", "Grand Hall", False),
        ("Mark it as paid.", True, True),
    ],
)
def test_a_request_states_the_value_it_asks_for(text: str, value: object, stated: bool) -> None:
    assert states_value(text, value) is stated


@pytest.mark.parametrize(
    ("original", "reworded", "reason"),
    [
        (
            "Cancel it 30 days before the trip.",
            "Cancel it 30 days after the trip.",
            "says 'after' where the original says 'before'",
        ),
        (
            "The rate is 120 plus tax.",
            "The rate is 120 minus tax.",
            "says 'minus' where the original says 'plus'",
        ),
        (
            "Book the tour for the day after we arrive.",
            "Book the tour for the day before we leave.",
            "says 'before' where the original says 'after'",
        ),
        ("Order at least 12 chairs.", "Order at most 12 chairs.", "says 'at most' where"),
        ("Keep it above 5 degrees.", "Keep it below 5 degrees.", "says 'below' where"),
        ("Increase it by 3.", "Decrease it by 3.", "says 'decrease' where"),
        ("Include the 2 guests.", "Exclude the 2 guests.", "says 'exclude' where"),
        ("We need 4 more seats.", "We need 4 fewer seats.", "says 'fewer' where"),
        ("Do not charge the 15 dollars.", "Charge the 15 dollars.", "no longer says 'not'"),
        ("Charge the 15 dollars.", "Don't charge the 15 dollars.", 'says "don\'t", which'),
        ("Ship it 2 days later.", "Ship it 2 days earlier.", "says 'earlier' where"),
    ],
)
def test_a_rewording_that_turns_a_relation_around_is_refused(
    original: str, reworded: str, reason: str
) -> None:
    """A rewording that keeps every number is refused: the variant would pass with the
    original's gold."""
    (refused,) = text_reasons("the request", original, reworded)
    assert reason in refused and refused.startswith("the request ")


@pytest.mark.parametrize(
    ("original", "reworded"),
    [
        ("Move the review to the 4th of the month.", "Move the review to the fourth of the month."),
        ("Send it 3 days before the launch.", "Send it 3 days earlier than the launch."),
        ("Stay no more than 4 nights.", "Stay at most 4 nights."),
        ("Add 2 lines plus shipping.", "Please add shipping plus two lines."),
        ("We can't go over 20 people.", "We cannot go over twenty people."),
    ],
)
def test_a_rewording_that_keeps_every_relation_and_number_passes(
    original: str, reworded: str
) -> None:
    assert text_reasons("the request", original, reworded) == []


def test_ordinals_in_digits_and_words_are_one_number() -> None:
    assert facts_of("the 4th and the twelfth").numbers == {Decimal(4), Decimal(12)}
    assert facts_of("First the client, then a second line.").numbers == set()
