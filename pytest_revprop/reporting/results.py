"""Reading a run's outputs: results.json (loaded and checked) and samples.jsonl.

The one reader of results.json: ``revprop report``, ``revprop compare``, the HTML report and
the baseline gate all go through ``load_results`` / ``check_results``. Every problem is a
one-line ``UserError`` naming the file and the first thing wrong with it.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, TypeGuard

from pytest_revprop.errors import UserError

__all__ = ["check_results", "is_number", "load_results", "load_samples"]

REQUIRED_KEYS = {
    "summary": ("model", "method", "completion_rate"),
    "results": ("case", "model", "method"),
}
"""Keys every row of each list must have."""


def is_number(value: Any) -> TypeGuard[int | float]:
    """A finite int or float, not a bool."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _shape_error(source: str, where: str, what: str) -> UserError:
    return UserError(f"{source}: {where} {what}")


def check_results(
    data: Any, source: str = "results", *, with_summary: bool = True
) -> dict[str, Any]:
    """``data`` if it has the results.json shape, else UserError naming the first problem.

    ``with_summary=False`` asks only for the ``results`` list (a baseline needs no summary).
    """
    if not isinstance(data, dict):
        raise _shape_error(source, "top level", "is not a JSON object with 'summary' and 'results'")
    names = ("summary", "results") if with_summary else ("results",)
    for name in names:
        if not isinstance(data.get(name), list):
            raise _shape_error(source, f"'{name}'", "is missing or not a list")
    if not isinstance(data.get("meta", {}), dict):
        raise _shape_error(source, "'meta'", "is not an object")
    for name in names:
        for index, row in enumerate(data[name]):
            if not isinstance(row, dict):
                raise _shape_error(source, f"{name}[{index}]", "is not an object")
            missing = [k for k in REQUIRED_KEYS[name] if k not in row]
            if missing:
                raise _shape_error(
                    source, f"{name}[{index}]", f"lacks {', '.join(map(repr, missing))}"
                )
            if name == "summary" and not is_number(row["completion_rate"]):
                raise _shape_error(source, f"summary[{index}].completion_rate", "is not a number")
    return data


def _read_text(path: Path, what: str) -> str:
    if not path.is_file():
        raise UserError(f"{what} {path}: no such file")
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{what} {path}: cannot read ({exc.__class__.__name__})") from None


def load_results(path: Path | str, *, with_summary: bool = True) -> dict[str, Any]:
    """Read and check a results.json; UserError (one line) when it is missing or malformed."""
    path = Path(path)
    text = _read_text(path, "results file")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"results file {path}: not JSON ({exc.msg} at line {exc.lineno})") from None
    return check_results(data, f"results file {path}", with_summary=with_summary)


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
