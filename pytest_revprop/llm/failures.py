"""What a failed attempt means: whether another attempt is worth it, whether the provider
refused the credentials (which stops the run), how long the server asked us to wait, and the
one redacted line that describes it."""

from __future__ import annotations

import contextlib
import re
import time
from email.utils import parsedate_to_datetime
from typing import Any

from pytest_revprop.llm.redact import one_line, redact
from pytest_revprop.llm.responses import MalformedResponse

NOT_RETRIED_4XX_EXCEPT = (408, 409, 429)
REFUSED_STATUSES = (401, 403)

_VALIDATION = re.compile(r"\b\d+ validation errors?\b|\bInput should be\b")
"""A request the server states it cannot read (pydantic's wording, used by llama.cpp's server,
which answers it with HTTP 500): the same request will be refused again."""
_NO_CREDENTIALS = re.compile(
    r"missing credentials|api_key client option must be set|no api key|missing \w* ?api key"
    r"|incorrect api key|invalid api key",
    re.IGNORECASE,
)
_REFUSAL_TYPES = ("AuthenticationError", "PermissionDeniedError")


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


def is_refusal(exc: BaseException) -> bool:
    """The provider refused the credentials: HTTP 401 or 403, litellm's AuthenticationError or
    PermissionDeniedError, or a missing key (litellm reports "Missing credentials" as a 500).
    No call of the run can succeed after it."""
    if isinstance(exc, Warning | MalformedResponse | TimeoutError):
        return False
    if status_of(exc) in REFUSED_STATUSES:
        return True
    if any(cls.__name__ in _REFUSAL_TYPES for cls in type(exc).__mro__):
        return True
    return bool(_NO_CREDENTIALS.search(str(exc)))


def is_retryable(exc: BaseException) -> bool:
    """Whether another attempt is worth it: not for a client error (4xx other than
    408/409/429), a refusal of the credentials (``is_refusal``), a validation error the
    server states (whatever its status), or a warning the user's filters raise as an error.
    Everything else (timeouts, connection errors, 5xx, 429, a malformed answer) is."""
    if isinstance(exc, Warning):
        return False  # a warning the user's filters turn into an error: no attempt will differ
    if isinstance(exc, MalformedResponse | TimeoutError):
        return True
    if is_refusal(exc) or _VALIDATION.search(str(exc)):
        return False
    status = status_of(exc)
    if status is None:
        return True
    return not (400 <= status < 500 and status not in NOT_RETRIED_4XX_EXCEPT)


_LITELLM_PREFIX = re.compile(r"^(litellm\.\w+: )?(\w+: )?")


def describe(exc: BaseException) -> str:
    """``HTTP 503 ServiceUnavailableError: message``, redacted, on one line."""
    status = status_of(exc)
    prefix = f"HTTP {status} " if status else ""
    text = _LITELLM_PREFIX.sub("", one_line(str(exc))) or "no message"
    return one_line(redact(f"{prefix}{type(exc).__name__}: {text}"), 300)
