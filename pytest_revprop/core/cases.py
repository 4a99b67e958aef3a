"""Case files: the data model, schema validation and every loading rule of docs/case-format.md.

A broken file becomes a ``CaseError`` naming the file, the rule and the JSON Pointer where it
broke; the other files of a folder still load.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, NoReturn

from pytest_revprop.core.case_rules import (
    CaseError,
    check_chained,
    check_gold,
    check_replay,
    plain_patch,
    reference_problem,
)
from pytest_revprop.core.case_schema import case_schema, schema_error_text, schema_problem
from pytest_revprop.core.selection import by_split_and_size
from pytest_revprop.errors import UserError
from pytest_revprop.util.jsonutil import (
    MISSING,
    leaf_count,
    loads_strict,
)
from pytest_revprop.util.memo import Memo
from pytest_revprop.util.strictjson import StrictJSONError, check_value
from pytest_revprop.vocabulary import Matcher, OpKind

__all__ = [
    "ANNOTATION_FIELD",
    "BENCHMARK_DIR",
    "Case",
    "CaseError",
    "CaseSet",
    "Followup",
    "GoldOp",
    "Revision",
    "Turn",
    "dump_case",
    "leaf_count",
    "load_case",
    "load_cases",
    "select_cases",
]

MAX_CASE_BYTES = 20 * 1024 * 1024
CASE_FIELDS = (
    "id", "scenario", "domain", "pattern", "size", "split", "theme",
    "conversation", "artifact", "request", "reference", "gold", "notes",
)  # fmt: skip
FOLLOWUPS_FIELD = "followups"
"""The optional field after ``gold``: the later revisions of a chain (empty: written out)."""
FOLLOWUP_FIELDS = ("request", "reference", "gold", "artifact", "theme")
ANNOTATION_FIELD = "annotation"
"""The optional last field: who made and checked the gold (never read by scoring)."""


def _benchmark_dir() -> Path:
    try:
        spec_dir = resources.files("pytest_revprop.benchmark_cases")
        return Path(str(spec_dir))
    except ModuleNotFoundError:  # pragma: no cover - broken install
        return Path(__file__).resolve().parents[2] / "benchmark_cases"


BENCHMARK_DIR = _benchmark_dir()
"""The shipped benchmark (the package ``pytest_revprop.benchmark_cases``)."""
SPLIT_FILE = "split.json"


def instance_id(scenario: str, size: int, seed: int) -> str:
    """The id of a fresh instance (``revprop cases generate``): ``<scenario>/<size>@<seed>``."""
    return f"{scenario}/{size}@{seed}"


def instance_seed(case_id: str) -> int | None:
    """The seed of a fresh instance's id (``cart-price-drop/10@7`` -> 7); None for another id."""
    head, _, tail = case_id.rpartition("@")
    return int(tail) if head and tail.isdigit() else None


"""A benchmark folder's committed dev/test split: never a case file."""


@dataclass(frozen=True)
class Turn:
    """One turn of the conversation before the request: the user's message and the assistant's
    answer as a list of RFC 6902 operations on the artifact; ``reference``: the reference data
    the user gave with the message (a chain's earlier turn that had some; None: none, as in
    every case file's conversation).
    """

    user: str
    assistant: list[dict[str, Any]]
    reference: Any = None


@dataclass(frozen=True)
class GoldOp:
    """One operation of a case's gold patch, with how a reply is judged at its place.

    ``kind`` says whether the request names the change (``direct``) or a dependency forces it
    (``cascade``); ``match`` is the matcher the reply's value must satisfy (``value`` is its
    argument: a pattern for ``regex_match``, a pointer for ``ref_equal``); ``optional``: leaving
    the place as it was also passes.
    """

    op: str
    path: str
    value: Any
    kind: OpKind
    match: Matcher = "strict"
    optional: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The operation as a case file writes it: defaults (strict, not optional) left out."""
        out: dict[str, Any] = {"op": self.op, "path": self.path}
        if self.op != "remove":
            out["value"] = self.value
        out["kind"] = self.kind
        if self.match != "strict":
            out["match"] = self.match
        if self.optional:
            out["optional"] = True
        return out


class GoldHidden(AttributeError):
    """A method asked for the gold of its case, which methods are never shown."""


class HiddenGold(list[GoldOp]):
    """The gold of a case as a method receives it: empty, and any use of it says why."""

    def _refuse(self, *args: object) -> NoReturn:
        raise GoldHidden(
            "a method is not shown the gold of its case (docs/hooks.md: what a method sees)"
        )

    __iter__ = __len__ = __getitem__ = __bool__ = __contains__ = __reversed__ = _refuse  # type: ignore[assignment]


@dataclass(frozen=True)
class Revision:
    """One revision of a case's chain: the request, its reference data, its gold (relative to
    ``artifact``), ``artifact``, the canonical document before it, and a one-line ``theme``.

    A case is a conversation and an ordered list of revisions; the first is the case's own (its
    fields stand inline in the file: docs/case-format.md), each later one a follow-up (an entry
    of ``followups``, whose artifact is the document after the revision before it, which that
    revision's gold accepts). A single revision is a chain of one."""

    request: str
    reference: Any
    gold: list[GoldOp]
    artifact: Any
    theme: str

    def to_dict(self) -> dict[str, Any]:
        """The revision as a follow-up of a case file (FOLLOWUP_FIELDS order)."""
        return {
            "request": self.request,
            "reference": self.reference,
            "gold": [g.to_dict() for g in self.gold],
            "artifact": self.artifact,
            "theme": self.theme,
        }

    @property
    def gold_patch(self) -> list[dict[str, Any]]:
        """The gold ops as a plain RFC 6902 patch (stored values, no matcher metadata)."""
        return plain_patch(self.gold)


Followup = Revision
"""A revision after the first: what the file format calls a follow-up."""


def _gold_ops(data: Sequence[Mapping[str, Any]]) -> list[GoldOp]:
    return [
        GoldOp(
            op=g["op"],
            path=g["path"],
            value=g.get("value"),
            kind=g["kind"],
            match=g.get("match", "strict"),
            optional=bool(g.get("optional", False)),
        )
        for g in data
    ]


@dataclass(frozen=True)
class Case:
    """One benchmark case, loaded and checked: a conversation that builds an artifact, a revision
    request, and the gold patch that answers it.

    Made by ``Case.from_dict`` or ``load_case``/``load_cases``, which apply every loading rule of
    docs/case-format.md, so any Case in hand is well formed. ``domain``, ``pattern``, ``size`` and
    ``split`` become the item's markers and the record's fields; ``reference`` is data the user
    hands over with the request (shown to the model when not None). ``source`` is the file it
    came from (None: made in memory). Frozen: every item of a run shares one Case.
    """

    id: str
    scenario: str
    domain: str
    pattern: str
    size: int
    split: str
    conversation: list[Turn]
    revisions: tuple[Revision, ...]
    """The case's own revision, then its follow-ups in order (at least one)."""
    notes: str = ""
    annotation: dict[str, Any] | None = field(default=None, compare=False)
    """Status, history and draft provenance (docs/case-format.md); None when the file has none."""
    source: Path | None = field(default=None, compare=False)

    @classmethod
    def of(
        cls,
        *,
        artifact: Any,
        request: str,
        reference: Any,
        gold: list[GoldOp],
        theme: str,
        followups: Sequence[Revision] = (),
        **fields: Any,
    ) -> Case:
        """A case from the fields a file holds: its own revision's inline, the follow-ups
        after it, and the rest of ``fields`` (id, scenario, domain, pattern, size, split,
        conversation; notes, annotation, source). Checks nothing: loading does."""
        own = Revision(request, reference, gold, artifact, theme)
        return cls(revisions=(own, *followups), **fields)

    @property
    def artifact(self) -> Any:
        """The document before the case's own revision (turn 0)."""
        return self.revisions[0].artifact

    @property
    def request(self) -> str:
        """The case's own revision's request."""
        return self.revisions[0].request

    @property
    def reference(self) -> Any:
        """The data handed over with the case's own request (shown to the model when not None)."""
        return self.revisions[0].reference

    @property
    def gold(self) -> list[GoldOp]:
        """The case's own revision's gold, relative to ``artifact``."""
        return self.revisions[0].gold

    @property
    def theme(self) -> str:
        """The case's one-line theme (its own revision's)."""
        return self.revisions[0].theme

    @property
    def followups(self) -> tuple[Revision, ...]:
        """The later revisions of the chain this case starts (none: a single revision)."""
        return self.revisions[1:]

    def revision(self, index: int) -> Revision:
        """Revision ``index`` (turn ``index`` of the chain); IndexError names the turns."""
        if not 0 <= index < len(self.revisions):
            raise IndexError(
                f"case {self.id} has turns 0..{len(self.revisions) - 1}; there is no turn {index}"
            )
        return self.revisions[index]

    def only(self, index: int, **changes: Any) -> Case:
        """The case reduced to revision ``index`` alone (a chain of one), with ``changes`` to
        that revision (``artifact``, ``request``, ``reference``, ``gold``, ``theme``)."""
        return dataclasses.replace(
            self, revisions=(dataclasses.replace(self.revision(index), **changes),)
        )

    @property
    def view_id(self) -> str:
        """What names what the case shows a method, for every memo, cache and shared score
        that keys on it: its id; a chain turn's view (``core.chain.TurnView``) has its own."""
        return self.id

    @classmethod
    def from_dict(cls, data: Any, source: Path | str | None = None, *, chains: bool = True) -> Case:
        """Validate ``data`` against every loading rule but id uniqueness; raises CaseError.
        ``chains=False`` leaves out ``followup-previous`` and ``followup-noop``, which judge
        each follow-up against the revision before it (an ``off`` run never uses follow-ups)."""
        return cls._load(data, source, with_gold=True, chains=chains)

    @classmethod
    def without_gold(cls, data: Any, source: Path | str | None = None) -> Case:
        """``data`` with its gold left out (``gold`` empty), checked by every loading rule
        that is not about the gold: what a model is shown while the gold is being written."""
        context = {**data, "gold": []} if isinstance(data, dict) else data
        return cls._load(context, source, with_gold=False)

    @classmethod
    def _load(
        cls, data: Any, source: Path | str | None, *, with_gold: bool, chains: bool = True
    ) -> Case:
        name = str(source) if source is not None else "<case>"
        _check_schema(data, name)
        case = cls.of(
            id=data["id"],
            scenario=data["scenario"],
            domain=data["domain"],
            pattern=data["pattern"],
            size=data["size"],
            split=data["split"],
            theme=data["theme"],
            conversation=[Turn(t["user"], t["assistant"]) for t in data["conversation"]],
            artifact=data["artifact"],
            request=data["request"],
            reference=data["reference"],
            gold=_gold_ops(data["gold"]),
            notes=data.get("notes", ""),
            annotation=data.get(ANNOTATION_FIELD),
            source=Path(source) if source is not None else None,
            followups=tuple(
                Revision(
                    request=f["request"],
                    reference=f["reference"],
                    gold=_gold_ops(f["gold"]),
                    artifact=f["artifact"],
                    theme=f["theme"],
                )
                for f in data.get(FOLLOWUPS_FIELD, ())
            ),
        )
        _check_rules(case, name, with_gold=with_gold, chains=chains)
        return case

    def to_dict(self) -> dict[str, Any]:
        """The case as file data: every field of CASE_FIELDS (``followups`` after ``gold`` when
        there are any), then ``annotation`` if it has one."""
        out: dict[str, Any] = {
            "id": self.id,
            "scenario": self.scenario,
            "domain": self.domain,
            "pattern": self.pattern,
            "size": self.size,
            "split": self.split,
            "theme": self.theme,
            "conversation": [{"user": t.user, "assistant": t.assistant} for t in self.conversation],
            "artifact": self.artifact,
            "request": self.request,
            "reference": self.reference,
            "gold": [g.to_dict() for g in self.gold],
        }
        if self.followups:
            out[FOLLOWUPS_FIELD] = [f.to_dict() for f in self.followups]
        out["notes"] = self.notes
        if self.annotation is not None:
            out[ANNOTATION_FIELD] = self.annotation
        return out

    def for_methods(self) -> Case:
        """This case as a method sees it: everything a prompt may show (the conversation, the
        artifact, the request, the reference data) and nothing the gold can be read or rebuilt
        from. Its ``gold`` raises ``GoldHidden`` on any use, and its notes, annotation and
        source file are left out (a method could reread the file), as are the follow-ups (later
        requests, and artifacts that hold the answer)."""
        return dataclasses.replace(
            self.only(0, gold=HiddenGold()), notes="", annotation=None, source=None
        )

    @property
    def gold_patch(self) -> list[dict[str, Any]]:
        """The gold ops as a plain RFC 6902 patch (stored values, no matcher metadata)."""
        return plain_patch(self.gold)

    @property
    def direct_patch(self) -> list[dict[str, Any]]:
        """The gold's direct operations alone, as a plain patch (stored values)."""
        return plain_patch([g for g in self.gold if g.kind == "direct"])


@dataclass
class CaseSet:
    """What loading a folder gave: the cases that loaded, and one error per file that did not."""

    cases: list[Case]
    errors: list[CaseError]


def _check_schema(data: Any, name: str) -> None:
    found = check_value(data)  # first: the schema validators recurse
    if found is not None:
        raise CaseError(name, "schema", found[0], found[1])
    problem = schema_problem(data)
    if problem is not None:
        raise CaseError(name, "schema", *problem)


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _check_rules(case: Case, name: str, *, with_gold: bool = True, chains: bool = True) -> None:
    """The loading rules after the schema, in the order of docs/case-format.md (case_rules.py
    holds them); ``with_gold=False`` leaves out those about the gold being there and right."""
    check_replay([turn.assistant for turn in case.conversation], case.artifact, name)
    check_gold(case.artifact, case.gold, name, "/gold", with_gold=with_gold)
    count = leaf_count(case.artifact)
    if count != case.size:
        raise CaseError(
            name,
            "size",
            "/size",
            f"size is {case.size} but the artifact has {count} primitive leaves",
        )
    for index, (previous, current) in enumerate(itertools.pairwise(case.revisions)):
        at = f"/followups/{index}/gold"
        check_gold(current.artifact, current.gold, name, at, with_gold=with_gold)
        if with_gold and chains:
            check_chained(previous, current, name, index)


def _read_bytes(path: Path) -> bytes:
    name = str(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise CaseError(name, "readable", "", exc.strerror or str(exc)) from None
    if size > MAX_CASE_BYTES:
        raise CaseError(
            name, "readable", "", f"file is {size} bytes; the limit is {MAX_CASE_BYTES}"
        )
    try:
        return path.read_bytes()
    except OSError as exc:
        raise CaseError(name, "readable", "", exc.strerror or str(exc)) from None


def _parse_json(raw: bytes, path: Path) -> Any:
    name = str(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CaseError(name, "utf-8", "", f"not UTF-8 text (byte {exc.start})") from None
    try:
        return loads_strict(text)
    except StrictJSONError as exc:
        raise CaseError(
            name, "json", exc.pointer, _short(str(exc).removesuffix(f" at {exc.pointer}"))
        ) from None
    except ValueError as exc:
        raise CaseError(name, "json", "", _short(str(exc))) from None


def load_case(path: Path | str, *, chains: bool = True) -> Case:
    """Load and validate one case file; raises CaseError. ``chains``: as in ``Case.from_dict``.

    A file whose bytes were loaded before in this process is not parsed and checked again
    (``_LOADED``): the same Case comes back, with this ``path`` as its source."""
    path = Path(path)
    raw = _read_bytes(path)
    digest = hashlib.sha256(raw).digest()
    if (digest, True) in _LOADED:
        chains = True  # a load that judged the chain serves one that does not ask it to
    case = _LOADED.get(
        (digest, chains),
        lambda: Case.from_dict(_parse_json(raw, path), source=path, chains=chains),
    )
    return case if case.source == path else dataclasses.replace(case, source=path)


_LOADED: Memo[tuple[bytes, bool], Case] = Memo(4096)
"""The cases this process loaded, by the SHA-256 of their file's bytes and whether their chain
rules were checked (``chains``). Every loading rule depends on the file's content alone (id
uniqueness, the one rule about other files, is ``load_cases``'s), so equal bytes load to an
equal Case; and a process loads the same files many times: ``revprop annotate`` after every
save, the test suite's in-process runs. A Case is frozen and shared by every item of a run
already."""


def iter_case_files(paths: Sequence[Path | str]) -> list[Path]:
    """Case files named by ``paths``: files as given, folders searched recursively for *.json
    (except the split file)."""
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found: list[Path] = []
            for root, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__")))
                found.extend(
                    Path(root) / n for n in names if n.endswith(".json") and n != SPLIT_FILE
                )
            files.extend(sorted(found))
        else:
            files.append(path)
    return files


def load_cases(paths: Sequence[Path | str], *, chains: bool = True) -> CaseSet:
    """Load every case under ``paths``; broken files become errors, the rest still load.

    A path that does not exist is reported as an error (rule ``exists``).
    """
    cases: list[Case] = []
    errors: list[CaseError] = []
    seen: dict[str, Path] = {}
    for raw in paths:
        if not Path(raw).exists():
            errors.append(CaseError(str(raw), "exists", "", "no such file or folder"))
    for path in iter_case_files([p for p in paths if Path(p).exists()]):
        try:
            case = load_case(path, chains=chains)
        except CaseError as exc:
            errors.append(exc)
            continue
        if case.id in seen:
            errors.append(
                CaseError(
                    str(path), "unique-id", "/id", f"id {case.id!r} is also used by {seen[case.id]}"
                )
            )
            continue
        seen[case.id] = path
        cases.append(case)
    return CaseSet(cases, errors)


__all__ += ["MISSING", "case_schema", "iter_case_files", "reference_problem", "schema_error_text"]


def dump_case(case: Mapping[str, Any]) -> str:
    """The file text of a case, the one writer of the format: fixed field order
    (``annotation`` last, when present), 2-space indent, UTF-8, final newline, so that
    rewriting a file changes only what changed."""
    ordered = {k: case[k] for k in CASE_FIELDS}
    if case.get(FOLLOWUPS_FIELD):
        ordered = {k: v for k, v in ordered.items() if k != "notes"}
        ordered[FOLLOWUPS_FIELD] = case[FOLLOWUPS_FIELD]
        ordered["notes"] = case["notes"]
    if case.get(ANNOTATION_FIELD) is not None:
        ordered[ANNOTATION_FIELD] = case[ANNOTATION_FIELD]
    return json.dumps(ordered, indent=2, ensure_ascii=False) + "\n"


def select_cases(
    path: Path | None,
    split: str,
    sizes: Sequence[int] | None,
    ids: Sequence[str] | None = None,
    *,
    chains: bool = True,
    extra: Sequence[Path] = (),
) -> list[Case]:
    """Cases for a run: all files under ``path`` (default: the shipped benchmark) and under the
    folders ``extra`` (a run's fresh instances), then the split and size filters, or, when
    ``ids`` are given, those cases whatever their split and size. A broken file stops the run
    with its error (no silent partial set), as does an unknown id."""
    loaded = load_cases([path or BENCHMARK_DIR, *extra], chains=chains)
    if loaded.errors:
        shown = "; ".join(str(e) for e in loaded.errors[:3])
        more = f" (and {len(loaded.errors) - 3} more)" if len(loaded.errors) > 3 else ""
        raise UserError(f"broken case file(s): {shown}{more}")
    if ids:
        by_id = {c.id: c for c in loaded.cases}
        unknown = [i for i in ids if i not in by_id]
        if unknown:
            fresh = "@" in unknown[0] and not extra
            raise UserError(
                f"no case {unknown[0]!r} under {path or BENCHMARK_DIR} "
                + (
                    "(a fresh instance's id: add --revprop-instances with its seed)"
                    if fresh
                    else "(--revprop-case takes ids such as cart-free-shipping/10)"
                )
            )
        chosen = [by_id[i] for i in dict.fromkeys(ids)]
        return sorted(chosen, key=lambda c: (c.scenario, c.size, c.id))
    cases = by_split_and_size(loaded.cases, split, sizes, path or BENCHMARK_DIR)
    return sorted(cases, key=lambda c: (c.scenario, c.size, c.id))
