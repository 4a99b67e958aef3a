"""A scripted model for `revprop synth` tests, served by the fake OpenAI-compatible server.

It reads which step a request is (a turn, the request, a re-ask, a gold sample, a rewording)
from the prompt and answers from a script: a good invoice conversation by default, with any
step's answers replaceable by a list (the n-th request for that step gets the n-th entry, the
last one repeating). Every request body is kept, so tests can read what was sent.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from pytest_revprop.llm.presets import ModelConfig

REASK_MARK = "That answer cannot be used"
REQUEST_MARK = "Now write the user's final request"
GOLD_MARK = "The change the user asks for now:"
PARAPHRASE_MARK = "You reword what a user wrote"
TURN = re.compile(r"Write turn (\d+) of")


def turn(
    user: str, patch: list[dict[str, Any]], derived: list[dict[str, Any]] | None = None
) -> str:
    return json.dumps({"user": user, "patch": patch, "derived": derived or []})


def add(path: str, value: Any) -> dict[str, Any]:
    return {"op": "add", "path": path, "value": value}


def dep(path: str, *sources: str, rule: str = "") -> dict[str, Any]:
    return {"path": path, "from": list(sources), "rule": rule}


TURNS = {
    1: turn(
        "I'm billing Harbor Lane Bakery for design work, in US dollars.",
        [add("/client", "Harbor Lane Bakery"), add("/currency", "USD")],
    ),
    2: turn(
        "We worked 12 hours at $85 an hour; the line amount is hours times the rate.",
        [add("/line", {"hours": 12, "rate": 85, "amount": 1020})],
        [dep("/line/amount", "/line/hours", "/line/rate", rule="hours times rate")],
    ),
    3: turn(
        "Give them a 10% discount on the line amount.",
        [add("/discount_percent", 10), add("/discount", 102.0)],
        [dep("/discount", "/line/amount", "/discount_percent", rule="percent of the amount")],
    ),
    4: turn(
        "Add 8% sales tax on the discounted amount; the total is the discounted amount plus tax.",
        [add("/tax_percent", 8), add("/tax", 73.44), add("/total", 991.44)],
        [
            dep("/tax", "/line/amount", "/discount", "/tax_percent"),
            dep("/total", "/line/amount", "/discount", "/tax"),
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


def model(base_url: str, **changes: Any) -> ModelConfig:
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
    "rewording") to its answers in order; unscripted steps get the good invoice."""

    def __init__(self, script: Mapping[str, list[str]] | None = None) -> None:
        self.script = {step: list(answers) for step, answers in (script or {}).items()}
        self.asked: Counter[str] = Counter()
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        self.bodies.append(body)
        step = self.step(body)
        answers = self.script.get(step)
        index = self.asked[step]
        self.asked[step] += 1
        if answers:
            return {"content": answers[min(index, len(answers) - 1)]}
        return {"content": self.default(step)}

    @staticmethod
    def step(body: Mapping[str, Any]) -> str:
        messages = [m for m in body["messages"] if isinstance(m.get("content"), str)]
        texts = [m["content"] for m in messages]
        if any(PARAPHRASE_MARK in t for t in texts):
            return "rewording"
        if GOLD_MARK in texts[-1]:
            return f"gold {body.get('seed')}"
        prompt = texts[-3] if REASK_MARK in texts[-1] else texts[-1]
        found = TURN.search(prompt)
        if found:
            return f"turn {found.group(1)}"
        if REQUEST_MARK in prompt:
            return "request"
        raise AssertionError(f"unexpected prompt: {prompt[:200]}")

    @staticmethod
    def default(step: str) -> str:
        if step.startswith("turn "):
            return TURNS[int(step.split()[1])]
        if step == "request":
            return REQUEST
        if step.startswith("gold "):
            return GOLD_SAMPLES.get(int(step.split()[1]), json.dumps(GOLD))
        raise AssertionError(f"no default answer for {step}")

    def reasks(self) -> list[str]:
        """The re-ask messages sent, in order."""
        return [
            b["messages"][-1]["content"]
            for b in self.bodies
            if REASK_MARK in b["messages"][-1]["content"]
        ]
