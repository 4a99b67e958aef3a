"""``dep``, the tenth built-in method (beyond the paper): build the dependency map first.

Call 1 asks the model, given the conversation and the artifact, for the dependencies the
conversation established, as one JSON object ``{dependent pointer: {"depends_on": [pointers],
"rule": text}}``. The map is checked against the artifact: a pointer that names no place of
the artifact is dropped and counted, and so is a dependent leaf left with nothing to depend
on. Call 2 is the ``j+h`` revision with the checked map added to the prompt. Both calls are
at the base seed. A map with no valid edge (no JSON object, nothing that checks) is unusable:
call 2 is then the plain ``j+h`` call (shared with the ``j+h`` method through the cache), and
the record says so (``map_valid`` false, ``map_edges`` 0). docs/protocol.md states the method.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Final

from pytest_revprop.core.method_context import Answer, MethodContext
from pytest_revprop.core.outcome import Outcome
from pytest_revprop.util.jsonutil import MISSING, loads_strict, raw_decode_strict, resolve

MAP_ROLE: Final = "map"
"""The call role of the map call (its reply is free JSON, never a constrained patch)."""
_FENCE = re.compile(r"```(?:json)?\s*\n(.*?)```", re.DOTALL)


@dataclass
class DependencyMap:
    """A checked map: per dependent pointer, the pointers it depends on and the rule."""

    entries: dict[str, tuple[list[str], str]] = field(default_factory=dict)
    dropped: int = 0

    @property
    def edges(self) -> int:
        """The map's edges: one per pointer a dependent depends on."""
        return sum(len(depends_on) for depends_on, _ in self.entries.values())

    @property
    def valid(self) -> bool:
        """Whether the map has an edge (a map without one is unusable)."""
        return self.edges > 0

    def render(self) -> str:
        """One line per dependent leaf, for the revision prompt."""
        lines = []
        for pointer, (depends_on, rule) in self.entries.items():
            line = f"- {pointer} <- {', '.join(depends_on)}"
            lines.append(f"{line}: {rule}" if rule else line)
        return "\n".join(lines)


def _json_object(text: str) -> dict[str, Any] | None:
    """The JSON object of a reply: the whole reply, a fenced block, the outermost braces, or
    the first object the reply holds (the first that parses, in that order)."""
    candidates = [text.strip(), *(m.group(1).strip() for m in _FENCE.finditer(text))]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:
            value = loads_strict(candidate)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    if start >= 0:
        try:
            value, _ = raw_decode_strict(text, start)
        except ValueError:
            return None
        return value if isinstance(value, dict) else None
    return None


def _exists(artifact: Any, pointer: object) -> bool:
    return isinstance(pointer, str) and resolve(artifact, pointer) is not MISSING


def check_map(text: str, artifact: Any) -> DependencyMap:
    """The map in a reply, checked against ``artifact``. An entry's value may be an object
    with ``depends_on`` (a list of pointers, or one) and ``rule``, or a bare list of pointers.
    Every pointer that is not a place of the artifact (or not a string) is dropped and
    counted; so is a self-dependency, and an entry whose value has neither form."""
    found = _json_object(text)
    checked = DependencyMap()
    if found is None:
        return checked
    for pointer, value in found.items():
        if not _exists(artifact, pointer):
            checked.dropped += 1
            continue
        if isinstance(value, dict):
            raw = value.get("depends_on", [])
            rule = value.get("rule")
        else:
            raw, rule = value, None
        pointers = [raw] if isinstance(raw, str) else raw
        if not isinstance(pointers, list):
            checked.dropped += 1
            continue
        kept: list[str] = []
        for other in pointers:
            if other == pointer or not _exists(artifact, other) or other in kept:
                checked.dropped += 1
            else:
                kept.append(other)
        if kept:
            checked.entries[pointer] = (kept, rule.strip() if isinstance(rule, str) else "")
    return checked


async def dep(ctx: MethodContext) -> Outcome:
    """Map the dependencies, then revise with the map (without it when it is unusable)."""
    map_reply = await ctx.ask(ctx.prompts.dependency_map_messages(ctx.case), role=MAP_ROLE)
    dependencies = DependencyMap()
    if map_reply.finish_reason != "length":
        dependencies = check_map(map_reply.content, ctx.case.artifact)
    if dependencies.valid:
        messages = ctx.prompts.mapped_revision_messages(ctx.case, dependencies.render())
    else:
        messages = ctx.prompts.revision_messages(ctx.case, "j+h")
    outcome = Answer(await ctx.ask(messages)).outcome()
    outcome.map_valid = dependencies.valid
    outcome.map_edges = dependencies.edges
    outcome.map_dropped = dependencies.dropped
    return outcome
