"""The shards' reports folders merged into one (``revprop combine DIR... --out DIR``).

Each shard of a run (``--revprop-shard=I/N``) writes a whole reports folder whose
``results.json`` says which shard it is (``meta.shard``) and what it ran (models, methods, k,
seeds, split, and ``cases_sha256``, a digest of the selected cases' contents before the
split). ``combine`` checks that the folders are the N shards of one run, each given once,
then streams their records (with their replies' text) through a ``RecordSink`` into ``--out``
and writes the figures and the HTML report as the run's end does: the same files, the same
records, the same summary as one unsharded run, apart from timings and cache flags.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_revprop.errors import UserError
from pytest_revprop.reporting.replystore import REPLIES_DIR, ReplyReader
from pytest_revprop.reporting.samples import SAMPLES_FILE, SampleFile

SAME_SETTINGS = (
    "models",
    "methods",
    "k_values",
    "seeds",
    "split",
    "cases_sha256",
    "prompts",
    "chain",
)
"""The meta fields every shard of one run shares (``cases_sha256``: the case files' contents;
``prompts``: the templates' sources and hashes; ``chain``: a chain run's protocol and turns,
absent from an off run's)."""
SHARD_ONLY = ("shard", "created", "version")
"""Meta fields of a shard that the combined run does not take over as they are."""


def read_shard(folder: Path) -> dict[str, Any]:
    """The meta of a shard's reports folder; UserError naming the folder when it is none."""
    results = folder / "results.json"
    if not folder.is_dir():
        raise UserError(f"{folder}: no such folder")
    if not results.is_file():
        raise UserError(f"{folder}: no results.json (not a finished run's reports folder)")
    if not (folder / SAMPLES_FILE).is_file():
        raise UserError(f"{folder}: no {SAMPLES_FILE} beside its results.json")
    try:
        with results.open("rb") as handle:
            meta = _meta(handle.read())
    except (OSError, ValueError) as exc:
        raise UserError(f"{results}: not readable as a results file ({exc})") from None
    shard = meta.get("shard")
    if not isinstance(shard, dict) or not {"index", "count"} <= set(shard):
        raise UserError(
            f"{results}: not a shard's results (no meta.shard: run with --revprop-shard)"
        )
    return meta


def _meta(raw: bytes) -> dict[str, Any]:
    """The ``meta`` object of a results.json (the first of its keys, as runs write it)."""
    doc = json.loads(raw)
    meta = doc.get("meta") if isinstance(doc, dict) else None
    if not isinstance(meta, dict):
        raise ValueError("no meta object")
    return meta


def check_shards(metas: Mapping[Path, Mapping[str, Any]]) -> list[Path]:
    """The folders in shard order, once they are checked to be the N shards of one run:
    same settings, each shard once, none missing. UserError (one line) otherwise."""
    folders = list(metas)
    first = folders[0]
    for folder in folders[1:]:
        for name in SAME_SETTINGS:
            mine, theirs = metas[folder].get(name), metas[first].get(name)
            if mine != theirs:
                what = {
                    "cases_sha256": "case files' contents",
                    "chain": "chain protocols and turns (--revprop-chain, --revprop-turns)",
                }.get(name, name)
                raise UserError(
                    f"{folder} and {first} are shards of different runs: their {what} differ "
                    f"({_short(mine)} vs {_short(theirs)})"
                )
    by_index: dict[int, Path] = {}
    count = int(metas[first]["shard"]["count"])
    for folder in folders:
        shard = metas[folder]["shard"]
        if int(shard["count"]) != count:
            raise UserError(
                f"{folder} is shard {shard['index']}/{shard['count']} but {first} is one of "
                f"{count}: shards of different splits"
            )
        index = int(shard["index"])
        if index in by_index:
            raise UserError(f"shard {index}/{count} given twice: {by_index[index]} and {folder}")
        by_index[index] = folder
    missing = [f"{i}/{count}" for i in range(1, count + 1) if i not in by_index]
    if missing:
        raise UserError(
            f"shard {missing[0]} is missing ({len(by_index)} of {count} given"
            + (f"; also missing: {', '.join(missing[1:])}" if missing[1:] else "")
            + ")"
        )
    return [by_index[i] for i in sorted(by_index)]


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def combined_meta(metas: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The meta of the combined run: the first shard's, without its shard-only fields, with
    the number of shards it was combined from."""
    meta = {k: v for k, v in metas[0].items() if k not in SHARD_ONLY}
    meta["combined_shards"] = len(metas)
    return meta


def combine(folders: Sequence[Path], out: Path, *, figures: bool = True) -> list[Path]:
    """Merge the shards' reports ``folders`` into ``out``; returns the files written."""
    from pytest_revprop.reporting.report import default_cases, write_report
    from pytest_revprop.reporting.sink import REPORT_FILES, RecordSink

    seen: dict[Path, Path] = {}
    for folder in map(Path, folders):
        if folder.resolve() in seen:
            raise UserError(f"{folder} given twice (as {seen[folder.resolve()]} too)")
        seen[folder.resolve()] = folder
    metas = {folder: read_shard(folder) for folder in seen.values()}
    ordered = check_shards(metas)
    out = Path(out)
    if any(out.resolve() == folder.resolve() for folder in ordered):
        raise UserError(f"--out {out} is one of the shards' folders: choose a new folder")
    sink = RecordSink(out)
    try:
        for folder in ordered:
            replies = ReplyReader(folder / REPLIES_DIR)
            for record in SampleFile(folder / SAMPLES_FILE, replies=replies):
                sink.add(record)
    finally:
        sink.close()
    doc = sink.finish(combined_meta([metas[f] for f in ordered]))
    written = [out / name for name in REPORT_FILES]
    if figures:
        ids = {row["case"] for row in doc["results"]}
        cases = {i: c for i, c in default_cases(doc).items() if i in ids}
        samples = sink.records(with_replies=False)
        for path in write_report(doc, out, samples=samples, cases=cases):
            path.chmod(0o600)
            written.append(path)
    return written


__all__ = ["check_shards", "combine", "combined_meta", "read_shard"]
