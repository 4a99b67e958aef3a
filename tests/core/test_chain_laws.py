"""The laws of chain judging (docs/protocol.md, "Revision chains"), on random small chains
whose oracle is a tag tree edited by the patch applier, not the judge's pointer geometry
(helpers/chain_oracle.py):

1. the gold completes every chain in both protocols, with no regression;
2. in ``free``, a document that differs from the canonical one at a leaf no matcher or optional
   flag governs does not complete;
3. in ``teacher``, the teacher patch plus one change of an earlier turn's strict place that
   the turn does not govern counts exactly one regression, at that place.
"""

from __future__ import annotations

from typing import Any

from helpers.chain_oracle import draw_chain
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_revprop.core.chain import (
    canonical_after,
    judge_free,
    teacher_patch,
    teacher_view,
    turn_regressions,
)
from pytest_revprop.core.patching import apply_operations
from pytest_revprop.core.scoring import score_patch
from pytest_revprop.util.jsonutil import is_within, iter_leaves, resolve

EXAMPLES = settings(max_examples=150, deadline=None)


def _changed(value: Any) -> Any:
    return value + 1000 if isinstance(value, int) else f"{value}, changed"


@EXAMPLES
@given(st.data(), st.integers(1, 4))
def test_the_gold_completes_every_chain_in_both_protocols(data: st.DataObject, turns: int) -> None:
    chain = draw_chain(data, turns)
    case = chain.case
    for i in range(turns):
        after = canonical_after(case, i)
        assert judge_free(case, i, after).completed, f"free, turn {i}"
        patch = teacher_patch(case, i)
        assert score_patch(teacher_view(case, i), patch).completed, f"teacher, turn {i}"
        start = case.artifact if i == 0 else canonical_after(case, i - 1)
        assert turn_regressions(case, i, start, patch) == [], f"regressions, turn {i}"


@EXAMPLES
@given(st.data(), st.integers(1, 4))
def test_free_fails_a_document_changed_where_no_matcher_or_option_governs(
    data: st.DataObject, turns: int
) -> None:
    chain = draw_chain(data, turns)
    i = data.draw(st.integers(0, turns - 1), label="turn")
    after = canonical_after(chain.case, i)
    strict = [p for p, tag in iter_leaves(chain.tags[i]) if not str(tag).startswith("S")]
    pointer = data.draw(st.sampled_from(strict), label="leaf")
    document = _set(after, pointer, _changed(resolve(after, pointer)))
    score = judge_free(chain.case, i, document)
    assert not score.completed, (pointer, chain.tags[i])


@EXAMPLES
@given(st.data(), st.integers(2, 4))
def test_teacher_counts_one_regression_where_an_earlier_strict_place_is_broken(
    data: st.DataObject, turns: int
) -> None:
    chain = draw_chain(data, turns)
    case = chain.case
    i = data.draw(st.integers(1, turns - 1), label="turn")
    after = canonical_after(case, i)
    earlier = {f"T{t}" for t in range(i)}
    leaves = [p for p, tag in iter_leaves(chain.tags[i]) if tag in earlier]
    if not leaves:
        return
    pointer = data.draw(st.sampled_from(leaves), label="leaf")
    broke = [
        *teacher_patch(case, i),
        {"op": "replace", "path": pointer, "value": _changed(resolve(after, pointer))},
    ]
    found = turn_regressions(case, i, canonical_after(case, i - 1), broke)
    assert len(found) == 1 and is_within(pointer, found[0]), (pointer, found)


def _set(doc: Any, pointer: str, value: Any) -> Any:
    return apply_operations(doc, [{"op": "replace", "path": pointer, "value": value}])


@EXAMPLES
@given(st.data(), st.integers(2, 4))
def test_a_patch_that_changes_nothing_breaks_nothing(data: st.DataObject, turns: int) -> None:
    # a noop in free starts each turn from whatever document it has: no start document makes
    # an empty patch break an earlier place (it may miss the turn, never regress)
    chain = draw_chain(data, turns)
    i = data.draw(st.integers(1, turns - 1), label="turn")
    start = data.draw(
        st.sampled_from([chain.case.artifact, *(canonical_after(chain.case, j) for j in range(i))]),
        label="start",
    )
    assert turn_regressions(chain.case, i, start, []) == []
