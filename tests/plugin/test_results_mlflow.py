"""The MLflow example of docs/hooks.md, run as a conftest.py: one MLflow run per pytest run in
a local file store, with the summary's metrics and every record as an artifact, with and
without xdist."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers.child_pytest import TWO_WORKERS
from helpers.handmade_cases import invoice_case, travel_case, write_cases

mlflow = pytest.importorskip("mlflow")

DOC = Path(__file__).resolve().parents[2] / "docs" / "hooks.md"


def _example() -> str:
    """The code block under the mlflow-example marker of docs/hooks.md."""
    text = DOC.read_text()
    match = re.search(r"<!-- mlflow-example:.*?-->\n```python\n(.*?)```", text, re.DOTALL)
    assert match is not None, "docs/hooks.md lost its MLflow example"
    return match.group(1)


@pytest.mark.parametrize(
    "xdist", [[], pytest.param(TWO_WORKERS, marks=pytest.mark.slow)], ids=["single", "xdist"]
)
def test_the_docs_mlflow_example_logs_one_run_with_every_record(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, xdist: list[str]
) -> None:
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    cases = write_cases(pytester.path / "cases", [invoice_case(), travel_case()])
    pytester.makeconftest(_example())
    result = pytester.runpytest(
        "--revprop-model=gold", "--revprop-method=j+h,med", "--revprop-k=3", "--revprop-seeds=0,1",
        f"--revprop-cases={cases}", "--revprop-split=all", "--revprop-no-figures",
        f"--revprop-report={pytester.path / 'reports'}", *xdist,
    )  # fmt: skip
    result.assert_outcomes(passed=8)
    assert "pytest_revprop_results failed" not in result.stdout.str()
    client = mlflow.tracking.MlflowClient(tracking_uri=(pytester.path / "mlruns").as_uri())
    experiment = client.get_experiment_by_name("revpropbench")
    (run,) = client.search_runs([experiment.experiment_id])
    assert run.data.params["methods"] == "j+h,med"
    assert run.data.metrics["completion_rate/gold.j_h.k1"] == 1.0
    assert run.data.metrics["completion_rate/gold.med.k3"] == 1.0
    local = Path(client.download_artifacts(run.info.run_id, "records.jsonl", str(pytester.path)))
    records = [json.loads(line) for line in local.read_text().splitlines()]
    keys = {(r["case"], r["method"], r["seed"]) for r in records}
    assert len(records) == len(keys) == 8
