"""PhantomWiki as an environment: the paper's agent tools over a universe's articles, a runner for any
OpenAI-compatible endpoint (`python -m phantom_wiki agent`), baselines without weights, and a procedural
dataset with a reward for RL (`phantom_env.rl`). A face over the generator: it reads rows, never remakes them."""
