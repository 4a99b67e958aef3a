"""One self-contained HTML report: tables, figures and a browser over every sample.

The file opens offline and makes no network request: CSS and JS are inline (allowed by a
Content-Security-Policy that names their hashes and forbids every fetch), figures are PNG
data URIs, and the data travels in an inline ``application/json`` script element. Replies
and cases are untrusted text: the data element has every ``<``, ``>`` and ``&`` escaped,
so no text can close it, and the page script inserts text only with ``textContent``.

The browser doubles as the safeguard the paper suggests: a person sees every change a
model propagated (before / after, with misses, over-edits and wrong values highlighted)
before accepting it.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import math
import re
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from pytest_revprop.errors import UserError
from pytest_revprop.reporting.figures import render_figures
from pytest_revprop.reporting.report_tables import report_tables
from pytest_revprop.reporting.results import check_results
from pytest_revprop.reporting.tables import Table
from pytest_revprop.vocabulary import INFRASTRUCTURE_ERRORS

__all__ = [
    "MAX_CONTENT_CHARS",
    "MAX_REASONING_CHARS",
    "REASONING_BUDGET_CHARS",
    "build_payload",
    "model_text",
    "sample_outcome",
    "write_html",
]

MAX_REASONING_CHARS = 20_000
"""Reasoning beyond this is cut in the HTML (samples.jsonl keeps all of it): a full paper-scale
run holds tens of thousands of calls and the report must still open in a browser."""
MAX_CONTENT_CHARS = 200_000
REASONING_BUDGET_CHARS = 40_000_000
"""All reasoning embedded in one report, at most; later reasoning is left to samples.jsonl
(a paper-scale run makes ~50k calls, whose reasoning alone would make a file no browser opens)."""
OVER_BUDGET = "[not embedded: the report's reasoning budget is spent; see samples.jsonl]"
_MARKER = re.compile(r"\{\{[A-Z]+\}\}")
"""Template markers, replaced in one pass so inserted text is never scanned for markers again."""
SAMPLE_FIELDS = (
    "case",
    "model",
    "method",
    "k",
    "seed",
    "completed",
    "valid",
    "error",
    "reason",
    "miss",
    "over_edit",
    "wrong_value",
    "cost_usd",
    "latency_s",
    "calls",
    "selection_fallback",
    "domain",
    "pattern",
    "size",
    "split",
    "request",
    "patch",
)
CASE_FIELDS = (
    "id",
    "scenario",
    "domain",
    "pattern",
    "size",
    "split",
    "theme",
    "conversation",
    "artifact",
    "request",
    "reference",
    "gold",
    "notes",
)
FIGURE_CAPTIONS = {
    "completion_by_method": "Completion rate by method for each model; error bars: sample std over seeds.",
    "failure_composition": "Failure composition by method: miss, over edit, wrong value (elements) and invalid (replies).",
    "cost_vs_completion": "Completion rate against mean cost per sample as the number of calls k grows.",
}


def sample_outcome(record: Mapping[str, Any]) -> str:
    """completed / failed (valid but wrong) / invalid (no usable patch) / error (the call failed)."""
    if record.get("completed"):
        return "completed"
    if record.get("error") in INFRASTRUCTURE_ERRORS:
        return "error"
    if record.get("valid") is False or record.get("error"):
        return "invalid"
    return "failed"


def _finite(value: Any) -> Any:
    """``value`` with NaN / Infinity replaced by null (json.loads accepts them, JSON.parse does not)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def _cut(text: Any, limit: int) -> Any:
    if not isinstance(text, str) or len(text) <= limit:
        return text
    return text[:limit] + f"\n[... {len(text) - limit} more characters in samples.jsonl]"


class _Interner:
    """Stores each distinct JSON value once; samples refer to it by index."""

    def __init__(self) -> None:
        self.values: list[Any] = []
        self._index: dict[str, int] = {}
        self.reasoning_chars = 0

    def __contains__(self, value: Any) -> bool:
        return self._key(value) in self._index

    @staticmethod
    def _key(value: Any) -> str:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)

    def add(self, value: Any) -> int:
        key = self._key(value)
        if key not in self._index:
            self._index[key] = len(self.values)
            self.values.append(value)
        return self._index[key]


def _plain_gold(case: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [
        {k: v for k, v in op.items() if k in ("op", "path", "value")} for op in case.get("gold", [])
    ]


def _applied(artifact: Any, patch: Any) -> tuple[Any, str | None]:
    """(artifact after ``patch``, None) or (None, why it does not apply)."""
    from pytest_revprop.extraction import InvalidReply
    from pytest_revprop.scoring import apply_patch

    if not isinstance(patch, list):
        return None, "no patch"
    try:
        return apply_patch(artifact, patch), None
    except InvalidReply as exc:
        return None, exc.reason


def _case_entry(case: Mapping[str, Any]) -> dict[str, Any]:
    entry = {name: case.get(name) for name in CASE_FIELDS}
    entry["expected"], entry["expected_error"] = _applied(case.get("artifact"), _plain_gold(case))
    return entry


def _reply_entry(reply: Mapping[str, Any], texts: _Interner) -> dict[str, Any]:
    """The reply's facts, with its content and reasoning as indices into the shared texts
    (methods share calls, so the same long text recurs across samples)."""
    entry = dict(reply)
    for name, limit in (("content", MAX_CONTENT_CHARS), ("reasoning", MAX_REASONING_CHARS)):
        text = _cut(entry.get(name), limit)
        if not isinstance(text, str) or not text:
            entry[name] = None
            continue
        if name == "reasoning" and text not in texts:
            if texts.reasoning_chars + len(text) > REASONING_BUDGET_CHARS:
                text = OVER_BUDGET
            else:
                texts.reasoning_chars += len(text)
        entry[name] = texts.add(text)
    return entry


def build_payload(
    results: Mapping[str, Any],
    samples: Sequence[Mapping[str, Any]],
    cases: Mapping[str, Mapping[str, Any]],
) -> dict[str, Any]:
    """The data the page script reads. Methods share calls and many samples end alike, so
    samples refer by index to shared texts, patches, findings and artifacts, and to their case."""
    used_cases: dict[str, dict[str, Any]] = {}
    shared = {name: _Interner() for name in ("texts", "patches", "findings", "artifacts")}
    rows = []
    for record in samples:
        row = {name: record.get(name) for name in SAMPLE_FIELDS}
        row["outcome"] = sample_outcome(record)
        row["patch"] = shared["patches"].add(record.get("patch"))
        row["findings"] = shared["findings"].add(record.get("findings") or [])
        case = cases.get(str(record.get("case")))
        if case is not None:
            case_id = str(record.get("case"))
            if case_id not in used_cases:
                used_cases[case_id] = _case_entry(case)
            for name in ("domain", "pattern", "size"):
                if row[name] is None:
                    row[name] = case.get(name)
            if row["request"] == case.get("request"):
                row["request"] = None
            after, after_error = _applied(case.get("artifact"), record.get("patch"))
            row["after"] = None if after_error else shared["artifacts"].add(after)
            row["after_error"] = after_error
        row["replies"] = [
            _reply_entry(r, shared["texts"])
            for r in record.get("replies") or []
            if isinstance(r, dict)
        ]
        rows.append(row)
    payload: dict[str, Any] = _finite(
        {
            "meta": results.get("meta", {}),
            "samples": rows,
            "cases": used_cases,
            **{name: interner.values for name, interner in shared.items()},
        }
    )
    return payload


def _script_json(payload: Any) -> str:
    """JSON safe inside a script element: no '<' (so no '</script' or '<!--'), '>' or '&'."""
    text = json.dumps(payload, ensure_ascii=False, default=str)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _static(name: str) -> str:
    return (
        resources.files("pytest_revprop.reporting")
        .joinpath(f"static/{name}")
        .read_text(encoding="utf-8")
    )


def _csp_hash(text: str) -> str:
    return (
        "'sha256-"
        + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")
        + "'"
    )


def _table_html(table: Table) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in table.header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in table.rows
    )
    note = f'<p class="note">{html.escape(table.note)}</p>' if table.note else ""
    anchor = f' id="table-{html.escape(table.anchor)}"' if table.anchor else ""
    return (
        f'<section class="table-block"{anchor}><h3>{html.escape(table.title)}</h3>{note}'
        f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div></section>'
    )


def _figure_html(name: str, png: bytes) -> str:
    data = base64.b64encode(png).decode("ascii")
    caption = FIGURE_CAPTIONS.get(name, name)
    return (
        f'<figure id="figure-{html.escape(name)}"><img alt="{html.escape(caption)}" '
        f'src="data:image/png;base64,{data}"><figcaption>{html.escape(caption)}</figcaption></figure>'
    )


def model_text(name: str, info: Any) -> str:
    """One model of ``meta.models`` as a person reads it: ``gpt-oss-20b
    (hosted_vllm/openai/gpt-oss-20b)``, ``gold (reference)``: the litellm model when it is not
    the name, and the kind when it is not the default ``litellm``."""
    if not isinstance(info, Mapping):
        return name
    parts = [
        str(value)
        for value, plain in ((info.get("litellm_model"), name), (info.get("kind"), "litellm"))
        if value and value != plain
    ]
    return f"{name} ({', '.join(parts)})" if parts else name


def _meta_value(value: Any) -> str:
    if isinstance(value, Mapping):  # meta.models: name -> {"litellm_model", "kind"}
        return ", ".join(model_text(str(name), info) for name, info in value.items())
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return str(value)


def _meta_line(meta: Mapping[str, Any]) -> str:
    names = ("version", "created", "split", "cases_path", "models", "methods", "k_values", "seeds")
    facts = [
        f"{name}: {_meta_value(v)}"
        for name in names
        if (v := meta.get(name)) not in (None, "", [], {})
    ]
    return html.escape(" · ".join(facts))


def write_html(
    results: dict[str, Any],
    samples: Sequence[Mapping[str, Any]],
    cases: dict[str, dict[str, Any]],
    out: Path,
    *,
    figures: Mapping[str, bytes] | None = None,
    tables: list[Table] | None = None,
    notes: list[str] | None = None,
) -> Path:
    """Write the report to ``out`` and return it. Figures and tables are rendered from
    ``results`` unless given (write_report passes the ones it has already made)."""
    check_results(results)
    if figures is None:
        figures, _, notes = render_figures(results)
    tables = report_tables(results) if tables is None else tables
    css, script = _static("report.css"), _static("report.js")
    csp = (
        f"default-src 'none'; img-src data:; style-src {_csp_hash(css)}; script-src {_csp_hash(script)}; "
        "base-uri 'none'; form-action 'none'"
    )
    page = _static("report.html")
    replacements = {
        "{{CSP}}": html.escape(csp),
        "{{CSS}}": css,
        "{{META}}": _meta_line(results.get("meta", {})),
        "{{TABLES}}": "".join(_table_html(t) for t in tables),
        "{{FIGURES}}": "".join(_figure_html(n, png) for n, png in figures.items())
        or "<p>No figures.</p>",
        "{{NOTES}}": "".join(f"<li>{html.escape(n)}</li>" for n in notes or []),
        "{{DATA}}": _script_json(build_payload(results, samples, cases)),
        "{{SCRIPT}}": script,
    }
    page = _MARKER.sub(lambda match: replacements[match.group(0)], page)
    out = Path(out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise UserError(
            f"report {out}: cannot write ({exc.strerror or exc.__class__.__name__})"
        ) from None
    return out
