"""The slow marker's check (tests/helpers/spawn_check.py): a test that starts a process must be marked
slow, and a test marked slow must start one or say why it is slow."""

from __future__ import annotations

import pytest
from helpers.spawn_check import spawn_mismatch

STARTED = ["subprocess true at test_x.py:3"]


def test_an_unmarked_test_that_starts_nothing_is_fine() -> None:
    assert spawn_mismatch(None, [], None) is None


def test_an_unmarked_test_that_starts_a_process_names_it_and_how_many_more() -> None:
    problem = spawn_mismatch(None, [*STARTED, "os.system true at test_x.py:4"], None)
    assert problem is not None
    assert problem.startswith("this test starts a process but is not marked slow: ")
    assert "subprocess true at test_x.py:3 (and 1 more)" in problem


def test_an_unmarked_test_whose_fixture_started_a_process_names_the_fixture() -> None:
    problem = spawn_mismatch(None, [], "subprocess true at test_x.py:3 (fixture server)")
    assert problem is not None and "(fixture server)" in problem


@pytest.mark.parametrize(("started", "through"), [(STARTED, None), ([], "x (fixture server)")])
def test_a_slow_test_that_starts_a_process_itself_or_through_a_fixture_is_fine(
    started: list[str], through: str | None
) -> None:
    assert spawn_mismatch(pytest.mark.slow.mark, started, through) is None


def test_a_slow_test_that_starts_nothing_is_told_to_drop_the_marker_or_give_a_reason() -> None:
    problem = spawn_mismatch(pytest.mark.slow.mark, [], None)
    assert problem is not None and "marked slow but started no process" in problem
    assert spawn_mismatch(pytest.mark.slow(reason="many examples").mark, [], None) is None


INNER = """
import asyncio, os, subprocess, sys
import pytest

@pytest.fixture(scope="module")
def server():
    subprocess.run(["true"], check=True)

def test_unmarked_run():
    subprocess.run(["true"], check=True)

def test_unmarked_asyncio():
    async def go():
        child = await asyncio.create_subprocess_exec("true")
        await child.wait()
    asyncio.run(go())

def test_unmarked_through_a_fixture(server):
    pass

def test_unmarked_after_the_fixture_started(server):
    pass

@pytest.mark.slow
def test_marked_system():
    assert os.system("true") == 0

@pytest.mark.slow
def test_marked_starting_nothing():
    pass

@pytest.mark.slow(reason="many examples")
def test_marked_with_a_reason():
    pass

def test_plain():
    pass

@pytest.mark.slow
def test_failing_on_its_own():
    assert 1 == 2
"""


@pytest.mark.slow
def test_the_check_fails_each_mismatch_in_a_run_naming_the_start(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_inner=INNER)
    recorder = pytester.inline_run("-p", "helpers.spawn_check", "-p", "no:cacheprovider")
    recorder.assertoutcome(passed=3, failed=6)
    failed = {r.nodeid.split("::")[1]: str(r.longrepr) for r in recorder.getfailures()}
    assert set(failed) == {
        "test_unmarked_run",
        "test_unmarked_asyncio",
        "test_unmarked_through_a_fixture",
        "test_unmarked_after_the_fixture_started",
        "test_marked_starting_nothing",
        "test_failing_on_its_own",
    }
    unmarked = (
        "this test starts a process but is not marked slow: subprocess true at test_inner.py:"
    )
    assert failed["test_unmarked_run"].startswith(unmarked + "9;")
    assert failed["test_unmarked_asyncio"].startswith(unmarked + "13;")
    assert failed["test_unmarked_through_a_fixture"].startswith(unmarked + "6;")
    assert failed["test_unmarked_after_the_fixture_started"].startswith(
        unmarked + "6 (fixture server);"
    )
    assert "marked slow but started no process" in failed["test_marked_starting_nothing"]
    assert "assert 1 == 2" in failed["test_failing_on_its_own"]
