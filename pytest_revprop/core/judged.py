"""What scoring reads of a case and of its gold operations, as protocols: ``cases.Case`` and
``cases.GoldOp`` satisfy them, so scoring needs no import of the case module (whose loading
rules judge follow-ups with scoring)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from pytest_revprop.vocabulary import Matcher, OpKind

__all__ = ["JudgedCase", "JudgedOp"]


class JudgedOp(Protocol):
    """A gold operation: where it acts, its stored value, and how a reply is judged there."""

    @property
    def op(self) -> str:
        """``add``, ``remove`` or ``replace``."""
        ...

    @property
    def path(self) -> str:
        """The JSON Pointer it acts on."""
        ...

    @property
    def value(self) -> Any:
        """Its stored value (a pattern for ``regex_match``, a pointer for ``ref_equal``)."""
        ...

    @property
    def kind(self) -> OpKind:
        """``direct`` or ``cascade``."""
        ...

    @property
    def match(self) -> Matcher:
        """The matcher the predicted value must satisfy."""
        ...

    @property
    def optional(self) -> bool:
        """Whether leaving the place as it was also passes."""
        ...


class JudgedCase(Protocol):
    """A revision as scoring reads it: the artifact and the gold relative to it (a
    ``cases.Case``, its own revision, or any ``cases.Revision`` of its chain)."""

    @property
    def artifact(self) -> Any:
        """The document before the revision."""
        ...

    @property
    def gold(self) -> Sequence[JudgedOp]:
        """The gold operations, in order."""
        ...

    @property
    def gold_patch(self) -> list[dict[str, Any]]:
        """The gold as a plain RFC 6902 patch (stored values)."""
        ...
