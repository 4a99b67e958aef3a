"""Files a ``revprop`` command reads: a case file and reply files."""

from __future__ import annotations

from pathlib import Path

from helpers.handmade_cases import invoice_case, write_cases


def case_file(folder: Path) -> Path:
    """The invoice case, alone in ``folder/cases``."""
    written = write_cases(folder / "cases", [invoice_case()])
    (path,) = written.iterdir()
    return path


def reply_file(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path
