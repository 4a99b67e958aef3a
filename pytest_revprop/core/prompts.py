"""Prompt templates (files under ``prompts/``, overridable per file from a user folder) and
the rendering of a case into chat messages for each kind of call.

Templates use ``string.Template`` placeholders (``$name``); a literal dollar is ``$$``.
docs/protocol.md (Prompts) says what each kind of call sends.
"""

from __future__ import annotations

import hashlib
import json
import string
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from pytest_revprop.core.cases import Case, Turn
from pytest_revprop.errors import UserError
from pytest_revprop.util.memo import Memo

TEMPLATE_NAMES = (
    "system", "revise", "context_conversation", "context_artifact", "context_reference",
    "turn", "select_system", "select", "candidate", "reflect",
    "dep_map_system", "dep_map", "context_dependencies",
)  # fmt: skip
CONTEXTS = {"j": ("artifact",), "h": ("conversation",), "j+h": ("conversation", "artifact")}

Message = dict[str, str]
PROMPTS_KEPT = 4096
"""Revision prompts a remembering set keeps (per case and context: a run of the shipped
benchmark has 450)."""


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=1)


def _patch_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


@cache
def _shipped(name: str) -> str:
    return (
        resources.files("pytest_revprop").joinpath(f"prompts/{name}.md").read_text(encoding="utf-8")
    )


@dataclass(frozen=True)
class Prompts:
    """A full set of templates: the shipped ones, with any file of ``folder`` taking precedence.
    ``remembering()`` gives the same templates rendering each case's revision prompt once."""

    folder: Path | None = None
    _revisions: Memo[tuple[str, str], str] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.folder is not None:
            _check_folder(Path(self.folder))
            # absolute: the templates are read once per folder and process, and a relative
            # folder names another one after a change of working directory
            object.__setattr__(self, "folder", Path(self.folder).resolve())
        for name in TEMPLATE_NAMES:
            self.template(name)  # fail early on a broken user template

    def fingerprint(self) -> dict[str, dict[str, str]]:
        """Each run template's name -> its source (``shipped`` or ``override``) and the SHA-256
        of its text: what results.json records, so two runs can say which prompts differ."""
        found: dict[str, dict[str, str]] = {}
        for name in TEMPLATE_NAMES:
            text, path = _template_text(self.folder, name)
            found[name] = {
                "source": "shipped" if path is None else "override",
                "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
            }
        return found

    def dropped_placeholders(self) -> list[tuple[str, str]]:
        """(template, placeholder) for each placeholder that the shipped template of a run
        template's name uses and the user's template leaves out: what the model is no longer
        shown. Not an error (dropping context can be the experiment); the run header warns."""
        dropped: list[tuple[str, str]] = []
        for name in TEMPLATE_NAMES:
            text, path = _template_text(self.folder, name)
            if path is None:
                continue
            used = set(string.Template(text).get_identifiers())
            shipped = string.Template(_shipped(name)).get_identifiers()
            dropped += [(name, p) for p in dict.fromkeys(shipped) if p not in used]
        return dropped

    def remembering(self) -> Prompts:
        """These templates, remembering each case's revision prompt per context: a run's items
        ask with the same messages many times, and sharing the strings also makes their cache
        keys cheap (at most ``PROMPTS_KEPT``, the least recently used out first)."""
        return replace(self, _revisions=Memo(PROMPTS_KEPT))

    def template(self, name: str) -> string.Template:
        """The template ``name`` (``prompts/NAME.md``), from the user's folder when it has one."""
        return _template(self.folder, name)

    def render(self, name: str, **values: str) -> str:
        """The template ``name`` with its placeholders filled from ``values``; UserError on a
        placeholder the template uses and ``values`` lacks, or a malformed one.
        """
        try:
            return self.template(name).substitute(values).strip("\n")
        except (KeyError, ValueError) as exc:
            raise UserError(
                f"prompt template {name}.md: unknown or malformed placeholder {exc}"
            ) from None

    # ------------------------------------------------------------------ messages per call

    def conversation_text(self, case: Case) -> str:
        """The case's conversation as the prompts show it: each turn, numbered from 1, with its
        user message (and the reference data given with it, as a request's own is shown) and
        the assistant's patch.
        """
        return "\n".join(
            self.render(
                "turn", number=str(i), user=self._user(turn), patch=_patch_json(turn.assistant)
            )
            for i, turn in enumerate(case.conversation, start=1)
        )

    def _user(self, turn: Turn) -> str:
        if turn.reference is None:
            return turn.user
        details = self.render("context_reference", reference=_json(turn.reference))
        return f"{turn.user}\n{details}"

    def context_sections(self, case: Case, context: str) -> list[str]:
        """The context sections of a revision prompt with context ``j``, ``h`` or ``j+h``."""
        if context not in CONTEXTS:
            raise ValueError(f"unknown context {context!r}")
        sections = []
        for part in CONTEXTS[context]:
            if part == "conversation":
                sections.append(
                    self.render("context_conversation", conversation=self.conversation_text(case))
                )
            else:
                sections.append(self.render("context_artifact", artifact=_json(case.artifact)))
        if case.reference is not None:
            sections.append(self.render("context_reference", reference=_json(case.reference)))
        return sections

    def revision_user_prompt(self, case: Case, context: str) -> str:
        """The user message for a revision call with context ``j``, ``h`` or ``j+h``."""
        if self._revisions is not None:
            return self._revisions.get(
                (case.view_id, context), lambda: self._revision(case, context)
            )
        return self._revision(case, context)

    def _revision(self, case: Case, context: str) -> str:
        sections = self.context_sections(case, context)
        return self.render("revise", context="\n\n".join(sections), request=case.request)

    def revision_messages(self, case: Case, context: str) -> list[Message]:
        """The chat messages of a revision call with context ``j``, ``h`` or ``j+h`` (the system
        prompt, then the user message).
        """
        return [
            {"role": "system", "content": self.render("system")},
            {"role": "user", "content": self.revision_user_prompt(case, context)},
        ]

    def selection_messages(
        self, case: Case, candidates: Sequence[list[dict[str, Any]]]
    ) -> list[Message]:
        """The chat messages of ``select``'s call: the candidates' patches, numbered from 1, for the
        model to pick one.
        """
        listed = "\n\n".join(
            self.render("candidate", number=str(i), patch=_patch_json(patch))
            for i, patch in enumerate(candidates, start=1)
        )
        return [
            {"role": "system", "content": self.render("select_system")},
            {
                "role": "user",
                "content": self.render(
                    "select",
                    revision_prompt=self.revision_user_prompt(case, "j+h"),
                    candidates=listed,
                ),
            },
        ]

    def dependency_map_messages(self, case: Case) -> list[Message]:
        """The first call of ``dep``: the conversation and the artifact, asking for the
        dependency map as one JSON object."""
        context = "\n\n".join(self.context_sections(case, "j+h"))
        return [
            {"role": "system", "content": self.render("dep_map_system")},
            {
                "role": "user",
                "content": self.render("dep_map", context=context, request=case.request),
            },
        ]

    def mapped_revision_messages(self, case: Case, dependencies: str) -> list[Message]:
        """The second call of ``dep``: the j+h revision with the checked map (rendered by the
        caller, one dependent leaf a line) added after the other context sections."""
        sections = [
            *self.context_sections(case, "j+h"),
            self.render("context_dependencies", dependencies=dependencies),
        ]
        user = self.render("revise", context="\n\n".join(sections), request=case.request)
        return [
            {"role": "system", "content": self.render("system")},
            {"role": "user", "content": user},
        ]

    def reflection_message(self, artifact: Any) -> Message:
        """The user message of a reflect round: the artifact as the previous answers made it."""
        return {"role": "user", "content": self.render("reflect", artifact=_json(artifact))}


@cache
def _template_text(folder: Path | None, name: str) -> tuple[str, Path | None]:
    """A template's text and the user file it came from (None: the shipped one)."""
    if folder is not None:
        path = Path(folder) / f"{name}.md"
        if path.is_file():
            try:
                return path.read_text(encoding="utf-8"), path
            except (OSError, UnicodeDecodeError) as exc:
                raise UserError(f"prompt template {path}: cannot be read ({exc})") from None
    return _shipped(name), None


def _template(folder: Path | None, name: str) -> string.Template:
    text, path = _template_text(folder, name)
    template = string.Template(text)
    where = path if path is not None else f"{name}.md"
    if not template.is_valid():
        raise UserError(
            f"prompt template {where}: malformed $placeholder (write $$ for a dollar sign)"
        )
    if path is not None:
        allowed = set(string.Template(_shipped(name)).get_identifiers())
        unknown = [p for p in template.get_identifiers() if p not in allowed]
        if unknown:
            raise UserError(
                f"prompt template {where}: unknown placeholder ${unknown[0]} "
                f"(this template knows {', '.join('$' + a for a in sorted(allowed)) or 'none'})"
            )
    return template


def shipped_template_names() -> list[str]:
    """The names of the templates the package ships (every kind of call, synth's included):
    the only file names a prompt folder may hold."""
    folder = resources.files("pytest_revprop").joinpath("prompts")
    return sorted(f.name[: -len(".md")] for f in folder.iterdir() if f.name.endswith(".md"))


def _check_folder(folder: Path) -> None:
    """A user prompt folder exists and holds only templates of known names."""
    if not folder.is_dir():
        raise UserError(f"prompt folder {folder}: no such folder")
    known = shipped_template_names()
    for path in sorted(folder.glob("*.md")):
        if path.stem not in known:
            raise UserError(
                f"prompt template {path}: unknown template name {path.stem!r} "
                f"(known: {', '.join(known)})"
            )


def changed_templates(before: Any, after: Any) -> list[str] | None:
    """The templates whose text differs between two runs' ``meta.prompts`` (each a
    ``Prompts.fingerprint()``), sorted by name; a template only one run records counts as
    changed. None when either run records no templates (written before they were recorded)."""
    if not isinstance(before, dict) or not isinstance(after, dict) or not before or not after:
        return None

    def digest(prints: dict[str, Any], name: str) -> Any:
        entry = prints.get(name)
        return entry.get("sha256") if isinstance(entry, dict) else None

    return sorted(n for n in before.keys() | after.keys() if digest(before, n) != digest(after, n))


@cache
def default_prompts() -> Prompts:
    """The shipped templates (one shared instance: templates are read once)."""
    return Prompts()
