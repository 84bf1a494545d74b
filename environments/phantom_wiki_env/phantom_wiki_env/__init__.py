"""PhantomWiki for verifiers (`vf-eval phantom-wiki-env ...`): the taskset verifiers discovers, and
`load_environment(**settings)`, the environment object built from the same settings."""

from phantom_wiki_env.taskset import PhantomWikiTaskset, load_environment

__all__ = ["PhantomWikiTaskset", "load_environment"]
