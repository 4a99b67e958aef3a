"""What the ``revprop`` commands share: the parser that reports a usage error in one line,
argument types, and the reading of a reply file.

The value parsers of options that the pytest plugin has too (ports, concurrency, api bases,
...) live in :mod:`pytest_revprop.run.options`; the ones here are the commands' own.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from pytest_revprop.errors import UserError

MAX_REPLY_BYTES = 16 * 1024 * 1024
"""The largest reply file ``revprop score`` and ``revprop merge`` read."""

STDIN = "-"
"""The REPLY argument that reads the reply from standard input."""


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports usage errors as UserError: one line, exit status 2, no usage."""

    def error(self, message: str) -> None:  # type: ignore[override]
        """Raise the usage error as a UserError that names the command's ``--help``."""
        raise UserError(f"{message} (see 'revprop {self.prog.split()[-1]} --help')")


def whole_number(minimum: int) -> Callable[[str], int]:
    """An argparse ``type=`` for a whole number at least ``minimum``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {value}")
        return value

    return parse


def usd(text: str) -> float:
    """An argparse ``type=`` for an amount in USD, at least 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an amount in USD, got {text!r}") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return value


def read_reply(path: str) -> str:
    """A reply: UTF-8 text, not binary, not huge. ``-`` reads standard input; a path that is
    not a regular file but can be read as a stream (a pipe, e.g. bash's ``<(cmd)``, which
    passes ``/dev/fd/N``) is read to its end. Raises UserError."""
    if path == STDIN:
        if sys.stdin is None:
            raise UserError("reply on stdin: there is no standard input")
        return _decode("reply on stdin", _read_limited(sys.stdin.buffer, "reply on stdin"))
    label = f"reply file {path}"
    file = Path(path)
    if file.is_file():
        size = file.stat().st_size
        if size > MAX_REPLY_BYTES:
            raise UserError(f"{label}: {size} bytes is too large (limit {MAX_REPLY_BYTES})")
        return _decode(label, file.read_bytes())
    if not file.exists() or file.is_dir():
        raise UserError(f"{label}: no such file")
    try:
        with file.open("rb") as stream:
            return _decode(label, _read_limited(stream, label))
    except OSError as exc:
        raise UserError(f"{label}: cannot be read ({exc.strerror or exc})") from None


def _read_limited(stream: BinaryIO, label: str) -> bytes:
    raw = stream.read(MAX_REPLY_BYTES + 1)
    if len(raw) > MAX_REPLY_BYTES:
        raise UserError(f"{label}: more than {MAX_REPLY_BYTES} bytes is too large")
    return raw


def _decode(label: str, raw: bytes) -> str:
    if b"\x00" in raw:
        raise UserError(f"{label}: binary content (NUL bytes), expected a text reply")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"{label}: not UTF-8 text (byte {exc.start})") from None
