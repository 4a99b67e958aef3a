"""The example of docs/hooks.md ("Testing your method offline"), as a user would copy it: a
method registered in a conftest.py that imports only ``pytest_revprop.api``, run by pytest
against the fake OpenAI-compatible server of ``pytest_revprop.testing`` with scripted
replies by ``run_revprop``, and checked through the results and what the server received.
Everything below the line that says so is the block docs/hooks.md shows (tests/test_hooks_doc.py).
"""

from __future__ import annotations

import pytest

from pytest_revprop.testing import FakeServer, run_revprop

# docs/hooks.md shows the rest of this file.

USER_CONFTEST = """
from pytest_revprop.api import Answer, MethodContext, RegisterMethod


async def second_opinion(ctx: MethodContext) -> Answer:
    # j+h at the base seed; when it changes nothing, ask again with the artifact only
    first = await ctx.revise("j+h")
    if first.patch:
        return first
    return await ctx.revise("j", seed=ctx.seed + 1)


def pytest_revprop_methods(register: RegisterMethod) -> None:
    register("second-opinion", second_opinion, description="j+h, then j if it changes nothing")
"""


def test_second_opinion_asks_again_when_the_first_reply_changes_nothing(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(USER_CONFTEST)
    # Scripted replies: at seed 0 the model proposes no change; any other call gets prose.
    replies = {"rules": [{"seed": 0, "content": "[]"}], "default": {"content": "Not sure."}}
    with FakeServer(**replies) as server:
        run = run_revprop(
            pytester, server,
            "--revprop-method=second-opinion", "--revprop-case=bom-production-start/10",
            "--revprop-seeds=0",
        )  # fmt: skip
    assert run.outcomes == {"failed": 1}  # the second reply has no patch: not completed
    (row,) = run.results
    assert (row["method"], row["calls"], row["error"]) == ("second-opinion", 2, "no_patch")
    first, second = run.requests  # what the server received, in order
    assert (first["seed"], second["seed"]) == (0, 1)
    assert "--- Turn" in first["messages"][-1]["content"]  # j+h shows the conversation
    assert "--- Turn" not in second["messages"][-1]["content"]  # j: the artifact only
