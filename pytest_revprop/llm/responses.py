"""Reading a chat completion: a Reply from what a server (through litellm or the direct
transport) answered, or MalformedResponse when the answer holds no usable message."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pytest_revprop.llm.presets import ModelConfig
from pytest_revprop.llm.types import Reply


class MalformedResponse(Exception):
    """The server answered, but not with a usable chat completion."""


def _field(obj: Any, name: str) -> Any:
    if obj is None:
        return None
    if isinstance(obj, Mapping):
        return obj.get(name)
    value = getattr(obj, name, None)
    if value is None:
        extra = getattr(obj, "provider_specific_fields", None)
        if isinstance(extra, Mapping):
            value = extra.get(name)
    return value


def _as_int(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError, OverflowError):
        return 0


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _text(value: Any) -> str:
    """``value`` as text that can be written as UTF-8: a lone surrogate (a JSON ``\\ud800``
    escape, which no valid UTF-8 can carry) becomes U+FFFD."""
    return _LONE_SURROGATE.sub("\ufffd", str(value))


def parse_response(response: Any, latency_s: float, model: ModelConfig) -> Reply:
    """A Reply from a litellm ModelResponse or a decoded JSON answer; MalformedResponse if it
    has no message."""
    choices = _field(response, "choices")
    if not choices:
        raise MalformedResponse("response has no choices")
    choice = choices[0]
    message = _field(choice, "message")
    if message is None:
        raise MalformedResponse("response choice has no message")
    content = _field(message, "content")
    reasoning = _field(message, "reasoning_content") or _field(message, "reasoning")
    usage = _field(response, "usage")
    details = _field(usage, "completion_tokens_details")
    input_tokens = _as_int(_field(usage, "prompt_tokens"))
    output_tokens = _as_int(_field(usage, "completion_tokens"))
    return Reply(
        content="" if content is None else _text(content),
        reasoning=None if not reasoning else _text(reasoning),
        finish_reason=_field(choice, "finish_reason"),
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        reasoning_tokens=_as_int(_field(details, "reasoning_tokens")),
        latency_s=latency_s,
        cost_usd=model.cost_usd(input_tokens, output_tokens),
        cached=False,
    )
