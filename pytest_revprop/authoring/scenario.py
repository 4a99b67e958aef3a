"""The scenario declaration layer: what an author writes for one scenario, and nothing else.

An author writes plain inputs (``params(size)``), one function that derives the whole artifact
from them (``compute(params)``), the conversation as turns of (user text, pointers of the final
artifact that the turn adds), and the revision (request text plus one edit of the inputs).
Everything else follows from those (:mod:`pytest_revprop.authoring.assembly` builds the case,
:mod:`pytest_revprop.authoring.gold` its gold patch); shared helpers for scenario programs are
in :mod:`pytest_revprop.authoring.helpers`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_revprop.errors import UserError

Params = Any
Turn = tuple[str, Sequence[str]]


class ScenarioError(UserError):
    """A scenario program breaks a benchmark rule (the message names scenario and size)."""


# --------------------------------------------------------------------------- declarations


@dataclass(frozen=True)
class Override:
    """How one gold op is judged, instead of strict equality."""

    match: str = "strict"
    value: Any = None
    optional: bool = False


def regex(pattern: str, optional: bool = False) -> Override:
    """The new text must contain ``pattern`` (``re.search``); e.g. ``regex(r"(?i)manager")``."""
    return Override("regex_match", pattern, optional)


def any_value(optional: bool = False) -> Override:
    """Any value passes, as long as the place exists."""
    return Override("any", None, optional)


def ref_equal(pointer: str, optional: bool = False) -> Override:
    """The value must equal whatever the (predicted) artifact holds at ``pointer``."""
    return Override("ref_equal", pointer, optional)


def optional() -> Override:
    """Strict value, but leaving the place unchanged also passes."""
    return Override("strict", None, True)


@dataclass(frozen=True)
class Revision:
    """The user's revision: what they write, and the one edit of the inputs it means.

    ``mutate`` receives a deep copy of the params; it may change it in place (and return
    None) or return new params. ``direct`` is the gold path (or paths) the request names,
    written as it appears in the gold: post-change indices, e.g. ``/members/3`` for an
    inserted fourth member. ``overrides`` maps gold paths to matchers / optional flags.
    """

    request: str
    mutate: Callable[[Params], Params | None]
    direct: str | Sequence[str]
    overrides: Mapping[str, Override] = field(default_factory=dict)
    reference: Any = None
    theme: str = ""
    """One line on what the revision changes: required of a follow-up (the case's own revision
    has the scenario's theme)."""
    pattern: str = ""
    """The follow-up's propagation pattern (one of vocabulary.PATTERNS): required of a
    follow-up, counted by ``revprop cases check`` and ``build --check``; not written into the
    case file."""

    def direct_paths(self) -> tuple[str, ...]:
        """The gold paths the request names, as a tuple (``direct`` may be one or several)."""
        return (self.direct,) if isinstance(self.direct, str) else tuple(self.direct)


@dataclass(frozen=True)
class Scenario:
    """One scenario: three cases (sizes 10, 50, 100) share these declarations.

    ``params(size)`` returns the plain inputs (put ``size`` in them if the conversation
    or revision need it); ``compute(params)`` returns the whole artifact;
    ``conversation(params)`` returns ``[(user_text, [pointer, ...]), ...]``;
    ``revision(params)`` returns a :class:`Revision`; ``followups(params)``, when given, the
    chain's later revisions.
    """

    id: str
    domain: str
    pattern: str
    theme: str
    params: Callable[[int], Params]
    compute: Callable[[Params], Any]
    conversation: Callable[[Params], Sequence[Turn]]
    revision: Callable[[Params], Revision]
    notes: str = ""
    followups: Callable[[Params], Sequence[Revision]] | None = None
    """The later revisions of the chain, in order: ``followups(params)`` (the original inputs)
    returns them, and each one's ``mutate`` edits the inputs as every earlier revision left
    them (cumulative). None: the case is a single revision."""
