"""The litellm client against fake OpenAI-compatible servers over real HTTP."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from pytest_revprop.llm.cache import STALE_TMP_S, ResponseCache
from pytest_revprop.llm.client import Client, PrioritySlots
from pytest_revprop.llm.credentials import missing_key
from pytest_revprop.llm.failures import is_refusal, is_retryable
from pytest_revprop.llm.litellm_setup import load_litellm
from pytest_revprop.llm.presets import ModelConfig, resolve_model
from pytest_revprop.llm.redact import redact
from pytest_revprop.llm.transports import APIStatusError
from pytest_revprop.llm.types import PATCH_SCHEMA, CallFailed, Reply, Request, RetryPolicy
from pytest_revprop.testing.fakeserver import FakeServer

DIGEST_REPLY = {"content": "answer seed={seed} digest={digest}"}
PLANTED_KEY = "sk-planted-9f8e7d6c5b4a3210"


def fake_model(bases: Sequence[str], **changes: Any) -> ModelConfig:
    model = resolve_model("openai/fake", api_bases=list(bases)).replace(max_tokens=64)
    return model.replace(**changes)


def ask(text: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": "You edit JSON."}, {"role": "user", "content": text}]


def run_all(client: Client, requests: Sequence[Request], priority: int = 0) -> list[Reply]:
    async def go() -> list[Reply]:
        return list(
            await asyncio.gather(*[client.complete(r, priority=priority) for r in requests])
        )

    return asyncio.run(go())


def files(folder: Path, pattern: str) -> list[Path]:
    return sorted(folder.rglob(pattern)) if folder.exists() else []


# --- cache keys ------------------------------------------------------------------------------


def test_cache_key_is_the_sha256_of_the_canonical_key_material() -> None:
    request = Request(
        litellm_model="hosted_vllm/m",
        messages=(("system", "s"), ("user", "u")),
        seed=42,
        served_name="m",
        api_bases=("http://b/v1", "http://a/v1"),
        temperature=0.6,
        max_tokens=100,
        reasoning_effort="medium",
        extra_body=(("k", "1"),),
    )
    expected = (
        '{"api_bases":["http://a/v1","http://b/v1"],"extra_body":{"k":1},'
        '"litellm_model":"hosted_vllm/m","max_tokens":100,'
        '"messages":[{"content":"s","role":"system"},{"content":"u","role":"user"}],'
        '"reasoning_effort":"medium","response_format":null,"seed":42,"served_name":"m",'
        '"temperature":0.6,"version":1}'
    )
    assert request.cache_key() == hashlib.sha256(expected.encode()).hexdigest()


def test_every_setting_that_changes_the_answer_changes_the_key() -> None:
    model = fake_model(["http://a/v1"], temperature=0.6, reasoning_effort="low")
    base = Request.build(model, ask("x"), seed=0)
    variants = {
        "seed": dataclasses.replace(base, seed=1),
        "temperature": dataclasses.replace(base, temperature=0.7),
        "no temperature": dataclasses.replace(base, temperature=None),
        "api base": dataclasses.replace(base, api_bases=("http://b/v1",)),
        "messages": Request.build(model, ask("y"), seed=0),
        "role": dataclasses.replace(base, messages=(("user", "You edit JSON."), base.messages[1])),
        "model": dataclasses.replace(base, litellm_model="openai/other"),
        "served": dataclasses.replace(base, served_name="other"),
        "max tokens": dataclasses.replace(base, max_tokens=65),
        "effort": dataclasses.replace(base, reasoning_effort="high"),
        "extra body": dataclasses.replace(base, extra_body=(("top_k", "20"),)),
        "structured": Request.build(
            model, ask("x"), seed=0, response_format={"type": "json_object"}
        ),
    }
    keys = {name: r.cache_key() for name, r in variants.items()}
    assert base.cache_key() not in keys.values()
    assert len(set(keys.values())) == len(keys)


def test_key_ignores_replica_order_and_extra_body_spelling() -> None:
    one = Request.build(fake_model(["http://a/v1", "http://b/v1"]), ask("x"), seed=3)
    two = Request.build(fake_model(["http://b/v1", "http://a/v1"]), ask("x"), seed=3)
    assert one.cache_key() == two.cache_key()
    from pytest_revprop.llm.presets import freeze_extra_body

    first = freeze_extra_body({"a": 1, "b": {"y": 2, "x": 1}})
    second = freeze_extra_body({"b": {"x": 1, "y": 2}, "a": 1})
    assert first == second


def test_embedded_calls_are_keyed_by_the_embedded_server_not_its_port() -> None:
    embedded = resolve_model("smollm2-135m")
    on_one_port = Request.build(
        embedded.replace(api_bases=("http://127.0.0.1:40001/v1",)), ask("x"), 0
    )
    on_another = Request.build(
        embedded.replace(api_bases=("http://127.0.0.1:40002/v1",)), ask("x"), 0
    )
    assert on_one_port.cache_key() == on_another.cache_key()
    assert on_one_port.api_bases != on_another.api_bases  # routing still uses the real URL
    served_elsewhere = fake_model(["http://127.0.0.1:40001/v1"])
    assert Request.build(served_elsewhere, ask("x"), 0).cache_key() != on_one_port.cache_key()


def test_api_key_is_not_in_the_key_and_a_new_key_still_hits(
    fake_server: Callable[..., FakeServer], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    srv = fake_server(default=DIGEST_REPLY)
    model = fake_model([srv.base_url], api_key_env="FAKE_PROVIDER_API_KEY")
    monkeypatch.setenv("FAKE_PROVIDER_API_KEY", PLANTED_KEY)
    first = Client(model, cache_dir=tmp_path)
    reply = asyncio.run(first.complete(first.make_request(ask("x"), seed=1)))
    monkeypatch.setenv("FAKE_PROVIDER_API_KEY", "sk-another-key-000000000")
    second = Client(model, cache_dir=tmp_path)
    again = asyncio.run(second.complete(second.make_request(ask("x"), seed=1)))
    assert again.content == reply.content and again.cached
    assert srv.stats()["count"] == 1
    stored = files(tmp_path, "*.json")
    assert len(stored) == 1
    assert PLANTED_KEY not in stored[0].read_text() and "sk-another" not in stored[0].read_text()


# --- the response cache ----------------------------------------------------------------------


def test_rerun_is_served_from_the_cache_with_zero_requests(
    fake_server: Callable[..., FakeServer], tmp_path: Path
) -> None:
    srv = fake_server(default={**DIGEST_REPLY, "reasoning": "r" * 40}, latency_s=0.05)
    model = fake_model([srv.base_url], price_in=1.0, price_out=2.0)
    requests = [Request.build(model, ask(f"q{i}"), seed=i) for i in range(8)]
    first = run_all(Client(model, cache_dir=tmp_path), requests)
    assert srv.stats()["count"] == 8
    assert not any(r.cached for r in first)

    rerun_client = Client(model, cache_dir=tmp_path)
    second = run_all(rerun_client, requests)
    assert srv.stats()["count"] == 8
    assert rerun_client.stats.requests_sent == 0 and rerun_client.stats.cache_hits == 8
    for old, new in zip(first, second, strict=True):
        assert new.cached
        assert dataclasses.replace(new, cached=False) == old  # same latency, usage and cost


def test_cached_hit_is_fast(fake_server: Callable[..., FakeServer], tmp_path: Path) -> None:
    srv = fake_server(default=DIGEST_REPLY)
    model = fake_model([srv.base_url])
    requests = [Request.build(model, ask(f"q{i}"), seed=i) for i in range(50)]
    run_all(Client(model, cache_dir=tmp_path), requests)
    client = Client(model, cache_dir=tmp_path)
    started = time.process_time()  # CPU time: a loaded machine stretches wall time, not this
    run_all(client, requests)
    per_hit = (time.process_time() - started) / len(requests)
    assert client.stats.cache_hits == 50 and srv.stats()["count"] == 50
    assert per_hit < 0.02


def test_cache_files_are_private_and_atomic(
    fake_server: Callable[..., FakeServer], tmp_path: Path
) -> None:
    srv = fake_server(default=DIGEST_REPLY)
    cache_dir = tmp_path / "cache"
    client = Client(fake_model([srv.base_url]), cache_dir=cache_dir)
    request = client.make_request(ask("x"), seed=5)
    asyncio.run(client.complete(request))
    key = request.cache_key()
    path = cache_dir / key[:2] / f"{key}.json"
    assert path.is_file()
    assert (path.stat().st_mode & 0o777) == 0o600
    assert (path.parent.stat().st_mode & 0o777) == 0o700
    assert (cache_dir.stat().st_mode & 0o777) == 0o700
    record = json.loads(path.read_text())
    assert record["key"] == key
    assert record["request"]["seed"] == 5
    assert record["reply"]["content"].startswith("answer seed=5")
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temp or claim file left


def test_corrupt_cache_file_is_a_miss_and_is_rewritten(
    fake_server: Callable[..., FakeServer], tmp_path: Path
) -> None:
    srv = fake_server(default=DIGEST_REPLY)
    client = Client(fake_model([srv.base_url]), cache_dir=tmp_path)
    request = client.make_request(ask("x"), seed=1)
    path = ResponseCache(tmp_path).path(request.cache_key())
    path.parent.mkdir(parents=True)
    path.write_text('{"version": 1, "key": "')
    reply = asyncio.run(client.complete(request))
    assert not reply.cached and srv.stats()["count"] == 1
    assert json.loads(path.read_text())["reply"]["content"] == reply.content


def test_an_existing_cache_folder_open_to_others_is_made_private_when_opened(
    tmp_path: Path,
) -> None:
    root = tmp_path / "cache"
    (root / "ab").mkdir(parents=True)
    (root / "ab" / "abc.json").write_text("{}")
    root.chmod(0o755)
    ResponseCache(root)
    assert (root.stat().st_mode & 0o777) == 0o700
    assert (root / "ab" / "abc.json").read_text() == "{}"


KILLED_WRITER = r"""
import os, signal, sys
from pathlib import Path
from pytest_revprop.llm.cache import ResponseCache
from pytest_revprop.llm.presets import resolve_model
from pytest_revprop.llm.types import Reply, Request

root, seed = Path(sys.argv[1]), int(sys.argv[2])
model = resolve_model("openai/fake", api_bases=["http://127.0.0.1:9/v1"])
request = Request.build(model, [{"role": "user", "content": "x"}], seed=seed)
cache = ResponseCache(root)
os.replace = lambda *args: os.kill(os.getpid(), signal.SIGKILL)  # killed before the rename
cache.write(request.cache_key(), request, Reply(content="[]"))
"""


def _killed_mid_write(root: Path, seed: int) -> Path:
    """The temporary file a writer killed between writing and renaming leaves behind."""
    before = set(root.rglob("*.tmp"))
    child = subprocess.run(
        [sys.executable, "-c", KILLED_WRITER, str(root), str(seed)], capture_output=True, timeout=60
    )
    assert child.returncode == -signal.SIGKILL, child.stderr
    (left,) = set(root.rglob("*.tmp")) - before
    return left


@pytest.mark.slow
def test_temporary_files_of_writers_killed_mid_write_are_removed_once_stale(
    tmp_path: Path,
) -> None:
    root = tmp_path / "cache"
    model = fake_model(["http://127.0.0.1:9/v1"])
    kept = Request.build(model, ask("kept"), seed=0)
    ResponseCache(root).write(kept.cache_key(), kept, Reply(content="[]"))
    stale, fresh = _killed_mid_write(root, 1), _killed_mid_write(root, 2)
    assert stale.read_text(encoding="utf-8").startswith('{"version"')
    shard = stale.parent
    foreign = [shard / "notes.tmp", shard / ".abc.tmp", root / f".{stale.name[1:]}"]
    for path in foreign:
        path.write_text("not ours")
    long_ago = time.time() - STALE_TMP_S - 60
    for path in (stale, *foreign):
        os.utime(path, (long_ago, long_ago))
    ResponseCache(root)
    assert not stale.exists()
    assert fresh.exists() and all(path.exists() for path in foreign)
    assert ResponseCache(root).read(kept.cache_key()) == Reply(content="[]")


def test_length_cut_reply_is_cached(fake_server: Callable[..., FakeServer], tmp_path: Path) -> None:
    srv = fake_server(default={"content": '[{"op": ', "finish_reason": "length"})
    model = fake_model([srv.base_url])
    request = Request.build(model, ask("x"), seed=0)
    first = asyncio.run(Client(model, cache_dir=tmp_path).complete(request))
    second = asyncio.run(Client(model, cache_dir=tmp_path).complete(request))
    assert first.finish_reason == second.finish_reason == "length"
    assert second.cached and srv.stats()["count"] == 1


# --- claims across processes -----------------------------------------------------------------

WORKER = r"""
import asyncio, json, sys, time
from pathlib import Path
from pytest_revprop.llm.client import Client
from pytest_revprop.llm.presets import resolve_model

base, cache, barrier, me, order = sys.argv[1:6]
Path(barrier, me).touch()
while len(list(Path(barrier).iterdir())) < 2:
    time.sleep(0.01)
model = resolve_model("openai/fake", api_bases=[base]).replace(max_tokens=64)
# the claims are the cache's, whatever posts the calls: the direct transport spares each
# process litellm's import
client = Client(model, cache_dir=Path(cache), concurrency=4, transport="direct")
indices = [i % 12 for i in range(24)]
if order == "reverse":
    indices.reverse()

async def main():
    requests = [
        client.make_request([{"role": "user", "content": f"q{i}"}], seed=i) for i in indices
    ]
    replies = await asyncio.gather(*[client.complete(r) for r in requests])
    return {i: r.content for i, r in zip(indices, replies)}

contents = asyncio.run(main())
assert "litellm" not in sys.modules
print(json.dumps({"contents": contents, "stats": client.stats.to_dict()}))
"""


@pytest.mark.slow
def test_two_processes_share_a_cache_and_call_each_request_once(
    fake_server: Callable[..., FakeServer], tmp_path: Path
) -> None:
    srv = fake_server(default=DIGEST_REPLY, latency_s=0.05)
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    cache = tmp_path / "cache"
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, srv.base_url, str(cache), str(barrier), name, order],
            stdout=subprocess.PIPE,
            text=True,
        )
        for name, order in (("a", "forward"), ("b", "reverse"))
    ]
    outputs = [json.loads(w.communicate(timeout=120)[0]) for w in workers]
    assert [w.returncode for w in workers] == [0, 0]
    assert outputs[0]["contents"] == outputs[1]["contents"]
    assert len(outputs[0]["contents"]) == 12
    stats = srv.stats()
    assert stats["count"] == 12  # every distinct request sent once in total
    assert sum(o["stats"]["requests_sent"] for o in outputs) == 12
    assert len(files(cache, "*.json")) == 12
    assert files(cache, "*.claim") == [] and files(cache, "*.tmp") == []


def test_a_claim_held_by_a_live_process_is_waited_for(
    fake_server: Callable[..., FakeServer], tmp_path: Path
) -> None:
    srv = fake_server(default=DIGEST_REPLY)
    client = Client(fake_model([srv.base_url]), cache_dir=tmp_path)
    request = client.make_request(ask("x"), seed=1)
    key = request.cache_key()
    cache = ResponseCache(tmp_path)
    assert cache.try_claim(key)  # as if another live process were making this call

    async def go() -> Reply:
        waiting = asyncio.ensure_future(client.complete(request))
        await asyncio.sleep(0.3)
        assert not waiting.done()
        cache.write(key, request, Reply(content="made elsewhere", latency_s=1.5))
        cache.release_claim(key)
        return await waiting

    reply = asyncio.run(go())
    assert (reply.content, reply.cached, reply.latency_s) == ("made elsewhere", True, 1.5)
    assert srv.stats()["count"] == 0


NO_SUCH_PID = 2**22 + 1
"""A process id no process has: above Linux's highest (2**22) and macOS's (99,999)."""


def test_stale_claims_are_broken(
    fake_server: Callable[..., FakeServer], tmp_path: Path, fast_retry: RetryPolicy
) -> None:
    srv = fake_server(default=DIGEST_REPLY)
    client = Client(fake_model([srv.base_url]), cache_dir=tmp_path, retry=fast_retry)
    cache = ResponseCache(tmp_path)
    dead_pid = NO_SUCH_PID

    by_dead = client.make_request(ask("dead holder"), seed=1)
    assert cache.try_claim(by_dead.cache_key())
    claim = cache.claim_path(by_dead.cache_key())
    claim.write_text(claim.read_text().replace(f'"pid": {os.getpid()}', f'"pid": {dead_pid}'))

    by_silent = client.make_request(ask("silent holder"), seed=2)
    assert cache.try_claim(by_silent.cache_key())
    old = time.time() - client.claim_ttl_s - 10
    os.utime(cache.claim_path(by_silent.cache_key()), (old, old))

    replies = run_all(client, [by_dead, by_silent])
    assert [r.cached for r in replies] == [False, False]
    assert srv.stats()["count"] == 2
    assert files(tmp_path, "*.claim") == []


# --- in-process behaviour --------------------------------------------------------------------


def test_identical_concurrent_requests_are_made_once(
    fake_server: Callable[..., FakeServer],
) -> None:
    srv = fake_server(default=DIGEST_REPLY, latency_s=0.1)
    client = Client(fake_model([srv.base_url]), cache_dir=None)
    request = client.make_request(ask("same"), seed=4)
    replies = run_all(client, [request] * 10)
    assert srv.stats()["count"] == 1
    assert client.stats.dedup_joins == 9
    assert len({r.content for r in replies}) == 1
    replies[0].content = "changed"
    assert replies[1].content != "changed"  # every waiter gets its own copy


@pytest.mark.parametrize(("slots", "concurrency", "expected"), [(3, 8, 3), (16, 4, 4)])
def test_in_flight_requests_are_bounded(
    fake_server: Callable[..., FakeServer], slots: int, concurrency: int, expected: int
) -> None:
    srv = fake_server(default=DIGEST_REPLY, latency_s=0.05, slots=slots)
    client = Client(fake_model([srv.base_url]), cache_dir=None, concurrency=concurrency)
    requests = [client.make_request(ask(f"q{i}"), seed=i) for i in range(24)]
    run_all(client, requests)
    assert srv.stats()["peak_in_flight"] == expected
    assert client.stats.peak_in_flight == concurrency
    assert client.stats.in_flight == 0


def test_waiting_requests_are_served_by_priority_then_fifo(
    fake_server: Callable[..., FakeServer],
) -> None:
    srv = fake_server(default=DIGEST_REPLY, latency_s=0.05)
    client = Client(fake_model([srv.base_url]), cache_dir=None, concurrency=1)

    async def go() -> None:
        first = asyncio.ensure_future(client.complete(client.make_request(ask("first"), seed=0)))
        await asyncio.sleep(0.02)
        waiting = [
            client.complete(client.make_request(ask(f"p{p}"), seed=seed), priority=p)
            for seed, p in [(1, 0), (2, 5), (3, 0), (4, 5), (5, 9)]
        ]
        await asyncio.gather(first, *waiting)

    asyncio.run(go())
    assert [body["seed"] for body in srv.stats()["requests"]] == [0, 5, 2, 4, 1, 3]


def test_priority_slots_survive_cancelled_waiters() -> None:
    async def go() -> int:
        slots = PrioritySlots(1)
        await slots.acquire()
        cancelled = asyncio.ensure_future(slots.acquire(5))
        later = asyncio.ensure_future(slots.acquire(1))
        await asyncio.sleep(0)
        cancelled.cancel()
        await asyncio.sleep(0)
        slots.release()
        await asyncio.wait_for(later, 1)
        slots.release()
        return slots.in_use

    assert asyncio.run(go()) == 0


def test_client_works_across_event_loops(fake_server: Callable[..., FakeServer]) -> None:
    srv = fake_server(default=DIGEST_REPLY)
    client = Client(fake_model([srv.base_url]), cache_dir=None)
    for seed in (1, 2):
        reply = asyncio.run(client.complete(client.make_request(ask("x"), seed=seed)))
        assert reply.content.startswith(f"answer seed={seed}")


# --- usage, cost, latency, reasoning ---------------------------------------------------------


@pytest.mark.parametrize("field", ["reasoning", "reasoning_content"])
@pytest.mark.parametrize("provider", ["openai", "hosted_vllm"])
def test_reasoning_usage_cost_and_latency_are_recorded(
    fake_server: Callable[..., FakeServer], field: str, provider: str
) -> None:
    reply = {"content": "[]", "reasoning": "think " * 20, "reasoning_field": field}
    srv = fake_server(default=reply, latency_s=0.1)
    model = resolve_model(f"{provider}/fake", api_bases=[srv.base_url]).replace(
        max_tokens=64, price_in=2.0, price_out=10.0
    )
    client = Client(model, cache_dir=None)
    got = asyncio.run(
        client.complete(client.make_request([{"role": "user", "content": "x" * 400}], seed=0))
    )
    assert got.content == "[]"
    assert got.reasoning == "think " * 20
    # fake server: prompt 400 chars // 4; completion (2 + 120) chars // 4; reasoning 120 // 4
    assert (got.input_tokens, got.output_tokens, got.reasoning_tokens) == (100, 30, 30)
    assert got.cost_usd == pytest.approx(100 * 2.0 / 1e6 + 30 * 10.0 / 1e6)
    assert 0.1 <= got.latency_s < 30  # seconds (the server holds 0.1 s; a loaded machine adds)
    assert got.finish_reason == "stop"


def test_prepare_gives_litellm_the_prices_of_models_it_does_not_know(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    litellm = load_litellm()
    monkeypatch.setattr(litellm, "model_cost", dict(litellm.model_cost))
    local = resolve_model("hosted_vllm/revprop-priced-test", api_bases=["http://127.0.0.1:9/v1"])
    Client(
        local.replace(price_in=2.0, price_out=10.0), cache_dir=None, transport="litellm"
    ).prepare()
    entry = litellm.model_cost["hosted_vllm/revprop-priced-test"]
    assert entry["input_cost_per_token"] == pytest.approx(2.0 / 1e6)
    assert entry["output_cost_per_token"] == pytest.approx(10.0 / 1e6)
    assert entry["litellm_provider"] == "hosted_vllm"
    # a model litellm knows keeps litellm's entry
    known = next(
        name
        for name, e in litellm.model_cost.items()
        if name.startswith("gpt-") and isinstance(e, dict)
    )
    before = dict(litellm.model_cost[known])
    Client(resolve_model(f"openai/{known}").replace(price_in=123.0), cache_dir=None).prepare()
    assert litellm.model_cost[known] == before and f"openai/{known}" not in litellm.model_cost
    # the direct transport never asks litellm
    direct = resolve_model("hosted_vllm/revprop-direct-test", api_bases=["http://127.0.0.1:9/v1"])
    Client(direct, cache_dir=None, transport="direct").prepare()
    assert "hosted_vllm/revprop-direct-test" not in litellm.model_cost


def test_request_carries_the_generation_settings(fake_server: Callable[..., FakeServer]) -> None:
    srv = fake_server(default=DIGEST_REPLY)
    model = resolve_model("hosted_vllm/served/m", api_bases=[srv.base_url]).replace(
        temperature=0.6, max_tokens=128, reasoning_effort="medium",
        extra_body=(("top_k", "20"),),
    )  # fmt: skip
    client = Client(model, cache_dir=None)
    asyncio.run(client.complete(client.make_request(ask("x"), seed=84, structured=True)))
    body = srv.stats()["requests"][0]
    assert body["model"] == "served/m"
    assert (body["seed"], body["temperature"], body["max_tokens"]) == (84, 0.6, 128)
    assert body["reasoning_effort"] == "medium"
    assert body["top_k"] == 20
    assert body["response_format"]["type"] == "json_schema"
    assert body["messages"] == ask("x")

    no_temperature = Client(model.replace(temperature=None, reasoning_effort=None), cache_dir=None)
    asyncio.run(no_temperature.complete(no_temperature.make_request(ask("y"), seed=0)))
    body = srv.stats()["requests"][1]
    assert "temperature" not in body and "reasoning_effort" not in body


def test_structured_requests_take_the_form_the_models_server_accepts(
    fake_server: Callable[..., FakeServer], fast_retry: RetryPolicy
) -> None:
    """llama.cpp's server takes ``json_object`` with a schema and refuses ``json_schema``: the
    embedded preset sends the first, other models the second unless configured otherwise."""
    srv = fake_server(response_formats=["text", "json_object"])
    embedded = resolve_model("smollm2-135m").replace(api_bases=(srv.base_url,))
    configured = fake_model([srv.base_url], structured_format="json_object")
    for model in (embedded, configured):
        client = Client(model, cache_dir=None, retry=fast_retry)
        asyncio.run(client.complete(client.make_request(ask("x"), seed=0, structured=True)))
    vllm = Client(fake_model([srv.base_url]), cache_dir=None, retry=fast_retry)
    with pytest.raises(CallFailed, match="validation error"):
        asyncio.run(vllm.complete(vllm.make_request(ask("x"), seed=0, structured=True)))
    sent = [body["response_format"] for body in srv.stats()["requests"]]
    assert sent[:2] == [{"type": "json_object", "schema": PATCH_SCHEMA}] * 2
    assert sent[2]["type"] == "json_schema" and sent[2]["json_schema"]["schema"] == PATCH_SCHEMA
    assert srv.stats()["statuses"] == {"200": 2, "500": 1}


# --- retries and failures --------------------------------------------------------------------


def test_first_attempt_faults_give_the_same_replies_as_a_clean_server(
    fake_server: Callable[..., FakeServer], tmp_path: Path, fast_retry: RetryPolicy
) -> None:
    faults = {
        "first_attempt_fail_fraction": 0.3,
        "kinds": ["429", "503", "reset", "malformed"],
        "retry_after_s": 0.05,
    }
    clean = fake_server(default=DIGEST_REPLY)
    faulty = fake_server(default=DIGEST_REPLY, faults=faults)
    contents = []
    for srv, folder in ((clean, "clean"), (faulty, "faulty")):
        client = Client(fake_model([srv.base_url]), cache_dir=tmp_path / folder, retry=fast_retry)
        requests = [client.make_request(ask(f"q{i}"), seed=i) for i in range(30)]
        contents.append([r.content for r in run_all(client, requests)])
    assert contents[0] == contents[1]
    statuses = faulty.stats()["statuses"]
    assert statuses["200"] == 30
    assert sum(statuses.values()) > 30  # some first attempts did fail
    assert faulty.stats()["count"] == sum(statuses.values())


def test_never_recovering_server_raises_a_redacted_call_failed(
    fake_server: Callable[..., FakeServer],
    tmp_path: Path,
    fast_retry: RetryPolicy,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FAKE_PROVIDER_API_KEY", PLANTED_KEY)
    srv = fake_server(faults={"always_fail": "503"})
    model = fake_model([srv.base_url], api_key_env="FAKE_PROVIDER_API_KEY")
    client = Client(model, cache_dir=tmp_path, retry=fast_retry)
    with pytest.raises(CallFailed) as info:
        asyncio.run(client.complete(client.make_request(ask(f"key {PLANTED_KEY}"), seed=0)))
    reason = info.value.reason
    assert srv.base_url in reason and "503" in reason and "4 attempts" in reason
    assert PLANTED_KEY not in reason and PLANTED_KEY not in str(info.value)
    assert "\n" not in reason
    assert srv.stats()["count"] == 4
    assert files(tmp_path, "*.json") == [] and files(tmp_path, "*.claim") == []


def test_client_errors_are_not_retried(
    fake_server: Callable[..., FakeServer], fast_retry: RetryPolicy
) -> None:
    srv = fake_server(model_names=["served/other"])
    client = Client(fake_model([srv.base_url]), cache_dir=None, retry=fast_retry)
    with pytest.raises(CallFailed, match="HTTP 404"):
        asyncio.run(client.complete(client.make_request(ask("x"), seed=0)))
    assert srv.stats()["count"] == 1


@pytest.mark.parametrize(
    ("status", "message", "retried"),
    [
        (400, "bad request", False),
        (404, "no such model", False),
        (422, "unprocessable", False),
        (408, "request timeout", True),
        (409, "conflict", True),
        (429, "slow down", True),
        (500, "internal error", True),
        (503, "overloaded", True),
        (500, "1 validation error: Input should be 'text' or 'json_object'", False),
        (401, "invalid key", False),
        (403, "forbidden", False),
        (500, "Missing credentials. Please pass an `api_key`", False),
    ],
)
def test_only_failures_that_a_retry_can_change_are_retried(
    status: int, message: str, retried: bool
) -> None:
    assert is_retryable(APIStatusError(status, message, {})) is retried


def test_refused_credentials_are_401_403_and_missing_keys() -> None:
    assert is_refusal(APIStatusError(401, "Incorrect API key provided", {}))
    assert is_refusal(APIStatusError(403, "forbidden", {}))
    assert is_refusal(APIStatusError(500, "OpenAIException - Missing credentials. Please", {}))
    assert not is_refusal(APIStatusError(400, "bad request", {}))
    assert not is_refusal(APIStatusError(503, "overloaded", {}))
    assert not is_refusal(TimeoutError())


def test_a_validation_error_the_server_states_is_one_attempt_whatever_its_status(
    fake_server: Callable[..., FakeServer], fast_retry: RetryPolicy
) -> None:
    srv = fake_server(response_formats=["text", "json_object"])
    client = Client(fake_model([srv.base_url]), cache_dir=None, retry=fast_retry)
    with pytest.raises(CallFailed, match="Input should be 'text' or 'json_object'") as info:
        asyncio.run(client.complete(client.make_request(ask("x"), seed=0, structured=True)))
    assert srv.stats()["statuses"] == {"500": 1}
    assert info.value.details["attempts"] == 1 and info.value.details["retryable"] is False


def test_a_refused_key_ends_its_call_at_once_and_later_calls_are_not_sent(
    fake_server: Callable[..., FakeServer], fast_retry: RetryPolicy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_PROVIDER_API_KEY", PLANTED_KEY)
    srv = fake_server(faults={"always_fail": "401"})
    model = fake_model([srv.base_url], api_key_env="FAKE_PROVIDER_API_KEY")
    client = Client(model, cache_dir=None, retry=fast_retry)
    with pytest.raises(CallFailed) as first:
        asyncio.run(client.complete(client.make_request(ask("x"), seed=0)))
    with pytest.raises(CallFailed) as later:
        asyncio.run(client.complete(client.make_request(ask("y"), seed=0)))
    assert srv.stats()["count"] == 1
    assert first.value.refused and first.value.details["attempts"] == 1
    assert later.value.refused and later.value.details["attempts"] == 0
    assert "not sent" in later.value.reason and "401" in later.value.reason
    assert PLANTED_KEY not in first.value.reason + later.value.reason


def test_a_key_litellm_finds_missing_is_a_refusal_after_one_attempt(
    monkeypatch: pytest.MonkeyPatch, fast_retry: RetryPolicy
) -> None:
    """litellm answers a hosted model without its key with "Missing credentials", as HTTP 500."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    client = Client(resolve_model("openai/revprop-no-key"), cache_dir=None, retry=fast_retry)
    with pytest.raises(CallFailed, match=r"(?i)credentials|api.?key") as info:
        asyncio.run(client.complete(client.make_request(ask("x"), seed=0)))
    assert info.value.refused and info.value.details["attempts"] == 1
    assert client.stats.requests_sent == 1 and client.stats.retries == 0


def test_a_model_misses_its_key_when_its_variable_or_its_hosted_providers_is_unset(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "MY_KEY"):
        monkeypatch.delenv(name, raising=False)
    message = missing_key(resolve_model("gpt-5.4-mini"))
    assert message is not None and "OPENAI_API_KEY" in message and "\n" not in message
    assert "OPENAI_API_KEY" in (missing_key(resolve_model("openai/gpt-4o")) or "")
    assert "ANTHROPIC_API_KEY" in (missing_key(resolve_model("anthropic/claude-x")) or "")
    keyed = fake_model(["http://127.0.0.1:9/v1"], api_key_env="MY_KEY")
    assert "MY_KEY" in (missing_key(keyed) or "")
    # a self-hosted server needs no key unless the model names one; nor does a provider whose
    # credentials come from elsewhere (a cloud profile), nor a model that makes no call
    assert missing_key(fake_model(["http://127.0.0.1:9/v1"])) is None
    assert missing_key(resolve_model("bedrock/anthropic.claude-v2")) is None
    assert missing_key(resolve_model("gold")) is None
    assert missing_key(resolve_model("smollm2-135m")) is None
    monkeypatch.setenv("MY_KEY", PLANTED_KEY)
    monkeypatch.setenv("OPENAI_API_KEY", PLANTED_KEY)
    assert missing_key(keyed) is None and missing_key(resolve_model("gpt-5.4-mini")) is None


def test_a_warning_raised_as_an_error_is_not_retried() -> None:
    assert not is_retryable(UserWarning("pydantic note, raised under -W error"))
    assert is_retryable(ConnectionResetError("reset")) and is_retryable(TimeoutError())


def test_retry_after_is_honoured(fake_server: Callable[..., FakeServer]) -> None:
    srv = fake_server(
        default=DIGEST_REPLY,
        faults={"first_attempt_fail_fraction": 1.0, "kinds": ["429"], "retry_after_s": 0.4},
    )
    retry = RetryPolicy(max_attempts=2, base_delay=0.001, max_delay=5.0)
    client = Client(fake_model([srv.base_url]), cache_dir=None, retry=retry)

    async def timed() -> float:
        started = time.monotonic()
        await client.complete(client.make_request(ask("x"), seed=0))
        return time.monotonic() - started

    assert asyncio.run(timed()) >= 0.4
    assert srv.stats()["statuses"] == {"429": 1, "200": 1}


def test_a_hanging_attempt_times_out_and_is_retried(fake_server: Callable[..., FakeServer]) -> None:
    srv = fake_server(
        default=DIGEST_REPLY,
        faults={"first_attempt_fail_fraction": 1.0, "kinds": ["hang"], "hang_s": 120.0},
    )
    retry = RetryPolicy(max_attempts=2, base_delay=0.01, attempt_timeout_s=0.5)
    client = Client(fake_model([srv.base_url]), cache_dir=None, retry=retry)
    load_litellm()  # the import is not part of the timing
    started = time.monotonic()
    reply = asyncio.run(client.complete(client.make_request(ask("x"), seed=0)))
    assert reply.content.startswith("answer seed=0")
    # the hung attempt was given up after its 0.5 s, long before the server's 120 s hang ends
    # (a bound no load stretches 0.5 s to)
    assert time.monotonic() - started < 60.0
    assert client.stats.retries == 1


def test_redact_hides_secret_env_values_and_token_patterns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok_abcdefgh123")
    monkeypatch.setenv("SHORT_KEY", "abc")
    text = "tok_abcdefgh123 Authorization: Bearer xyz.123 key sk-proj-AbC_123 abc"
    assert redact(text) == "*** Authorization: *** key *** abc"


# --- replicas --------------------------------------------------------------------------------


def test_replicas_share_the_work_and_give_the_same_replies(
    fake_server: Callable[..., FakeServer],
) -> None:
    one = fake_server(default=DIGEST_REPLY, latency_s=0.05)
    two = fake_server(default=DIGEST_REPLY, latency_s=0.05)
    single = fake_server(default=DIGEST_REPLY)
    both = Client(fake_model([one.base_url, two.base_url]), cache_dir=None, concurrency=4)
    alone = Client(fake_model([single.base_url]), cache_dir=None)
    messages = [ask(f"q{i}") for i in range(20)]
    spread = run_all(both, [both.make_request(m, seed=i) for i, m in enumerate(messages)])
    plain = run_all(alone, [alone.make_request(m, seed=i) for i, m in enumerate(messages)])
    assert [r.content for r in spread] == [r.content for r in plain]
    counts = (one.stats()["count"], two.stats()["count"])
    assert sum(counts) == 20 and min(counts) >= 5


def test_a_dead_replica_is_routed_around(
    fake_server: Callable[..., FakeServer], fast_retry: RetryPolicy
) -> None:
    live = fake_server(default=DIGEST_REPLY)
    dead = fake_server()
    dead_url = dead.base_url
    dead.stop()
    client = Client(fake_model([dead_url, live.base_url]), cache_dir=None, retry=fast_retry)
    replies = run_all(client, [client.make_request(ask(f"q{i}"), seed=i) for i in range(10)])
    assert [r.content.split()[1] for r in replies] == [f"seed={i}" for i in range(10)]
    assert live.stats()["count"] == 10
    assert client.stats.failures == 0


def test_client_refuses_models_it_cannot_call() -> None:
    with pytest.raises(ValueError, match="reference solver"):
        Client(resolve_model("gold"), cache_dir=None)
    with pytest.raises(ValueError, match="embedded server"):
        Client(resolve_model("smollm2-135m"), cache_dir=None)
    with pytest.raises(ValueError, match="concurrency"):
        Client(fake_model(["http://a/v1"]), cache_dir=None, concurrency=0)
