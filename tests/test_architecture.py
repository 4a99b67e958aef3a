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
FACE = {"__init__", "api", "hookspecs", "vocabulary", "errors"}
"""The package's face: the only modules at its top level (at most one more may join them)."""
MAX_FACE_MODULES = 6
ARCHITECTURE_DOC = PACKAGE_DIR.parent / "docs" / "architecture.md"
FOLDER_SECTION = "## The folders, and what each may import"


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


def test_every_script_the_pages_load_says_its_job_and_stays_short() -> None:
    """The JavaScript of report.html and of the annotation page is held to the modules' rules:
    a comment on its job in its first lines, at most as many lines as a module."""
    scripts = sorted(PACKAGE_DIR.rglob("static/*.js"))
    assert len(scripts) > 10  # the report's two and the annotation page's modules
    for path in scripts:
        text = path.read_text(encoding="utf-8")
        head = text.removeprefix('"use strict";\n')
        assert head.startswith("// "), f"{path.name} does not open with a comment on its job"
        assert text.count("\n") <= MAX_MODULE_LINES, f"{path.name} has {text.count(chr(10))} lines"


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
        "pytest_revprop.core.method_context",
        "pytest_revprop.core.methods",
        "pytest_revprop.core.outcome",
        "pytest_revprop.core.registry",
    }
    texts = {"conftest.py": (root / "conftest.py").read_text(encoding="utf-8")}
    hooks_doc = (root / "docs" / "hooks.md").read_text(encoding="utf-8")
    for number, block in enumerate(re.findall(r"```python\n(.*?)```", hooks_doc, re.DOTALL)):
        texts[f"docs/hooks.md block {number + 1}"] = block
    users = sorted([*(root / "tests").rglob("*.py"), *(root / "benchmarks").glob("*.py")])
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


def _folder(module: str) -> str:
    """The folder a module belongs to: its subpackage under ``pytest_revprop``, or for a module
    of the package's face, the module itself (``api``, ``vocabulary``, ``__init__``, ...)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _folder_graph() -> dict[str, dict[str, list[str]]]:
    """folder -> folder it imports -> the module imports that make the edge."""
    graph: dict[str, dict[str, list[str]]] = {}
    for name, deps in _internal_graph().items():
        edges = graph.setdefault(_folder(name), {})
        for dep in sorted(deps):
            if _folder(dep) != _folder(name):
                edges.setdefault(_folder(dep), []).append(f"{name} -> {dep}")
    return graph


def _documented_folders() -> dict[str, set[str]]:
    """docs/architecture.md's folder table: folder -> the folders it may import."""
    import re

    text = ARCHITECTURE_DOC.read_text(encoding="utf-8")
    section = text.split(FOLDER_SECTION, 1)[1].split("\n## ", 1)[0]
    allowed: dict[str, set[str]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and (m := re.fullmatch(r"`(\w+)(?:/|\.py)`", cells[0])):
            allowed[m.group(1)] = set(re.findall(r"`(\w+)(?:/|\.py)`", cells[2]))
    return allowed


def test_the_top_level_holds_only_the_package_face() -> None:
    top = sorted(p.stem for p in PACKAGE_DIR.glob("*.py"))
    assert len(top) <= MAX_FACE_MODULES and set(top) <= FACE, top
    folders = {p.name for p in PACKAGE_DIR.iterdir() if (p / "__init__.py").exists()}
    assert folders, "no subpackages"


def test_folders_import_in_one_direction() -> None:
    """No two folders import each other, directly or around a circle (lazy imports count)."""
    graph = {folder: set(edges) for folder, edges in _folder_graph().items()}
    for folder in {f for edges in graph.values() for f in edges}:
        graph.setdefault(folder, set())
    cycle = _cycle(graph)
    assert cycle is None, " -> ".join(cycle or [])


def test_each_folder_imports_only_what_docs_architecture_allows() -> None:
    allowed = _documented_folders()
    graph = _folder_graph()
    undocumented = sorted(set(graph) - set(allowed))
    assert not undocumented, f"folders missing from docs/architecture.md's table: {undocumented}"
    wrong = [
        f"{folder} may not import {dep}: {edges[0]}"
        for folder, deps in sorted(graph.items())
        for dep, edges in sorted(deps.items())
        if dep not in allowed[folder]
    ]
    assert not wrong, "\n".join(wrong)


def test_the_core_imports_no_layer_above_it() -> None:
    above = {"run", "plugin", "cli", "reporting", "servers", "authoring", "testing"}
    core = _folder_graph().get("core", {})
    assert not above & set(core), {f: core[f] for f in above & set(core)}


def test_every_module_path_docs_architecture_names_exists() -> None:
    import re

    text = ARCHITECTURE_DOC.read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:[a-z_]+/)+[a-z_]+\.py)`", text))
    assert named, "docs/architecture.md names no module path"
    roots = [PACKAGE_DIR, PACKAGE_DIR.parent]
    missing = sorted(p for p in named if not any((root / p).exists() for root in roots))
    assert not missing, f"docs/architecture.md names paths that do not exist: {missing}"


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
