"""Reworded variants of a case: the user's turns and the request in new words, every fact kept.

The model is shown the case's user messages and request (``synth_paraphrase_system``,
``synth_paraphrase``) and answers with one JSON object, ``{"turns": [...], "request": ...}``.
The check, applied to each turn and to the request on its own: the text is not empty and
never says key, field or JSON; it still states every number, date, time, identifier and name
of the original text (``facts``); it states no number the original does not; it keeps the
original's relation words (before/after, plus/minus, not, ...); and at least one text of the
case changed. The variant keeps the artifact, the assistant patches and the
gold, gets a new id (``<source id>-p<N>``) and names its source in ``annotation.draft``.

To run originals and variants side by side, the results of a run on the variants are renamed
to their sources' ids (``results_as_sources``), so ``revprop compare`` pairs them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_revprop.authoring.assembly import FORBIDDEN_WORDS
from pytest_revprop.authoring.synth.facts import added_numbers, missing_facts, relations_changed
from pytest_revprop.core.cases import Case, iter_case_files
from pytest_revprop.core.prompts import Prompts
from pytest_revprop.errors import UserError
from pytest_revprop.util.jsonutil import loads_strict

MAX_REASONS = 5


def variant_id(case: Case, number: int) -> str:
    """The id of variant ``number`` (1-based) of ``case``."""
    return f"{case.id}-p{number}"


def paraphrase_messages(case: Case, prompts: Prompts) -> list[dict[str, str]]:
    """The chat asking for the rewording of ``case``'s user turns and request."""
    listed = "\n".join(f"{i}. {turn.user}" for i, turn in enumerate(case.conversation, start=1))
    return [
        {"role": "system", "content": prompts.render("synth_paraphrase_system")},
        {
            "role": "user",
            "content": prompts.render("synth_paraphrase", messages=listed, request=case.request),
        },
    ]


def check_paraphrase(
    reply: dict[str, Any], case: Case
) -> tuple[tuple[list[str], str] | None, list[str]]:
    """The reworded (turns, request), or the reasons the rewording cannot be used."""
    turns, request = reply.get("turns"), reply.get("request")
    originals = [turn.user for turn in case.conversation]
    if not isinstance(turns, list) or not all(isinstance(t, str) for t in turns):
        return None, ['the object has no "turns": a list of the reworded messages, as strings']
    if len(turns) != len(originals):
        return None, [
            f'"turns" holds {len(turns)} messages; the conversation has {len(originals)}: '
            "reword each one, in order"
        ]
    if not isinstance(request, str) or not request.strip():
        return None, ['the object has no "request": the reworded request, as a string']
    reasons: list[str] = []
    pairs = [
        (f"message {i}", old, new)
        for i, (old, new) in enumerate(zip(originals, turns, strict=True), start=1)
    ]
    pairs.append(("the request", case.request, request))
    for name, old, new in pairs:
        reasons += text_reasons(name, old, new)
    if all(old.strip() == new.strip() for _, old, new in pairs):
        reasons.append("nothing was reworded: change the wording of the messages and the request")
    if reasons:
        return None, reasons[:MAX_REASONS]
    return ([t.strip() for t in turns], request.strip()), []


def text_reasons(name: str, original: str, reworded: str) -> list[str]:
    """Why ``reworded`` cannot stand for ``original`` (empty when it can)."""
    if not reworded.strip():
        return [f"{name} is empty"]
    reasons = []
    found = FORBIDDEN_WORDS.search(reworded)
    if found is not None:
        reasons.append(
            f"{name} uses the word {found.group(0)!r}: users never say key, field or JSON"
        )
    missing = missing_facts(original, reworded)
    if missing:
        reasons.append(f"{name} no longer states {', '.join(missing)}: keep every fact as written")
    added = added_numbers(original, reworded)
    if added:
        reasons.append(
            f"{name} states {', '.join(added)}, which the original does not: add no fact"
        )
    changed = relations_changed(original, reworded)
    if changed:
        reasons.append(
            f"{name} {'; '.join(changed)}: keep every relation (before/after, plus/minus, "
            "more/less, at least/at most, not, ...) as the original states it"
        )
    return reasons


def variant_data(case: Case, number: int, turns: list[str], request: str) -> dict[str, Any]:
    """The variant's file data (without its annotation): new id and words, the rest as is."""
    data = case.to_dict()
    data["id"] = variant_id(case, number)
    data["conversation"] = [
        {"user": text, "assistant": turn["assistant"]}
        for text, turn in zip(turns, data["conversation"], strict=True)
    ]
    data["request"] = request
    provenance = f"Reworded by revprop synth from {case.id}: same facts, artifact and gold."
    data["notes"] = f"{data['notes']} {provenance}".strip()
    return data


# ------------------------------------------------------------------------------ side by side


def variant_sources(paths: Sequence[str | Path], variant: int | None = None) -> dict[str, str]:
    """Variant id -> source id, for the reworded variants (``annotation.draft.source``) among
    the case files under ``paths``; with ``variant``, only variant number ``variant`` of each
    source. UserError when a source has two variants, or when there is none."""
    sources: dict[str, str] = {}
    for path in iter_case_files(list(paths)):
        try:
            data = loads_strict(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise UserError(f"{path}: cannot read a case ({exc.__class__.__name__})") from None
        source = _source_of(data)
        if source is None:
            continue
        if variant is not None and not str(data.get("id", "")).endswith(f"-p{variant}"):
            continue
        if source in sources.values():
            raise UserError(f"two variants of {source}: choose one with --variant N")
        sources[str(data["id"])] = source
    if not sources:
        where = ", ".join(map(str, paths)) or "no path"
        raise UserError(f"no reworded variant (annotation.draft.source) under {where}")
    return sources


def _source_of(data: Any) -> str | None:
    note = data.get("annotation") if isinstance(data, dict) else None
    draft = note.get("draft") if isinstance(note, dict) else None
    source = draft.get("source") if isinstance(draft, dict) else None
    return source if isinstance(source, str) else None


def results_as_sources(
    results: dict[str, Any], sources: Mapping[str, str], name: str = "results"
) -> dict[str, Any]:
    """``results`` (a results.json document) keeping only the rows of the variants in
    ``sources``, each renamed to its source's id: ``revprop compare`` then pairs a run on the
    originals with a run on the variants. UserError when no row is left."""
    rows = [
        row | {"case": sources[row["case"]]} for row in results["results"] if row["case"] in sources
    ]
    if not rows:
        raise UserError(f"{name} holds no result of these variants")
    return results | {"results": rows}
