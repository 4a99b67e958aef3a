"""Failures show what the model said: an invalid reply's report carries the start of its text
(bounded, redacted), and the summaries split ``invalid`` by reason."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from helpers.records import a_record

from pytest_revprop.plugin.failures import describe_failure
from pytest_revprop.reporting.aggregate import markdown_summary, summarize, summary_text
from pytest_revprop.reporting.samples import REPLY_EXCERPT_CHARS, reply_excerpt
from pytest_revprop.testing.fakeserver import FakeServer


def _record(error: str | None, content: str | None = None, **extra: Any) -> dict[str, Any]:
    replies = [] if content is None else [{"role": "sample", "seed": 0, "content": content}]
    return a_record(completed=False, error=error, reason="why", miss=0, replies=replies, **extra)


def test_an_invalid_replys_report_shows_the_start_of_the_models_text() -> None:
    text = describe_failure(_record("no_patch", "I am not sure\n\nwhich values should change."))
    assert "invalid reply (no_patch): why" in text
    assert "reply (42 chars): I am not sure which values should change." in text


def test_the_excerpt_is_bounded_and_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOME_API_KEY", "hunter2-secret-value")
    content = "token sk-abcdef123456 and hunter2-secret-value " + "x" * 5000
    line = reply_excerpt(_record("no_patch", content))
    assert line is not None and line.startswith("reply (5,047 chars): token *** and *** x")
    assert len(line) <= len("reply (5,047 chars): ") + REPLY_EXCERPT_CHARS
    assert "sk-abc" not in line and "hunter2" not in line and line.endswith("...")


def test_the_excerpt_takes_the_last_sample_and_says_when_it_is_empty() -> None:
    record = _record("truncated", None)
    record["replies"] = [
        {"role": "sample", "seed": 0, "content": "first"},
        {"role": "sample", "seed": 1, "content": "second"},
        {"role": "select", "seed": 0, "content": "2"},
    ]
    assert reply_excerpt(record) == "reply (6 chars): second"
    assert reply_excerpt(_record("truncated", "")) == "reply: empty (0 chars)"
    assert reply_excerpt(_record("no_patch", None)) is None
    # a valid reply's report lists the wrong places, not the text
    assert "reply (" not in describe_failure(_record(None, "[]"))


def test_the_summary_splits_invalid_by_reason() -> None:
    records = [
        _record("no_patch"), _record("no_patch"), _record("truncated"),
        _record("apply_error"), _record(None),
    ]  # fmt: skip
    (row,) = summarize(records)
    assert row["invalid"] == 4
    assert row["invalid_by_reason"] == {"no_patch": 2, "apply_error": 1, "truncated": 1}
    text = summary_text([row])
    assert "invalid replies by reason:\n  m j+h k 1: no_patch 2, apply_error 1, truncated 1" in text
    md = markdown_summary({"meta": {}, "summary": [row], "results": records})
    assert "Invalid replies by reason:\n\n- m j+h k 1: no_patch 2, apply_error 1, truncated 1" in md
    (clean,) = summarize([_record(None)])
    assert clean["invalid_by_reason"] == {} and "by reason" not in summary_text([clean])


def test_a_run_shows_the_reply_and_the_split(
    pytester: pytest.Pytester, fake_server: Callable[..., FakeServer]
) -> None:
    server = fake_server(default={"content": "I am not sure which values should change."})
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--revprop-model=openai/fake",
        f"--revprop-api-base={server.base_url}", "--revprop-case=invoice-issue-date/10",
        "--revprop-seeds=0,42", "--revprop-no-cache", f"--revprop-report={pytester.path / 'r'}",
        "--revprop-no-figures",
    )  # fmt: skip
    out = result.stdout.str()
    assert result.ret == 1, out[-3000:]
    assert out.count("reply (41 chars): I am not sure which values should change.") == 2
    assert "invalid replies by reason:\n  openai/fake j+h k 1: no_patch 2" in out
    doc = json.loads((pytester.path / "r" / "results.json").read_text())
    assert doc["summary"][0]["invalid_by_reason"] == {"no_patch": 2}
    assert "- openai/fake j+h k 1: no_patch 2" in (pytester.path / "r" / "summary.md").read_text()
