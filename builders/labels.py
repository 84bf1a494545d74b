"""One vocabulary for what an instance asks of a model, shared by PhantomWiki, NeoQA, the metrics and the tasks.

An instance is `sufficient` (its documents answer it), `insufficient` (an article it needs is missing) or
`unanswerable` (nothing could answer it: a false or unknowable premise, a person who does not exist); a model must
refuse every instance that is not sufficient. Per-category scores name a sufficient instance's category
`answerable`, an insufficient one's `insufficient`, and an unanswerable one's by its kind. NeoQA's own names
("answerable-sufficient", "false-premise", ...) appear only where its release files are read (builders/neoqa).
"""

from __future__ import annotations

SUFFICIENT, INSUFFICIENT, UNANSWERABLE = "sufficient", "insufficient", "unanswerable"
ANSWERABLE = "answerable"  # the per-category name of the sufficient instances
