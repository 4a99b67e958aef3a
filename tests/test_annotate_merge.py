"""The three-way merge behind a stale save in `revprop annotate`: what one side changed merges by
itself, what both changed differently is a conflict with base, theirs and mine, and the HTTP
route serves it against the file on disk."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from annotate_helpers import copy_cases, with_client

from pytest_revprop.authoring.annotate.app import make_app
from pytest_revprop.authoring.annotate.assist import Assistant
from pytest_revprop.authoring.annotate.store import CaseStore
from pytest_revprop.authoring.annotate.threeway import merge_case, new_saves
from pytest_revprop.core.cases import BENCHMARK_DIR, dump_case

CART = "cart-order-cancelled/10"


def _base() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((BENCHMARK_DIR / f"{CART}.json").read_text("utf-8"))
    return data


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
    assert merge.theirs_changes == ["op 4 (/payment/status)"]
    assert merge.mine_changes == ["op 5 (/shipment/status)"]


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
