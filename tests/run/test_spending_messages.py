"""What a user reads about spending: a ceiling no call fits under is refused before the run
with both figures, a cut run says why, the prices hint is TOML that loads, and an unpriced
model's plan says "unpriced" instead of a made-up $0."""

from __future__ import annotations

import asyncio
import tomllib
from pathlib import Path

import pytest

from pytest_revprop.core.cases import select_cases
from pytest_revprop.errors import UserError
from pytest_revprop.llm.budget import (
    BudgetReached,
    Ceiling,
    least_worst_case_usd,
    require_prices,
    require_room,
    toml_key,
)
from pytest_revprop.llm.presets import resolve_model
from pytest_revprop.run.estimate import estimate_lines, estimate_run
from pytest_revprop.run.items import RunSettings, item_specs
from pytest_revprop.run.scope import RunScope

PRICED = resolve_model("openai/fake", api_bases=["http://127.0.0.1:9/v1"]).replace(
    price_in=1.0, price_out=2.0
)
UNPRICED = PRICED.replace(price_in=0.0, price_out=0.0)


def test_a_ceiling_below_one_calls_worst_case_is_refused_naming_both_figures() -> None:
    floor = least_worst_case_usd(PRICED)
    assert floor == pytest.approx(PRICED.max_tokens * 2.0 / 1e6)
    with pytest.raises(UserError) as caught:
        require_room([PRICED], 0.05, "--revprop-max-cost")
    message = str(caught.value)
    assert "--revprop-max-cost=0.05 USD is below one call's worst case" in message
    assert f"${floor:.4f}" in message and f"{PRICED.max_tokens:,} output tokens" in message
    assert "\n" not in message
    require_room([PRICED], floor, "--revprop-max-cost")
    # shared by xdist workers, each one's share must hold a call
    with pytest.raises(UserError, match=r"for each of 4 workers"):
        require_room([PRICED], floor * 2, "--revprop-max-cost", workers=4)
    # a reference solver makes no call
    require_room([resolve_model("gold")], 0.0, "--revprop-max-cost")


def test_a_refused_calls_reason_names_the_ceiling_the_spending_and_the_worst_case() -> None:
    async def go() -> str:
        ceiling = Ceiling(0.10, name="--revprop-max-cost")
        hold = await ceiling.reserve(0.06)
        ceiling.settle(hold, 0.032)
        with pytest.raises(BudgetReached) as caught:
            await ceiling.reserve(0.0696)
        return str(caught.value)

    reason = asyncio.run(go())
    assert "--revprop-max-cost budget of $0.1000" in reason and "$0.0320 spent" in reason
    assert "up to $0.0696 (its worst case: its whole prompt and all its output tokens)" in reason


def test_the_cut_line_says_why_the_run_stopped_before_the_ceiling() -> None:
    line = RunScope(max_cost_usd=0.1).cut_line(0.032, 3)
    assert line.startswith("revprop: run cut by --revprop-max-cost=0.1000 USD: 0.0320 USD spent")
    assert "plus its worst case" in line and "3 items not run" in line


@pytest.mark.parametrize("name", ["openai/fake", "my-model", "vendor.model:7b"])
def test_the_missing_prices_hint_is_toml_that_loads(name: str) -> None:
    with pytest.raises(UserError) as caught:
        require_prices(UNPRICED.replace(name=name), "--revprop-max-cost")
    text = str(caught.value)
    line = text[text.index("[tool.revprop.prices] ") :].split(" in pyproject.toml")[0]
    table, entry = line.split("] ", 1)
    toml = f"{table}]\n{entry.replace('[USD per 1M input tokens, USD per 1M output tokens]', '[1.0, 2.0]')}"
    assert tomllib.loads(toml)["tool"]["revprop"]["prices"] == {name: [1.0, 2.0]}
    assert toml_key("plain_name-1") == "plain_name-1"


def _plan_total(model_list: list) -> str:  # type: ignore[type-arg]
    cases = select_cases(None, "dev", [10], None)[:1]
    settings = RunSettings(methods=["j+h"], k_values=[1], seeds=[0])
    specs = item_specs(cases, model_list, settings)
    return estimate_lines(estimate_run(cases, model_list, settings, specs))[-1]


def test_an_unpriced_models_plan_says_unpriced_never_zero_dollars() -> None:
    total = _plan_total([UNPRICED])
    assert total == "total: 1 calls to send, cost unpriced (openai/fake has no prices)"
    assert "$0.0000" not in total
    priced = _plan_total([PRICED])
    assert priced.startswith("total: 1 calls to send, $0.0") and "unpriced" not in priced
    both = _plan_total([PRICED, UNPRICED.replace(name="other")])
    assert "plus the unpriced calls of other" in both
    assert _plan_total([resolve_model("gold")]) == "total: 0 calls to send, $0.0000 to $0.0000"


def test_the_plugin_refuses_a_ceiling_no_call_fits_before_any_request(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pytester.makepyprojecttoml('[tool.revprop.prices]\n"openai/fake" = [1.0, 2.0]\n')
    result = pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "--revprop-model=openai/fake",
        "--revprop-api-base=http://127.0.0.1:9/v1",
        "--revprop-case=invoice-issue-date/10",
        "--revprop-max-cost=0.05",
        "--revprop-seeds=0",
    )
    assert result.ret == 4
    assert "--revprop-max-cost=0.05 USD is below one call's worst case on openai/fake" in str(
        result.stderr
    )
