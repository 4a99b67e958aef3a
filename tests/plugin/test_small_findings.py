"""Smaller things a user meets: each one's message or display, as it should read."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from pytest_revprop.cli import main as cli_main
from pytest_revprop.core.cases import select_cases
from pytest_revprop.core.registry import builtin_registry
from pytest_revprop.errors import UserError
from pytest_revprop.llm.presets import resolve_model
from pytest_revprop.reporting.aggregate import markdown_summary, shown_k_values
from pytest_revprop.run.header import header_k
from pytest_revprop.run.items import RunSettings
from pytest_revprop.run.option_source import check_ini_keys

INFO = builtin_registry().info()


def _doc(methods: list[str], rows: list[tuple[str, int]]) -> dict[str, Any]:
    meta = {"k_values": [5], "methods": methods, "seeds": [0], "split": "dev",
            "method_info": {m: INFO[m] for m in methods}}  # fmt: skip
    summary = [{"model": "m", "method": m, "k": k} for m, k in rows]
    return {"meta": meta, "summary": summary, "results": []}


def test_k_is_shown_as_the_items_have_it_not_as_the_option_gave_it() -> None:
    assert header_k(RunSettings(methods=["j+h"], k_values=[5])) == "1"
    assert header_k(RunSettings(methods=["j+h", "med"], k_values=[3, 5])) == "3,5"
    assert shown_k_values(_doc(["j+h"], [("j+h", 1)])) == [1]
    assert shown_k_values(_doc(["j+h", "maj"], [("j+h", 1), ("maj", 5)])) == [5]
    assert shown_k_values(_doc(["j+h"], [])) == [1]
    old = _doc(["j+h"], [("j+h", 1)])
    del old["meta"]["method_info"]
    assert shown_k_values(old) == [5]  # a file that does not say which methods use k
    summary_md = markdown_summary({**_doc(["j+h"], []), "summary": []})
    assert "seeds [0], k [1]," in summary_md


def test_a_size_the_split_does_not_have_is_an_error_naming_it() -> None:
    with pytest.raises(UserError) as caught:
        select_cases(None, "dev", [10, 20], None)
    message = str(caught.value)
    assert "no case of size 20" in message and "split 'dev'" in message
    assert "its sizes: 10, 50, 100" in message
    assert {c.size for c in select_cases(None, "dev", [10, 50], None)} == {10, 50}


def test_cases_of_another_split_only_get_a_hint_to_pass_the_split(tmp_path: Path) -> None:
    case = select_cases(None, "dev", [10], None)[0]
    (tmp_path / "mine.json").write_text(json.dumps(case.to_dict()))
    with pytest.raises(UserError) as caught:
        select_cases(tmp_path, "test", None, None)
    assert str(caught.value).endswith(
        "for split 'test' (the cases there are of split dev: pass --revprop-split=dev or all)"
    )
    assert len(select_cases(tmp_path, "dev", None, None)) == 1


def _help(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit):
        cli_main([*argv, "--help"])
    return capsys.readouterr().out


def test_revprop_help_lists_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["--help"]) == 0
    assert "--version" in capsys.readouterr().out


def test_subcommands_name_and_explain_their_arguments_alike(
    capsys: pytest.CaptureFixture[str],
) -> None:
    helps = {
        "validate": ("PATH", "case files, or folders searched for *.json"),
        "score": ("CASE", "one case file (JSON)"),
        "merge": ("CASE", "one case file (JSON)"),
        "report": ("RESULTS.json", "results.json written by"),
        "samples": ("FOLDER", "the run's reports folder"),
        "combine": ("DIR", "a shard's reports folder"),
    }
    for command, (name, explained) in helps.items():
        text = _help(capsys, command)
        positional = text.split("positional arguments:")[1].split("options:")[0]
        assert re.search(rf"^  {re.escape(name)}\s+{re.escape(explained)}", positional, re.M), (
            command,
            positional,
        )
        usage = text.split("\n\n")[0]
        assert not re.search(r" \[?[a-z]+\]?$|\b(results|folder|folders|paths)\b", usage), usage


def test_compare_help_lists_the_metrics_and_says_what_max_drop_is_of(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = " ".join(_help(capsys, "compare").split())
    assert "--metric {completion,pass_all_seeds,chain}" in text
    max_drop = text.split("--max-drop POINTS ")[1].split("--alpha")[0]
    assert "pass_all_seeds the share of cases passing at every seed" in max_drop


def test_score_given_a_folder_says_it_is_a_folder(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    reply = tmp_path / "reply.txt"
    reply.write_text("[]")
    assert cli_main(["score", str(tmp_path), str(reply)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"revprop score: error: case file {tmp_path}: a folder, not a case file")
    assert "no such file" not in err


def test_an_unreachable_server_is_said_once_on_one_line(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--revprop-model=openai/fake",
        "--revprop-api-base=http://127.0.0.1:9/v1", "--revprop-case=invoice-issue-date/10",
        "--revprop-seeds=0", "--revprop-no-cache",
    )  # fmt: skip
    output = result.stdout.str() + result.stderr.str()
    assert result.ret == 4
    assert output.count("model server not reachable: http://127.0.0.1:9/v1") == 1
    assert "_pytest.outcomes.Exit" not in output


def test_a_misspelt_ini_key_is_a_usage_error_naming_the_close_one(
    pytester: pytest.Pytester,
) -> None:
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--revprop-model=gold", "--revprop-plan", "-o", "revprop_sise=10"
    )  # fmt: skip
    assert result.ret == 4
    assert "unknown ini key revprop_sise: did you mean revprop_sizes?" in result.stderr.str()
    pytester.makeini("[pytest]\nrevprop_modle = gold\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == 4
    assert "unknown ini key revprop_modle: did you mean revprop_model?" in result.stderr.str()


def test_check_ini_keys_leaves_other_plugins_keys_alone() -> None:
    check_ini_keys({"timeout", "asyncio_mode"})
    with pytest.raises(UserError, match="unknown ini key revprop_zzzzzzzzzzzz: see pytest --help"):
        check_ini_keys({"revprop_zzzzzzzzzzzz"})


def test_the_unknown_model_list_shows_an_alias_beside_its_preset() -> None:
    with pytest.raises(UserError) as caught:
        resolve_model("qwen3.5-12b")
    assert "qwen3.5-122b-a10b (alias qwen3.5-122b)," in str(caught.value)
    assert ", qwen3.5-122b," not in str(caught.value) and "qwen3.5-122b)" in str(caught.value)
    interfaces = (Path(__file__).resolve().parents[2] / "docs" / "interfaces.md").read_text("utf-8")
    assert "`qwen3.5-122b-a10b` (alias `qwen3.5-122b`)" in interfaces
