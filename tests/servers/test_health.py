"""The check before a run: a server that answers at the wrong path, or does not serve the
model name the run will ask for, stops the run in one line before the first call."""

from __future__ import annotations

import pytest

from pytest_revprop.errors import UserError
from pytest_revprop.llm.presets import resolve_model
from pytest_revprop.servers.health import check_servers
from pytest_revprop.servers.startup import check_model_servers, served_model_name
from pytest_revprop.testing.fakeserver import FakeServer


@pytest.fixture(scope="module")
def named_server() -> object:
    with FakeServer(model_names=["fake"]) as server:
        yield server


def test_a_base_without_v1_is_refused_with_the_base_to_use(named_server) -> None:
    root = named_server.base_url.removesuffix("/v1")
    with pytest.raises(UserError) as caught:
        check_servers([root])
    message = str(caught.value)
    assert f"API base {root}:" in message and "HTTP 404" in message
    assert f"({root}/v1)" in message and "\n" not in message


def test_a_model_list_without_the_name_is_refused_naming_the_served_ones(named_server) -> None:
    base = named_server.base_url
    check_servers([base], served={base: ["fake"]})
    with pytest.raises(UserError) as caught:
        check_servers([base], served={base: ["fak"]})
    assert str(caught.value).startswith(f"API base {base} serves 'fake', not 'fak'")


def test_a_server_that_lists_no_model_answers_any_name() -> None:
    with FakeServer() as server:
        check_servers([server.base_url], served={server.base_url: ["anything"]})


def test_the_run_checks_the_names_its_calls_carry(named_server) -> None:
    base = named_server.base_url
    wrong = resolve_model("openai/fak").replace(api_bases=(base,))
    right = resolve_model("openai/fake").replace(api_bases=(base,))
    assert served_model_name(wrong) == "fak" and served_model_name(resolve_model("gold")) == ""
    check_model_servers([right, resolve_model("gold")])
    with pytest.raises(UserError, match="serves 'fake', not 'fak'"):
        check_model_servers([right, wrong])


@pytest.mark.parametrize(
    ("base", "model", "message"),
    [
        ("root", "openai/fake", "*API base http://127.0.0.1:*: GET *HTTP 404*ends in /v1*"),
        ("v1", "openai/fak", "*serves 'fake', not 'fak'*"),
    ],
)
def test_a_run_against_a_wrong_endpoint_stops_before_its_first_item(
    pytester: pytest.Pytester, named_server, base: str, model: str, message: str
) -> None:
    before = named_server.app.state.count
    url = named_server.base_url if base == "v1" else named_server.base_url.removesuffix("/v1")
    result = pytester.runpytest(
        f"--revprop-model={model}", f"--revprop-api-base={url}", "--revprop-split=dev",
        "--revprop-case=invoice-issue-date/10", "--revprop-seeds=0", "--revprop-no-cache",
        f"--revprop-report={pytester.path / 'reports'}",
    )  # fmt: skip
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert "Traceback" not in result.stderr.str() + result.stdout.str()
    assert named_server.app.state.count == before  # not one request sent
