"""``revprop report``: the paper's figures and tables from a results.json, plus the HTML browser.

Figures (each with its data as CSV beside it):
  completion_by_method.png   completion rate per method for each model, error bars over seeds
  failure_composition.png    miss / over edit / wrong value / invalid, stacked, by method
  cost_vs_completion.png     completion rate against cost per sample as k grows
Tables (in report.md and report.html): the summary, latency relative to j+h per method and
k, and cost- and latency-effectiveness, gain / (ratio to j+h - 1).

Completion rates, their std and the failure totals come from the summary rows; cost,
latency and calls per sample are the means over the result records of each (model, method, k).
Figures are drawn on bare ``matplotlib.figure.Figure`` objects with the Agg canvas, never
through pyplot, so nothing needs a display and no global backend state is touched.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard

from pytest_revprop.errors import UserError
from pytest_revprop.reporting.stats import GroupKey, mean_std

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "FAILURE_COLORS",
    "FAILURE_KINDS",
    "METHOD_ORDER",
    "Table",
    "check_results",
    "cost_curve_rows",
    "load_case_dicts",
    "load_results",
    "load_samples",
    "plot_completion_by_method",
    "plot_cost_vs_completion",
    "plot_failure_composition",
    "render_figures",
    "report_main",
    "report_tables",
    "write_report",
]

METHOD_ORDER = ("j", "h", "j+h", "reflect", "or", "and", "maj", "med", "select")
SINGLE_CALL_METHODS = frozenset({"j", "h", "j+h"})
REFERENCE_METHOD = "j+h"
FAILURE_KINDS = ("miss", "over_edit", "wrong_value", "invalid")
FAILURE_LABELS = {
    "miss": "miss",
    "over_edit": "over edit",
    "wrong_value": "wrong value",
    "invalid": "invalid",
}
# Okabe-Ito colours (distinct under colour blindness); html_report highlights with the same.
FAILURE_COLORS = {
    "miss": "#E69F00",
    "over_edit": "#0072B2",
    "wrong_value": "#CC79A7",
    "invalid": "#999999",
}
FIGURE_FILES = {
    "completion_by_method": "completion_by_method.png",
    "failure_composition": "failure_composition.png",
    "cost_vs_completion": "cost_vs_completion.png",
}

Row = Mapping[str, Any]


# ---------------------------------------------------------------------------- input


def _fail_shape(source: str, where: str, what: str) -> UserError:
    return UserError(f"{source}: {where} {what}")


def check_results(data: Any, source: str = "results") -> dict[str, Any]:
    """``data`` if it has the results.json shape, else UserError naming the first problem."""
    if not isinstance(data, dict):
        raise _fail_shape(source, "top level", "is not a JSON object with 'summary' and 'results'")
    for name in ("summary", "results"):
        if not isinstance(data.get(name), list):
            raise _fail_shape(source, f"'{name}'", "is missing or not a list")
    if not isinstance(data.get("meta", {}), dict):
        raise _fail_shape(source, "'meta'", "is not an object")
    required = {
        "summary": ("model", "method", "completion_rate"),
        "results": ("case", "model", "method"),
    }
    for name, keys in required.items():
        for index, row in enumerate(data[name]):
            if not isinstance(row, dict):
                raise _fail_shape(source, f"{name}[{index}]", "is not an object")
            missing = [k for k in keys if k not in row]
            if missing:
                raise _fail_shape(
                    source, f"{name}[{index}]", f"lacks {', '.join(map(repr, missing))}"
                )
            if name == "summary" and not _is_number(row["completion_rate"]):
                raise _fail_shape(source, f"summary[{index}].completion_rate", "is not a number")
    return data


def _is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _read_text(path: Path, what: str) -> str:
    if not path.is_file():
        raise UserError(f"{what} {path}: no such file")
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{what} {path}: cannot read ({exc.__class__.__name__})") from None


def load_results(path: Path | str) -> dict[str, Any]:
    """Read and check a results.json; UserError (one line) when it is missing or malformed."""
    path = Path(path)
    text = _read_text(path, "results file")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"results file {path}: not JSON ({exc.msg} at line {exc.lineno})") from None
    return check_results(data, f"results file {path}")


def load_samples(path: Path | str) -> list[dict[str, Any]]:
    """Read a samples.jsonl (one JSON object per line; blank lines ignored)."""
    path = Path(path)
    samples: list[dict[str, Any]] = []
    for number, line in enumerate(_read_text(path, "samples file").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UserError(f"samples file {path}: line {number} is not JSON ({exc.msg})") from None
        if not isinstance(record, dict):
            raise UserError(f"samples file {path}: line {number} is not a JSON object")
        samples.append(record)
    return samples


def load_case_dicts(path: Path | str) -> dict[str, dict[str, Any]]:
    """Case id -> case JSON (file format) for every valid case file under ``path``."""
    from pytest_revprop.cases import load_cases

    case_set = load_cases([path])
    if not case_set.cases:
        first = f" ({case_set.errors[0]})" if case_set.errors else ""
        raise UserError(f"cases {path}: no valid case files{first}")
    return {case.id: case.to_dict() for case in case_set.cases}


# ---------------------------------------------------------------------------- data


def _method_rank(method: str) -> tuple[int, str]:
    return (
        (METHOD_ORDER.index(method), "") if method in METHOD_ORDER else (len(METHOD_ORDER), method)
    )


def _ordered(values: Iterable[str], preferred: Sequence[Any] = ()) -> list[str]:
    """Distinct values: those named in ``preferred`` first (in its order), then by appearance."""
    seen = list(dict.fromkeys(values))
    first = [v for v in preferred if v in seen]
    return first + [v for v in seen if v not in first]


def _models(results: Mapping[str, Any]) -> list[str]:
    preferred = results.get("meta", {}).get("models") or []
    return _ordered((str(r["model"]) for r in results["summary"]), preferred)


def _methods(rows: Iterable[Row]) -> list[str]:
    return sorted({str(r["method"]) for r in rows}, key=_method_rank)


def _k(row: Row) -> int:
    k = row.get("k")
    return k if isinstance(k, int) and not isinstance(k, bool) else 1


def _primary_rows(summary: Iterable[Row]) -> dict[tuple[str, str], Row]:
    """One summary row per (model, method): the one with the largest k (the run's main k)."""
    chosen: dict[tuple[str, str], Row] = {}
    for row in summary:
        key = (str(row["model"]), str(row["method"]))
        if key not in chosen or _k(row) > _k(chosen[key]):
            chosen[key] = row
    return chosen


def _std(row: Row) -> float:
    std = row.get("completion_std")
    if _is_number(std):
        return float(std)
    by_seed = row.get("completion_by_seed")
    if isinstance(by_seed, dict) and by_seed:
        return mean_std(float(v) for v in by_seed.values())[1]
    return 0.0


def _count(row: Row, name: str) -> int:
    value = row.get(name)
    return int(value) if _is_number(value) else 0


@dataclass(frozen=True)
class Usage:
    """Means per result record of one (model, method, k)."""

    cost_usd: float | None
    latency_s: float | None
    calls: float | None


def _mean_of(records: Sequence[Row], name: str) -> float | None:
    values = [float(r[name]) for r in records if _is_number(r.get(name))]
    return mean_std(values)[0] if values else None


def usage_by_group(results: Iterable[Row]) -> dict[GroupKey, Usage]:
    groups: dict[GroupKey, list[Row]] = {}
    for record in results:
        key = GroupKey(str(record["model"]), str(record["method"]), _k(record))
        groups.setdefault(key, []).append(record)
    return {
        key: Usage(_mean_of(rows, "cost_usd"), _mean_of(rows, "latency_s"), _mean_of(rows, "calls"))
        for key, rows in groups.items()
    }


def completion_rows(results: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Data of Figure 4: one row per (model, method) at the run's main k."""
    primary = _primary_rows(results["summary"])
    return [
        {
            "model": model,
            "method": method,
            "k": _k(primary[model, method]),
            "completion_rate": float(primary[model, method]["completion_rate"]),
            "completion_std": _std(primary[model, method]),
            "runs": primary[model, method].get("runs"),
        }
        for model in _models(results)
        for method in _methods(primary.values())
        if (model, method) in primary
    ]


def failure_rows(results: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Data of Figure 5: failure totals per (model, method) at the run's main k."""
    primary = _primary_rows(results["summary"])
    return [
        {
            "model": model,
            "method": method,
            "k": _k(primary[model, method]),
            **{kind: _count(primary[model, method], kind) for kind in FAILURE_KINDS},
        }
        for model in _models(results)
        for method in _methods(primary.values())
        if (model, method) in primary
    ]


def cost_curve_rows(results: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Data of Figure 6: every summary row with its mean cost, latency and calls per sample."""
    usage = usage_by_group(results["results"])
    rows: list[dict[str, Any]] = []
    for row in sorted(results["summary"], key=lambda r: (_method_rank(str(r["method"])), _k(r))):
        key = GroupKey(str(row["model"]), str(row["method"]), _k(row))
        use = usage.get(key, Usage(None, None, None))
        rows.append(
            {
                "model": key.model,
                "method": key.method,
                "k": key.k,
                "calls": use.calls,
                "cost_usd": use.cost_usd,
                "latency_s": use.latency_s,
                "completion_rate": float(row["completion_rate"]),
            }
        )
    models = _models(results)
    rows.sort(key=lambda r: models.index(r["model"]))
    return rows


def _multi_k_values(results: Mapping[str, Any]) -> list[int]:
    return sorted({_k(r) for r in results["summary"] if r["method"] not in SINGLE_CALL_METHODS})


# ---------------------------------------------------------------------------- figures


def _new_figure(width: float, height: float) -> Figure:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    return figure


_MARKERS = ("o", "o", "o", "s", "^", "v", "P", "o", "D")
"""Per method (METHOD_ORDER). Curves shrink in the order drawn, so curves that coincide stay visible."""
_METHOD_PALETTE = (0, 1, 2, 3, 4, 5, 6, 8, 9)
"""tab10 entries for the nine methods, without its grey (grey means "invalid" in Figure 5)."""


def _method_colors(methods: Sequence[str]) -> dict[str, Any]:
    from matplotlib import colormaps

    palette = colormaps["tab10"]
    return {m: palette(_METHOD_PALETTE[_method_rank(m)[0] % len(_METHOD_PALETTE)]) for m in methods}


def plot_completion_by_method(results: Mapping[str, Any]) -> Figure:
    """Figure 4: grouped bars, x = model, one bar container per method, error bars = std over seeds."""
    rows = completion_rows(results)
    models = _models(results)
    methods = _methods(rows)
    colors = _method_colors(methods)
    figure = _new_figure(max(6.0, 1.1 * len(models) * max(1, len(methods)) / 3 + 2), 4.2)
    ax = figure.add_subplot()
    width = 0.8 / max(1, len(methods))
    for index, method in enumerate(methods):
        by_model = {r["model"]: r for r in rows if r["method"] == method}
        xs = [
            m + (index - (len(methods) - 1) / 2) * width
            for m in range(len(models))
            if models[m] in by_model
        ]
        present = [by_model[m] for m in models if m in by_model]
        rates = [100 * r["completion_rate"] for r in present]
        spreads = [100 * r["completion_std"] for r in present]
        clipped = [
            [min(s, y) for s, y in zip(spreads, rates, strict=True)],
            [min(s, 100 - y) for s, y in zip(spreads, rates, strict=True)],
        ]
        ax.bar(
            xs,
            rates,
            width,
            yerr=clipped,
            capsize=2,
            label=method,
            color=colors[method],
            error_kw={"elinewidth": 0.8},
        )
    ax.set_xticks(range(len(models)), models)
    ax.set_xlabel("model")
    ax.set_ylabel("completion rate (%)")
    ax.set_ylim(0, 105)
    ax.set_title("Completion rate by method (mean ± std over seeds)")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(
        title="method",
        ncols=min(len(methods), 9),
        fontsize="small",
        loc="lower center",
        bbox_to_anchor=(0.5, 1.08),
        frameon=False,
    )
    return figure


def _grid(count: int, columns: int = 3) -> tuple[int, int]:
    cols = max(1, min(columns, count))
    return math.ceil(count / cols), cols


def plot_failure_composition(results: Mapping[str, Any]) -> Figure:
    """Figure 5: per model, x = method, one stacked bar container per failure kind."""
    rows = failure_rows(results)
    models = _models(results)
    n_rows, n_cols = _grid(len(models))
    figure = _new_figure(4.2 * n_cols, 3.4 * n_rows)
    axes = figure.subplots(n_rows, n_cols, squeeze=False, sharey=True)
    for index, model in enumerate(models):
        ax = axes[index // n_cols][index % n_cols]
        mine = [r for r in rows if r["model"] == model]
        methods = [r["method"] for r in mine]
        bottom = [0] * len(mine)
        for kind in FAILURE_KINDS:
            heights = [r[kind] for r in mine]
            ax.bar(
                methods,
                heights,
                bottom=bottom,
                label=FAILURE_LABELS[kind],
                color=FAILURE_COLORS[kind],
            )
            bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
        ax.set_title(model)
        ax.set_xlabel("method")
        ax.tick_params(axis="x", labelrotation=45)
        if index % n_cols == 0:
            ax.set_ylabel("failures (elements; invalid: replies)")
        ax.grid(axis="y", alpha=0.3)
    for index in range(len(models), n_rows * n_cols):
        axes[index // n_cols][index % n_cols].set_visible(False)
    handles, labels = axes[0][0].get_legend_handles_labels()
    figure.legend(
        handles, labels, loc="outside upper center", ncols=len(FAILURE_KINDS), frameon=False
    )
    return figure


def plot_cost_vs_completion(results: Mapping[str, Any]) -> Figure | None:
    """Figure 6: per model, one curve per multi-call method over its k values (labelled by k),
    with j / h / j+h as single markers. None when fewer than two k values ran.

    The x axis is the mean cost per sample; when no cost is known at all (no prices), it is
    the mean number of calls per sample instead.
    """
    if len(_multi_k_values(results)) < 2:
        return None
    rows = cost_curve_rows(results)
    use_cost = any((r["cost_usd"] or 0) > 0 for r in rows)
    x_name = "cost_usd" if use_cost else "calls"
    models = _models(results)
    colors = _method_colors(_methods(rows))
    n_rows, n_cols = _grid(len(models))
    figure = _new_figure(4.4 * n_cols, 3.6 * n_rows)
    axes = figure.subplots(n_rows, n_cols, squeeze=False)
    for index, model in enumerate(models):
        ax = axes[index // n_cols][index % n_cols]
        mine = [r for r in rows if r["model"] == model and r[x_name] is not None]
        drawn = -1
        for method in _methods(mine):
            points = sorted((r for r in mine if r["method"] == method), key=lambda r: r["k"])
            xs = [r[x_name] for r in points]
            ys = [100 * r["completion_rate"] for r in points]
            if method in SINGLE_CALL_METHODS:
                marker = "*" if method == REFERENCE_METHOD else "D"
                ax.plot(
                    xs[:1],
                    ys[:1],
                    marker=marker,
                    linestyle="none",
                    markersize=9 if marker == "*" else 5,
                    color=colors[method],
                    label=method,
                )
                continue
            drawn += 1
            ax.plot(
                xs,
                ys,
                marker=_MARKERS[_method_rank(method)[0] % len(_MARKERS)],
                markersize=max(4.0, 11.0 - 2.5 * drawn),
                linewidth=max(1.0, 3.6 - 1.2 * drawn),
                color=colors[method],
                label=method,
            )
            for r, x, y in zip(points, xs, ys, strict=True):
                ax.annotate(
                    f"k={r['k']}", (x, y), textcoords="offset points", xytext=(3, 3), fontsize=6
                )
        ax.margins(x=0.12)
        ys_all = [100 * r["completion_rate"] for r in mine]
        if ys_all:
            pad = max(5.0, 0.12 * (max(ys_all) - min(ys_all)))
            ax.set_ylim(max(-2.0, min(ys_all) - pad), min(102.0, max(ys_all) + pad))
        ax.set_title(model)
        ax.set_xlabel("cost per sample (USD)" if use_cost else "calls per sample (no prices known)")
        ax.set_ylabel("completion rate (%)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize="x-small")
    for index in range(len(models), n_rows * n_cols):
        axes[index // n_cols][index % n_cols].set_visible(False)
    figure.suptitle("Completion rate against cost as k grows")
    return figure


# ---------------------------------------------------------------------------- tables


@dataclass(frozen=True)
class Table:
    """A report table: rendered as Markdown (report.md) and as HTML (report.html)."""

    title: str
    header: list[str]
    rows: list[list[str]]
    note: str = ""
    anchor: str = field(default="")

    def to_markdown(self) -> str:
        def cell(text: str) -> str:
            return text.replace("|", "\\|").replace("\n", " ")

        lines = [f"## {self.title}", ""]
        if self.note:
            lines += [self.note, ""]
        lines.append("| " + " | ".join(cell(h) for h in self.header) + " |")
        lines.append("|" + "|".join(" --- " for _ in self.header) + "|")
        lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in self.rows]
        return "\n".join(lines) + "\n"


def _pct(rate: float) -> str:
    return f"{100 * rate:.1f}"


def _summary_table(results: Mapping[str, Any]) -> Table:
    usage = usage_by_group(results["results"])
    models = _models(results)
    summary = sorted(
        results["summary"],
        key=lambda r: (models.index(str(r["model"])), _method_rank(str(r["method"])), _k(r)),
    )
    rows = []
    for r in summary:
        use = usage.get(GroupKey(str(r["model"]), str(r["method"]), _k(r)), Usage(None, None, None))
        rows.append(
            [
                str(r["model"]),
                str(r["method"]),
                str(_k(r)),
                str(r.get("n_cases", "")),
                str(r.get("runs", "")),
                f"{_pct(float(r['completion_rate']))} ± {_pct(_std(r))}",
                *(str(_count(r, kind)) for kind in FAILURE_KINDS),
                str(_count(r, "errors")),
                _fmt(use.cost_usd, "{:.6f}"),
                _fmt(use.latency_s, "{:.2f}"),
                _fmt(use.calls, "{:.2f}"),
            ]
        )
    header = [
        "model",
        "method",
        "k",
        "cases",
        "runs",
        "completion % (± std)",
        "miss",
        "over edit",
        "wrong value",
        "invalid",
        "call errors",
        "cost/sample (USD)",
        "latency/sample (s)",
        "calls/sample",
    ]
    return Table(
        "Summary",
        header,
        rows,
        anchor="summary",
        note="Failure columns are totals over all runs: miss, over edit and wrong value count "
        "artifact elements, invalid counts replies.",
    )


def _fmt(value: float | None, pattern: str) -> str:
    return "n/a" if value is None else pattern.format(value)


def _completion_matrix(results: Mapping[str, Any]) -> Table:
    rows = completion_rows(results)
    methods = _methods(rows)
    by_key = {(r["model"], r["method"]): r for r in rows}
    body = [
        [
            model,
            *(
                f"{_pct(by_key[model, m]['completion_rate'])} ± {_pct(by_key[model, m]['completion_std'])}"
                if (model, m) in by_key
                else ""
                for m in methods
            ),
        ]
        for model in _models(results)
    ]
    return Table(
        "Completion rate by method (%)",
        ["model", *methods],
        body,
        anchor="completion",
        note="Mean ± sample std over seeds, at each method's largest k (Figure: completion_by_method.png).",
    )


def _ratio_columns(results: Mapping[str, Any]) -> list[tuple[str, int]]:
    return sorted(
        {
            (str(r["method"]), _k(r))
            for r in results["summary"]
            if r["method"] not in SINGLE_CALL_METHODS
        },
        key=lambda mk: (_method_rank(mk[0]), mk[1]),
    )


def _reference_row(summary: Iterable[Row], model: str) -> Row | None:
    refs = [r for r in summary if r["model"] == model and r["method"] == REFERENCE_METHOD]
    return min(refs, key=_k) if refs else None


def _ratio_table(
    results: Mapping[str, Any], measure: str, *, effectiveness: bool
) -> list[list[str]]:
    """Per model and (method, k): measure / measure(j+h), or gain / (that ratio - 1)."""
    usage = usage_by_group(results["results"])
    columns = _ratio_columns(results)
    by_key = {(str(r["model"]), str(r["method"]), _k(r)): r for r in results["summary"]}
    body = []
    for model in _models(results):
        ref = _reference_row(results["summary"], model)
        ref_use = usage.get(GroupKey(model, REFERENCE_METHOD, _k(ref))) if ref else None
        base = getattr(ref_use, measure) if ref_use else None
        cells = (
            [model]
            if effectiveness
            else [model, _fmt(base, "{:.2f} s" if measure == "latency_s" else "{:.6f}")]
        )
        for method, k in columns:
            row = by_key.get((model, method, k))
            use = usage.get(GroupKey(model, method, k))
            value = getattr(use, measure) if use else None
            if row is None or ref is None or value is None or not base:
                cells.append("n/a")
                continue
            ratio = value / base
            if not effectiveness:
                cells.append(f"{ratio:.2f}×")
            elif ratio <= 1:
                cells.append("n/a")
            else:
                gain = 100 * (float(row["completion_rate"]) - float(ref["completion_rate"]))
                cells.append(f"{gain / (ratio - 1):+.2f}")
        body.append(cells)
    return body


def report_tables(results: Mapping[str, Any]) -> list[Table]:
    """Every table of the report, in order (the lead's Markdown may reuse any of them)."""
    columns = [f"{m} k={k}" for m, k in _ratio_columns(results)]
    tables = [_summary_table(results), _completion_matrix(results)]
    if not columns:
        return tables
    tables += [
        Table(
            "Latency relative to j+h",
            ["model", "j+h latency", *columns],
            _ratio_table(results, "latency_s", effectiveness=False),
            anchor="latency",
            note="Mean latency per sample of each method divided by that of j+h (parallel calls count "
            "as the slowest of them, sequential calls add up).",
        ),
        Table(
            "Cost relative to j+h",
            ["model", "j+h cost (USD)", *columns],
            _ratio_table(results, "cost_usd", effectiveness=False),
            anchor="cost",
        ),
        Table(
            "Cost-effectiveness",
            ["model", *columns],
            _ratio_table(results, "cost_usd", effectiveness=True),
            anchor="cost-effectiveness",
            note="gain / (cost / cost_j+h - 1), gain in completion points over j+h; "
            "n/a when the cost ratio is <= 1 or unknown. Higher is better.",
        ),
        Table(
            "Latency-effectiveness",
            ["model", *columns],
            _ratio_table(results, "latency_s", effectiveness=True),
            anchor="latency-effectiveness",
            note="gain / (latency / latency_j+h - 1); n/a when the latency ratio is <= 1 or unknown.",
        ),
    ]
    return tables


# ---------------------------------------------------------------------------- output


def _png_bytes(figure: Figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110)
    return buffer.getvalue()


def render_figures(
    results: Mapping[str, Any],
) -> tuple[dict[str, bytes], dict[str, list[dict[str, Any]]], list[str]]:
    """PNG bytes and CSV rows of each figure, keyed by figure name, and notes on skipped ones."""
    pngs: dict[str, bytes] = {}
    data: dict[str, list[dict[str, Any]]] = {}
    notes: list[str] = []
    if not results["summary"]:
        return pngs, data, ["No summary rows: no figures."]
    pngs["completion_by_method"] = _png_bytes(plot_completion_by_method(results))
    data["completion_by_method"] = completion_rows(results)
    pngs["failure_composition"] = _png_bytes(plot_failure_composition(results))
    data["failure_composition"] = failure_rows(results)
    cost_figure = plot_cost_vs_completion(results)
    if cost_figure is None:
        ks = _multi_k_values(results)
        notes.append(
            "Cost against completion (Figure 6) skipped: it needs multi-call methods at two or more "
            f"k values; this run has {', '.join(map(str, ks)) if ks else 'none'}."
        )
    else:
        pngs["cost_vs_completion"] = _png_bytes(cost_figure)
        data["cost_vs_completion"] = cost_curve_rows(results)
    return pngs, data, notes


def _write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(
            handle, fieldnames=list(rows[0]) if rows else ["model", "method", "k"]
        )
        writer.writeheader()
        writer.writerows(rows)


def _markdown(
    results: Mapping[str, Any], tables: list[Table], pngs: Mapping[str, bytes], notes: list[str]
) -> str:
    meta = results.get("meta", {})
    parts = ["# RevProp report", ""]
    facts = [
        f"{name}: {meta[name]}"
        for name in ("version", "created", "split", "cases_path")
        if meta.get(name)
    ]
    if facts:
        parts += ["; ".join(str(f) for f in facts), ""]
    parts += [f"![{name}]({FIGURE_FILES[name]})" for name in pngs]
    parts.append("")
    parts += [table.to_markdown() for table in tables]
    if notes:
        parts += ["## Notes", "", *(f"- {n}" for n in notes), ""]
    return "\n".join(parts)


def write_report(
    results: dict[str, Any],
    out_dir: Path,
    *,
    samples: list[dict[str, Any]] | None = None,
    cases: dict[str, dict[str, Any]] | None = None,
) -> list[Path]:
    """Write figures (PNG + CSV), report.md and the self-contained report.html into ``out_dir``.

    ``samples`` are samples.jsonl records (the result records are used when None, without
    replies); ``cases`` maps case id -> case JSON for the sample browser. Returns the paths written.
    """
    from pytest_revprop.reporting.html import write_html

    check_results(results)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    pngs, data, notes = render_figures(results)
    written: list[Path] = []
    for name, png in pngs.items():
        png_path = out_dir / FIGURE_FILES[name]
        png_path.write_bytes(png)
        csv_path = png_path.with_suffix(".csv")
        _write_csv(csv_path, data[name])
        written += [png_path, csv_path]
    tables = report_tables(results)
    markdown_path = out_dir / "report.md"
    markdown_path.write_text(_markdown(results, tables, pngs, notes), encoding="utf-8")
    written.append(markdown_path)
    html_path = write_html(
        results,
        samples if samples is not None else results["results"],
        cases or {},
        out_dir / "report.html",
        figures=pngs,
        tables=tables,
        notes=notes,
    )
    written.append(html_path)
    return written


def _default_cases(results: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Cases named by the run's meta.cases_path, else the shipped benchmark; {} if unusable."""
    from pytest_revprop.cases import BENCHMARK_DIR

    named = results.get("meta", {}).get("cases_path")
    path = Path(named) if isinstance(named, str) and named else BENCHMARK_DIR
    if not path.exists():
        return {}
    try:
        return load_case_dicts(path)
    except UserError:
        return {}


def report_main(argv: Sequence[str]) -> int:
    """``revprop report RESULTS.json [--out DIR] [--cases PATH] [--samples FILE]``."""
    parser = argparse.ArgumentParser(
        prog="revprop report",
        description="Figures, tables and a self-contained HTML sample browser from a results.json.",
    )
    parser.add_argument("results", type=Path, help="results.json written by --revprop-report")
    parser.add_argument(
        "--out", type=Path, default=None, help="output folder (default: the folder of RESULTS.json)"
    )
    parser.add_argument(
        "--cases",
        type=Path,
        default=None,
        help="case files or folder for the sample browser "
        "(default: the run's cases_path, else the shipped benchmark)",
    )
    parser.add_argument(
        "--samples",
        type=Path,
        default=None,
        help="samples.jsonl with the raw replies (default: samples.jsonl beside RESULTS.json, if any)",
    )
    args = parser.parse_args(list(argv))
    results = load_results(args.results)
    samples_path = args.samples or args.results.parent / "samples.jsonl"
    samples = load_samples(samples_path) if args.samples or samples_path.is_file() else None
    cases = load_case_dicts(args.cases) if args.cases else _default_cases(results)
    written = write_report(results, args.out or args.results.parent, samples=samples, cases=cases)
    for path in written:
        print(path)
    return 0
