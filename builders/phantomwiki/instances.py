"""Evidence instances: sufficient / insufficient article sets a reader can tell apart, with distractors; and BM25 RAG.

The labels follow one rule (builders/phantomwiki/required.py, stated in the README and the prompts): a
person's own article is the complete source of their family, friends and attributes, and a question
needs the article of everyone whose lists or attributes it reads, hop by hop from its anchor, dead ends
included: its required set. A question's family of rows (spec/validity.md: only reading tells the labels apart):
  * one sufficient row: the whole required set (plus distractors); the answer computed from the documents is the
    gold answer and provably complete. As a guard, the lenient reader of builders/phantomwiki/reading.py (which
    also uses every other sentence) must derive exactly the gold answer from the required set, or generation stops;
  * insufficient rows: by default one per role of missing article that the question has (`missing_role`: the
    anchor, an answer's fact, a bridge on a path to an answer, a dead end; required.ROLES), the article drawn among
    those of that role; `insufficient="all"` gives one per required article. Gold answer DEFLECTION;
  * unanswerable variants (variants.py): a false or unknowable premise, or a person who does not exist;
  * the wording of each sufficient and insufficient row is drawn like the variants' wordings: a true-premise control
    for each false-premise kind (a named relative, the person's own occupation, place, ...) or the plain question,
    so that a premise in the question says nothing about the label until the documents are read;
  * questions starting from an attribute value ("the person whose hobby is tango") are decidable only
    in a closed world: with `attribute_questions=True` they get instances whose required set holds every
    holder of the value and whose `closed_world` sentence says how many there are; by default they
    are left out of `instances` (they stay in `questions` and `rag`);
  * distractors: articles outside the set, the BM25 neighbours of the question plus its evidence
    texts ("hard") or seeded random ones ("easy"). An article joined by any family or friend fact
    to the people the question reaches is never a distractor (see `DistractorPool.distractors`);
  * every row draws its own distractors from the question's pool and its own document order, so no two rows share
    a document list; layouts (builders/evidence.py): "fixed" = a number of documents drawn per row in
    [instance_documents_min, instance_documents], "ablation" = 0/20/40/60/80 distractors (each level a prefix of
    the next, per row); levels above what the corpus holds are left out;
  * questions whose required set holds more than `max_evidence` articles get no instances (a question
    needing 300 articles would give 300 instances of 300 documents each);
  * `instance_id` is a digest: it names no label; the rows of a question come in a seeded order.

RAG (`rag` subset): the BM25 top-k articles of the question text over the whole corpus (k = 4, the
paper's), in rank order; sufficient exactly when they hold the question's whole required set. Each family with
unanswerable variants also has one control per premise variant, worded alike, with its own retrieval.

The maker is in parts (this module names what other code uses): instance_maker.Evidence composes the corpus (who
names whom), the labeller (labeller.py: required sets, guards, forms, cases), the distractor pool (distractor_pool.py:
BM25), the shown documents (documents.py) and the options; row_plans.py plans a family's rows, instance_rows.py,
shadows.py and long_rows.py draw their documents, rag_rows.py makes the `rag` subset.
"""

from __future__ import annotations

from .instance_maker import Evidence
from .instance_rows import build_instances, question_instances
from .labeller import Case
from .long_rows import check_length
from .rag_rows import build_rag, rag_balanced, rag_forms, rag_required
from .row_plans import Plan, family_plans, question_family, row_id

__all__ = [
    "Case",
    "Evidence",
    "Plan",
    "build_instances",
    "build_rag",
    "check_length",
    "family_plans",
    "question_family",
    "question_instances",
    "rag_balanced",
    "rag_forms",
    "rag_required",
    "row_id",
]
