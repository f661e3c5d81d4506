"""The package's layers: data <- priors <- solvers <- evaluation <- bench <- CLI.

Every module's imports of arcsolve modules, at the top or inside a function, point to its own
layer or a lower one, and the modules import each other without a cycle (so no import sits
inside a function to dodge one).
"""

from __future__ import annotations

import ast
from pathlib import Path

import arcsolve

PACKAGE = Path(arcsolve.__file__).parent
LAYERS = (  # lowest first; a module belongs to the first layer one of whose prefixes it has
    ("data", ("arcsolve.errors", "arcsolve.tasks", "arcsolve.loaders", "arcsolve.render", "arcsolve.files",
              "arcsolve.devices", "arcsolve.symmetry", "arcsolve.colour_views",
              "arcsolve.content_crops", "arcsolve.hidden_boxes")),
    ("priors", ("arcsolve.priors",)),
    ("solvers", ("arcsolve.solution", "arcsolve.hybrid", "arcsolve.latformer", "arcsolve.dsl")),
    ("evaluation", ("arcsolve.evaluation",)),
    ("bench", ("arcsolve.bench",)),
    ("cli", ("arcsolve.cli", "arcsolve.__main__")),
)
FACADE = "arcsolve"  # the package's own __init__: the public API, above every layer


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def layer(name: str) -> int:
    for rank, (_, prefixes) in enumerate(LAYERS):
        if any(name == p or name.startswith(p + ".") for p in prefixes):
            return rank
    raise AssertionError(f"{name} belongs to no layer; add it to LAYERS")


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The arcsolve modules that `name` imports, anywhere in its code."""
    found: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        found.update(t for t in targets if t in known and t != name)
    return found


def graph() -> dict[str, set[str]]:
    mods = modules()
    return {name: imports(name, path, set(mods)) for name, path in mods.items()}


def test_every_module_belongs_to_a_layer():
    for name in modules():
        if name != FACADE:
            layer(name)


def test_no_module_imports_from_a_higher_layer():
    upward = [
        f"{name} ({LAYERS[layer(name)][0]}) imports {target} ({LAYERS[layer(target)][0]})"
        for name, targets in graph().items()
        if name != FACADE
        for target in sorted(targets)
        if target != FACADE and layer(target) > layer(name)
    ]
    assert upward == []


def test_no_import_cycle():
    edges = graph()
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    cycles: list[list[str]] = []

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for target in sorted(edges[name]):
            if state.get(target) == 1:
                cycles.append(path[path.index(target):] + [target])
            elif target not in state:
                visit(target, [*path, target])
        state[name] = 2

    for name in sorted(edges):
        if name not in state:
            visit(name, [name])
    assert cycles == []


def test_the_checks_see_an_upward_import_and_a_cycle(tmp_path):
    """The import reader finds imports at the top and inside functions."""
    source = tmp_path / "probe.py"
    source.write_text("import arcsolve.cli\n\ndef f():\n    from arcsolve.tasks import Task\n")
    found = imports("arcsolve.tasks", source, {"arcsolve.cli", "arcsolve.tasks", "arcsolve.errors"})
    assert found == {"arcsolve.cli"}
    assert layer("arcsolve.cli") > layer("arcsolve.tasks")
