"""Table rendering: the one Markdown renderer and the one aligned-text renderer.

summary.md, report.md and ``revprop compare --markdown`` use ``markdown_table``; the
terminal summary and ``revprop compare`` use ``text_table``. A ``Table`` is a titled table
of the report (rendered to Markdown here and to HTML by ``reporting.html``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["NO_RATE", "Table", "markdown_table", "text_table"]

NO_RATE = "–"
"""What a table shows for the completion rate of a group without any result (every item an
infrastructure error); results.json has null there."""


def _markdown_cell(text: str) -> str:
    return text.strip().replace("|", "\\|").replace("\n", " ")


def markdown_table(
    header: Sequence[str], rows: Sequence[Sequence[str]], *, tight_rule: bool = False
) -> str:
    """A GitHub Markdown table. Cells are stripped, ``|`` escaped and newlines made spaces;
    the rule under the header is ``|---|`` with ``tight_rule`` (summary.md), else ``| --- |``."""
    dashes = "---" if tight_rule else " --- "
    lines = [
        "| " + " | ".join(_markdown_cell(h) for h in header) + " |",
        "|" + "|".join(dashes for _ in header) + "|",
    ]
    lines += ["| " + " | ".join(_markdown_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def text_table(
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    rule: bool = True,
    trim: bool = False,
) -> str:
    """Columns left-aligned to their widest cell, two spaces apart. ``rule`` puts a line of
    dashes under the header; ``trim`` strips the padding at the end of each line."""
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        text = "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True))
        return text.rstrip() if trim else text

    lines = [line(header)]
    if rule:
        lines.append(line(["-" * w for w in widths]))
    lines += [line(row) for row in rows]
    return "\n".join(lines)


@dataclass(frozen=True)
class Table:
    """A report table: rendered as Markdown (report.md) and as HTML (report.html)."""

    title: str
    header: list[str]
    rows: list[list[str]]
    note: str = ""
    anchor: str = field(default="")

    def to_markdown(self) -> str:
        """The table as a markdown section: its title as a heading, its note, then the table."""
        parts = [f"## {self.title}", ""]
        if self.note:
            parts += [self.note, ""]
        parts.append(markdown_table(self.header, self.rows))
        return "\n".join(parts) + "\n"
