"""The case files an annotation session may read and write, and how it writes them.

Rules:
- A file is named by a key ``"<root index>/<path relative to that root>"``. A key resolves
  only to a ``*.json`` file whose real path (symlinks followed) lies inside the real path of
  the folder it was given under (or is the file given); ``..``, hidden names, absolute paths
  and backslashes are refused before the file system is touched.
- A save is atomic: the new text goes to a temporary file beside the case, is flushed to
  disk, then renamed over the case, so a crash at any moment leaves either the old file or
  the new one. The text is the project's one case writer's (``dump_case``).
- A save names the content hash (SHA-256 of the bytes) of the version it edits; when the
  file on disk has another hash, nothing is written and the caller gets both versions.
- A save takes the request, the gold, the notes, the size (the page offers to fix a wrong
  one) and ``annotation.notes`` from the editor; every other field stays as it is on disk.
  The session owns the annotation's status and history: a save appends one history entry
  (annotator, UTC time to the second, action, optional note). ``edited`` makes the status
  ``annotated``, or ``changed`` (since review) when the case was ``reviewed`` or
  ``changed``; the draft's review flags (turn 0's and each follow-up's) follow their
  operations as the page moved them;
  ``reviewed`` makes it ``reviewed``, records that the saved gold was checked
  as it is (no other change), and is refused on a draft and to the person who edited it last.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import os
import secrets
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from pytest_revprop.authoring.annotate.chained import (
    FOLLOWUP_EDITABLE,
    derive_chain,
    followups_of,
    turn_name,
    turn_of,
)
from pytest_revprop.core.cases import (
    ANNOTATION_FIELD,
    MAX_CASE_BYTES,
    Case,
    CaseError,
    dump_case,
    iter_case_files,
    leaf_count,
)
from pytest_revprop.errors import UserError
from pytest_revprop.util.jsonutil import json_equal, loads_strict

EDITABLE = ("request", "gold", "notes", "size")
"""The fields a save takes from the editor; the others (conversation, artifact, ...) stay as
on disk, number forms included."""
ACTIONS = ("edited", "reviewed")
"""What a save records (``drafted`` and ``imported`` are written by other tools)."""
MAX_KEY_CHARS = 4096
MAX_NAME_CHARS = 100


class PathRefused(Exception):
    """A key that names no file this session may touch."""


class NotFound(Exception):
    """A key that follows the rules but names no existing case file."""


class SaveRefused(Exception):
    """A save that would break a rule; nothing was written."""


class Conflict(Exception):
    """The file changed on disk since the version the save edits; nothing was written."""

    def __init__(self, disk: dict[str, Any]) -> None:
        super().__init__("the file changed on disk since it was opened")
        self.disk = disk


@dataclass(frozen=True)
class Root:
    """One path from the command line: a folder of case files, or one case file."""

    label: str
    real: Path
    is_file: bool

    @property
    def folder(self) -> Path:
        """The folder the root stands for (a case file's own folder)."""
        return self.real.parent if self.is_file else self.real

    @property
    def identity(self) -> str:
        """A name for this root's real path, the same in every session: the page keeps
        unsaved work under it, so work done in one folder is never offered in another."""
        return hashlib.sha256(f"{self.is_file}:{self.real}".encode()).hexdigest()[:24]


def content_hash(raw: bytes) -> str:
    """The SHA-256 of a file's bytes: a save checks it to find changes made in the meantime."""
    return hashlib.sha256(raw).hexdigest()


def utc_now() -> str:
    """The current time as the annotation history writes it: ``2026-11-30T21:05:00Z``."""
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def case_status(data: Any) -> str:
    """The annotation status of case data; a case without ``annotation`` counts as annotated."""
    annotation = data.get(ANNOTATION_FIELD) if isinstance(data, dict) else None
    status = annotation.get("status") if isinstance(annotation, dict) else None
    return status if isinstance(status, str) else "annotated"


def openable(data: Any) -> str | None:
    """Why the editor cannot open ``data`` (None: it can). The editor needs the shapes it
    shows: an id, the conversation's turns, the artifact, the request and the gold as a list
    of operations. Whatever else is wrong is reported field by field, for annotators to fix."""
    if not isinstance(data, dict):
        return "the file does not hold a JSON object"
    turns = data.get("conversation")
    shapes = {
        "id": isinstance(data.get("id"), str),
        "conversation": isinstance(turns, list)
        and all(
            isinstance(t, dict)
            and isinstance(t.get("user"), str)
            and isinstance(t.get("assistant"), list)
            and all(isinstance(op, dict) for op in t["assistant"])
            for t in turns
        ),
        "artifact": isinstance(data.get("artifact"), dict),
        "request": isinstance(data.get("request"), str),
        "gold": isinstance(data.get("gold"), list)
        and all(isinstance(op, dict) for op in data["gold"]),
    }
    broken = [name for name, ok in shapes.items() if not ok]
    return f"missing or malformed: {', '.join(broken)}" if broken else None


@functools.cache
def _programs() -> dict[str, str]:
    from pytest_revprop.authoring.build import scenario_modules

    return scenario_modules()


def program_of(data: Any) -> dict[str, str] | None:
    """The scenario program a shipped case is generated from (``revprop cases build`` writes
    it, so a hand edit is overwritten by the next build): its path in the checkout and the
    scenario id; None for a case no shipped program makes (by id ``<scenario>/<size>``)."""
    if not isinstance(data, dict) or not isinstance(data.get("scenario"), str):
        return None
    scenario = data["scenario"]
    path = _programs().get(scenario)
    if path is None or data.get("id") != f"{scenario}/{data.get('size')}":
        return None
    return {"path": path, "scenario": scenario}


def where(pointer: str) -> str:
    """A JSON Pointer as a message names it, with a gold operation numbered as the page
    numbers them (from 1): ``/gold/3/value (op 4)``."""
    turn, inner = turn_of(pointer)
    if turn:
        return f"{turn_name(turn)} {where(inner)}"
    parts = pointer.split("/")
    if len(parts) > 2 and parts[1] == "gold" and parts[2].isdigit():
        return f"{pointer} (op {int(parts[2]) + 1})"
    return pointer or "(root)"


def _describe(exc: CaseError) -> str:
    return f"{exc.rule} at {where(exc.pointer)}: {exc.message}"


class CaseStore:
    """The case files under the paths an annotation session was started with."""

    def __init__(self, paths: Sequence[Path | str]) -> None:
        if not paths:
            raise UserError("name at least one folder of case files (or case file)")
        roots = []
        for raw in paths:
            path = Path(raw)
            if not path.exists():
                raise UserError(f"{raw}: no such file or folder")
            if path.is_file() and path.suffix != ".json":
                raise UserError(f"{raw}: not a case file (*.json) or a folder")
            roots.append(Root(str(raw), path.resolve(), path.is_file()))
        self.roots = roots
        self._lock = threading.Lock()

    # ---------------------------------------------------------------------- names

    def files(self) -> list[str]:
        """Every case file's key, folder by folder, in path order."""
        out = []
        for index, root in enumerate(self.roots):
            files = [root.real] if root.is_file else iter_case_files([root.real])
            for file in files:
                out.append(f"{index}/{file.relative_to(root.folder).as_posix()}")
        return out

    def resolve(self, key: Any) -> Path:
        """The real path a key names; raises PathRefused or NotFound."""
        root, relative = self._split(key)
        candidate = root.folder.joinpath(*relative.parts)
        try:
            real = candidate.resolve(strict=True)
        except (OSError, RuntimeError):
            raise NotFound(f"{self.display_path(key)}: no such case file") from None
        inside = real == root.real if root.is_file else real.is_relative_to(root.real)
        if not inside:
            raise PathRefused(f"{key}: the file's real path is outside the folder it was given in")
        if not real.is_file():
            raise NotFound(f"{self.display_path(key)}: not a file")
        return real

    def new_file(self, key: Any) -> Path:
        """The path a key names for a file to be created (its folders made, inside the folder
        it was given under); raises PathRefused, or Conflict when the file exists."""
        root, relative = self._split(key)
        candidate = root.folder.joinpath(*relative.parts)
        if candidate.exists() or candidate.is_symlink():
            raise Conflict(self.read(key))
        candidate.parent.mkdir(parents=True, exist_ok=True)
        parent = candidate.parent.resolve()
        inside = parent == root.folder if root.is_file else parent.is_relative_to(root.real)
        if not inside:
            raise PathRefused(f"{key}: the file's real path is outside the folder it was given in")
        return parent / candidate.name

    def _split(self, key: Any) -> tuple[Root, PurePosixPath]:
        if not isinstance(key, str) or not key or len(key) > MAX_KEY_CHARS:
            raise PathRefused("a file key is a non-empty string")
        if "\\" in key or "\x00" in key:
            raise PathRefused(f"{key!r}: backslashes and NUL are not allowed")
        head, _, tail = key.partition("/")
        if not head.isdigit() or int(head) >= len(self.roots):
            raise PathRefused(f"{key}: no such folder")
        relative = PurePosixPath(tail)
        if (
            not tail
            or relative.is_absolute()
            or any(part in ("", ".", "..") or part.startswith(".") for part in tail.split("/"))
        ):
            raise PathRefused(f"{key}: only plain relative paths inside the folder")
        if relative.suffix != ".json":
            raise PathRefused(f"{key}: only case files (*.json)")
        root = self.roots[int(head)]
        if root.is_file and relative != PurePosixPath(root.real.name):
            raise PathRefused(f"{key}: only the case file given")
        return root, relative

    def display_path(self, key: str) -> str:
        """The key as the annotator knows it: the path given, then the file inside it."""
        root, relative = self._split(key)
        return root.label if root.is_file else str(Path(root.label) / relative)

    # ---------------------------------------------------------------------- reading

    def read(self, key: str) -> dict[str, Any]:
        """A case file as the editor gets it: hash, data (None when not JSON) and, when it
        breaks a loading rule, the error; ``openable`` is None or why it cannot be edited."""
        path = self.resolve(key)
        try:
            raw = path.read_bytes() if path.stat().st_size <= MAX_CASE_BYTES else None
        except OSError as exc:
            raise NotFound(f"{key}: cannot be read ({exc.strerror or exc})") from None
        entry: dict[str, Any] = {
            "file": key,
            "path": self.display_path(key),
            "hash": content_hash(raw) if raw is not None else None,
            "data": None,
            "error": None,
            "rule": None,
            "leaves": None,
            "openable": None,
            "turns": 1,
            "error_turn": None,
            "program": None,
        }
        if raw is None:
            entry["error"] = entry["openable"] = f"readable: larger than {MAX_CASE_BYTES} bytes"
            return entry
        try:
            entry["data"] = loads_strict(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            entry["error"] = entry["openable"] = f"json: {' '.join(str(exc).split())[:200]}"
            return entry
        if isinstance(entry["data"], dict) and isinstance(entry["data"].get("artifact"), dict):
            entry["leaves"] = leaf_count(entry["data"]["artifact"])
        entry["turns"] = 1 + len(followups_of(entry["data"]))
        entry["program"] = program_of(entry["data"])
        try:
            Case.from_dict(entry["data"])
        except CaseError as exc:
            entry["error"] = _describe(exc)
            entry["rule"] = exc.rule
            entry["error_turn"] = turn_of(exc.pointer)[0]
            entry["openable"] = openable(entry["data"])
        return entry

    def stamp(self) -> str:
        """A digest of every case file's name, size and modification time: cheap to make, and
        different whenever a file is added, removed or written (the page polls it)."""
        parts = []
        for key in self.files():
            try:
                info = self.resolve(key).stat()
            except (PathRefused, NotFound, OSError):
                parts.append(f"{key}:-")
                continue
            parts.append(f"{key}:{info.st_size}:{info.st_mtime_ns}")
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()

    def listing(self) -> list[dict[str, Any]]:
        """One sidebar entry per case file; a broken file is listed with its error."""
        return [self.summary(key) for key in self.files()]

    def summary(self, key: str) -> dict[str, Any]:
        """The sidebar entry of file ``key``: what ``read`` says of it but the data, plus the case's
        id, status, markers, number of gold operations and request; the error alone when the file
        cannot be read.
        """
        try:
            entry = self.read(key)
        except (PathRefused, NotFound) as exc:
            return {"file": key, "path": key, "error": str(exc), "openable": str(exc)}
        data = entry.pop("data")
        fields = data if isinstance(data, dict) else {}
        gold = fields.get("gold")
        return entry | {
            "id": fields.get("id"),
            "status": case_status(fields),
            "domain": fields.get("domain"),
            "pattern": fields.get("pattern"),
            "size": fields.get("size"),
            "split": fields.get("split"),
            "ops": len(gold) if isinstance(gold, list) else None,
            "request": fields.get("request") if isinstance(fields.get("request"), str) else None,
        }

    # ---------------------------------------------------------------------- saving

    def save(
        self,
        key: str,
        data: Any,
        *,
        base_hash: str,
        annotator: str,
        action: str = "edited",
        note: str = "",
        merge_with: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None,
        create: bool = False,
    ) -> dict[str, Any]:
        """Write ``data`` over the file if it is still at ``base_hash``; returns the new
        ``read`` entry. Raises Conflict, SaveRefused, PathRefused or NotFound. When the file
        changed, ``merge_with(disk data)`` may give the data to write instead (the edits
        merged with the file, under the same lock, so that no other save slips in between);
        None: it is a Conflict. ``create``: the file is gone (renamed or deleted while open)
        and ``data``, whole, is written as a new file at ``key`` (a Conflict if one is there)."""
        annotator = " ".join(str(annotator).split())
        if not annotator:
            raise SaveRefused("enter your name before saving: the history records who saved")
        if len(annotator) > MAX_NAME_CHARS:
            raise SaveRefused(f"a name has at most {MAX_NAME_CHARS} characters")
        if action not in ACTIONS:
            raise SaveRefused(f"unknown action {action!r} (choose from {', '.join(ACTIONS)})")
        if not isinstance(data, dict):
            raise SaveRefused("the case is not a JSON object")
        with self._lock:
            if create:
                path = self.new_file(key)
                annotation = _next_annotation(data, data, annotator, action, note, data)
                content = derive_chain(_content(data))[0]
                try:
                    case = Case.from_dict(content | {ANNOTATION_FIELD: annotation})
                except CaseError as exc:
                    raise SaveRefused(_refusal(exc)) from None
                write_atomically(path, dump_case(case.to_dict()).encode("utf-8"))
                return self.read(key)
            path = self.resolve(key)
            current = self.read(key)
            if current["hash"] != base_hash:
                mergeable = current["openable"] is None and isinstance(current["data"], dict)
                replacement = merge_with(current["data"]) if merge_with and mergeable else None
                if replacement is None:
                    raise Conflict(current)
                data = replacement
            disk = current["data"]
            if current["openable"] is not None or not isinstance(disk, dict):
                raise SaveRefused(f"the file on disk cannot be edited here: {current['openable']}")
            merged = disk | {k: data[k] for k in EDITABLE if k in data}
            merged["gold"] = kept_number_forms(merged["gold"], disk.get("gold"))
            merged = with_followups(merged, data, disk)
            annotation = _next_annotation(disk, merged, annotator, action, note, data)
            merged.pop(ANNOTATION_FIELD, None)
            try:
                case = Case.from_dict(merged | {ANNOTATION_FIELD: annotation})
            except CaseError as exc:
                raise SaveRefused(_refusal(exc)) from None
            write_atomically(path, dump_case(case.to_dict()).encode("utf-8"))
            return self.read(key)


def _refusal(exc: CaseError) -> str:
    """Why a save is refused: the rule, and the turn of a chain that breaks it."""
    turn, _ = turn_of(exc.pointer)
    if turn == 0:
        return f"the case breaks a rule: {_describe(exc)}"
    return f"nothing was written: {turn_name(turn)} breaks a rule: {_describe(exc)}"


def with_followups(merged: dict[str, Any], sent: dict[str, Any], disk: dict[str, Any]) -> Any:
    """``merged`` with the follow-ups the page sent (their request, reference, gold and theme;
    none sent: those on disk) and every follow-up's document derived from the turn before."""
    if "followups" in sent:
        mine = followups_of(sent)
        theirs = followups_of(disk)
        followups = []
        for index, followup in enumerate(mine):
            kept = theirs[index] if index < len(theirs) else {}
            new = kept | {k: followup[k] for k in FOLLOWUP_EDITABLE if k in followup}
            new["gold"] = kept_number_forms(new.get("gold"), kept.get("gold"))
            followups.append(new)
        merged = {k: v for k, v in merged.items() if k != "followups"}
        if followups:  # (the writer puts the fields in the file's order)
            merged["followups"] = followups
    return derive_chain(merged)[0]


def _content(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k != ANNOTATION_FIELD}


def kept_number_forms(gold: Any, old: Any) -> Any:
    """``gold`` with each value that equals the value of the same operation (op and path) in
    ``old`` taken from ``old``, so that 1190.0 stays 1190.0 after a browser read it as 1190."""
    if not isinstance(gold, list) or not isinstance(old, list):
        return gold
    before = {(o.get("op"), o.get("path")): o for o in old if isinstance(o, dict) and "value" in o}
    out = []
    for op in gold:
        same = before.get((op.get("op"), op.get("path"))) if isinstance(op, dict) else None
        if same is not None and "value" in op and json_equal(op["value"], same["value"]):
            op = {**op, "value": same["value"]}
        out.append(op)
    return out


def _next_annotation(
    disk: dict[str, Any],
    merged: dict[str, Any],
    annotator: str,
    action: str,
    note: str,
    sent: dict[str, Any],
) -> dict[str, Any]:
    old = disk.get(ANNOTATION_FIELD)
    old = old if isinstance(old, dict) else {}
    history = [dict(h) for h in old.get("history", []) if isinstance(h, dict)]
    if action == "reviewed":
        if case_status(disk) == "draft":
            raise SaveRefused("a draft needs a person's annotation first: save it, then review")
        if not json_equal(_content(merged), _content(disk)):
            raise SaveRefused(
                "save your edits first: a review records that the saved gold is right"
            )
        editors = [h.get("annotator") for h in history if h.get("action") == "edited"]
        if editors and editors[-1] == annotator:
            raise SaveRefused(
                f"{annotator} edited this case last; a review is a second person's check"
            )
    entry = {"annotator": annotator, "time": utc_now(), "action": action}
    if note.strip():
        entry["note"] = note.strip()
    was = case_status(disk)
    if action == "reviewed":
        status = "reviewed"
    else:
        status = "changed" if was in ("reviewed", "changed") else "annotated"
    new: dict[str, Any] = {
        "status": status,
        "history": [*history, entry],
    }
    sent_annotation = sent.get(ANNOTATION_FIELD)
    notes = sent_annotation.get("notes") if isinstance(sent_annotation, dict) else old.get("notes")
    if isinstance(notes, str) and notes:
        new["notes"] = notes
    if "draft" in old:
        new["draft"] = _draft_sent(old["draft"], sent_annotation, merged)
    return new


def _draft_sent(draft: Any, sent: Any, merged: dict[str, Any]) -> Any:
    """The draft's record with each turn's review flags as the page moved them with their
    operations: turn 0's (``flags``) and each follow-up's (``followups[i].flags``)."""
    mine = sent.get("draft") if isinstance(sent, dict) else None
    if not isinstance(draft, dict) or not isinstance(mine, dict):
        return draft
    out = dict(draft)
    flags = _flags_sent(mine.get("flags"), merged.get("gold"))
    if flags is not None:
        out["flags"] = flags
    notes, sent_notes = draft.get("followups"), mine.get("followups")
    if isinstance(notes, list) and isinstance(sent_notes, list):
        golds = [f.get("gold") for f in followups_of(merged)]
        out["followups"] = []
        for index, note in enumerate(notes):
            sent_note = sent_notes[index] if index < len(sent_notes) else None
            flags = _flags_sent(
                sent_note.get("flags") if isinstance(sent_note, dict) else None,
                golds[index] if index < len(golds) else [],
            )
            kept = isinstance(note, dict) and flags is not None
            out["followups"].append({**note, "flags": flags} if kept else note)
    return out


def _flags_sent(flags: Any, gold: Any) -> list[dict[str, Any]] | None:
    """One turn's review flags as the page moved them with their operations (deleted,
    reordered, merged), each on an operation the saved gold has; None when the page sent none."""
    if not isinstance(flags, list) or not isinstance(gold, list):
        return None
    return [
        {"gold": f["gold"], "reason": f["reason"]}
        for f in flags
        if isinstance(f, dict)
        and isinstance(f.get("gold"), int)
        and not isinstance(f.get("gold"), bool)
        and 0 <= f["gold"] < len(gold)
        and isinstance(f.get("reason"), str)
    ]


def write_atomically(path: Path, raw: bytes) -> None:
    """Replace ``path`` by ``raw`` so that a crash leaves the old file or the new, never a mix."""
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
    temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(raw)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    _sync_folder(path.parent)


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable (where the platform allows opening a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
