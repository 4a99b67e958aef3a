"""Secret redaction: every text that leaves the model-call layer (errors, logs) goes through
``redact``, so no API key reaches a report, a log or a terminal."""

from __future__ import annotations

import os
import re

_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD")
_SECRET_PATTERNS = (
    re.compile(r"Bearer\s+[^\s'\",;]+", re.IGNORECASE),
    re.compile(r"\bsk-[A-Za-z0-9_\-]{3,}"),
)


_KNOWN_SECRETS: set[str] = set()


def remember_secret(value: str | None) -> None:
    """Have ``redact`` hide ``value`` too (an API key read from a variable of any name)."""
    if value and len(value) >= 8:
        _KNOWN_SECRETS.add(value)


def redact(text: str) -> str:
    """``text`` with secret env values, remembered keys, bearer tokens and ``sk-...`` keys
    replaced by ``***``."""
    named = (v for k, v in os.environ.items() if len(v) >= 8 and _SECRET_NAME.search(k.upper()))
    secrets = sorted({*named, *_KNOWN_SECRETS}, key=len, reverse=True)
    for value in secrets:
        text = text.replace(value, "***")
    for pattern in _SECRET_PATTERNS:
        text = pattern.sub("***", text)
    return text


def one_line(text: str, limit: int = 400) -> str:
    """``text`` with its whitespace runs collapsed to single spaces, cut to ``limit`` characters."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."
