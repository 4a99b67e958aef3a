"""The repository's root conftest.py: what tests/ and benchmarks/ share, and the worked
example of registering a revision method (docs/hooks.md, "Your own method").

The example, ``jh-med``, asks for the three single-context revisions of a case at the base
seed (artifact only, conversation only, both) and keeps the medoid: the one that disagrees
least with the other two. Its three calls are exactly those of the built-in ``j``, ``h`` and
``j+h`` at the same seed, so a run that has those already pays nothing more for it (the
response cache answers). Run it like any method::

    pytest --revprop-model=gold --revprop-method=jh-med,j+h --revprop-split=dev

It imports only the public API, ``pytest_revprop.api``, as every method written outside the
package should. The shared test fixtures (fake servers, quick retries) live in tests/conftest.py: the
benchmarks start their servers themselves and use none of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: a plain pytest run of tests/ need not import the core
    from pytest_revprop.api import MethodContext, Outcome, RegisterMethod


async def jh_med(ctx: MethodContext) -> Outcome:
    """Best of j, h and j+h by med: the three revisions at the base seed, run together (on
    the critical path they count as the slowest), then the medoid of the valid ones."""
    answers = await ctx.gather(ctx.revise("j"), ctx.revise("h"), ctx.revise("j+h"))
    return ctx.merge(answers, "med")


def pytest_revprop_methods(register: RegisterMethod) -> None:
    register(
        "jh-med",
        jh_med,
        description="the medoid of the j, h and j+h revisions at the base seed (3 calls)",
    )
