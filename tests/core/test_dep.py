"""``dep`` against a scripted OpenAI-compatible server: two calls per sample at the base seed,
the map checked against the artifact (unknown pointers dropped and counted), the revision
with the map or, when the map is unusable, the plain j+h call; its cost and latency; and dep
in the records, the figures and the HTML report."""

from __future__ import annotations

import asyncio
import csv
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers.handmade_cases import invoice_case

from pytest_revprop.core.askers import client_ask, reference_ask
from pytest_revprop.core.dep import check_map
from pytest_revprop.core.prompts import default_prompts
from pytest_revprop.core.registry import builtin_registry, run_method
from pytest_revprop.llm.client import Client
from pytest_revprop.llm.presets import ModelConfig
from pytest_revprop.reporting.report import write_report
from pytest_revprop.reporting.sink import RecordSink
from pytest_revprop.run.items import RunSettings, item_specs
from pytest_revprop.run.runner import Runner
from pytest_revprop.testing.fakeserver import FakeServer

CASE = invoice_case()
GOLD = json.dumps(CASE.gold_patch[:3])
MAP_MARK = "Write down the dependencies"
GOOD_MAP = {
    "/lines/0/amount": {
        "depends_on": ["/lines/0/qty", "/lines/0/unit_price", "/lines/9/qty"],
        "rule": "qty times unit price",
    },
    "/total": {"depends_on": ["/lines/0/amount", "/lines/1/amount"], "rule": "sum of amounts"},
    "/nowhere": {"depends_on": ["/total"], "rule": "made up"},
}


def _model(server: FakeServer) -> ModelConfig:
    return ModelConfig(
        name="fake",
        litellm_model="openai/fake",
        api_bases=(server.base_url,),
        max_tokens=256,
        price_in=1.0,
        price_out=2.0,
    )


def _run(server: FakeServer, tmp: Path, method: str = "dep", seed: int = 10) -> Any:
    client = Client(_model(server), cache_dir=tmp / "cache", concurrency=8)
    return asyncio.run(run_method(method, CASE, client_ask(client), k=1, seed=seed))


@pytest.fixture
def scripted(fake_server: Callable[..., FakeServer]) -> FakeServer:
    """Seed 10: a map with one unknown leaf and one unknown dependency; seed 11: prose."""
    rules = [
        {"contains": MAP_MARK, "seed": 10, "content": json.dumps(GOOD_MAP)},
        {"contains": MAP_MARK, "content": "The total follows the lines."},
    ]
    return fake_server(rules=rules, default={"content": GOLD}, latency_s=0.01)


def test_the_first_object_of_a_reply_is_read_when_more_follow() -> None:
    reply = 'Here: {"/total": ["/lines/0/amount"]}, {"/memo": ["/lines/0/qty"]} and more'
    checked = check_map(reply, CASE.artifact)
    assert list(checked.entries) == ["/total"] and checked.edges == 1


def test_the_map_keeps_pointers_of_the_artifact_and_counts_the_others() -> None:
    checked = check_map("```json\n" + json.dumps(GOOD_MAP) + "\n```", CASE.artifact)
    assert checked.entries == {
        "/lines/0/amount": (["/lines/0/qty", "/lines/0/unit_price"], "qty times unit price"),
        "/total": (["/lines/0/amount", "/lines/1/amount"], "sum of amounts"),
    }
    assert (checked.edges, checked.dropped, checked.valid) == (4, 2, True)
    assert (
        checked.render().splitlines()[1]
        == "- /total <- /lines/0/amount, /lines/1/amount: sum of amounts"
    )


@pytest.mark.parametrize(
    "reply",
    ["no JSON here", "[1, 2]", '{"/nowhere": {"depends_on": ["/total"]}}', '{"/total": 5}'],
)
def test_a_map_with_no_valid_edge_is_unusable(reply: str) -> None:
    assert not check_map(reply, CASE.artifact).valid


def test_dep_makes_two_calls_at_the_base_seed_map_first_then_j_plus_h_with_the_map(
    scripted: FakeServer, tmp_path: Path
) -> None:
    run = _run(scripted, tmp_path)
    first, second = scripted.stats()["requests"]
    prompts = default_prompts()
    assert first["messages"] == prompts.dependency_map_messages(CASE)
    rendered = check_map(json.dumps(GOOD_MAP), CASE.artifact).render()
    assert second["messages"] == prompts.mapped_revision_messages(CASE, rendered)
    assert rendered in second["messages"][1]["content"]
    assert (first["seed"], second["seed"]) == (10, 10)
    assert [c.role for c in run.calls] == ["map", "sample"]
    assert (run.outcome.map_valid, run.outcome.map_edges, run.outcome.map_dropped) == (True, 4, 2)
    assert run.score(CASE).completed
    assert (
        run.cost_usd == pytest.approx(sum(c.reply.cost_usd for c in run.calls)) and run.cost_usd > 0
    )
    assert run.latency_s == pytest.approx(sum(c.reply.latency_s for c in run.calls))


def test_an_unusable_map_revises_without_it_with_the_very_call_of_j_plus_h(
    scripted: FakeServer, tmp_path: Path
) -> None:
    run = _run(scripted, tmp_path, seed=11)
    _, second = scripted.stats()["requests"]
    assert second["messages"] == default_prompts().revision_messages(CASE, "j+h")
    assert (run.outcome.map_valid, run.outcome.map_edges, run.outcome.map_dropped) == (False, 0, 0)
    assert run.score(CASE).completed
    # the same request as j+h at seed 11: the cache answers it
    _run(scripted, tmp_path, method="j+h", seed=11)
    assert len(scripted.stats()["requests"]) == 2


def test_reference_solvers_answer_no_map_and_dep_still_revises() -> None:
    run = asyncio.run(run_method("dep", CASE, reference_ask(CASE, "gold"), k=5, seed=0))
    assert (run.k, len(run.calls), run.outcome.map_valid) == (1, 2, False)
    assert run.score(CASE).completed


def test_dep_comes_after_the_nine_in_records_figures_and_the_html_report(
    scripted: FakeServer, tmp_path: Path
) -> None:
    model = _model(scripted)
    settings = RunSettings(methods=["dep", "j+h", "med"], k_values=[3], seeds=[10, 11],
                           cache_dir=tmp_path / "c")  # fmt: skip
    runner = Runner([CASE], [model], settings)
    try:
        records = runner.run_all(item_specs([CASE], [model], settings))
    finally:
        runner.close()
    dep = [r for r in records if r["method"] == "dep"]
    assert [(r["map_valid"], r["map_edges"], r["calls"]) for r in dep] == [
        (True, 4, 2),
        (False, 0, 2),
    ]
    assert all(r["map_valid"] is None for r in records if r["method"] != "dep")
    meta = {"models": ["fake"], "method_info": builtin_registry().info()}
    out = tmp_path / "report"
    sink = RecordSink(out)
    for record in records:
        sink.add(record)
    doc = sink.finish(meta)
    assert [row["method"] for row in doc["summary"]] == ["j+h", "med", "dep"]
    rows = json.loads((out / "results.json").read_text())["results"]
    assert {r["map_edges"] for r in rows if r["method"] == "dep"} == {4, 0}
    write_report(doc, out, samples=records, cases={CASE.id: CASE.to_dict()})
    with (out / "completion_by_method.csv").open() as handle:
        assert [r["method"] for r in csv.DictReader(handle)] == ["j+h", "med", "dep"]
    page = (out / "report.html").read_text()
    assert '"dep"' in page and "map" in page
