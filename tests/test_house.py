"""Facts about the house we can test ourselves (issue 30): imports point down, never from an engine up into a face."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINES = ("builders/phantomwiki", "builders/neoqa", "dataset_builders")


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, relative imports resolved to their absolute names."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
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
            up = {m for m in imported_modules(path) if m.startswith(("builders.cli", "builders.publishing"))}
            assert not up, f"{path.relative_to(ROOT)} imports {sorted(up)}"
