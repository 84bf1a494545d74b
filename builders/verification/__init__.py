"""An independent checker of phantom_wiki labels: its own reading of the articles and the questions, its own table
of relations, and the rule the labels follow (README "The rule a label follows"). It reads only a row's text and
shares no code with the generator (a test holds its imports), so it does not share the generator's blind spots."""

from .run import SUBSETS, Problem, Tally, Verifier

__all__ = ["SUBSETS", "Problem", "Tally", "Verifier"]
