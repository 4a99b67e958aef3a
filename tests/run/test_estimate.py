"""The estimate before the first call (``--revprop-plan``, run/estimate.py): what the run
needs, what the cache holds, what is left to send, with tokens, cost and time; no request is
sent (no server here)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from pytest_revprop.core.cases import select_cases
from pytest_revprop.core.prompts import default_prompts
from pytest_revprop.llm.cache import ResponseCache
from pytest_revprop.llm.presets import resolve_model
from pytest_revprop.llm.types import Reply, Request
from pytest_revprop.run.estimate import estimate_lines, estimate_run
from pytest_revprop.run.items import RunSettings, item_specs

MODEL = resolve_model("openai/fake", api_bases=["http://127.0.0.1:9/v1"]).replace(
    price_in=1.0, price_out=2.0, max_tokens=100
)


def _estimate(tmp_path: Path, methods: list[str]) -> tuple[list[str], RunSettings]:
    cases = select_cases(None, "dev", [10], None)[:2]
    settings = RunSettings(methods=methods, k_values=[3], seeds=[0], cache_dir=tmp_path)
    estimates = estimate_run(cases, [MODEL], settings, item_specs(cases, [MODEL], settings))
    return estimate_lines(estimates), settings


def test_the_estimate_counts_the_calls_the_cache_answers_and_the_rest(tmp_path: Path) -> None:
    lines, _ = _estimate(tmp_path, ["j+h", "maj"])
    # per case: maj's samples at seeds 0-2, the first of them j+h's call
    assert lines[1] == ("openai/fake: 4 items; calls needed 6, answered by the cache 0, to send 6")
    assert "approximation" in lines[2]
    assert lines[3] == (
        "  output tokens to send: at most 600 (100 a call, the output limit);"
        " no cached reply of this model to say how many less"
    )
    case = select_cases(None, "dev", [10], None)[0]
    messages = default_prompts().revision_messages(case, "j+h")
    request = Request.for_model(MODEL, messages, 0)
    reply = Reply(content="[]", input_tokens=900, output_tokens=40, latency_s=2.0)
    ResponseCache(tmp_path).write(request.cache_key(), request, reply)
    lines, _ = _estimate(tmp_path, ["j+h", "maj"])
    assert lines[1].endswith("calls needed 6, answered by the cache 1, to send 5")
    assert lines[3] == (
        "  output tokens to send: about 200 (40 a call, the mean of this model's cached"
        " replies), at most 500 (100 a call, the output limit)"
    )
    assert lines[4].startswith("  cost: $") and "at $1 in / $2 out per 1M tokens" in lines[4]
    assert lines[5].startswith("  time: about 2 s at 32 calls in flight")
    assert lines[-1].startswith("total: 5 calls to send")


def test_calls_that_depend_on_replies_make_a_range(tmp_path: Path) -> None:
    lines, _ = _estimate(tmp_path, ["j+h", "dep", "select"])
    # j+h 1, dep 2 (the second one is j+h's when the map is unusable), select 2 samples and
    # a selection (asked only when a sample is valid): per case 3 to 5
    assert "calls needed 6 to 10" in lines[1] and "to send 6 to 10" in lines[1]
    assert lines[2].startswith("  4 of the calls to send depend on replies not made yet")


def test_a_plan_with_nothing_to_send_says_so_in_words(tmp_path: Path) -> None:
    cases = select_cases(None, "dev", [10], None)[:1]
    settings = RunSettings(methods=["j+h"], k_values=[3], seeds=[0], cache_dir=tmp_path)
    [estimate] = estimate_run(cases, [MODEL], settings, item_specs(cases, [MODEL], settings))
    answered = dataclasses.replace(estimate, to_send=0, to_send_least=0, output_mean=172.0)
    assert estimate_lines([answered])[3] == (
        "  output tokens to send: none (the cache answers every call)"
    )
