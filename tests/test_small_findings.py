"""Smaller things a user meets: each one's message or display, as it should read."""

from __future__ import annotations

from typing import Any

from pytest_revprop.core.registry import builtin_registry
from pytest_revprop.reporting.aggregate import markdown_summary, shown_k_values
from pytest_revprop.run.header import header_k
from pytest_revprop.run.runner import RunSettings

INFO = builtin_registry().info()


def _doc(methods: list[str], rows: list[tuple[str, int]]) -> dict[str, Any]:
    meta = {"k_values": [5], "methods": methods, "seeds": [0], "split": "dev",
            "method_info": {m: INFO[m] for m in methods}}  # fmt: skip
    summary = [{"model": "m", "method": m, "k": k} for m, k in rows]
    return {"meta": meta, "summary": summary, "results": []}


def test_k_is_shown_as_the_items_have_it_not_as_the_option_gave_it() -> None:
    assert header_k(RunSettings(methods=["j+h"], k_values=[5])) == "1"
    assert header_k(RunSettings(methods=["j+h", "med"], k_values=[3, 5])) == "3,5"
    assert shown_k_values(_doc(["j+h"], [("j+h", 1)])) == [1]
    assert shown_k_values(_doc(["j+h", "maj"], [("j+h", 1), ("maj", 5)])) == [5]
    assert shown_k_values(_doc(["j+h"], [])) == [1]
    old = _doc(["j+h"], [("j+h", 1)])
    del old["meta"]["method_info"]
    assert shown_k_values(old) == [5]  # a file that does not say which methods use k
    summary_md = markdown_summary({**_doc(["j+h"], []), "summary": []})
    assert "seeds [0], k [1]," in summary_md
