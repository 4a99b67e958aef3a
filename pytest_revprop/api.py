"""The public API: what a revision method, a model preset and a results hook are written
against (docs/hooks.md). These names are **fixed** (docs/interfaces.md): they may gain
siblings but keep their spelling and meaning; everything else in the package is internal.

A ``conftest.py`` or plugin imports from here only::

    from pytest_revprop.api import MethodContext, Outcome, RegisterMethod

    async def jh_med(ctx: MethodContext) -> Outcome:
        answers = await ctx.gather(ctx.revise("j"), ctx.revise("h"), ctx.revise("j+h"))
        return ctx.merge(answers, "med")

    def pytest_revprop_methods(register: RegisterMethod) -> None:
        register("jh-med", jh_med, description="the medoid of j, h and j+h")

**Methods.** A method is an async function of one :class:`MethodContext` (a
:data:`MethodFunction`) that returns a patch, an :class:`Answer` or an :class:`Outcome`.
``ctx.ask(messages, role=...)`` names each model call by a :data:`CallRole`
(:data:`CALL_ROLES`): ``sample`` (a revision, the default), ``select``, ``reflect`` or ``map``.
The role picks what a reference solver answers (:data:`REFERENCE_ANSWERS`) and whether a
structured-output run asks for a patch object (every role but ``map``). An Outcome's
``error`` is an :data:`OutcomeError` (:data:`OUTCOME_ERRORS`). ``ctx.prompts`` renders the
templates named in :data:`TEMPLATE_NAMES`.

**Model presets.** ``pytest_revprop_models(register)`` gets a :class:`RegisterModel`; it
takes a :class:`ModelConfig`.

**Results.** ``pytest_revprop_results(summary, records, config)`` gets the
:class:`SummaryRow` rows of results.json and every item's :class:`ResultRecord`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from pytest_revprop.core.askers import REFERENCE_ANSWERS, REFERENCE_SOLVERS
from pytest_revprop.core.cases import Case
from pytest_revprop.core.method_context import Answer, Call, Message, MethodContext
from pytest_revprop.core.outcome import Outcome, Patch
from pytest_revprop.core.prompts import TEMPLATE_NAMES, Prompts
from pytest_revprop.core.registry import MethodFunction, MethodSpec
from pytest_revprop.llm.presets import ModelConfig
from pytest_revprop.llm.types import Reply
from pytest_revprop.vocabulary import (
    CALL_ROLES,
    MERGE_RULES,
    OUTCOME_ERRORS,
    REVISION_CONTEXTS,
    CallRole,
    MergeRule,
    OutcomeError,
    ResultRecord,
    RevisionContext,
    SummaryRow,
)


class RegisterMethod(Protocol):
    """What ``pytest_revprop_methods(register)`` receives: ``register(name, function,
    uses_k=False, min_k=1, description="")`` or ``register(MethodSpec(...))``.

    ``uses_k``: the method gets one item per k of the run (``ctx.k`` says which), else one
    with k=1; ``min_k``: no item below it. A name already taken, a bad name or a function
    that is not ``async def`` is a usage error naming the method."""

    def __call__(
        self,
        method: str | MethodSpec,
        run: MethodFunction | None = None,
        *,
        uses_k: bool = False,
        min_k: int = 1,
        description: str = "",
    ) -> MethodSpec: ...


class RegisterModel(Protocol):
    """What ``pytest_revprop_models(register)`` receives: ``register(ModelConfig(...))``; a
    shipped preset's name or one taken already is a usage error."""

    def __call__(self, config: ModelConfig) -> ModelConfig: ...


if TYPE_CHECKING:  # mypy holds the registries to what these protocols promise
    from pytest_revprop.core.registry import MethodRegistry
    from pytest_revprop.llm.presets import PresetRegistry

    _methods: RegisterMethod = MethodRegistry().register
    _models: RegisterModel = PresetRegistry().register


__all__ = [
    "CALL_ROLES",
    "MERGE_RULES",
    "OUTCOME_ERRORS",
    "REFERENCE_ANSWERS",
    "REFERENCE_SOLVERS",
    "REVISION_CONTEXTS",
    "TEMPLATE_NAMES",
    "Answer",
    "Call",
    "CallRole",
    "Case",
    "MergeRule",
    "Message",
    "MethodContext",
    "MethodFunction",
    "MethodSpec",
    "ModelConfig",
    "Outcome",
    "OutcomeError",
    "Patch",
    "Prompts",
    "RegisterMethod",
    "RegisterModel",
    "Reply",
    "ResultRecord",
    "RevisionContext",
    "SummaryRow",
]
