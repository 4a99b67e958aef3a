"""Loading rules of docs/case-format.md: every broken file names the file, the rule and the place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.chain_cases import cart_chain
from helpers.handmade_cases import invoice_case

from pytest_revprop.core import cases as cases_module
from pytest_revprop.core.cases import Case, CaseError, case_schema, load_case, load_cases


def _write(tmp: Path, name: str, data: object) -> Path:
    path = tmp / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def _good() -> dict:
    return invoice_case().to_dict()


def test_a_good_case_round_trips(tmp_path: Path) -> None:
    case = load_case(_write(tmp_path, "a.json", _good()))
    assert case.to_dict() == _good() and case.size == 12
    assert case_schema()["title"] == "RevPropBench case"


@pytest.mark.parametrize(
    ("mutate", "rule", "pointer"),
    [
        (lambda d: d.pop("request"), "schema", ""),
        (lambda d: d.update(pattern="sideways"), "schema", "/pattern"),
        (lambda d: d["gold"][1].update(kind="maybe"), "schema", "/gold/1/kind"),
        (
            lambda d: d["conversation"][0]["assistant"][0].update(op="replace"),
            "schema",
            "/conversation/0/assistant/0/op",
        ),
        (lambda d: d["artifact"].update(total=51.0), "conversation-replay", "/artifact/total"),
        (lambda d: d["gold"][0].update(path="/lines/5/qty"), "gold-applies", "/gold"),
        (lambda d: d.update(size=11), "size", "/size"),
        (lambda d: d["gold"][3].update(value="(unclosed"), "regex", "/gold/3/value"),
        (
            lambda d: d["conversation"][1]["assistant"][0].update(path="/x/y"),
            "conversation-replay",
            "/conversation/1/assistant/0",
        ),
    ],
)
def test_each_broken_rule_is_named_with_its_pointer(
    tmp_path: Path, mutate, rule: str, pointer: str
) -> None:
    data = _good()
    mutate(data)
    good = _write(tmp_path, "ok.json", _good() | {"id": "ok/10"})
    bad = _write(tmp_path, "bad.json", data)
    result = load_cases([tmp_path])
    assert [c.id for c in result.cases] == ["ok/10"] and good.exists()
    (error,) = result.errors
    assert (error.file, error.rule, error.pointer) == (str(bad), rule, pointer)
    assert str(bad) in str(error) and rule in str(error)


@pytest.mark.parametrize(
    ("content", "rule"),
    [
        ("{not json", "json"),
        ('{"a": NaN}', "json"),
        ('{"a": 1, "a": 2}', "json"),
        ("[" * 50_000, "json"),
    ],
)
def test_unparseable_files_break_the_json_rule(tmp_path: Path, content: str, rule: str) -> None:
    _write(tmp_path, "x.json", content)
    (error,) = load_cases([tmp_path]).errors
    assert error.rule == rule


def test_invalid_utf8_and_missing_paths_break_their_own_rules(tmp_path: Path) -> None:
    (tmp_path / "x.json").write_bytes(b'{"id": "\xff"}')
    errors = load_cases([tmp_path, tmp_path / "nope"]).errors
    assert sorted(e.rule for e in errors) == ["exists", "utf-8"]


def test_duplicate_ids_are_reported(tmp_path: Path) -> None:
    _write(tmp_path, "a.json", _good())
    _write(tmp_path, "b.json", _good())
    result = load_cases([tmp_path])
    assert len(result.cases) == 1 and result.errors[0].rule == "unique-id"


def _ref(path: str, pointer: str) -> dict:
    return {
        "op": "replace",
        "path": path,
        "value": pointer,
        "kind": "cascade",
        "match": "ref_equal",
    }


@pytest.mark.parametrize(
    ("mutate", "rule", "pointer", "says"),
    [
        (lambda d: d.update(gold=[]), "gold-empty", "/gold", "the gold has no operation"),
        (
            lambda d: d["gold"].append(
                {"op": "replace", "path": "", "value": None, "kind": "cascade"}
            ),
            "gold-root",
            "/gold/4/path",
            'a replace of the document root (path "") changes the whole document',
        ),
        (
            lambda d: d["gold"].insert(0, {"op": "add", "path": "", "value": {}, "kind": "direct"}),
            "gold-root",
            "/gold/0/path",
            "add of the document root",
        ),
        (
            lambda d: d["gold"].append(_ref("/total", "/lines/0")),
            "ref-equal",
            "/gold/4/value",
            "the ref_equal pointer '/lines/0' names an object, not a primitive leaf",
        ),
        (
            lambda d: d["gold"].append(_ref("/total", "/lines")),
            "ref-equal",
            "/gold/4/value",
            "names an array, not a primitive leaf",
        ),
        (
            lambda d: d["gold"].append(_ref("/total", "/lines/2/amount")),
            "ref-equal",
            "/gold/4/value",
            "names no place of the expected artifact",
        ),
    ],
)
def test_a_gold_that_would_lose_the_document_or_compare_with_a_container_is_refused(
    tmp_path: Path, mutate, rule: str, pointer: str, says: str
) -> None:
    """A root op (what the annotation tool's blank new op is), an empty gold and a ref_equal
    on an object or array do not load: the docs call each an error."""
    data = _good()
    mutate(data)
    bad = _write(tmp_path, "bad.json", data)
    (error,) = load_cases([tmp_path]).errors
    assert (error.file, error.rule, error.pointer) == (str(bad), rule, pointer)
    assert says in error.message


def test_a_ref_equal_on_a_leaf_of_the_expected_artifact_loads(tmp_path: Path) -> None:
    data = _good()
    data["gold"].append(_ref("/lines/1/amount", "/lines/1/amount"))
    data["gold"][-1]["optional"] = True
    assert load_case(_write(tmp_path, "ok.json", data)).gold[-1].match == "ref_equal"


def test_validate_and_the_annotation_tools_check_refuse_a_root_op_naming_the_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pytest_revprop.authoring.annotate.checks import check_case
    from pytest_revprop.cli import main

    data = _good()
    data["gold"].append({"op": "replace", "path": "", "value": None, "kind": "cascade"})
    bad = _write(tmp_path, "bad.json", data)
    assert main(["validate", str(bad)]) == 1
    assert f"{bad}: gold-root at /gold/4/path: " in capsys.readouterr().out
    report = check_case(data)
    assert not report.valid
    assert {"level": "error", "pointer": "/gold/4/path", "rule": "gold-root"}.items() <= next(
        m for m in report.messages if m["rule"] == "gold-root"
    ).items()


# ---------------------------------------------------------------------------- follow-ups


def _chain() -> dict:
    """The cart chain of docs/protocol.md as file data (three turns)."""
    return cart_chain().to_dict()


def test_a_chain_round_trips_and_a_file_without_followups_means_what_it_did(
    tmp_path: Path,
) -> None:
    data = _chain()
    case = load_case(_write(tmp_path, "c.json", data))
    assert len(case.followups) == 2 and case.to_dict() == data
    plain = {k: v for k, v in data.items() if k != "followups"}
    single = load_case(_write(tmp_path, "s.json", plain))
    assert single.followups == () and "followups" not in single.to_dict()


def _bad_regex(d: dict) -> None:
    d["followups"][1]["gold"][4]["value"] = "(unclosed"


def _bad_pointer(d: dict) -> None:
    d["followups"][0]["gold"].append(_ref("/total", "/subtotal~2"))


def _dangling_ref(d: dict) -> None:
    d["followups"][0]["gold"].append(_ref("/total", "/nowhere"))


def _root(d: dict) -> None:
    d["followups"][1]["gold"][1]["path"] = ""


def _not_applying(d: dict) -> None:
    d["followups"][0]["gold"][0]["path"] = "/items/7/qty"


def _broken_link(d: dict) -> None:
    d["followups"][1]["artifact"]["shipping"] = 3  # turn 1 set it to 0


def _first_link(d: dict) -> None:
    d["followups"][0]["artifact"]["total"] = 30  # the case's gold says 33


def _noop(d: dict) -> None:
    # turn 1's gold set to what its artifact already holds
    d["followups"][0]["gold"] = [
        {"op": "replace", "path": "/subtotal", "value": 28, "kind": "direct"}
    ]


@pytest.mark.parametrize(
    ("mutate", "rule", "pointer", "says"),
    [
        (_bad_regex, "regex", "/followups/1/gold/4/value", "missing )"),
        (_bad_pointer, "schema", "/followups/0/gold/5/value", "not a JSON Pointer"),
        (_dangling_ref, "ref-equal", "/followups/0/gold/5/value", "names no place"),
        (
            lambda d: d["followups"][0].update(gold=[]),
            "gold-empty",
            "/followups/0/gold",
            "no operation",
        ),
        (_root, "gold-root", "/followups/1/gold/1/path", "document root"),
        (
            _not_applying,
            "followup-gold-applies",
            "/followups/0/gold",
            "does not apply to its artifact",
        ),
        (
            _broken_link,
            "followup-previous",
            "/followups/1/artifact/shipping",
            "follow-up 0's gold does not accept this artifact as its result: wrong value"
            " (expected 0, found 3)",
        ),
        (
            _first_link,
            "followup-previous",
            "/followups/0/artifact/total",
            "the case's gold does not accept this artifact",
        ),
        (_noop, "followup-noop", "/followups/0/gold", "accepts its artifact unchanged"),
        (lambda d: d["followups"][0].pop("theme"), "schema", "/followups/0", "theme is required"),
    ],
)
def test_each_followup_rule_is_named_with_its_pointer(
    tmp_path: Path, mutate, rule: str, pointer: str, says: str
) -> None:
    data = _chain()
    mutate(data)
    bad = _write(tmp_path, "bad.json", data)
    (error,) = load_cases([tmp_path]).errors
    assert (error.file, error.rule, error.pointer) == (str(bad), rule, pointer)
    assert says in str(error) and "\n" not in str(error)


def test_a_case_shown_without_its_gold_skips_the_followup_gold_rules() -> None:
    data = _chain()
    _broken_link(data)
    _noop(data)
    assert len(Case.without_gold(data).followups) == 2
    data["followups"][0]["gold"][0]["path"] = "/items/7/qty"
    with pytest.raises(CaseError, match="followup-gold-applies"):
        Case.without_gold(data)


def test_a_broken_link_at_an_array_says_how_long_each_is(tmp_path: Path) -> None:
    data = _chain()
    extra = {"sku": "D", "qty": 1, "price": 1, "line": 1}
    data["followups"][0]["artifact"]["items"].append(extra)  # D came from nowhere
    _write(tmp_path, "bad.json", data)
    (error,) = load_cases([tmp_path]).errors
    assert (error.rule, error.pointer) == ("followup-previous", "/followups/0/artifact/items")
    assert "(expected an array of 3 item(s), found an array of 4 item(s))" in str(error)


def test_a_chain_that_loaded_once_is_still_judged_when_its_content_changes(tmp_path: Path) -> None:
    """Loading remembers which chains held (by content): the same file edited is judged again."""
    data = cart_chain().to_dict()
    path = tmp_path / "chain.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert load_case(path).followups and load_case(path).followups
    data["followups"][0]["artifact"]["note"] = "edited by hand"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CaseError) as info:
        load_case(path)
    assert info.value.rule == "followup-previous"


def test_an_off_run_loads_a_case_without_judging_its_chain(tmp_path: Path) -> None:
    """``chains=False`` (what an ``off`` run asks) leaves out the rules that judge follow-ups."""
    data = cart_chain().to_dict()
    data["followups"][0]["artifact"]["note"] = "edited by hand"
    path = tmp_path / "chain.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert load_case(path, chains=False).followups
    with pytest.raises(CaseError, match="followup-previous"):
        load_case(path)


def test_bytes_loaded_before_are_not_checked_again_and_keep_their_own_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process loads the same files again and again (annotate after each save, in-process
    runs): equal bytes give the Case checked before, with the path they were read from now."""
    text = json.dumps(cart_chain().to_dict())
    first, second = tmp_path / "a.json", tmp_path / "copy" / "a.json"
    second.parent.mkdir()
    first.write_text(text, encoding="utf-8")
    second.write_text(text, encoding="utf-8")
    loaded = load_case(first)
    checked: list[str] = []
    monkeypatch.setattr(cases_module, "_check_rules", lambda case, name, **_: checked.append(name))
    again = load_case(second)
    assert (again, again.source, loaded.source, checked) == (loaded, second, first, [])
    second.write_text(text + "\n", encoding="utf-8")  # other bytes: checked again
    assert load_case(second) == loaded and checked == [str(second)]
