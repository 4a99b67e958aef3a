"""options.py: each value parser returns its value or names what it parses and what is wrong;
each plugin option is read from the command line, else its ini key, else its default."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_revprop.errors import UserError
from pytest_revprop.run.option_source import option_label, option_value
from pytest_revprop.run.options import (
    PLUGIN_OPTIONS,
    parse_alpha,
    parse_api_bases,
    parse_concurrency,
    parse_existing_dir,
    parse_existing_path,
    parse_gpus_per_replica,
    parse_k_values,
    parse_max_drop,
    parse_methods,
    parse_models,
    parse_path,
    parse_port,
    parse_replicas,
    parse_retries,
    parse_seconds,
    parse_seeds,
    parse_sizes,
    parse_split,
    parse_transport,
)


@pytest.mark.parametrize(
    ("parse", "text", "expected"),
    [
        (parse_models, "gold, noop,,direct-only ", ["gold", "noop", "direct-only"]),
        (parse_api_bases, "http://a:1/v1,http://b:2/v1", ["http://a:1/v1", "http://b:2/v1"]),
        (parse_methods, "j+h,all", ["j+h", "all"]),
        (parse_split, "dev", "dev"),
        (parse_transport, "direct", "direct"),
        (parse_path, "reports/run 1", Path("reports/run 1")),
        (parse_k_values, "1,5, 9", [1, 5, 9]),
        (parse_seeds, "0,42", [0, 42]),
        (parse_sizes, "10,50", [10, 50]),
        (parse_concurrency, "32", 32),
        (parse_retries, "1", 1),
        (parse_gpus_per_replica, "4", 4),
        (parse_replicas, "2", 2),
        (parse_port, "65535", 65535),
        (parse_seconds, "0", 0.0),
        (parse_seconds, "0.5", 0.5),
        (parse_max_drop, "2", 2.0),
        (parse_alpha, "1", 1.0),
        (parse_alpha, "0.05", 0.05),
    ],
)
def test_a_good_value_parses_to_its_value(
    parse: Callable[[str], Any], text: str, expected: object
) -> None:
    assert parse(text) == expected


@pytest.mark.parametrize(
    ("parse", "text", "message"),
    [
        (parse_models, " , ", "models must be a comma-separated list, got ' , '"),
        (parse_api_bases, ",", "API bases must be a comma-separated list, got ','"),
        (parse_methods, "j,fa st", "method names use letters, digits and _ . + -, got 'fa st'"),
        (parse_split, "train", "split must be dev, test or all, got 'train'"),
        (parse_transport, "http", "transport must be litellm or direct, got 'http'"),
        (parse_path, " ", "path must not be empty"),
        (parse_k_values, "0", "k must be >= 1, got 0"),
        (parse_k_values, "5,x", "k must be whole numbers, got 'x'"),
        (parse_seeds, "1,-1", "seeds must be >= 0, got -1"),
        (parse_seeds, "1,x", "seeds must be whole numbers, got 'x'"),
        (parse_sizes, "0", "sizes must be >= 1, got 0"),
        (parse_sizes, "10,1.5", "sizes must be whole numbers, got '1.5'"),
        (parse_concurrency, "-3", "concurrency must be >= 1, got -3"),
        (parse_concurrency, "3,4", "concurrency must be a whole number, got '3,4'"),
        (parse_retries, "0", "retries must be >= 1, got 0"),
        (parse_gpus_per_replica, "0", "GPUs per replica must be >= 1, got 0"),
        (parse_replicas, "x", "replicas must be a whole number, got 'x'"),
        (parse_port, "0", "port must be >= 1, got 0"),
        (parse_port, "70000", "port must be <= 65535, got 70000"),
        (parse_seconds, "-1", "seconds must be >= 0, got -1"),
        (parse_seconds, "nan", "seconds must be >= 0, got nan"),
        (parse_seconds, "soon", "seconds must be a number, got 'soon'"),
        (parse_max_drop, "-1", "max drop must be >= 0, got -1"),
        (parse_alpha, "0", "alpha must be in (0, 1], got 0"),
        (parse_alpha, "2", "alpha must be in (0, 1], got 2"),
        (parse_alpha, "x", "alpha must be a number, got 'x'"),
    ],
)
def test_a_bad_value_names_what_it_is_and_what_is_wrong(
    parse: Callable[[str], Any], text: str, message: str
) -> None:
    with pytest.raises(argparse.ArgumentTypeError) as exc:
        parse(text)
    assert str(exc.value) == message


def test_paths_must_exist_and_folders_be_folders(tmp_path: Path) -> None:
    file = tmp_path / "case.json"
    file.write_text("{}")
    assert parse_existing_path(str(file)) == file
    assert parse_existing_dir(str(tmp_path)) == tmp_path
    missing = tmp_path / "missing"
    with pytest.raises(argparse.ArgumentTypeError) as exc:
        parse_existing_path(str(missing))
    assert str(exc.value) == f"no such file or folder: {missing}"
    with pytest.raises(argparse.ArgumentTypeError) as exc:
        parse_existing_dir(str(file))
    assert str(exc.value) == f"not a folder: {file}"


def test_argparse_prints_the_message_after_the_option_name(
    capsys: pytest.CaptureFixture[str],
) -> None:
    parser = argparse.ArgumentParser(prog="prog")
    parser.add_argument("--sizes", type=parse_sizes)
    with pytest.raises(SystemExit):
        parser.parse_args(["--sizes=0"])
    assert capsys.readouterr().err.endswith(
        "prog: error: argument --sizes: sizes must be >= 1, got 0\n"
    )


# --- plugin options: the command line, else the ini key, else the default ---------------------


def test_every_option_is_spelled_the_same_way_and_has_an_ini_key_of_its_name(
    pytester: pytest.Pytester,
) -> None:
    config = pytester.parseconfig()
    for option in PLUGIN_OPTIONS:
        assert option.name.startswith("revprop_")
        assert option.flag == "--" + option.name.replace("_", "-")
        assert config.getini(option.name) is None  # declared, and unset means None
    negations = [o.flag for o in PLUGIN_OPTIONS if "no" in o.name.split("_")]
    assert negations == ["--revprop-no-cache", "--revprop-no-figures"]


def test_the_command_line_wins_then_the_ini_file_then_the_default(
    pytester: pytest.Pytester,
) -> None:
    pytester.makefile(".ini", pytest="[pytest]\nrevprop_k = 1, 3\nrevprop_split = dev\n")
    config = pytester.parseconfig("--revprop-split=all")
    assert option_value(config, "revprop_split") == "all"
    assert option_label(config, "revprop_split") == "--revprop-split"
    assert option_value(config, "revprop_k") == [1, 3]
    assert option_label(config, "revprop_k") == "revprop_k in pytest.ini"
    assert option_value(config, "revprop_seeds") == [0, 42, 84, 126, 168]
    assert option_value(config, "revprop_no_cache") is False
    assert option_value(config, "revprop_model") is None


def test_an_empty_ini_value_is_the_default_so_o_key_empty_turns_the_plugin_off(
    pytester: pytest.Pytester,
) -> None:
    pytester.makefile(".ini", pytest="[pytest]\nrevprop_model = gold\nrevprop_no_cache = true\n")
    assert option_value(pytester.parseconfig(), "revprop_model") == ["gold"]
    assert option_value(pytester.parseconfig(), "revprop_no_cache") is True
    off = pytester.parseconfig("-o", "revprop_model=", "-o", "revprop_no_cache=false")
    assert option_value(off, "revprop_model") is None
    assert option_value(off, "revprop_no_cache") is False


def test_an_ini_path_is_relative_to_the_ini_files_folder(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makefile(".ini", pytest="[pytest]\nrevprop_report = out\nrevprop_prompts = prompts\n")
    pytester.mkdir("prompts")
    monkeypatch.chdir(pytester.mkdir("sub"))
    config = pytester.parseconfig(f"--rootdir={pytester.path}")
    assert option_value(config, "revprop_report") == pytester.path / "out"
    assert option_value(config, "revprop_prompts") == pytester.path / "prompts"
    assert option_value(pytester.parseconfig("--revprop-report=here"), "revprop_report") == Path(
        "here"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "revprop_retries in pytest.ini: retries must be >= 1, got 0"),
        (
            ["-o", "revprop_retries=x"],
            "-o revprop_retries: retries must be a whole number, got 'x'",
        ),
    ],
)
def test_a_bad_ini_value_names_the_key_and_where_it_was_set(
    pytester: pytest.Pytester, args: list[str], message: str
) -> None:
    pytester.makefile(".ini", pytest="[pytest]\nrevprop_retries = 0\n")
    config = pytester.parseconfig(*args)
    with pytest.raises(UserError) as exc:
        option_value(config, "revprop_retries")
    assert str(exc.value) == message
    assert option_value(pytester.parseconfig("--revprop-retries=2", *args), "revprop_retries") == 2
