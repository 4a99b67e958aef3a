"""Files and folders only the user may read (0600, 0700): the one writer of everything a run
keeps that may hold prompts, replies or paths (the response cache, the reports folder).

``open_private`` opens a file for writing (truncating, appending, or creating it exclusively),
``write_private`` replaces a file whole through a temporary file beside it (a reader sees the
old file or the new, never a mix), ``private_dir`` makes a folder. No imports of ours.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import IO

FILE_MODE = 0o600
DIR_MODE = 0o700


def open_private(path: Path | str, *, append: bool = False, exclusive: bool = False) -> IO[bytes]:
    """``path`` opened for writing bytes, created readable by the user only: emptied first,
    or with ``append`` added to, or with ``exclusive`` created only if it does not exist yet
    (FileExistsError otherwise)."""
    flags = os.O_WRONLY | os.O_CREAT
    flags |= os.O_APPEND if append else os.O_EXCL if exclusive else os.O_TRUNC
    fd = os.open(path, flags, FILE_MODE)
    return os.fdopen(fd, "ab" if append else "wb")


def temp_beside(path: Path) -> Path:
    """The temporary file that ``write_private`` (or a caller writing in steps) fills before
    it replaces ``path``: hidden, in the same folder, one per process."""
    return path.with_name(f".{path.name}.tmp{os.getpid()}")


def write_private(path: Path, data: str | bytes) -> None:
    """Replace ``path`` by ``data`` (text is written as UTF-8, a lone surrogate as its
    ``\\udxxx`` escape: a report never fails on a name from outside), readable by the user only."""
    tmp = temp_beside(path)
    try:
        with open_private(tmp) as handle:
            handle.write(
                data.encode("utf-8", "backslashreplace") if isinstance(data, str) else data
            )
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def private_dir(path: Path, *, parents: bool = True) -> Path:
    """Create ``path`` (and its parents) readable by the user only; an existing folder is
    made private too."""
    path.mkdir(parents=parents, exist_ok=True, mode=DIR_MODE)
    os.chmod(path, DIR_MODE)
    return path
