"""The three-way merge behind a stale save in `revprop annotate`: what one side changed merges by
itself, what both changed differently is a conflict with base, theirs and mine, and the HTTP
route serves it against the file on disk."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

from helpers.annotate_helpers import copy_cases, shipped_case, with_client

from pytest_revprop.authoring.annotate.app import make_app
from pytest_revprop.authoring.annotate.assist import Assistant
from pytest_revprop.authoring.annotate.store import CaseStore
from pytest_revprop.authoring.annotate.threeway import merge_case, new_saves
from pytest_revprop.core.cases import BENCHMARK_DIR, dump_case

CART = "cart-order-cancelled/10"


def _base() -> dict[str, Any]:
    return shipped_case(CART)


def _with(data: dict[str, Any], index: int, value: Any) -> dict[str, Any]:
    out = copy.deepcopy(data)
    out["gold"][index]["value"] = value
    return out


def test_changes_to_different_operations_merge_by_themselves() -> None:
    base = _base()
    theirs = _with(base, 3, "refunded")  # /payment/status
    mine = _with(base, 4, "returned")  # /shipment/status
    merge = merge_case(base, mine, theirs)
    assert merge.conflicts == []
    merged = merge.result()
    assert merged is not None
    assert [op["value"] for op in merged["gold"][3:5]] == ["refunded", "returned"]
    assert merge.theirs_changes == ["edited op 4 (/payment/status)"]
    assert merge.mine_changes == ["edited op 5 (/shipment/status)"]


def test_inserted_deleted_and_reordered_operations_merge_around_each_other() -> None:
    base = _base()
    theirs = copy.deepcopy(base)
    del theirs["gold"][1]  # they drop /lines/0/status
    theirs["request"] = "theirs"
    mine = copy.deepcopy(base)
    mine["gold"].append({"op": "replace", "path": "/order/number", "value": "X", "kind": "cascade"})
    mine["gold"][0]["kind"] = "cascade"  # a member of a kept op
    mine["notes"] = "mine"
    merge = merge_case(base, mine, theirs)
    merged = merge.result()
    assert merge.conflicts == [] and merged is not None
    assert [op["path"] for op in merged["gold"]] == [
        "/order/status",
        "/lines/1/status",
        "/payment/status",
        "/shipment/status",
        "/shipment/estimated_delivery",
        "/order/number",
    ]
    assert merged["gold"][0]["kind"] == "cascade"
    assert (merged["request"], merged["notes"]) == ("theirs", "mine")


def test_both_changing_one_place_is_a_conflict_with_base_theirs_and_mine() -> None:
    base = _base()
    theirs = _with(base, 4, "held at depot")
    theirs["request"] = "theirs too"
    mine = _with(base, 4, "lost")
    mine["request"] = "mine too"
    merge = merge_case(base, mine, theirs)
    assert [(c.field, c.id) for c in merge.conflicts] == [("request", 0), ("gold", 1)]
    gold = merge.conflicts[1]
    assert [op["value"] for op in (gold.base + gold.theirs + gold.mine)] == [
        "cancelled",
        "held at depot",
        "lost",
    ]
    assert merge.result({0: "theirs"}) is None  # every conflict needs a side
    merged = merge.result({0: "theirs", 1: "mine"})
    assert merged is not None
    assert merged["request"] == "theirs too" and merged["gold"][4]["value"] == "lost"
    assert (
        merge.conflicts[1].to_dict()["label"] == "the expected patch: your op 5 (/shipment/status)"
    )


def test_a_deleted_operation_the_other_side_changed_is_a_conflict() -> None:
    base = _base()
    theirs = _with(base, 2, "kept")
    mine = copy.deepcopy(base)
    del mine["gold"][2]
    merge = merge_case(base, mine, theirs)
    [conflict] = merge.conflicts
    assert conflict.mine == [] and conflict.theirs[0]["value"] == "kept"


def test_the_saves_made_meanwhile_are_named_and_the_route_merges_with_the_disk(
    tmp_path: Path,
) -> None:
    folder = copy_cases(tmp_path / "cases", (CART,))
    path = folder / f"{CART}.json"
    base = json.loads(path.read_text("utf-8"))
    theirs = _with(base, 3, "refunded")
    carol = {"annotator": "carol", "time": "2026-12-01T10:00:00Z", "action": "edited"}
    theirs["annotation"] = {"status": "changed", "history": [carol]}
    path.write_text(dump_case(theirs), encoding="utf-8")
    assert new_saves(base, theirs) == [carol]
    mine = _with(base, 4, "lost")
    app = make_app(
        CaseStore([folder]), Assistant(cache_dir=None), {"annotator": "", "model": "gold"}
    )

    async def scenario(client: Any) -> None:
        reply = await client.post(
            "/api/merge", json={"file": f"0/{CART}.json", "base": base, "mine": mine}
        )
        body = await reply.json()
        assert body["conflicts"] == [] and body["saves"] == [carol]
        assert [op["value"] for op in body["merged"]["gold"][3:5]] == ["refunded", "lost"]
        assert body["merged"]["annotation"]["history"] == [carol]  # the history stays theirs

    with_client(app, scenario)


def _case(case_id: str) -> dict[str, Any]:
    return shipped_case(case_id)


def _paths(data: dict[str, Any] | None) -> list[str]:
    assert data is not None
    return [op["path"] for op in data["gold"]]


def test_an_operation_they_moved_and_i_edited_is_merged_once_where_they_put_it() -> None:
    base = _case("org-role-change/10")
    theirs = copy.deepcopy(base)
    theirs["gold"].insert(6, theirs["gold"].pop(7))  # move the last op up one place
    mine = _with(base, 7, "2025-07-01")
    for origin in (None, list(range(8))):  # by the page's identities, or by (op, path)
        merge = merge_case(base, mine, theirs, origin)
        merged = merge.result()
        assert merge.conflicts == [] and merged is not None
        assert _paths(merged) == _paths(theirs)
        assert merged["gold"][6] == {**base["gold"][7], "value": "2025-07-01"}


def test_a_remove_they_moved_and_i_changed_is_kept_once() -> None:
    base = _case("deploy-prod-change-freeze/10")
    theirs = copy.deepcopy(base)
    theirs["gold"].insert(2, theirs["gold"].pop(3))  # the remove of /allowed_change_types/2
    mine = copy.deepcopy(base)
    mine["gold"][3]["optional"] = True
    merged = merge_case(base, mine, theirs).result()
    assert merged is not None
    assert _paths(merged).count("/allowed_change_types/2") == 1
    assert merged["gold"][2] == {**base["gold"][3], "optional": True}


def test_two_additions_are_both_kept_and_the_same_addition_once() -> None:
    base = _case("cart-free-shipping/50")
    theirs, mine = copy.deepcopy(base), copy.deepcopy(base)
    theirs["gold"].append({"op": "replace", "path": "/currency", "value": "EUR", "kind": "cascade"})
    mine["gold"].append({"op": "replace", "path": "/items/0/sku", "value": "X", "kind": "cascade"})
    merge = merge_case(base, mine, theirs)
    assert merge.conflicts == []
    assert _paths(merge.result())[-2:] == ["/currency", "/items/0/sku"]
    assert merge.theirs_changes == ["added op 12 (/currency)"]
    mine["gold"][-1] = theirs["gold"][-1]  # the same op added by both
    assert _paths(merge_case(base, mine, theirs).result())[-1:] == ["/currency"]
    assert len(merge_case(base, mine, theirs).result()["gold"]) == 12  # type: ignore[index]


def test_never_two_operations_on_one_path_that_neither_side_had() -> None:
    base = _case("cart-free-shipping/50")
    theirs, mine = copy.deepcopy(base), copy.deepcopy(base)
    theirs["gold"].append({"op": "replace", "path": "/currency", "value": "EUR", "kind": "cascade"})
    mine["gold"].append({"op": "replace", "path": "/currency", "value": "USD", "kind": "cascade"})
    merge = merge_case(base, mine, theirs)
    [conflict] = merge.conflicts
    assert (conflict.theirs[0]["value"], conflict.mine[0]["value"]) == ("EUR", "USD")
    for side, value in (("mine", "USD"), ("theirs", "EUR")):
        merged = merge.result({0: side})
        assert merged is not None and _paths(merged).count("/currency") == 1
        assert merged["gold"][-1]["value"] == value


def test_both_moving_operations_differently_is_an_order_conflict() -> None:
    base = _case("org-role-change/10")
    theirs, mine = copy.deepcopy(base), copy.deepcopy(base)
    theirs["gold"].insert(0, theirs["gold"].pop(7))
    mine["gold"].insert(1, mine["gold"].pop(6))
    merge = merge_case(base, mine, theirs)
    [conflict] = merge.conflicts
    assert conflict.label == "the order of the operations"
    assert _paths(merge.result({0: "mine"})) == _paths(mine)
    assert _paths(merge.result({0: "theirs"})) == _paths(theirs)


def test_review_flags_follow_their_operations_through_a_merge() -> None:
    base = _case("org-role-change/10")
    base["annotation"] = {
        "status": "draft",
        "history": [],
        "draft": {"flags": [{"gold": 7, "reason": "check the date"}]},
    }
    theirs = copy.deepcopy(base)
    theirs["gold"].insert(0, theirs["gold"].pop(7))
    theirs["annotation"]["draft"]["flags"] = [{"gold": 0, "reason": "check the date"}]
    mine = copy.deepcopy(base)
    mine["gold"].insert(
        0, {"op": "replace", "path": "/employee/name", "value": "A", "kind": "cascade"}
    )
    merged = merge_case(base, mine, theirs).result()
    assert merged is not None
    flags = merged["annotation"]["draft"]["flags"]
    assert [merged["gold"][f["gold"]]["path"] for f in flags] == ["/access/first_review"]


def test_a_follow_ups_review_flags_follow_their_operations_through_a_merge() -> None:
    base = json.loads((BENCHMARK_DIR / "org-role-change/10.json").read_text("utf-8"))
    flag = {"gold": 7, "reason": "check the date"}
    base["annotation"] = {
        "status": "draft",
        "history": [],
        "draft": {"flags": [dict(flag)], "followups": [{"flags": []}, {}, {"flags": [flag]}]},
    }
    theirs = copy.deepcopy(base)  # they move turn 3's flagged operation first
    theirs["followups"][2]["gold"].insert(0, theirs["followups"][2]["gold"].pop(7))
    theirs["annotation"]["draft"]["followups"][2]["flags"] = [{**flag, "gold": 0}]
    mine = copy.deepcopy(base)  # and I add one before it
    mine["followups"][2]["gold"].insert(
        0, {"op": "replace", "path": "/employee/name", "value": "A", "kind": "cascade"}
    )
    merged = merge_case(base, mine, theirs).result()
    assert merged is not None
    draft = merged["annotation"]["draft"]
    gold = merged["followups"][2]["gold"]
    assert [gold[f["gold"]]["path"] for f in draft["followups"][2]["flags"]] == [
        "/access/first_review"
    ]
    assert [merged["gold"][f["gold"]]["path"] for f in draft["flags"]] == ["/access/first_review"]
    assert draft["followups"][:2] == [{"flags": []}, {}]
    assert theirs["annotation"]["draft"]["followups"][2]["flags"] == [{**flag, "gold": 0}]


def test_a_stale_save_that_overlaps_nothing_is_merged_and_written_at_once(tmp_path: Path) -> None:
    folder = copy_cases(tmp_path / "cases", (CART,))
    path = folder / f"{CART}.json"
    base = json.loads(path.read_text("utf-8"))
    old_hash = hashlib.sha256(path.read_bytes()).hexdigest()
    theirs = _with(base, 3, "refunded")
    carol = {"annotator": "carol", "time": "2026-12-01T10:00:00Z", "action": "edited"}
    theirs["annotation"] = {"status": "changed", "history": [carol]}
    path.write_text(dump_case(theirs), encoding="utf-8")
    app = make_app(
        CaseStore([folder]), Assistant(cache_dir=None), {"annotator": "", "model": "gold"}
    )
    save = {"file": f"0/{CART}.json", "hash": old_hash, "data": _with(base, 4, "lost")}

    async def scenario(client: Any) -> None:
        refused = await client.post("/api/save", json=save | {"annotator": "dave"})
        assert refused.status == 409  # without merge: the page's dialog decides
        reply = await client.post(
            "/api/save", json=save | {"annotator": "dave", "merge": True, "base": base}
        )
        body = await reply.json()
        assert reply.status == 200 and body["merged"] is True and body["saves"] == [carol]
        assert [op["value"] for op in body["data"]["gold"][3:5]] == ["refunded", "lost"]
        assert [h["annotator"] for h in body["data"]["annotation"]["history"]] == ["carol", "dave"]

    with_client(app, scenario)
