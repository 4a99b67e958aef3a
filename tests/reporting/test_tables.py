"""The Markdown and text table renderers shared by summary.md, report.md, compare and the terminal."""

from __future__ import annotations

from pytest_revprop.reporting.tables import Table, markdown_table, text_table

HEADER = ["model", "rate"]
ROWS = [["m|x", " 62.5"], ["long-model", "100.0"]]


def test_markdown_cells_are_stripped_and_pipes_escaped() -> None:
    assert markdown_table(HEADER, ROWS) == (
        "| model | rate |\n| --- | --- |\n| m\\|x | 62.5 |\n| long-model | 100.0 |"
    )


def test_a_tight_rule_has_no_spaces_around_the_dashes() -> None:
    assert markdown_table(HEADER, [], tight_rule=True) == "| model | rate |\n|---|---|"


def test_text_columns_are_as_wide_as_their_widest_cell_with_a_rule_under_the_header() -> None:
    assert text_table(HEADER, ROWS).splitlines() == [
        "model       rate ",
        "----------  -----",
        "m|x          62.5",
        "long-model  100.0",
    ]


def test_text_without_rule_and_trimmed_has_no_trailing_spaces() -> None:
    assert text_table(["a", "bb"], [["xyz", "1"]], rule=False, trim=True).splitlines() == [
        "a    bb",
        "xyz  1",
    ]


def test_a_report_table_renders_its_title_note_and_markdown_table() -> None:
    table = Table("Summary", ["a"], [["line\nbreak"]], note="A note.")
    assert table.to_markdown() == "## Summary\n\nA note.\n\n| a |\n| --- |\n| line break |\n"
