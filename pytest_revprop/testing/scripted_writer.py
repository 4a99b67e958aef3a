"""A scripted writer model for ``revprop synth``, served by the fake OpenAI-compatible server:
try a card, the checks and the paraphrase command with no model (docs/synth.md).

It reads which step a request is from the shipped prompts (a turn, the request, a follow-up's
request, a re-ask of any of them, a gold sample, a rewording) and answers from a script. The
built-in script writes the invoice of the ``invoice-discount`` example card (10 leaves) and
three follow-ups on it (more hours, a higher rate, a higher tax rate), each with its gold.
Any step can be scripted:

- in Python, ``ScriptedWriter({"turn 2": [answer, ...], "gold 1": [...]})``: the n-th request
  for that step gets the n-th answer (the last one repeating); steps are ``turn N``,
  ``request``, ``gold SEED`` (or ``gold`` for every seed), ``followup N`` (follow-up N's
  request), ``followup N gold SEED`` (or ``followup N gold``) and ``rewording``. A gold
  sample is follow-up N's when the request it is asked for is one that ``followup N`` answers;
- from a JSON file (``ScriptedWriter.from_file``, or ``$REVPROP_SYNTH_SCRIPT`` for the
  server's ``respond``)::

      {"turns": [{"user": ..., "patch": [...], "derived": [...]}, ...],
       "request": {"request": ..., "edit": {...}},
       "gold": [gold operations] or {"0": [...], "1": [...]},
       "followups": [{"request": ..., "edit": {...}, "theme": ...,
                      "gold": [gold operations] or {"0": [...], ...}}, ...],
       "rewording": {"turns": [...], "request": ...}}

  every member optional; an answer is a JSON value (sent as its JSON text) or a string (sent
  as it is, to script a malformed reply).

Unscripted steps: turns, the request and the follow-ups come from the built-in invoice (the
follow-ups only while the turns and the request are the built-in ones); a gold sample answers
the request's edit alone (no cascade: the annotator's work); a rewording adds "To put it
another way:" before each message and the request (every fact and relation word kept). Every
request body is kept in ``bodies``, so tests can read what was sent.

Serve it::

    python -m pytest_revprop.testing.fakeserver --port 8001 --config writer.json
    # writer.json: {"responder": "pytest_revprop.testing.scripted_writer:respond"}
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from pytest_revprop.llm.presets import ModelConfig

SCRIPT_ENV = "REVPROP_SYNTH_SCRIPT"
REASK_MARK = "That answer cannot be used"
REQUEST_MARK = "Now write the user's final request"
GOLD_MARK = "The change the user asks for now:"
PARAPHRASE_MARK = "You reword what a user wrote"
REWORDING_PREFIX = "To put it another way: "
TURN = re.compile(r"Write turn (\d+) of")
FOLLOWUP = re.compile(r"Now write follow-up (\d+) of")
_FOLLOWUP_STEP = re.compile(r"^followup (\d+)$")
_LISTED = re.compile(
    r"The user's messages, in order:\n(.*?)\n\nThe user's final request:\n(.*?)\n\n", re.S
)


def turn(
    user: str, patch: list[dict[str, Any]], derived: list[dict[str, Any]] | None = None
) -> str:
    """A turn's answer: the user's message, its ``add`` patch, its declared dependencies."""
    return json.dumps({"user": user, "patch": patch, "derived": derived or []})


def add(path: str, value: Any) -> dict[str, Any]:
    """An RFC 6902 ``add`` operation."""
    return {"op": "add", "path": path, "value": value}


def dep(path: str, *sources: str, rule: str = "", formula: str = "") -> dict[str, Any]:
    """A ``derived`` entry: ``path`` computed from ``sources`` (by ``formula``, if given)."""
    out: dict[str, Any] = {"path": path, "from": list(sources), "rule": rule}
    return out | {"formula": formula} if formula else out


TURNS = {
    1: turn(
        "I'm billing Harbor Lane Bakery for design work, in US dollars.",
        [add("/client", "Harbor Lane Bakery"), add("/currency", "USD")],
    ),
    2: turn(
        "We worked 12 hours at $85 an hour; the line amount is hours times the rate.",
        [add("/line", {"hours": 12, "rate": 85, "amount": 1020})],
        [
            dep(
                "/line/amount",
                "/line/hours",
                "/line/rate",
                rule="hours times rate",
                formula="{/line/hours} * {/line/rate}",
            )
        ],
    ),
    3: turn(
        "Give them a 10% discount on the line amount.",
        [add("/discount_percent", 10), add("/discount", 102.0)],
        [
            dep(
                "/discount",
                "/line/amount",
                "/discount_percent",
                rule="percent of the amount",
                formula="{/line/amount} * {/discount_percent} / 100",
            )
        ],
    ),
    4: turn(
        "Add 8% sales tax on the discounted amount; the total is the discounted amount plus tax.",
        [add("/tax_percent", 8), add("/tax", 73.44), add("/total", 991.44)],
        [
            dep(
                "/tax",
                "/line/amount",
                "/discount",
                "/tax_percent",
                formula="round(({/line/amount} - {/discount}) * {/tax_percent} / 100, 2)",
            ),
            dep(
                "/total",
                "/line/amount",
                "/discount",
                "/tax",
                formula="{/line/amount} - {/discount} + {/tax}",
            ),
        ],
    ),
}
REQUEST = json.dumps(
    {
        "request": "Please make the discount 15% instead of 10%.",
        "edit": {"op": "replace", "path": "/discount_percent", "value": 15},
    }
)
GOLD = [
    {"op": "replace", "path": "/discount_percent", "value": 15},
    {"op": "replace", "path": "/discount", "value": 153.0},
    {"op": "replace", "path": "/tax", "value": 69.36},
    {"op": "replace", "path": "/total", "value": 936.36},
]
GOLD_SAMPLES = {0: json.dumps(GOLD), 1: json.dumps(GOLD), 2: json.dumps(GOLD[:2])}
"""Seeds 0 and 1 answer the whole gold, seed 2 misses tax and total: maj keeps all four."""
FOLLOWUPS: list[dict[str, Any]] = [
    {
        "request": "We actually worked 14 hours, not 12.",
        "edit": {"op": "replace", "path": "/line/hours", "value": 14},
        "theme": "More hours raise the line amount, the discount, the tax and the total",
        "gold": [
            {"op": "replace", "path": "/line/hours", "value": 14},
            {"op": "replace", "path": "/line/amount", "value": 1190},
            {"op": "replace", "path": "/discount", "value": 178.5},
            {"op": "replace", "path": "/tax", "value": 80.92},
            {"op": "replace", "path": "/total", "value": 1092.42},
        ],
    },
    {
        "request": "The rate should be $90 an hour.",
        "edit": {"op": "replace", "path": "/line/rate", "value": 90},
        "theme": "A higher rate raises the line amount, the discount, the tax and the total",
        "gold": [
            {"op": "replace", "path": "/line/rate", "value": 90},
            {"op": "replace", "path": "/line/amount", "value": 1260},
            {"op": "replace", "path": "/discount", "value": 189.0},
            {"op": "replace", "path": "/tax", "value": 85.68},
            {"op": "replace", "path": "/total", "value": 1156.68},
        ],
    },
    {
        "request": "Make the sales tax 10%.",
        "edit": {"op": "replace", "path": "/tax_percent", "value": 10},
        "theme": "A higher tax rate raises the tax and the total",
        "gold": [
            {"op": "replace", "path": "/tax_percent", "value": 10},
            {"op": "replace", "path": "/tax", "value": 107.1},
            {"op": "replace", "path": "/total", "value": 1178.1},
        ],
    },
]
"""The built-in invoice's three follow-ups (each on the document the one before leaves)."""


def _text(answer: Any) -> str:
    return answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)


def followup_answers(followups: list[Any]) -> dict[str, str]:
    """The steps ``followup N`` and ``followup N gold[ SEED]`` of a script's follow-ups
    (each ``{"request", "edit", "theme", "gold"}``; without ``gold``, its edit alone)."""
    answers: dict[str, str] = {}
    for number, item in enumerate(followups, start=1):
        step = f"followup {number}"
        gold = item.get("gold") if isinstance(item, dict) else None
        if isinstance(item, dict):
            item = {k: v for k, v in item.items() if k != "gold"}
        answers[step] = _text(item)
        if isinstance(gold, dict):
            answers |= {f"{step} gold {seed}": _text(ops) for seed, ops in gold.items()}
        elif gold is not None:
            answers[f"{step} gold"] = _text(gold)
    return answers


INVOICE: dict[str, str] = {
    **{f"turn {n}": text for n, text in TURNS.items()},
    "request": REQUEST,
    **{f"gold {seed}": text for seed, text in GOLD_SAMPLES.items()},
    "gold": json.dumps(GOLD),
    **followup_answers(FOLLOWUPS),
}
"""The built-in script: the invoice of the ``invoice-discount`` example card, and its
follow-ups."""


def writer_model(base_url: str, **changes: Any) -> ModelConfig:
    """A priced model named ``fake`` served at ``base_url`` (for tests of your own)."""
    return ModelConfig(
        name="fake",
        litellm_model="openai/fake",
        api_bases=(base_url,),
        temperature=0.6,
        max_tokens=512,
        price_in=1.0,
        price_out=2.0,
    ).replace(**changes)


class ScriptedWriter:
    """The fake server's responder: ``script`` maps a step ("turn 2", "request", "gold 0",
    "rewording") to its answers in order; ``answers``, a step's answer when it is not
    scripted (default: the built-in invoice)."""

    def __init__(
        self,
        script: Mapping[str, list[str]] | None = None,
        answers: Mapping[str, str] | None = None,
    ) -> None:
        self.script = {step: list(replies) for step, replies in (script or {}).items()}
        self.answers = dict(INVOICE if answers is None else answers)
        self.asked: Counter[str] = Counter()
        self.bodies: list[dict[str, Any]] = []

    @classmethod
    def from_file(cls, path: Path | str) -> ScriptedWriter:
        """A writer answering from the JSON script at ``path`` (the module docstring's form),
        the built-in invoice for what it leaves out."""
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError(f"{path}: a script is a JSON object")
        answers = dict(INVOICE)
        if "turns" in data or "request" in data or "followups" in data:
            answers = {k: v for k, v in answers.items() if not k.startswith("followup ")}
        answers |= followup_answers(list(data.get("followups") or []))
        turns = data.get("turns")
        if turns is not None:
            answers = {k: v for k, v in answers.items() if not k.startswith("turn ")}
            answers |= {f"turn {n}": _text(t) for n, t in enumerate(turns, start=1)}
        if "request" in data:
            answers["request"] = _text(data["request"])
        if "gold" in data or "request" in data:
            answers = {k: v for k, v in answers.items() if not k.startswith("gold")}
        gold = data.get("gold")
        if isinstance(gold, dict):
            answers |= {f"gold {seed}": _text(ops) for seed, ops in gold.items()}
        elif gold is not None:
            answers["gold"] = _text(gold)
        if "rewording" in data:
            answers["rewording"] = _text(data["rewording"])
        return cls(answers=answers)

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        self.bodies.append(body)
        step = self._chained(self.step(body), body)
        replies = self.script.get(step)
        if not replies and " gold " in f" {step}":
            replies = self.script.get(step.rsplit(" ", 1)[0])
        index = self.asked[step]
        self.asked[step] += 1
        if replies:
            return {"content": replies[min(index, len(replies) - 1)]}
        return {"content": self.default(step, body)}

    @staticmethod
    def step(body: Mapping[str, Any]) -> str:
        """Which step ``body`` asks for: ``turn N``, ``request``, ``gold SEED``, ``rewording``
        (``unknown`` for a prompt that is none of them)."""
        texts = [m["content"] for m in body["messages"] if isinstance(m.get("content"), str)]
        if any(PARAPHRASE_MARK in t for t in texts):
            return "rewording"
        if texts and GOLD_MARK in texts[-1]:
            return f"gold {body.get('seed')}"
        prompt = texts[-3] if len(texts) >= 3 and REASK_MARK in texts[-1] else texts[-1]
        found = TURN.search(prompt) or FOLLOWUP.search(prompt)
        if found:
            kind = "turn" if found.re is TURN else "followup"
            return f"{kind} {found.group(1)}"
        if REQUEST_MARK in prompt:
            return "request"
        return "unknown"

    def _chained(self, step: str, body: Mapping[str, Any]) -> str:
        """``step``, made ``followup N gold SEED`` for a gold sample of follow-up N's request."""
        if not step.startswith("gold "):
            return step
        asked = body["messages"][-1]["content"].split(GOLD_MARK, 1)[1].strip()
        number = self._followup_requests().get(asked)
        return step if number is None else f"followup {number} {step}"

    def _followup_requests(self) -> dict[str, int]:
        """Each scripted follow-up request's text -> its number."""
        out: dict[str, int] = {}
        steps = [*self.answers.items(), *((k, a) for k, v in self.script.items() for a in v)]
        for step, answer in steps:
            found = _FOLLOWUP_STEP.match(step)
            text = _request_of(answer) if found else None
            if found and text:
                out.setdefault(text, int(found.group(1)))
        return out

    def default(self, step: str, body: Mapping[str, Any]) -> str:
        """The answer to an unscripted step (see the module docstring)."""
        if step in self.answers:
            return self.answers[step]
        if " gold " in f" {step}":
            owner = step.rsplit(" gold", 1)[0]
            requested = owner or "request"
            return self.answers.get(f"{owner} gold".strip()) or self._edit_alone(requested)
        if step == "rewording":
            return _reworded(body)
        return f"The script has no answer for this step ({step})."

    def _edit_alone(self, step: str) -> str:
        try:
            edit = json.loads(self.answers[step])["edit"]
        except (KeyError, TypeError, ValueError):
            return "[]"
        return json.dumps([edit])

    def reasks(self) -> list[str]:
        """The re-ask messages sent, in order."""
        return [
            b["messages"][-1]["content"]
            for b in self.bodies
            if REASK_MARK in b["messages"][-1]["content"]
        ]


def _request_of(answer: str) -> str | None:
    """The request text of a request step's answer (None when it has none)."""
    try:
        data = json.loads(answer)
    except ValueError:
        return None
    text = data.get("request") if isinstance(data, dict) else None
    return text.strip() if isinstance(text, str) else None


def _reworded(body: Mapping[str, Any]) -> str:
    """A mechanical rewording of the messages listed in a paraphrase prompt."""
    prompt = next(
        (m["content"] for m in body["messages"] if _LISTED.search(str(m.get("content")))), ""
    )
    found = _LISTED.search(prompt)
    if found is None:
        return "The script cannot read the messages of this rewording prompt."
    messages = [re.sub(r"^\d+\. ", "", line) for line in found.group(1).splitlines()]
    return json.dumps(
        {
            "turns": [REWORDING_PREFIX + text for text in messages],
            "request": REWORDING_PREFIX + found.group(2),
        },
        ensure_ascii=False,
    )


@cache
def _served() -> ScriptedWriter:
    path = os.environ.get(SCRIPT_ENV)
    return ScriptedWriter.from_file(path) if path else ScriptedWriter()


def respond(body: dict[str, Any]) -> dict[str, Any]:
    """The fake server's ``responder``: the writer of ``$REVPROP_SYNTH_SCRIPT`` (a JSON
    script), else the built-in invoice."""
    return _served()(body)
