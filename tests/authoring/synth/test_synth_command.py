"""`revprop synth` as a user runs it (in process, against the scripted fake server): the
example card, the budget stop, resuming from the cache, rewording with the fact check, the
results renamed for `revprop compare`, and one-line errors."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers.scripted_writer import TURNS, ScriptedWriter, add, turn

from pytest_revprop.authoring.synth.cards import EXAMPLE_CARDS, example_card_text, parse_card
from pytest_revprop.cli import main
from pytest_revprop.core.cases import load_case, load_cases
from pytest_revprop.testing.fakeserver import FakeServer
from pytest_revprop.testing.scripted_writer import FOLLOWUPS

CONFIG = """
[models.fake]
litellm_model = "openai/fake"
temperature = 0.6
max_tokens = 512

[prices]
fake = [1000.0, 2000.0]
"""
"""Prices high enough that one call costs about a dollar (the budget test counts dollars)."""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder with a revprop.toml declaring the model ``fake`` and its prices."""
    (tmp_path / "revprop.toml").write_text(CONFIG, encoding="utf-8")
    (tmp_path / "cards").mkdir()
    (tmp_path / "cards" / "invoice.toml").write_text(example_card_text(), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _synth(server: FakeServer, *args: str) -> int:
    return main(["synth", "--model", "fake", "--api-base", server.base_url, *args])


@pytest.mark.parametrize("name", EXAMPLE_CARDS)
def test_example_prints_a_commented_card_that_loads(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["synth", "--example", name]) == 0
    text = capsys.readouterr().out
    assert text.startswith("# A scenario card")
    assert parse_card(text).id == name


def test_a_run_prints_a_line_per_draft_and_exits_0_when_all_are_drafts(
    project: Path, fake_server: Callable[..., FakeServer], capsys: pytest.CaptureFixture[str]
) -> None:
    server = fake_server(responder=ScriptedWriter())
    assert _synth(server, "cards", "--out", "drafts") == 0
    out = capsys.readouterr().out
    assert (
        "[1/1] invoice-discount/10-1: draft · turns 4 · checks failed 0 · calls 8 (0 cached)" in out
    )
    assert "1 draft(s), 0 rejected, 0 stopped, 0 failed" in out
    assert load_case(project / "drafts" / "invoice-discount" / "10-1.json").size == 10


def test_verbose_prints_a_line_per_turn_with_checks_failed_and_cost_so_far(
    project: Path, fake_server: Callable[..., FakeServer], capsys: pytest.CaptureFixture[str]
) -> None:
    writer = ScriptedWriter({"turn 2": ["not an object", TURNS[2]]})
    assert _synth(fake_server(responder=writer), "cards", "-v") == 0
    lines = capsys.readouterr().out.splitlines()
    steps = [line for line in lines if line.startswith("  invoice-discount: ")]
    assert [line.split(" · ")[0] for line in steps] == [
        "  invoice-discount: turn 1: 2 of 10 leaves",
        "  invoice-discount: turn 2: check failed (1 of 3): the reply holds no JSON object: "
        "answer with one JSON object",
        "  invoice-discount: turn 2: 5 of 10 leaves",
        "  invoice-discount: turn 3: 7 of 10 leaves",
        "  invoice-discount: turn 4: 10 of 10 leaves",
    ]
    assert steps[2].split(" · ")[1] == "checks failed 1"
    costs = [float(line.rsplit("$", 1)[1]) for line in steps]
    assert costs == sorted(costs) and costs[0] > 0


def test_rerunning_resumes_from_the_cache_with_zero_requests(
    project: Path, fake_server: Callable[..., FakeServer], capsys: pytest.CaptureFixture[str]
) -> None:
    server = fake_server(responder=ScriptedWriter())
    assert _synth(server, "cards", "--drafts", "2") == 0
    sent = server.stats()["count"]
    # 5 writer calls per draft (seeds 0 and 1); the script writes the same case twice, so
    # the 3 gold samples are the same requests and are made once
    assert sent == 2 * 5 + 3
    first = (project / "synth-drafts" / "invoice-discount" / "10-2.json").read_text()
    capsys.readouterr()
    assert _synth(server, "cards", "--drafts", "2") == 0
    assert server.stats()["count"] == sent
    assert "calls 8 (8 cached)" in capsys.readouterr().out
    again = (project / "synth-drafts" / "invoice-discount" / "10-2.json").read_text()
    assert _without_time(again) == _without_time(first)


@pytest.mark.parametrize(
    ("status", "entry"),
    [
        ("annotated", {"annotator": "carol", "action": "edited"}),
        ("draft", {"annotator": "dave", "action": "edited", "note": "kept it a draft"}),
        ("reviewed", None),
    ],
)
def test_a_rerun_never_overwrites_a_draft_a_person_worked_on(
    project: Path,
    fake_server: Callable[..., FakeServer],
    capsys: pytest.CaptureFixture[str],
    status: str,
    entry: dict[str, str] | None,
) -> None:
    """Rerunning a card (as the docs say to, to resume) keeps a draft saved in the annotation
    tool as it was: its status and history are not reset to ``draft`` and "drafted"."""
    server = fake_server(responder=ScriptedWriter())
    assert _synth(server, "cards", "--drafts", "2") == 0
    path = project / "synth-drafts" / "invoice-discount" / "10-1.json"
    data = json.loads(path.read_text())
    data["gold"][0]["value"] = 20  # the person's correction
    data["annotation"]["status"] = status
    if entry is not None:
        data["annotation"]["history"].append(entry | {"time": "2026-12-01T10:00:00Z"})
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    saved = path.read_text()
    other = project / "synth-drafts" / "invoice-discount" / "10-2.json"
    other.unlink()
    capsys.readouterr()
    assert _synth(server, "cards", "--drafts", "2") == 0
    out = capsys.readouterr().out
    assert path.read_text() == saved
    assert "invoice-discount/10-1: skipped · turns 0 · checks failed 0 · calls 0" in out
    assert "kept, not overwritten; move it away (or use another --out)" in out
    assert "1 skipped: their case files hold a person's work" in out
    assert load_case(other).annotation["status"] == "draft"  # the untouched draft is remade


def _without_time(text: str) -> Any:
    data = json.loads(text)
    data["annotation"]["history"][0]["time"] = "-"
    return data


CHEAP = CONFIG.replace("fake = [1000.0, 2000.0]", "fake = [10.0, 20.0]")
"""Prices at which one call costs a few cents and nine cards about a dollar and a half."""


def _nine_cards(project: Path) -> None:
    """Nine invoice cards, each its own scenario (their notes differ, so do their prompts)."""
    (project / "cards" / "invoice.toml").unlink()
    text = example_card_text()
    for n in range(1, 10):
        card = text.replace('id = "invoice-discount"', f'id = "invoice-{n}"')
        card = card.replace('notes = "', f'notes = "This is client number {n}. ')
        (project / "cards" / f"invoice-{n}.toml").write_text(card, encoding="utf-8")


def _spending(out: str) -> list[float]:
    """The "spent so far" figures of a run's progress lines, in order."""
    return [float(found) for found in re.findall(r"spent so far \$([0-9.]+)", out)]


def test_the_budget_is_a_ceiling_the_run_stops_at_and_resumes_from(
    project: Path, fake_server: Callable[..., FakeServer], capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "revprop.toml").write_text(CHEAP, encoding="utf-8")
    _nine_cards(project)
    server = fake_server(responder=ScriptedWriter())
    args = ("cards", "--concurrency", "1", "--out", "drafts")
    assert _synth(server, *args, "--max-cost", "0.5") == 1
    out = capsys.readouterr().out
    sent = server.stats()["count"]
    spent = _spending(out)
    assert len(spent) == 9 and max(spent) <= 0.5
    total = float(re.findall(r"new spending \$([0-9.]+) of the \$0.5000 ceiling", out)[0])
    # what the calls cost, as the cache recorded them (the cache was empty before this run)
    made = [json.loads(p.read_text()) for p in (project / ".revprop-cache").rglob("*.json")]
    assert len(made) == server.stats()["count"]
    assert sum(entry["reply"]["cost_usd"] for entry in made) == pytest.approx(total, abs=1e-4)
    assert total <= 0.5
    assert 8 < sent < 9 * 5 + 3  # some drafts were made, not all
    drafts = sorted(p.parent.name for p in (project / "drafts").glob("invoice-*/10-1.json"))
    stopped = list((project / "drafts" / "__rejected__").rglob("*.json"))
    assert drafts and len(drafts) < 9
    for record in stopped:  # a draft stopped half way keeps what it made, and why
        data = json.loads(record.read_text())
        assert data["rejected"]["step"] == "budget"
        assert "the --max-cost budget of $0.5000 " in data["rejected"]["reasons"][0]
        assert data["conversation"]
    assert "rerun with a higher --max-cost to resume the stopped drafts from the cache" in out
    # a higher ceiling resumes: what was made comes from the cache, the rest is made now
    assert _synth(server, *args, "--max-cost", "5") == 0
    out = capsys.readouterr().out
    assert "9 draft(s), 0 rejected, 0 stopped, 0 failed; 72 calls" in out
    # 5 writer calls per card; the 3 gold samples are the same requests for all nine
    unique = 9 * 5 + 3
    assert server.stats()["count"] == unique
    assert f"({72 - (unique - sent)} from the cache)" in out
    assert max(_spending(out)) <= 5
    assert not (project / "drafts" / "__rejected__").exists()


def test_a_budget_on_an_unpriced_model_is_a_usage_error(
    project: Path, fake_server: Callable[..., FakeServer], capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "revprop.toml").write_text(CONFIG.split("[prices]")[0], encoding="utf-8")
    server = fake_server(responder=ScriptedWriter())
    assert _synth(server, "cards", "--max-cost", "1") == 2
    err = capsys.readouterr().err
    assert "--max-cost needs the prices of fake" in err and "[tool.revprop.prices]" in err
    assert server.stats()["count"] == 0


def test_drafts_not_started_before_the_budget_ran_out_write_nothing(
    project: Path, fake_server: Callable[..., FakeServer], capsys: pytest.CaptureFixture[str]
) -> None:
    server = fake_server(responder=ScriptedWriter())
    assert _synth(server, "cards", "--max-cost", "0", "--drafts", "2") == 1
    assert server.stats()["count"] == 0
    assert "2 stopped" in capsys.readouterr().out
    assert not (project / "synth-drafts").exists()


SOURCE = {
    "id": "fee-invoice/5",
    "scenario": "fee-invoice",
    "domain": "invoice",
    "pattern": "arithmetic",
    "size": 6,
    "split": "test",
    "theme": "More units raise the line amount and the total",
    "conversation": [
        {
            "user": "Bill Acme for 3 units at $12.50 each.",
            "assistant": [
                {"op": "add", "path": "/client", "value": "Acme"},
                {
                    "op": "add",
                    "path": "/lines",
                    "value": [{"qty": 3, "unit_price": 12.5, "amount": 37.5}],
                },
            ],
        },
        {
            "user": "The total is the line amount plus a $5.00 fee.",
            "assistant": [
                {"op": "add", "path": "/fee", "value": 5.0},
                {"op": "add", "path": "/total", "value": 42.5},
            ],
        },
    ],
    "artifact": {
        "client": "Acme",
        "lines": [{"qty": 3, "unit_price": 12.5, "amount": 37.5}],
        "fee": 5.0,
        "total": 42.5,
    },
    "request": "Change the quantity from 3 to 4.",
    "reference": None,
    "gold": [
        {"op": "replace", "path": "/lines/0/qty", "value": 4, "kind": "direct"},
        {"op": "replace", "path": "/lines/0/amount", "value": 50.0, "kind": "cascade"},
        {"op": "replace", "path": "/total", "value": 55.0, "kind": "cascade"},
    ],
    "notes": "",
}
REWORDED = {
    "turns": [
        "Please invoice Acme: 3 units, $12.50 apiece.",
        "Take the line amount plus a fee of $5.00: that sum is the total.",
    ],
    "request": "Make it 4 units rather than 3.",
}


def _source(project: Path) -> Path:
    (project / "cases").mkdir()
    path = project / "cases" / "fee-invoice-5.json"
    path.write_text(json.dumps(SOURCE), encoding="utf-8")
    return path


def _reworded(**changes: Any) -> str:
    return json.dumps(REWORDED | changes)


def test_a_paraphrase_keeps_the_facts_and_links_its_source(
    project: Path, fake_server: Callable[..., FakeServer], capsys: pytest.CaptureFixture[str]
) -> None:
    source = load_case(_source(project))
    writer = ScriptedWriter({"rewording": [_reworded()]})
    server = fake_server(responder=writer)
    assert [t.user for t in source.conversation] != REWORDED["turns"]
    assert _synth(server, "--paraphrase", "cases") == 0
    path = project / "synth-drafts" / f"{source.id}-p1.json"
    variant = load_case(path)
    assert variant.id == f"{source.id}-p1"
    assert [t.user for t in variant.conversation] == REWORDED["turns"]
    assert variant.request == REWORDED["request"]
    assert (variant.artifact, variant.gold) == (source.artifact, source.gold)
    assert [t.assistant for t in variant.conversation] == [t.assistant for t in source.conversation]
    draft = json.loads(path.read_text())["annotation"]["draft"]
    assert (draft["source"], draft["card"], draft["models"]) == (
        source.id,
        None,
        {"writer": "fake"},
    )


def test_a_paraphrase_that_changes_a_number_is_asked_again_with_the_reason(
    project: Path, fake_server: Callable[..., FakeServer]
) -> None:
    changed = _reworded(request="Make it 5 units rather than 3.")
    writer = ScriptedWriter({"rewording": [changed, _reworded()]})
    _source(project)
    assert _synth(fake_server(responder=writer), "--paraphrase", "cases") == 0
    (reask,) = writer.reasks()
    assert "the request no longer states the number 4" in reask
    assert "the request states 5, which the original does not" in reask


def test_a_paraphrase_that_keeps_changing_a_number_is_rejected(
    project: Path, fake_server: Callable[..., FakeServer]
) -> None:
    changed = _reworded(
        turns=["Please invoice Acme: 2 units, $12.50 apiece.", REWORDED["turns"][1]]
    )
    writer = ScriptedWriter({"rewording": [changed]})
    source = load_case(_source(project))
    assert _synth(fake_server(responder=writer), "--paraphrase", "cases", "--max-reasks", "1") == 1
    record = json.loads(
        (project / "synth-drafts" / "__rejected__" / f"{source.id}-p1.json").read_text()
    )
    assert record["source"] == source.id
    assert record["rejected"]["reasons"][0].startswith("message 1 no longer states the number 3")
    assert len(record["attempts"]) == 2


def test_source_ids_renames_a_variants_run_so_compare_pairs_it_with_the_original(
    project: Path, fake_server: Callable[..., FakeServer], capsys: pytest.CaptureFixture[str]
) -> None:
    source = load_case(_source(project))
    writer = ScriptedWriter({"rewording": [_reworded()]})
    assert _synth(fake_server(responder=writer), "--paraphrase", "cases") == 0
    row = {"model": "m", "method": "j+h", "k": 1, "seed": 0, "completed": True, "valid": True}
    results = {
        "summary": [{"model": "m", "method": "j+h", "completion_rate": 1.0}],
        "results": [row | {"case": f"{source.id}-p1"}, row | {"case": "other/10"}],
    }
    (project / "variants.json").write_text(json.dumps(results))
    (project / "originals.json").write_text(
        json.dumps(results | {"results": [row | {"case": source.id}]})
    )
    args = ["synth", "--source-ids", "variants.json", "synth-drafts", "--out", "paired.json"]
    assert main(args) == 0
    paired = json.loads((project / "paired.json").read_text())
    assert [r["case"] for r in paired["results"]] == [source.id]
    capsys.readouterr()
    assert main(["compare", "originals.json", "paired.json"]) == 0
    assert "  no significant change  " in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "name at least one card"),
        (["cards/invoice.toml"], "--model is required"),
        (["missing.toml", "--model", "fake"], "card missing.toml: no such file"),
        (["cards/invoice.toml", "--model", "gold"], "gold is a reference solver"),
        (["cards/invoice.toml", "--model", "nope"], "unknown model 'nope'"),
        (["--paraphrase", "cards", "--model", "fake"], "no case file under cards"),
    ],
)
def test_unusable_input_is_one_line_and_exit_2(
    project: Path, args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["synth", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("revprop synth: error: ")
    assert message in err
    assert err.count("\n") == 1


def test_the_drafts_folder_loads_as_a_case_set(
    project: Path, fake_server: Callable[..., FakeServer]
) -> None:
    bad = "I cannot do that."
    server = fake_server(responder=ScriptedWriter({"turn 1": [bad]}))
    assert _synth(server, "cards", "--drafts", "1", "--max-reasks", "0") == 1
    loaded = load_cases([project / "synth-drafts"])
    assert (loaded.cases, loaded.errors) == ([], [])
    assert (project / "synth-drafts" / "__rejected__" / "invoice-discount" / "10-1.json").exists()


def test_a_card_with_several_sizes_makes_one_draft_per_size_of_the_same_scenario(
    project: Path, fake_server: Callable[..., FakeServer], capsys: pytest.CaptureFixture[str]
) -> None:
    text = example_card_text().replace("\nsize = 10\n", "\nsizes = [10, 50]\n")
    (project / "cards" / "invoice.toml").write_text(text, encoding="utf-8")
    writer = ScriptedWriter()
    assert _synth(fake_server(responder=writer), "cards", "--max-reasks", "0") == 1
    out = capsys.readouterr().out
    assert "invoice-discount/10-1: draft" in out
    # the script writes the 10-leaf invoice whatever the size: the 50 draft needs a 5th turn
    assert "invoice-discount/50-1: rejected" in out
    targets = {
        re.findall(r"should hold (\d+) primitive values", b["messages"][1]["content"])[0]
        for b in writer.bodies
        if "Write turn 1 of" in b["messages"][1]["content"]
    }
    assert targets == {"10", "50"}
    record = json.loads(
        (project / "synth-drafts" / "__rejected__" / "invoice-discount" / "50-1.json").read_text()
    )
    assert record["rejected"]["step"] == "turn 5"
    assert (
        record["artifact"]
        == json.loads((project / "synth-drafts" / "invoice-discount" / "10-1.json").read_text())[
            "artifact"
        ]
    )


def test_sizes_and_size_together_are_one_line_and_exit_2(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = example_card_text().replace("\nsize = 10\n", "\nsize = 10\nsizes = [10, 50]\n")
    (project / "cards" / "invoice.toml").write_text(text, encoding="utf-8")
    assert main(["synth", "cards", "--model", "fake"]) == 2
    assert "give size or sizes, not both" in capsys.readouterr().err


def test_each_reask_is_a_new_request_and_verbose_shows_every_reason(
    project: Path, fake_server: Callable[..., FakeServer], capsys: pytest.CaptureFixture[str]
) -> None:
    """Each re-ask of a repeated wrong answer is a new request (the cache never answers it
    with the earlier reply), and -v shows every reason."""
    too_many = turn("Here is the key data.", [add(f"/x{n}", n) for n in range(5)])
    writer = ScriptedWriter({"turn 1": [too_many]})
    server = fake_server(responder=writer)
    assert _synth(server, "cards", "-v", "--max-reasks", "2") == 1
    first, second = writer.reasks()
    assert first != second
    assert "(attempt 2 of 3)" in first and "(attempt 3 of 3)" in second
    assert writer.asked["turn 1"] == 3  # all three sent: none answered from the cache
    out = capsys.readouterr().out
    failed = next(line for line in out.splitlines() if "check failed (1 of 3)" in line)
    assert "uses the word 'key'" in failed and "at most 3 this turn" in failed


def test_a_draft_rejected_at_the_gold_keeps_the_samples_replies(
    project: Path, fake_server: Callable[..., FakeServer]
) -> None:
    writer = ScriptedWriter({"gold": ["I would rather not."]})
    assert _synth(fake_server(responder=writer), "cards") == 1
    record = json.loads(
        (project / "synth-drafts" / "__rejected__" / "invoice-discount" / "10-1.json").read_text()
    )
    assert record["rejected"]["step"] == "gold"
    assert [(s["seed"], s["reply"]) for s in record["gold_samples"]] == [
        (0, "I would rather not."),
        (1, "I would rather not."),
        (2, "I would rather not."),
    ]


def test_an_unreachable_server_names_synths_own_option(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["synth", "cards", "--model", "fake", "--api-base", "http://127.0.0.1:9/v1"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "then pass --api-base=http://HOST:PORT/v1" in err and "--revprop-api-base" not in err


def test_a_card_and_its_paraphrase_run_offline_on_the_installed_scripted_writer(
    project: Path, fake_server: Callable[..., FakeServer], capsys: pytest.CaptureFixture[str]
) -> None:
    """As docs/synth.md shows it: the fake server with the installed scripted writer as
    responder, the example card, then the paraphrase of the draft it made."""
    server = fake_server(responder="pytest_revprop.testing.scripted_writer:respond")
    assert _synth(server, "cards", "--out", "drafts") == 0
    assert _synth(server, "--paraphrase", "drafts", "--out", "variants") == 0
    (variant,) = load_cases([project / "variants"]).cases
    assert variant.id == "invoice-discount/10-1-p1"
    assert variant.request.startswith("To put it another way: ")
    assert "1 draft(s), 0 rejected" in capsys.readouterr().out


def _chain_card(project: Path, followups: str = "3") -> None:
    text = example_card_text() + f"\nfollowups = {followups}\n"
    (project / "cards" / "invoice.toml").write_text(text, encoding="utf-8")


def test_a_card_asking_for_three_follow_ups_drafts_chains_that_validate(
    project: Path, fake_server: Callable[..., FakeServer], capsys: pytest.CaptureFixture[str]
) -> None:
    """As docs/synth.md shows it: the installed scripted writer proposes three follow-ups
    and their gold; `revprop validate` accepts the drafts, every rule of the chain included."""
    _chain_card(project)
    server = fake_server(responder="pytest_revprop.testing.scripted_writer:respond")
    assert _synth(server, "cards", "--out", "drafts", "--drafts", "2") == 0
    out = capsys.readouterr().out
    assert "invoice-discount/10-1: draft · turns 4 · follow-ups 3 of 3 · " in out
    assert "follow-ups: 6 drafted, 0 failed" in out
    assert main(["validate", "drafts"]) == 0
    assert "2 valid case(s), all valid" in capsys.readouterr().err
    case = load_case(project / "drafts" / "invoice-discount" / "10-1.json")
    assert [len(f.gold) for f in case.followups] == [5, 5, 3]


def test_a_follow_up_that_fails_is_counted_and_the_run_exits_1(
    project: Path, fake_server: Callable[..., FakeServer], capsys: pytest.CaptureFixture[str]
) -> None:
    _chain_card(project, '["The user corrects the hours.", "The user raises the rate.", "Tax."]')
    writer = ScriptedWriter({"followup 2 gold": ["No idea."]})
    assert _synth(fake_server(responder=writer), "cards", "--out", "drafts") == 1
    out = capsys.readouterr().out
    assert "follow-ups 1 of 3" in out
    assert "follow-up 2 failed at its gold: no gold sample gave a usable patch" in out
    assert "kept with 1 follow-up(s)" in out
    assert "1 draft(s), 0 rejected, 0 stopped, 0 failed" in out
    assert "follow-ups: 1 drafted, 1 failed, 1 not tried (after a failed one)" in out
    assert main(["validate", "drafts"]) == 0


def test_a_script_file_scripts_the_follow_ups_and_their_gold(
    project: Path, fake_server: Callable[..., FakeServer], capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/synth.md's script form: one follow-up whose gold seed 2 leaves out the total."""
    _chain_card(project, '["The user corrects the hours."]')
    gold = FOLLOWUPS[0]["gold"]
    followup = {k: v for k, v in FOLLOWUPS[0].items() if k != "gold"}
    followup["request"] = "It was 14 hours in the end."
    followup["gold"] = {"0": gold, "1": gold, "2": gold[:-1]}
    script = project / "script.json"
    script.write_text(json.dumps({"followups": [followup]}), encoding="utf-8")
    writer = ScriptedWriter.from_file(script)
    assert _synth(fake_server(responder=writer), "cards", "--out", "drafts") == 0
    data = json.loads((project / "drafts" / "invoice-discount" / "10-1.json").read_text())
    (made,) = data["followups"]
    assert made["request"] == "It was 14 hours in the end."
    assert made["artifact"]["line"] == {"hours": 12, "rate": 85, "amount": 1020}
    (note,) = data["annotation"]["draft"]["followups"]
    assert note["flags"] == [
        {"gold": 4, "reason": "samples disagree on this cascade operation (2 of 3 make it)"}
    ]
    assert "follow-ups: 1 drafted, 0 failed" in capsys.readouterr().out
