"""The layering rules, read from the source: nothing below the HTTP edge imports it, engines read
no files, and no module imports another that imports it back (directly or around a circle).
Every function is discovered from template.yaml, so a new function is held to the same rules
without touching this file."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

from persona_rails_dev.template import Function, functions, layer_paths

# Modules that may speak HTTP: a function's Lambda entry and its routes (`api.py`, and a route
# group of its own such as `data_rights_api.py`).
HTTP_EDGE_FILES = frozenset({"handler.py", "api.py"})


def is_http_edge(path: Path) -> bool:
    return path.name in HTTP_EDGE_FILES or path.name.endswith("_api.py")


HTTP_MODULES = ("persona_rails.http", "fastapi", "starlette", "mangum")
# An engine receives its config as an argument: it never finds, opens or loads a file.
ENGINE_FORBIDDEN_MODULES = ("persona_rails.config", "pathlib", "importlib.resources", "os", "io", "shutil")
FILE_CALLS = frozenset({"open", "read_text", "read_bytes", "write_text", "write_bytes", "load_artifact"})


@dataclass(frozen=True)
class Module:
    path: Path
    name: str  # dotted, as imported (`intercept_session.engine.turn`)

    @property
    def package(self) -> str:
        return self.name if self.path.name == "__init__.py" else self.name.rpartition(".")[0]


def _modules_under(root: Path, directory: Path) -> list[Module]:
    found = []
    for path in sorted(directory.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found.append(Module(path, ".".join(parts)))
    return found


def _package_of(function: Function) -> Path:
    return function.code_uri / function.module.split(".")[0]


def imported_modules(module: Module, source: str | None = None) -> set[str]:
    """Every module an import statement names, anywhere in the file (lazy imports included),
    relative imports resolved, and `from a import b` counted as both `a` and `a.b`."""
    tree = ast.parse(source if source is not None else module.path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)] if node.level > 1 else anchor
                base = ".".join([*anchor, base] if base else anchor)
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def every_module() -> list[Module]:
    """Every function's package and the whole layer, the HTTP edge included."""
    modules = []
    for function in functions().values():
        modules += _modules_under(function.code_uri, _package_of(function))
    for layer in layer_paths():
        modules += _modules_under(layer, layer / "persona_rails")
    return modules


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import one another around a circle (strongly connected
    components of more than one module, Tarjan's algorithm without recursion), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph.get(target, ())))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        circles.append(sorted(group))
    return circles


def offending(imports: set[str], forbidden: tuple[str, ...]) -> list[str]:
    return sorted(name for name in imports for bad in forbidden if name == bad or name.startswith(f"{bad}."))


def file_access(module: Module, source: str | None = None) -> list[str]:
    """Calls that open or read a file (`open(...)`, `path.read_text()`, `load_artifact(...)`) and
    any use of `__file__`, with their line numbers."""
    tree = ast.parse(source if source is not None else module.path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            callee = node.func
            name = callee.id if isinstance(callee, ast.Name) else getattr(callee, "attr", None)
            if name in FILE_CALLS:
                found.append(f"line {node.lineno}: {name}()")
        elif isinstance(node, ast.Name) and node.id == "__file__":
            found.append(f"line {node.lineno}: __file__")
    return sorted(found)


def below_the_edge() -> list[Module]:
    """Services, repositories, engines, schemas ... of every function, and the whole layer
    except persona_rails.http."""
    modules = []
    # A template handler is an edge too (a scheduled one such as intercept_session.housekeeping).
    handlers = {function.module for function in functions().values()}
    packages = {(function.code_uri, _package_of(function)) for function in functions().values()}
    for code_uri, package in sorted(packages):
        modules += [
            m
            for m in _modules_under(code_uri, package)
            if not is_http_edge(m.path) and m.name not in handlers
        ]
    for layer in layer_paths():
        shared = _modules_under(layer, layer / "persona_rails")
        modules += [
            m
            for m in shared
            if not (m.name == "persona_rails.http" or m.name.startswith("persona_rails.http."))
        ]
    return modules


def engine_modules() -> list[Module]:
    modules = []
    for function in functions().values():
        engine = _package_of(function) / "engine"
        if engine.is_dir():
            modules += _modules_under(function.code_uri, engine)
    return modules


# -- the scanners themselves catch what they look for ------------------------------------------


@pytest.mark.parametrize(
    ("source", "package", "expected"),
    [
        (
            "from persona_rails.http.errors import ApiError",
            "x",
            ["persona_rails.http.errors", "persona_rails.http.errors.ApiError"],
        ),
        ("import fastapi", "x", ["fastapi"]),
        ("def f():\n    from starlette import responses", "x", ["starlette", "starlette.responses"]),
        ("from persona_rails import http", "x", ["persona_rails.http"]),
        ("from .http import app", "persona_rails", ["persona_rails.http", "persona_rails.http.app"]),
        (
            "from ..http import errors",
            "persona_rails.db",
            ["persona_rails.http", "persona_rails.http.errors"],
        ),
        ("from persona_rails.errors import NotFound\nimport httpx\nimport fastapi_like", "x", []),
    ],
)
def test_the_import_scanner_finds_http_imports(source: str, package: str, expected: list[str]):
    module = Module(Path(f"{package.replace('.', '/')}/__init__.py"), package)
    assert offending(imported_modules(module, source), HTTP_MODULES) == expected


def test_the_circle_finder_finds_circles_of_any_length():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a", "e"}, "e": {"d"}, "f": {"a"}, "g": set()}
    assert sorted(import_circles(graph)) == [["a", "b", "c"], ["d", "e"]]
    assert import_circles({"a": {"b"}, "b": set()}) == []


def test_the_file_scanner_finds_file_access():
    module = Module(Path("engine/x.py"), "pkg.engine.x")
    source = "def f(p):\n    return p.read_text() + open('x').read()\nHERE = __file__\n"
    assert file_access(module, source) == ["line 2: open()", "line 2: read_text()", "line 3: __file__"]
    assert file_access(module, "def f(x):\n    return x.strip()\n") == []


# -- the rules -----------------------------------------------------------------------------------


def test_every_function_is_scanned():
    names = {m.name for m in below_the_edge()}
    for function in functions().values():
        package = function.module.split(".")[0]
        # The use cases are where the rule matters most: a function's own service, or the layer's
        # when the function is only its HTTP face (ModerationCheckFunction and the moderation service).
        assert any(name.startswith(f"{package}.") for name in names), function.logical_id
        assert function.module not in names, "the handler is the HTTP edge"
    assert {
        "intercept_session.service",
        "weekly_summary.service",
        "persona_rails.moderation.service",
    } <= names
    assert "persona_rails.errors" in names
    assert not any(name.startswith("persona_rails.http") for name in names)


@pytest.mark.parametrize("module", below_the_edge(), ids=lambda m: m.name)
def test_nothing_below_the_http_edge_imports_it(module: Module):
    assert offending(imported_modules(module), HTTP_MODULES) == [], (
        f"{module.path} imports the HTTP edge: raise persona_rails.errors instead"
    )


def test_every_function_engine_is_scanned():
    names = {m.name for m in engine_modules()}
    packages = {name.split(".")[0] for name in names}
    # Both shipped functions have an engine; a future one is picked up from template.yaml.
    assert {"intercept_session", "weekly_summary"} <= packages
    assert len(names) >= 4


@pytest.mark.parametrize("module", engine_modules(), ids=lambda m: m.name)
def test_engines_read_no_files(module: Module):
    assert offending(imported_modules(module), ENGINE_FORBIDDEN_MODULES) == [], (
        f"{module.path}: an engine gets its config as an argument"
    )
    assert file_access(module) == [], f"{module.path}: an engine reads no files"


def test_no_modules_import_each_other_around_a_circle():
    modules = every_module()
    names = {module.name for module in modules}
    assert {"persona_rails.db.database", "persona_rails.http.errors"} <= names
    # Lazy imports count: a circle closed inside a function is still a circle to whoever reads it.
    graph = {m.name: (imported_modules(m) & names) - {m.name} for m in modules}
    assert import_circles(graph) == []
