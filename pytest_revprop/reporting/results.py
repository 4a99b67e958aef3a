"""Reading results.json: loaded and checked whole (``load_results``), or streamed
(``open_results``: meta and summary at once, the result rows one at a time when read).

The one reader of results.json: ``revprop report``, ``revprop compare``, the HTML report and
the baseline gate all go through ``load_results`` / ``open_results`` / ``check_results``.
Every problem is a one-line ``UserError`` naming the file and the first thing wrong with it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Mapping, Sized
from pathlib import Path
from typing import Any, TypeGuard

from pytest_revprop.errors import UserError

PARTIAL_FIELD = "interrupted"
"""The ``meta`` field set (true) on the results of a run Ctrl-C stopped: they hold only the
items that finished, so they are a partial run."""


def is_partial(doc: Mapping[str, Any]) -> bool:
    """Whether a results document is a partial run: stopped by Ctrl-C (``meta.interrupted``)."""
    meta = doc.get("meta")
    return isinstance(meta, Mapping) and meta.get(PARTIAL_FIELD) is True


def refuse_partial(doc: Mapping[str, Any], path: Path | str, role: str) -> None:
    """UserError when ``doc`` (read from ``path``) is a partial run: a partial ``role`` (a
    baseline, run A) would make every item it lacks look like a change."""
    if is_partial(doc):
        raise UserError(
            f"{path} is a partial run (interrupted: it holds only the items that finished); "
            f"rerun it to the end before using it as {role}"
        )


__all__ = ["ResultRows", "check_results", "is_number", "load_results", "open_results"]

REQUIRED_KEYS = {
    "summary": ("model", "method", "completion_rate"),
    "results": ("case", "model", "method"),
}
"""Keys every row of each list must have."""


def is_number(value: Any) -> TypeGuard[int | float]:
    """A finite int or float, not a bool."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _shape_error(source: str, where: str, what: str) -> UserError:
    return UserError(f"{source}: {where} {what}")


def _is_rows(value: Any) -> bool:
    """A list, or a source of rows read as they are iterated (``ResultRows``, a sink's
    outcome table): sized and iterable, and not a string or a mapping."""
    if isinstance(value, list):
        return True
    return (
        isinstance(value, Sized)
        and isinstance(value, Iterable)
        and not isinstance(value, str | bytes | Mapping)
    )


def check_results(
    data: Any, source: str = "results", *, with_summary: bool = True
) -> dict[str, Any]:
    """``data`` if it has the results.json shape, else UserError naming the first problem.

    ``with_summary=False`` asks only for the ``results`` list (a baseline needs no summary).
    """
    if not isinstance(data, dict):
        raise _shape_error(source, "top level", "is not a JSON object with 'summary' and 'results'")
    names = ("summary", "results") if with_summary else ("results",)
    for name in names:
        if not _is_rows(data.get(name)):
            raise _shape_error(source, f"'{name}'", "is missing or not a list")
    if not isinstance(data.get("meta", {}), dict):
        raise _shape_error(source, "'meta'", "is not an object")
    for name in names:
        if not isinstance(data[name], list):
            continue  # streamed rows: checked (or made) one by one as they are read
        for index, row in enumerate(data[name]):
            if not isinstance(row, dict):
                raise _shape_error(source, f"{name}[{index}]", "is not an object")
            missing = [k for k in REQUIRED_KEYS[name] if k not in row]
            if missing:
                raise _shape_error(
                    source, f"{name}[{index}]", f"lacks {', '.join(map(repr, missing))}"
                )
            rate = row.get("completion_rate")
            if name == "summary" and rate is not None and not is_number(rate):
                raise _shape_error(
                    source, f"summary[{index}].completion_rate", "is not a number or null"
                )
    return data


def _read_text(path: Path, what: str) -> str:
    if not path.is_file():
        raise UserError(f"{what} {path}: no such file")
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{what} {path}: cannot read ({exc.__class__.__name__})") from None


def load_results(path: Path | str, *, with_summary: bool = True) -> dict[str, Any]:
    """Read and check a results.json; UserError (one line) when it is missing or malformed."""
    path = Path(path)
    text = _read_text(path, "results file")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"results file {path}: not JSON ({exc.msg} at line {exc.lineno})") from None
    return check_results(data, f"results file {path}", with_summary=with_summary)


_DECODER = json.JSONDecoder()
_BLOCK = 1 << 20


class _Scanner:
    """A JSON text read in blocks: one value at a time from where it stands."""

    def __init__(self, handle: Any) -> None:
        self.handle = handle
        self.text = ""
        self.pos = 0
        self.eof = False

    def _more(self) -> bool:
        block = self.handle.read(_BLOCK)
        if not block:
            self.eof = True
            return False
        self.text = self.text[self.pos :] + block
        self.pos = 0
        return True

    def peek(self) -> str:
        """The next character that is not white space ("" at the end)."""
        while True:
            while self.pos < len(self.text) and self.text[self.pos] in " \t\r\n":
                self.pos += 1
            if self.pos < len(self.text):
                return self.text[self.pos]
            if not self._more():
                return ""

    def expect(self, char: str) -> None:
        if self.peek() != char:
            raise json.JSONDecodeError(f"expected {char!r}", self.text, self.pos)
        self.pos += 1

    def value(self) -> Any:
        self.peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self.text, self.pos)
                if end < len(self.text) or self.eof:  # a number at the end may go on
                    self.pos = end
                    return value
            except json.JSONDecodeError:
                if self.eof:
                    raise
            self._more()


def _stream(path: Path, *, rows: bool) -> Iterator[tuple[str, Any]]:
    """The top-level members of a results.json as (name, value), except that ``results`` comes
    as ("results", None) followed, when ``rows``, by its elements one by one as ("row", value)
    (else they are read past). Callers may stop early."""
    with path.open(encoding="utf-8") as handle:
        scan = _Scanner(handle)
        scan.expect("{")
        if scan.peek() == "}":
            return
        while True:
            name = scan.value()
            scan.expect(":")
            if name == "results" and scan.peek() == "[":
                yield "results", None
                scan.expect("[")
                if scan.peek() != "]":
                    while True:
                        row = scan.value()
                        if rows:
                            yield "row", row
                        if scan.peek() != ",":
                            break
                        scan.expect(",")
                scan.expect("]")
            else:
                yield str(name), scan.value()
            if scan.peek() != ",":
                break
            scan.expect(",")
        scan.expect("}")


class ResultRows:
    """The ``results`` of a results.json, streamed each time they are iterated (one row in
    memory at a time); every row is checked as it comes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._count: int | None = None

    def __iter__(self) -> Iterator[dict[str, Any]]:
        source = f"results file {self.path}"
        index = 0
        try:
            for name, row in _stream(self.path, rows=True):
                if name != "row":
                    continue
                if not isinstance(row, dict):
                    raise _shape_error(source, f"results[{index}]", "is not an object")
                missing = [k for k in REQUIRED_KEYS["results"] if k not in row]
                if missing:
                    raise _shape_error(
                        source, f"results[{index}]", f"lacks {', '.join(map(repr, missing))}"
                    )
                index += 1
                yield row
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise UserError(f"{source}: not JSON ({exc})") from None
        self._count = index

    def __len__(self) -> int:
        if self._count is None:
            for _ in self:
                pass
        assert self._count is not None
        return self._count


def open_results(path: Path | str) -> dict[str, Any]:
    """A results.json as a document whose ``results`` are streamed (``ResultRows``), for
    files too big to hold: meta and summary are read and checked now, the rows when read.
    UserError (one line) when it is missing or malformed."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"results file {path}: no such file")
    doc: dict[str, Any] = {}
    try:
        for name, value in _stream(path, rows=False):
            doc[name] = value
            if {"meta", "summary", "results"} <= set(doc):
                break  # results.json as written here ends with its rows: no need to read them
    except json.JSONDecodeError:
        load_results(path)  # not JSON, or not an object: says which, in its words
        raise UserError(f"results file {path}: not JSON") from None
    except UnicodeDecodeError:
        raise UserError(f"results file {path}: cannot read (UnicodeDecodeError)") from None
    except OSError as exc:
        raise UserError(f"results file {path}: cannot read ({exc.__class__.__name__})") from None
    if "results" in doc:
        doc["results"] = ResultRows(path)
    return check_results(doc, f"results file {path}")
