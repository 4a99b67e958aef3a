"""The report of one item that did not pass, as the terminal and JUnit show it.

A **failure** (the model's answer did not complete the sample) names the request, then why
the reply was invalid or each wrong place. An **error** (a model call failed for good) says
which model and URL, which call of the method (role, seed, reflect round), how many attempts
were made and why no more, and the server's last answer, redacted: a few lines, never a
traceback. Both end with a command line that reruns exactly that item (``rerun_command``).

The text is made once, where the item raises (``RevpropFailure``, ``CallFailedError``: the
exception carries it), and ``failure_report`` makes pytest's report of it: its ``longrepr``
is an ``ItemReport``, the text line by line.
"""

from __future__ import annotations

import functools
import json
import os
import shlex
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pytest

from pytest_revprop.core.cases import instance_seed
from pytest_revprop.reporting.samples import reply_excerpt
from pytest_revprop.vocabulary import (
    INFRASTRUCTURE_ERRORS,
    OUTCOME_FIELDS,
    FailedCall,
    ResultRecord,
)

MAX_FINDINGS = 30
"""Wrong places listed in a failure's report; the rest are counted."""

RERUN_OPTIONS = {
    "--revprop-cases": True,
    "--revprop-api-base": True,
    "--revprop-prompts": True,
    "--revprop-structured": False,
    "--revprop-cache": True,
    "--revprop-no-cache": False,
    "--revprop-transport": True,
    "--revprop-retries": True,
    "--revprop-timeout": True,
    "--revprop-retry-delay": True,
    "--rootdir": True,
    "--config-file": True,
    "-c": True,
    "-p": True,
}
"""Options of a run that a rerun of one item keeps (the rest select items), and whether each
takes a value: what can change an item's result, and where the plugin and its files are."""


def _short(value: Any, limit: int = 120) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe_failure(record: ResultRecord) -> str:
    """A failure a person can act on: the request, then what went wrong where (a chain's:
    ``describe_chain_failure``)."""
    if record.get("chain"):
        return describe_chain_failure(record)
    lines = [f"request: {record.get('request', '')}"]
    if not record["valid"]:
        lines.append(f"invalid reply ({record['error']}): {record.get('reason')}")
        excerpt = reply_excerpt(record)
        if excerpt is not None:
            lines.append(excerpt)
    else:
        lines.append(
            f"miss {record['miss']}, over edit {record['over_edit']}, wrong value {record['wrong_value']}"
        )
        findings = record.get("findings", [])
        for finding in findings[:MAX_FINDINGS]:
            kind = finding["kind"].replace("_", " ")
            gold = f" [{finding['gold_kind']}]" if finding.get("gold_kind") else ""
            expected, got = _short(finding["expected"]), _short(finding["got"])
            lines.append(f"  {kind:<11} {finding['path']}{gold}: expected {expected}, got {got}")
        if len(findings) > MAX_FINDINGS:
            lines.append(f"  ... and {len(findings) - MAX_FINDINGS} more")
    if record.get("map_valid") is not None:
        lines.append(
            f"dependency map: {record.get('map_edges')} edges, {record.get('map_dropped')} pointers dropped"
            + ("" if record["map_valid"] else " (unusable: revised without it)")
        )
    if record.get("selection_fallback"):
        lines.append(
            "note: the selection answer was not a single candidate number; fell back to the first"
        )
    lines.append(
        f"calls {record['calls']}, cost ${record['cost_usd']:.5f}, latency {record['latency_s']:.2f}s"
    )
    return "\n".join(lines)


def describe_chain_failure(record: Mapping[str, Any]) -> str:
    """A chain's failure turn by turn: each turn run, whether it completed and, for one that
    did not, its request and what went wrong where (``describe_failure`` of the turn, with
    the turn's replies), then the chain's calls, cost and latency."""
    turns = record.get("turns") or []
    lines = [
        f"{record['chain']} chain: {record.get('turns_completed', 0)} of {len(turns)} turns "
        f"run completed before the first failure; {record.get('reason')}"
    ]
    replies = record.get("replies") or []
    for turn in turns:
        if turn["completed"]:
            lines.append(f"turn {turn['turn']}: completed")
            continue
        lines.append(f"turn {turn['turn']}: not completed")
        own = [reply for reply in replies if reply.get("turn") == turn["turn"]]
        detail: Any = {**turn, "replies": own}
        lines += ["  " + line for line in describe_failure(detail).splitlines()]
    lines.append(
        f"chain: calls {record['calls']}, cost ${record['cost_usd']:.5f}, "
        f"latency {record['latency_s']:.2f}s"
    )
    return "\n".join(lines)


def _call_of(record: ResultRecord, failed: FailedCall, uses_k: bool) -> str:
    """Which call of the method failed, e.g. ``med, k 3, base seed 1: the sample call at
    seed 3`` (k only for a method that uses it)."""
    method = record["method"]
    run = f"{method}, k {record['k']}" if uses_k else method
    run += f", base seed {record['seed']}"
    role, seed, round_ = failed.get("role"), failed.get("seed"), failed.get("round")
    if role is None:
        return run
    call = f"reflect round {round_}" if round_ else f"the {role} call"
    return f"{run}: {call} at seed {seed}"


def _attempts(failed: FailedCall) -> str:
    attempts = failed.get("attempts", 0)
    if attempts == 0:
        return "none: not sent, the provider had refused the credentials of this model already"
    if failed.get("refused"):
        why = "the provider refused the credentials"
    elif failed.get("retryable", True):
        return f"{attempts}, all failed (--revprop-retries)"
    else:
        why = "the server refused the request itself, which no retry changes"
    return f"{attempts}, not retried: {why}"


def describe_call_failure(
    record: ResultRecord, *, uses_k: bool, model_name: str | None = None
) -> str:
    """An error's report: its first line says what failed (the short summary and JUnit show
    that line), the next ones say where, how often and what the server answered. ``uses_k``:
    the method's (registry.MethodSpec), whether the call names k."""
    failed: FailedCall = record.get("failed_call") or {}
    reason = record.get("reason") or "model call failed"
    error = failed.get("error") or reason
    lines = [f"model call failed: {error}"]
    if failed:
        name = model_name or record["model"]
        url = failed.get("url") or "the provider's default API base"
        model = failed.get("model", "")
        served = f" ({model})" if model and model != name else ""
        lines += [
            f"  model:    {name}{served} at {url}",
            f"  call:     {_call_of(record, failed, uses_k)}",
            f"  attempts: {_attempts(failed)}",
        ]
    else:
        lines.append(f"  reason:   {reason}")
    fields: Mapping[str, Any] = record
    turns = fields.get("turns") or []
    turn = next((t["turn"] for t in turns if t.get("error") in INFRASTRUCTURE_ERRORS), None)
    if turn is not None:  # a chain's: which of its turns
        lines.insert(1, f"  turn:     {turn} of the {record.get('chain')} chain")
    return "\n".join(lines)


def rerun_command(
    item: Mapping[str, Any], run_args: Sequence[str] = (), *, uses_k: bool, turns: int | None = None
) -> str:
    """The command line that runs exactly one item again, from the folder the run started in:
    the item's (``case``, ``model``, ``method``, ``k``, ``seed``, as in a record) model,
    method, k (when the method ``uses_k``, as its registry.MethodSpec says), seed and case
    (``--revprop-case``, which ignores the split and size filters), plus ``run_args``, the
    run's options that can change an item's result (``rerun_args``). A chain's (``chain``
    in ``item``: ``teacher`` or ``free``) adds its protocol and ``turns`` (None: all); a fresh
    instance's (``<scenario>/<size>@<seed>``) adds ``--revprop-instances`` with its seed."""
    chain = item.get("chain", "off")
    seed = instance_seed(str(item["case"]))
    args = [
        "pytest",
        f"--revprop-model={item['model']}",
        f"--revprop-method={item['method']}",
        *([f"--revprop-k={item['k']}"] if uses_k else []),
        f"--revprop-seeds={item['seed']}",
        f"--revprop-case={item['case']}",
        *([] if seed is None else [f"--revprop-instances={seed}"]),
        *([] if chain == "off" else [f"--revprop-chain={chain}"]),
        *([] if chain == "off" or turns is None else [f"--revprop-turns={turns}"]),
        *run_args,
    ]
    return shlex.join(args)


class CallFailedError(Exception):
    """A model call failed for good: an infrastructure error, reported by pytest as an error.
    Its message is the item's whole report (``call_failure_text``)."""


class RevpropFailure(Exception):
    """The model's answer did not complete the sample. Its message is the item's whole
    report (``failure_text``)."""


def call_failure_text(description: str, rerun: str) -> str:
    """An error's report: what failed (``describe_call_failure``, or why the method failed)
    and the command that reruns the item."""
    return f"{description}\n  rerun:    {rerun}"


def failure_text(case: str, label: str, record: ResultRecord, rerun: str) -> str:
    """A failure's report: the item (its ``case`` and ``label``, ``ItemSpec.label``), what
    went wrong (``describe_failure``) and the command that reruns it."""
    return f"{case} [{label}]: not completed\n{describe_failure(record)}\nrerun: {rerun}"


def is_reported_here(exc: BaseException) -> bool:
    """Whether ``exc`` is an outcome of our items, whose message is its report."""
    return isinstance(exc, RevpropFailure | CallFailedError)


def failure_report(item: pytest.Item, call: pytest.CallInfo[None]) -> pytest.TestReport | None:
    """The report of our items' failures and errors: their few lines (the exception's
    message). pytest's own would first format the traceback of an error in setup (it does not
    ask ``repr_failure`` then), thousands of lines to be thrown away, which under xdist at
    times crashed a worker inside Python's parser. None for any other report (pytest makes it)."""
    when = call.when
    if call.excinfo is None or when == "collect" or not is_reported_here(call.excinfo.value):
        return None
    longrepr: Any = ItemReport(str(call.excinfo.value))
    sections = [
        (f"Captured {key} {when}", content)
        for when, key, content in getattr(item, "_report_sections", [])
    ]
    return pytest.TestReport(
        item.nodeid, item.location, dict.fromkeys(item.keywords, 1), "failed", longrepr,
        when, sections, call.duration, call.start, call.stop,
        user_properties=item.user_properties,
    )  # fmt: skip


class ItemReport:
    """An item's report as pytest prints it (its ``longrepr``): the text, line by line, never
    a traceback whatever ``--tb`` says; its first line is the crash message that the short
    summary, ``--tb=line`` and JUnit show."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.reprcrash = _Crash(text.partition("\n")[0])

    def toterminal(self, tw: Any) -> None:
        """Write the text to pytest's terminal writer ``tw``, line by line."""
        for line in self.text.splitlines():
            tw.line(line)

    def __str__(self) -> str:
        return self.text


class _Crash:
    def __init__(self, message: str) -> None:
        self.message = message

    def __str__(self) -> str:
        return self.message


def rerun_args(args: Iterable[str | os.PathLike[str]]) -> list[str]:
    """The arguments among ``args`` (the run's command line) that a rerun keeps:
    ``RERUN_OPTIONS``, as typed (``--opt=value``, ``--opt value``, ``-pNAME``)."""
    return list(_kept_args(tuple(str(arg) for arg in args)))


@functools.cache
def _kept_args(args: tuple[str, ...]) -> tuple[str, ...]:
    """``rerun_args`` of one command line, worked out once per run (its items all ask)."""
    kept: list[str] = []
    position = 0
    while position < len(args):
        arg = args[position]
        position += 1
        name = arg.partition("=")[0] if arg.startswith("--") else arg[:2]
        takes_value = RERUN_OPTIONS.get(name)
        if takes_value is None:
            continue
        kept.append(arg)
        if takes_value and arg == name and position < len(args):
            kept.append(args[position])
            position += 1
    return tuple(kept)


def junit_properties(record: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The record's outcome (``OUTCOME_FIELDS``) as JUnit properties, with JSON-style values (``true``, ``null``,
    numbers as JSON writes them; strings as they are)."""
    return [
        (f"revprop_{key}", value if isinstance(value := record[key], str) else json.dumps(value))
        for key in OUTCOME_FIELDS
    ]


__all__ = [
    "RERUN_OPTIONS",
    "CallFailedError",
    "ItemReport",
    "RevpropFailure",
    "call_failure_text",
    "describe_call_failure",
    "describe_chain_failure",
    "describe_failure",
    "failure_report",
    "failure_text",
    "is_reported_here",
    "junit_properties",
    "rerun_args",
    "rerun_command",
]
