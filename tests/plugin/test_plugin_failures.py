"""An item's report (plugin/failures.py), without a run: what an error says, and the command that
reruns it."""

from __future__ import annotations

import shlex
from typing import Any

import pytest

from pytest_revprop.plugin.failures import describe_call_failure, rerun_args, rerun_command
from pytest_revprop.vocabulary import FailedCall


def record(method: str = "med", k: int = 3, failed: FailedCall | None = None) -> Any:
    return {
        "case": "cart-free-shipping/10",
        "model": "my model",
        "method": method,
        "k": k,
        "seed": 42,
        "error": "call_failed",
        "reason": "sample call at seed 44: openai/m at http://h/v1: gave up after 5 attempts: x",
        "failed_call": failed,
    }


SAMPLE: FailedCall = {
    "model": "openai/m",
    "url": "http://h/v1",
    "attempts": 5,
    "retryable": True,
    "refused": False,
    "error": "HTTP 503 APIStatusError: overloaded",
    "role": "sample",
    "seed": 44,
    "round": None,
}


@pytest.mark.parametrize(
    ("failed", "call", "attempts"),
    [
        (SAMPLE, "med, k 3, base seed 42: the sample call at seed 44", "5, all failed"),
        (
            {**SAMPLE, "role": "reflect", "seed": 42, "round": 2, "attempts": 1,
             "retryable": False},
            "med, k 3, base seed 42: reflect round 2 at seed 42",
            "1, not retried: the server refused the request itself",
        ),
        (
            {**SAMPLE, "attempts": 0, "refused": True, "retryable": False},
            "med, k 3, base seed 42: the sample call at seed 44",
            "none: not sent",
        ),
    ],
)  # fmt: skip
def test_an_error_says_the_answer_then_the_model_url_call_and_attempts(
    failed: FailedCall, call: str, attempts: str
) -> None:
    lines = describe_call_failure(record(failed=failed), uses_k=True).splitlines()
    assert lines[0] == f"model call failed: {failed['error']}"
    assert lines[1] == "  model:    my model (openai/m) at http://h/v1"
    assert lines[2] == f"  call:     {call}"
    assert lines[3].startswith(f"  attempts: {attempts}")
    assert len(lines) == 4


def test_an_error_without_details_falls_back_to_its_reason() -> None:
    lines = describe_call_failure(record(failed=None), uses_k=True).splitlines()
    assert lines == [
        "model call failed: " + record()["reason"],
        "  reason:   " + record()["reason"],
    ]


def test_the_rerun_command_names_the_item_and_keeps_the_options_that_change_its_result() -> None:
    run = [
        "-n", "4", "--revprop-model=a,b", "--revprop-split", "dev", "--revprop-cases", "my cases",
        "--revprop-structured", "-k", "med", "--revprop-cache=.c", "-pno:cacheprovider", "-p",
        "myplugin", "--revprop-report=out", "tests/", "--revprop-api-base=http://h/v1",
    ]  # fmt: skip
    kept = rerun_args(run)
    assert kept == [
        "--revprop-cases", "my cases", "--revprop-structured", "--revprop-cache=.c",
        "-pno:cacheprovider", "-p", "myplugin", "--revprop-api-base=http://h/v1",
    ]  # fmt: skip
    command = rerun_command(record(), kept, uses_k=True)
    assert shlex.split(command) == [
        "pytest", "--revprop-model=my model", "--revprop-method=med", "--revprop-k=3",
        "--revprop-seeds=42", "--revprop-case=cart-free-shipping/10", *kept,
    ]  # fmt: skip
    single = shlex.split(rerun_command(record(method="j+h", k=1), uses_k=False))
    assert "--revprop-method=j+h" in single and not any(a.startswith("--revprop-k") for a in single)
