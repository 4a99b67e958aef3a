"""The package's shape, as docs/architecture.md states it: no import cycles (lazy imports
included), pytest only in the glue, the vocabulary free of our imports, modules a newcomer can
hold in mind."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest_revprop

PACKAGE_DIR = Path(pytest_revprop.__file__).parent
PYTEST_GLUE = "pytest_revprop.plugin"
"""The glue's package: the only one that imports pytest."""
MAX_MODULE_LINES = 600


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE_DIR.rglob("*.py"))}


def _imports(path: Path) -> set[str]:
    """Every module this file imports, at the top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _internal_graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(path) & modules.keys() - {name} for name, path in modules.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for dep in sorted(graph[node]):
            if state.get(dep) == 1:
                return [*stack[stack.index(dep) :], dep]
            if dep not in state and (found := visit(dep)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_cycles_lazy_imports_included() -> None:
    graph = _internal_graph()
    # A package's __init__ is imported with each of its modules; count that edge too, unless
    # the __init__ is its package's front door: one that imports its own modules (the plugin's
    # entry point) sits above them, and a module of it importing it is an edge of its own.
    fronts = {name for name, deps in graph.items() if any(d.startswith(name + ".") for d in deps)}
    for name in graph:
        parent = name.rpartition(".")[0]
        if parent in graph and parent not in fronts:
            graph[name] = graph[name] | {parent} - {name}
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_only_the_pytest_glue_imports_pytest() -> None:
    importers = {
        name
        for name, path in _modules().items()
        if any(m == "pytest" or m.startswith(("pytest.", "_pytest")) for m in _imports(path))
    }
    outside = {name for name in importers if not _in_glue(name)}
    assert not outside, f"pytest imported outside {PYTEST_GLUE}: {sorted(outside)}"
    assert PYTEST_GLUE in importers  # the entry point: what pytest loads


def _in_glue(name: str) -> bool:
    return name == PYTEST_GLUE or name.startswith(PYTEST_GLUE + ".")


def test_the_core_never_imports_the_glue() -> None:
    for name, path in _modules().items():
        if not _in_glue(name):
            glue = sorted(m for m in _imports(path) if _in_glue(m))
            assert not glue, f"{name} imports the glue: {glue}"


def test_the_vocabulary_imports_nothing_of_ours() -> None:
    imports = _imports(_modules()["pytest_revprop.vocabulary"])
    assert not {m for m in imports if m.startswith("pytest_revprop")}


def test_every_module_says_its_job_and_stays_short() -> None:
    for name, path in _modules().items():
        text = path.read_text(encoding="utf-8")
        assert ast.get_docstring(ast.parse(text)), f"{name} has no docstring"
        assert text.count("\n") <= MAX_MODULE_LINES, f"{name} has {text.count(chr(10))} lines"


def test_methods_written_outside_the_package_use_the_public_api_only() -> None:
    """Every conftest.py text (the root one, the code blocks of docs/hooks.md, the ones tests
    write) imports nothing of ours but ``pytest_revprop.api`` (and the test doubles of
    ``pytest_revprop.testing``), and no test or benchmark takes a name of the method
    interface (``MethodContext``, ``Outcome``, ...) from the module behind it."""
    import re

    from pytest_revprop import api

    root = PACKAGE_DIR.parent
    ours = re.compile(r"^\s*(?:from|import)\s+(pytest_revprop[\w.]*)", re.MULTILINE)
    allowed = ("pytest_revprop.api", "pytest_revprop.testing")
    method_modules = {
        "pytest_revprop.core.methods",
        "pytest_revprop.core.outcome",
        "pytest_revprop.core.registry",
    }
    texts = {"conftest.py": (root / "conftest.py").read_text(encoding="utf-8")}
    hooks_doc = (root / "docs" / "hooks.md").read_text(encoding="utf-8")
    for number, block in enumerate(re.findall(r"```python\n(.*?)```", hooks_doc, re.DOTALL)):
        texts[f"docs/hooks.md block {number + 1}"] = block
    users = sorted([*(root / "tests").glob("*.py"), *(root / "benchmarks").glob("*.py")])
    wrong: list[str] = []
    for path in users:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if "def pytest_revprop_" in node.value:
                    texts[f"{path.name}:{node.lineno}"] = node.value
            elif isinstance(node, ast.ImportFrom) and node.module in method_modules:
                behind = {
                    name
                    for alias in node.names
                    if (name := alias.name) in api.__all__
                    and getattr(getattr(api, name), "__module__", None) == node.module
                }
                wrong += [f"{path.name}:{node.lineno} takes {n} from {node.module}" for n in behind]
    for where, text in texts.items():
        for module in ours.findall(text):
            if not module.startswith(allowed):
                wrong.append(f"{where} imports {module}")
    assert texts and not wrong, "\n".join(wrong)


MAX_UNDOCUMENTED_CLASSES = 3
MIN_DOCUMENTED_SHARE = 0.80
MAX_LINE = 120


def _public_definitions() -> tuple[list[str], list[str], list[str]]:
    """The package's public classes and public functions and methods (properties included),
    as ``module:name``: (classes without a docstring, functions and methods with one, those
    without). Public: the name and every enclosing class's name start with no underscore
    (dunder methods are not counted); functions inside functions are not counted."""
    bare_classes: list[str] = []
    documented: list[str] = []
    bare: list[str] = []

    def visit(body: list[ast.stmt], where: str) -> None:
        for node in body:
            public = isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and (
                not node.name.startswith("_")
            )
            if isinstance(node, ast.ClassDef) and public:
                if not ast.get_docstring(node):
                    bare_classes.append(f"{where}:{node.name}")
                visit(node.body, f"{where}:{node.name}")
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and public:
                has = ast.get_docstring(node) is not None
                (documented if has else bare).append(f"{where}.{node.name}")

    for name, path in _modules().items():
        visit(ast.parse(path.read_text(encoding="utf-8")).body, name)
    return bare_classes, documented, bare


def test_public_classes_and_most_public_functions_have_docstrings() -> None:
    bare_classes, documented, bare = _public_definitions()
    assert len(bare_classes) <= MAX_UNDOCUMENTED_CLASSES, f"classes without: {bare_classes}"
    share = len(documented) / (len(documented) + len(bare))
    assert share >= MIN_DOCUMENTED_SHARE, (
        f"{share:.1%} of {len(documented) + len(bare)} public functions and methods have a"
        f" docstring; without: {sorted(bare)}"
    )


def test_no_line_of_the_package_exceeds_the_limit() -> None:
    long = [
        f"{path.relative_to(PACKAGE_DIR.parent)}:{number} ({len(line)})"
        for path in sorted(PACKAGE_DIR.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if len(line) > MAX_LINE
    ]
    assert not long, f"lines over {MAX_LINE} characters: {long}"
