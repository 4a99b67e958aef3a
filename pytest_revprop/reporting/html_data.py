"""The data behind report.html's sample browser: a compact index in the page, and the rest in
files beside it that the page loads when a sample is opened.

- In the page: per sample its case, model, method, k, seed and outcome (small integers
  into shared lists), and per case its id, domain, pattern and size: enough to list and
  filter every sample of a paper-scale run.
- ``report_files/cNNNNN.js``, one per case: the case (conversation, artifact, gold, expected
  artifact) and the details of each of its samples (findings, patch, the artifact after the
  patch, the replies' facts, each with the number of the reply-store file holding its text),
  with patches, findings and artifacts stored once per file.
- ``replies/rNNNNN.js``: the reply store (``replystore``), shared with samples.jsonl.

Data files are JavaScript calls (``revpropCase(n, "<JSON text>")``), the one way a page
opened from ``file://`` can read another file; the page parses the text with ``JSON.parse``
and inserts every piece of it with ``textContent``. Samples are read one case at a time, so
building the data holds one case's samples, never the run's.
"""

from __future__ import annotations

import json
import math
import shutil
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from pytest_revprop.reporting.metrics import solved_label
from pytest_revprop.reporting.replystore import (
    REPLIES_DIR,
    TEXT_FIELDS,
    ReplyReader,
    ReplyWriter,
    copy_store,
)
from pytest_revprop.reporting.samples import SampleFile
from pytest_revprop.util.private import private_dir, write_private
from pytest_revprop.vocabulary import (
    FAILURE_KINDS,
    INFRASTRUCTURE_ERRORS,
    USAGE_FIELDS,
    VERDICT_FIELDS,
)

__all__ = ["DATA_DIR", "OUTCOMES", "build_data", "case_file_name", "sample_outcome"]

DATA_DIR = "report_files"
OUTCOMES = ("completed", "failed", "invalid", "error")
DETAIL_FIELDS = (
    *VERDICT_FIELDS,
    "reason",
    *FAILURE_KINDS,
    *USAGE_FIELDS,
    "selection_fallback",
    "request",
)
"""What a sample's detail holds besides the index, its patch, findings, artifact and replies."""
CASE_FIELDS = (
    "id",
    "scenario",
    "domain",
    "pattern",
    "size",
    "split",
    "theme",
    "conversation",
    "artifact",
    "request",
    "reference",
    "gold",
    "notes",
)


TURN_FIELDS = (
    "turn",
    "completed",
    "valid",
    "error",
    "reason",
    *FAILURE_KINDS,
    "regressions",
    "regressed",
    "request",
)
"""What a chain sample's detail holds of each turn besides its patch and findings."""


def case_file_name(number: int) -> str:
    """The name of case file ``number`` in DATA_DIR (report.js builds the same names)."""
    return f"c{number:05d}.js"


def sample_outcome(record: Mapping[str, Any]) -> str:
    """completed / failed (valid but wrong) / invalid (no usable patch) / error (the call failed)."""
    if record.get("completed"):
        return "completed"
    if record.get("error") in INFRASTRUCTURE_ERRORS:
        return "error"
    if record.get("valid") is False or record.get("error"):
        return "invalid"
    return "failed"


def finite(value: Any) -> Any:
    """``value`` with NaN / Infinity replaced by null (json.loads accepts them, JSON.parse does not)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [finite(v) for v in value]
    return value


class _Interner:
    """Stores each distinct JSON value once; samples refer to it by index."""

    def __init__(self) -> None:
        self.values: list[Any] = []
        self._index: dict[str, int] = {}

    def add(self, value: Any, key: str | None = None) -> int:
        """The index of ``value`` (``key``: its JSON spelling with sorted keys, if known)."""
        if key is None:
            key = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
        if key not in self._index:
            self._index[key] = len(self.values)
            self.values.append(value)
        return self._index[key]


def _plain_gold(case: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [
        {k: v for k, v in op.items() if k in ("op", "path", "value")} for op in case.get("gold", [])
    ]


def _applied(artifact: Any, patch: Any) -> tuple[Any, str | None]:
    """(artifact after ``patch``, None) or (None, why it does not apply)."""
    from pytest_revprop.core.extraction import InvalidReply
    from pytest_revprop.core.scoring import apply_patch

    if not isinstance(patch, list):
        return None, "no patch"
    try:
        return apply_patch(artifact, patch), None
    except InvalidReply as exc:
        return None, exc.reason


def case_entry(case: Mapping[str, Any]) -> dict[str, Any]:
    """A case as the HTML report's data holds it: its fields, plus the artifact its gold makes (or
    why the gold does not apply, so a broken case shows instead of failing the report).
    """
    entry = {name: case.get(name) for name in CASE_FIELDS}
    entry["expected"], entry["expected_error"] = _applied(case.get("artifact"), _plain_gold(case))
    return entry


class _Replies:
    """Where each reply's text is: the store beside the page (filled from the samples' store
    and from replies that carry their text)."""

    def __init__(self, folder: Path, source: Path | None) -> None:
        if source is not None and source.is_dir():
            copy_store(source, folder)
        self.folder = folder
        self._reader = ReplyReader(folder)
        self._writer: ReplyWriter | None = None

    def entry(self, reply: Mapping[str, Any]) -> dict[str, Any]:
        """The reply's facts, its key and the number of the store file holding its text."""
        entry = {k: v for k, v in reply.items() if k not in TEXT_FIELDS}
        if "content" in reply:
            if self._writer is None:
                self._writer = ReplyWriter(self.folder)
            entry["key"], entry["file"] = self._writer.add(reply)
        elif self._writer is not None:
            entry["file"] = self._writer.places.get(str(reply.get("key")))
        else:
            entry["file"] = self._reader.file_of(str(reply.get("key")))
        return entry

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()


class _CaseShared:
    """What the samples of one case share in its file: each distinct patch, findings list and
    artifact once, and each distinct patch applied once."""

    def __init__(self, case: Mapping[str, Any] | None) -> None:
        self.case = case
        self.patches = _Interner()
        self.findings = _Interner()
        self.artifacts: list[Any] = []
        self._after: dict[str, tuple[int | None, str | None]] = {}
        self.chain = False
        """Whether a chain sample is among them (the case entry then holds its follow-ups)."""

    def after(self, patch: Any, key: str) -> tuple[int | None, str | None]:
        """(index of the artifact after ``patch``, None) or (None, why it does not apply)."""
        if key not in self._after:
            assert self.case is not None
            artifact, error = _applied(self.case.get("artifact"), patch)
            if error is None:
                self.artifacts.append(artifact)
                self._after[key] = (len(self.artifacts) - 1, None)
            else:
                self._after[key] = (None, error)
        return self._after[key]

    def payload(self, details: dict[str, Any]) -> dict[str, Any]:
        entry = None if self.case is None else case_entry(self.case)
        if entry is not None and self.case is not None and self.chain:
            entry["followups"] = [
                {name: f.get(name) for name in ("request", "gold", "theme")}
                for f in self.case.get("followups") or []
                if isinstance(f, Mapping)
            ]
        return {
            "case": entry,
            "samples": details,
            "patches": self.patches.values,
            "findings": self.findings.values,
            "artifacts": self.artifacts,
        }


def _detail(record: Mapping[str, Any], shared: _CaseShared, replies: _Replies) -> dict[str, Any]:
    row = {name: record.get(name) for name in DETAIL_FIELDS}
    patch = record.get("patch")
    key = json.dumps(patch, sort_keys=True, ensure_ascii=False, default=str)
    row["patch"] = shared.patches.add(patch, key)
    row["findings"] = shared.findings.add(record.get("findings") or [])
    case = shared.case
    if case is not None:
        if row["request"] == case.get("request"):
            row["request"] = None
        if not record.get("chain"):
            row["after"], row["after_error"] = shared.after(patch, key)
    row["replies"] = [replies.entry(r) for r in record.get("replies") or [] if isinstance(r, dict)]
    if record.get("chain"):
        row.update(_chain_detail(record, shared))
    return row


def _chain_detail(record: Mapping[str, Any], shared: _CaseShared) -> dict[str, Any]:
    """A chain sample's protocol and turns (each turn's patch and findings stored once per
    case file); its ``after`` is none: each turn's patch applies to the document before that
    turn, which the chain view shows turn by turn."""
    turns = []
    for turn in record.get("turns") or []:
        if not isinstance(turn, Mapping):
            continue
        entry = {name: turn.get(name) for name in TURN_FIELDS}
        entry["patch"] = shared.patches.add(turn.get("patch"))
        entry["findings"] = shared.findings.add(turn.get("findings") or [])
        turns.append(entry)
    shared.chain = True
    return {
        "chain": str(record["chain"]),
        "turns": turns,
        "turns_completed": record.get("turns_completed"),
        "after": None,
        "after_error": "a chain: its turns below show what each one changed",
    }


def _js_call(function: str, number: int, payload: Any) -> str:
    """``function(number, "<JSON>");`` with the JSON as a JavaScript string literal (NaN and
    Infinity, which JSON.parse refuses, written as null)."""
    try:
        text = json.dumps(payload, ensure_ascii=False, default=str, allow_nan=False)
    except ValueError:
        text = json.dumps(finite(payload), ensure_ascii=False, default=str)
    literal = json.dumps(text, ensure_ascii=False)
    literal = literal.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return f"{function}({number}, {literal});\n"


def _sources(
    samples: Iterable[Mapping[str, Any]] | SampleFile,
) -> tuple[Iterable[tuple[Any, Mapping[str, Any]]], Callable[[Any], Mapping[str, Any]]]:
    """(handle, record) pairs and a loader from handle to record: places in a samples file
    (the record is read again when its case's file is written), or the records themselves."""
    if isinstance(samples, SampleFile):
        return (
            ((offset, length), record) for offset, length, record in samples.places()
        ), lambda place: samples.read_at(*place)
    return ((record, record) for record in samples), lambda record: record


def _mark_solved(case_rows: list[dict[str, Any]], index: Mapping[str, list[Any]]) -> None:
    """Each case row's ``solved`` (``metrics.solved_label``) over its samples whose call did
    not fail; None for a case with no such sample."""
    tallies = [[0, 0] for _ in case_rows]
    for where, outcome in zip(index["case"], index["outcome"], strict=True):
        if OUTCOMES[outcome] != "error":
            tallies[where][0] += OUTCOMES[outcome] == "completed"
            tallies[where][1] += 1
    for row, (done, scored) in zip(case_rows, tallies, strict=True):
        row["solved"] = solved_label(done, scored) if scored else None


def _chain_index(record: Mapping[str, Any]) -> tuple[str, list[Any]] | None:
    """A chain sample's protocol and [turns completed before the first failure, turns run]
    for the page's index; None for a sample that is no chain."""
    if not record.get("chain"):
        return None
    turns = record.get("turns")
    return str(record["chain"]), [
        record.get("turns_completed"),
        len(turns) if isinstance(turns, list) else None,
    ]


def build_data(
    meta: Mapping[str, Any],
    samples: Iterable[Mapping[str, Any]] | SampleFile,
    cases: Mapping[str, Mapping[str, Any]],
    out_dir: Path,
    *,
    replies_from: Path | None = None,
) -> dict[str, Any]:
    """Write ``report_files/`` (and complete ``replies/``) in ``out_dir``; return the data
    the page holds. ``replies_from``: the store the samples' reply keys refer to (default:
    ``replies/`` beside the samples file)."""
    data_dir = out_dir / DATA_DIR
    shutil.rmtree(data_dir, ignore_errors=True)
    private_dir(data_dir)
    if replies_from is None and isinstance(samples, SampleFile):
        replies_from = samples.path.parent / REPLIES_DIR
    replies = _Replies(out_dir / REPLIES_DIR, replies_from)
    pairs, load = _sources(samples)
    names: dict[str, dict[Any, int]] = {"models": {}, "methods": {}}
    case_numbers: dict[str, int] = {}
    case_rows: list[dict[str, Any]] = []
    members: list[list[tuple[int, Any]]] = []
    index: dict[str, list[Any]] = {name: [] for name in ("case", "model", "method", "k", "seed")}
    index["outcome"] = []
    chains: list[tuple[str, list[Any]] | None] = []
    for number, (handle, record) in enumerate(pairs):
        case_id = str(record.get("case"))
        if case_id not in case_numbers:
            case_numbers[case_id] = len(case_rows)
            known = cases.get(case_id) or {}
            case_rows.append({
                "id": case_id,
                **{
                    name: known.get(name) if record.get(name) is None else record.get(name)
                    for name in ("domain", "pattern", "size")
                },
            })  # fmt: skip
            members.append([])
        where = case_numbers[case_id]
        members[where].append((number, handle))
        index["case"].append(where)
        for name, table in (("model", names["models"]), ("method", names["methods"])):
            index[name].append(table.setdefault(record.get(name), len(table)))
        index["k"].append(record.get("k"))
        index["seed"].append(record.get("seed"))
        index["outcome"].append(OUTCOMES.index(sample_outcome(record)))
        chains.append(_chain_index(record))
    _mark_solved(case_rows, index)
    if any(entry is not None for entry in chains):
        index["chain"] = [None if entry is None else entry[0] for entry in chains]
        index["turns"] = [None if entry is None else entry[1] for entry in chains]
    try:
        for where, (row, group) in enumerate(zip(case_rows, members, strict=True)):
            shared = _CaseShared(cases.get(row["id"]))
            details = {
                str(number): _detail(load(handle), shared, replies) for number, handle in group
            }
            write_private(
                data_dir / case_file_name(where),
                _js_call("revpropCase", where, shared.payload(details)),
            )
    finally:
        replies.close()
        if isinstance(samples, SampleFile):
            samples.close()
    page: dict[str, Any] = finite(
        {
            "meta": dict(meta),
            "models": list(names["models"]),
            "methods": list(names["methods"]),
            "outcomes": list(OUTCOMES),
            "cases": case_rows,
            "index": index,
        }
    )
    return page
