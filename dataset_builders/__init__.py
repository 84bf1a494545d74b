"""The `datasets` builders, apart from the faces that hand them out (phantom_wiki.py), so importing a face is quick.

A module's last name is what `datasets` calls its dataset (and its cache folder): hence phantom_wiki.py here.
"""
