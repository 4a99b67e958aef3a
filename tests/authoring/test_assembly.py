"""Follow-ups built from a scenario program, and matchers checked as scoring reads them."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from pytest_revprop.authoring.assembly import build_case
from pytest_revprop.authoring.scenario import Revision, Scenario, ScenarioError, Turn, regex
from pytest_revprop.core.cases import Case, dump_case
from pytest_revprop.core.scoring import score_patch


def _seats(p: dict[str, Any]) -> dict[str, Any]:
    doc = {
        "tool": "Jira",
        "seats": p["seats"],
        "cost_usd": 30 * p["seats"],
        "plan": {"tier": "enterprise" if p["seats"] >= 10 else "team", "seats": p["seats"]},
        "owners": ["Ana", "Bo", "Cy"],
        "renewal": "2025-12-01",
        "vendor": "Atlassian",
    }
    if p["seats"] >= 10:
        doc["sso"] = {"enabled": True, "seats": p["seats"]}
    return doc


def _conversation(p: dict[str, Any]) -> list[Turn]:
    return [
        ("We use Jira with 4 seats.", ["/tool", "/seats"]),
        ("Each seat is $30 a month; pick the plan.", ["/cost_usd", "/plan"]),
        (
            "Owners are Ana, Bo and Cy; renewal 2025-12-01 with Atlassian.",
            ["/owners", "/renewal", "/vendor"],
        ),
    ]


def _set(n: int) -> Any:
    return lambda q: q.update(seats=n)


def _scenario(followups: Any = None, first: Revision | None = None) -> Scenario:
    revision = first or Revision("Make it 6 seats.", _set(6), "/seats")
    return Scenario(
        id="org-toy-chain",
        domain="org_access",
        pattern="arithmetic",
        theme="Seats drive cost and plan",
        params=lambda size: {"seats": 4},
        compute=_seats,
        conversation=_conversation,
        revision=lambda p: revision,
        followups=followups,
    )


def test_follow_ups_edit_the_inputs_cumulatively_and_each_gold_is_relative_to_its_artifact() -> (
    None
):
    chain = [
        Revision(
            "Go to 12 seats.", _set(12), "/seats", theme="Past ten seats", pattern="threshold"
        ),
        Revision("Back to 6.", _set(6), "/seats", theme="Undo", pattern="threshold"),
    ]
    data = build_case(_scenario(lambda p: chain), 10)
    assert list(data)[-2:] == ["followups", "notes"]
    first, second = data["followups"]
    assert first["artifact"]["seats"] == 6 and second["artifact"]["seats"] == 12
    assert {
        "op": "replace",
        "path": "/plan/tier",
        "value": "enterprise",
        "kind": "cascade",
    } in first["gold"]
    assert {"op": "replace", "path": "/plan/tier", "value": "team", "kind": "cascade"} in second[
        "gold"
    ]
    case = Case.from_dict(data)
    assert [f.theme for f in case.followups] == ["Past ten seats", "Undo"]
    assert dump_case(case.to_dict()) == dump_case(data)
    assert case.for_methods().followups == ()


@pytest.mark.parametrize(
    ("revision", "message"),
    [
        (
            Revision("Keep 6.", _set(6), "/seats", theme="none", pattern="arithmetic"),
            "changes nothing",
        ),
        (Revision("Go to 8.", _set(8), "/seats", pattern="arithmetic"), "needs a theme"),
        (Revision("Go to 8.", _set(8), "/seats", theme="eight"), "needs a pattern"),
        (
            Revision(
                "Set the seats field to 8.", _set(8), "/seats", theme="8", pattern="arithmetic"
            ),
            "'field'",
        ),
    ],
)
def test_a_broken_follow_up_is_refused_naming_its_number(revision: Revision, message: str) -> None:
    with pytest.raises(ScenarioError) as info:
        build_case(_scenario(lambda p: [revision]), 10)
    assert "follow-up 1" in str(info.value) and message in str(info.value)


def test_a_regex_on_an_object_is_checked_as_scoring_reads_it_compact() -> None:
    """Scoring matches a regex against an object's compact JSON; the build checks the same."""
    compact = Revision(
        "Go to 12 seats.", _set(12), "/seats", overrides={"/sso": regex('"enabled":true')}
    )
    case = Case.from_dict(build_case(_scenario(first=compact), 10))
    assert any(g.path == "/sso" and g.match == "regex_match" for g in case.gold)
    assert not score_patch(case, []).completed
    spaced = dataclasses.replace(compact, overrides={"/sso": regex('"enabled": true')})
    with pytest.raises(ScenarioError, match="does not match the computed value"):
        build_case(_scenario(first=spaced), 10)
