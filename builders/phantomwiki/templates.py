"""Question templates from the PhantomWiki grammar, expanded to recursion depth d.

    S   -> Who is R ? | What is A ? | How many RN_p does R_c have ?
    R   -> the RN of R_c | the person whose AN is AV
    R_c -> R | N
    A   -> the AN of R

Placeholders are numbered by the grammar depth at which they appear, as in v1 (PhantomWiki 1.0.3),
so templates, their token lists and their Prolog query templates are exactly v1's; a template of
a smaller depth is also one of a larger depth. At even d >= 4 there are 3d - 10 templates.
"""

from __future__ import annotations

from dataclasses import dataclass

WHO, WHAT, COUNT = "who", "what", "count"
NAME, ATTRIBUTE = "name", "attribute"


@dataclass(frozen=True)
class Template:
    """One question shape: `hops` relations from a start (a name, or a person with an attribute value)."""

    kind: str
    hops: int
    start: str
    tokens: tuple[str, ...]
    query: tuple[str, ...]
    answer: str

    @property
    def text(self) -> str:
        """The template as one string, e.g. 'Who is the <relation>_3 of <name>_4?'."""
        return " ".join(self.tokens[:-1]) + self.tokens[-1]


def _template(kind: str, hops: int, start: str) -> Template:
    # Index of the k-th relation placeholder (k = 1..hops): 2k+1 under "Who", 2k+2 otherwise.
    first = 3 if kind == WHO else 4
    rel_index = [first + 2 * k for k in range(hops)]
    end = (first + 2 * hops - 1) if start == NAME else (first + 2 * hops)
    if kind == WHO:
        head_tokens, head_query, out_var, answer = ["Who is"], [], "Y_2", "Y_2"
    elif kind == WHAT:
        head_tokens = ["What is", "the", "<attribute_name>_3", "of"]
        head_query, out_var, answer = ["<attribute_name>_3(Y_3, Y_2)"], "Y_3", "Y_2"
    else:
        head_tokens = ["How many", "<relation_plural>_2", "does"]
        head_query, out_var, answer = [], "Y_3", "Count_1"
    tokens, query = list(head_tokens), list(head_query)
    for i in rel_index:
        tokens += ["the", f"<relation>_{i}", "of"]
        query.append(f"<relation>_{i}(Y_{i + 1}, Y_{i - 1})")
    if start == NAME:
        tokens.append(f"<name>_{end}")
        if hops:
            query[-1] = f"<relation>_{rel_index[-1]}(<name>_{end}, Y_{rel_index[-1] - 1})"
        start_term = f"<name>_{end}"
    else:
        tokens += ["the person whose", f"<attribute_name>_{end}", "is", f"<attribute_value>_{end}"]
        query.append(f"<attribute_name>_{end}(Y_{end - 1}, <attribute_value>_{end})")
        start_term = f"Y_{end - 1}"
    if kind == COUNT:
        counted = start_term if (start == NAME and not hops) else out_var
        query.insert(0, f"aggregate_all(count, distinct(<relation_plural>_2({counted}, Y_1)), Count_1)")
        tokens += ["have"]
    tokens.append("?")
    return Template(kind, hops, start, tuple(tokens), tuple(query), answer)


def _shapes(kind: str, depth: int) -> list[tuple[int, str]]:
    """(hops, start) pairs the grammar allows at `depth`, ordered by their last placeholder, descending."""
    first = 3 if kind == WHO else 4
    shapes = []
    for hops in range(depth):
        for start in (NAME, ATTRIBUTE):
            if start == NAME and hops == 0 and kind != COUNT:
                continue  # only "How many ... does <name> have?" puts a name right under S
            last = first + 2 * hops - (1 if start == NAME else 0)
            terminal_depth = depth - last  # the grammar depth left when the last placeholder is reached
            if terminal_depth >= 1:
                shapes.append((last, hops, start))
    return [(hops, start) for _, hops, start in sorted(shapes, reverse=True)]


def generate_templates(depth: int) -> list[Template]:
    """All templates at grammar depth `depth`, in v1 order: Who, What, How many."""
    return [_template(kind, hops, start) for kind in (WHO, WHAT, COUNT) for hops, start in _shapes(kind, depth)]
