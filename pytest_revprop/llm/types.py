"""What a model call is made of: the request, the reply, the failure, the retry policy and the
client's counters. Plain data, no I/O: the methods and the runner speak in these types, and only
the client (``llm/client.py``) turns them into HTTP calls."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_revprop.llm.presets import thaw_extra_body
from pytest_revprop.llm.redact import one_line, redact

if TYPE_CHECKING:
    from pytest_revprop.llm.presets import ModelConfig
    from pytest_revprop.vocabulary import CallRole, FailedCall

CACHE_VERSION = 1
"""Part of every cache key and cache record: a new version makes every cached reply a miss."""


def _operation(ops: list[str], *members: str) -> dict[str, Any]:
    """The schema of the patch operations ``ops``, which carry ``op``, ``path`` and ``members``."""
    properties: dict[str, Any] = {"op": {"enum": ops}, "path": {"type": "string"}}
    properties.update({name: {"type": "string"} if name == "from" else {} for name in members})
    return {"type": "object", "properties": properties, "required": ["op", "path", *members]}


PATCH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "patch": {
            "type": "array",
            "items": {
                "anyOf": [
                    _operation(["remove"]),
                    _operation(["add", "replace", "test"], "value"),
                    _operation(["move", "copy"], "from"),
                ]
            },
        }
    },
    "required": ["patch"],
}
"""The JSON schema of a structured-output reply: an object whose ``patch`` is a list of RFC
6902 operations, each with the members its ``op`` needs (``value`` for add, replace and test;
``from`` for move and copy). No ``pattern`` and no ``additionalProperties``: llama.cpp's server
then ignores the whole schema without a word."""


def structured_response_format(form: str) -> dict[str, Any]:
    """The ``response_format`` of a structured-output request in the form a server accepts:
    ``json_schema`` (vLLM, OpenAI) or ``json_object`` with a ``schema`` (llama.cpp's server,
    which refuses ``json_schema``)."""
    if form == "json_object":
        return {"type": "json_object", "schema": PATCH_SCHEMA}
    if form == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": "revision_patch", "schema": PATCH_SCHEMA},
        }
    raise ValueError(f"unknown structured output form {form!r}")


def canonical_json(value: Any) -> str:
    """The one JSON spelling used for cache keys: sorted keys, no whitespace."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class CallFailed(Exception):
    """A model call that did not produce a reply after its retries, or that no retry could help.

    ``reason`` is one redacted line; ``details`` the same facts as builtin data for the item's
    record (``vocabulary.FailedCall``): the model, the URL, the attempts made, whether the
    failure could be retried at all, whether the provider refused the credentials, the last
    error, and, once a method adds them (``during``), the call's role, seed and reflect round.
    """

    def __init__(self, reason: str, details: FailedCall | None = None) -> None:
        self.reason = one_line(redact(reason))
        self.details: FailedCall = details or {}
        super().__init__(self.reason)

    @property
    def refused(self) -> bool:
        """Whether the provider refused the credentials (no call of the run can succeed)."""
        return bool(self.details.get("refused"))

    def during(self, role: CallRole, seed: int, round_: int | None = None) -> CallFailed:
        """This failure as the failure of one call of a method: a new exception (the first is
        shared by every item that asked the same request)."""
        call = f"reflect round {round_}" if round_ else f"{role} call"
        details: FailedCall = {**self.details, "role": role, "seed": seed, "round": round_}
        return CallFailed(f"{call} at seed {seed}: {self.reason}", details)


EMBEDDED_KEY_BASE = "embedded-llama.cpp"
"""What the cache key holds in place of the embedded server's URL."""


@dataclass(frozen=True)
class Request:
    """One chat completion request: every field that can change the answer, and no secret."""

    litellm_model: str
    messages: tuple[tuple[str, str], ...]
    seed: int
    served_name: str | None = None
    api_bases: tuple[str, ...] = ()
    temperature: float | None = None
    max_tokens: int = 32768
    reasoning_effort: str | None = None
    extra_body: tuple[tuple[str, str], ...] = ()
    response_format: str | None = None
    embedded: bool = False
    """Served by the embedded llama.cpp server: its URL (a fresh loopback port each run) is
    routing only, so the cache key names the embedded server instead (the weights are pinned)."""

    @classmethod
    def build(
        cls,
        model: ModelConfig,
        messages: Sequence[Mapping[str, str]],
        seed: int,
        response_format: Mapping[str, Any] | None = None,
    ) -> Request:
        """A request for ``model``; ``messages`` are ``{"role": ..., "content": ...}`` dicts."""
        return cls(
            litellm_model=model.litellm_model,
            messages=tuple((str(m["role"]), str(m["content"])) for m in messages),
            seed=int(seed),
            served_name=model.served_name,
            api_bases=model.api_bases,
            temperature=model.temperature,
            max_tokens=model.max_tokens,
            reasoning_effort=model.reasoning_effort,
            extra_body=model.extra_body,
            response_format=None if response_format is None else canonical_json(response_format),
            embedded=model.kind == "embedded",
        )

    @classmethod
    def for_model(
        cls,
        model: ModelConfig,
        messages: Sequence[Mapping[str, str]],
        seed: int,
        structured: bool = False,
    ) -> Request:
        """A request of ``model``; ``structured`` asks for the patch as JSON output, in the
        form the model's server takes (``ModelConfig.structured_form``)."""
        response_format = structured_response_format(model.structured_form) if structured else None
        return cls.build(model, messages, seed, response_format)

    def message_dicts(self) -> list[dict[str, str]]:
        """The messages as chat-completion dicts (``role`` and ``content``)."""
        return [{"role": role, "content": content} for role, content in self.messages]

    def key_material(self) -> dict[str, Any]:
        """Everything the cache key is the hash of (stored beside each cached reply)."""
        return {
            "version": CACHE_VERSION,
            "litellm_model": self.litellm_model,
            "served_name": self.served_name,
            "api_bases": [EMBEDDED_KEY_BASE] if self.embedded else sorted(self.api_bases),
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "reasoning_effort": self.reasoning_effort,
            "extra_body": thaw_extra_body(self.extra_body),
            "response_format": None
            if self.response_format is None
            else json.loads(self.response_format),
            "seed": self.seed,
            "messages": self.message_dicts(),
        }

    def cache_key(self) -> str:
        """The call's identity: the SHA-256 of its canonical key material."""
        return hashlib.sha256(canonical_json(self.key_material()).encode("utf-8")).hexdigest()


@dataclass
class Reply:
    """What a model answered, with its usage, latency and cost; ``cached`` when the reply came
    from the response cache (its cost is then recomputed from the model's current prices);
    ``key``: the cache key of the request it answers (the call's identity; None for replies
    made without a client, such as the reference solvers')."""

    content: str
    reasoning: str | None = None
    finish_reason: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    latency_s: float = 0.0
    cost_usd: float = 0.0
    cached: bool = False
    key: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The reply's fields as a flat dict.

        Not ``dataclasses.asdict``: every item's record holds its replies, and asdict's deep copy
        would be paid again and again for flat fields.
        """
        return {name: getattr(self, name) for name in _REPLY_FIELDS}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Reply:
        """A reply from ``to_dict``'s form (a cached entry's), missing counters read as zero."""
        reasoning = data.get("reasoning")
        finish = data.get("finish_reason")
        return cls(
            content=str(data["content"]),
            reasoning=None if reasoning is None else str(reasoning),
            finish_reason=None if finish is None else str(finish),
            input_tokens=int(data.get("input_tokens", 0)),
            output_tokens=int(data.get("output_tokens", 0)),
            reasoning_tokens=int(data.get("reasoning_tokens", 0)),
            latency_s=float(data.get("latency_s", 0.0)),
            cost_usd=float(data.get("cost_usd", 0.0)),
            cached=bool(data.get("cached", False)),
            key=None if data.get("key") is None else str(data["key"]),
        )


_REPLY_FIELDS = tuple(f.name for f in dataclasses.fields(Reply))


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a failed attempt is retried.

    ``attempt_timeout_s`` overrides the model's per-attempt timeout when set.
    """

    max_attempts: int = 5
    base_delay: float = 0.5
    max_delay: float = 30.0
    jitter: float = 0.5
    attempt_timeout_s: float | None = None

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_delay)
        base = min(self.base_delay * 2.0 ** (attempt - 1), self.max_delay)
        return float(base * (1.0 - self.jitter * random.random()))


@dataclass
class ClientStats:
    """Counters of one Client. ``requests_sent`` counts HTTP attempts (retries included);
    ``calls`` the successful ones; ``dedup_joins`` requests answered by an identical one in
    flight; ``claim_waits`` waits for another process's call to the same request."""

    requests_sent: int = 0
    calls: int = 0
    retries: int = 0
    failures: int = 0
    cache_hits: int = 0
    dedup_joins: int = 0
    claim_waits: int = 0
    in_flight: int = 0
    peak_in_flight: int = 0

    def to_dict(self) -> dict[str, int]:
        """The counters by name."""
        return dataclasses.asdict(self)
