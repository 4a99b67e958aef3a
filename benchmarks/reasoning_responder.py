"""The scripted responder with long reasoning, for benchmarks/scale.py.

The fake server loads it as ``reasoning_responder:respond`` (this folder on PYTHONPATH). It
answers as ``pytest_revprop.testing.responder:respond`` and adds ``REVPROP_BENCH_REASONING_BYTES``
bytes (default 8192) of reasoning to every reply: words drawn by a generator seeded with the
request's digest, so each distinct request gets its own text (as a reasoning model's would),
the same text every time it is asked, and text that compresses like prose, not like one
repeated letter.
"""

from __future__ import annotations

import os
import random
from collections.abc import Mapping
from typing import Any

from pytest_revprop.testing.fakeserver import request_digest
from pytest_revprop.testing.responder import respond as scripted

REASONING_BYTES_ENV = "REVPROP_BENCH_REASONING_BYTES"
TEXT = (
    "the invoice total depends on each line amount so the subtotal tax and total must follow "
    "the quantity change while the client name and the due date stay as they are first check "
    "which fields the request names directly then follow every dependency through the document "
    "a schedule shifts when its start date moves and every later task moves with it keep the "
    "identifiers unchanged and recompute the sums carefully before writing the patch wait let me "
    "verify that again perhaps the discount applies before tax in this document hmm yes"
)
WORDS = tuple(TEXT.split(" "))


def padding(seed: str, size: int) -> str:
    """``size`` bytes (ASCII) of word salad determined by ``seed``."""
    rng = random.Random(seed)
    words: list[str] = []
    length = 0
    while length < size:
        word = rng.choice(WORDS)
        words.append(word)
        length += len(word) + 1
    return " ".join(words)[:size]


def respond(body: dict[str, Any]) -> Mapping[str, Any]:
    reply = dict(scripted(body))
    size = int(os.environ.get(REASONING_BYTES_ENV, "8192"))
    if size > 0:
        head = str(reply.get("reasoning") or "")
        reply["reasoning"] = (head + "\n" if head else "") + padding(request_digest(body), size)
    return reply
