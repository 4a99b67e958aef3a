"""Throughput machinery: the plain patch path, the direct transport, call cover and worker
shares, on-demand items ahead of prefetched ones, and the benchmark's arithmetic."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from handmade_cases import invoice_case
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pytest_revprop.llm.client import TRANSPORT_ENV, Client
from pytest_revprop.llm.presets import ModelConfig, resolve_model
from pytest_revprop.methods import METHODS
from pytest_revprop.patching import PatchError, _apply_plain, _NotPlain, _Patch, apply_operations
from pytest_revprop.runner import (
    ItemSpec,
    Runner,
    RunSettings,
    calls_cover,
    item_specs,
    worker_share,
)
from pytest_revprop.testing.fakeserver import FakeServer


def _benchmark_module() -> Any:
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "throughput.py"
    spec = importlib.util.spec_from_file_location("revprop_throughput_benchmark", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


CASE = invoice_case()
SEEDS = [0, 42]


# --- applying patches --------------------------------------------------------------------------

KEYS = st.sampled_from(["a", "b", "-", "0", "01", "x/y", "t~1"])
LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(["s", ""]))
DOCS = st.recursive(
    LEAVES,
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(KEYS, kids, max_size=3),
    max_leaves=8,
)
TOKENS = st.sampled_from(["a", "b", "-", "0", "1", "2", "01", "x~1y", "t~01", "~2"])
PATHS = st.lists(TOKENS, max_size=3).map(lambda tokens: "".join("/" + t for t in tokens))
OPS = st.builds(
    lambda op, path, value, source: {"op": op, "path": path, "value": value, "from": source},
    st.sampled_from(["add", "replace", "remove", "test", "move", "copy"]), PATHS, DOCS, PATHS,
)  # fmt: skip


def _op(op: str, path: str, value: Any = 0) -> dict[str, Any]:
    return {"op": op, "path": path, "value": value}


@settings(max_examples=400, deadline=None)
@given(doc=DOCS, patch=st.lists(OPS, max_size=3))
@example(doc=[1], patch=[_op("replace", "/1")])
@example(doc=[1], patch=[_op("remove", "/1")])
@example(doc=[1], patch=[_op("add", "/1")])
@example(doc=[1], patch=[_op("add", "/2")])
@example(doc=[1], patch=[_op("add", "/-")])
@example(doc=[1], patch=[_op("add", "/01")])
@example(doc={"-": 1}, patch=[_op("replace", "/-")])
@example(doc={"-": 1}, patch=[_op("add", "/-")])
@example(doc={"a": [1]}, patch=[_op("replace", "/a/0"), _op("remove", "/a/0"), _op("add", "/a/0")])
def test_the_plain_path_applies_exactly_what_jsonpatch_applies(
    doc: Any, patch: list[dict[str, Any]]
) -> None:
    """Whenever the fast path applies a patch, jsonpatch gives the same document (member order
    included); whenever jsonpatch refuses one, the fast path hands it over."""
    try:
        expected: Any = _Patch(json.loads(json.dumps(patch))).apply(
            json.loads(json.dumps(doc)), in_place=True
        )
    except Exception:
        expected = PatchError
    try:
        got: Any = _apply_plain(json.loads(json.dumps(doc)), json.loads(json.dumps(patch)))
    except _NotPlain:
        return
    assert expected is not PatchError
    assert json.dumps(got) == json.dumps(expected)


def test_apply_operations_leaves_its_inputs_alone_and_words_errors_as_before() -> None:
    doc: dict[str, Any] = {"items": [{"qty": 1}], "total": 5}
    patch: list[dict[str, Any]] = [
        {"op": "replace", "path": "/items/0/qty", "value": {"n": 2}},
        {"op": "remove", "path": "/total"},
    ]
    result = apply_operations(doc, patch)
    assert result == {"items": [{"qty": {"n": 2}}]}
    assert doc == {"items": [{"qty": 1}], "total": 5}
    result["items"][0]["qty"]["n"] = 3
    assert patch[0]["value"] == {"n": 2}
    with pytest.raises(PatchError, match="can't replace a non-existent object 'nope'"):
        apply_operations(doc, [{"op": "replace", "path": "/nope", "value": 1}])


# --- transports --------------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::UserWarning")  # pydantic, while litellm is imported
@pytest.mark.parametrize("provider", ["openai", "hosted_vllm"])
def test_the_direct_transport_sends_and_reads_what_litellm_does(
    fake_server: Callable[..., FakeServer], monkeypatch: pytest.MonkeyPatch, provider: str
) -> None:
    reply = {
        "content": "[] {seed}",
        "reasoning": "think " * 8,
        "reasoning_field": "reasoning_content",
    }
    results = {}
    for transport in ("direct", "litellm"):
        monkeypatch.setenv(TRANSPORT_ENV, transport)
        srv = fake_server(default=reply)
        model = resolve_model(f"{provider}/served/m", api_bases=[srv.base_url]).replace(
            temperature=0.6, max_tokens=128, reasoning_effort="low", extra_body=(("top_k", "20"),),
            price_in=2.0, price_out=10.0,
        )  # fmt: skip
        client = Client(model, cache_dir=None)
        request = client.make_request(
            [{"role": "user", "content": "x" * 40}], seed=7, structured=True
        )
        got = asyncio.run(client.complete(request)).to_dict()
        got.pop("latency_s")
        results[transport] = (srv.stats()["requests"], got)
    assert results["direct"] == results["litellm"]
    assert results["direct"][1]["content"] == "[] 7"


@pytest.mark.parametrize(
    ("model", "base", "direct"),
    [
        ("openai/fake", "http://127.0.0.1:9/v1", True),
        ("openai/fake", "http://10.1.2.3:8000/v1", True),
        ("openai/fake", "http://gpu-box:8000/v1", True),
        ("openai/gpt-5", "https://proxy.example.com/v1", False),
        ("hosted_vllm/Qwen/Qwen3.5-9B", "https://vllm.example.com/v1", True),
        ("gpt-5.4-mini", "http://127.0.0.1:9/v1", False),
    ],
)
def test_with_the_direct_transport_self_hosted_servers_skip_litellm_and_other_apis_do_not(
    model: str, base: str, direct: bool
) -> None:
    client = Client(
        resolve_model(model).replace(api_bases=(base,)), cache_dir=None, transport="direct"
    )
    assert client._direct(base) is direct


def test_litellm_is_the_default_transport(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TRANSPORT_ENV, raising=False)
    client = Client(
        resolve_model("openai/fake").replace(api_bases=("http://127.0.0.1:9/v1",)), cache_dir=None
    )
    assert client.transport == "litellm" and not client._direct("http://127.0.0.1:9/v1")


def test_a_leaving_process_finishes_its_requests_in_flight_and_sends_no_more(
    fake_server: Callable[..., FakeServer], tmp_path: Path
) -> None:
    """Else another process waiting for the claim would send the same request again."""
    srv = fake_server(default={"content": "[]"}, latency_s=0.3)
    client = Client(
        resolve_model("openai/fake", api_bases=[srv.base_url]), cache_dir=tmp_path, concurrency=1
    )
    requests = [
        client.make_request([{"role": "user", "content": f"q{i}"}], seed=i) for i in range(3)
    ]

    async def go() -> list[Any]:
        calls = [asyncio.ensure_future(client.complete(r)) for r in requests]
        await asyncio.sleep(0.1)
        await client.finish_in_flight(timeout=5.0)
        assert client.cache is not None and client.cache.read(requests[0].cache_key()) is not None
        await asyncio.wait(calls[:1], timeout=1.0)  # the finished call hands its reply back
        for call in calls:
            call.cancel()
        return await asyncio.gather(*calls, return_exceptions=True)

    outcomes = asyncio.run(go())
    assert outcomes[0].content == "[]" and all(
        isinstance(o, asyncio.CancelledError) for o in outcomes[1:]
    )
    assert srv.stats()["count"] == 1
    assert client.cache is not None and client.cache.read(requests[0].cache_key()) is not None
    assert sorted(p.suffix for p in tmp_path.rglob("*.*")) == [".json"]  # no claim left behind


# --- which calls a worker makes ahead ----------------------------------------------------------


def _specs(cases: list[str]) -> list[ItemSpec]:
    return [ItemSpec(c, "m", method, 5 if method in ("reflect", "or", "and", "maj", "med", "select") else 1, s)
            for c in cases for method in METHODS for s in SEEDS]  # fmt: skip


def test_calls_cover_keeps_one_spec_per_distinct_set_of_calls() -> None:
    kept = calls_cover(_specs(["c1"]))
    assert sorted({s.method for s in kept}) == ["h", "j", "or", "reflect", "select"]
    assert len(kept) == 5 * len(SEEDS)
    only_rules = [s for s in _specs(["c1"]) if s.method in ("maj", "med", "j+h")]
    assert sorted({s.method for s in calls_cover(only_rules)}) == ["maj"]


def test_workers_share_the_cases_round_robin() -> None:
    specs = _specs(["c0", "c1", "c2", "c3", "c4"])
    shares = [{s.case for s in worker_share(specs, i, 2)} for i in range(2)]
    assert shares == [{"c0", "c2", "c4"}, {"c1", "c3"}]


# --- the runner --------------------------------------------------------------------------------


def _settings(tmp_path: Path, **kw: Any) -> RunSettings:
    return RunSettings(
        **{
            "methods": list(METHODS),
            "k_values": [5],
            "seeds": SEEDS,
            "cache_dir": tmp_path / "cache",
            **kw,
        }
    )


def _fake_model(server: FakeServer) -> ModelConfig:
    return ModelConfig(
        name="fake", litellm_model="openai/fake", api_bases=(server.base_url,), max_tokens=256
    )


def test_prefetched_runs_give_the_records_of_started_ones_with_each_call_made_once(
    fake_server: Callable[..., FakeServer], tmp_path: Path
) -> None:
    gold = json.dumps(CASE.gold_patch)
    server = fake_server(rules=[{"seed": 1, "content": "no patch"}], default={"content": gold})
    model = _fake_model(server)
    specs = item_specs([CASE], [model], _settings(tmp_path))
    runner = Runner([CASE], [model], _settings(tmp_path))
    try:
        runner.prefetch(calls_cover(specs))
        prefetched = [runner.result(s) for s in specs]
    finally:
        runner.close()
    assert server.stats()["count"] == 2 * 12  # per seed: j, h, 5 samples, 4 rounds, 1 selection
    again = Runner([CASE], [model], _settings(tmp_path, cache_dir=tmp_path / "other"))
    try:
        started = again.run_all(specs)
    finally:
        again.close()
    strip = ("latency_s", "replies")
    assert [{k: v for k, v in r.items() if k not in strip} for r in prefetched] == [
        {k: v for k, v in r.items() if k not in strip} for r in started
    ]


def test_an_item_asked_for_goes_ahead_of_calls_made_ahead(
    fake_server: Callable[..., FakeServer], tmp_path: Path
) -> None:
    server = fake_server(default={"content": "[]"}, latency_s=0.05)
    model = _fake_model(server)
    settings_ = _settings(tmp_path, concurrency=1)
    specs = [s for s in item_specs([CASE], [model], settings_) if s.method == "j"]
    runner = Runner([CASE], [model], settings_)
    try:
        runner.prefetch([ItemSpec(CASE.id, "fake", "h", 1, seed) for seed in range(20, 30)])
        time.sleep(0.02)
        runner.result(specs[0])
    finally:
        runner.close()
    seeds = [body["seed"] for body in server.stats()["requests"]]
    assert seeds[:2] == [20, specs[0].seed]


def test_litellm_is_prepared_before_the_first_call_only_when_there_are_calls_to_make(
    fake_server: Callable[..., FakeServer], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prepared: list[str] = []
    original = Client.prepare

    def counting(self: Client) -> None:
        prepared.append(self.model.name)
        original(self)

    monkeypatch.setattr(Client, "prepare", counting)
    server = fake_server(default={"content": "[]"})
    model = _fake_model(server)

    def run(seeds: list[int]) -> int:
        settings_ = _settings(tmp_path, methods=["j", "j+h"], seeds=seeds)
        runner = Runner([CASE], [model], settings_)
        try:
            runner.run_all(item_specs([CASE], [model], settings_))
        finally:
            runner.close()
        return len(prepared)

    assert run([0]) == 1  # cold: prepared once, before the calls
    assert run([0]) == 1  # warm: every first call cached, litellm not needed
    assert run([0, 7]) == 2  # a new seed has calls to make
    assert server.stats()["count"] == 2 * 2  # j and j+h, per seed, each once


# --- the benchmark's arithmetic ----------------------------------------------------------------


def test_the_protocol_floor_is_60_calls_per_case_and_the_ideal_is_slot_bound() -> None:
    throughput = _benchmark_module()
    assert throughput.floor_calls_per_case() == 60
    assert throughput.ideal_seconds(7200, 32, 0.2) == pytest.approx(45.0)
    assert throughput.ideal_seconds(10, 32, 0.2) == pytest.approx(1.0)  # the reflection chain
