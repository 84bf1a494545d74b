"""`report` keys a run by model, endpoint type and chat template: a raw-completions run and a chat-template run of
the same model are two rows (issue 38: they were merged under one name and one dropped as "older")."""

from __future__ import annotations

import json
from pathlib import Path

from leakproof_qa.leakproof_eval.report import markdown, read


def _results(folder: Path, stamp: str, model_type: str, chat_template: str | None, f1: float) -> None:
    folder.mkdir(parents=True)
    data = {
        "results": {"phantom_wiki_rag": {"alias": "phantom_wiki_rag", "f1,answer": f1, "adt_score,answer": f1}},
        "configs": {"phantom_wiki_rag": {"metadata": {"phantom_wiki_resolved": {"universe": "n50_s1", "size": 50}}}},
        "n-samples": {"phantom_wiki_rag": {"original": 1878, "effective": 10}},
        "config": {"model": model_type, "model_args": {"model": "gemma-3-270m"}},
        "model_name": "gemma-3-270m",
        "chat_template": chat_template,
        "chat_template_sha": None,
        "date": float(len(stamp)),
    }
    (folder / f"results_{stamp}.json").write_text(json.dumps(data))


def test_a_raw_and_a_chat_template_run_of_one_model_are_two_rows_and_none_is_dropped(tmp_path):
    _results(tmp_path / "raw", "2026-11-26T10-00-00", "local-completions", None, 0.25)
    _results(tmp_path / "chat", "2026-11-26T11-00-00.5", "local-chat-completions", "", 0.5)
    report = read([str(tmp_path)])
    models = sorted(model for model, _, _ in report.chosen)
    assert models == ["gemma-3-270m [local-chat-completions, chat template]", "gemma-3-270m [local-completions]"]
    assert not any("older" in note for note in report.notes)
    text = markdown(report)
    assert "gemma-3-270m [local-completions]" in text and "gemma-3-270m [local-chat-completions, chat template]" in text


def test_a_rerun_of_the_same_setup_is_set_aside_with_a_note_naming_both_files(tmp_path):
    _results(tmp_path / "first", "2026-11-26T10-00-00", "local-completions", None, 0.25)
    _results(tmp_path / "second", "2026-11-26T11-00-00.5", "local-completions", None, 0.5)
    report = read([str(tmp_path)])
    assert len(report.chosen) == 1 and next(iter(report.chosen.values())).metrics["f1"] == 0.5
    assert any("first" in note and "second" in note and "left out" in note for note in report.notes)
