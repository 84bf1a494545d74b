"""Facts about the house we can test ourselves (issue 30): imports point down, never from an engine up into a face."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINES = ("builders/phantomwiki", "builders/neoqa", "dataset_builders")


PACKAGE = ROOT / "leakproof_qa"
LINKED = sorted(path.name.removesuffix(".py") for path in PACKAGE.iterdir() if path.is_symlink())
"""The root's folders (and dataset_loading.py) that are parts of leakproof_qa: linked here, copied in a wheel."""


def module_name(path: Path) -> str:
    """The name a file is imported by: its folders up to the first without an __init__.py, and its own name; a part
    of leakproof_qa is named under it."""
    parts = [] if path.name == "__init__.py" else [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file() and folder != ROOT:
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(["leakproof_qa", *parts] if parts[0] in LINKED else parts)


def is_program_block(node: ast.stmt) -> bool:
    """`if __name__ == "__main__":`, what runs only when the file is a program, never when it is imported."""
    test = node.test if isinstance(node, ast.If) else None
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and [getattr(c, "value", None) for c in test.comparators] == ["__main__"]
    )


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports (at its top, in a function or for type checking alone), relative imports resolved
    to their absolute names; not what its `if __name__ == "__main__":` block imports (the file as a program)."""
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    found = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    tree.body = [node for node in tree.body if not is_program_block(node)]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package if node.level else ""
            module = ".".join(part for part in (base, node.module or "") if part)
            found.add(module)
            found |= {f"{module}.{alias.name}" for alias in node.names}
    return found


def test_no_engine_imports_the_command_line_or_publishing():
    for folder in ENGINES:
        for path in sorted((ROOT / folder).rglob("*.py")):
            up = {
                m
                for m in imported_modules(path)
                if m.startswith(("leakproof_qa.builders.cli", "leakproof_qa.builders.publishing"))
            }
            assert not up, f"{path.relative_to(ROOT)} imports {sorted(up)}"


def source_files() -> list[Path]:
    """The project's own Python files: no tests, no build output, nothing in a hidden folder (every virtual
    environment scripts/test.sh makes, .venv, .venv-datasets3, .venv-bare, is one) or in site-packages."""
    skipped = {"tests", "build", "dist", "site-packages"}

    def ours(path: Path) -> bool:
        parts = path.relative_to(ROOT).parts[:-1]
        return not skipped & set(parts) and not any(part.startswith(".") for part in parts)

    return sorted(p for p in ROOT.rglob("*.py") if ours(p) and not p.is_symlink())


def test_tool_names_are_spelled_only_in_the_tool_table():
    """Any other module names a tool through phantom_env.tools (FINISH, RETRIEVING, name_of, tool_names)."""
    from leakproof_qa.phantom_env.tools import TOOLS

    names = {tool.name for tool in TOOLS}
    table = ROOT / "phantom_env" / "tools.py"
    for path in source_files():
        if path == table:
            continue
        spelled = {
            node.value
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Constant) and node.value in names
        }
        assert not spelled, f"{path.relative_to(ROOT)} spells the tool name(s) {sorted(spelled)}"


def test_tsv_data_files_are_read_only_by_builders_tsv():
    """One reader: no other module opens a .tsv data file and splits it itself (figures.py reads its own tables; the
    verifier, builders/verification, shares no code with the generator by design, so it reads its own data files)."""
    reader, figures = ROOT / "builders" / "tsv.py", ROOT / "leakproof_eval" / "figures.py"
    verifier = ROOT / "builders" / "verification"
    for path in source_files():
        text = path.read_text(encoding="utf-8")
        if path not in (reader, figures) and verifier not in path.parents:
            assert 'split("\\t")' not in text, f"{path.relative_to(ROOT)} splits lines at tabs itself"


def import_circles() -> list[list[str]]:
    """The circles of the import graph of the project's modules (strongly connected parts of more than one module,
    or one that imports itself), each as its files, found by Tarjan's algorithm."""
    files = {module_name(path): path for path in source_files()}
    arrows = {name: sorted(set(files) & imported_modules(path) - {name}) for name, path in files.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(name: str) -> None:
        index[name] = low[name] = len(index)
        stack.append(name)
        for other in arrows[name]:
            if other not in index:
                visit(other)
                low[name] = min(low[name], low[other])
            elif other in stack:
                low[name] = min(low[name], index[other])
        if low[name] == index[name]:
            part = []
            while not part or part[-1] != name:
                part.append(stack.pop())
            if len(part) > 1:
                circles.append(sorted(files[member].relative_to(ROOT).as_posix() for member in part))

    for name in sorted(files):
        if name not in index:
            visit(name)
    return circles


def test_the_project_s_modules_import_each_other_in_no_circle():
    """Imports point one way: no module reaches itself through what it imports, lazily or for type checking alone."""
    assert len({module_name(path) for path in source_files()}) > 100
    assert import_circles() == []


def test_the_root_s_folders_are_imported_only_as_parts_of_leakproof_qa():
    """`import builders` works in a checkout (the root is on sys.path) but not once installed: no file may use it."""
    files = source_files() + sorted((ROOT / "tests").rglob("*.py")) + sorted((ROOT / "benchmarks").rglob("*.py"))
    for path in files:
        bare = {m for m in imported_modules(path) if m.split(".")[0] in LINKED}
        assert not bare, f"{path.relative_to(ROOT)} imports {sorted(bare)} (write leakproof_qa.{sorted(bare)[0]})"


def test_leakproof_qa_links_exactly_the_folders_setup_cfg_installs_under_it():
    links = {path.name: path.resolve() for path in PACKAGE.iterdir() if path.is_symlink()}
    assert links == {name: (ROOT / name).resolve() for name in links}
    assert set(LINKED) == {
        "builders",
        "cards",
        "dataset_builders",
        "dataset_loading",
        "encryption",
        "leakproof_eval",
        "phantom_env",
    }


LAYERS = {
    "program": (
        "benchmarks/",
        "scripts/",
        "builders/cli/",
        "__main__.py",
        "phantom_env/cli.py",
        "phantom_env/mcp_server.py",
    ),
    "face": ("leakproof_eval/", "phantom_env/", "environments/", "builders/analysis/"),
    "dataset": (
        "phantom_wiki.py",
        "neoqa.py",
        "dataset_builders/",
        "dataset_loading.py",
        "builders/publishing/",
        "builders/cluster/",
    ),
    "engine": ("builders/phantomwiki/", "builders/neoqa/", "builders/verification/"),
    "leaf": ("builders/", "encryption/", "cards/", "leakproof_qa/"),
}
"""The floors of the house, top first, each by the path prefixes (or file names) of its files; the first that names a
file is its floor. Programs run the rest; the faces (lm-eval, the agent, reports) use the datasets; the datasets and
publishing use the engines that make rows; everything uses the leaves."""


def floor(path: Path) -> int:
    relative = path.relative_to(ROOT).as_posix()
    for number, prefixes in enumerate(LAYERS.values()):
        if any(relative.startswith(p) if p.endswith("/") else relative == p or path.name == p for p in prefixes):
            return number
    raise AssertionError(f"{relative} is on no floor of LAYERS")


def test_imports_point_down_the_floors_never_up():
    """A file imports only files on its own floor or below (a program's `__main__` block may import the command line:
    that is what it runs)."""
    files = {module_name(path): path for path in source_files()}
    up = [
        f"{path.relative_to(ROOT)} ({list(LAYERS)[floor(path)]}) imports {files[other].relative_to(ROOT)}"
        f" ({list(LAYERS)[floor(files[other])]})"
        for name, path in files.items()
        for other in sorted(set(files) & imported_modules(path) - {name})
        if floor(files[other]) < floor(path)
    ]
    assert up == []
