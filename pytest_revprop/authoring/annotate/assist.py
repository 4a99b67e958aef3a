"""LLM assistance for annotators: a tentative gold patch, and the rationale of one operation.

Both go through the path evaluation runs take: a preset or litellm model string resolved by
``llm.presets``, one ``llm.client.Client`` per model (the response cache, retries, cost), and
for the proposal the ``j+h`` method of ``pytest_revprop.core.methods`` with the project's prompts, so
a proposal at seed s is the very call a run makes for ``j+h`` at seed s (and shares its cache
entry). The reference solvers answer without a network; the embedded model's llama.cpp server
starts on first use and stops with the session. Nothing here changes a case: a proposal is a
list of operations with a guessed kind each (``kinds``), which the annotator accepts one by one.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_revprop.authoring.annotate.chained import (
    derive_chain,
    followups_of,
    stuck_message,
    turn_name,
)
from pytest_revprop.authoring.annotate.kinds import guess_kinds
from pytest_revprop.core.askers import REFERENCE_SOLVERS, client_ask, reference_ask
from pytest_revprop.core.cases import ANNOTATION_FIELD, FOLLOWUPS_FIELD, Case, CaseError, Revision
from pytest_revprop.core.chain import next_view, teacher_view
from pytest_revprop.core.method_context import Ask
from pytest_revprop.core.prompts import Prompts
from pytest_revprop.core.registry import run_method
from pytest_revprop.errors import UserError
from pytest_revprop.llm.client import Client
from pytest_revprop.llm.presets import ModelConfig, load_config, resolve_model
from pytest_revprop.llm.types import CallFailed

MAX_REPLY_CHARS = 20_000
MAX_QUESTION_CHARS = 2_000
CONCURRENCY = 4
REFERENCE_RATIONALE = (
    "{name} is a reference solver: it answers with the case's stored gold, nothing or the "
    "direct edit, without reasoning, so it has no rationale to give. Ask a model."
)


def case_for_model(data: Any, turn: int = 0) -> Case:
    """The case as the annotator has it now, as a model sees chain turn ``turn`` (0: the case's
    own revision; a follow-up: ``core.chain.next_view``, from the canonical document before it,
    the earlier turns answered by their gold). With a gold of that turn that does not load, the
    turn without its gold (a model needs only the conversation, the document and the request).
    Raises UserError."""
    if not isinstance(data, dict):
        raise UserError("the case is not a JSON object")
    if turn == 0:
        return _single({k: v for k, v in data.items() if k != FOLLOWUPS_FIELD})
    followups = followups_of(data)
    if not isinstance(turn, int) or not 0 < turn <= len(followups):
        raise UserError(f"the case has no {turn_name(turn)}")
    derived, stuck = derive_chain(data)
    if stuck is not None and stuck.turn < turn:
        raise UserError(stuck_message(turn, stuck))
    try:  # the whole chain loads: the turn with its gold
        return teacher_view(Case.from_dict(_content(derived)), turn)
    except CaseError:
        pass
    followup = derived[FOLLOWUPS_FIELD][turn - 1]
    try:
        earlier = Case.from_dict(
            _content({**derived, FOLLOWUPS_FIELD: derived[FOLLOWUPS_FIELD][: turn - 1]})
        )
    except CaseError as exc:
        raise UserError(
            f"{turn_name(turn)} cannot be sent to a model until the turns before it load: "
            f"{exc.rule} at {exc.pointer}"
        ) from None
    request, theme = followup.get("request"), followup.get("theme", "")
    if not isinstance(request, str) or not isinstance(theme, str):
        raise UserError(f"{turn_name(turn)} cannot be sent to a model: its request is not text")
    turn_now = Revision(request, followup.get("reference"), [], followup["artifact"], theme)
    return next_view(earlier, turn_now)


def _content(data: dict[str, Any]) -> dict[str, Any]:
    """Case data without its annotation (what a model is shown is never the review's)."""
    return {k: v for k, v in data.items() if k != ANNOTATION_FIELD}


def _single(data: dict[str, Any]) -> Case:
    """A single revision's case data loaded, or without its gold when that does not load."""
    try:
        return Case.from_dict(data)
    except CaseError:
        pass
    try:
        return Case.without_gold(_content(data))
    except CaseError as exc:
        raise UserError(
            f"the case cannot be sent to a model: {exc.rule} at {exc.pointer}"
        ) from None


class Assistant:
    """The models of one annotation session, made ready on first use.

    ``cache_dir`` is the response cache (None: none); ``api_bases`` (the command's
    ``--api-base``) replaces the servers of every model that is not hosted; model settings
    and prices come from the nearest ``[tool.revprop]`` config above ``config_from``.
    """

    def __init__(
        self,
        *,
        cache_dir: Path | None,
        api_bases: Sequence[str] = (),
        config_from: Path | None = None,
        prompts: Prompts | None = None,
    ) -> None:
        self.cache_dir = cache_dir
        self.api_bases = tuple(api_bases)
        self.config_from = config_from or Path.cwd()
        self.prompts = prompts or Prompts()
        self._models: dict[str, ModelConfig] = {}
        self._clients: dict[str, Client] = {}
        self.servers: list[Any] = []
        self._ready: asyncio.Lock | None = None

    async def model(self, name: str) -> ModelConfig:
        """The ready model called ``name``: its embedded server started, its servers checked,
        its client prepared (slow steps run in worker threads). Raises UserError."""
        if self._ready is None:
            self._ready = asyncio.Lock()
        async with self._ready:
            if name not in self._models:
                self._models[name] = await asyncio.to_thread(self._make_ready, name)
            return self._models[name]

    def _make_ready(self, name: str) -> ModelConfig:
        overrides = load_config(self.config_from)
        model = resolve_model(name, api_bases=self.api_bases, overrides=overrides)
        if model.kind == "reference":
            return model
        from pytest_revprop.servers.startup import ready_models

        (model,) = ready_models([model], self.servers, option="--api-base")
        client = Client(
            model,
            cache_dir=self.cache_dir,
            concurrency=min(CONCURRENCY, model.max_concurrency or CONCURRENCY),
        )
        client.prepare()
        self._clients[name] = client
        return model

    def _ask(self, name: str, model: ModelConfig, case: Case) -> Ask:
        if model.kind == "reference":
            return reference_ask(case, model.name if model.name in REFERENCE_SOLVERS else "noop")
        return client_ask(self._clients[name])

    async def propose(
        self, data: Any, name: str, seed: int = 0, stored: Any = None, turn: int = 0
    ) -> dict[str, Any]:
        """A tentative gold patch for chain turn ``turn`` of the case (``case_for_model``): the
        ``j+h`` answer of model ``name`` at ``seed``, each operation with its guessed kind. The
        reference solvers answer from the case as ``stored`` on disk when given (the gold
        solver then proposes the saved gold beside the one being edited). Raises UserError."""
        case = case_for_model(data, turn)
        model = await self.model(name)
        solved = case
        if model.kind == "reference" and stored:
            with contextlib.suppress(UserError):  # (a turn not on disk yet: the edited one)
                solved = case_for_model(stored, turn)
        run = await run_method(
            "j+h",
            case,
            self._ask(name, model, solved),
            k=1,
            seed=seed,
            prompts=self.prompts,
            turn=turn,
        )
        ops = run.outcome.patch or []
        kinds = guess_kinds(case.artifact, ops, case.request)
        reply = run.calls[0].reply if run.calls else None
        return {
            "model": name,
            "seed": seed,
            "ops": [{**op, "kind": kind} for op, kind in zip(ops, kinds, strict=True)],
            "error": run.outcome.error,
            "reason": run.outcome.reason,
            "reply": None if reply is None else reply.content[:MAX_REPLY_CHARS],
            "cached": None if reply is None else reply.cached,
            "cost_usd": run.cost_usd,
        }

    def explain_messages(
        self, case: Case, ops: Sequence[dict[str, Any]], index: int, question: str
    ) -> list[dict[str, str]]:
        """The question about operation ``index`` of the proposed ``ops``, as chat messages."""
        return [
            {"role": "system", "content": self.prompts.render("explain_system")},
            {
                "role": "user",
                "content": self.prompts.render(
                    "explain",
                    revision_prompt=self.prompts.revision_user_prompt(case, "j+h"),
                    patch=json.dumps(list(ops), ensure_ascii=False),
                    number=str(index + 1),
                    operation=json.dumps(ops[index], ensure_ascii=False),
                    question=question,
                ),
            },
        ]

    async def explain(
        self,
        data: Any,
        name: str,
        ops: Any,
        index: Any,
        question: Any,
        seed: int = 0,
        turn: int = 0,
    ) -> dict[str, Any]:
        """Model ``name``'s answer to ``question`` about operation ``index`` of ``ops``,
        proposed for chain turn ``turn``."""
        if not isinstance(ops, list) or not all(isinstance(op, dict) for op in ops):
            raise UserError("the proposal is not a list of operations")
        if not isinstance(index, int) or not 0 <= index < len(ops):
            raise UserError("pick one operation of the proposal to ask about")
        question = " ".join(str(question or "").split())
        if not question or len(question) > MAX_QUESTION_CHARS:
            raise UserError(f"a question has 1 to {MAX_QUESTION_CHARS} characters")
        case = case_for_model(data, turn)
        model = await self.model(name)
        if model.kind == "reference":
            return {"model": name, "answer": REFERENCE_RATIONALE.format(name=name), "error": None}
        client = self._clients[name]
        messages = self.explain_messages(case, [dict(op) for op in ops], index, question)
        try:
            reply = await client.complete(client.make_request(messages, seed))
        except CallFailed as exc:
            return {"model": name, "answer": None, "error": f"the call failed: {exc.reason}"}
        answer = reply.content.strip() or (reply.reasoning or "").strip()
        return {"model": name, "answer": answer[:MAX_REPLY_CHARS], "error": None}

    def close(self) -> None:
        """Stop the servers this session started."""
        for server in self.servers:
            server.stop()
        self.servers = []
