"""The shipped benchmark built from the scenario programs; checked, compared, written.

The work behind ``revprop cases build``, ``split`` and ``check``.

The scenario programs live in ``benchmark_cases/scenarios/<domain>.py`` (package
``pytest_revprop.benchmark_cases.scenarios``); each module ends with a list ``SCENARIOS``.
The build writes ``<scenario-id>/<size>.json`` for every scenario and size into the
checkout's ``benchmark_cases/`` (or ``--out DIR``), never into an installed package, and
keeps each scenario's split from ``split.json`` (:mod:`pytest_revprop.authoring.split`).
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_revprop.authoring.assembly import build_case
from pytest_revprop.authoring.scenario import Scenario, ScenarioError
from pytest_revprop.authoring.split import (
    Split,
    frozen_split,
    redrawn_split,
    scenario_attributes,
    split_text,
)
from pytest_revprop.core.cases import ANNOTATION_FIELD, dump_case
from pytest_revprop.errors import UserError
from pytest_revprop.vocabulary import BENCHMARK_SIZES as SIZES

SCENARIO_PACKAGE = "pytest_revprop.benchmark_cases.scenarios"
_CASE_FILE = re.compile(r"^\d+\.json$")


# --------------------------------------------------------------------------- discovery


def discover(package: str | None = None, broken: list[str] | None = None) -> list[Scenario]:
    """Every scenario of every module in ``package`` (default: the shipped scenario programs),
    sorted by id. Each module (names starting with ``_`` are skipped) ends with a list
    ``SCENARIOS`` of :class:`Scenario`; duplicate ids are an error. A module that does not
    import or has no such list is an error, or, when ``broken`` is given, is reported there
    and skipped."""
    found = _found(package, broken)
    return [found[k][0] for k in sorted(found)]


def scenario_modules() -> dict[str, str]:
    """Each shipped scenario's id -> the program that declares it, as the checkout names it
    (``benchmark_cases/scenarios/<module>.py``); modules that do not import are left out."""
    return {
        scenario_id: f"benchmark_cases/scenarios/{name.rsplit('.', 1)[1]}.py"
        for scenario_id, (_, name) in _found(None, []).items()
    }


def _found(package: str | None, broken: list[str] | None) -> dict[str, tuple[Scenario, str]]:
    """``discover``'s scenarios by id, each with its module's name."""
    package = package or SCENARIO_PACKAGE
    pkg = importlib.import_module(package)
    found: dict[str, tuple[Scenario, str]] = {}
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        name = f"{package}.{info.name}"
        try:
            scenarios = _declared(importlib.import_module(name), name)
        except Exception as exc:
            message = (
                str(exc)
                if isinstance(exc, UserError)
                else f"scenario module {name} does not import: {type(exc).__name__}: {exc}"
            )
            if broken is None:
                raise UserError(message) from None
            broken.append(message)
            continue
        for scenario in scenarios:
            if scenario.id in found:
                raise UserError(
                    f"duplicate scenario id {scenario.id!r} in {name} and {found[scenario.id][1]}"
                )
            found[scenario.id] = (scenario, name)
    return found


def scenario_programs() -> Path:
    """The folder of the scenario programs Python imports."""
    return Path(importlib.import_module(SCENARIO_PACKAGE).__path__[0])


def _declared(module: Any, name: str) -> list[Scenario]:
    """The module's ``SCENARIOS`` list, checked."""
    scenarios = getattr(module, "SCENARIOS", None)
    if not isinstance(scenarios, list):
        raise UserError(f"scenario module {name} has no list SCENARIOS")
    for scenario in scenarios:
        if not isinstance(scenario, Scenario):
            raise UserError(f"{name}: SCENARIOS holds {type(scenario).__name__}, not Scenario")
    return scenarios


# --------------------------------------------------------------------------- build


@dataclass
class BuildResult:
    """What a build made: each case file's text by relative path (``SCENARIO/SIZE.json``), the
    errors of the scenarios that failed, the split, and each scenario's attributes.
    """

    files: dict[str, str]  # relative path "<scenario>/<size>.json" -> text
    errors: list[str]
    split: Split | None
    attributes: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def split_file(self) -> str:
        """The text of split.json for this build."""
        assert self.split is not None
        return split_text(self.split.assigned)


def shipped_annotation() -> dict[str, Any]:
    """The ``annotation`` of a shipped case: ``reviewed`` with an empty history. A scenario
    program writes the gold and the build checks it (the gold applies, completes the case, and
    the direct edit alone does not), so a shipped case starts as checked; the first edit in
    `revprop annotate` makes it ``changed`` (since review) until a second person reviews it."""
    return {"status": "reviewed", "history": []}


def build_all(
    scenarios: Iterable[Scenario],
    committed: Mapping[str, str] | None,
    keep_going: bool = False,
    broken: Sequence[str] = (),
) -> BuildResult:
    """Every case text of ``scenarios``, each scenario's split taken from ``committed``
    (split.json; a scenario missing there goes to test) or, when ``committed`` is None,
    re-drawn. Errors (``broken``: modules that did not import) are collected per scenario;
    without ``keep_going`` any error means no files."""
    cases: dict[str, dict[int, dict[str, Any]]] = {}
    errors = list(broken)
    for scenario in scenarios:
        try:
            cases[scenario.id] = {size: build_case(scenario, size) for size in SIZES}
        except ScenarioError as exc:
            errors.append(str(exc))
        except Exception as exc:
            errors.append(f"scenario {scenario.id}: {type(exc).__name__}: {exc}")
    if errors and not keep_going:
        return BuildResult({}, errors, None)
    attributes = scenario_attributes({sid: sizes[SIZES[-1]] for sid, sizes in cases.items()})
    split = (
        redrawn_split(attributes)
        if committed is None
        else frozen_split(committed, attributes, complete=not errors)
    )
    files: dict[str, str] = {}
    for sid in sorted(cases):
        for size, case in cases[sid].items():
            case["split"] = split.assigned[sid]
            case[ANNOTATION_FIELD] = shipped_annotation()
            files[f"{sid}/{size}.json"] = dump_case(case)
    return BuildResult(files, errors, split, attributes)


# --------------------------------------------------------------------------- files


def generated_folders(out: Path) -> list[Path]:
    """Folders under ``out`` that hold only case files (``NN.json``): the build's own output."""
    if not out.is_dir():
        return []
    folders = []
    for child in sorted(out.iterdir()):
        if child.is_dir():
            entries = list(child.iterdir())
            if entries and all(e.is_file() and _CASE_FILE.match(e.name) for e in entries):
                folders.append(child)
    return folders


def stale_files(out: Path, files: Mapping[str, str]) -> list[Path]:
    """Generated case files under ``out`` that the current build does not produce."""
    wanted = {out / rel for rel in files}
    stale = []
    for folder in generated_folders(out):
        stale += [f for f in sorted(folder.iterdir()) if f not in wanted]
    return stale


def differences(out: Path, files: Mapping[str, str]) -> list[str]:
    """How ``out`` differs from ``files``: ``missing:``, ``differs:`` and ``stale:`` lines."""
    diffs = []
    for rel, text in sorted(files.items()):
        path = out / rel
        if not path.is_file():
            diffs.append(f"missing: {rel}")
        elif path.read_text(encoding="utf-8") != text:
            diffs.append(f"differs: {rel}")
    diffs += [f"stale: {p.relative_to(out).as_posix()}" for p in stale_files(out, files)]
    return diffs


def write_files(out: Path, files: Mapping[str, str]) -> tuple[int, int]:
    """Write the case files and delete stale generated ones; returns (written, removed)."""
    written = sum(write_text(out / rel, text) for rel, text in sorted(files.items()))
    removed = stale_files(out, files)
    for path in removed:
        path.unlink()
    for folder in {p.parent for p in removed}:
        if not any(folder.iterdir()):
            folder.rmdir()
    return written, len(removed)


def write_text(path: Path, text: str) -> bool:
    """Write ``text`` (UTF-8) unless the file already holds it; whether it wrote."""
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return True
