"""The controller's role: the process that writes the reports (the xdist controller, or the
only process of a plain run, which also runs the items through ``item_hooks.ItemHooks``).

``RevpropController`` starts the servers and checks what a run needs before its first item,
points the xdist workers at the servers, takes each reported record into the sink, counts what
the gate and the spending ceiling need, and at the end writes the outputs, has the gate judge
the run and sets the exit status (``exit_status``); the terminal gets the run's sections. An
estimate (``--revprop-plan``) starts nothing and collects no item: its terminal summary prints
what the run would send.

One item's record, from collection to the sink:

1. ``item_hooks.ItemHooks.pytest_collection_modifyitems`` makes the ``items.RevpropItem`` of
   its ``ItemSpec``; ``pytest_collection_finish`` has the role start the items' work
   (``Runner.start`` here, ``Runner.prefetch`` of a share of the cases in a worker);
2. ``RevpropItem.setup`` takes the record from ``Runner.result`` (``item.record``);
3. ``ItemHooks.pytest_runtest_makereport`` moves it onto the call report
   (``reports.carry_record``, ``RECORD_ATTR``; a worker's ``outgoing`` leaves out the reply
   texts it sent before), the one channel of a reported record: xdist sends the report on;
4. ``RevpropController.pytest_runtest_logreport`` takes it off (``reports.take_record``) and
   adds it to the sink (``reporting.sink.RecordSink.add``), which writes it to disk.

After a Ctrl-C the records that finished but were never reported (no report can carry them)
come by the only other way xdist offers: each worker's ``workeroutput``
(``interruption.hand_over``), read here by ``interruption.collect_handovers``.
"""

from __future__ import annotations

import functools
from collections.abc import Generator, Sequence
from typing import Any

import pytest

from pytest_revprop.errors import UserError
from pytest_revprop.llm.presets import ModelConfig
from pytest_revprop.plugin.exit_status import GateVerdict, run_exit_status
from pytest_revprop.plugin.interruption import collect_handovers, terminal_note
from pytest_revprop.plugin.outputs import RunOutputs, write_outputs
from pytest_revprop.plugin.reports import (
    add_junit_rates,
    name_junit_testcase,
    not_completed,
    slim_report,
    take_record,
    was_cut,
)
from pytest_revprop.plugin.role import RunRole
from pytest_revprop.plugin.summary import NO_MARKUP, PhasesAside, summary_lines, write_section
from pytest_revprop.plugin.worker import SPENT_KEY
from pytest_revprop.reporting.sink import RecordSink
from pytest_revprop.run.items import ItemSpec
from pytest_revprop.run.plan import RunPlan, api_bases
from pytest_revprop.run.runner import Runner
from pytest_revprop.run.scope import SpendingTally
from pytest_revprop.servers.startup import ready_models
from pytest_revprop.vocabulary import ResultRecord, item_key


class RevpropController(RunRole):
    """The controller of one run; ``baseline`` is the document to compare with (None: none)."""

    def __init__(
        self, config: pytest.Config, plan: RunPlan, baseline: dict[str, Any] | None
    ) -> None:
        super().__init__(config, plan, terminal_note(config))
        self.models: list[ModelConfig] = list(plan.models)
        """The plan's models, made ready at the session's start (pointed at the servers)."""
        self.servers: list[Any] = []
        self.sink = RecordSink(plan.report_dir)
        self.verdict = GateVerdict(
            baseline, writes_baseline=bool(plan.value("revprop_update_baseline"))
        )
        self.tally = SpendingTally()
        self.outputs: RunOutputs | None = None
        self.worker_nodes: list[Any] = []
        """The xdist workers, for the hand-over after a Ctrl-C."""
        self.phases = PhasesAside()

    # ------------------------------------------------------------------ before the items

    def pytest_report_header(self, config: pytest.Config) -> str:
        """The run header: versions, models (where their calls go), methods, items."""
        return self.plan.header(self.models)

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """xdist: a worker calls the servers this process started."""
        node.workerinput["revprop_api_bases"] = api_bases(self.models)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodeready(self, node: Any) -> None:
        """xdist: the controller's workers, for the hand-over after a Ctrl-C."""
        self.worker_nodes.append(node)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """xdist: what a worker spent (its output's ``revprop_spent_usd``), for the run's total."""
        output = getattr(node, "workeroutput", None) or {}
        if SPENT_KEY in output:
            self.tally.note_worker(str(node.gateway.id), float(output[SPENT_KEY]))

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """The servers started and checked, the runner made, and the checks before the first
        item (not under ``--collect-only``). An estimate starts nothing: it sends no request."""
        if self.plan.scope.estimate_only:
            return
        if not self.config.option.collectonly:
            try:
                self.plan.check_cache_folder()
                self.models = ready_models(self.plan.models, self.servers)
                self.runner = self._make_runner()
                self.plan.check_credentials(self.runner, self.models)
            except UserError as exc:
                self._stop_servers()
                # a usage error, not pytest.exit: pytest prints it once, on one line
                raise pytest.UsageError(f"revprop: {exc}") from None
        if self.runner is None:
            self.runner = self._make_runner()

    def _make_runner(self) -> Runner:
        """The runner of this process: under the whole ceiling, as it runs every item when it
        runs any (a run without xdist workers)."""
        plan = self.plan
        return Runner(plan.cases, self.models, plan.settings, max_cost_usd=plan.scope.max_cost_usd)

    def _begin(self, runner: Runner, specs: Sequence[ItemSpec]) -> None:
        """Every item of this process at once (``Runner.start``): it runs them all."""
        runner.start(specs)

    # ------------------------------------------------------------------ the items' reports

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> Generator[None, None, None]:
        """Count the model's failures and the items the ceiling cut, and name our JUnit
        testcases before junitxml opens them; once every plugin saw the report, its record goes
        to the sink and the report keeps only what pytest reads at the end
        (``reports.slim_report``)."""
        if not_completed(report):
            self.verdict.count_not_completed()
        if was_cut(report):
            self.tally.note_cut()
        spec = self.plan.spec_of(report.nodeid)
        if spec is not None:
            name_junit_testcase(self.config, report, spec)
        yield
        record = take_record(report)
        if record is not None:
            self.sink.add(record)
            self._stop_if_refused(record)
        terminal = self.config.pluginmanager.get_plugin("terminalreporter")
        slim_report(report, getattr(terminal, "stats", None), keep_phases=self._keeps_phases())

    def _stop_if_refused(self, record: ResultRecord) -> None:
        """Stop the run (exit 4, one line naming the key's variable) at the first item whose
        call the provider refused for its credentials: no later call of that model can
        succeed (the client sends none)."""
        failed = record.get("failed_call") or {}
        if not failed.get("refused"):
            return
        from pytest_revprop.llm.credentials import refusal_message

        model = next(m for m in self.models if m.name == record["model"])
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

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_sessionfinish(
        self, session: pytest.Session, exitstatus: int
    ) -> Generator[None, None, None]:
        """The end of a run, in this order, around every other plugin's sessionfinish
        (junitxml writes its file there):

        1. after a Ctrl-C: the shield (a second Ctrl-C waits for the reports) and the records
           the xdist workers handed over;
        2. the work stops: the runner, the collector's run thresholds, the servers;
        3. after a Ctrl-C the records that finished here but were not reported; then the
           outputs, the completion rates into JUnit, and the gate's verdict;
        4. every other plugin's sessionfinish;
        5. the exit status (``exit_status.run_exit_status``) from the one they left;
        6. the shield removed.
        """
        interrupted = exitstatus == pytest.ExitCode.INTERRUPTED
        if interrupted:
            self.shield.install()
        try:
            if interrupted and self.worker_nodes:
                self._add_finished(collect_handovers(self.worker_nodes))
            self.stop_runner(leaving=False)
            self._stop_servers()
            if not self.config.option.collectonly:
                if interrupted and self.runner is not None:
                    self._add_finished(self.runner.done())
                self._write_outputs(interrupted=interrupted)
            yield
            session.exitstatus = run_exit_status(
                session.exitstatus,
                gate_status=self.verdict.status,
                estimate_only=self.plan.scope.estimate_only,
                cut_items=self.tally.cut_items,
            )
        finally:
            self.shield.remove()

    def _stop_servers(self) -> None:
        for server in self.servers:
            server.stop()
        self.servers = []

    def _add_finished(self, records: Sequence[ResultRecord]) -> None:
        """On Ctrl-C, add the items that finished in the background but were not reported yet,
        so the reports keep every finished result."""
        for record in records:
            if item_key(record) not in self.sink:
                self.sink.add(record)

    def _write_outputs(self, *, interrupted: bool) -> None:
        if not len(self.sink):
            return
        hook = functools.partial(self.config.hook.pytest_revprop_results, config=self.config)
        spent = self.tally.spent_usd(self.runner)
        self.outputs = write_outputs(
            self.plan, self.sink, hook, spent, self.tally.cut_items, interrupted=interrupted
        )
        add_junit_rates(self.config, self.outputs.summary)
        if not self.plan.value("revprop_update_baseline"):
            self.verdict.judge(
                self.outputs.doc["results"],
                self.plan.value("revprop_max_drop"),
                self.plan.baseline_path or "",
                self.plan.value("revprop_gate_metric"),
                run_meta=self.outputs.doc.get("meta"),
                detect=self.plan.value("revprop_detect"),
            )
            if self.verdict.result is not None:
                from pytest_revprop.reporting.gate_report import append_gate_section

                append_gate_section(
                    self.plan.report_dir,
                    self.verdict.result,
                    self.plan.value("revprop_max_drop"),
                    str(self.plan.baseline_path),
                    sides=(self.verdict.baseline or {}, self.outputs.doc),
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
        before the other plugins' summaries; ``--durations`` lists them), then our sections:
        the estimate's, or the run's summary and the baseline gate's."""
        self.phases.put_back()
        if self.plan.scope.estimate_only:
            lines = [(line, NO_MARKUP) for line in self.plan.estimate_lines()]
            write_section(terminalreporter, "revprop plan", lines)
            return
        cut = self.tally.cut_items
        if self.outputs is None and not cut:
            return
        spent = self.tally.spent_usd(self.runner)
        summary = summary_lines(
            self.outputs,
            cut_line=self.plan.scope.cut_line(spent, cut) if cut else None,
            interrupted=exitstatus == pytest.ExitCode.INTERRUPTED,
            kept=len(self.sink),
            call_stats=self.runner.stats() if self.runner is not None else {},
        )
        write_section(terminalreporter, "revprop summary", summary)
        gate_lines = self.verdict.section(self.plan.value("revprop_max_drop"))
        if gate_lines:
            write_section(terminalreporter, "revprop baseline gate", gate_lines)


__all__ = ["RevpropController"]
