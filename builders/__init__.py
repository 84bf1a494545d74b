"""Engines behind the `phantom_wiki` and `neoqa` datasets: plain Python data in and out, no Arrow."""

__version__ = "0.8.0"
