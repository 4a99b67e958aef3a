"""Reading a run's samples back: ``samples.jsonl`` streamed one record at a time, each record's
replies with their text from the reply store (``replystore``): what ``revprop samples``
prints.

``samples.jsonl`` holds one record per line, its replies' facts and keys; the text of each
distinct reply is in ``replies/`` beside it. ``read_samples(folder, case=..., ...)`` and
``revprop samples FOLDER [--case ID --model M --method X --k K --seed S]`` give the matching
records with every reply's ``content`` and ``reasoning`` put back. Records of older reports,
whose replies carry their text, are read as they are.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pytest_revprop.errors import UserError
from pytest_revprop.llm.redact import redact
from pytest_revprop.reporting.replystore import REPLIES_DIR, ReplyReader

__all__ = ["SAMPLES_FILE", "SampleFile", "read_samples", "reply_excerpt"]

SAMPLES_FILE = "samples.jsonl"
REPLY_EXCERPT_CHARS = 300
"""Characters of the model's reply an invalid reply's report shows (whitespace collapsed)."""


class SampleFile:
    """The records of a samples.jsonl, read one line at a time each time it is iterated.

    Blank lines are ignored, and so is a last line without its newline (a run stopped while
    writing it); any other line that is not a JSON object is a UserError naming it. With a
    ``replies`` reader, each record comes with its replies' text.
    """

    def __init__(self, path: Path | str, *, replies: ReplyReader | None = None) -> None:
        self.path = Path(path)
        self.replies = replies
        self._handle: Any = None

    def _open(self) -> Any:
        if not self.path.is_file():
            raise UserError(f"samples file {self.path}: no such file")
        return self.path.open("rb")

    def places(self) -> Iterator[tuple[int, int, dict[str, Any]]]:
        """(offset, length, record) of each record, without its replies' text."""
        with self._open() as handle:
            offset = 0
            for number, line in enumerate(handle, start=1):
                start, offset = offset, offset + len(line)
                if not line.endswith(b"\n") or not line.strip():
                    continue
                yield start, len(line), self._parse(line, number)

    def _parse(self, line: bytes, number: int) -> dict[str, Any]:
        try:
            record = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            why = exc.msg if isinstance(exc, json.JSONDecodeError) else "not UTF-8"
            raise UserError(
                f"samples file {self.path}: line {number} is not JSON ({why})"
            ) from None
        if not isinstance(record, dict):
            raise UserError(f"samples file {self.path}: line {number} is not a JSON object")
        return record

    def read_at(self, offset: int, length: int) -> dict[str, Any]:
        """The record whose line ``places`` gave (the file stays open between reads until
        ``close``), with its replies' text if there is a reader."""
        if self._handle is None:
            self._handle = self._open()
        self._handle.seek(offset)
        record = self._parse(self._handle.read(length), 0)
        return self.replies.resolve(record) if self.replies is not None else record

    def close(self) -> None:
        """Close the file (nothing when it is not open)."""
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for _, _, record in self.places():
            yield self.replies.resolve(record) if self.replies is not None else record


def _folder(path: Path) -> Path:
    """The reports folder named by ``path``: the folder itself, or a file in it."""
    return path if path.is_dir() else path.parent


def read_samples(
    path: Path | str,
    *,
    case: str | None = None,
    model: str | None = None,
    method: str | None = None,
    k: int | None = None,
    seed: int | None = None,
    with_replies: bool = True,
) -> Iterator[dict[str, Any]]:
    """The records of the run in ``path`` (its reports folder, or a file in it) that match
    every filter given, in file order, each with its replies' text unless ``with_replies`` is
    False. Streams: holds one record at a time (and the store's index of keys)."""
    folder = _folder(Path(path))
    wanted = {"case": case, "model": model, "method": method, "k": k, "seed": seed}
    wanted = {name: value for name, value in wanted.items() if value is not None}
    samples = SampleFile(folder / SAMPLES_FILE)
    reader = ReplyReader(folder / REPLIES_DIR) if with_replies else None
    for _, _, record in samples.places():
        if all(record.get(name) == value for name, value in wanted.items()):
            yield reader.resolve(record) if reader is not None else record


def reply_excerpt(record: Mapping[str, Any], limit: int = REPLY_EXCERPT_CHARS) -> str | None:
    """The start of the reply an invalid result was scored on (the method's last revision
    sample), redacted like every text of a report, its whitespace collapsed, at most
    ``limit`` characters: ``reply (1,234 chars): I am not sure ...``. None when the record
    holds no reply text."""
    replies = [r for r in record.get("replies") or [] if isinstance(r.get("content"), str)]
    samples = [r for r in replies if r.get("role") == "sample"] or replies
    if not samples:
        return None
    content: str = samples[-1]["content"]
    text = " ".join(redact(content).split())
    if not text:
        return f"reply: empty ({len(content):,} chars)"
    shown = text if len(text) <= limit else text[: limit - 3] + "..."
    return f"reply ({len(content):,} chars): {shown}"
