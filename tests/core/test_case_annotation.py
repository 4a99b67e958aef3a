"""The case file's optional `annotation` object: validated, carried by Case, never scored."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.handmade_cases import invoice_case

from pytest_revprop.core.cases import Case, CaseError, dump_case, load_case
from pytest_revprop.core.scoring import score_patch

ANNOTATION: dict[str, Any] = {
    "status": "reviewed",
    "history": [
        {"annotator": "synth", "time": "2026-11-30T21:05:00Z", "action": "drafted"},
        {
            "annotator": "alice",
            "time": "2026-11-30T22:10:03Z",
            "action": "edited",
            "note": "split the total into two ops",
        },
        {"annotator": "bob", "time": "2026-12-01T09:00:00Z", "action": "reviewed"},
    ],
    "notes": "free text for annotators",
    "draft": {
        "generator": "revprop synth 0.1.0",
        "card": "cards/invoice-discount.toml",
        "models": {"writer": "gpt-oss-120b", "gold": "gpt-oss-120b"},
        "seeds": [0, 1, 2],
        "cost_usd": 0.0123,
        "source": None,
        "flags": [{"gold": 2, "reason": "samples disagree on this operation (2 of 3)"}],
        "prompt_version": 3,
    },
}


def _annotated() -> dict[str, Any]:
    return invoice_case().to_dict() | {"annotation": json.loads(json.dumps(ANNOTATION))}


def test_a_case_carries_its_annotation_and_writes_it_back_last(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text(dump_case(_annotated()), encoding="utf-8")
    case = load_case(path)
    assert case.annotation == ANNOTATION
    assert list(case.to_dict())[-1] == "annotation"
    assert dump_case(case.to_dict()) == path.read_text(encoding="utf-8")


def test_a_case_without_annotation_writes_none() -> None:
    case = invoice_case()
    assert case.annotation is None and "annotation" not in case.to_dict()
    assert '"annotation"' not in dump_case(case.to_dict())


def test_annotation_is_ignored_by_scoring_and_equality() -> None:
    plain, annotated = invoice_case(), Case.from_dict(_annotated())
    assert plain == annotated
    patch = plain.gold_patch[:3]
    assert score_patch(plain, patch).to_dict() == score_patch(annotated, patch).to_dict()


@pytest.mark.parametrize(
    ("change", "pointer"),
    [
        (lambda a: a.update(status="done"), "/annotation/status"),
        (lambda a: a.pop("history"), "/annotation"),
        (lambda a: a.update(reviewer="bob"), "/annotation"),
        (lambda a: a["history"][0].update(time="2026-11-30 21:05"), "/annotation/history/0/time"),
        (
            lambda a: a["history"][0].update(time="2026-11-30T21:05:00.5Z"),
            "/annotation/history/0/time",
        ),
        (lambda a: a["history"][1].update(action="approved"), "/annotation/history/1/action"),
        (lambda a: a["draft"].update(cost_usd=-0.5), "/annotation/draft/cost_usd"),
        (lambda a: a["draft"]["flags"][0].pop("reason"), "/annotation/draft/flags/0"),
    ],
)
def test_a_malformed_annotation_is_a_schema_error_at_its_place(change: Any, pointer: str) -> None:
    data = _annotated()
    change(data["annotation"])
    with pytest.raises(CaseError) as caught:
        Case.from_dict(data)
    assert (caught.value.rule, caught.value.pointer) == ("schema", pointer)
