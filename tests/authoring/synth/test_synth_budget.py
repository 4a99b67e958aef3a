"""`revprop synth --max-cost` over several drafts (in process, against the scripted fake
server): the drafts spend in order, so a ceiling that affords two of six finishes the first
two and stops the rest cleanly, with a summary that names them; a rerun resumes."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers.scripted_writer import ScriptedWriter

from pytest_revprop.authoring.synth.cards import example_card_text
from pytest_revprop.cli import main
from pytest_revprop.core.cases import load_case
from pytest_revprop.testing.fakeserver import FakeServer

CONFIG = """
[models.fake]
litellm_model = "openai/fake"
temperature = 0.6
max_tokens = 512

[prices]
fake = [10.0, 20.0]
"""
"""Prices at which the first draft costs about $0.10, each later one $0.07 (the gold
samples are the same requests for all: the cache answers them), and a call's worst case
is up to about $0.085."""

DRAFTS = [f"invoice-{n}/10-1" for n in range(1, 7)]


@pytest.fixture
def six_cards(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder with the priced model ``fake`` and six invoice cards, each its own
    scenario (their notes differ, so do their prompts)."""
    (tmp_path / "revprop.toml").write_text(CONFIG, encoding="utf-8")
    (tmp_path / "cards").mkdir()
    text = example_card_text()
    for n in range(1, 7):
        card = text.replace('id = "invoice-discount"', f'id = "invoice-{n}"')
        card = card.replace('notes = "', f'notes = "This is client number {n}. ')
        (tmp_path / "cards" / f"invoice-{n}.toml").write_text(card, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


COMMAND = ("synth", "cards", "--model", "fake", "--out", "drafts", "--transport", "direct")


def _synth(server: FakeServer, *args: str) -> int:
    return main([*COMMAND, "--api-base", server.base_url, *args])


def _summary_list(out: str, label: str) -> str:
    found = re.search(rf"^  {label}: (.*)$", out, re.M)
    assert found, out
    return found.group(1)


def test_a_ceiling_for_two_of_six_drafts_finishes_the_first_two_and_stops_the_rest(
    six_cards: Path, fake_server: Callable[..., FakeServer], capsys: pytest.CaptureFixture[str]
) -> None:
    """Six drafts with 8 requests in flight at once, under a ceiling that affords about two:
    before the drafts spent in order, they went on side by side, turn by turn, and all six
    stopped half made."""
    server = fake_server(responder=ScriptedWriter(), latency_s=0.01)
    assert _synth(server, "--max-cost", "0.28") == 1
    out = capsys.readouterr().out
    drafts = six_cards / "drafts"
    for case_id in DRAFTS[:2]:
        assert load_case(drafts / f"{case_id}.json").annotation["status"] == "draft"
    assert not any((drafts / f"{case_id}.json").exists() for case_id in DRAFTS[2:])
    assert "2 draft(s), 0 rejected, 4 stopped, 0 failed" in out
    spent = float(re.findall(r"new spending \$([0-9.]+) of the \$0.2800 ceiling", out)[0])
    assert 0.17 < spent <= 0.28
    # the summary says what was spent, why the rest stays unspent, who finished, who stopped
    assert f"stopped by --max-cost: ${spent:.4f} spent of the $0.2800 ceiling" in out
    assert "a call is sent only if its worst case fits" in out
    assert _summary_list(out, "finished") == "invoice-1/10-1 (draft), invoice-2/10-1 (draft)"
    stopped = _summary_list(out, "stopped").split(", ")
    assert [entry.split(" ")[0] for entry in stopped] == DRAFTS[2:]
    assert "rerun with a higher --max-cost to resume the stopped drafts from the cache" in out
    # nothing made is lost: a stopped draft that made calls keeps them, and says why
    records = {
        f"{p.parent.name}/{p.stem}": json.loads(p.read_text())
        for p in (drafts / "__rejected__").rglob("*.json")
    }
    for entry in stopped:
        case_id = entry.split(" ")[0]
        if entry.endswith("(not started)"):
            assert case_id not in records
            continue
        record = records.pop(case_id)
        assert record["rejected"]["step"] == "budget"
        assert record["conversation"]
        assert "--max-cost budget of $0.2800" in record["rejected"]["reasons"][0]
    assert not records
    made = list((six_cards / ".revprop-cache").rglob("*.json"))
    assert len(made) == server.stats()["count"]
    # a higher ceiling resumes: what was made comes from the cache, the rest is made now
    sent = server.stats()["count"]
    assert _synth(server, "--max-cost", "1") == 0
    out = capsys.readouterr().out
    assert "6 draft(s), 0 rejected, 0 stopped, 0 failed; 48 calls" in out
    unique = 6 * 5 + 3  # 5 writer calls per card; the 3 gold samples are the same for all
    assert server.stats()["count"] == unique
    assert f"({48 - (unique - sent)} from the cache)" in out
    assert not (drafts / "__rejected__").exists()


def test_the_summary_names_at_most_eight_drafts_a_list_and_counts_the_others(
    six_cards: Path, fake_server: Callable[..., FakeServer], capsys: pytest.CaptureFixture[str]
) -> None:
    server = fake_server(responder=ScriptedWriter())
    assert _synth(server, "--max-cost", "0", "--drafts", "2") == 1
    out = capsys.readouterr().out
    assert server.stats()["count"] == 0
    assert _summary_list(out, "finished") == "none"
    stopped = _summary_list(out, "stopped")
    assert stopped.startswith("invoice-1/10-1 (not started), invoice-1/10-2 (not started), ")
    assert stopped.endswith("invoice-4/10-2 (not started) and 4 more")
