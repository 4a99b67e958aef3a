"""pytest glue, part two: the per-run plugin object.

``RevpropSession`` (registered only in a run) turns options into cases, models and a Runner,
makes one item (``items.py``) per (case, model, method, k, seed), hands each item's record
(builtin data) to the record sink, which writes it to disk at once, and at the end writes the
reports, prints the summary and folds the gate's verdict into the exit status, never
overwriting what pytest and other plugins set (docs/interfaces.md, "Exit codes").
"""

from __future__ import annotations

import functools
import os
from collections.abc import Generator, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_revprop.cases import BENCHMARK_DIR, Case, select_cases
from pytest_revprop.errors import UserError
from pytest_revprop.llm.presets import ModelConfig, load_config, resolve_model
from pytest_revprop.options import option_label, option_value
from pytest_revprop.plugin.gc_tuning import RunCollector
from pytest_revprop.plugin.interruption import (
    SigintShield,
    collect_handovers,
    hand_over,
    terminal_note,
)
from pytest_revprop.plugin.items import (
    CUT_ATTR,
    NOT_COMPLETED_ATTR,
    OURS_ATTR,
    RECORD_ATTR,
    RevpropFailure,
    RevpropItem,
    let_go,
)
from pytest_revprop.plugin.preflight import check_cache_folder, check_credentials, run_settings
from pytest_revprop.registry import registered_through
from pytest_revprop.reporting.item_report import ItemReport, rerun_args
from pytest_revprop.reporting.sink import REPORT_FILES, RecordSink, SentTexts
from pytest_revprop.runner import (
    ItemSpec,
    Runner,
    RunSettings,
    item_specs,
    worker_share,
)
from pytest_revprop.scaleout import RunScope, run_scope
from pytest_revprop.servers.startup import ready_models
from pytest_revprop.vocabulary import (
    BENCHMARK_MARKERS,
    PYTEST_USAGE_EXIT,
    REGRESSION_EXIT,
    ResultRecord,
)

if TYPE_CHECKING:
    from pytest_revprop.reporting.gate import GateResult

JUNIT_CLASSNAME = "revprop.{model}.{method}-k{k}"
"""The JUnit ``classname`` of an item: CI viewers group testcases by it (and split it at the
last dot into package and class); the testcase ``name`` is the item's node id."""


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
        self.sink = RecordSink(Path(option_value(config, "revprop_report")))
        self.sent = SentTexts()
        self.servers: list[Any] = []
        self.baseline: dict[str, Any] | None = None
        """The baseline to compare with (read and checked at configure), None when not comparing."""
        self.gate_result: GateResult | None = None
        self.gate_error: str | None = None
        self.gate_status: int | None = None
        """REGRESSION_EXIT or USAGE_ERROR, folded into the session's exit status at the end."""
        self.not_completed = 0
        """Items whose sample did not complete, counted on the controller."""
        self.report_error: str | None = None
        self.written: list[Path] = []
        self.baseline_written: Path | None = None
        self._specs_by_node: dict[str, ItemSpec] | None = None
        self._phases_aside: tuple[dict[str, list[Any]], list[Any], list[Any]] | None = None
        self.is_worker = hasattr(config, "workerinput")
        self.collector = RunCollector()
        config.add_cleanup(self.collector.unfreeze)  # registered first, so it runs last
        self.worker_nodes: list[Any] = []  # an xdist controller's workers, for the hand-over
        self._shield = SigintShield(None if self.is_worker else terminal_note(config))
        config.add_cleanup(self._shield.remove)  # also when the session never started
        self.rerun_args = rerun_args([str(arg) for arg in config.invocation_params.args])
        self.scope = RunScope()

    # ------------------------------------------------------------------ building

    @classmethod
    def from_config(cls, config: pytest.Config) -> RevpropSession:
        def opt(name: str) -> Any:
            return option_value(config, name)

        overrides = load_config(Path(str(config.rootpath)))
        api_bases = opt("revprop_api_base") or ()
        registry, presets = registered_through(config.hook)
        models = [
            resolve_model(
                name, api_bases=api_bases, overrides=overrides, registered=presets.presets
            )
            for name in opt("revprop_model")
        ]
        if len({m.name for m in models}) != len(models):
            raise UserError(
                f"the same model is named twice in {option_label(config, 'revprop_model')}"
            )
        cases = select_cases(
            opt("revprop_cases"), opt("revprop_split"), opt("revprop_sizes"), opt("revprop_case")
        )
        settings = run_settings(opt, registry)
        workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
        cases, scope = run_scope(
            cases, models, settings, opt, functools.partial(option_label, config),
            workers=workers if hasattr(config, "workerinput") else 1,
        )  # fmt: skip
        for name in {c.domain for c in cases} | {c.pattern for c in cases}:
            config.addinivalue_line("markers", f"{name}: RevPropBench cases of {name}")
        for name in BENCHMARK_MARKERS:
            config.addinivalue_line("markers", f"{name}: RevPropBench selection marker")
        for size in {c.size for c in cases}:
            config.addinivalue_line(
                "markers", f"size{size}: cases whose artifact has {size} leaves"
            )
        session = cls(config, cases, models, settings)
        session.scope = scope
        comparing = opt("revprop_baseline") is not None and not opt("revprop_update_baseline")
        if comparing and not session.is_worker:
            from pytest_revprop.reporting.gate import groups_of, read_comparable_baseline

            planned = groups_of(
                {"model": s.model, "method": s.method, "k": s.k} for s in session.specs
            )
            session.baseline = read_comparable_baseline(opt("revprop_baseline"), planned)
        return session

    def header(self) -> str:
        from pytest_revprop.reporting.header import run_header

        return run_header(
            self.models,
            self.settings,
            split=self.config.getoption("revprop_split"),
            cases_path=self.config.getoption("revprop_cases") or BENCHMARK_DIR,
            n_cases=len(self.cases),
            n_items=len(self.specs),
        )

    def worker_api_bases(self) -> dict[str, list[str]]:
        return {m.name: list(m.api_bases) for m in self.models}

    # ------------------------------------------------------------------ servers

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        if self.config.option.collectonly or self.scope.plan:
            return
        if self.is_worker:
            bases = self.config.workerinput.get("revprop_api_bases", {})  # type: ignore[attr-defined]
            self.models = [
                m.replace(api_bases=tuple(bases.get(m.name, m.api_bases))) for m in self.models
            ]
            return
        try:
            self._ready_models()
        except UserError as exc:
            self._stop_servers()
            pytest.exit(f"revprop: {exc}", returncode=pytest.ExitCode.USAGE_ERROR)

    def _ready_models(self) -> None:
        check_cache_folder(self.settings.cache_dir, self.models)
        self.models = ready_models(self.models, self.servers)
        check_credentials(self.models, self._runner, self.specs)

    def _runner(self) -> Runner:
        if self.runner is None:
            self.runner = Runner(self.cases, self.models, self.settings)
        return self.runner

    def stop_if_refused(self, record: ResultRecord) -> None:
        """Stop the run (exit 4, one line naming the key's variable) at the first item whose
        call the provider refused for its credentials: no later call of that model can
        succeed (the client sends none). Called where reports arrive: the controller."""
        failed = record.get("failed_call") or {}
        if not failed.get("refused"):
            return
        from pytest_revprop.llm.credentials import refusal_message

        model = next(m for m in self.models if m.name == record["model"])
        pytest.exit(
            f"revprop: {refusal_message(model, failed)}", returncode=pytest.ExitCode.USAGE_ERROR
        )

    def _stop_servers(self) -> None:
        for server in self.servers:
            server.stop()
        self.servers = []

    # ------------------------------------------------------------------ collection

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        """Add the evaluation items before -m/-k deselection and report them as collected
        (none for a plan: it runs nothing)."""
        if self.scope.plan:
            return
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
        if self.config.option.collectonly or self.scope.plan:
            return
        specs = [item.spec for item in session.items if isinstance(item, RevpropItem)]
        runner = self._runner()  # the credentials check may have made it
        if self.is_worker:
            # xdist hands items out as workers free up, so no worker knows its items ahead:
            # each makes the calls of its share of the cases at once (cache claims keep any call
            # from being made twice) and runs the items it is handed on demand, calls first.
            index = int(str(os.environ.get("PYTEST_XDIST_WORKER", "gw0"))[2:] or 0)
            count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
            runner.prefetch(worker_share(specs, index, count, self.settings.registry))
        else:
            runner.start(specs)
        self.collector.start()  # after start: litellm, imported there, lives as long as the session

    def result(self, spec: ItemSpec) -> ResultRecord:
        return self._runner().result(spec)

    def uses_k(self, method: str) -> bool:
        return self.settings.registry.get(method).uses_k

    # ------------------------------------------------------------------ results

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, Any, Any]:
        report = yield
        if not isinstance(item, RevpropItem):
            return report
        setattr(report, OURS_ATTR, True)
        if call.when == "setup" and item.cut:
            setattr(report, CUT_ATTR, True)
        if call.when == "teardown":
            item.user_properties.clear()  # the report has its own copy
        wanted = call.when == "call" or (call.when == "setup" and report.failed)
        if item.record is not None and wanted:
            # a worker sends each reply's text once; the item lets go of its record
            record = self.sent.strip(item.record) if self.is_worker else item.record
            setattr(report, RECORD_ATTR, record)
            if call.excinfo is not None and isinstance(call.excinfo.value, RevpropFailure):
                setattr(report, NOT_COMPLETED_ATTR, True)
            item.record = None
        return report

    @pytest.hookimpl(tryfirst=True, specname="pytest_runtest_makereport")
    def pytest_runtest_makereport_ours(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> pytest.TestReport | None:
        """The report of our items' failures and errors: their few lines (``report_text``).
        pytest's own would first format the traceback of an error in setup (it does not ask
        ``repr_failure`` then), thousands of lines to be thrown away, which under xdist at times
        crashed a worker inside Python's parser."""
        when = call.when
        if not isinstance(item, RevpropItem) or call.excinfo is None or when == "collect":
            return None
        text = item.report_text(call.excinfo.value)
        if text is None:
            return None
        longrepr: Any = ItemReport(text)
        sections = [
            (f"Captured {key} {when}", content)
            for when, key, content in getattr(item, "_report_sections", [])
        ]
        return pytest.TestReport(
            item.nodeid, item.location, dict.fromkeys(item.keywords, 1), "failed", longrepr,
            when, sections, call.duration, call.start, call.stop,
            user_properties=item.user_properties,
        )  # fmt: skip

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> Generator[None, None, None]:
        """Count the model's failures and name our JUnit testcases before junitxml opens them
        (the controller sees every report, xdist's too); once every plugin saw the report (an
        xdist worker's sends it on), its record goes to the sink (on disk, in the controller)
        and the report keeps only what pytest reads at the end (``items.let_go``)."""
        if not self.is_worker:
            if getattr(report, NOT_COMPLETED_ATTR, False) and report.failed:
                self.not_completed += 1
            self.scope.cut_items += bool(getattr(report, CUT_ATTR, False))
            self._junit_names(report)
        yield
        record = getattr(report, RECORD_ATTR, None)
        if record is not None:
            delattr(report, RECORD_ATTR)
            if not self.is_worker:
                self.sink.add(record)
                self.stop_if_refused(record)
        terminal = self.config.pluginmanager.get_plugin("terminalreporter")
        stats = getattr(terminal, "stats", None)
        let_go(report, stats, keep_phases=self._keeps_phases(), in_worker=self.is_worker)

    def _keeps_phases(self) -> bool:
        """Whether our passed setups and teardowns stay in the terminal's stats: for
        ``--durations``, which lists them."""
        return self.config.option.durations is not None

    def _junit_names(self, report: pytest.TestReport) -> None:
        from _pytest.junitxml import xml_key

        xml = self.config.stash.get(xml_key, None)
        if xml is None or not (report.when == "call" or report.failed):
            return  # junitxml opens a testcase for a call or a failure only
        spec = self._spec_of(report.nodeid)
        if spec is None:
            return
        # junitxml keeps attributes set before it records a report (record_xml_attribute's way)
        reporter = xml.node_reporter(report)
        reporter.add_attribute(
            "classname", JUNIT_CLASSNAME.format(model=spec.model, method=spec.method, k=spec.k)
        )
        reporter.add_attribute("name", report.nodeid)

    def _spec_of(self, nodeid: str) -> ItemSpec | None:
        if self._specs_by_node is None:
            self._specs_by_node = {spec.node_name(): spec for spec in self.specs}
        return self._specs_by_node.get(nodeid)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, Any, Any]:
        """Under a baseline the gate decides about the model's failures: pytest's failure
        count, from which it derives the exit status that every plugin then sees and combines
        with, keeps every other failure and error but not the items that did not complete."""
        result = yield
        if self.baseline is not None:
            session.testsfailed = max(0, session.testsfailed - self.not_completed)
        return result

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
        self.collector.restore()
        self._stop_servers()
        if self.is_worker or self.config.option.collectonly:
            return
        if exitstatus == pytest.ExitCode.INTERRUPTED and self.runner is not None:
            self._add_finished(self.runner.done())
        if not len(self.sink):
            return
        from pytest_revprop.reporting.gate import gate, write_baseline

        meta = {
            "cases_path": str(self.config.getoption("revprop_cases") or BENCHMARK_DIR),
            "split": self.config.getoption("revprop_split"),
            "models": {
                m.name: {"litellm_model": m.litellm_model, "kind": m.kind} for m in self.models
            },
            "methods": list(self.settings.methods),
            "method_info": {
                name: info
                for name, info in self.settings.registry.info().items()
                if name in self.settings.methods
            },
            "k_values": list(self.settings.k_values),
            "seeds": list(self.settings.seeds),
            **self.scope.meta(self.spent_usd()),
        }
        doc = self.sink.finish(meta)
        out_dir = self.sink.out_dir
        self.written = [out_dir / name for name in REPORT_FILES]
        self._results_hook(doc, self.sink.records())
        self._junit_properties(doc)
        if not self.config.getoption("revprop_no_figures"):
            self._figures(doc, out_dir)
            self.written += [d for d in [out_dir / "report_files"] if d.is_dir()]
        if self.config.getoption("revprop_update_baseline"):
            self.baseline_written = self.config.getoption("revprop_baseline")
            write_baseline(self.config.getoption("revprop_baseline"), doc)
        elif self.baseline is not None:
            try:
                self.gate_result = gate(
                    self.baseline,
                    doc["results"],
                    self.config.getoption("revprop_max_drop"),
                    name=str(self.config.getoption("revprop_baseline")),
                    metric=self.config.getoption("revprop_gate_metric"),
                )
            except UserError as exc:
                self.gate_error = str(exc)
                self.gate_status = PYTEST_USAGE_EXIT
                return
            if self.gate_result["regressions"]:
                self.gate_status = REGRESSION_EXIT

    # ------------------------------------------------------------------ interruption

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        if isinstance(excinfo.value, KeyboardInterrupt):
            self._shield.install()  # a second Ctrl-C waits for the reports (interruption.py)

    @pytest.hookimpl(wrapper=True, tryfirst=True, specname="pytest_sessionfinish")
    def pytest_sessionfinish_interrupted(
        self, session: pytest.Session, exitstatus: int
    ) -> Generator[None, None, None]:
        """Around the whole finish after a Ctrl-C: the shield; an xdist controller first takes
        the items its workers finished."""
        if exitstatus == pytest.ExitCode.INTERRUPTED:
            self._shield.install()
            self._add_finished(collect_handovers(self.worker_nodes) if self.worker_nodes else [])
        try:
            return (yield)
        finally:
            self._shield.remove()

    @pytest.hookimpl(trylast=True, specname="pytest_sessionfinish")
    def pytest_sessionfinish_hand_over(self, session: pytest.Session, exitstatus: int) -> None:
        """An interrupted xdist worker hands the items it finished to the controller; every
        worker tells it what it spent."""
        output = getattr(self.config, "workeroutput", None)
        if output is not None and self.runner is not None:
            output["revprop_spent_usd"] = self.runner.ceiling.spent_usd
        if exitstatus == pytest.ExitCode.INTERRUPTED and output is not None and self.runner:
            hand_over(output, self.runner.done())

    @pytest.hookimpl(wrapper=True)
    def pytest_sessionfinish(
        self, session: pytest.Session, exitstatus: int
    ) -> Generator[None, None, None]:
        """Fold the gate's verdict into the exit status after every other plugin has set or
        OR-ed in its own."""
        yield
        if self.gate_status is not None:
            from pytest_revprop.reporting.gate import combined_exit_status

            session.exitstatus = combined_exit_status(session.exitstatus, self.gate_status)
        if self.scope.plan and session.exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED:
            session.exitstatus = pytest.ExitCode.OK  # a plan runs no item, by design
        session.exitstatus = self.scope.exit_status(session.exitstatus)

    def _figures(self, doc: dict[str, Any], out_dir: Path) -> None:
        try:
            from pytest_revprop.reporting.report_command import write_report

            cases = {c.id: c.to_dict() for c in self.cases}
            samples = self.sink.records(with_replies=False)
            for path in write_report(doc, out_dir, samples=samples, cases=cases):
                path.chmod(0o600)  # like results.json: the report folder is the user's only
                self.written.append(path)
        except Exception as exc:  # figures must never cost the user their results
            self.report_error = f"figures/HTML report not written: {type(exc).__name__}: {exc}"

    def _results_hook(self, doc: dict[str, Any], records: Iterable[Mapping[str, Any]]) -> None:
        """Hand the run's results to ``pytest_revprop_results`` implementations, once; one
        that raises is reported and costs no result. ``records`` streams them back from disk."""
        try:
            self.config.hook.pytest_revprop_results(
                summary=doc["summary"], records=records, config=self.config
            )
        except Exception as exc:
            self.report_error = f"pytest_revprop_results failed: {type(exc).__name__}: {exc}"

    def _junit_properties(self, doc: dict[str, Any]) -> None:
        from _pytest.junitxml import xml_key

        xml = self.config.stash.get(xml_key, None)
        if xml is None:
            return
        for row in doc["summary"]:
            name = f"revprop_completion_rate[{row['model']}|{row['method']}|k{row['k']}]"
            rate = row["completion_rate"]  # None: every item errored (JSON-style null)
            xml.add_global_property(name, "null" if rate is None else f"{rate:.4f}")

    @pytest.hookimpl(wrapper=True, tryfirst=True, specname="pytest_terminal_summary")
    def pytest_terminal_summary_listing(self, terminalreporter: Any) -> Generator[None, None, None]:
        """Keep pytest's failure listing linear: for every failure it scans all passed setup
        and teardown reports for teardown output (11 s for the 2,030 failures of a test-split
        run, 19 s under xdist). Ours carry none: they are gone already (``items.let_go``) but
        under ``--durations``, when they are set aside while the terminal lists the failures
        and put back for the durations (``pytest_terminal_summary_durations``)."""
        stats = getattr(terminalreporter, "stats", None)
        phases = stats.get("") if isinstance(stats, dict) else None
        if stats is None or not phases or not len(self.sink) or not self._keeps_phases():
            return (yield)
        ours = {spec.node_name() for spec in self.specs}
        kept = [
            r
            for r in phases
            if getattr(r, "nodeid", None) not in ours or getattr(r, "sections", None)
        ]
        stats[""] = kept
        self._phases_aside = (stats, kept, phases)
        try:
            return (yield)
        finally:
            self.pytest_terminal_summary_durations()

    @pytest.hookimpl(tryfirst=True, specname="pytest_terminal_summary")
    def pytest_terminal_summary_durations(self) -> None:
        """Our setup and teardown reports back once the failures are listed (the terminal does
        that before the other plugins' summaries), so that ``--durations`` lists them."""
        if self._phases_aside is not None:
            stats, kept, phases = self._phases_aside
            if stats.get("") is kept:
                stats[""] = phases
            self._phases_aside = None

    def pytest_terminal_summary(
        self, terminalreporter: Any, exitstatus: int, config: pytest.Config
    ) -> None:
        tr = terminalreporter
        if not self.is_worker and self.scope.plan:
            self._write_plan(tr)
        if self.is_worker or self.scope.plan or not (len(self.sink) or self.scope.cut_items):
            return
        from pytest_revprop.reporting.aggregate import summary_text

        tr.section("revprop summary")
        if self.scope.cut_items:
            tr.write_line(self.scope.cut_line(self.spent_usd()), red=True)
        if len(self.sink):
            tr.write_line(summary_text(self.sink.summary()))
        if self.written:
            first, *rest = self.written
            tr.write_line(f"reports: {first}" + "".join(f", {path.name}" for path in rest))
        if self.baseline_written is not None:
            tr.write_line(f"baseline written: {self.baseline_written}")
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
        if self.gate_result is not None or self.gate_error is not None:
            from pytest_revprop.reporting.gate import gate_section

            tr.section("revprop baseline gate")
            max_drop = self.config.getoption("revprop_max_drop")
            for line, markup in gate_section(self.gate_result, self.gate_error, max_drop):
                tr.write_line(line, **markup)

    def _write_plan(self, tr: Any) -> None:
        from pytest_revprop.planning import plan_lines, plan_run

        tr.section("revprop plan")
        plans = plan_run(self.cases, self.models, self.settings, self.specs)
        for line in plan_lines(plans, shard=self.scope.shard):
            tr.write_line(line)

    def spent_usd(self) -> float:
        """What the run's calls cost (cached replies are free)."""
        return self.scope.spent_usd(0.0 if self.runner is None else self.runner.ceiling.spent_usd)


def _record_key(record: ResultRecord) -> tuple[Any, ...]:
    return (record["case"], record["model"], record["method"], record["k"], record["seed"])


__all__ = ["RevpropSession"]
