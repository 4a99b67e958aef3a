"""report.html: tables, figures and a browser over every sample, offline.

The page opens from ``file://`` and makes no network request: CSS and JS are inline (allowed
by a Content-Security-Policy that names their hashes and forbids every fetch), figures are
PNG data URIs, and the sample index travels in an inline ``application/json`` script
element. What a sample's detail needs is in files beside the page (``html_data``:
``report_files/`` per case, ``replies/`` per reply), which the page script loads with script
elements when a sample is opened (``'strict-dynamic'`` lets the hashed script load them);
keep them next to report.html when moving it. Replies and cases are untrusted text: the data
element has every ``<``, ``>`` and ``&`` escaped, so no text can close it, data files carry
their JSON as string literals, and the page script inserts text only with ``textContent``.

A chain run's page adds the chain view (``static/chain.js`` and ``chain.css``, inlined after
the page's own): a chain sample shows turn by turn its request, what its patch changed, and
whether it completed or how it failed, the turn where the chain first went wrong marked.

The browser doubles as the safeguard the paper suggests: a person sees every change a
model propagated (before / after, with misses, over-edits and wrong values highlighted)
before accepting it.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from collections.abc import Iterable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from pytest_revprop.errors import UserError
from pytest_revprop.reporting.aggregate import shown_k_values
from pytest_revprop.reporting.figures import render_figures
from pytest_revprop.reporting.html_data import build_data, sample_outcome
from pytest_revprop.reporting.report_tables import report_tables
from pytest_revprop.reporting.results import check_results
from pytest_revprop.reporting.samples import SampleFile
from pytest_revprop.reporting.tables import Table

__all__ = ["sample_outcome", "write_html"]

_MARKER = re.compile(r"\{\{[A-Z]+\}\}")
"""Template markers, replaced in one pass so inserted text is never scanned for markers again."""
FIGURE_CAPTIONS = {
    "completion_by_method": "Completion rate by method for each model; error bars: sample std over seeds.",
    "failure_composition": (
        "Failure composition by method: miss, over edit, wrong value (elements) and invalid (replies)."
    ),
    "cost_vs_completion": "Completion rate against mean cost per sample as the number of calls k grows.",
    "where_they_fail": (
        "Where they fail: completion rate (bars), pass^S (dots) and mean cascade recall (diamonds)"
        " per model, by pattern, size and domain."
    ),
    "completion_by_turn": (
        "Chains: the share of chains completing each turn, per method (teacher: solid, free: "
        "dashed)."
    ),
}


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
    # a header may break after a slash too ("cost/<wbr>sample"), so wide tables fit the window
    head = "".join(f"<th>{html.escape(h).replace('/', '/<wbr>')}</th>" for h in table.header)
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
    samples: Iterable[Mapping[str, Any]] | SampleFile,
    cases: Mapping[str, Mapping[str, Any]],
    out: Path,
    *,
    figures: Mapping[str, bytes] | None = None,
    tables: list[Table] | None = None,
    notes: list[str] | None = None,
    replies_from: Path | None = None,
) -> Path:
    """Write the report to ``out``, its data files beside it, and return it. ``samples``:
    records (samples.jsonl's, or results rows, which have no replies), or a ``SampleFile``
    read one case at a time; ``replies_from``: the reply store their keys refer to (default:
    the one beside the samples file). Figures and tables are rendered from ``results``
    unless given (write_report passes the ones it has already made)."""
    check_results(results)
    if figures is None:
        figures, _, notes = render_figures(results)
    tables = report_tables(results) if tables is None else tables
    out = Path(out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        data = build_data(
            results.get("meta", {}), samples, cases, out.parent, replies_from=replies_from
        )
        css, script = _static("report.css"), _static("report.js")
        if "chain" in data["index"]:  # a chain run: the chain view (an off run's page is as ever)
            css, script = css + _static("chain.css"), script + _static("chain.js")
        csp = (
            f"default-src 'none'; img-src data:; style-src {_csp_hash(css)}; "
            f"script-src {_csp_hash(script)} 'strict-dynamic'; base-uri 'none'; form-action 'none'"
        )
        replacements = {
            "{{CSP}}": html.escape(csp),
            "{{CSS}}": css,
            "{{META}}": _meta_line(
                {**results.get("meta", {}), "k_values": shown_k_values(results)}
            ),
            "{{TABLES}}": "".join(_table_html(t) for t in tables),
            "{{FIGURES}}": "".join(_figure_html(n, png) for n, png in figures.items())
            or "<p>No figures.</p>",
            "{{NOTES}}": "".join(f"<li>{html.escape(n)}</li>" for n in notes or []),
            "{{DATA}}": _script_json(data),
            "{{SCRIPT}}": script,
        }
        page = _MARKER.sub(lambda match: replacements[match.group(0)], _static("report.html"))
        out.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise UserError(
            f"report {out}: cannot write ({exc.strerror or exc.__class__.__name__})"
        ) from None
    return out
