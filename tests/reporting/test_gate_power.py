"""What the gate can see: a change that is not significant reads "no significant change" with
the smallest drop the pairs could detect (terminal, summary.md and report.md, compare); compare
--detect and the plan say what a drop needs; the prompt templates are recorded and named when
they differ; a baseline that pairs nothing is refused before the first request. The worked
example and the table of docs/protocol.md ("What the gate can see") are checked here."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from helpers.handmade_cases import invoice_case, travel_case, write_cases
from helpers.records import a_record

from pytest_revprop import cli
from pytest_revprop.core.prompts import Prompts, changed_templates
from pytest_revprop.reporting.gate import gate, gate_lines, prompts_note
from pytest_revprop.reporting.gate_report import append_gate_section
from pytest_revprop.reporting.power import detectable_drop, drop_power, pairs_needed
from pytest_revprop.reporting.sight import verdict
from pytest_revprop.reporting.stats import DEFAULT_ALPHA, PairGroup
from pytest_revprop.run.estimate import gate_sight_lines

ROOT = Path(__file__).resolve().parents[2]
SECTION = "## What the gate can see"

# The worked example: 30 pairs, 11 pass -> fail, 3 fail -> pass, 14 pass both, 2 fail both.
OUTCOMES = [(True, False)] * 11 + [(False, True)] * 3 + [(True, True)] * 14 + [(False, False)] * 2


def _record(case: str, completed: bool, seed: int = 0) -> dict[str, Any]:
    return a_record(case, completed, seed=seed, valid=True)


def _worked_runs(
    base_meta: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    base = [_record(f"c{i:02}", a) for i, (a, _) in enumerate(OUTCOMES)]
    new = [_record(f"c{i:02}", b) for i, (_, b) in enumerate(OUTCOMES)]
    return {"meta": base_meta or {}, "summary": [], "results": base}, new


def _section() -> str:
    text = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    start = text.index(SECTION)
    return text[start : text.index("\n## ", start + len(SECTION))]


def _blocks(text: str) -> list[list[str]]:
    return [b.strip("\n").splitlines() for b in re.findall(r"```\n(.*?)```", text, re.S)]


def _prints(shipped: dict[str, str]) -> dict[str, dict[str, str]]:
    return {name: {"source": source, "sha256": name + source} for name, source in shipped.items()}


# ------------------------------------------------------------------ the gate's words


def test_a_drop_that_is_not_significant_reads_no_significant_change_and_what_could_be_seen() -> (
    None
):
    baseline, new = _worked_runs()
    lines = gate_lines(gate(baseline, new, max_drop=2.0))
    assert lines == [
        "no significant change m j+h k1: 83.3% -> 56.7% (-26.7 pts, flips 11 down / 3 up, p=0.0574)",
        "    30 pairs detect a drop of 35 points or more (80% power, exact McNemar at alpha 0.05; "
        "47% of them flipped)",
    ]
    assert not any(line.startswith("ok") for line in lines)


def test_a_significant_change_within_max_drop_is_not_called_insignificant() -> None:
    group = PairGroup("m", "j+h", 1, 200, 1.0, 0.97, 6, 0, 2 / 64)
    assert verdict(group, max_drop=5.0) == "significant, within max-drop"
    assert verdict(group, max_drop=2.0) == "regression"


def test_the_protocol_pages_worked_example_is_what_the_gate_and_compare_print(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    section = _section()
    gate_block, detect_block = _blocks(section)[:2]
    baseline, new = _worked_runs()
    assert gate_lines(gate(baseline, new, max_drop=2.0)) == gate_block
    asked = gate_lines(gate(baseline, new, max_drop=2.0, detect=26.7))
    assert asked == [*gate_block, *detect_block]
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(baseline))
    b.write_text(json.dumps({"meta": {}, "summary": [], "results": new}))
    assert cli.main(["compare", str(a), str(b), "--detect=26.7"]) == 0
    out = capsys.readouterr().out
    assert detect_block[0] in out.splitlines()
    assert re.search(r"  no significant change  35\n", out)
    # the figures the text quotes
    assert f"{drop_power(30, 8 / 30, 14 / 30, DEFAULT_ALPHA):.3f}" == "0.493"
    assert "probability 0.493" in section
    assert detectable_drop(30, DEFAULT_ALPHA, discordance=14 / 30) == 0.35
    assert detectable_drop(30, DEFAULT_ALPHA) == 0.255 and "drops of 25.5 points" in section
    assert pairs_needed(8 / 30, DEFAULT_ALPHA, discordance=14 / 30) == 55


def test_the_protocol_pages_table_is_what_the_power_functions_give() -> None:
    rows = [line for line in _section().splitlines() if re.match(r"\| \d+ ", line)]
    assert len(rows) == 4
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        pairs = int(cells[0].split()[0])
        expected = [
            detectable_drop(pairs, DEFAULT_ALPHA, discordance=d) for d in (None, 0.1, 0.2, 0.4)
        ]
        assert [float(c) for c in cells[1:]] == [round(100 * e, 1) for e in expected if e]


def test_the_gates_section_is_appended_to_summary_md_and_report_md(tmp_path: Path) -> None:
    baseline, new = _worked_runs({"prompts": _prints({"revise": "shipped", "system": "shipped"})})
    run_meta = {"prompts": _prints({"revise": "override", "system": "shipped"})}
    result = gate(baseline, new, max_drop=2.0, name="base.json", run_meta=run_meta)
    (tmp_path / "summary.md").write_text("# summary\n")
    (tmp_path / "report.md").write_text("# report\n")
    run = {
        "summary": [],
        "results": [{**r, "error": None if r["completed"] else "no_patch"} for r in new],
    }
    written = append_gate_section(tmp_path, result, 2.0, "base.json", sides=(baseline, run))
    assert [p.name for p in written] == ["summary.md", "report.md"]
    for path in written:
        text = path.read_text()
        assert "## Baseline gate: `base.json` (A) → this run (B)" in text
        assert (
            "| m | j+h | 1 | 30 | 83.3 | 56.7 | -26.7 | 11 | 3 | 0.05737 | no significant change | 35 |"
        ) in text
        assert "- Prompt templates that differ: revise.md (A shipped, B override)." in text
        # why each side failed, as the pull-request comment says it
        assert "| m | j+h | 1 | A | 30 | 5 | – | – | – | none |" in text
        assert "| m | j+h | 1 | B | 30 | 13 | – | – | – | no_patch 13 |" in text


# ------------------------------------------------------------------ how many cases and seeds


def test_the_plan_says_what_the_runs_pairs_see_and_what_a_drop_needs() -> None:
    assert gate_sight_lines(30, 3, 10.0) == [
        "gate: 30 cases x 3 seeds = 90 pairs per (model, method, k) detect at best a drop of 9 "
        "points or more (80% power, exact McNemar at alpha 0.05, if no sample improves)",
        "gate: a 10-point drop needs 78 pairs per (model, method, k) (at least; if no sample "
        "improves): with 30 cases, 3 seeds; with 3 seeds, 26 cases",
    ]
    by_case = gate_sight_lines(30, 3, 20.0, metric="pass_all_seeds")
    assert by_case[0].startswith("gate: 30 cases (pass^S) = 30 pairs")
    assert (
        by_case[1]
        == "gate: a 20-point drop of pass^S needs at least 39 cases (if no case improves)"
    )


def test_compare_detect_is_a_drop_in_points(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    baseline, _ = _worked_runs()
    a = tmp_path / "a.json"
    a.write_text(json.dumps(baseline))
    with pytest.raises(SystemExit) as stop:
        cli.main(["compare", str(a), str(a), "--detect=0"])
    assert stop.value.code == 2
    assert "a drop to detect must be in (0, 100] points, got 0" in capsys.readouterr().err


def test_the_plan_option_answers_without_a_request(
    pytester: pytest.Pytester, fake_server: Any
) -> None:
    server = fake_server()
    cases = write_cases(pytester.path / "cases", [invoice_case(), travel_case()])
    result = pytester.runpytest(
        "--revprop-model=hosted_vllm/m", f"--revprop-api-base={server.base_url}",
        f"--revprop-cases={cases}", "--revprop-split=all", "--revprop-seeds=0,1",
        "--revprop-plan", "--revprop-detect=50", "-p", "no:cacheprovider",
    )  # fmt: skip
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "gate: 2 cases x 2 seeds = 4 pairs per (model, method, k) detect at best no drop at all*",
            "gate: a 50-point drop needs * pairs per (model, method, k)*: with 2 cases, * seeds; with 2 seeds, * cases",
        ]
    )
    assert server.app.state.count == 0


# ------------------------------------------------------------------ prompts recorded


def test_the_templates_that_differ_are_named_with_their_sources(tmp_path: Path) -> None:
    shipped = Prompts().fingerprint()
    folder = tmp_path / "prompts"
    folder.mkdir()
    (folder / "revise.md").write_text("$context\n\nNow: $request\n")
    changed = Prompts(folder).fingerprint()
    assert changed_templates(shipped, changed) == ["revise"]
    assert changed_templates(shipped, Prompts(folder / "..").fingerprint()) == []
    assert changed_templates({}, changed) is None
    assert prompts_note({"prompts": shipped}, {"prompts": changed}) == (
        "Prompt templates that differ: revise.md (A shipped, B override)."
    )
    assert prompts_note({"prompts": shipped}, {"prompts": shipped}) == (
        "Prompt templates: the same in both runs."
    )
    assert "A does not record" in prompts_note({}, {"prompts": changed})


# ------------------------------------------------------------------ refused before any request


@pytest.mark.parametrize(
    ("base_seed", "base_cases", "why"),
    [
        (0, ["unit/10", "travel-shift/10"], "but the baseline has seeds 0 and this run seeds 1 "
         "(pass --revprop-seeds=0)"),
        (1, ["other/10"], "but the baseline's 1 cases and this run's 2 are different cases "
         "(this run: travel-shift/10, unit/10)"),
    ],
    ids=["seeds", "cases"],
)  # fmt: skip
def test_a_baseline_that_pairs_nothing_is_refused_before_the_first_request(
    pytester: pytest.Pytester, fake_server: Any, base_seed: int, base_cases: list[str], why: str
) -> None:
    server = fake_server()
    cases = write_cases(pytester.path / "cases", [invoice_case(), travel_case()])
    baseline = pytester.path / "base.json"
    records = [
        {**_record(case, True, seed=base_seed), "model": "hosted_vllm/m"} for case in base_cases
    ]
    baseline.write_text(json.dumps({"meta": {}, "summary": [], "results": records}))
    result = pytester.runpytest(
        "--revprop-model=hosted_vllm/m", f"--revprop-api-base={server.base_url}",
        "--revprop-transport=direct", f"--revprop-cases={cases}", "--revprop-split=all",
        "--revprop-method=j+h", "--revprop-seeds=1", f"--revprop-baseline={baseline}",
        f"--revprop-report={pytester.path / 'reports'}", "-p", "no:cacheprovider",
    )  # fmt: skip
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR")]
    assert errors == [
        f"ERROR: the baseline {baseline} pairs no sample with this run: both hold "
        f"hosted_vllm/m j+h k1, {why}"
    ]
    assert server.app.state.count == 0
    assert "Traceback" not in result.stderr.str()


def test_shards_made_with_other_prompts_are_not_one_run(tmp_path: Path) -> None:
    from pytest_revprop.errors import UserError
    from pytest_revprop.reporting.combine import check_shards

    def meta(index: int, system: str) -> dict[str, Any]:
        return {"shard": {"index": index, "count": 2}, "prompts": _prints({"system": system})}

    one, two = tmp_path / "one", tmp_path / "two"
    assert check_shards({one: meta(1, "shipped"), two: meta(2, "shipped")}) == [one, two]
    with pytest.raises(UserError, match="shards of different runs: their prompts differ"):
        check_shards({one: meta(1, "shipped"), two: meta(2, "override")})
