"""The verifier shares nothing with the generator's reading: its imports, and its own relation table, which must mean
what the generator's relations mean on a whole universe."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from leakproof_qa.builders.verification.documents import read_document
from leakproof_qa.builders.verification.evaluate import walk
from leakproof_qa.builders.verification.shown import Shown
from leakproof_qa.builders.verification.words import DATA, relations

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "builders" / "verification"
FORBIDDEN = (
    "leakproof_qa.builders.phantomwiki",
    "leakproof_qa.builders.evidence",
    "leakproof_qa.builders.retrieval",
    "leakproof_qa.builders.tokens",
    "leakproof_qa.builders.metrics",
    "tests.phantomwiki.careful_reader",
)


def imported(path: Path, source: str | None = None) -> set[str]:
    """Every module a file imports (its text, or `source`), relative imports resolved against its package."""
    package = ".".join(("leakproof_qa", *path.relative_to(ROOT).with_suffix("").parts[:-1]))
    found = set()
    for node in ast.walk(ast.parse(source if source is not None else path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package if node.level else ""
            module = ".".join(part for part in (base, node.module or "") if part)
            found |= {module} | {f"{module}.{alias.name}" for alias in node.names}
    return found


def test_the_verifier_imports_nothing_of_the_generators_reading():
    files = sorted(PACKAGE.rglob("*.py"))
    assert len(files) >= 5
    for path in files:
        engine_wide = ("leakproof_qa.builders", "leakproof_qa.builders.cli")
        bad = {m for m in imported(path) if m.startswith(FORBIDDEN) or m in engine_wide}
        assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"
        assert "careful_reader" not in path.read_text(encoding="utf-8")


def test_the_import_check_sees_relative_and_absolute_imports():
    source = "from ..phantomwiki import solver\nimport leakproof_qa.builders.metrics\nfrom ..evidence import render\n"
    found = imported(PACKAGE / "checks.py", source)
    assert {
        "leakproof_qa.builders.phantomwiki.solver",
        "leakproof_qa.builders.metrics",
        "leakproof_qa.builders.evidence",
    } <= found


def test_the_verifier_reads_its_own_data_files_only():
    assert DATA.parent.resolve() == PACKAGE and sorted(p.name for p in DATA.iterdir() if p.suffix == ".tsv") == [
        "attributes.tsv",
        "labels.tsv",
        "relations.tsv",
        "sentences.tsv",
    ]
    for path in PACKAGE.rglob("*.py"):
        assert "phantomwiki" not in path.read_text(encoding="utf-8"), path


@pytest.mark.parametrize("name", ["n50_s1", "n500_s2"])
def test_each_relation_word_means_what_the_generators_relation_means(name):
    """Over the whole corpus (every article shown), the verifier's walk of each relation from each person gives
    exactly the generator's answer."""
    from leakproof_qa.builders.phantomwiki.config import settings_from
    from leakproof_qa.builders.phantomwiki.kinship import Kinship
    from leakproof_qa.builders.phantomwiki.relations import relations as generator_relations
    from leakproof_qa.builders.phantomwiki.stages import complete, generate

    generated = complete(generate(settings_from(name)[0], False, False), with_questions=False, with_articles=True)
    universe, kinship = generated.universe, Kinship(generated.universe)
    shown = Shown.of(read_document(article.article) for article in generated.articles)
    assert shown.disagreements() == [] and shown.unread == []
    ours = relations()
    assert sorted(rel.singular for rel in generator_relations().values()) == sorted(ours)
    people = range(0, len(universe), max(1, len(universe) // 100))
    for rel in generator_relations().values():
        for person in people:
            expected = {universe.names[y] for y in kinship.targets(rel.name, person)}
            assert walk(shown, ours[rel.singular], universe.names[person], complete=True) == expected, (
                rel.name,
                universe.names[person],
            )
            assert walk(shown, ours[rel.singular], universe.names[person], complete=False) == expected
