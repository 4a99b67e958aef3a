"""A chain in `revprop annotate`: every follow-up's document derived again from the turn before
(as the build makes it), each turn checked as the case's own revision is, a save that keeps the
chain whole or names the turn it breaks and writes nothing, follow-ups added and removed, and
two people's edits of different turns merged."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from helpers.annotate_helpers import copy_chains

from pytest_revprop.authoring.annotate.agreement import agreement, render_markdown, render_text
from pytest_revprop.authoring.annotate.chained import derive_chain, turn_of
from pytest_revprop.authoring.annotate.checks import check_case
from pytest_revprop.authoring.annotate.store import CaseStore, SaveRefused, program_of
from pytest_revprop.authoring.annotate.threeway import merge_case
from pytest_revprop.core.cases import BENCHMARK_DIR, dump_case, iter_case_files, load_case
from pytest_revprop.util.jsonutil import json_equal, resolve

PRIVILEGED = "org-privileged-threshold/100"
CADENCE = 6  # turn 0's cascade /approvers/3/review_cadence: no later turn touches it
ROSTER = 33  # turn 0's add /sox_training_roster/9: turn 2's insertion relies on it
ORG = "org-role-change/10"


def _shipped(case_id: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((BENCHMARK_DIR / f"{case_id}.json").read_text("utf-8"))
    return data


def _opened(tmp_path: Path, case_id: str) -> tuple[Path, CaseStore, str, dict[str, Any]]:
    """A copy of the shipped chain ``case_id``: its file, a store over it, its key and entry."""
    folder = copy_chains(tmp_path / "cases", [case_id])
    store = CaseStore([folder])
    key = f"0/{case_id}.json"
    return folder / f"{case_id}.json", store, key, store.read(key)


def _errors(data: Any) -> list[dict[str, str]]:
    return [m for m in check_case(data).messages if m["level"] == "error"]


def test_every_shipped_chain_derives_to_itself() -> None:
    """Deriving each follow-up's document from the turn before gives the build's documents,
    matchers and optional operations included (150 of 150 chains)."""
    chains = 0
    for path in iter_case_files([BENCHMARK_DIR]):
        data = json.loads(path.read_text("utf-8"))
        if not data.get("followups"):
            continue
        chains += 1
        derived, stuck = derive_chain(data)
        assert stuck is None, path
        for mine, built in zip(derived["followups"], data["followups"], strict=True):
            assert json_equal(mine["artifact"], built["artifact"]), path
    assert chains == 150


def test_a_shipped_chain_checks_clean_with_a_preview_per_turn() -> None:
    data = _shipped(ORG)
    report = check_case(data)
    assert [m for m in report.messages if m["level"] == "error"] == []
    assert len(report.turns) == len(data["followups"]) == 3
    for turn, followup in zip(report.turns, data["followups"], strict=True):
        assert json_equal(turn["artifact"], followup["artifact"])
        assert turn["gold_completes"] is True and turn["direct_alone_completes"] is False


def test_an_edit_of_turn_0_reaches_every_later_document(tmp_path: Path) -> None:
    path, store, key, entry = _opened(tmp_path, PRIVILEGED)
    data = copy.deepcopy(entry["data"])
    data["gold"][CADENCE]["value"] = "monthly"
    assert _errors(data) == []
    store.save(key, data, base_hash=entry["hash"], annotator="alice")
    case = load_case(path)  # what `revprop validate` loads
    assert [resolve(f.artifact, "/approvers/3/review_cadence") for f in case.followups] == [
        "monthly"
    ] * len(case.followups)


def test_an_edit_a_later_turn_relies_on_marks_that_turn_and_is_not_saved(tmp_path: Path) -> None:
    path, store, key, entry = _opened(tmp_path, PRIVILEGED)
    before = path.read_bytes()
    data = copy.deepcopy(entry["data"])
    del data["gold"][ROSTER]
    errors = _errors(data)
    assert [turn_of(m["pointer"])[0] for m in errors] == [2, 3]
    assert "turn 2 relied on its document as it was" in errors[0]["message"]
    assert errors[1]["message"].endswith("fix turn 2 first")  # turn 3 waits for turn 2
    with pytest.raises(SaveRefused, match=r"nothing was written: turn 2 breaks a rule"):
        store.save(key, data, base_hash=entry["hash"], annotator="alice")
    assert path.read_bytes() == before


def test_a_turn_that_changes_nothing_any_more_says_what_to_do() -> None:
    data = _shipped(ORG)
    turn1 = data["followups"][0]["gold"]  # review every 60 days, first review moves
    for op in data["gold"]:
        for later in turn1:
            if op["path"] == later["path"]:
                op["value"] = later["value"]
    errors = _errors(data)
    assert [(m["pointer"], m["rule"]) for m in errors] == [("/followups/0/gold", "followup-noop")]
    assert "turn 1 changes nothing any more" in errors[0]["message"]
    assert "remove the turn" in errors[0]["message"]


def test_a_follow_up_is_added_at_the_end_and_the_last_removed(tmp_path: Path) -> None:
    path, store, key, entry = _opened(tmp_path, ORG)
    data = copy.deepcopy(entry["data"])
    data["followups"].append(
        {
            "request": "Her manager is now Lee Park.",
            "reference": {"memo": "manager change"},
            "gold": [
                {
                    "op": "replace",
                    "path": "/employee/manager",
                    "value": "Lee Park",
                    "kind": "direct",
                }
            ],
            "theme": "a new manager",
        }
    )
    assert _errors(data) == []
    saved = store.save(key, data, base_hash=entry["hash"], annotator="alice")
    case = load_case(path)
    assert len(case.followups) == 4 and case.followups[3].reference == {"memo": "manager change"}
    assert resolve(case.followups[3].artifact, "/employee/role") == "Financial Analyst"
    data = copy.deepcopy(saved["data"])
    data["followups"].pop()
    store.save(key, data, base_hash=saved["hash"], annotator="alice")
    assert len(load_case(path).followups) == 3


def test_edits_of_different_turns_merge_and_a_conflict_names_its_turn() -> None:
    base = _shipped(ORG)
    mine = copy.deepcopy(base)
    mine["gold"][4]["value"] = 30000  # turn 0: approval limit
    theirs = copy.deepcopy(base)
    theirs["followups"][1]["gold"][1]["value"] = "2025-05-17"  # turn 2: first review
    merge = merge_case(base, mine, theirs)
    merged = merge.result()
    assert merge.conflicts == [] and merged is not None
    assert merged["gold"][4]["value"] == 30000
    assert merged["followups"][1]["gold"][1]["value"] == "2025-05-17"
    assert merge.theirs_changes == ["turn 2: edited op 2 (/access/first_review)"]
    mine["followups"][1]["gold"][1]["value"] = "2025-05-18"
    merge = merge_case(base, mine, theirs)
    assert [c.label for c in merge.conflicts] == [
        "turn 2: the expected patch: your op 2 (/access/first_review)"
    ]
    merged = merge.result({0: "mine"})
    assert merged is not None and merged["followups"][1]["gold"][1]["value"] == "2025-05-18"


def test_two_people_editing_one_follow_up_merge_by_identity_as_turn_0_does() -> None:
    """I moved turn 3's last operation first and re-pointed it; they changed its value: with the
    page's identities it is one operation, mine where I changed it and theirs where they did
    (paired by op and path, my re-pointed operation was "added" and theirs "edited after I
    removed it": a conflict). The merged identities come back per turn for the next merge."""
    base = _shipped(ORG)
    mine = copy.deepcopy(base)
    gold = mine["followups"][2]["gold"]
    gold.insert(0, gold.pop(7))
    gold[0]["path"] = "/access/next_review"
    theirs = copy.deepcopy(base)
    theirs["followups"][2]["gold"][7]["value"] = "2025-09-20"
    count = [len(base["gold"]), *(len(f["gold"]) for f in base["followups"])]
    identity = [list(range(n)) for n in count]
    identity[3] = [7, *range(7)]
    merge = merge_case(base, mine, theirs, identity)
    merged = merge.result()
    assert merge.conflicts == [] and merged is not None
    assert merged["followups"][2]["gold"][0] == {
        **base["followups"][2]["gold"][7],
        "path": "/access/next_review",
        "value": "2025-09-20",
    }
    assert len(merged["followups"][2]["gold"]) == count[3]
    assert merge.origin() == [list(range(n)) for n in count[:3]] + [[7, *range(7)]]


def test_a_shipped_case_names_the_program_that_writes_it() -> None:
    assert program_of(_shipped(ORG)) == {
        "path": "benchmark_cases/scenarios/org_access.py",
        "scenario": "org-role-change",
    }
    drafted = _shipped(ORG) | {"id": "org-role-change/draft-1"}
    assert program_of(drafted) is None


def test_agreement_is_reported_per_turn(tmp_path: Path) -> None:
    alice = copy_chains(tmp_path / "alice", [ORG])
    bob = tmp_path / "bob" / f"{ORG}.json"
    data = _shipped(ORG)
    data["followups"][1]["gold"][1]["value"] = "2025-05-20"  # turn 2: another first review
    bob.parent.mkdir(parents=True)
    bob.write_text(dump_case(derive_chain(data)[0]), encoding="utf-8")
    report = agreement(str(alice), str(tmp_path / "bob"))
    # turn 3 starts from the document turn 2 made: another one, so it cannot agree either
    assert report.per_turn() == [(0, 1, 1), (1, 1, 1), (2, 0, 1), (3, 0, 1)]
    text = render_text(report, ["alice", "bob"])
    assert "per turn: turn 0 1 of 1 agree; turn 1 1 of 1 agree; turn 2 0 of 1 agree" in text
    assert f"disagree   {ORG} turn 2\n" in text
    assert f"disagree   {ORG} turn 3 (the artifacts differ)\n" in text
    assert '  only in B: replace /access/first_review = "2025-05-20" [cascade]' in text
    assert f"disagree   {ORG}\n" not in text  # turn 0 agrees: not listed
    assert "| `org-role-change/10 turn 2` | disagree |" in render_markdown(report, ["a", "b"])
