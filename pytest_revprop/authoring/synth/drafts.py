"""What a draft becomes on disk: a case file with its ``annotation`` object, or a rejected
record with its reasons.

A draft case is written by the project's one case writer (``assembly.dump_case``) to
``OUT/<id>.json`` only after it passes every loading rule; its ``annotation`` says
``status: draft``, with one ``drafted`` history entry and the ``draft`` provenance
(generator, card, models, seeds, cost, source, flags; ``docs/case-format.md``). A rejected
draft is never dropped: ``OUT/__rejected__/<id>.json`` keeps what was made, the step that
failed, its reasons and every failed attempt. The loader skips folders named ``__...``, so
``OUT`` stays a folder of valid cases. Writing one kind removes a stale file of the other.

A case file that holds a person's work is never overwritten nor removed (``persons_work``):
its status is not ``draft``, or its history has an entry other than synth's ``drafted``, or
it is not a case synth could have written. Such a draft is skipped (``KeptWork``).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_revprop import __version__
from pytest_revprop.core.cases import ANNOTATION_FIELD, Case, Turn, dump_case
from pytest_revprop.util.jsonutil import leaf_count

GENERATOR = f"revprop synth {__version__}"
ANNOTATOR = "synth"
REJECTED_FOLDER = "__rejected__"
"""Where rejected drafts go, inside the output folder (skipped by the case loader)."""


class KeptWork(Exception):
    """The draft's case file holds a person's work: it is kept, and the draft not written."""

    def __init__(self, path: Path, why: str) -> None:
        self.path = path
        self.why = why
        super().__init__(f"{path} {why}: kept, not overwritten")


def persons_work(path: Path) -> str | None:
    """Why the case file at ``path`` holds a person's work (a reason to never overwrite or
    remove it), or None when there is no file or synth drafted it and nobody changed it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, ValueError):
        return "is not a case file synth wrote (it cannot be read as JSON)"
    note = data.get(ANNOTATION_FIELD) if isinstance(data, dict) else None
    if not isinstance(note, dict):
        return "has no synth annotation (someone else wrote it)"
    status = note.get("status")
    if status != "draft":
        return f"has annotation status {status!r}"
    history = note.get("history")
    for entry in history if isinstance(history, list) else [{}]:
        entry = entry if isinstance(entry, dict) else {}
        if (entry.get("annotator"), entry.get("action")) != (ANNOTATOR, "drafted"):
            action, by = entry.get("action"), entry.get("annotator")
            return f"has a {action!r} entry by {by!r} in its history"
    return None


def check_not_persons_work(path: Path) -> None:
    """Raise KeptWork when the case file at ``path`` holds a person's work."""
    why = persons_work(path)
    if why is not None:
        raise KeptWork(path, why)


def utc_now() -> str:
    """The time as the annotation history writes it: ISO 8601, UTC, seconds, ``Z``."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def annotation(
    *,
    models: Mapping[str, str],
    seeds: Sequence[int],
    cost_usd: float,
    card: str | None,
    source: str | None,
    flags: Sequence[Mapping[str, Any]] = (),
    notes: str = "",
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``annotation`` object of a model-made case (``status: draft``)."""
    draft = {
        "generator": GENERATOR,
        "card": card,
        "models": dict(models),
        "seeds": list(seeds),
        "cost_usd": round(max(cost_usd, 0.0), 8),
        "source": source,
        "flags": [dict(f) for f in flags],
        **(extra or {}),
    }
    out: dict[str, Any] = {
        "status": "draft",
        "history": [{"annotator": ANNOTATOR, "time": utc_now(), "action": "drafted"}],
    }
    if notes:
        out["notes"] = notes
    out["draft"] = draft
    return out


def context_case(
    *,
    case_id: str,
    scenario: str,
    domain: str,
    pattern: str,
    split: str,
    theme: str,
    conversation: Sequence[Mapping[str, Any]],
    artifact: Any,
    request: str,
    notes: str = "",
) -> Case:
    """The draft as a case without gold: what a gold model is shown."""
    return Case.of(
        id=case_id,
        scenario=scenario,
        domain=domain,
        pattern=pattern,
        size=leaf_count(artifact),
        split=split,
        theme=theme,
        conversation=[Turn(str(t["user"]), list(t["assistant"])) for t in conversation],
        artifact=artifact,
        request=request,
        reference=None,
        gold=[],
        notes=notes,
    )


def case_data(
    case: Case, gold: Sequence[Mapping[str, Any]], note: dict[str, Any]
) -> dict[str, Any]:
    """The file data of ``case`` with ``gold`` and the annotation ``note``."""
    data = case.to_dict() | {"gold": [dict(op) for op in gold]}
    data[ANNOTATION_FIELD] = note
    return data


def file_for(out: Path, case_id: str, rejected: bool = False) -> Path:
    """``OUT/<id>.json`` (or under ``__rejected__``), each part of the id made a safe name."""
    parts = [re.sub(r"[^A-Za-z0-9._~+-]", "_", part) for part in case_id.split("/")]
    parts = [part if part.strip(".") else part.replace(".", "_") or "_" for part in parts]
    parts[-1] += ".json"
    return out.joinpath(REJECTED_FOLDER, *parts) if rejected else out.joinpath(*parts)


def write_case(out: Path, data: Mapping[str, Any]) -> Path:
    """Write a draft case (it must pass the loading rules: raises CaseError otherwise; and
    KeptWork, writing nothing, when the file there holds a person's work)."""
    text = dump_case(data)
    Case.from_dict(json.loads(text), source=str(file_for(out, str(data["id"]))))
    path = file_for(out, str(data["id"]))
    check_not_persons_work(path)
    _write(path, text)
    _remove(out, file_for(out, str(data["id"]), rejected=True))
    return path


def write_rejected(out: Path, case_id: str, record: Mapping[str, Any]) -> Path:
    """Write a rejected draft's record; a draft case of the same id is removed, unless it
    holds a person's work."""
    path = file_for(out, case_id, rejected=True)
    _write(path, json.dumps(record, indent=2, ensure_ascii=False) + "\n")
    case_file = file_for(out, case_id)
    if persons_work(case_file) is None:
        _remove(out, case_file)
    return path


def rejected_record(
    *,
    case_id: str,
    step: str,
    reasons: Sequence[str],
    made: Mapping[str, Any],
    attempts: Sequence[Mapping[str, Any]],
    note: dict[str, Any],
) -> dict[str, Any]:
    """A rejected draft: which step failed and why, what was made, every failed attempt."""
    return {
        "id": case_id,
        "rejected": {"step": step, "reasons": list(reasons)},
        **made,
        "attempts": list(attempts),
        ANNOTATION_FIELD: note,
    }


def _remove(out: Path, path: Path) -> None:
    """Remove a stale file, and the folders under ``out`` it leaves empty."""
    path.unlink(missing_ok=True)
    folder = path.parent
    while folder != out and out in folder.parents:
        try:
            folder.rmdir()
        except OSError:  # not empty (or already gone): the folders above are not empty either
            return
        folder = folder.parent


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
