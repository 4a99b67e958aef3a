"""pytest glue, part two: the evaluation items and the per-run plugin object.

``RevpropSession`` is registered by ``plugin.pytest_configure`` only when ``--revprop-model``
is given. It turns options into core objects (cases, models, a Runner), makes one item per
(case, model, method, k, seed), hands each item's plain-data record from its report to the
record sink, which writes it to disk at once (so xdist workers hand results to the controller
as builtin data, and no process keeps them), and at the end writes the reports, prints the
summary and applies the baseline gate.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_revprop.cases import BENCHMARK_DIR, Case, load_cases
from pytest_revprop.errors import UserError
from pytest_revprop.llm.presets import ModelConfig, load_config, resolve_model
from pytest_revprop.reporting.sink import RecordSink, SentTexts
from pytest_revprop.runner import (
    ItemSpec,
    Runner,
    RunSettings,
    expand_methods,
    item_specs,
    worker_share,
)
from pytest_revprop.vocabulary import (
    BENCHMARK_SIZES,
    DOMAINS,
    PATTERNS,
    REGRESSION_EXIT,
    SPLITS,
    ResultRecord,
)

if TYPE_CHECKING:
    from pytest_revprop.reporting.gate import GateResult

RECORD_ATTR = "revprop_record"
GC_THRESHOLD = (20_000, 20, 20)
"""Collector thresholds while the runner works (Python's defaults: 700, 10, 10)."""
KNOWN_MARKERS = (
    *DOMAINS,
    *PATTERNS,
    *SPLITS,
    *(f"size{size}" for size in BENCHMARK_SIZES),
)
"""Markers declared in every run, so that `-m` on them never warns (the run adds its own)."""


class CallFailedError(Exception):
    """A model call failed for good: an infrastructure error, reported by pytest as an error."""


class RevpropFailure(Exception):
    """The model's answer did not complete the sample."""


def _short(value: Any, limit: int = 120) -> str:
    import json

    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe_failure(record: ResultRecord) -> str:
    """A failure a person can act on: the request, then what went wrong where."""
    lines = [f"request: {record.get('request', '')}"]
    if not record["valid"]:
        lines.append(f"invalid reply ({record['error']}): {record.get('reason')}")
    else:
        lines.append(
            f"miss {record['miss']}, over edit {record['over_edit']}, wrong value {record['wrong_value']}"
        )
        for finding in record.get("findings", [])[:30]:
            kind = finding["kind"].replace("_", " ")
            gold = f" [{finding['gold_kind']}]" if finding.get("gold_kind") else ""
            lines.append(
                f"  {kind:<11} {finding['path']}{gold}: expected {_short(finding['expected'])}, got {_short(finding['got'])}"
            )
        extra = len(record.get("findings", [])) - 30
        if extra > 0:
            lines.append(f"  ... and {extra} more")
    if record.get("selection_fallback"):
        lines.append(
            "note: the selection answer was not a single candidate number; fell back to the first"
        )
    lines.append(
        f"calls {record['calls']}, cost ${record['cost_usd']:.5f}, latency {record['latency_s']:.2f}s"
    )
    return "\n".join(lines)


class RevpropItem(pytest.Item):
    def __init__(
        self, *, spec: ItemSpec, case: Case, runner_owner: RevpropSession, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.spec = spec
        self.case = case
        self.owner = runner_owner
        self.record: ResultRecord | None = None
        for marker in ("revprop", case.domain, case.pattern, case.split, f"size{case.size}"):
            self.add_marker(marker)

    def setup(self) -> None:
        self.record = self.owner.result(self.spec)
        self._properties()
        if self.record["error"] == "call_failed":
            raise CallFailedError(self.record.get("reason") or "model call failed")

    def runtest(self) -> None:
        assert self.record is not None
        if not self.record["completed"]:
            raise RevpropFailure(describe_failure(self.record))

    def _properties(self) -> None:
        assert self.record is not None
        for key in (
            "completed",
            "valid",
            "error",
            "miss",
            "over_edit",
            "wrong_value",
            "cost_usd",
            "latency_s",
            "calls",
        ):
            self.user_properties.append((f"revprop_{key}", self.record[key]))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, RevpropFailure | CallFailedError):
            head = (
                "model call failed"
                if isinstance(excinfo.value, CallFailedError)
                else "not completed"
            )
            return f"{self.spec.case} [{self.spec.label()}]: {head}\n{excinfo.value}"
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path | str, int | None, str]:
        return (self.case.source or self.spec.case, None, self.spec.node_name())


class RevpropSession:
    """The per-run plugin object (registered as "revprop-session")."""

    def __init__(
        self,
        config: pytest.Config,
        cases: list[Case],
        models: list[ModelConfig],
        settings: RunSettings,
    ) -> None:
        self.config = config
        self.cases = cases
        self.models = models
        self.settings = settings
        self.specs = item_specs(cases, models, settings)
        self.runner: Runner | None = None
        self.sink = RecordSink(Path(config.getoption("revprop_report")))
        self.sent = SentTexts()
        self.servers: list[Any] = []
        self.gate_result: GateResult | None = None
        self.report_error: str | None = None
        self.exit_override: int | None = None
        self.is_worker = hasattr(config, "workerinput")
        self._gc_threshold: tuple[int, ...] | None = None
        self._frozen = False
        config.add_cleanup(self._gc_unfreeze)

    # ------------------------------------------------------------------ building

    @classmethod
    def from_config(cls, config: pytest.Config) -> RevpropSession:
        opt = config.getoption
        overrides = load_config(Path(str(config.rootpath)))
        api_bases = opt("revprop_api_base") or ()
        models = [
            resolve_model(name, api_bases=api_bases, overrides=overrides)
            for name in opt("revprop_model")
        ]
        if len({m.name for m in models}) != len(models):
            raise UserError("the same model is named twice in --revprop-model")
        cases = select_cases(opt("revprop_cases"), opt("revprop_split"), opt("revprop_sizes"))
        from pytest_revprop.llm.types import RetryPolicy
        from pytest_revprop.prompts import Prompts

        retry = RetryPolicy(
            max_attempts=opt("revprop_retries"),
            base_delay=opt("revprop_retry_delay"),
            attempt_timeout_s=opt("revprop_timeout"),
        )
        settings = RunSettings(
            methods=expand_methods(opt("revprop_method")),
            k_values=opt("revprop_k"),
            seeds=opt("revprop_seeds"),
            cache_dir=None if opt("revprop_no_cache") else Path(opt("revprop_cache")),
            concurrency=opt("revprop_concurrency"),
            structured=opt("revprop_structured"),
            prompts=Prompts(opt("revprop_prompts")),
            retry=retry,
            transport=opt("revprop_transport"),
        )
        for name in {c.domain for c in cases} | {c.pattern for c in cases}:
            config.addinivalue_line("markers", f"{name}: RevPropBench cases of {name}")
        for name in KNOWN_MARKERS:
            config.addinivalue_line("markers", f"{name}: RevPropBench selection marker")
        for size in {c.size for c in cases}:
            config.addinivalue_line(
                "markers", f"size{size}: cases whose artifact has {size} leaves"
            )
        return cls(config, cases, models, settings)

    def header(self) -> str:
        s = self.settings
        return (
            f"revprop: models {', '.join(m.name for m in self.models)}; methods {', '.join(s.methods)}; "
            f"k {','.join(map(str, s.k_values))}; seeds {','.join(map(str, s.seeds))}; "
            f"{len(self.cases)} cases ({self.config.getoption('revprop_split')}); {len(self.specs)} items; "
            f"cache {s.cache_dir or 'off'}"
        )

    def worker_api_bases(self) -> dict[str, list[str]]:
        return {m.name: list(m.api_bases) for m in self.models}

    # ------------------------------------------------------------------ servers

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        if self.config.option.collectonly:
            return
        if self.is_worker:
            bases = self.config.workerinput.get("revprop_api_bases", {})  # type: ignore[attr-defined]
            self.models = [
                m.replace(api_bases=tuple(bases.get(m.name, m.api_bases))) for m in self.models
            ]
            return
        try:
            self._start_servers()
            self._check_servers()
        except UserError as exc:
            self._stop_servers()
            pytest.exit(f"revprop: {exc}", returncode=pytest.ExitCode.USAGE_ERROR)

    def _start_servers(self) -> None:
        started = []
        for model in self.models:
            if model.kind == "embedded" and not model.api_bases:
                from pytest_revprop.servers.embedded import embedded_server_for

                server = embedded_server_for(model)
                self.servers.append(server)
                server.start()
                model = model.replace(api_bases=(server.base_url,))
            started.append(model)
        self.models = started

    def _check_servers(self) -> None:
        urls = sorted({url for m in self.models if m.kind != "reference" for url in m.api_bases})
        if urls:
            from pytest_revprop.servers.health import check_servers

            check_servers(urls)

    def _stop_servers(self) -> None:
        for server in self.servers:
            server.stop()
        self.servers = []

    # ------------------------------------------------------------------ collection

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        """Add the evaluation items before -m/-k deselection and report them as collected."""
        by_id = {c.id: c for c in self.cases}
        created: list[pytest.Item] = [
            RevpropItem.from_parent(
                session,
                name=(name := spec.node_name()),
                nodeid=name,
                spec=spec,
                case=by_id[spec.case],
                runner_owner=self,
            )
            for spec in self.specs
        ]
        items.extend(created)
        report = pytest.CollectReport("revprop", "passed", None, list(created))
        config.hook.pytest_collectreport(report=report)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if self.config.option.collectonly:
            return
        specs = [item.spec for item in session.items if isinstance(item, RevpropItem)]
        self.runner = Runner(self.cases, self.models, self.settings)
        if self.is_worker:
            # xdist hands items out as workers free up, so no worker knows its items ahead:
            # each makes the calls of its share of the cases at once (cache claims keep any call
            # from being made twice) and runs the items it is handed on demand, calls first.
            index = int(str(os.environ.get("PYTEST_XDIST_WORKER", "gw0"))[2:] or 0)
            count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
            self.runner.prefetch(worker_share(specs, index, count))
        else:
            self.runner.start(specs)
        self._gc_for_run()  # after start: litellm, imported there, lives as long as the session

    def _gc_for_run(self) -> None:
        """A run allocates many short-lived containers while its live results pile up, and
        with the default settings the collector spent a fifth of a warm run re-scanning them:
        freeze what lives for the whole session and collect young objects less often, until
        the session ends."""
        self._gc_threshold = gc.get_threshold()
        gc.freeze()
        gc.set_threshold(
            *(max(old, new) for old, new in zip(self._gc_threshold, GC_THRESHOLD, strict=False))
        )

    def _gc_restore(self) -> None:
        """Collect as usual again; what was frozen stays frozen until ``_gc_unfreeze``."""
        if self._gc_threshold is not None:
            gc.set_threshold(*self._gc_threshold)
            self._gc_threshold = None
            self._frozen = True

    def _gc_unfreeze(self) -> None:
        """The last cleanup of the session (registered at configure, cleanups run last in
        first out): pytest's own cleanup collects five times over to find unraisable
        exceptions, two seconds with litellm loaded if the whole heap were unfrozen."""
        if self._frozen:
            gc.unfreeze()
            self._frozen = False

    def result(self, spec: ItemSpec) -> ResultRecord:
        if self.runner is None:
            self.runner = Runner(self.cases, self.models, self.settings)
        return self.runner.result(spec)

    # ------------------------------------------------------------------ results

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, Any, Any]:
        report = yield
        wanted = call.when == "call" or (call.when == "setup" and report.failed)
        if isinstance(item, RevpropItem) and item.record is not None and wanted:
            # a worker sends each reply's text once; the item lets go of its record
            record = self.sent.strip(item.record) if self.is_worker else item.record
            setattr(report, RECORD_ATTR, record)
            item.record = None
        return report

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> Generator[None, None, None]:
        """Once every plugin saw the report (an xdist worker's sends it on), its record goes
        to the sink (on disk, in the controller) and leaves the report, which pytest keeps."""
        yield
        record = getattr(report, RECORD_ATTR, None)
        if record is not None:
            if not self.is_worker:
                self.sink.add(record)
            delattr(report, RECORD_ATTR)

    def _add_finished(self, records: Sequence[ResultRecord]) -> None:
        """On Ctrl-C, add the items that finished in the background but were not reported yet,
        so the reports keep every finished result."""
        for record in records:
            if _record_key(record) not in self.sink:
                self.sink.add(record)

    @pytest.hookimpl(tryfirst=True, specname="pytest_sessionfinish")
    def pytest_sessionfinish_reports(self, session: pytest.Session, exitstatus: int) -> None:
        if self.runner is not None:
            # An xdist worker leaves while the others go on: they may wait for its requests.
            self.runner.close(
                finish_in_flight=self.is_worker and exitstatus != pytest.ExitCode.INTERRUPTED
            )
        self._gc_restore()
        self._stop_servers()
        if self.is_worker or self.config.option.collectonly:
            return
        if exitstatus == pytest.ExitCode.INTERRUPTED and self.runner is not None:
            self._add_finished(self.runner.done())
        if not len(self.sink):
            return
        from pytest_revprop.reporting.gate import gate, read_baseline, write_baseline

        meta = {
            "cases_path": str(self.config.getoption("revprop_cases") or BENCHMARK_DIR),
            "split": self.config.getoption("revprop_split"),
            "models": {
                m.name: {"litellm_model": m.litellm_model, "kind": m.kind} for m in self.models
            },
            "methods": list(self.settings.methods),
            "k_values": list(self.settings.k_values),
            "seeds": list(self.settings.seeds),
        }
        doc = self.sink.finish(meta)
        self._junit_properties(doc)
        if self.config.getoption("revprop_figures"):
            self._figures(doc, self.sink.out_dir)
        baseline = self.config.getoption("revprop_baseline")
        if baseline is not None:
            if self.config.getoption("revprop_update_baseline"):
                write_baseline(baseline, doc)
            else:
                try:
                    self.gate_result = gate(
                        read_baseline(baseline),
                        doc["results"],
                        self.config.getoption("revprop_max_drop"),
                    )
                except UserError as exc:
                    self.report_error = str(exc)
                    self.exit_override = pytest.ExitCode.USAGE_ERROR
                    return
                errors = any(r.get("error") == "call_failed" for r in doc["results"])
                if self.gate_result["regressions"]:
                    self.exit_override = REGRESSION_EXIT
                elif exitstatus == pytest.ExitCode.TESTS_FAILED and not errors:
                    self.exit_override = pytest.ExitCode.OK

    @pytest.hookimpl(wrapper=True)
    def pytest_sessionfinish(
        self, session: pytest.Session, exitstatus: int
    ) -> Generator[None, None, None]:
        """Set the gate's exit status after every other plugin (some OR in their own bits)."""
        yield
        if self.exit_override is not None:
            session.exitstatus = self.exit_override

    def _figures(self, doc: dict[str, Any], out_dir: Path) -> None:
        try:
            from pytest_revprop.reporting.report_command import write_report

            cases = {c.id: c.to_dict() for c in self.cases}
            samples = self.sink.records(with_replies=False)
            for path in write_report(doc, out_dir, samples=samples, cases=cases):
                path.chmod(0o600)  # like results.json: the report folder is the user's only
        except Exception as exc:  # figures must never cost the user their results
            self.report_error = f"figures/HTML report not written: {type(exc).__name__}: {exc}"

    def _junit_properties(self, doc: dict[str, Any]) -> None:
        from _pytest.junitxml import xml_key

        xml = self.config.stash.get(xml_key, None)
        if xml is None:
            return
        for row in doc["summary"]:
            name = f"revprop_completion_rate[{row['model']}|{row['method']}|k{row['k']}]"
            xml.add_global_property(name, f"{row['completion_rate']:.4f}")

    @pytest.hookimpl(wrapper=True, tryfirst=True, specname="pytest_terminal_summary")
    def pytest_terminal_summary_listing(self, terminalreporter: Any) -> Generator[None, None, None]:
        """Keep pytest's failure listing linear: for every failure it scans all passed setup
        and teardown reports for teardown output (11 s for the 2,030 failures of a test-split
        run, 19 s under xdist). Ours carry no output; they are set aside while it lists."""
        stats = getattr(terminalreporter, "stats", None)
        phases = stats.get("") if isinstance(stats, dict) else None
        if stats is None or not phases or not len(self.sink):
            return (yield)
        ours = {spec.node_name() for spec in self.specs}
        kept = [
            r
            for r in phases
            if getattr(r, "nodeid", None) not in ours or getattr(r, "sections", None)
        ]
        stats[""] = kept
        try:
            return (yield)
        finally:
            if stats.get("") is kept:
                stats[""] = phases

    def pytest_terminal_summary(
        self, terminalreporter: Any, exitstatus: int, config: pytest.Config
    ) -> None:
        if self.is_worker or not len(self.sink):
            return
        from pytest_revprop.reporting.aggregate import relative_rows, table_rows
        from pytest_revprop.reporting.tables import text_table

        summary = self.sink.summary()
        tr = terminalreporter
        tr.section("revprop summary")
        tr.write_line(text_table(*table_rows(summary)))
        header, rows = relative_rows(summary)
        if rows:
            tr.write_line("")
            tr.write_line(
                "relative to j+h (gain in points; cost-effectiveness = gain / (cost multiple - 1)):"
            )
            tr.write_line(text_table(header, rows))
        tr.write_line(
            f"reports: {self.config.getoption('revprop_report')}/results.json, samples.jsonl, summary.md"
        )
        if exitstatus == pytest.ExitCode.INTERRUPTED:
            tr.write_line(
                f"revprop: interrupted; the reports hold the {len(self.sink)} items that finished",
                yellow=True,
            )
        if self.runner is not None:
            for name, stats in self.runner.stats().items():
                tr.write_line(f"calls {name}: " + ", ".join(f"{k} {v}" for k, v in stats.items()))
        if self.report_error:
            tr.write_line(f"revprop: {self.report_error}", yellow=True)
        if self.gate_result is not None:
            self._print_gate(tr)

    def _print_gate(self, tr: Any) -> None:
        assert self.gate_result is not None
        max_drop = self.config.getoption("revprop_max_drop")
        tr.section("revprop baseline gate")
        for group in self.gate_result["comparison"].groups:
            tag = (
                "REGRESSION"
                if group in self.gate_result["regressions"]
                else ("improved" if group in self.gate_result["improvements"] else "ok")
            )
            tr.write_line(
                f"{tag:<10} {group.model} {group.method} k{group.k}: {100 * group.base_rate:.1f}% -> "
                f"{100 * group.new_rate:.1f}% ({group.delta:+.1f} pts, flips {group.b} down / {group.c} up, p={group.p_value:.3g})"
            )
            if tag != "ok":
                flipped = group.regressed if tag == "REGRESSION" else group.improved
                for sample in flipped[:20]:
                    tr.write_line(f"    {sample.case} seed {sample.seed}")
        if self.gate_result["regressions"]:
            tr.write_line(
                f"revprop: regression beyond {max_drop} points with p < 0.05: exit status 6",
                red=True,
            )


def _record_key(record: ResultRecord) -> tuple[Any, ...]:
    return (record["case"], record["model"], record["method"], record["k"], record["seed"])


def select_cases(path: Path | None, split: str, sizes: Sequence[int] | None) -> list[Case]:
    """Cases for a run: all files under ``path`` (default: the shipped benchmark), then the split
    and size filters. A broken file stops the run with its error (no silent partial set)."""
    loaded = load_cases([path or BENCHMARK_DIR])
    if loaded.errors:
        shown = "; ".join(str(e) for e in loaded.errors[:3])
        more = f" (and {len(loaded.errors) - 3} more)" if len(loaded.errors) > 3 else ""
        raise UserError(f"broken case file(s): {shown}{more}")
    cases = [c for c in loaded.cases if split == "all" or c.split == split]
    if sizes:
        cases = [c for c in cases if c.size in sizes]
    if not cases:
        raise UserError(
            f"no cases under {path or BENCHMARK_DIR} for split {split!r}"
            + (f" and sizes {list(sizes)}" if sizes else "")
        )
    return sorted(cases, key=lambda c: (c.scenario, c.size, c.id))


__all__ = ["RevpropItem", "RevpropSession", "describe_failure", "select_cases"]
