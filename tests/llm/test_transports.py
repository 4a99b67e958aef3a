"""The transports: the direct HTTP path sends and reads what litellm does, and which servers
it serves."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from pytest_revprop.llm.client import Client
from pytest_revprop.llm.presets import resolve_model
from pytest_revprop.llm.transports import TRANSPORT_ENV
from pytest_revprop.testing.fakeserver import FakeServer


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
        got.pop("key")  # the cache key names the server's address, which differs here
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
