"""The per-run plugin object: the pytest hooks of a run, each implemented once.

``RevpropRun`` is registered (as "revprop-run") only when a run is on. It holds the run's
plan (``runplan.RunPlan``: cases, models, settings, items) and the state one run builds up:
the runner, the servers started for it, the record sink, the gate's verdict. Its hooks follow
a run: the servers and the checks before the first item, one item per spec, each report's
record to the sink, and ``pytest_sessionfinish``, which writes the end of the run as one
sequence. A plan (``--revprop-plan``) starts nothing and collects no item: its terminal
summary prints what the run would send. The jobs themselves live in the package's other modules: ``items`` and ``reports``
(the items and what their reports carry), ``outputs`` (the files), ``exit_status`` (the
gate), ``interruption`` (Ctrl-C), ``summary`` (the terminal).
"""

from __future__ import annotations

import functools
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import Any

import pytest

from pytest_revprop.errors import UserError
from pytest_revprop.plugin.exit_status import GateVerdict, scoped_exit_status
from pytest_revprop.plugin.gc_tuning import GcTuning
from pytest_revprop.plugin.interruption import (
    SigintShield,
    collect_handovers,
    hand_over,
    terminal_note,
)
from pytest_revprop.plugin.items import RevpropItem
from pytest_revprop.plugin.outputs import RunOutputs, write_outputs
from pytest_revprop.plugin.reports import (
    add_junit_rates,
    carry_record,
    failure_report,
    name_junit_testcase,
    not_completed,
    slim_report,
    take_record,
    was_cut,
)
from pytest_revprop.plugin.summary import NO_MARKUP, PhasesAside, summary_lines, write_section
from pytest_revprop.reporting.item_report import rerun_args
from pytest_revprop.reporting.sink import RecordSink, SentTexts
from pytest_revprop.run.plan import RunPlan
from pytest_revprop.run.runner import Runner, worker_share
from pytest_revprop.servers.startup import ready_models
from pytest_revprop.vocabulary import ResultRecord


class RevpropRun:
    """One run's plugin object; ``baseline`` is the document to compare with (controller)."""

    def __init__(
        self, config: pytest.Config, plan: RunPlan, baseline: dict[str, Any] | None
    ) -> None:
        self.config = config
        self.plan = plan
        self.is_worker = hasattr(config, "workerinput")
        self.runner: Runner | None = None
        self.servers: list[Any] = []
        self.sink = RecordSink(plan.report_dir)
        self.sent = SentTexts()
        self.verdict = GateVerdict(baseline)
        self.outputs: RunOutputs | None = None
        self.worker_nodes: list[Any] = []  # an xdist controller's workers, for the hand-over
        self.rerun_args = rerun_args([str(arg) for arg in config.invocation_params.args])
        self.phases = PhasesAside()
        self.gc = GcTuning()
        config.add_cleanup(self.gc.unfreeze)  # registered first, so it runs last
        self.shield = SigintShield(None if self.is_worker else terminal_note(config))
        config.add_cleanup(self.shield.remove)  # also when the session never started

    # ------------------------------------------------------------------ before the items

    def pytest_ignore_collect(self, collection_path: Path, config: pytest.Config) -> bool | None:
        """A benchmark run collects only its own items, unless --revprop-with-tests."""
        if collection_path.is_file() and not self.plan.value("revprop_with_tests"):
            return True
        return None

    def pytest_report_header(self, config: pytest.Config) -> str:
        return self.plan.header()

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """xdist: a worker calls the servers this process started."""
        node.workerinput["revprop_api_bases"] = self.plan.api_bases()

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodeready(self, node: Any) -> None:
        """xdist: the controller's workers, for the hand-over after a Ctrl-C."""
        self.worker_nodes.append(node)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """xdist: what a worker spent (its output's ``revprop_spent_usd``), for the run's total."""
        output = getattr(node, "workeroutput", None) or {}
        if "revprop_spent_usd" in output:
            spent = float(output["revprop_spent_usd"])
            self.plan.scope.worker_spent[str(node.gateway.id)] = spent

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """The models made ready (in the controller: servers started and checked; in a
        worker: pointed at them), the runner built, and the checks before the first item.
        A plan starts nothing: it sends no request."""
        if self.plan.scope.plan:
            return
        if self.is_worker:
            self.plan.use_api_bases(self.config.workerinput.get("revprop_api_bases", {}))  # type: ignore[attr-defined]
        elif not self.config.option.collectonly:
            try:
                self.plan.check_cache_folder()
                self.plan.models = ready_models(self.plan.models, self.servers)
                self.runner = Runner(self.plan.cases, self.plan.models, self.plan.settings)
                self.plan.check_credentials(self.runner)
            except UserError as exc:
                self._stop_servers()
                # a usage error, not pytest.exit: pytest prints it once, on one line
                raise pytest.UsageError(f"revprop: {exc}") from None
        if self.runner is None:
            self.runner = Runner(self.plan.cases, self.plan.models, self.plan.settings)

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        """Add the evaluation items before -m/-k deselection and report them as collected
        (none for a plan: it runs nothing)."""
        if self.runner is None:  # a plan
            return
        by_id = {c.id: c for c in self.plan.cases}
        created: list[pytest.Item] = [
            RevpropItem.from_parent(
                session,
                name=(name := spec.node_name()),
                nodeid=name,
                spec=spec,
                case=by_id[spec.case],
                runner=self.runner,
                rerun_args=self.rerun_args,
            )
            for spec in self.plan.specs
        ]
        items.extend(created)
        report = pytest.CollectReport("revprop", "passed", None, list(created))
        config.hook.pytest_collectreport(report=report)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Start the work of the items that survived deselection."""
        if self.config.option.collectonly or self.runner is None:
            return
        specs = [item.spec for item in session.items if isinstance(item, RevpropItem)]
        if self.is_worker:
            # xdist hands items out as workers free up, so no worker knows its items ahead:
            # each makes the calls of its share of the cases at once (cache claims keep any call
            # from being made twice) and runs the items it is handed on demand, calls first.
            worker = self.config.workerinput  # type: ignore[attr-defined]
            index, count = int(worker["workerid"].removeprefix("gw")), int(worker["workercount"])
            self.runner.prefetch(worker_share(specs, index, count, self.plan.settings.registry))
        else:
            self.runner.start(specs)
        self.gc.start()  # after start: litellm, imported there, lives as long as the session

    # ------------------------------------------------------------------ the items' reports

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, Any, Any]:
        """Our items' records onto their reports (``reports.carry_record``)."""
        report = yield
        if isinstance(item, RevpropItem):
            carry_record(report, item, call, self.sent.strip if self.is_worker else None)
        return report

    @pytest.hookimpl(tryfirst=True, specname="pytest_runtest_makereport")
    def pytest_runtest_makereport_ours(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> pytest.TestReport | None:
        """Our items' failures and errors as their few lines (``reports.failure_report``)."""
        return failure_report(item, call)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> Generator[None, None, None]:
        """Count the model's failures and name our JUnit testcases before junitxml opens them
        (the controller sees every report, xdist's too); once every plugin saw the report (an
        xdist worker's sends it on), its record goes to the sink (on disk, in the controller)
        and the report keeps only what pytest reads at the end (``reports.slim_report``)."""
        if not self.is_worker:
            if not_completed(report):
                self.verdict.count_not_completed()
            self.plan.scope.cut_items += was_cut(report)
            spec = self.plan.spec_of(report.nodeid)
            if spec is not None:
                name_junit_testcase(self.config, report, spec)
        yield
        record = take_record(report)
        if record is not None and not self.is_worker:
            self.sink.add(record)
            self._stop_if_refused(record)
        terminal = self.config.pluginmanager.get_plugin("terminalreporter")
        stats = getattr(terminal, "stats", None)
        slim_report(report, stats, keep_phases=self._keeps_phases(), in_worker=self.is_worker)

    def _stop_if_refused(self, record: ResultRecord) -> None:
        """Stop the run (exit 4, one line naming the key's variable) at the first item whose
        call the provider refused for its credentials: no later call of that model can
        succeed (the client sends none). Called where reports arrive: the controller."""
        failed = record.get("failed_call") or {}
        if not failed.get("refused"):
            return
        from pytest_revprop.llm.credentials import refusal_message

        model = next(m for m in self.plan.models if m.name == record["model"])
        pytest.exit(
            f"revprop: {refusal_message(model, failed)}", returncode=pytest.ExitCode.USAGE_ERROR
        )

    def _keeps_phases(self) -> bool:
        """Whether our passed setups and teardowns stay in the terminal's stats: for
        ``--durations``, which lists them."""
        return self.config.option.durations is not None

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, Any, Any]:
        """The items that did not complete out of pytest's failure count, under a baseline
        (``exit_status.GateVerdict.waive``)."""
        result = yield
        self.verdict.waive(session)
        return result

    # ------------------------------------------------------------------ the end

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        if isinstance(excinfo.value, KeyboardInterrupt):
            self.shield.install()  # a second Ctrl-C waits for the reports (interruption.py)

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_sessionfinish(
        self, session: pytest.Session, exitstatus: int
    ) -> Generator[None, None, None]:
        """The end of a run, in this order, around every other plugin's sessionfinish
        (junitxml writes its file there, an xdist worker sends its output to the controller):

        1. after a Ctrl-C: the shield (a second Ctrl-C waits for the reports) and, in an xdist
           controller, the records its workers handed over;
        2. the work stops: the runner (a worker leaving while others go on first finishes its
           requests in flight), the collector's run thresholds, the servers;
        3. a worker puts what it spent into its output and, interrupted, hands its finished
           records over; the controller keeps those finished but not reported after a Ctrl-C,
           writes the outputs, the completion rates into JUnit, and has the gate judge the run;
        4. every other plugin's sessionfinish;
        5. the gate's verdict folded into the exit status they left, then the scope's say
           (a plan exits 0, a run the spending ceiling cut gets ``CUT_EXIT``);
        6. the shield removed.
        """
        interrupted = exitstatus == pytest.ExitCode.INTERRUPTED
        if interrupted:
            self.shield.install()
        try:
            if interrupted and self.worker_nodes:
                self._add_finished(collect_handovers(self.worker_nodes))
            self._stop_work(leaving=self.is_worker and not interrupted)
            if self.is_worker:
                output = getattr(self.config, "workeroutput", None)
                if output is not None and self.runner is not None:
                    output["revprop_spent_usd"] = self.runner.ceiling.spent_usd
                    if interrupted:
                        hand_over(output, self.runner.done())
            elif not self.config.option.collectonly:
                if interrupted and self.runner is not None:
                    self._add_finished(self.runner.done())
                self._write_outputs()
            yield
            self.verdict.fold(session)
            session.exitstatus = scoped_exit_status(session.exitstatus, self.plan.scope)
        finally:
            self.shield.remove()

    def _stop_work(self, *, leaving: bool) -> None:
        if self.runner is not None:
            # An xdist worker leaves while the others go on: they may wait for its requests.
            self.runner.close(finish_in_flight=leaving)
        self.gc.restore()
        self._stop_servers()

    def _stop_servers(self) -> None:
        for server in self.servers:
            server.stop()
        self.servers = []

    def _add_finished(self, records: Sequence[ResultRecord]) -> None:
        """On Ctrl-C, add the items that finished in the background but were not reported yet,
        so the reports keep every finished result."""
        for record in records:
            key = (record["case"], record["model"], record["method"], record["k"], record["seed"])
            if key not in self.sink:
                self.sink.add(record)

    def _write_outputs(self) -> None:
        if not len(self.sink):
            return
        hook = functools.partial(self.config.hook.pytest_revprop_results, config=self.config)
        spent = self.plan.scope.spent_usd(self.runner)
        self.outputs = write_outputs(self.plan, self.sink, hook, spent)
        add_junit_rates(self.config, self.outputs.summary)
        if not self.plan.value("revprop_update_baseline"):
            self.verdict.judge(
                self.outputs.doc["results"],
                self.plan.value("revprop_max_drop"),
                self.plan.baseline_path or "",
                self.plan.value("revprop_gate_metric"),
            )

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> Generator[None, None, None]:
        """Around pytest's failure listing, our passed setups and teardowns aside (kept only
        under ``--durations``: ``summary.PhasesAside``)."""
        if self.outputs is not None and self._keeps_phases():
            self.phases.set_aside(terminalreporter, {s.node_name() for s in self.plan.specs})
        try:
            return (yield)
        finally:
            self.phases.put_back()

    @pytest.hookimpl(tryfirst=True, specname="pytest_terminal_summary")
    def pytest_terminal_summary_ours(self, terminalreporter: Any, exitstatus: int) -> None:
        """Our setups and teardowns back once the failures are listed (the terminal does that
        before the other plugins' summaries; ``--durations`` lists them), then our sections."""
        self.phases.put_back()
        if self.plan.scope.plan:
            if not self.is_worker:
                plan_lines = [(line, NO_MARKUP) for line in self.plan.plan_lines()]
                write_section(terminalreporter, "revprop plan", plan_lines)
            return
        scope = self.plan.scope
        if self.outputs is None and not scope.cut_items:
            return
        lines = summary_lines(
            self.outputs,
            cut_line=scope.cut_line(scope.spent_usd(self.runner)) if scope.cut_items else None,
            interrupted=exitstatus == pytest.ExitCode.INTERRUPTED,
            kept=len(self.sink),
            call_stats=self.runner.stats() if self.runner is not None else {},
        )
        write_section(terminalreporter, "revprop summary", lines)
        gate_lines = self.verdict.section(self.plan.value("revprop_max_drop"))
        if gate_lines:
            write_section(terminalreporter, "revprop baseline gate", gate_lines)


__all__ = ["RevpropRun"]
