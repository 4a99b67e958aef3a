"""What a failed attempt means: whether another attempt is worth it, how long the server asked
us to wait, and the one redacted line that describes it."""

from __future__ import annotations

import contextlib
import re
import time
from email.utils import parsedate_to_datetime
from typing import Any

from pytest_revprop.llm.redact import one_line, redact
from pytest_revprop.llm.responses import MalformedResponse

NOT_RETRIED_4XX_EXCEPT = (408, 409, 429)


def _header(headers: Any, name: str) -> str | None:
    if headers is None:
        return None
    with contextlib.suppress(Exception):
        for key, value in dict(headers).items():
            if str(key).lower() == name:
                return str(value)
    return None


def retry_after_s(exc: BaseException) -> float | None:
    """Seconds from a Retry-After (or retry-after-ms) header carried by the exception."""
    sources = [
        getattr(exc, "litellm_response_headers", None),
        getattr(exc, "headers", None),
        getattr(getattr(exc, "response", None), "headers", None),
    ]
    for headers in sources:
        millis = _header(headers, "retry-after-ms")
        if millis is not None:
            with contextlib.suppress(ValueError):
                return float(millis) / 1000.0
        value = _header(headers, "retry-after")
        if value is None:
            continue
        with contextlib.suppress(ValueError):
            return float(value)
        with contextlib.suppress(TypeError, ValueError, IndexError):
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    return None


def status_of(exc: BaseException) -> int | None:
    """The HTTP status an exception carries (its own, or its response's), if any."""
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return status
    status = getattr(getattr(exc, "response", None), "status_code", None)
    return status if isinstance(status, int) else None


def is_retryable(exc: BaseException) -> bool:
    """Everything but a client error (4xx other than 408/409/429) is worth another attempt."""
    if isinstance(exc, Warning):
        return False  # a warning the user's filters turn into an error: no attempt will differ
    status = status_of(exc)
    if isinstance(exc, MalformedResponse | TimeoutError) or status is None:
        return True
    return not (400 <= status < 500 and status not in NOT_RETRIED_4XX_EXCEPT)


_LITELLM_PREFIX = re.compile(r"^(litellm\.\w+: )?(\w+: )?")


def describe(exc: BaseException) -> str:
    """``HTTP 503 ServiceUnavailableError: message``, redacted, on one line."""
    status = status_of(exc)
    prefix = f"HTTP {status} " if status else ""
    text = _LITELLM_PREFIX.sub("", one_line(str(exc))) or "no message"
    return one_line(redact(f"{prefix}{type(exc).__name__}: {text}"), 300)
