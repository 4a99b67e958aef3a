"""The figures as drawn: no legend reaches past the figure's edge, and no two tick labels of
an axis overlap (a run of one model, and the nine shipped domains)."""

from __future__ import annotations

import io
from itertools import combinations
from typing import Any

import pytest
from helpers.revprop_report_data import make_results

from pytest_revprop.reporting.figures import plot_failure_composition, plot_where_they_fail

DOMAINS = (
    "course_plan", "data_pipeline", "deployment_config", "invoice", "manufacturing_bom",
    "org_access", "project_schedule", "shopping_cart", "travel_itinerary",
)  # fmt: skip


def _drawn(figure: Any) -> Any:
    figure.savefig(io.BytesIO(), format="png", dpi=110)  # lays it out as the file has it
    return figure.canvas.get_renderer()


def _inside(figure: Any, renderer: Any) -> None:
    edge = figure.bbox
    for legend in [*figure.legends, *(ax.get_legend() for ax in figure.axes)]:
        if legend is None:
            continue
        box = legend.get_window_extent(renderer)
        assert box.x0 >= edge.x0 - 1 and box.x1 <= edge.x1 + 1, (box, edge)
        assert box.y0 >= edge.y0 - 1 and box.y1 <= edge.y1 + 1, (box, edge)


def _labels_apart(figure: Any, renderer: Any) -> None:
    for ax in figure.axes:
        boxes = [t.get_window_extent(renderer) for t in ax.get_xticklabels() if t.get_text()]
        for a, b in combinations(boxes, 2):
            assert not a.overlaps(b), (a, b)
        for box in boxes:
            assert box.x0 >= figure.bbox.x0 - 1 and box.x1 <= figure.bbox.x1 + 1


@pytest.mark.parametrize("models", [1, 2])
def test_the_failure_composition_legend_is_whole(models: int) -> None:
    results = make_results()
    kept = sorted({r["model"] for r in results["summary"]})[:models]
    results = {
        **results,
        "summary": [r for r in results["summary"] if r["model"] in kept],
        "results": [r for r in results["results"] if r["model"] in kept],
    }
    figure = plot_failure_composition(results)
    _inside(figure, _drawn(figure))
    texts = [t.get_text() for legend in figure.legends for t in legend.get_texts()]
    assert texts == ["miss", "over edit", "wrong value", "invalid"]


@pytest.mark.parametrize("models", [1, 3])
def test_the_domain_labels_of_where_they_fail_do_not_overlap(models: int) -> None:
    rows = [
        {"by": by, "value": value, "model": f"model-{m}", "completion_rate": 0.6,
         "pass_all_seeds": 0.4, "cascade_recall": 0.7}
        for m in range(models)
        for by, values in (("pattern", ("arithmetic", "status_flip")), ("domain", DOMAINS))
        for value in values
    ]  # fmt: skip
    figure = plot_where_they_fail(rows)
    assert figure is not None
    renderer = _drawn(figure)
    _labels_apart(figure, renderer)
    _inside(figure, renderer)
