"""The embedded default model for real: llama.cpp serving SmolLM2-135M, reached through
litellm, scoring one 10-leaf case with j+h (the path the README's main command takes), and
structured output in the form llama.cpp's server takes. The tests share one server (the
``embedded_server`` fixture): they only call it, and its cache of the last prompt lets the
later calls skip reading the same prompt again."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from pytest_revprop.core.cases import BENCHMARK_DIR, load_case
from pytest_revprop.llm.presets import resolve_model
from pytest_revprop.llm.types import PATCH_SCHEMA
from pytest_revprop.run.items import ItemSpec, RunSettings
from pytest_revprop.run.runner import Runner
from pytest_revprop.servers.embedded import EmbeddedServer

pytestmark = pytest.mark.slow


def test_embedded_model_scores_a_10_leaf_case_with_j_plus_h_through_litellm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedded_server: EmbeddedServer
) -> None:
    monkeypatch.setenv("REVPROP_TRANSPORT", "litellm")
    case = load_case(BENCHMARK_DIR / "cart-free-shipping" / "10.json")
    model = resolve_model("smollm2-135m").replace(
        api_bases=(embedded_server.base_url,), max_tokens=256
    )
    settings = RunSettings(methods=["j+h"], seeds=[0], cache_dir=tmp_path / "cache")
    runner = Runner([case], [model], settings)
    spec = ItemSpec(case.id, model.name, "j+h", 1, 0)
    try:
        record = runner.run_all([spec])[0]
        stats = runner.stats()[model.name]
    finally:
        runner.close()
    assert record["calls"] == 1 and record["error"] != "call_failed"
    (reply,) = record["replies"]
    assert reply["output_tokens"] > 0 and reply["input_tokens"] > 500 and reply["latency_s"] > 0
    assert isinstance(record["completed"], bool)
    assert record["valid"] or record["error"] in {
        "no_patch",
        "not_a_patch",
        "apply_error",
        "truncated",
    }
    assert stats["requests_sent"] == 1 and stats["cache_hits"] == 0


@pytest.mark.parametrize("transport", ["litellm", "direct"])
def test_structured_output_from_the_embedded_model_is_a_schema_valid_patch_or_truncated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, transport: str, embedded_server: EmbeddedServer
) -> None:
    """llama.cpp's server refuses the json_schema form (HTTP 500); the embedded preset sends
    json_object with the schema, and every reply then holds a patch the schema accepts."""
    monkeypatch.setenv("REVPROP_TRANSPORT", transport)
    case = load_case(BENCHMARK_DIR / "cart-free-shipping" / "10.json")
    model = resolve_model("smollm2-135m").replace(
        api_bases=(embedded_server.base_url,), max_tokens=256
    )
    settings = RunSettings(
        methods=["j+h"], seeds=[0, 1], cache_dir=tmp_path / "cache", structured=True
    )
    runner = Runner([case], [model], settings)
    try:
        records = runner.run_all([ItemSpec(case.id, model.name, "j+h", 1, s) for s in (0, 1)])
    finally:
        runner.close()
    assert model.structured_form == "json_object"
    for record in records:
        assert record["error"] != "call_failed", record["reason"]
        (reply,) = record["replies"]
        if reply["finish_reason"] == "length":
            assert record["error"] == "truncated"
            continue
        try:
            content = json.loads(reply["content"])
        except json.JSONDecodeError:
            # llama.cpp's grammar at times lets a raw control character into a JSON string
            # (benchmarks/README.md: structured output); the strict reader then finds no patch in it
            assert record["error"] == "no_patch", record
            continue
        jsonschema.validate(content, PATCH_SCHEMA)
        # scored as a patch: completed or not, or one that breaks a rule the schema leaves out
        assert record["error"] in (None, "not_a_patch", "apply_error")
