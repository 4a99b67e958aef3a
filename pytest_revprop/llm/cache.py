"""The response cache: one reply file per request, content-addressed by the request's cache
key, and the ``.claim`` files by which processes sharing the cache agree that only one of them
makes a given call. Opening a cache keeps it private and tidy (see ``ResponseCache``)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import stat
import tempfile
import time
from pathlib import Path

from pytest_revprop.llm.types import CACHE_VERSION, Reply, Request
from pytest_revprop.util.private import open_private

_HOST = socket.gethostname()
STALE_TMP_S = 600.0
"""A temporary file this old is a leftover of a writer that died (a write takes milliseconds)."""
_SHARD = re.compile(r"[0-9a-f]{2}")
_TMP = re.compile(r"\.([0-9a-f]{16})\.[a-z0-9_]+\.tmp")
"""The temporary files ``write`` makes: ``.<key[:16]>.<random>.tmp`` (``tempfile.mkstemp``)."""


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        import psutil

        return bool(psutil.Process(pid).status() != psutil.STATUS_ZOMBIE)
    except Exception:
        return True


def _scan(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as entries:
            return list(entries)
    except OSError:
        return []


def _reply_fields(reply: Reply) -> dict[str, object]:
    """What a cache file keeps of a reply: all but its key (the file's name and ``key``)."""
    fields = reply.to_dict()
    del fields["key"]
    return fields


class ResponseCache:
    """Content-addressed reply files ``<dir>/<key[:2]>/<key>.json`` plus ``.claim`` files.

    Writes are atomic (temp file + ``os.replace``), so readers in other processes see a
    whole file or none; anything unreadable counts as a miss and is overwritten.

    Opening an existing cache folder (constructing this) makes it private again when group or
    others have access and it belongs to the user (folders made here are 0700 from the start),
    and removes the temporary files of its writers that were killed mid-write: only files of
    ``write``'s naming pattern in the shard folders, and only those older than
    ``STALE_TMP_S`` (a live writer's file is never that old).
    """

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._make_private()
        self.remove_stale_temporaries()

    def _make_private(self) -> None:
        try:
            info = self.root.stat()
        except OSError:
            return
        getuid = getattr(os, "getuid", None)
        mine = getuid is not None and info.st_uid == getuid()
        if stat.S_ISDIR(info.st_mode) and info.st_mode & 0o077 and mine:
            with contextlib.suppress(OSError):
                os.chmod(self.root, stat.S_IMODE(info.st_mode) & ~0o077)

    def remove_stale_temporaries(self, max_age_s: float = STALE_TMP_S) -> int:
        """Delete ``write``'s temporary files older than ``max_age_s``; returns how many."""
        cutoff = time.time() - max_age_s
        removed = 0
        for shard in _scan(self.root):
            if not (_SHARD.fullmatch(shard.name) and shard.is_dir(follow_symlinks=False)):
                continue
            for entry in _scan(Path(shard.path)):
                match = _TMP.fullmatch(entry.name)
                if not match or not match.group(1).startswith(shard.name):
                    continue
                with contextlib.suppress(OSError):
                    if (
                        entry.is_file(follow_symlinks=False)
                        and entry.stat(follow_symlinks=False).st_mtime < cutoff
                    ):
                        os.unlink(entry.path)
                        removed += 1
        return removed

    def path(self, key: str) -> Path:
        """Where the reply of cache key ``key`` is stored (foldered by its first 2 characters)."""
        return self.root / key[:2] / f"{key}.json"

    def claim_path(self, key: str) -> Path:
        """Where the claim on ``key`` is stored: the file a process holds while making that call."""
        return self.root / key[:2] / f"{key}.claim"

    def _shard(self, key: str) -> Path:
        shard = self.root / key[:2]
        if not shard.is_dir():
            for folder in (self.root, shard):
                with contextlib.suppress(FileExistsError):
                    folder.mkdir(mode=0o700, parents=True)
        return shard

    def read(self, key: str) -> Reply | None:
        """The cached reply of ``key``, or None when there is none or the entry is unreadable, of
        another cache version or of another key (a damaged entry is a miss, never an error).
        """
        try:
            data = json.loads(self.path(key).read_text(encoding="utf-8"))
            if data.get("version") != CACHE_VERSION or data.get("key") != key:
                return None
            return Reply.from_dict(data["reply"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def write(self, key: str, request: Request, reply: Reply) -> None:
        """Store ``reply`` as the answer to ``request`` under ``key``, atomically (written to a
        temporary file, then renamed), so a reader never sees half an entry.
        """
        record = {
            "version": CACHE_VERSION,
            "key": key,
            "request": request.key_material(),
            "reply": {**_reply_fields(reply), "cached": False},
            "created": time.time(),
        }
        shard = self._shard(key)
        fd, tmp = tempfile.mkstemp(dir=shard, prefix=f".{key[:16]}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                # compact, so that json's C encoder writes it (indented output is pure Python)
                handle.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")))
            os.replace(tmp, self.path(key))
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def try_claim(self, key: str) -> bool:
        """Create ``<key>.claim`` exclusively; False when another holder has it."""
        path = self.claim_path(key)
        self._shard(key)
        try:
            handle = open_private(path, exclusive=True)
        except FileExistsError:
            return False
        with handle:
            claim = {"pid": os.getpid(), "host": _HOST, "time": time.time()}
            handle.write(json.dumps(claim).encode("utf-8"))
        return True

    def touch_claim(self, key: str) -> None:
        """Renew the claim on ``key``: a claim left untouched for long is stale, and broken."""
        with contextlib.suppress(OSError):
            os.utime(self.claim_path(key))

    def release_claim(self, key: str) -> None:
        """Remove ``<key>.claim``, whoever holds it (its holder, or a breaker of a stale one)."""
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.claim_path(key))

    def claim_state(self, key: str, ttl_s: float) -> str:
        """``"none"``, ``"live"`` or ``"stale"`` (holder dead, or silent for ``ttl_s``)."""
        path = self.claim_path(key)
        try:
            age = time.time() - path.stat().st_mtime
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return "none"
        except OSError:
            return "live"
        if age > ttl_s:
            return "stale"
        try:
            holder = json.loads(text)
            pid, host = int(holder["pid"]), str(holder["host"])
        except (ValueError, KeyError, TypeError):
            return "stale" if age > 5.0 else "live"
        if host == _HOST and not _pid_alive(pid):
            return "stale"
        return "live"
