"""The runner's scheduling: which calls a worker makes ahead and which cases it takes, prefetched
runs equal to started ones, on-demand items ahead of prefetched calls, litellm prepared only
when calls remain, a leaving worker finishing its calls in flight, what a process holds (a
window of items, runs made ahead only while in progress); and the yardstick the throughput
benchmark holds the runner to (the protocol's call floor, the slot-bound ideal)."""

from __future__ import annotations

import asyncio
import dataclasses
import importlib.util
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers.handmade_cases import invoice_case

from pytest_revprop.llm.client import Client
from pytest_revprop.llm.presets import ModelConfig, resolve_model
from pytest_revprop.run import runner as runner_module
from pytest_revprop.run.cover import calls_cover, worker_share
from pytest_revprop.run.items import ItemSpec, RunSettings, item_specs
from pytest_revprop.run.runner import Runner
from pytest_revprop.testing.fakeserver import FakeServer
from pytest_revprop.vocabulary import METHODS, item_key


def _benchmark_module() -> Any:
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "throughput.py"
    spec = importlib.util.spec_from_file_location("revprop_throughput_benchmark", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


CASE = invoice_case()
SEEDS = [0, 42]


# --- a worker leaving while others go on ---------------------------------------------------------


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
        await asyncio.wait(calls[:1], timeout=60)  # the finished call hands its reply back
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
    server = fake_server(default={"content": "[]"}, latency_s=0.3)
    model = _fake_model(server)
    settings_ = _settings(tmp_path, concurrency=1)
    specs = [s for s in item_specs([CASE], [model], settings_) if s.method == "j"]
    runner = Runner([CASE], [model], settings_)
    try:
        runner.prefetch([ItemSpec(CASE.id, "fake", "h", 1, seed) for seed in range(20, 30)])
        _until(lambda: server.stats()["count"] >= 1)  # the first call made ahead is out
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


# --- what a process holds ----------------------------------------------------------------------


def _until(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_items_run_at_most_a_window_ahead_of_the_tests_and_a_taken_item_is_let_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner_module, "ITEMS_AHEAD", 4)
    model = resolve_model("gold")
    settings_ = _settings(tmp_path, cache_dir=None)
    specs = item_specs([CASE], [model], settings_)
    runner = Runner([CASE], [model], settings_)
    try:
        runner.start(specs)
        _until(lambda: len(runner.done()) == 4)
        time.sleep(0.2)
        assert len(runner.done()) == 4 and runner.held_runs() == 4  # the rest wait their turn
        first = runner.result(specs[0])
        _until(lambda: len(runner.done()) == 4)
        assert item_key(dataclasses.asdict(specs[0])) not in {item_key(r) for r in runner.done()}
        last = runner.result(specs[-1])  # asked out of turn: started at once
        rest = [runner.result(spec) for spec in specs[1:-1]]
        assert runner.held_runs() == 0 and runner.done() == []
    finally:
        runner.close()
    assert all(r["completed"] for r in [first, last, *rest]) and len(rest) == len(specs) - 2


def test_a_run_made_ahead_is_let_go_once_its_replies_are_cached(
    fake_server: Callable[..., FakeServer], tmp_path: Path
) -> None:
    server = fake_server(default={"content": json.dumps(CASE.gold_patch)})
    model = _fake_model(server)
    specs = item_specs([CASE], [model], _settings(tmp_path))
    runner = Runner([CASE], [model], _settings(tmp_path))
    try:
        runner.prefetch(calls_cover(specs))
        _until(lambda: server.stats()["count"] == 2 * 12)
        _until(lambda: runner.held_runs() == 0)  # the cache holds the replies now
        records = [runner.result(spec) for spec in specs]
    finally:
        runner.close()
    assert server.stats()["count"] == 2 * 12 and len(records) == len(specs)  # no call again


# --- the yardstick of benchmarks/throughput.py ----------------------------------------------------


def test_the_protocol_floor_is_60_calls_per_case_and_the_ideal_is_slot_bound() -> None:
    throughput = _benchmark_module()
    assert throughput.floor_calls_per_case() == 60
    assert throughput.ideal_seconds(7200, 32, 0.2) == pytest.approx(45.0)
    assert throughput.ideal_seconds(10, 32, 0.2) == pytest.approx(1.0)  # the reflection chain
