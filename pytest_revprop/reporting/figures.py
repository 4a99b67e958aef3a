"""The report's figures, drawn from a results document (each with its data rows for a CSV).

  completion_by_method.png   completion rate per method for each model, error bars over seeds
  failure_composition.png    miss / over edit / wrong value / invalid, stacked, by method
  cost_vs_completion.png     completion rate against cost per sample as k grows
  where_they_fail.png        completion, pass^S and cascade recall by pattern, size and domain
  completion_by_turn.png     chain runs: completion at each turn per method, teacher solid, free dashed

Figures are drawn on bare ``matplotlib.figure.Figure`` objects with the Agg canvas, never
through pyplot, so nothing needs a display and no global backend state is touched.
matplotlib is imported only when a figure is drawn.
"""

from __future__ import annotations

import functools
import io
import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pytest_revprop.reporting.chains import turn_figure_rows
from pytest_revprop.reporting.metrics import BREAKDOWN_DIMENSIONS, breakdown_rows
from pytest_revprop.reporting.relative import REFERENCE_METHOD
from pytest_revprop.reporting.report_rows import (
    completion_rows,
    cost_curve_rows,
    failure_rows,
    fixed_k_methods,
    method_rank,
    multi_k_values,
    ordered_methods,
    run_models,
)
from pytest_revprop.vocabulary import OUTCOME_COLUMNS

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "FAILURE_COLORS",
    "FIGURE_FILES",
    "plot_completion_by_method",
    "plot_completion_by_turn",
    "plot_cost_vs_completion",
    "plot_failure_composition",
    "plot_where_they_fail",
    "render_figures",
]

FAILURE_LABELS = {
    "miss": "miss",
    "over_edit": "over edit",
    "wrong_value": "wrong value",
    "invalid": "invalid",
}
# Okabe-Ito colours (distinct under colour blindness); the HTML report highlights with the same.
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
    "where_they_fail": "where_they_fail.png",
    "completion_by_turn": "completion_by_turn.png",
}
PROTOCOL_LINES: dict[str, Literal["-", "--"]] = {"teacher": "-", "free": "--"}
"""The completion-by-turn figure's line per chain protocol (others dotted)."""


def _new_figure(width: float, height: float) -> Figure:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    return figure


_MARKERS = ("o", "o", "o", "s", "^", "v", "P", "o", "D")
"""Per method (vocabulary.METHODS). Curves shrink in the order drawn, so curves that coincide stay visible."""
BASE_PALETTE = (
    *("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd"),
    *("#8c564b", "#e377c2", "#bcbd22", "#17becf", "#000080"),
)
"""The ten built-in methods' colours, in their order: tab10 without its grey (grey means
"invalid" in Figure 5), then navy for dep (tab10 has no tenth colour far from the nine)."""
_AVOID = ("#999999", "#000000", "#ffffff")
"""Colours that mean something else in the figures (invalid; pass^S and the protocols; the
background): no series gets one, nor one near it."""


@functools.lru_cache(maxsize=512)
def _lab(color: str) -> tuple[float, float, float]:
    """CIE L*a*b* (D65) of a matplotlib colour: distances in it follow what people see."""
    from matplotlib.colors import to_rgb

    def linear(u: float) -> float:
        return u / 12.92 if u <= 0.04045 else ((u + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(u) for u in to_rgb(color))
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))


def color_distance(a: str, b: str) -> float:
    """How far apart two colours look (CIE76 delta E: about 2 is a just-noticeable difference)."""
    return math.dist(_lab(a), _lab(b))


def distinct_colors(count: int) -> list[str]:
    """``count`` colours, each far from the others: ``BASE_PALETTE`` first, then each next one
    the CSS colour farthest from every colour chosen so far and from ``_AVOID``."""
    from matplotlib.colors import CSS4_COLORS

    chosen = list(BASE_PALETTE[:count])
    candidates = sorted({str(value).lower() for value in CSS4_COLORS.values()})
    while len(chosen) < count:
        taken = [*chosen, *_AVOID]
        chosen.append(max(candidates, key=lambda c: min(color_distance(c, t) for t in taken)))
    return chosen


def _method_colors(methods: Sequence[str]) -> dict[str, str]:
    """A colour per method: a built-in always the same one (its place in ``BASE_PALETTE``),
    registered methods the next distinct colours, in name order."""
    others = sorted((m for m in methods if method_rank(m)[0] >= len(BASE_PALETTE)), key=method_rank)
    palette = distinct_colors(len(BASE_PALETTE) + len(others))
    return {
        m: palette[rank if rank < len(BASE_PALETTE) else len(BASE_PALETTE) + others.index(m)]
        for m in methods
        for rank in [method_rank(m)[0]]
    }


def plot_completion_by_method(results: Mapping[str, Any]) -> Figure:
    """Figure 4: grouped bars, x = model, one bar container per method, error bars = std over seeds."""
    rows = completion_rows(results)
    models = run_models(results)
    methods = ordered_methods(rows)
    colors = _method_colors(methods)
    figure = _new_figure(max(6.0, 1.1 * len(models) * max(1, len(methods)) / 3 + 2), 4.2)
    ax = figure.add_subplot()
    width = 0.8 / max(1, len(methods))
    for index, method in enumerate(methods):
        by_model = {  # a group without a rate (every item errored) has no bar
            r["model"]: r
            for r in rows
            if r["method"] == method and r["completion_rate"] is not None
        }
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
    models = run_models(results)
    n_rows, n_cols = _grid(len(models))
    figure = _new_figure(4.2 * n_cols, 3.4 * n_rows)
    axes = figure.subplots(n_rows, n_cols, squeeze=False, sharey=True)
    for index, model in enumerate(models):
        ax = axes[index // n_cols][index % n_cols]
        mine = [r for r in rows if r["model"] == model]
        methods = [r["method"] for r in mine]
        bottom = [0] * len(mine)
        for kind in OUTCOME_COLUMNS:
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
    # one panel is too narrow for the four labels in a row: two rows of two
    columns = len(OUTCOME_COLUMNS) if n_cols > 1 else 2
    figure.legend(handles, labels, loc="outside upper center", ncols=columns, frameon=False)
    return figure


def plot_cost_vs_completion(results: Mapping[str, Any]) -> Figure | None:
    """Figure 6: per model, one curve per multi-call method over its k values (labelled by k),
    with the methods that do not use k (j, h, j+h, dep) as single markers. None when fewer than two k values ran.

    The x axis is the mean cost per sample; when no cost is known at all (no prices), it is
    the mean number of calls per sample instead.
    """
    if len(multi_k_values(results)) < 2:
        return None
    rows = cost_curve_rows(results)
    use_cost = any((r["cost_usd"] or 0) > 0 for r in rows)
    x_name = "cost_usd" if use_cost else "calls"
    models = run_models(results)
    colors = _method_colors(ordered_methods(rows))
    n_rows, n_cols = _grid(len(models))
    figure = _new_figure(4.4 * n_cols, 3.6 * n_rows)
    axes = figure.subplots(n_rows, n_cols, squeeze=False)
    for index, model in enumerate(models):
        ax = axes[index // n_cols][index % n_cols]
        mine = [
            r
            for r in rows
            if r["model"] == model and r[x_name] is not None and r["completion_rate"] is not None
        ]
        fixed = fixed_k_methods(results)
        drawn = -1
        for method in ordered_methods(mine):
            points = sorted((r for r in mine if r["method"] == method), key=lambda r: r["k"])
            xs = [r[x_name] for r in points]
            ys = [100 * r["completion_rate"] for r in points]
            if method in fixed:
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
                marker=_MARKERS[method_rank(method)[0] % len(_MARKERS)],
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


def plot_where_they_fail(rows: Sequence[Mapping[str, Any]]) -> Figure | None:
    """One panel per dimension (pattern, size, domain): per value, a bar per model of its
    completion rate, with pass^S (a dot) and the mean cascade recall (a diamond) on it.
    None when no row has a dimension."""
    if not rows:
        return None
    models = list(dict.fromkeys(str(r["model"]) for r in rows))
    dimensions = [d for d in BREAKDOWN_DIMENSIONS if any(r["by"] == d for r in rows)]
    widest = max(len({r["value"] for r in rows if r["by"] == d}) for d in dimensions)
    figure = _new_figure(max(6.0, 0.35 * widest * len(models) + 2), 2.6 * len(dimensions) + 0.6)
    palette = distinct_colors(len(models))
    width = 0.8 / len(models)
    for panel, name in enumerate(dimensions):
        ax = figure.add_subplot(len(dimensions), 1, panel + 1)
        values = list(dict.fromkeys(r["value"] for r in rows if r["by"] == name))
        for index, model in enumerate(models):
            mine = {r["value"]: r for r in rows if r["by"] == name and r["model"] == model}
            xs = [v + (index - (len(models) - 1) / 2) * width for v in range(len(values))]
            present = [(x, mine[v]) for x, v in zip(xs, values, strict=True) if v in mine]
            ax.bar(
                [x for x, _ in present],
                [100 * r["completion_rate"] for _, r in present],
                width,
                color=palette[index],
                label=model if panel == 0 else None,
            )
            ax.plot(
                [x for x, _ in present],
                [100 * r["pass_all_seeds"] for _, r in present],
                "o",
                color="black",
                markersize=4,
                label="pass^S" if panel == 0 and index == 0 else None,
            )
            recall = [
                (x, r["cascade_recall"]) for x, r in present if r["cascade_recall"] is not None
            ]
            ax.plot(
                [x for x, _ in recall],
                [100 * value for _, value in recall],
                "D",
                markerfacecolor="none",
                color="black",
                markersize=5,
                label="cascade recall" if panel == 0 and index == 0 else None,
            )
        ax.set_xticks(range(len(values)), values)
        ax.set_ylim(0, 105)
        ax.set_ylabel("%")
        ax.set_title(f"by {name}", fontsize=10)
    figure.legend(loc="outside lower center", ncols=min(len(models) + 2, 6), fontsize=8)
    figure.suptitle("Where they fail: completion (bars), pass^S and cascade recall")
    _upright_when_crowded(figure)
    return figure


_TURN_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
"""Per method of the completion-by-turn figure, in its order (its lines cross: colour alone
is not enough)."""


def plot_completion_by_turn(rows: Sequence[Mapping[str, Any]]) -> Figure | None:
    """Chain runs: per model a panel, x = turn, y = the share of chains completing that turn;
    one colour and marker per method, teacher a solid line with filled markers, free a thinner
    dashed one with hollow markers (``rows``: ``chains.turn_figure_rows``); in a run with fresh
    instances, the fresh chains' line is paler, beside the shipped chains'. Lines shrink in the
    order drawn, so lines that coincide stay visible. None without rows."""
    if not rows:
        return None
    from matplotlib.lines import Line2D

    models = list(dict.fromkeys(str(r["model"]) for r in rows))
    methods = ordered_methods(rows)
    protocols = list(dict.fromkeys(str(r["protocol"]) for r in rows))
    kinds = list(dict.fromkeys(str(r.get("cases", "all")) for r in rows))
    colors = _method_colors(methods)
    turns = max(int(r["turn"]) for r in rows) + 1
    n_rows, n_cols = _grid(len(models))
    width = max(4.6, 1.0 + 0.7 * turns) * n_cols
    figure = _new_figure(width, 3.6 * n_rows + 0.5)
    axes = figure.subplots(n_rows, n_cols, squeeze=False, sharey=True)
    for index, model in enumerate(models):
        ax = axes[index // n_cols][index % n_cols]
        for drawn, method in enumerate(methods):
            for protocol, cases in itertools.product(protocols, kinds):
                points = sorted(
                    (
                        (int(r["turn"]), 100 * r["completion_rate"])
                        for r in rows
                        if r["model"] == model
                        and r["method"] == method
                        and r["protocol"] == protocol
                        and r.get("cases", "all") == cases
                        and r["completion_rate"] is not None
                    ),
                )
                if not points:
                    continue
                ax.plot(
                    [x for x, _ in points],
                    [y for _, y in points],
                    linestyle=PROTOCOL_LINES.get(protocol, ":"),
                    marker=_TURN_MARKERS[drawn % len(_TURN_MARKERS)],
                    markersize=max(4.0, 10.0 - 2.0 * drawn)
                    * (1.0 if protocol == "teacher" else 0.65),
                    linewidth=max(1.0, 3.6 - 1.0 * drawn) * (1.0 if protocol == "teacher" else 0.6),
                    color=colors[method],
                    markerfacecolor=colors[method] if protocol == "teacher" else "white",
                    alpha=0.45 if cases == "fresh" else 1.0,
                )
        ax.set_xticks(range(turns))
        ax.set_xlim(-0.3, turns - 0.7)
        ax.set_ylim(-3, 103)
        ax.set_title(model)
        ax.set_xlabel("turn (0: the case's own revision)")
        if index % n_cols == 0:
            ax.set_ylabel("chains completing the turn (%)")
        ax.grid(alpha=0.3)
    for index in range(len(models), n_rows * n_cols):
        axes[index // n_cols][index % n_cols].set_visible(False)
    handles = [
        Line2D([], [], color=colors[m], marker=_TURN_MARKERS[i % len(_TURN_MARKERS)], label=m)
        for i, m in enumerate(methods)
    ]
    handles += [
        Line2D(
            [],
            [],
            color="black",
            linestyle=PROTOCOL_LINES.get(p, ":"),
            marker="o",
            markerfacecolor="black" if p == "teacher" else "white",
            label=p,
        )
        for p in protocols
    ]
    if "fresh" in kinds:
        handles += [
            Line2D([], [], color="black", alpha=0.45 if k == "fresh" else 1.0, label=f"{k} cases")
            for k in ("shipped", "fresh")
        ]
    figure.legend(
        handles=handles,
        loc="outside lower center",
        ncols=max(1, min(len(handles), int(width / 1.1))),  # about an inch an entry
        fontsize="small",
        frameon=False,
    )
    figure.suptitle("Completion by turn: " + " vs ".join(protocols))
    return figure


def _upright_when_crowded(figure: Figure) -> None:
    """Turn an axis's tick labels upright when, laid out level, two of them would touch
    (upright labels never overlap one another; slanted long ones do)."""
    figure.draw_without_rendering()
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
    for ax in figure.axes:
        labels = [t for t in ax.get_xticklabels() if t.get_text()]
        boxes = [t.get_window_extent(renderer).padded(1) for t in labels]
        if any(a.overlaps(b) for a, b in itertools.pairwise(boxes)):
            for label in labels:
                label.set_rotation(90)


def _png_bytes(figure: Figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110)
    return buffer.getvalue()


def render_figures(
    results: Mapping[str, Any],
    others: Sequence[Mapping[str, Any]] = (),
    pooled: Iterable[Mapping[str, Any]] | None = None,
) -> tuple[dict[str, bytes], dict[str, list[dict[str, Any]]], list[str]]:
    """PNG bytes and CSV rows of each figure, keyed by figure name, and notes on skipped ones.
    ``others``: more chain runs (results documents, another protocol each) whose completion by
    turn the chain figure draws beside the run's; ``pooled``: the run's records pooled with
    its protocol's runs of other fresh instances (``pooled.pooled_records``), whose shipped and
    fresh chains the figure draws."""
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
        ks = multi_k_values(results)
        notes.append(
            "Cost against completion (Figure 6) skipped: it needs multi-call methods at two or more "
            f"k values; this run has {', '.join(map(str, ks)) if ks else 'none'}."
        )
    else:
        pngs["cost_vs_completion"] = _png_bytes(cost_figure)
        data["cost_vs_completion"] = cost_curve_rows(results)
    where = breakdown_rows(results["results"])
    where_figure = plot_where_they_fail(where)
    if where_figure is None:
        notes.append("Where they fail skipped: the results name no pattern, size or domain.")
    else:
        pngs["where_they_fail"] = _png_bytes(where_figure)
        data["where_they_fail"] = where
    by_turn = turn_figure_rows([results, *others], pooled)
    turn_figure = plot_completion_by_turn(by_turn)
    if turn_figure is not None:
        pngs["completion_by_turn"] = _png_bytes(turn_figure)
        data["completion_by_turn"] = by_turn
    return pngs, data, notes
