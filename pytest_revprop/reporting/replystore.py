"""The reply store of a reports folder: the text of each distinct model call, stored once.

Result records (``samples.jsonl``) keep each call's facts (role, seed, usage, latency, cost)
and its ``key``, the cache key of the request (a content hash for replies made without a
client); the store keeps, per key, the ``content`` and ``reasoning``:

    <reports>/replies/r00000.js, r00001.js, ...

one reply per line, ``revpropReply({"key": ..., "content": ..., "reasoning": ...});``: JSON
inside a JavaScript call, so that ``report.html``, opened from ``file://`` under its
Content-Security-Policy, can load a file with a script element (the one way a page opened
from a file reads another file). A file is closed once it holds ``CHUNK_BYTES`` and the next
one begun. Lines are appended as replies arrive; a line without its ending (a process killed
while writing) is skipped by readers and cut off by the next writer of the folder.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from pytest_revprop.util.private import open_private, private_dir
from pytest_revprop.util.strictjson import json_bytes

__all__ = [
    "CHUNK_BYTES",
    "REPLIES_DIR",
    "ReplyReader",
    "ReplyWriter",
    "copy_store",
    "file_name",
    "reply_key",
]

REPLIES_DIR = "replies"
CHUNK_BYTES = 2 * 2**20
"""A store file is closed once it holds this many bytes: report.html loads a whole file to
show one reply, so files stay small enough to load at once."""
PREFIX = b"revpropReply("
SUFFIX = b");\n"
TEXT_FIELDS = ("content", "reasoning")
"""What the store keeps of a reply; the record keeps the rest."""
_KEY = re.compile(r"[0-9A-Za-z_-]{1,128}")
"""Keys are cache keys (hex) or ``t`` + a hex hash: nothing that needs escaping."""


def file_name(number: int) -> str:
    """The name of store file ``number`` (report.js builds the same names)."""
    return f"r{number:05d}.js"


def reply_key(reply: Mapping[str, Any]) -> str:
    """The store key of a reply: its call's cache key, else a hash of its text."""
    key = reply.get("key")
    if isinstance(key, str) and _KEY.fullmatch(key):
        return key
    text = json.dumps([reply.get(name) for name in TEXT_FIELDS], ensure_ascii=False)
    return "t" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _line(key: str, reply: Mapping[str, Any]) -> bytes:
    data = {"key": key, **{name: reply.get(name) for name in TEXT_FIELDS}}
    text = json_bytes(data, separators=(",", ":"))
    # JSON allows U+2028/2029 raw in strings; older JavaScript engines do not
    text = text.replace(b"\xe2\x80\xa8", b"\\u2028").replace(b"\xe2\x80\xa9", b"\\u2029")
    return PREFIX + text + SUFFIX


class Location(NamedTuple):
    """Where one reply's text lies: the reply file's number, and the byte offset and length of
    its line there.
    """

    number: int
    offset: int
    length: int


def _numbers(folder: Path) -> list[int]:
    found = []
    for path in folder.glob("r*.js") if folder.is_dir() else ():
        stem = path.name[1:-3]
        if stem.isdigit():
            found.append(int(stem))
    return sorted(found)


def _scan(path: Path, number: int) -> Iterator[tuple[str, Location]]:
    """(key, location) of each whole line of one store file."""
    with path.open("rb") as handle:
        offset = 0
        for line in handle:
            if line.startswith(PREFIX) and line.endswith(SUFFIX):
                end = line.find(b'"', len(PREFIX) + 8)
                key = line[len(PREFIX) + 8 : end].decode("ascii", "replace")
                yield key, Location(number, offset, len(line))
            offset += len(line)


class ReplyReader:
    """Replies by key from a store folder; the index (key -> place) is built on first use."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self._index: dict[str, Location] | None = None

    @property
    def index(self) -> dict[str, Location]:
        """Every stored reply's location by key, read from the files on first use."""
        if self._index is None:
            self._index = {}
            for number in _numbers(self.folder):
                self._index.update(_scan(self.folder / file_name(number), number))
        return self._index

    def __contains__(self, key: str) -> bool:
        return key in self.index

    def file_of(self, key: str) -> int | None:
        """The number of the reply file holding ``key``, or None when no file holds it."""
        place = self.index.get(key)
        return None if place is None else place.number

    def get_many(self, keys: Iterable[str]) -> dict[str, dict[str, Any]]:
        """Key -> ``{"content", "reasoning"}`` for each key the store holds."""
        places = sorted((place, key) for key in set(keys) if (place := self.index.get(key)))
        out: dict[str, dict[str, Any]] = {}
        handle = None
        number = -1
        try:
            for place, key in places:
                if place.number != number:
                    if handle is not None:
                        handle.close()
                    handle = (self.folder / file_name(place.number)).open("rb")
                    number = place.number
                assert handle is not None
                handle.seek(place.offset)
                line = handle.read(place.length)
                data = json.loads(line[len(PREFIX) : -len(SUFFIX)])
                out[key] = {name: data.get(name) for name in TEXT_FIELDS}
        finally:
            if handle is not None:
                handle.close()
        return out

    def resolve(self, record: Mapping[str, Any]) -> dict[str, Any]:
        """``record`` with the text of each of its replies put back (replies that carry their
        text already, as in older reports, are kept as they are)."""
        replies = record.get("replies") or []
        wanted = [
            r["key"] for r in replies if isinstance(r, dict) and "content" not in r and r.get("key")
        ]
        if not wanted:
            return dict(record)
        texts = self.get_many(wanted)
        resolved = [
            {**r, **texts.get(str(r.get("key")), {})}
            if isinstance(r, dict) and "content" not in r
            else r
            for r in replies
        ]
        return {**record, "replies": resolved}


class ReplyWriter:
    """Appends replies to a store folder, each key once, and knows where each one went.

    Opening a folder that holds a store adds to it in new files (its files may be links to
    another folder's); a line cut short at the end of a file is removed first.
    """

    def __init__(self, folder: Path, *, chunk_bytes: int = CHUNK_BYTES) -> None:
        self.folder = Path(folder)
        private_dir(self.folder)
        self.chunk_bytes = chunk_bytes
        self.places: dict[str, int] = {}
        numbers = _numbers(self.folder)
        for number in numbers:
            path = self.folder / file_name(number)
            end = 0
            for key, place in _scan(path, number):
                self.places[key] = number
                end = place.offset + place.length
            if path.stat().st_size != end:
                os.truncate(path, end)
        self._number = numbers[-1] + 1 if numbers else 0
        self._handle = self._open(self._number)
        self._written = 0

    def _open(self, number: int) -> Any:
        path = self.folder / file_name(number)
        return open_private(path, append=True)

    def add(self, reply: Mapping[str, Any]) -> tuple[str, int]:
        """Store ``reply``'s text unless its key is stored; (its key, its file number)."""
        key = reply_key(reply)
        number = self.places.get(key)
        if number is not None:
            return key, number
        if self._written >= self.chunk_bytes:
            self._handle.close()
            self._number += 1
            self._handle = self._open(self._number)
            self._written = 0
        line = _line(key, reply)
        self._handle.write(line)
        self._written += len(line)
        self.places[key] = self._number
        return key, self._number

    def flush(self) -> None:
        """Push the written lines to the file, so a reader sees them."""
        self._handle.flush()

    def close(self) -> None:
        """Close the file (nothing when it is closed already)."""
        if not self._handle.closed:
            self._handle.close()


def copy_store(source: Path, target: Path) -> None:
    """Make the store files of ``source`` available in ``target`` (hard links where the file
    system allows, else copies); files already there stay."""
    if source.resolve() == target.resolve():
        return
    private_dir(target)
    for number in _numbers(source):
        name = file_name(number)
        if (target / name).exists():
            continue
        try:
            os.link(source / name, target / name)
        except OSError:
            shutil.copyfile(source / name, target / name)
