"""A run's scope, from its option values: its shard, its spending ceiling and whether it only
estimates (``--revprop-plan``); and what the controller tallies against the ceiling as the run
goes. No pytest here: the plan holds one frozen ``RunScope`` and asks it for the cases of its
shard, the meta its results carry and the summary's line of a run the ceiling cut; the
controller keeps a ``SpendingTally``. docs/scale-out.md shows them at work.
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
from pytest_revprop.run.items import ItemSpec, RunSettings
from pytest_revprop.run.runner import Runner
from pytest_revprop.run.sharding import (
    AUTO,
    Shard,
    cases_digest,
    shard_case_ids,
    shard_from_environment,
)


@dataclass(frozen=True)
class RunScope:
    """What part of the run this process runs and within what budget: ``shard`` (None: every
    case), the digest of the selected cases, ``estimate_only`` (``--revprop-plan``: nothing is
    sent, the terminal prints the estimate) and the run's spending ceiling (None: none)."""

    shard: Shard | None = None
    cases_sha256: str = ""
    estimate_only: bool = False
    max_cost_usd: float | None = None

    def meta(self, spent_usd: float, cut_items: int = 0) -> dict[str, Any]:
        """The results' meta fields of the scope (``cases_sha256``, and ``shard`` and ``cut``
        when they apply); ``cut_items`` are the items the ceiling left unrun."""
        meta: dict[str, Any] = {"cases_sha256": self.cases_sha256}
        if self.shard is not None:
            meta["shard"] = self.shard.to_dict()
        if cut_items:
            meta["cut"] = {
                "max_cost_usd": self.max_cost_usd,
                "spent_usd": spent_usd,
                "items_not_run": cut_items,
            }
        return meta

    def cut_line(self, spent_usd: float, cut_items: int) -> str:
        """The summary's first line of a run the ceiling cut."""
        return (
            f"revprop: run cut by --revprop-max-cost={self.max_cost_usd or 0.0:.4f} USD: "
            f"{spent_usd:.4f} USD spent, {cut_items} items not run (skipped): a call "
            "starts only while what is spent plus its worst case (its whole prompt and all its "
            "output tokens) fits under the ceiling; a rerun goes on from the cache"
        )

    def ceiling_share(self, processes: int) -> float | None:
        """The spending ceiling of one of ``processes`` that run items side by side (xdist
        workers), so that together they stay within the run's; None without a ceiling."""
        if self.max_cost_usd is None:
            return None
        return self.max_cost_usd / max(processes, 1)

    def estimate_lines(
        self,
        cases: Sequence[Case],
        models: Sequence[ModelConfig],
        settings: RunSettings,
        specs: Sequence[ItemSpec],
    ) -> list[str]:
        """The estimate of the items ``specs`` (``run.estimate``), as the terminal prints it."""
        from pytest_revprop.run.estimate import estimate_lines, estimate_run

        return estimate_lines(estimate_run(cases, models, settings, specs), shard=self.shard)


@dataclass
class SpendingTally:
    """What a run spent and what its ceiling cut, as the process that writes the reports
    learns it: each xdist worker's spending (from its output at the end), and the items the
    ceiling left unrun (from their reports)."""

    worker_spent: dict[str, float] = field(default_factory=dict)
    cut_items: int = 0

    def note_worker(self, worker: str, spent_usd: float) -> None:
        """Keep what xdist worker ``worker`` spent (its last word counts)."""
        self.worker_spent[worker] = spent_usd

    def note_cut(self) -> None:
        """Count one item the ceiling left unrun."""
        self.cut_items += 1

    def spent_usd(self, runner: Runner | None) -> float:
        """What the run's calls cost (cached replies are free): the xdist workers' together,
        else this process's ``runner``'s."""
        if self.worker_spent:
            return sum(self.worker_spent.values())
        return 0.0 if runner is None else runner.ceiling.spent_usd


def run_scope(
    cases: Sequence[Case],
    models: Sequence[ModelConfig],
    settings: RunSettings,
    opt: Any,
    label: Any,
    *,
    environ: Mapping[str, str] | None = None,
) -> tuple[list[Case], RunScope]:
    """The cases of the run's shard and its scope, from the option values (``opt(name)``;
    ``label(name)`` names an option in messages). Checks that a ceiling's models are priced
    and that a shard gets cases; ``environ`` is where an automatic shard is read from."""
    environ = os.environ if environ is None else environ
    max_cost_usd = opt("revprop_max_cost")
    if max_cost_usd is not None:
        for model in models:
            if model.kind != "reference":
                require_prices(model, label("revprop_max_cost"))
        require_room(models, max_cost_usd, label("revprop_max_cost"))
    given = opt("revprop_shard")
    if given == AUTO:
        given = shard_from_environment(environ, label("revprop_shard"))
    scope = RunScope(
        shard=given,
        cases_sha256=cases_digest(cases, followups=settings.protocol.chained),
        estimate_only=bool(opt("revprop_plan")),
        max_cost_usd=max_cost_usd,
    )
    if given is None:
        return list(cases), scope
    return shard_cases(cases, models, settings, given), scope


def shard_cases(
    cases: Sequence[Case], models: Sequence[ModelConfig], settings: RunSettings, shard: Shard
) -> list[Case]:
    """The cases of ``shard`` (``sharding``, weighed by ``estimate.expected_calls``);
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
