"""A run's scale-out settings, from its option values: its shard, its spending ceiling and
whether it only plans. No pytest here: the session keeps one ``RunScope`` and asks it for the
cases of its shard, the meta its results carry, the summary's first line and the exit status
of a run the ceiling cut. docs/scale-out.md shows them at work.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_revprop.core.cases import Case
from pytest_revprop.errors import UserError
from pytest_revprop.llm.budget import require_prices, require_room
from pytest_revprop.llm.presets import ModelConfig
from pytest_revprop.run.runner import ItemSpec, Runner, RunSettings
from pytest_revprop.run.sharding import (
    AUTO,
    Shard,
    cases_digest,
    shard_case_ids,
    shard_from_environment,
)
from pytest_revprop.vocabulary import CUT_EXIT, PYTEST_UNFINISHED_EXITS


@dataclass
class RunScope:
    """What part of the run this process runs and within what budget. ``cut_items``: items
    the ceiling left unrun; ``worker_spent``: each xdist worker's spending, from its output."""

    shard: Shard | None = None
    cases_sha256: str = ""
    plan: bool = False
    max_cost_usd: float | None = None
    cut_items: int = 0
    worker_spent: dict[str, float] = field(default_factory=dict)

    def meta(self, spent_usd: float) -> dict[str, Any]:
        """The results' meta fields of the scope (``cases_sha256``, and ``shard`` and ``cut``
        when they apply)."""
        meta: dict[str, Any] = {"cases_sha256": self.cases_sha256}
        if self.shard is not None:
            meta["shard"] = self.shard.to_dict()
        if self.cut_items:
            meta["cut"] = {
                "max_cost_usd": self.max_cost_usd,
                "spent_usd": spent_usd,
                "items_not_run": self.cut_items,
            }
        return meta

    def spent_usd(self, runner: Runner | None) -> float:
        """What the run's calls cost (cached replies are free): the xdist workers' together,
        else this process's ``runner``'s."""
        if self.worker_spent:
            return sum(self.worker_spent.values())
        return 0.0 if runner is None else runner.ceiling.spent_usd

    def cut_line(self, spent_usd: float) -> str:
        """The summary's first line of a run the ceiling cut."""
        return (
            f"revprop: run cut by --revprop-max-cost={self.max_cost_usd or 0.0:.4f} USD: "
            f"{spent_usd:.4f} USD spent, {self.cut_items} items not run (skipped): a call "
            "starts only while what is spent plus its worst case (its whole prompt and all its "
            "output tokens) fits under the ceiling; a rerun goes on from the cache"
        )

    def plan_lines(
        self,
        cases: Sequence[Case],
        models: Sequence[ModelConfig],
        settings: RunSettings,
        specs: Sequence[ItemSpec],
    ) -> list[str]:
        """The plan of the items ``specs`` (``planning``), as the terminal prints it."""
        from pytest_revprop.run.estimate import plan_lines, plan_run

        return plan_lines(plan_run(cases, models, settings, specs), shard=self.shard)

    def exit_status(self, status: int) -> int:
        """``status`` with ``CUT_EXIT`` ORed in when the ceiling cut the run (pytest's
        interrupted, internal, usage and no-tests statuses stand)."""
        if not self.cut_items or status in PYTEST_UNFINISHED_EXITS:
            return status
        return int(status) | CUT_EXIT


def run_scope(
    cases: Sequence[Case],
    models: Sequence[ModelConfig],
    settings: RunSettings,
    opt: Any,
    label: Any,
    *,
    environ: Mapping[str, str] | None = None,
    worker: bool = False,
) -> tuple[list[Case], RunScope]:
    """The cases this process runs and its scope, from the option values (``opt(name)``;
    ``label(name)`` names an option in messages). Checks that a ceiling's models are priced
    and that a shard gets cases; an xdist ``worker`` keeps its share of the ceiling in
    ``settings`` (one of PYTEST_XDIST_WORKER_COUNT), so that together they stay within it."""
    environ = os.environ if environ is None else environ
    workers = int(environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1) if worker else 1
    scope = RunScope(
        cases_sha256=cases_digest(cases),
        plan=bool(opt("revprop_plan")),
        max_cost_usd=opt("revprop_max_cost"),
    )
    if scope.max_cost_usd is not None:
        for model in models:
            if model.kind != "reference":
                require_prices(model, label("revprop_max_cost"))
        require_room(models, scope.max_cost_usd, label("revprop_max_cost"), workers=workers)
        settings.max_cost_usd = scope.max_cost_usd / max(workers, 1)
    given = opt("revprop_shard")
    if given == AUTO:
        given = shard_from_environment(environ, label("revprop_shard"))
    if given is None:
        return list(cases), scope
    scope.shard = given
    return shard_cases(cases, models, settings, given), scope


def shard_cases(
    cases: Sequence[Case], models: Sequence[ModelConfig], settings: RunSettings, shard: Shard
) -> list[Case]:
    """The cases of ``shard`` (``sharding``, weighed by ``planning.expected_calls``);
    UserError when it gets none."""
    from pytest_revprop.run.estimate import expected_calls

    weights = expected_calls(cases, models, settings)
    mine = set(shard_case_ids(weights, {c.id: c.size for c in cases}, shard))
    if not mine:
        raise UserError(
            f"shard {shard} has no case: the run selects {len(cases)} case(s), so use at "
            f"most {len(cases)} shards"
        )
    return [case for case in cases if case.id in mine]
