"""The paper's tools as the MCP server verifiers launches per rollout (`python -m phantom_wiki_env.toolset`): the
rows of phantom_env.tools.TOOLS over the rollout's universe (corpora.py), Finish aside (the agent answers in its
last reply). Each tool's parameters are its table method's typed signature; each call gives
`Episode.call_arguments`'s observation, so an argument key the tool does not take is an observation naming the one
it does."""

from __future__ import annotations

import inspect
from typing import Any

import verifiers.v1 as vf

from leakproof_qa.phantom_env.tools import FINISH, Episode, Tool, tools_of, typed_parameters
from phantom_wiki_env.corpora import corpus_of


class PhantomWikiTools(vf.Toolset[vf.ToolsetConfig]):
    TOOL_PREFIX = None  # the tools keep the paper's names: RetrieveArticle, Search, Lookup

    episode: Episode | None = None

    async def setup_task(self, task: Any) -> None:
        """The rollout's episode, over its task's universe (verifiers hands over the task's data)."""
        self.episode = Episode(corpus_of(task.universe, task.easy_mode), task.tools)

    def register(self, mcp: Any) -> None:
        variant = self.episode.variant if self.episode else "atomic"
        for tool in tools_of(variant):
            if tool.name != FINISH:
                mcp.add_tool(self._with_state(self._function(tool)), name=tool.name, description=tool.description)

    def _function(self, tool: Tool) -> Any:
        """A function with the table method's parameters (self aside) that runs the tool in this rollout's episode."""

        def run(**arguments: Any) -> str:
            if self.episode is None:
                return "No universe is loaded: this tool server serves one task's rollout."
            return self.episode.call_arguments(tool.name, arguments)[1].text

        parameters = [
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=kind)
            for name, (kind, _) in typed_parameters(tool.method).items()
        ]
        run.__signature__ = inspect.Signature(parameters, return_annotation=str)  # type: ignore[attr-defined]
        run.__annotations__ = {**{p.name: p.annotation for p in parameters}, "return": str}
        run.__name__ = run.__qualname__ = tool.name
        run.__doc__ = tool.description
        return run


if __name__ == "__main__":
    PhantomWikiTools.run()
