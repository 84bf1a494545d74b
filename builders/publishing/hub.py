"""The Hub side of a release: upload a release folder in one commit, download one configuration's files.

Both go through the real `huggingface_hub` client; `endpoint` (or the HF_ENDPOINT variable) points it at
another Hub, and the token comes from `token`, HF_TOKEN or `hf auth login`, as everywhere in that client.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Literal

import huggingface_hub
from huggingface_hub import CommitOperationAdd, CommitOperationDelete, HfApi, snapshot_download

from .errors import PublishError, ReleaseError
from .shards import PLAIN_SUFFIX, SEALED_SUFFIX

REPO_TYPE = "dataset"
GATING = ("auto", "manual")
# Data files of any earlier release that the new one does not hold again are deleted in the same commit,
# so no stale shard (of a configuration, or plain shards after an encrypted re-publish) survives.  A release
# that would drop whole configurations is refused before this unless the caller asked to replace them.
DELETE_PATTERNS = (f"*{PLAIN_SUFFIX}", f"*{SEALED_SUFFIX}")


HUB_TIMEOUT = 60.0  # seconds a Hub call waits for the server's next bytes (connect: 10) before it gives up
TIMEOUT_VARIABLE = "LEAKPROOF_HUB_TIMEOUT"


@contextmanager
def bounded_http() -> Iterator[None]:
    """huggingface_hub's shared HTTP client with timeouts, for the duration of our calls.

    The client's default waits forever (`timeout=None`), so a Hub that never answers a commit would hang the
    publish; this sets the timeout of the client `huggingface_hub.get_session()` hands out (public: an httpx client
    from huggingface_hub 1.0 on) and puts the old one back afterwards. An older huggingface_hub's requests session
    has no timeout of its own; its downloads keep HF_HUB_DOWNLOAD_TIMEOUT.
    """
    seconds = float(os.environ.get(TIMEOUT_VARIABLE) or HUB_TIMEOUT)
    session = huggingface_hub.get_session()
    if not hasattr(session, "timeout"):
        yield
        return
    previous = session.timeout
    session.timeout = seconds
    try:
        yield
    finally:
        session.timeout = previous


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def check_repo_id(repo_id: str) -> None:
    """Refuse a repo id that is not ORG/NAME before anything is generated."""
    if repo_id.count("/") != 1 or not all(repo_id.split("/")):
        raise PublishError(f"repo id {repo_id!r} is not of the form ORG/NAME, e.g. my-lab/phantom_wiki")


@dataclass(frozen=True)
class HubRepo:
    """A dataset repository made ready for a release: created, private or gated as asked, its branch there."""

    api: HfApi
    repo_id: str
    revision: str | None

    @contextmanager
    def step(self, what: str) -> Iterator[None]:
        """Turn any client error during `what` into a one-line PublishError saying what to check (every call
        bounded)."""
        try:
            with bounded_http():
                yield
        except Exception as error:  # HTTP, authentication, network errors and timeouts of the client all end here
            status = getattr(getattr(error, "response", None), "status_code", None)
            hint = (
                "set HF_TOKEN or run `hf auth login` with a token that may write to it"
                if status in (401, 403)
                else "check the repo id, your token and the network"
            )
            if "Timeout" in type(error).__name__:
                hint = (
                    f"the Hub did not answer in time ({TIMEOUT_VARIABLE}, default {HUB_TIMEOUT:.0f} s); try again later"
                )
            raise PublishError(
                f"could not {what} of Hub dataset {self.repo_id!r} ({type(error).__name__}: {_first_line(error)}); "
                f"{hint}"
            ) from None

    def data_files(self) -> list[str]:
        """The data files (shards of any release) the repo holds at the revision."""
        with self.step("list the files already there"):
            existing = self.api.list_repo_files(self.repo_id, repo_type=REPO_TYPE, revision=self.revision)
        return [path for path in existing if any(fnmatch.fnmatch(path, pattern) for pattern in DELETE_PATTERNS)]

    def data_configs(self) -> list[str]:
        """The configurations whose data files the repo holds: the first folder of each shard."""
        return sorted({path.split("/")[0] for path in self.data_files() if "/" in path})

    def commit(self, folder: Path, files: Sequence[str], message: str) -> str:
        """Commit `files` of `folder` in one commit, deleting stale data files; return the commit URL."""
        keep = set(files)
        stale = [path for path in self.data_files() if path not in keep]
        operations = [CommitOperationDelete(path_in_repo=path) for path in stale] + [
            CommitOperationAdd(path_in_repo=path, path_or_fileobj=str(folder / path)) for path in files
        ]
        with self.step("commit the release"):
            info = self.api.create_commit(
                self.repo_id, operations, commit_message=message, repo_type=REPO_TYPE, revision=self.revision
            )
        return info.commit_url


@dataclass(frozen=True)
class HubTarget:
    """Where on the Hub a release goes: the dataset repo, whether it is private or gated, the branch, and which Hub
    with which token (None: HF_ENDPOINT and HF_TOKEN or `hf auth login`, as everywhere in huggingface_hub)."""

    repo_id: str
    private: bool = False
    revision: str | None = None
    gated: str | None = None  # "auto" or "manual"
    token: str | None = None
    endpoint: str | None = None

    @classmethod
    def taken_from(cls, options: dict[str, Any]) -> HubTarget | None:
        """The target the keyword `options` name (repo_id, private, ...), removed from them; None without repo_id."""
        given = {f.name: options.pop(f.name) for f in fields(cls) if f.name in options}
        if given.get("repo_id") is None:
            if any(value not in (None, False) for value in given.values()):
                raise PublishError(f"{', '.join(sorted(given))} given without repo_id: say which Hub repo (ORG/NAME)")
            return None
        return cls(**given)


def open_repo(target: HubTarget) -> HubRepo:
    """Create the dataset repo if needed and make it private or gated before any data arrives; create the branch.

    Called before anything is generated, so a missing token or a wrong repo id fails in seconds, not after the
    generation of a large configuration.
    """
    repo_id, private, revision, gated = target.repo_id, target.private, target.revision, target.gated
    if gated is not None and gated not in GATING:
        raise PublishError(f"gated={gated!r} is not a gating mode; use one of {', '.join(GATING)} (or leave it out)")
    check_repo_id(repo_id)
    repo = HubRepo(HfApi(endpoint=target.endpoint, token=target.token), repo_id, revision)
    with repo.step("create the repository"):
        repo.api.create_repo(repo_id, repo_type=REPO_TYPE, private=private, exist_ok=True)
    if gated or private:
        with repo.step("update the repository settings"):
            gate: Literal["auto", "manual"] | None = "auto" if gated == "auto" else "manual" if gated else None
            repo.api.update_repo_settings(
                repo_id, repo_type=REPO_TYPE, gated=gate, private=True if private else None
            )  # gated was checked above to be one of GATING
    if revision:
        with repo.step(f"create the branch {revision!r}"):
            repo.api.create_branch(repo_id, repo_type=REPO_TYPE, branch=revision, exist_ok=True)
    return repo


def download(
    repo_id: str,
    patterns: Sequence[str],
    *,
    revision: str | None = None,
    cache_dir: str | Path | None = None,
    token: str | None = None,
    endpoint: str | None = None,
) -> Path:
    """Download only the files matching `patterns` of a Hub dataset repo; return its snapshot folder (named by
    commit). Every call bounded in time (bounded_http)."""
    try:
        with bounded_http():
            return Path(
                snapshot_download(
                    repo_id=repo_id,
                    repo_type=REPO_TYPE,
                    revision=revision,
                    cache_dir=cache_dir,
                    allow_patterns=list(patterns),
                    token=token,
                    endpoint=endpoint,
                )
            )
    except Exception as error:  # not found, gated, offline: the client's errors all end here
        raise ReleaseError(
            f"could not download {', '.join(patterns)} of Hub dataset {repo_id!r} ({type(error).__name__}: "
            f"{_first_line(error)}); check the repo id, revision and token (HF_TOKEN), or pass a local release folder"
        ) from None
