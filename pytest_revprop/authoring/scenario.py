"""The scenario declaration layer: what an author writes for one scenario, and nothing else.

An author writes plain inputs (``params(size)``, or ``inputs(size, draw)``: the space they are
drawn from, see :class:`Draw`), one function that derives the whole artifact
from them (``compute(params)``), the conversation as turns of (user text, pointers of the final
artifact that the turn adds), and the revision (request text plus one edit of the inputs).
Everything else follows from those (:mod:`pytest_revprop.authoring.assembly` builds the case,
:mod:`pytest_revprop.authoring.gold` its gold patch); shared helpers for scenario programs are
in :mod:`pytest_revprop.authoring.helpers`. A scenario that generates fresh instances and long
chains also declares its :class:`Move` s (:mod:`pytest_revprop.authoring.instances` runs them).
"""

from __future__ import annotations

import datetime as _dt
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pytest_revprop.errors import UserError

Params = Any
Turn = tuple[str, Sequence[str]]
T = TypeVar("T")


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


def _always(p: Params) -> bool:
    return True


@dataclass(frozen=True)
class Move:
    """One edit a user would ask for, with arguments: a step of a generated chain.

    ``when(p)`` is its precondition on the current inputs ``p`` (they hold ``size``);
    ``make(p, d)`` draws its arguments from ``d`` and returns the :class:`Revision`: the request
    written from the arguments in the user's words, naming only what ``p``'s size holds, and
    the edit of the inputs. ``make`` may return None when no arguments fit ``p``. The revision's
    ``pattern`` (and ``theme``, when it gives none) come from the move.
    """

    name: str
    pattern: str
    make: Callable[[Params, Draw], Revision | None]
    when: Callable[[Params], bool] = _always
    theme: str = ""
    opens: bool = True
    """Whether the move may be a chain's turn 0 (the case's own revision): False for a small
    edit that cascades into only one or two places."""


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
    inputs: Callable[[int, Draw], Params] | None = None
    """The space of the inputs: ``inputs(size, d)`` draws them from ``d`` (a :class:`Draw`);
    ``inputs(size, SHIPPED)`` must be ``params(size)`` (write ``params=shipped_params(inputs)``).
    None: the scenario has only its shipped instance."""
    moves: Sequence[Move] = ()
    """The edits a generated chain draws from (:class:`Move`); a scenario generates fresh
    instances when it declares ``inputs`` and at least one move."""

    @property
    def generates(self) -> bool:
        """Whether ``revprop cases generate`` makes fresh instances of this scenario."""
        return self.inputs is not None and bool(self.moves)


# --------------------------------------------------------------------------- fresh instances


_UNSET: Any = object()


class Draw:
    """A seeded generator of a scenario's inputs; ``Draw(None)`` (:data:`SHIPPED`) is the
    shipped instance, where every draw returns the ``shipped`` value it is given.

    A scenario's ``inputs(size, d)`` writes each input as a draw from the space that keeps its
    rules meaningful, with the shipped value beside it: ``d.money(39.0, 59.0, shipped=49.99)``.
    A move draws its arguments from a seeded ``Draw`` (no ``shipped`` needed). The same seed and
    ``salt`` give the same draws on every machine (``random.Random`` seeded with a string).
    """

    def __init__(self, seed: int | None, salt: str = "") -> None:
        self.seed = seed
        self._rng = random.Random(f"{salt}@{seed}") if seed is not None else None

    @property
    def shipped(self) -> bool:
        """Whether this is the shipped instance (no seed)."""
        return self._rng is None

    def _random(self, shipped: Any, what: str) -> random.Random | None:
        if self._rng is None and shipped is _UNSET:
            raise ScenarioError(f"the shipped instance needs a shipped value for {what}")
        return self._rng

    def pick(self, pool: Sequence[T], shipped: T | None = None) -> T:
        """One member of ``pool`` (the shipped instance: ``shipped``, or the first member)."""
        rng = self._rng
        if rng is None:
            return pool[0] if shipped is None else shipped
        return rng.choice(list(pool))

    def sample(self, pool: Sequence[T], k: int, shipped: Sequence[T] | None = None) -> list[T]:
        """``k`` distinct members of ``pool`` in a drawn order (shipped: ``shipped`` or the first k)."""
        if self._rng is None:
            return list(pool[:k] if shipped is None else shipped)
        return self._rng.sample(list(pool), k)

    def shuffled(self, items: Sequence[T]) -> list[T]:
        """``items`` in a drawn order (shipped: as given)."""
        out = list(items)
        if self._rng is not None:
            self._rng.shuffle(out)
        return out

    def int(self, lo: int, hi: int, shipped: Any = _UNSET, step: int = 1) -> int:
        """An integer in ``lo..hi`` (both included) on the grid ``lo + k*step``."""
        rng = self._random(shipped, f"int({lo}, {hi})")
        if rng is None:
            return shipped  # type: ignore[no-any-return]
        return lo + step * rng.randint(0, (hi - lo) // step)

    def money(self, lo: float, hi: float, shipped: Any = _UNSET, step: float = 0.01) -> float:
        """An amount in ``lo..hi`` on the grid ``lo + k*step``, to the cent (``step=0.5``: half
        dollars; prices like x.99: ``d.money(20, 60, step=1) - 0.01``)."""
        rng = self._random(shipped, f"money({lo}, {hi})")
        if rng is None:
            return shipped  # type: ignore[no-any-return]
        steps = round((hi - lo) / step)
        return round(lo + step * rng.randint(0, steps), 2)

    def date(self, lo: str, hi: str, shipped: Any = _UNSET, weekdays: str = "") -> str:
        """An ISO date from ``lo`` to ``hi``; ``weekdays="01234"`` keeps Monday to Friday."""
        rng = self._random(shipped, f"date({lo}, {hi})")
        if rng is None:
            return shipped  # type: ignore[no-any-return]
        start = _dt.date.fromisoformat(lo)
        days = [
            start + _dt.timedelta(days=n)
            for n in range((_dt.date.fromisoformat(hi) - start).days + 1)
        ]
        days = [d for d in days if not weekdays or str(d.weekday()) in weekdays]
        return rng.choice(days).isoformat()

    def chance(self, p: float, shipped: Any = _UNSET) -> bool:
        """True with probability ``p``."""
        rng = self._random(shipped, f"chance({p})")
        if rng is None:
            return shipped  # type: ignore[no-any-return]
        return rng.random() < p


SHIPPED = Draw(None)
"""The shipped instance: every draw returns its shipped value."""


def shipped_params(inputs: Callable[[int, Draw], Params]) -> Callable[[int], Params]:
    """The ``params(size)`` of a scenario that declares ``inputs``: its shipped instance."""
    return lambda size: inputs(size, SHIPPED)
