"""A small stand-in for the Hugging Face Hub on 127.0.0.1, for driving the real `huggingface_hub` client in tests.

It serves the routes the client calls to publish and to download a dataset repository:

    POST /api/repos/create                              create_repo (409 if it exists)
    POST /api/validate-yaml                             the card's YAML (create_commit checks README.md first)
    POST /api/{type}s/{repo}/preupload/{rev}            answers uploadMode "regular" for every file, with the
                                                        git oid of the file already there, so contents arrive
                                                        inside the commit and unchanged files are skipped
    POST /api/{type}s/{repo}/commit/{rev}               ndjson commit: file (base64), deletedFile, deletedFolder
    POST /api/{type}s/{repo}/branch/{branch}            create_branch
    PUT  /api/{type}s/{repo}/settings                   update_repo_settings (gated, private / visibility)
    GET  /api/{type}s/{repo}[/revision/{rev}]           repo_info (sha, siblings)
    GET  /api/{type}s/{repo}/tree/{rev}[/{path}]        list_repo_tree / list_repo_files
    HEAD, GET /{type}s/{repo}/resolve/{rev}/{path}      file metadata and download (snapshot_download, hf_hub_download)

Every commit is kept as a whole tree, so a commit hash is a revision too.  Writes need the bearer token the
stand-in was made with; so do reads of a private repository.  What it does NOT cover: the LFS and Xet
transfer paths (large files go through them on the real Hub; here every file is "regular"), the Hub's
full YAML schema (it checks that the metadata is a mapping and that `configs` are well formed), gated
access requests, pull requests, and pagination of long trees.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import yaml

_REPO = r"(?P<type>models|datasets|spaces)/(?P<repo>[^/]+/[^/]+)"
_INITIAL_FILES = {".gitattributes": b"*.parquet filter=lfs diff=lfs merge=lfs -text\n"}


def git_oid(content: bytes) -> str:
    """The git blob id of `content` (what the Hub reports as a regular file's oid)."""
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


@dataclass
class Repo:
    """One repository: commits (each a whole tree), branches, settings."""

    private: bool
    commits: dict[str, dict[str, bytes]] = field(default_factory=dict)
    branches: dict[str, str] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    messages: list[str] = field(default_factory=list)

    def commit(self, parent: str | None, tree: dict[str, bytes], message: str) -> str:
        digest = hashlib.sha1((parent or "").encode() + message.encode())
        for path in sorted(tree):
            digest.update(path.encode() + b"\0" + git_oid(tree[path]).encode())
        sha = digest.hexdigest()
        self.commits[sha] = dict(tree)
        self.messages.append(message)
        return sha

    def resolve(self, revision: str) -> str | None:
        if revision in self.branches:
            return self.branches[revision]
        return revision if revision in self.commits else None


class HubStandIn:
    """The server: start() on an ephemeral port of 127.0.0.1, `endpoint` to point the client at, stop() when done."""

    def __init__(self, token: str) -> None:
        self.token = token
        self.repos: dict[str, Repo] = {}
        self.requests: list[tuple[str, str]] = []
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self) -> HubStandIn:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def tree(self, repo_id: str, revision: str = "main", repo_type: str = "datasets") -> dict[str, bytes]:
        """The files of a repository at a revision."""
        repo = self.repos[f"{repo_type}/{repo_id}"]
        return repo.commits[repo.resolve(revision)]


class _Reply(Exception):
    def __init__(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        super().__init__(status)
        self.status, self.body, self.headers = status, body, headers or {}


def _handler(hub: HubStandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # keep test output quiet
            pass

        def do_GET(self) -> None:
            self._serve("GET")

        def do_HEAD(self) -> None:
            self._serve("HEAD")

        def do_POST(self) -> None:
            self._serve("POST")

        def do_PUT(self) -> None:
            self._serve("PUT")

        # ------------------------------------------------------------------ plumbing

        def _body(self) -> bytes:
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                data = b""
                while (size := int(self.rfile.readline().strip() or b"0", 16)) > 0:
                    data += self.rfile.read(size)
                    self.rfile.readline()
                self.rfile.readline()
                return data
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))

        def _send(self, status: int, body: Any, headers: dict[str, str], method: str) -> None:
            payload = body if isinstance(body, bytes) else json.dumps(body).encode()
            self.send_response(status)
            if not isinstance(body, bytes):
                self.send_header("Content-Type", "application/json")
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            if method != "HEAD":
                self.wfile.write(payload)

        def _serve(self, method: str) -> None:
            url = urlsplit(self.path)
            body = self._body() if method in ("POST", "PUT") else b""
            with hub.lock:
                hub.requests.append((method, url.path))
                try:
                    self._route(method, unquote(url.path), parse_qs(url.query), body)
                    raise _Reply(500, {"error": "no reply"})
                except _Reply as reply:
                    self._send(reply.status, reply.body, reply.headers, method)

        def _authorized(self) -> bool:
            return self.headers.get("Authorization") == f"Bearer {hub.token}"

        def _need_write(self) -> None:
            if not self._authorized():
                raise _Reply(401, {"error": "Invalid credentials in Authorization header"})

        def _repo(self, kind: str, repo_id: str) -> Repo:
            repo = hub.repos.get(f"{kind}/{repo_id}")
            if repo is None or (repo.private and not self._authorized()):
                raise _Reply(404, {"error": "Repository not found"}, {"X-Error-Code": "RepoNotFound"})
            return repo

        def _revision(self, repo: Repo, revision: str) -> str:
            sha = repo.resolve(revision)
            if sha is None:
                raise _Reply(404, {"error": f"Invalid rev id: {revision}"}, {"X-Error-Code": "RevisionNotFound"})
            return sha

        # ------------------------------------------------------------------ routes

        def _route(self, method: str, path: str, query: dict[str, list[str]], body: bytes) -> None:
            if method == "POST" and path == "/api/repos/create":
                self._create(json.loads(body))
            if method == "POST" and path == "/api/validate-yaml":
                self._validate_yaml(json.loads(body))
            if match := re.fullmatch(rf"/api/{_REPO}/preupload/(?P<rev>.+)", path):
                self._preupload(match, json.loads(body))
            if match := re.fullmatch(rf"/api/{_REPO}/commit/(?P<rev>.+)", path):
                self._commit(match, body)
            if match := re.fullmatch(rf"/api/{_REPO}/branch/(?P<rev>.+)", path):
                self._branch(match, json.loads(body or b"{}"))
            if method == "PUT" and (match := re.fullmatch(rf"/api/{_REPO}/settings", path)):
                self._settings(match, json.loads(body))
            if match := re.fullmatch(rf"/api/{_REPO}/tree/(?P<rev>[^/]+)(?:/(?P<sub>.*))?", path):
                self._tree(match, query)
            if match := re.fullmatch(rf"/api/{_REPO}(?:/revision/(?P<rev>.+))?", path):
                self._info(match)
            if match := re.fullmatch(rf"/{_REPO}/resolve/(?P<rev>[^/]+)/(?P<file>.+)", path):
                self._resolve(match)
            raise _Reply(404, {"error": f"the stand-in does not serve {method} {path}"})

        def _create(self, payload: dict[str, Any]) -> None:
            self._need_write()
            kind = (payload.get("type") or "model") + "s"
            repo_id = f"{payload.get('organization') or 'user'}/{payload['name']}"
            url = f"{hub.endpoint}/{kind}/{repo_id}"
            if f"{kind}/{repo_id}" in hub.repos:
                raise _Reply(409, {"error": "You already created this repo", "url": url})
            private = bool(payload.get("private")) or payload.get("visibility") == "private"
            repo = hub.repos[f"{kind}/{repo_id}"] = Repo(private=private)
            repo.branches["main"] = repo.commit(None, _INITIAL_FILES, "initial commit")
            raise _Reply(200, {"url": url, "name": repo_id})

        def _validate_yaml(self, payload: dict[str, Any]) -> None:
            match = re.match(r"^---\n(.*?)\n---\n", payload.get("content", ""), re.S)
            errors = []
            try:
                metadata = yaml.safe_load(match.group(1)) if match else {}
            except yaml.YAMLError as error:
                metadata, errors = {}, [f"YAML does not parse: {error}"]
            if not isinstance(metadata, dict):
                errors.append("metadata must be a mapping")
            else:
                configs = metadata.get("configs", [])
                if sum(bool(c.get("default")) for c in configs) > 1:
                    errors.append("more than one default config")
                for config in configs:
                    files = config.get("data_files")
                    if not config.get("config_name") or not files:
                        errors.append(f"config {config!r} needs config_name and data_files")
                    for item in files if isinstance(files, list) else []:
                        if not (isinstance(item, dict) and item.get("split") and item.get("path")):
                            errors.append(f"data_files item {item!r} needs split and path")
            if errors:
                raise _Reply(400, {"errors": [{"message": message} for message in errors]})
            raise _Reply(200, {"errors": [], "warnings": []})

        def _preupload(self, match: re.Match, payload: dict[str, Any]) -> None:
            self._need_write()
            repo = self._repo(match["type"], match["repo"])
            tree = repo.commits[self._revision(repo, match["rev"])]
            files = [
                {
                    "path": item["path"],
                    "uploadMode": "regular",
                    "shouldIgnore": False,
                    "oid": git_oid(tree[item["path"]]) if item["path"] in tree else None,
                }
                for item in payload["files"]
            ]
            raise _Reply(200, {"files": files})

        def _commit(self, match: re.Match, body: bytes) -> None:
            self._need_write()
            repo = self._repo(match["type"], match["repo"])
            if match["rev"] not in repo.branches:
                raise _Reply(400, {"error": f"commits go to a branch, not to {match['rev']!r}"})
            parent = repo.branches[match["rev"]]
            tree = dict(repo.commits[parent])
            message = ""
            for line in body.splitlines():
                item = json.loads(line)
                value = item["value"]
                if item["key"] == "header":
                    message = value["summary"]
                elif item["key"] == "file":
                    tree[value["path"]] = base64.b64decode(value["content"])
                elif item["key"] == "deletedFile":
                    if value["path"] not in tree:
                        raise _Reply(
                            404, {"error": "A file with this name doesn't exist"}, {"X-Error-Code": "EntryNotFound"}
                        )
                    del tree[value["path"]]
                elif item["key"] == "deletedFolder":
                    tree = {p: c for p, c in tree.items() if not p.startswith(value["path"].rstrip("/") + "/")}
                else:
                    raise _Reply(400, {"error": f"the stand-in does not take {item['key']} (LFS/Xet) operations"})
            sha = repo.commit(parent, tree, message)
            repo.branches[match["rev"]] = sha
            raise _Reply(
                200,
                {
                    "commitUrl": f"{hub.endpoint}/{match['type']}/{match['repo']}/commit/{sha}",
                    "commitOid": sha,
                    "success": True,
                },
            )

        def _branch(self, match: re.Match, payload: dict[str, Any]) -> None:
            self._need_write()
            repo = self._repo(match["type"], match["repo"])
            if match["rev"] in repo.branches:
                raise _Reply(409, {"error": "Reference already exists"})
            repo.branches[match["rev"]] = self._revision(repo, payload.get("startingPoint") or "main")
            raise _Reply(200, {})

        def _settings(self, match: re.Match, payload: dict[str, Any]) -> None:
            self._need_write()
            repo = self._repo(match["type"], match["repo"])
            repo.settings.update(payload)
            if "visibility" in payload or "private" in payload:
                repo.private = payload.get("visibility") == "private" or bool(payload.get("private"))
            raise _Reply(200, {})

        def _tree(self, match: re.Match, query: dict[str, list[str]]) -> None:
            repo = self._repo(match["type"], match["repo"])
            tree = repo.commits[self._revision(repo, match["rev"])]
            prefix = (match["sub"] or "").strip("/")
            recursive = query.get("recursive", ["false"])[0].lower() == "true"
            entries: dict[str, dict[str, Any]] = {}
            for path in sorted(tree):
                if prefix and not path.startswith(prefix + "/"):
                    continue
                rest = path[len(prefix) + 1 :] if prefix else path
                parts = rest.split("/")
                for depth in range(1, len(parts)):
                    folder = "/".join(([prefix] if prefix else []) + parts[:depth])
                    if recursive or depth == 1:
                        entries.setdefault(folder, {"type": "directory", "path": folder, "oid": "0" * 40, "size": 0})
                if recursive or len(parts) == 1:
                    entries[path] = {"type": "file", "path": path, "oid": git_oid(tree[path]), "size": len(tree[path])}
            raise _Reply(200, list(entries.values()))

        def _info(self, match: re.Match) -> None:
            repo = self._repo(match["type"], match["repo"])
            sha = self._revision(repo, match["rev"] or "main")
            raise _Reply(
                200,
                {
                    "id": match["repo"],
                    "sha": sha,
                    "private": repo.private,
                    "gated": repo.settings.get("gated", False),
                    "siblings": [{"rfilename": path} for path in sorted(repo.commits[sha])],
                },
            )

        def _resolve(self, match: re.Match) -> None:
            repo = self._repo(match["type"], match["repo"])
            sha = self._revision(repo, match["rev"])
            content = repo.commits[sha].get(match["file"])
            if content is None:
                raise _Reply(404, {"error": "Entry not found"}, {"X-Error-Code": "EntryNotFound", "X-Repo-Commit": sha})
            raise _Reply(
                200,
                content,
                {"X-Repo-Commit": sha, "ETag": f'"{git_oid(content)}"', "Content-Type": "application/octet-stream"},
            )

    return Handler
