"""The command lines of the two datasets (`python -m phantom_wiki`, `python -m neoqa`)."""
