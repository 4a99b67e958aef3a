"""What one item's report says when its sample did not complete: the request, then each
missed, over-edited or wrong place (path, expected, got, direct or cascade), or why the reply
was invalid."""

from __future__ import annotations

import json
from typing import Any

from pytest_revprop.vocabulary import ResultRecord

MAX_FINDINGS_SHOWN = 30


def _short(value: Any, limit: int = 120) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe_failure(record: ResultRecord) -> str:
    """A failure a person can act on: the request, then what went wrong where."""
    lines = [f"request: {record.get('request', '')}"]
    if not record["valid"]:
        lines.append(f"invalid reply ({record['error']}): {record.get('reason')}")
    else:
        lines.append(
            f"miss {record['miss']}, over edit {record['over_edit']}, wrong value {record['wrong_value']}"
        )
        for finding in record.get("findings", [])[:MAX_FINDINGS_SHOWN]:
            kind = finding["kind"].replace("_", " ")
            gold = f" [{finding['gold_kind']}]" if finding.get("gold_kind") else ""
            lines.append(
                f"  {kind:<11} {finding['path']}{gold}: expected {_short(finding['expected'])}, got {_short(finding['got'])}"
            )
        extra = len(record.get("findings", [])) - MAX_FINDINGS_SHOWN
        if extra > 0:
            lines.append(f"  ... and {extra} more")
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
