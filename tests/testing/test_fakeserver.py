"""The fake OpenAI-compatible server, spoken to over real HTTP."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_revprop.testing.fakeserver import (
    FakeServer,
    FakeServerProcess,
    get_json,
    post_json,
    request_digest,
)


def chat(base_url: str, text: str, seed: int = 0, model: str = "m", **extra: Any) -> Any:
    body = {"model": model, "messages": [{"role": "user", "content": text}], "seed": seed}
    return post_json(f"{base_url}/chat/completions", {**body, **extra})


def status_of(base_url: str, body: dict[str, Any]) -> int:
    try:
        post_json(f"{base_url}/chat/completions", body)
    except urllib.error.HTTPError as exc:
        return exc.code
    return 200


def test_rules_match_on_text_and_seed_and_fall_back_to_default(
    fake_server: Callable[..., FakeServer],
) -> None:
    rules = [
        {"contains": "budget", "seed": 1, "content": "seed one"},
        {
            "contains": "budget",
            "content": "any seed",
            "reasoning": "hmm",
            "finish_reason": "length",
        },
    ]
    srv = fake_server(rules=rules, default={"content": "fallback"})
    assert (
        chat(srv.base_url, "the budget", seed=1)["choices"][0]["message"]["content"] == "seed one"
    )
    other = chat(srv.base_url, "the budget", seed=2)["choices"][0]
    assert other["message"] == {
        "role": "assistant",
        "content": "any seed",
        "reasoning_content": "hmm",
    }
    assert other["finish_reason"] == "length"
    assert chat(srv.base_url, "nothing")["choices"][0]["message"]["content"] == "fallback"


def test_replies_fill_placeholders_name_the_reasoning_field_and_count_usage(
    fake_server: Callable[..., FakeServer],
) -> None:
    reply = {
        "content": "s={seed} m={model} d={digest}",
        "reasoning": "abcdefgh",
        "reasoning_field": "reasoning",
    }
    srv = fake_server(default=reply)
    body = chat(srv.base_url, "x" * 40, seed=7, model="mm")
    message = body["choices"][0]["message"]
    digest = request_digest(
        {"model": "mm", "messages": [{"role": "user", "content": "x" * 40}], "seed": 7}
    )
    assert message["content"] == f"s=7 m=mm d={digest}"
    assert message["reasoning"] == "abcdefgh"
    assert "reasoning_content" not in message
    content_chars = len(f"s=7 m=mm d={digest}")  # 24
    assert body["usage"] == {
        "prompt_tokens": 10,
        "completion_tokens": (content_chars + 8) // 4,
        "total_tokens": 10 + (content_chars + 8) // 4,
        "completion_tokens_details": {"reasoning_tokens": 2},
    }


def test_python_responder_gets_the_body(
    fake_server: Callable[..., FakeServer], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "my_oracle.py").write_text(
        "def answer(body):\n    return {'content': 'echo ' + body['messages'][-1]['content']}\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    srv = fake_server(responder="my_oracle:answer")
    assert chat(srv.base_url, "hello")["choices"][0]["message"]["content"] == "echo hello"


def test_side_endpoints_report_and_reset(fake_server: Callable[..., FakeServer]) -> None:
    srv = fake_server(model_names=["served/a"])
    assert urllib.request.urlopen(f"{srv.url}/health").read() == b"ok"
    assert [m["id"] for m in get_json(f"{srv.base_url}/models")["data"]] == ["served/a"]
    chat(srv.base_url, "one", model="served/a")
    assert status_of(srv.base_url, {"model": "other", "messages": []}) == 404
    stats = get_json(f"{srv.url}/_stats")
    assert stats["count"] == 2
    assert stats["statuses"] == {"200": 1, "404": 1}
    assert stats["requests"][0]["messages"][0]["content"] == "one"
    post_json(f"{srv.url}/_reset", {})
    assert srv.stats()["count"] == 0


def test_first_attempt_faults_hit_a_fixed_subset_once(
    fake_server: Callable[..., FakeServer],
) -> None:
    faults = {"first_attempt_fail_fraction": 0.5, "kinds": ["503", "429"], "retry_after_s": 0.25}
    failed_sets = []
    for _ in range(2):
        srv = fake_server(faults=faults)
        bodies = [{"model": "m", "messages": [], "seed": i} for i in range(40)]
        first = [status_of(srv.base_url, b) for b in bodies]
        second = [status_of(srv.base_url, b) for b in bodies]
        assert set(second) == {200}
        failed_sets.append({i for i, s in enumerate(first) if s != 200})
        assert set(first) <= {200, 503, 429}
    assert failed_sets[0] == failed_sets[1]
    assert 10 <= len(failed_sets[0]) <= 30


def test_a_429_carries_the_retry_after_header(fake_server: Callable[..., FakeServer]) -> None:
    srv = fake_server(faults={"always_fail": "429", "retry_after_s": 0.25})
    request = urllib.request.Request(
        f"{srv.base_url}/chat/completions", data=b"{}", headers={"Content-Type": "application/json"}
    )
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(request)
    assert info.value.code == 429
    assert info.value.headers["Retry-After"] == "0.25"


def test_a_malformed_fault_sends_broken_json_and_a_reset_fault_drops_the_connection(
    fake_server: Callable[..., FakeServer],
) -> None:
    malformed = fake_server(faults={"always_fail": "malformed"})
    raw = urllib.request.urlopen(
        urllib.request.Request(f"{malformed.base_url}/chat/completions", data=b'{"seed": 1}')
    ).read()
    with pytest.raises(json.JSONDecodeError):
        json.loads(raw)
    reset = fake_server(faults={"always_fail": "reset"})
    with pytest.raises(ConnectionResetError):  # http.client's RemoteDisconnected is one
        chat(reset.base_url, "x")
    assert reset.stats()["statuses"] == {"reset": 1}


def test_slots_queue_requests_beyond_the_batch(fake_server: Callable[..., FakeServer]) -> None:
    srv = fake_server(latency_s=0.1, slots=2)

    async def run() -> float:
        started = time.monotonic()
        await asyncio.gather(*[asyncio.to_thread(chat, srv.base_url, f"q{i}") for i in range(6)])
        return time.monotonic() - started

    elapsed = asyncio.run(run())
    stats = srv.stats()
    assert stats["peak_in_flight"] == 2
    assert stats["peak_received"] >= 3
    assert elapsed >= 0.3  # six requests through two slots: three rounds of 0.1 s


def test_handles_200_concurrent_connections(fake_server: Callable[..., FakeServer]) -> None:
    import aiohttp

    srv = fake_server(latency_s=0.3)

    async def run() -> list[int]:
        connector = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(connector=connector) as session:

            async def one(i: int) -> int:
                body = {"model": "m", "messages": [{"role": "user", "content": str(i)}], "seed": i}
                async with session.post(f"{srv.base_url}/chat/completions", json=body) as resp:
                    await resp.json()
                    return resp.status

            return await asyncio.gather(*[one(i) for i in range(200)])

    statuses = asyncio.run(run())
    assert statuses == [200] * 200
    assert srv.stats()["peak_in_flight"] >= 128  # served at once, not one after the other


@pytest.mark.slow
def test_subprocess_mode_prints_ready_and_serves(
    fake_server_process: Callable[..., FakeServerProcess],
) -> None:
    srv = fake_server_process(default={"content": "from child"})
    assert srv.base_url.startswith("http://127.0.0.1:")
    assert chat(srv.base_url, "hi")["choices"][0]["message"]["content"] == "from child"
    assert srv.stats()["count"] == 1
    process = srv.process
    assert process is not None
    srv.stop()
    assert process.returncode == 0


def test_bad_options_are_rejected() -> None:
    with pytest.raises(ValueError, match="unknown fault kind"):
        FakeServer(faults={"always_fail": "teapot"})
    with pytest.raises(ValueError, match="module:function"):
        FakeServer(responder="no_colon")
