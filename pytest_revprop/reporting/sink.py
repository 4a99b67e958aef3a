"""The record sink: a run's result records go to its reports folder as they arrive.

``RecordSink.add`` appends each record to ``samples.jsonl`` and the text of each reply whose
key it has not stored yet to the reply store (``replystore``), flushing both, so a run
stopped at any moment leaves the records that arrived and their replies on disk. In memory
it keeps only a compact outcome table (one small tuple per result: where its line is, and
the numbers the summary and the baseline gate need). ``finish`` writes, from the table and
the lines on disk, ``results.json`` (summary rows, then one result row per line), the sorted
``samples.jsonl`` and ``summary.md``. ``records()`` streams the full records back (replies
with their text) for whoever needs them after the run.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, Any, NamedTuple

from pytest_revprop import __version__
from pytest_revprop.reporting.aggregate import file_order, markdown_summary, summarize
from pytest_revprop.reporting.chains import CHAIN_RESULT_KEYS, turn_outcomes
from pytest_revprop.reporting.replystore import (
    REPLIES_DIR,
    TEXT_FIELDS,
    ReplyReader,
    ReplyWriter,
    reply_key,
)
from pytest_revprop.reporting.samples import SAMPLES_FILE, SampleFile
from pytest_revprop.util.private import open_private, private_dir, temp_beside, write_private
from pytest_revprop.util.strictjson import json_bytes
from pytest_revprop.vocabulary import (
    ITEM_KEY_FIELDS,
    OUTCOME_FIELDS,
    RESULT_KEYS,
    SAMPLE_ONLY_KEYS,
    item_key,
)

__all__ = ["RUN_FILES", "OutcomeTable", "RecordSink", "SentTexts", "failed_record"]

RUN_FILES = ("results.json", SAMPLES_FILE, "summary.md", "report.html")
RUN_FOLDERS = (REPLIES_DIR, "report_files")
"""What a run writes and replaces in its reports folder when its first record arrives (the
figures and report.md are replaced when written)."""
TABLE_FIELDS = (
    *OUTCOME_FIELDS,
    "selection_fallback",
    "cascade_recall",
    "preservation",
    "domain",
    "pattern",
    "size",
)
"""What the outcome table keeps of each result besides its key (``ITEM_KEY_FIELDS``)."""
CHAIN_TABLE_FIELDS = ("chain", "turns_completed", "regressions", "turn_outcomes")
"""What it keeps besides of a chain record (``chains.turn_outcomes``: per turn, whether it
completed), for the chain fields of the summary."""
ROW_KEYS = tuple(key for key in RESULT_KEYS if key not in CHAIN_RESULT_KEYS)
"""The keys every results.json row has; a chain record's row adds ``CHAIN_RESULT_KEYS``."""
LINE_KEYS = tuple(key for key in (*RESULT_KEYS, *SAMPLE_ONLY_KEYS) if key not in CHAIN_RESULT_KEYS)
"""The keys every samples.jsonl line has; a chain record's line adds ``CHAIN_RESULT_KEYS``."""


def _chain_keys(record: Mapping[str, Any]) -> tuple[str, ...]:
    return CHAIN_RESULT_KEYS if record.get("chain") else ()


class _Entry(NamedTuple):
    """One result in the outcome table: where its line is, and its outcome."""

    offset: int
    length: int
    outcome: tuple[Any, ...]  # TABLE_FIELDS, in order
    chain: tuple[Any, ...] | None = None  # CHAIN_TABLE_FIELDS of a chain record


class OutcomeTable:
    """The outcome table as rows (dicts of the key fields and ``TABLE_FIELDS``), in the
    report files' order, made one at a time while iterated: enough for the summary, the
    usage means of the report and the baseline gate, at a few hundred bytes per result."""

    def __init__(self, entries: dict[tuple[Any, ...], _Entry]) -> None:
        self.keys = sorted(
            entries, key=lambda key: file_order(dict(zip(ITEM_KEY_FIELDS, key, strict=True)))
        )
        self._entries = entries

    def __len__(self) -> int:
        return len(self.keys)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for key in self.keys:
            entry = self._entries[key]
            row = {
                **dict(zip(ITEM_KEY_FIELDS, key, strict=True)),
                **dict(zip(TABLE_FIELDS, entry.outcome, strict=True)),
            }
            if entry.chain is not None:
                row.update(zip(CHAIN_TABLE_FIELDS, entry.chain, strict=True))
            yield row


REPORT_FILES = ("results.json", "samples.jsonl", "summary.md", "replies")
"""What ``RecordSink.finish`` leaves in the reports folder (``replies`` is a folder)."""


class RecordSink:
    """Streams a run's records into ``out_dir``. Nothing is touched before the first record:
    then the previous run's files there (``RUN_FILES``, ``RUN_FOLDERS``) are removed.

    A record's replies may arrive without their text (an xdist worker sends each text once):
    the text came with an earlier record and is in the store under the reply's ``key``.
    The same item arriving twice keeps its last record.
    """

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = Path(out_dir)
        self.samples_path = self.out_dir / SAMPLES_FILE
        self._samples: IO[bytes] | None = None
        self._replies: ReplyWriter | None = None
        self._entries: dict[tuple[Any, ...], _Entry] = {}
        self._offset = 0
        self._names: dict[str, str] = {}
        self.dropped: list[str] = []
        """Records that could not be written even as an error (no readable key)."""

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def _open(self) -> tuple[IO[bytes], ReplyWriter]:
        private_dir(self.out_dir)
        for name in RUN_FILES:
            (self.out_dir / name).unlink(missing_ok=True)
        for name in RUN_FOLDERS:
            shutil.rmtree(self.out_dir / name, ignore_errors=True)
        self._samples = open_private(self.samples_path)
        self._replies = ReplyWriter(self.out_dir / REPLIES_DIR)
        return self._samples, self._replies

    def _name(self, value: str) -> str:
        """One string object per distinct case, model and method name."""
        return self._names.setdefault(value, value)

    def add(self, record: Mapping[str, Any]) -> None:
        """Write ``record`` (and its new replies' text) to disk, and note its outcome.

        Never raises for what a record holds: a record that cannot be written is written as
        its item's ``method_failed`` error with the reason (``failed_record``); one whose key
        cannot even be read is counted in ``dropped``. Strings JSON cannot carry as UTF-8
        (lone surrogates) are written escaped."""
        try:
            self._add(record)
        except Exception as exc:  # one bad record must never lose the run's others
            try:
                self._add(failed_record(record, exc))
            except Exception as second:
                self.dropped.append(f"{type(second).__name__}: {second!a}")

    def _add(self, record: Mapping[str, Any]) -> None:
        if self._samples is None or self._replies is None:
            samples, store = self._open()
        else:
            samples, store = self._samples, self._replies
        replies = []
        for reply in record.get("replies") or []:
            entry = {k: v for k, v in reply.items() if k not in TEXT_FIELDS}
            if "content" in reply:
                entry["key"], _ = store.add(reply)
            replies.append(entry)
        store.flush()  # the replies a record names are on disk before the record
        line = {key: record.get(key) for key in (*LINE_KEYS, *_chain_keys(record))}
        line["replies"] = replies
        data = json_bytes(line) + b"\n"
        samples.write(data)
        samples.flush()
        case, model, method, k, seed = item_key(record)
        key = (self._name(str(case)), self._name(str(model)), self._name(str(method)), k, seed)
        outcome = tuple(record.get(name) for name in TABLE_FIELDS)
        chain = None
        if record.get("chain"):
            chain = (
                str(record["chain"]),
                record.get("turns_completed"),
                record.get("regressions"),
                turn_outcomes(record),
            )
        self._entries[key] = _Entry(self._offset, len(data), outcome, chain)
        self._offset += len(data)

    def outcomes(self) -> OutcomeTable:
        """The outcome table of every record received so far."""
        return OutcomeTable(self._entries)

    def summary(self) -> list[dict[str, Any]]:
        """The summary rows of every record received so far."""
        return summarize(self.outcomes())

    def records(self, *, with_replies: bool = True) -> SampleFile:
        """The records written so far, streamed back from disk (in the report files' order
        after ``finish``), with their replies' text unless ``with_replies`` is False."""
        if self._samples is not None and not self._samples.closed:
            self._samples.flush()
        reader = ReplyReader(self.out_dir / REPLIES_DIR) if with_replies else None
        return SampleFile(self.samples_path, replies=reader)

    def close(self) -> None:
        """Close the samples and reply files."""
        if self._samples is not None:
            self._samples.close()
        if self._replies is not None:
            self._replies.close()

    def finish(self, meta: Mapping[str, Any]) -> dict[str, Any]:
        """Write results.json, samples.jsonl (sorted) and summary.md; returns the results
        document: ``meta`` (with version and creation time), ``summary`` and, as ``results``,
        the outcome table (``OutcomeTable``; results.json has the full rows)."""
        if self._samples is None:
            self._open()
        assert self._samples is not None
        self.close()
        outcomes = self.outcomes()
        doc: dict[str, Any] = {
            "meta": {
                "version": __version__,
                "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
                **meta,
            },
            "summary": summarize(outcomes),
            "results": outcomes,
        }
        self._write_sorted(doc, outcomes)
        write_private(self.out_dir / "summary.md", markdown_summary(doc))
        return doc

    def _write_sorted(self, doc: Mapping[str, Any], outcomes: OutcomeTable) -> None:
        """results.json and the sorted samples.jsonl, one record at a time from the lines."""
        head = json.dumps({"meta": doc["meta"], "summary": doc["summary"]}, indent=1)
        results_tmp = temp_beside(self.out_dir / "results.json")
        samples_tmp = temp_beside(self.samples_path)
        with (
            self.samples_path.open("rb") as lines,
            open_private(results_tmp) as results,
            open_private(samples_tmp) as samples,
        ):
            results.write(head[: head.rindex("\n}")].encode("utf-8") + b',\n "results": [')
            first = True
            for key in outcomes.keys:
                entry = self._entries[key]
                lines.seek(entry.offset)
                line = lines.read(entry.length)
                samples.write(line)
                record = json.loads(line)
                row = {name: record.get(name) for name in (*ROW_KEYS, *_chain_keys(record))}
                results.write(b"\n  " if first else b",\n  ")
                results.write(json_bytes(row))
                first = False
            results.write(b"\n ]\n}\n" if not first else b"]\n}\n")
        os.replace(samples_tmp, self.samples_path)
        os.replace(results_tmp, self.out_dir / "results.json")
        offset = 0
        for key in outcomes.keys:
            entry = self._entries[key]
            self._entries[key] = entry._replace(offset=offset)
            offset += entry.length


def failed_record(record: Mapping[str, Any], exc: BaseException) -> dict[str, Any]:
    """The record of an item whose own record could not be written: its key, its calls'
    usage when readable, and a ``method_failed`` error naming the reason."""
    key = {name: record[name] for name in ITEM_KEY_FIELDS}  # as they are: the same item
    numbers = {
        name: value if isinstance(value := record.get(name), int | float) else default
        for name, default in (("cost_usd", 0.0), ("latency_s", 0.0), ("calls", 0))
    }
    return {
        **key,
        **numbers,
        "completed": False,
        "valid": False,
        "error": "method_failed",
        "reason": f"the result record could not be written: {type(exc).__name__}: {exc!a}"[:500],
        "replies": [],
    }


class SentTexts:
    """The replies whose text a process has sent on (an xdist worker, to the controller's
    sink): ``strip`` leaves the text out of replies sent before, keeping their key."""

    def __init__(self) -> None:
        self._keys: set[str] = set()

    def strip(self, record: Mapping[str, Any]) -> Any:
        """``record`` with the text left out of every reply sent before (its key stays, for the
        receiver to find the text by).
        """
        replies = []
        for reply in record.get("replies") or []:
            if "content" not in reply:
                replies.append(reply)
                continue
            key = reply_key(reply)
            if key in self._keys:
                reply = {k: v for k, v in reply.items() if k not in TEXT_FIELDS}
                reply["key"] = key
            else:
                self._keys.add(key)
            replies.append(reply)
        return {**record, "replies": replies}
