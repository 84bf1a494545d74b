"""The one installed package of leakproof-qa, beside the datasets' own modules `phantom_wiki` and `neoqa`.

Its parts keep the design card's layout at the repository's root (`builders/`, `encryption/`, `cards/`,
`dataset_builders/`, `dataset_loading.py`, `leakproof_eval/`, `phantom_env/`): in a checkout each is linked here, in
an installed wheel each is copied here, so only these three names land on a user's `sys.path`.
"""

from .builders import __version__

__all__ = ["__version__"]
