"""Figures beyond the paper's completion rate (docs/protocol.md, "Beyond the paper"): per
(model, method, k) the share of cases completed at every seed (pass^S) and at some seed
(pass@S), the flaky cases, the means of the samples' partial credit and a 95% bootstrap
interval for the completion rate; and, over a whole run, where models fail (by pattern, size
and domain) and which cases no group or every group completes.

Everything is computed from result records (``completed``, ``case``, ``seed``, and the
samples' ``cascade_recall`` and ``preservation`` where present), so a results.json written
before these figures existed still gets every one of them but the two means. Pure Python.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_revprop.vocabulary import INFRASTRUCTURE_ERRORS

__all__ = [
    "BEYOND_HEADER",
    "BOOTSTRAP_RESAMPLES",
    "BOOTSTRAP_SEED",
    "BREAKDOWN_DIMENSIONS",
    "GROUP_FIELDS",
    "NONE_CELL",
    "GroupTally",
    "beyond_cells",
    "breakdown_rows",
    "completion_ci95",
    "fill_summary",
    "group_figures",
    "solved_cases",
    "solved_label",
]

BOOTSTRAP_RESAMPLES = 2000
"""Resamples of the completion interval."""
BOOTSTRAP_SEED = 25
"""The interval's random seed: the same records always give the same interval."""
GROUP_FIELDS = (
    "pass_all_seeds",
    "pass_any_seed",
    "cascade_recall",
    "preservation",
    "completion_ci95",
    "flaky_cases",
)
"""What these figures add to each summary row, in the order results.json writes them."""
BREAKDOWN_DIMENSIONS = ("pattern", "size", "domain")


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


@dataclass
class _Mean:
    total: float = 0.0
    count: int = 0

    def add(self, value: Any) -> None:
        number = _number(value)
        if number is not None:
            self.total += number
            self.count += 1

    @property
    def value(self) -> float | None:
        return self.total / self.count if self.count else None


@dataclass
class GroupTally:
    """What the figures of one (model, method, k) need, gathered one record at a time: per
    case its completed and scored samples, and the sums of the partial credit."""

    cases: dict[str, list[int]] = field(default_factory=dict)  # case -> [completed, scored]
    recall: _Mean = field(default_factory=_Mean)
    preservation: _Mean = field(default_factory=_Mean)

    def add(self, record: Mapping[str, Any]) -> None:
        """Count ``record``; a result whose call or method failed is left out, as it is of the
        completion rate."""
        if record.get("error") in INFRASTRUCTURE_ERRORS:
            return
        tally = self.cases.setdefault(str(record["case"]), [0, 0])
        tally[0] += bool(record.get("completed"))
        tally[1] += 1
        self.recall.add(record.get("cascade_recall"))
        self.preservation.add(record.get("preservation"))

    def figures(self) -> dict[str, Any]:
        """The summary row's additions (``GROUP_FIELDS``). pass^S and pass@S are shares of the
        scored cases; ``flaky_cases`` lists the cases completed at some seeds and not others."""
        n = len(self.cases)
        all_seeds = sum(1 for done, scored in self.cases.values() if done == scored)
        any_seed = sum(1 for done, _ in self.cases.values() if done)
        return {
            "pass_all_seeds": all_seeds / n if n else None,
            "pass_any_seed": any_seed / n if n else None,
            "cascade_recall": self.recall.value,
            "preservation": self.preservation.value,
            "completion_ci95": completion_ci95(self.cases.values()),
            "flaky_cases": sorted(
                c for c, (done, scored) in self.cases.items() if 0 < done < scored
            ),
        }


def completion_ci95(per_case: Iterable[Sequence[int]]) -> list[float] | None:
    """A 95% percentile-bootstrap interval for the completion rate: ``BOOTSTRAP_RESAMPLES``
    times, draw as many cases as there are, with replacement, each with all of its seeds
    ([completed, scored] per case), and take the share of completed samples; the interval is
    the 2.5th and 97.5th percentiles (nearest rank) of those shares. None for no case."""
    pairs = tuple(sorted((int(done), int(scored)) for done, scored in per_case if scored > 0))
    return None if not pairs else list(_bootstrap(pairs))


@functools.lru_cache(maxsize=1024)
def _bootstrap(pairs: tuple[tuple[int, int], ...]) -> tuple[float, float]:
    n = len(pairs)
    if len({done / scored for done, scored in pairs}) == 1:
        rate = pairs[0][0] / pairs[0][1]
        return rate, rate
    rng = random.Random(BOOTSTRAP_SEED)
    if len({scored for _, scored in pairs}) == 1:  # every case scored as often: sum the done
        done = [d for d, _ in pairs]
        samples = n * pairs[0][1]
        shares = sorted(sum(rng.choices(done, k=n)) / samples for _ in range(BOOTSTRAP_RESAMPLES))
    else:
        shares = []
        for _ in range(BOOTSTRAP_RESAMPLES):
            drawn = rng.choices(pairs, k=n)
            shares.append(sum(d for d, _ in drawn) / sum(s for _, s in drawn))
        shares.sort()
    low = shares[math.ceil(0.025 * BOOTSTRAP_RESAMPLES) - 1]
    high = shares[math.ceil(0.975 * BOOTSTRAP_RESAMPLES) - 1]
    return low, high


def group_figures(
    records: Iterable[Mapping[str, Any]],
) -> dict[tuple[str, str, Any], dict[str, Any]]:
    """``GROUP_FIELDS`` per (model, method, k) of ``records``, in one pass."""
    tallies: dict[tuple[str, str, Any], GroupTally] = {}
    for record in records:
        key = (str(record["model"]), str(record["method"]), record.get("k"))
        tallies.setdefault(key, GroupTally()).add(record)
    return {key: tally.figures() for key, tally in tallies.items()}


BEYOND_HEADER = ("pass^S %", "pass@S %", "95% CI %", "recall", "preserved", "flaky")
"""The columns these figures add to the summary tables (terminal, summary.md, report.md)."""
NONE_CELL = "–"


def _pct_cell(value: Any) -> str:
    number = _number(value)
    return NONE_CELL if number is None else f"{100 * number:.1f}"


def _ratio_cell(value: Any) -> str:
    number = _number(value)
    return NONE_CELL if number is None else f"{number:.2f}"


def beyond_cells(row: Mapping[str, Any]) -> list[str]:
    """A summary row's cells under ``BEYOND_HEADER``; ``–`` where the row has no figure (a
    results.json written before them, or no scored sample)."""
    ci = row.get("completion_ci95")
    interval = (
        f"{_pct_cell(ci[0])}–{_pct_cell(ci[1])}"
        if isinstance(ci, list | tuple) and len(ci) == 2
        else NONE_CELL
    )
    flaky = row.get("flaky_cases")
    return [
        _pct_cell(row.get("pass_all_seeds")),
        _pct_cell(row.get("pass_any_seed")),
        interval,
        _ratio_cell(row.get("cascade_recall")),
        _ratio_cell(row.get("preservation")),
        str(len(flaky)) if isinstance(flaky, list) else NONE_CELL,
    ]


# ------------------------------------------------------------------------------ over a run


def _main_k(records: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], Any]:
    """Per (model, method) its largest k (the run's main k, as the report's figures use)."""
    best: dict[tuple[str, str], Any] = {}
    for r in records:
        key, k = (str(r["model"]), str(r["method"])), r.get("k")
        if key not in best or (isinstance(k, int) and (best[key] is None or k > best[key])):
            best[key] = k
    return best


def _dimension_value(record: Mapping[str, Any], name: str) -> str | None:
    value = record.get(name)
    return None if value is None or isinstance(value, dict | list) else str(value)


def breakdown_rows(records: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Where models fail: per model, dimension (pattern, size, domain) and value, over the
    model's methods at their main k: the completion rate (completed among scored samples),
    pass^S (the share of (method, case) pairs completed at every seed) and the mean cascade
    recall (None when no sample has one). Rows in model order of appearance, then dimension,
    then value (sizes numerically). Two passes over ``records`` (a streamed source is fine)."""
    main = _main_k(records)
    tallies: dict[tuple[str, str, str], dict[str, Any]] = {}
    for r in records:
        model, method = str(r["model"]), str(r["method"])
        if r.get("k") != main[model, method] or r.get("error") in INFRASTRUCTURE_ERRORS:
            continue
        for name in BREAKDOWN_DIMENSIONS:
            value = _dimension_value(r, name)
            if value is None:
                continue
            tally = tallies.setdefault(
                (model, name, value), {"done": 0, "scored": 0, "pairs": {}, "recall": _Mean()}
            )
            tally["done"] += bool(r.get("completed"))
            tally["scored"] += 1
            pair = tally["pairs"].setdefault((method, str(r["case"])), [0, 0])
            pair[0] += bool(r.get("completed"))
            pair[1] += 1
            tally["recall"].add(r.get("cascade_recall"))
    models = list(dict.fromkeys(model for model, _, _ in tallies))

    def order(key: tuple[str, str, str]) -> tuple[Any, ...]:
        model, name, value = key
        number = _number(float(value)) if value.lstrip("-").isdigit() else None
        return (
            models.index(model),
            BREAKDOWN_DIMENSIONS.index(name),
            number is None,
            number or 0,
            value,
        )

    rows = []
    for key in sorted(tallies, key=order):
        tally = tallies[key]
        pairs = tally["pairs"].values()
        rows.append(
            {
                "model": key[0],
                "by": key[1],
                "value": key[2],
                "cases": len({case for _, case in tally["pairs"]}),
                "samples": tally["scored"],
                "completion_rate": tally["done"] / tally["scored"],
                "pass_all_seeds": sum(1 for d, s in pairs if d == s) / len(pairs),
                "cascade_recall": tally["recall"].value,
            }
        )
    return rows


def solved_cases(records: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """Per case how the run's groups did on it: ``by none`` (no sample of any (model, method,
    k) completed it), ``by all`` (every sample of every group did) or ``by some``. Samples
    whose call or method failed are left out; a case with no other sample is not listed."""
    done: dict[str, list[int]] = {}
    for r in records:
        if r.get("error") in INFRASTRUCTURE_ERRORS:
            continue
        tally = done.setdefault(str(r["case"]), [0, 0])
        tally[0] += bool(r.get("completed"))
        tally[1] += 1
    return {case: solved_label(d, s) for case, (d, s) in sorted(done.items())}


def solved_label(completed: int, scored: int) -> str:
    """``by none``, ``by all`` or ``by some``: how a case's ``scored`` samples, over every
    group of a run, did (``completed`` of them completed)."""
    return "by none" if completed == 0 else "by all" if completed == scored else "by some"


OLD_FILE_NOTE = (
    "This results.json predates pass^S, pass@S, flaky cases and the completion interval: they "
    "were computed from its records."
)
NO_CREDIT_NOTE = (
    "Its records carry no cascade recall or preservation (written before them): those show as –."
)


def fill_summary(results: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """``results`` with every summary row holding ``GROUP_FIELDS``: rows written before they
    existed get them from the result records (the credit means stay None when the records have
    no credit either); and the notes saying so (none for a file that had them)."""
    summary = list(results["summary"])
    if all("pass_all_seeds" in row for row in summary):
        return dict(results), []
    figures = group_figures(results["results"])
    filled = []
    for row in summary:
        if "pass_all_seeds" in row:
            filled.append(row)
            continue
        key = (str(row["model"]), str(row["method"]), row.get("k"))
        empty = dict.fromkeys(GROUP_FIELDS)
        filled.append({**row, **figures.get(key, empty)})
    notes = [OLD_FILE_NOTE]
    if all(row.get("cascade_recall") is None for row in filled):
        notes.append(NO_CREDIT_NOTE)
    return {**results, "summary": filled}, notes
