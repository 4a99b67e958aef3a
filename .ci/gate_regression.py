"""A deliberately broken ``jh-med`` for the gate check of .ci/run (loaded with
``--noconftest -p gate_regression`` in place of the root conftest.py's worked example).

It keeps only the first operation of the j+h revision: the requested edit without the values
that follow from it. Against the committed baseline of reports/baselines/ every sample of
``jh-med`` flips from completed to failed, and the gate must end the run with the regression
exit status (vocabulary.REGRESSION_EXIT).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_revprop.core.method_context import Answer, MethodContext
    from pytest_revprop.core.registry import MethodRegistry


async def jh_med(ctx: MethodContext) -> Answer | list[dict[str, object]]:
    answer = await ctx.revise("j+h")
    return answer if answer.patch is None else answer.patch[:1]


def pytest_revprop_methods(register: MethodRegistry) -> None:
    register("jh-med", jh_med, description="broken on purpose: the requested edit alone")
