"""The one registry of revision methods, and the guarded run of any method in it.

Every method, built-in or not, is a :class:`MethodSpec`: a name, an async function of one
``MethodContext`` (methods.py) and what the runner needs to know about it. Under pytest the
registry is filled through the ``pytest_revprop_methods(register)`` hook (hookspecs.py); the
plugin's own implementation registers the built-ins first, so a ``conftest.py`` or plugin that
reuses a built-in name gets an error naming its method. Outside pytest, ``builtin_registry()``
holds the built-ins alone. ``run_method`` runs any method so that a broken one costs only its
own items: raising, returning something that is no result or making no model call give a run
with ``error="method_failed"`` and a reason naming the method. docs/interfaces.md documents
the hook for users.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from pytest_revprop.core.cases import Case
from pytest_revprop.core.dep import dep
from pytest_revprop.core.method_context import (
    Ask,
    Message,
    MethodContext,
    MethodRun,
    NotAResult,
    SampleArtifacts,
    as_outcome,
)
from pytest_revprop.core.methods import merged_by, reflect, revision_in, select
from pytest_revprop.core.outcome import Outcome
from pytest_revprop.core.prompts import Prompts, default_prompts
from pytest_revprop.errors import UserError
from pytest_revprop.llm.budget import BudgetReached
from pytest_revprop.llm.presets import PresetRegistry
from pytest_revprop.llm.types import CallFailed
from pytest_revprop.vocabulary import (
    ALL_METHODS,
    BUILTIN_METHODS,
    DEP_METHOD,
    MERGE_RULES,
    METHOD_NAME_PATTERN,
    METHOD_SETS,
    METHODS,
    PAPER_METHODS,
    SINGLE_CALL_METHODS,
)

MethodFunction = Callable[[MethodContext], Awaitable[object]]
"""A method: an async function of its context returning a patch, an Answer or an Outcome."""
FirstCall = Callable[[Prompts, Case], list[Message]]
"""The messages of the call a method makes first, at the base seed."""

NAME = re.compile(METHOD_NAME_PATTERN)


@dataclass(frozen=True)
class MethodSpec:
    """One registered method.

    ``uses_k``: its number of calls grows with k (items get every k of the run, else k=1);
    ``min_k``: items below it are not made. The rest lets the runner plan calls ahead and is
    optional: ``first_call`` (the messages of its first call at the base seed, to tell a warm
    rerun), ``call_group`` (methods of one group make the same calls at the same k and seed)
    and ``includes`` (methods whose calls at the same seed are among its own).
    """

    name: str
    run: MethodFunction
    uses_k: bool = False
    min_k: int = 1
    description: str = ""
    first_call: FirstCall | None = None
    call_group: str | None = None
    includes: tuple[str, ...] = field(default=())

    def check(self) -> None:
        """Raise UserError naming the method when the spec cannot be run."""
        if not isinstance(self.name, str) or not NAME.match(self.name) or self.name in METHOD_SETS:
            sets = " or ".join(repr(name) for name in METHOD_SETS)
            raise UserError(
                f"method name {self.name!r}: use letters, digits and _ . + - (and not {sets})"
            )
        if not inspect.iscoroutinefunction(self.run):
            raise UserError(
                f"method {self.name!r}: {self.run!r} is not an async function (async def)"
            )
        if not isinstance(self.min_k, int) or self.min_k < 1:
            raise UserError(f"method {self.name!r}: min_k must be a whole number >= 1")


class MethodRegistry:
    """Methods by name, in the order they were registered."""

    def __init__(self) -> None:
        self._specs: dict[str, MethodSpec] = {}

    def register(
        self,
        method: str | MethodSpec,
        run: MethodFunction | None = None,
        *,
        uses_k: bool = False,
        min_k: int = 1,
        description: str = "",
    ) -> MethodSpec:
        """Add a method: ``register("name", async_function, uses_k=..., min_k=...,
        description=...)`` or ``register(MethodSpec(...))``. A name already taken (above all
        a built-in's) or a spec that cannot run is a UserError naming the method."""
        if isinstance(method, MethodSpec):
            spec = method
        elif run is None:
            raise UserError(f"method {method!r}: register(name, async_function) needs the function")
        else:
            spec = MethodSpec(method, run, uses_k=uses_k, min_k=min_k, description=description)
        spec.check()
        if spec.name in self._specs:
            kind = "a built-in method" if spec.name in BUILTIN_METHODS else "a method"
            raise UserError(f"method {spec.name!r} is already registered as {kind}")
        self._specs[spec.name] = spec
        return spec

    __call__ = register

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def names(self) -> tuple[str, ...]:
        """The registered methods' names, in registration order."""
        return tuple(self._specs)

    def get(self, name: str) -> MethodSpec:
        """The spec of method ``name``; UserError listing the choices when none is registered."""
        spec = self._specs.get(name)
        if spec is None:
            raise UserError(f"unknown method {name!r} (choose from {', '.join(self.choices())})")
        return spec

    def choices(self) -> tuple[str, ...]:
        """What a list of methods may name: every registered method, then ``all`` and ``paper``."""
        return (*self._specs, *METHOD_SETS)

    def expand(self, names: Iterable[str]) -> list[str]:
        """Method names in the given order, ``all`` standing for every registered method and
        ``paper`` for the paper's nine; each once. An unknown name is a UserError."""
        out: list[str] = []
        for name in names:
            group = {ALL_METHODS: self.names(), PAPER_METHODS: METHODS}.get(name)
            for one in group if group is not None else [self.get(name).name]:
                if one not in out:
                    out.append(one)
        return out

    def info(self) -> dict[str, dict[str, Any]]:
        """What reports need to know of each method (results.json ``meta.method_info``)."""
        return {
            s.name: {"uses_k": s.uses_k, "min_k": s.min_k, "description": s.description}
            for s in self._specs.values()
        }


# ------------------------------------------------------------------------------ built-ins


@cache
def _revision_call(context: str) -> FirstCall:
    def first_call(prompts: Prompts, case: Case) -> list[Message]:
        return prompts.revision_messages(case, context)

    return first_call


def _map_call(prompts: Prompts, case: Case) -> list[Message]:
    return prompts.dependency_map_messages(case)


_DESCRIPTIONS = {
    "j": "one revision call that sees the artifact only",
    "h": "one revision call that sees the conversation only",
    "j+h": "one revision call that sees the conversation and the artifact",
    "reflect": "j+h, then k-1 rounds that show the model its patched document",
    "or": "k samples of j+h, a unit changed if any sample changes it",
    "and": "k samples of j+h, a unit changed only if all samples change it alike",
    "maj": "k samples of j+h, each unit as most samples have it",
    "med": "k samples of j+h, the medoid sample whole",
    "select": "k-1 samples of j+h, then the model picks one",
    DEP_METHOD: "the dependency map first, then j+h with the map (beyond the paper)",
}


def builtin_specs() -> list[MethodSpec]:
    """The ten built-in methods, in the order reports list them."""
    specs: dict[str, MethodSpec] = {}
    for context in SINGLE_CALL_METHODS:
        specs[context] = MethodSpec(
            context, revision_in(context), first_call=_revision_call(context)
        )
    specs["reflect"] = MethodSpec(
        "reflect", reflect, uses_k=True, first_call=_revision_call("j+h"), includes=("j+h",)
    )
    for rule in MERGE_RULES:
        specs[rule] = MethodSpec(
            rule,
            merged_by(rule),
            uses_k=True,
            first_call=_revision_call("j+h"),
            call_group="samples",
            includes=("j+h",),
        )
    specs["select"] = MethodSpec(
        "select", select, uses_k=True, min_k=3, first_call=_revision_call("j+h")
    )
    specs[DEP_METHOD] = MethodSpec(DEP_METHOD, dep, first_call=_map_call)
    return [
        dataclasses.replace(specs[name], description=_DESCRIPTIONS[name])
        for name in BUILTIN_METHODS
    ]


def register_builtins(register: Callable[[MethodSpec], object]) -> None:
    """Register the built-ins through ``register`` (the plugin's hook implementation)."""
    for spec in builtin_specs():
        register(spec)


@cache
def builtin_registry() -> MethodRegistry:
    """A registry of the built-ins alone (library use; not to be changed)."""
    registry = MethodRegistry()
    register_builtins(registry.register)
    return registry


def registered_through(hook: Any) -> tuple[MethodRegistry, PresetRegistry]:
    """The methods and model presets registered through the ``pytest_revprop_methods`` and
    ``pytest_revprop_models`` implementations of ``hook`` (pytest's ``config.hook``), each
    called in pluggy's order (the plugin's built-ins first). A registration that fails is a
    UserError naming the plugin or conftest.py it came from."""
    methods, presets = MethodRegistry(), PresetRegistry()
    callers: list[tuple[Any, object]] = [
        (hook.pytest_revprop_methods, methods),
        (hook.pytest_revprop_models, presets),
    ]
    for caller, register in callers:
        for impl in reversed(caller.get_hookimpls()):
            try:
                impl.function(**{name: register for name in impl.argnames})
            except UserError as exc:
                raise UserError(f"{caller.name} in {impl.plugin_name}: {exc}") from None
            except Exception as exc:
                raise UserError(
                    f"{caller.name} in {impl.plugin_name} raised {type(exc).__name__}: {exc}"
                ) from None
    return methods, presets


# ------------------------------------------------------------------------------ running


async def run_method(
    method: str | MethodSpec,
    case: Case,
    ask: Ask,
    *,
    k: int,
    seed: int,
    prompts: Prompts | None = None,
    artifacts: SampleArtifacts | None = None,
    registry: MethodRegistry | None = None,
    turn: int = 0,
) -> MethodRun:
    """Run one method on one case at base seed ``seed`` (a name is looked up in ``registry``,
    by default the built-ins). A call that fails for good gives ``error="call_failed"``; a
    method that raises, returns no result or makes no call gives ``error="method_failed"``
    with a reason naming it (and, for one that raised, the line of its code where it did); an
    OSError (the machine's, not the method's) and BudgetReached (the spending ceiling's: the
    item is not run) propagate. ``artifacts``: the samples' artifacts, shared with the other
    items of a run; ``turn``: the chain's turn the run is for (``MethodContext.turn``)."""
    spec = (
        method if isinstance(method, MethodSpec) else (registry or builtin_registry()).get(method)
    )
    if k < spec.min_k:
        raise ValueError(f"{spec.name} needs k >= {spec.min_k}")
    k = k if spec.uses_k else 1
    ctx = MethodContext(
        spec.name,
        case,
        ask,
        k=k,
        seed=seed,
        prompts=prompts or default_prompts(),
        artifacts=artifacts,
        turn=turn,
    )
    try:
        returned = await ctx.perform(spec.run)
    except CallFailed as exc:
        failed = Outcome(error="call_failed", reason=exc.reason)
        return MethodRun(spec.name, k, seed, failed, failed_call=exc.details)
    except BudgetReached:
        raise  # the run's spending ceiling left the item unrun: no result
    except OSError:
        raise  # the machine's (a cache folder, a disk, a prompt file), not the method's
    except Exception as exc:
        return _failed(ctx, f"raised {type(exc).__name__}: {exc}{_where(exc, spec.run)}")
    try:
        outcome = as_outcome(returned)
    except NotAResult as exc:
        return _failed(ctx, f"returned {exc}")
    if not ctx.calls:
        return _failed(ctx, "made no model call")
    return ctx.finish(outcome)


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _where(exc: BaseException, function: MethodFunction) -> str:
    """Where a method's code raised, `` (at FILE:LINE, in NAME)``: the innermost frame in the
    method's own file, else the innermost one outside this package (a helper of the user's);
    FILE relative to the working folder when it lies inside it. Empty when there is none."""
    code = getattr(function, "__code__", None)
    own = os.path.abspath(code.co_filename) if code is not None else None
    frames = [
        (os.path.abspath(tb.tb_frame.f_code.co_filename), tb.tb_lineno, tb.tb_frame.f_code.co_name)
        for tb in _tracebacks(exc)
    ]
    outside = [f for f in frames if not f[0].startswith(_PACKAGE_DIR + os.sep)]
    mine = [f for f in frames if f[0] == own] or outside
    if not mine:
        return ""
    path, line, name = mine[-1]
    relative = os.path.relpath(path)
    shown = path if relative.startswith(os.pardir) else relative
    return f" (at {shown}:{line}, in {name})"


def _tracebacks(exc: BaseException) -> list[Any]:
    found = []
    tb = exc.__traceback__
    while tb is not None:
        found.append(tb)
        tb = tb.tb_next
    return found


def _failed(ctx: MethodContext, what: str) -> MethodRun:
    """The run of a method whose code failed: ``method_failed``, the reason naming it."""
    failed = Outcome(error="method_failed", reason=f"method {ctx.method!r} {what}")
    return MethodRun(ctx.method, ctx.k, ctx.seed, failed, ctx.calls, ctx.latency_s)
