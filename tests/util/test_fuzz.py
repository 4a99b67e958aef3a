"""The project's fuzz suite: property-based hostile input for every reader of
outside data, each bounded in time (per example) and memory (per target).

Strategies are structure-aware: deep nesting, large sizes, unicode with lone surrogates,
numbers at the edges, pointer syntax and regex shapes. Each target runs twice: in the quick
loop with ``QUICK`` examples and, marked slow, with ``LARGE`` (``REVPROP_FUZZ_EXAMPLES``
overrides it; CI runs the large tier again with 1,500, before the whole suite). The property everywhere: a verdict or one clear error, never another
exception, never a hang.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from helpers.handmade_cases import invoice_case
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_revprop.core.cases import Case, CaseError, load_case
from pytest_revprop.core.extraction import InvalidReply, extract_patch
from pytest_revprop.core.merge import merge_patches
from pytest_revprop.core.patching import PatchError, apply_operations, check_operations
from pytest_revprop.core.scoring import score_patch, score_reply
from pytest_revprop.errors import UserError
from pytest_revprop.reporting.sink import RecordSink
from pytest_revprop.run.option_reading import option_value
from pytest_revprop.run.options import PLUGIN_OPTIONS
from pytest_revprop.util.regexguard import (
    RegexRefused,
    compile_bounded,
    regex_budget,
    search_bounded,
)
from pytest_revprop.util.strictjson import check_value, loads_strict
from pytest_revprop.vocabulary import MERGE_RULES

QUICK = 30
LARGE = int(os.environ.get("REVPROP_FUZZ_EXAMPLES", "400"))
PER_EXAMPLE = timedelta(seconds=20)
"""Wall time per example: generous, as the machine may be shared; CPU bounds are tighter."""
MEMORY_GROWTH_BYTES = 1024 * 2**20
RUNS = [
    pytest.param(QUICK, id="quick"),
    pytest.param(LARGE, id="large", marks=pytest.mark.slow(reason=f"{LARGE} examples a target")),
]
COUNTS: dict[str, tuple[int, float]] = {}
pytestmark = pytest.mark.filterwarnings(
    # Python's re notices on hostile patterns ("[[", "--" in a set): the fuzz's input, not news
    r"ignore:Possible (nested )?set:FutureWarning"
)

# ---------------------------------------------------------------- strategies

edge_numbers = (
    st.sampled_from(
        [0, -0.0, 1e308, -1e308, 5e-324, 2**53 + 1, -(2**63), 10**300, 1.7976931348623157e308]
    )
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
)
hostile_text = st.text(
    alphabet=st.characters(codec=None, blacklist_categories=()), max_size=40
) | st.sampled_from(["\ud800", "a\udfffb", "\u2028", "\x00", "~", "~2", "/", "```", "NaN"])
pointer_tokens = st.sampled_from(["a", "0", "-", "~0", "~1", "~", "~2", "", "total", "lines", "01"])
pointers = st.lists(pointer_tokens, max_size=6).map(lambda t: "".join("/" + x for x in t)) | (
    st.sampled_from(["", "/", "//", "total", "/total~", "/total~2", "/" * 40 + "~"])
)
json_leaves = st.none() | st.booleans() | edge_numbers | hostile_text
json_values = st.recursive(
    json_leaves,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(hostile_text, inner, max_size=4),
    max_leaves=20,
)


def _nest(depth: int, leaf: str = "1") -> str:
    return "[" * depth + leaf + "]" * depth


json_texts = (
    json_values.map(lambda v: json.dumps(v, ensure_ascii=False))
    | json_values.map(json.dumps)
    | st.integers(0, 3000).map(_nest)
    | st.sampled_from(["1e400", "-1e400", "NaN", "Infinity", '{"a":1,"a":2}', '"\\ud800"',
                       "1" * 5000, '["\\udc00\\ud800"]', '{"\\n":"\\uD800"}', "[" * 10_000, '{"a":' * 2000])
    | st.text(max_size=200)
)  # fmt: skip
operations = st.fixed_dictionaries(
    {"op": st.sampled_from(["add", "remove", "replace", "move", "copy", "test", "bad"]),
     "path": pointers},
    optional={"value": json_values, "from": pointers},
)  # fmt: skip
patches = st.lists(operations, max_size=8)
regex_shapes = st.sampled_from(
    ["(a+)+$", "((a{1000}){1000}){1000}", "((a{200}){200}){200}", "(a|aa)+$", "(?i)^x",
     "[", "\\p{L}+", "(?<n>a)(?P=n)", "a{0,100000}", "(.*)*b", "x" * 3000, "^2025-06-1[0-9]$"]
) | st.text(alphabet="a()|*+?{}[]^$.\\0123,", max_size=30)  # fmt: skip
replies = (
    json_texts
    | patches.map(json.dumps)
    | patches.map(lambda p: "Here:\n```json\n" + json.dumps(p) + "\n```")
    | st.tuples(st.text(max_size=50), patches).map(lambda t: t[0] + json.dumps({"patch": t[1]}))
    | st.integers(1, 200_000).map(lambda n: "```\n" * n)
    | st.integers(1, 200_000).map(lambda n: '["[",' * n)
)

# ---------------------------------------------------------------- the harness


def fuzz(
    name: str, examples: int, strategy: st.SearchStrategy[Any], check: Callable[[Any], None]
) -> None:
    """Run ``check`` on ``examples`` inputs under the time bound per example and the memory
    bound for the whole target; note the count and time for the report."""
    tried = 0

    def body(value: Any) -> None:
        nonlocal tried
        tried += 1
        check(value)

    test = settings(
        max_examples=examples,
        deadline=PER_EXAMPLE,
        suppress_health_check=list(HealthCheck),
        database=None,
    )(given(strategy)(body))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    started = time.perf_counter()
    test()
    elapsed = time.perf_counter() - started
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
    COUNTS[name] = (tried, elapsed)
    print(f"fuzz {name}: {tried} inputs in {elapsed:.1f} s")
    assert grown < MEMORY_GROWTH_BYTES, f"{name}: memory grew {grown >> 20} MiB"


CASE = invoice_case()
CASE_DATA = CASE.to_dict()

# ---------------------------------------------------------------- targets


@pytest.mark.parametrize("examples", RUNS)
def test_fuzz_strict_reader(examples: int) -> None:
    def check(text: str) -> None:
        try:
            value = loads_strict(text)
        except ValueError:
            return
        assert check_value(value) is None
        json.dumps(value, ensure_ascii=False).encode("utf-8")  # always writable

    fuzz("strict reader", examples, json_texts, check)


@pytest.mark.parametrize("examples", RUNS)
def test_fuzz_case_loader(examples: int, tmp_path_factory: pytest.TempPathFactory) -> None:
    folder = tmp_path_factory.mktemp("cases")
    fields = st.sampled_from(["artifact", "reference", "request", "notes", "gold", "conversation"])

    def mutate(args: tuple[str, Any, str]) -> str:
        field, value, gold_path = args
        data = json.loads(json.dumps(CASE_DATA))
        if field == "gold":
            data["gold"][0]["path"] = gold_path
        else:
            data[field] = value
        return json.dumps(data)

    texts = (
        st.tuples(
            fields, json_values | st.integers(0, 800).map(lambda d: json.loads(_nest(d))), pointers
        ).map(mutate)
        | json_texts
    )

    def check(text: str) -> None:
        path = folder / "case.json"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        try:
            case = load_case(path)
        except CaseError as exc:
            assert "\n" not in str(exc) and str(exc).startswith(str(path))
            str(exc).encode("utf-8")
            return
        assert isinstance(case, Case)

    fuzz("case loader", examples, texts, check)


@pytest.mark.parametrize("examples", RUNS)
def test_fuzz_regex_guard(examples: int) -> None:
    def check(pattern: str) -> None:
        started = time.thread_time()
        with contextlib.suppress(RegexRefused):
            compile_bounded(pattern)
        with regex_budget(0.2):
            for subject in ("a" * 30 + "!", "2025-06-15", "x" * 100):
                search_bounded(pattern, subject)
        assert time.thread_time() - started < 2  # CPU seconds

    fuzz("regex guard", examples, regex_shapes, check)


@pytest.mark.parametrize("examples", RUNS)
def test_fuzz_extractor_and_scoring(examples: int) -> None:
    def check(text: str) -> None:
        try:
            patch = extract_patch(text)
        except InvalidReply as exc:
            assert exc.category in {"no_patch", "not_a_patch"} and exc.reason
            exc.reason.encode("utf-8")
            return
        assert check_value(patch) is None
        score = score_reply(CASE, text)
        json.dumps(score.to_dict(), allow_nan=False, ensure_ascii=False).encode("utf-8")

    fuzz("extractor + scoring", examples, replies, check)


@pytest.mark.parametrize("examples", RUNS)
def test_fuzz_patch_application(examples: int) -> None:
    def check(patch: list[dict[str, Any]]) -> None:
        try:
            result = apply_operations(CASE.artifact, check_operations(patch))
        except PatchError:
            return
        assert check_value(result) is None or check_value(patch) is not None
        if check_value(patch) is None:
            score = score_patch(CASE, patch)
            assert score.valid

    fuzz("patch application", examples, patches, check)


@pytest.mark.parametrize("examples", RUNS)
def test_fuzz_merge_rules(examples: int) -> None:
    samples = st.lists(st.none() | patches, min_size=1, max_size=4)

    def check(args: tuple[list[Any], str]) -> None:
        chosen, rule = args
        result = merge_patches(CASE.artifact, chosen, rule)
        if result.artifact is not None:
            assert check_value(result.artifact) is None or any(
                p is not None and check_value(p) is not None for p in chosen
            )

    fuzz("merge rules", examples, st.tuples(samples, st.sampled_from(MERGE_RULES)), check)


class _Config:
    """An OptionSource whose ini file gives ``raw`` for every option."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw
        self.inipath = Path("/nonexistent/pytest.ini")

    def getoption(self, name: str) -> Any:
        return None

    def getini(self, name: str) -> Any:
        return self.raw


@pytest.mark.parametrize("examples", RUNS)
def test_fuzz_ini_and_option_parsers(examples: int) -> None:
    values = (
        hostile_text
        | st.lists(hostile_text, max_size=3)
        | edge_numbers.map(str)
        | st.sampled_from(
            ["1" * 5000, "0\n0", "-1", "0", "nan", "inf", "1e400", "１２", " , ,", "a,,b", "\ud800"]
        )
    )

    def check(raw: Any) -> None:
        for option in PLUGIN_OPTIONS:
            try:
                option_value(_Config(raw), option.name)
            except UserError as exc:
                assert "\n" not in str(exc)
            if option.parse is not None and isinstance(raw, str):
                with contextlib.suppress(argparse.ArgumentTypeError):
                    option.parse(raw)

    fuzz("ini and option parsers", examples, values, check)


@pytest.mark.parametrize("examples", RUNS)
def test_fuzz_sink(examples: int, tmp_path_factory: pytest.TempPathFactory) -> None:
    record_values = json_values | st.sampled_from([object(), float("nan"), b"bytes", {1: 2}])
    records = st.lists(
        st.fixed_dictionaries(
            {"case": st.sampled_from(["a/10", "b/10", "c\ud800/10"]), "model": st.just("m"),
             "method": st.just("j+h"), "k": st.just(1), "seed": st.integers(0, 5),
             "completed": st.booleans(), "valid": st.booleans(), "error": st.none(),
             "miss": st.just(0), "over_edit": st.just(0), "wrong_value": st.just(0),
             "cost_usd": st.just(0.0), "latency_s": st.just(0.1), "calls": st.just(1)},
            optional={"reason": record_values, "findings": record_values,
                      "replies": st.lists(st.fixed_dictionaries({"content": hostile_text}), max_size=2)},
        ),
        min_size=1, max_size=5,
    )  # fmt: skip

    def check(batch: list[dict[str, Any]]) -> None:
        out = tmp_path_factory.mktemp("report")
        sink = RecordSink(out)
        for record in batch:
            sink.add(record)
        sink.finish({})
        rows = json.loads((out / "results.json").read_text("utf-8"))["results"]
        keys = {(r["case"], r["seed"]) for r in batch}
        assert len(rows) == len(keys) and not sink.dropped  # every item, as itself or an error

    fuzz("sink", examples, records, check)


def test_fuzz_counts_are_reported() -> None:
    """Keeps the suite honest: the harness counts what it tried."""
    fuzz("self-check", 5, st.integers(), lambda _: None)
    assert COUNTS["self-check"][0] == 5
