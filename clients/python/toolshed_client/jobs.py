"""Jobs: one call's state, its live events, and the answers a held call waits for."""

from __future__ import annotations

import json
from typing import Any, Dict, Iterator, List, Optional, Sequence

from ._http import Http, enc
from ._sse import read_sse
from .errors import STREAM_ENDED, ToolshedError
from .types import ApprovalItemData, ExternalResult, JobData, JobEvent, JobStatus, Result

_PENDING = ("queued", "running")
_EVENTS = ("status", "chunk", "result")


class Job:
    """A submitted call as last read (``data``); its methods read or answer it and update ``data``."""

    def __init__(self, http: Http, data: JobData) -> None:
        self._http = http
        self.data = data

    def __repr__(self) -> str:
        return f"Job(id={self.id!r}, tool={self.data.get('tool')!r}, status={self.status!r})"

    @property
    def id(self) -> str:
        return self.data["id"]

    @property
    def status(self) -> JobStatus:
        return self.data["status"]

    @property
    def result(self) -> Optional[Result]:
        return self.data.get("result")

    @property
    def text(self) -> str:
        """The result's text blocks joined: a command's output, a file's numbered lines, an error text."""
        blocks = (self.result or {}).get("content") or []
        return "".join(b["text"] for b in blocks if isinstance(b.get("text"), str))

    @property
    def pending(self) -> bool:
        """Not finished yet: queued or running (held calls are ``awaiting_approval`` / ``awaiting_external``)."""
        return self.status in _PENDING

    def refresh(self) -> "Job":
        self.data = self._http.request("GET", f"/v1/jobs/{enc(self.id)}")["job"]
        return self

    def approve(self, remember: Optional[Sequence[str]] = None) -> "Job":
        """Approves a held call (tenant admin; agents where the tenant allows). ``remember`` adds allow rules to the session."""
        body: Dict[str, Any] = {"approve": True}
        if remember is not None:
            body["remember"] = list(remember)
        return self._answer(body)

    def deny(self) -> "Job":
        return self._answer({"approve": False})

    def submit_result(self, result: ExternalResult) -> "Job":
        """The result of a call to one of the tenant's external tools (``awaiting_external``): it ends the job."""
        self.data = self._http.request("POST", f"/v1/jobs/{enc(self.id)}/external-result", result)["job"]
        return self

    def cancel(self) -> "Job":
        self.data = self._http.request("POST", f"/v1/jobs/{enc(self.id)}/cancel")["job"]
        return self

    def stream(self, last_event_id: Optional[str] = None, reconnects: int = 5) -> Iterator[JobEvent]:
        """
        The job's events as they happen: ``status``, ``chunk`` (deltas of live output: append them) and
        ``result``, always last, after which the iteration ends. A connection lost before the result is
        resumed after the last event received (``Last-Event-ID``), up to ``reconnects`` times.
        """
        last = last_event_id
        for _ in range(reconnects + 1):
            headers = {"accept": "text/event-stream"}
            if last:
                headers["last-event-id"] = last
            try:
                # The API writes `: keep-alive` every 10 s: the read timeout finds a dead connection, resumed below.
                res = self._http.raw("GET", f"/v1/jobs/{enc(self.id)}/events", None, headers)
            except ToolshedError as err:
                if err.code != "NETWORK_ERROR":
                    raise
                continue
            try:
                for m in read_sse(res):
                    if m.event not in _EVENTS:
                        continue
                    event: JobEvent = {"event": m.event, "id": m.id or "", "data": json.loads(m.data)}  # type: ignore[typeddict-item]
                    if m.id:
                        last = m.id
                    self._apply(event)
                    yield event
                    if event["event"] == "result":
                        return
            except OSError:
                pass  # the connection dropped: resume after the last event
            finally:
                res.close()
        raise ToolshedError.client_side(STREAM_ENDED, f"the event stream of {self.id} ended without a result")

    def wait(self) -> "Job":
        """Follows the stream to the ``result`` and returns the finished job, read again."""
        for _ in self.stream():
            pass
        return self.refresh()

    def _apply(self, event: JobEvent) -> None:
        data = event["data"]
        if event["event"] == "status":
            self.data = {**self.data, "status": data["status"]}
        elif event["event"] == "result":
            self.data = {**self.data, "status": data["status"]}
            if data.get("result"):
                self.data["result"] = data["result"]

    def _answer(self, body: Dict[str, Any]) -> "Job":
        self.data = self._http.request("POST", f"/v1/jobs/{enc(self.id)}/approval", body)["job"]
        return self


class Jobs:
    def __init__(self, http: Http) -> None:
        self._http = http

    def get(self, job_id: str) -> Job:
        return Job(self._http, self._http.request("GET", f"/v1/jobs/{enc(job_id)}")["job"])

    def list(
        self,
        session_id: Optional[str] = None,
        status: Optional[List[str]] = None,
        tool: Optional[str] = None,
        since: Optional[str] = None,
        until: Optional[str] = None,
        limit: Optional[int] = None,
    ) -> Iterator[Job]:
        """The jobs the key may see, newest first, every page followed as the loop goes."""
        query = {"sessionId": session_id, "status": status, "tool": tool, "since": since, "until": until, "limit": limit}
        return self._http.pages("/v1/jobs", query, lambda data: Job(self._http, data))


class Approval:
    """A held call waiting for an answer: ``job`` (answer it with ``approve()`` / ``deny()``), ``decision``, ``expires_at``."""

    def __init__(self, job: Job, item: ApprovalItemData) -> None:
        self.job = job
        self.decision = item["decision"]
        self.expires_at = item["expiresAt"]

    def __repr__(self) -> str:
        return f"Approval(job={self.job!r}, expires_at={self.expires_at!r})"


class Approvals:
    def __init__(self, http: Http) -> None:
        self._http = http

    def list(self, session_id: Optional[str] = None, limit: Optional[int] = None) -> Iterator[Approval]:
        """The calls of the key's tenant that wait for an approval (tenant admins), newest first."""
        query = {"sessionId": session_id, "limit": limit}
        return self._http.pages("/v1/approvals", query, lambda item: Approval(Job(self._http, item["job"]), item))
