"""Engines behind the `phantom_wiki` and `neoqa` datasets: the engines that make rows take and give plain Python data
(no `datasets`, no Arrow); publishing, which writes Parquet, and the command line sit above them."""

__version__ = "0.15.0"
