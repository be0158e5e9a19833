"""Every non-2xx answer of the API as one exception type: the stable ``code``, ``status`` and ``field``."""

from __future__ import annotations

from typing import Any, List, Optional

from .types import ErrorDetail

# Codes the client makes itself (the API's own are listed in _contract.ERROR_CODES).
NETWORK_ERROR = "NETWORK_ERROR"
STREAM_ENDED = "STREAM_ENDED"
HTTP_ERROR = "HTTP_ERROR"


class ToolshedError(Exception):
    """An API error (``status`` is its HTTP status) or a client one (``status`` 0: NETWORK_ERROR, STREAM_ENDED)."""

    code: str
    message: str
    status: int
    field: Optional[str]
    details: List[ErrorDetail]
    request_id: Optional[str]
    retry_after: Optional[float]

    def __init__(
        self,
        status: int,
        body: Optional[Any] = None,
        retry_after: Optional[float] = None,
    ) -> None:
        error = body.get("error") if isinstance(body, dict) else None
        error = error if isinstance(error, dict) else {}
        self.status = status
        self.message = str(error.get("message") or f"HTTP {status}")
        self.code = str(error.get("code") or ("INTERNAL" if status >= 500 else HTTP_ERROR))
        details = error.get("details")
        self.details = [d for d in details if isinstance(d, dict)] if isinstance(details, list) else []
        # The first failing field (`details[0].path`), e.g. `tool` or `input.command`.
        self.field = self.details[0].get("path") if self.details else None
        request_id = body.get("requestId") if isinstance(body, dict) else None
        self.request_id = request_id if isinstance(request_id, str) else None
        self.retry_after = retry_after
        super().__init__(self.message)

    def __repr__(self) -> str:
        return f"ToolshedError(status={self.status}, code={self.code!r}, field={self.field!r}, message={self.message!r})"

    @classmethod
    def client_side(cls, code: str, message: str) -> "ToolshedError":
        """An error the client raises itself (no HTTP answer): ``status`` 0."""
        return cls(0, {"error": {"code": code, "message": message}})
