"""Sessions: a sandbox with its mode and directories; calls, the model's tool list, files."""

from __future__ import annotations

import json
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence

from ._http import Http, compact, enc, network_retry, query_string
from .jobs import Job
from .types import Decision, SessionData, SessionTools


class Session:
    """A session as last read (``data``), with its calls and its workspace ``files``."""

    def __init__(self, http: Http, data: SessionData) -> None:
        self._http = http
        self.data = data
        self.files = SessionFiles(http, data["id"])

    def __repr__(self) -> str:
        return f"Session(id={self.id!r}, mode={self.data.get('mode')!r})"

    @property
    def id(self) -> str:
        return self.data["id"]

    def call(
        self,
        tool: str,
        input: Mapping[str, Any],
        *,
        wait: Optional[float] = None,
        idempotency_key: Optional[str] = None,
    ) -> Job:
        """
        Submits a tool call: the job is finished when ``wait`` (seconds, up to 60) sufficed, else pending or
        held. With ``idempotency_key`` (the model's tool-use id) a retried submit answers the first job, so a
        failed connection is retried too; without one it raises NETWORK_ERROR (the call may have been received).
        """
        path = f"/v1/sessions/{enc(self.id)}/calls" + query_string({"wait": wait or None})
        body = compact(tool=tool, input=dict(input), idempotencyKey=idempotency_key)
        retry = network_retry("submitCall", keyed=idempotency_key is not None)
        answer = self._http.request("POST", path, body, after_network_error=retry)
        return Job(self._http, answer["job"])

    def tools(self) -> SessionTools:
        """
        What the model should see now: the tools (name, description, JSON Schema of the input) of the session's
        active groups, and the system prompt of its skills and groups. Ask again after a call that changes them.
        """
        return self._http.request("GET", f"/v1/sessions/{enc(self.id)}/tools")

    def decide(self, tool: str, input: Mapping[str, Any]) -> Decision:
        """What the policy would decide for this call now; nothing is run or recorded (so it is retried)."""
        path = f"/v1/sessions/{enc(self.id)}/decisions"
        body = {"tool": tool, "input": dict(input)}
        return self._http.request("POST", path, body, after_network_error=network_retry("decideCall"))["decision"]

    def update(self, *, mode: Optional[str] = None, working_directories: Optional[Sequence[str]] = None) -> "Session":
        body = compact(mode=mode, workingDirectories=None if working_directories is None else list(working_directories))
        self.data = self._http.request("PATCH", f"/v1/sessions/{enc(self.id)}", body)
        return self

    def refresh(self) -> "Session":
        self.data = self._http.request("GET", f"/v1/sessions/{enc(self.id)}")
        return self

    def delete(self) -> None:
        """Deletes the session with its container and workspace."""
        self._http.request("DELETE", f"/v1/sessions/{enc(self.id)}")

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: object) -> None:
        self.delete()


class Sessions:
    def __init__(self, http: Http) -> None:
        self._http = http

    def create(
        self,
        *,
        mode: Optional[str] = None,
        working_directories: Optional[Sequence[str]] = None,
        tools: Optional[Sequence[str]] = None,
        tool_groups: Optional[Sequence[str]] = None,
        skills: Optional[Sequence[str]] = None,
    ) -> Session:
        """A new session (``with client.sessions.create() as s:`` deletes it at the end of the block)."""
        body = compact(
            mode=mode,
            workingDirectories=_list(working_directories),
            tools=_list(tools),
            toolGroups=_list(tool_groups),
            skills=_list(skills),
        )
        return Session(self._http, self._http.request("POST", "/v1/sessions", body))

    def get(self, session_id: str) -> Session:
        return Session(self._http, self._http.request("GET", f"/v1/sessions/{enc(session_id)}"))

    def list(self, status: Optional[str] = None, limit: Optional[int] = None) -> Iterator[Session]:
        """Newest first, every page followed as the loop goes (``status="active"`` for the live ones)."""
        return self._http.pages("/v1/sessions", {"status": status, "limit": limit}, lambda d: Session(self._http, d))


class SessionFiles:
    """
    Files in the session's workspace, moved as raw bytes; each is decided as the call it amounts to (a put as a
    Write, a get as a Read). An upload or import makes a job as it is received, so it is never sent again after
    a failed connection, nor after a 504 TRANSFER_PENDING (follow ``jobs.get(err.details[0]["message"])``).
    """

    def __init__(self, http: Http, session_id: str) -> None:
        self._http = http
        self._session_id = session_id

    def put(self, path: str, data: bytes | str) -> Dict[str, Any]:
        """Writes the file (its parents made), replacing it: ``{path, bytes, ...}``."""
        body = data.encode("utf-8") if isinstance(data, str) else bytes(data)
        return self._send("uploadFile", self._url(path), body, "application/octet-stream")

    def get(self, path: str) -> bytes:
        with self._http.raw("GET", self._url(path)) as res:
            return res.read()

    def get_text(self, path: str) -> str:
        return self.get(path).decode("utf-8")

    def export_tar(self) -> bytes:
        """The whole ``/workspace`` as an uncompressed tar."""
        with self._http.raw("GET", f"/v1/sessions/{enc(self._session_id)}/workspace.tar") as res:
            return res.read()

    def import_tar(self, tar: bytes) -> Dict[str, Any]:
        """Extracts an uncompressed tar into ``/workspace``: ``{entries, bytes}``."""
        return self._send("importWorkspace", f"/v1/sessions/{enc(self._session_id)}/workspace.tar", tar, "application/x-tar")

    def _send(self, op: str, path: str, body: bytes, content_type: str) -> Dict[str, Any]:
        headers = {"content-type": content_type}
        with self._http.raw("PUT", path, body, headers, after_network_error=network_retry(op)) as res:
            return json.loads(res.read())

    def _url(self, path: str) -> str:
        return f"/v1/sessions/{enc(self._session_id)}/files" + query_string({"path": path})


def _list(values: Optional[Sequence[str]]) -> Optional[List[str]]:
    return None if values is None else list(values)
