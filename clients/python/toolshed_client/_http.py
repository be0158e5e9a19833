"""
The one place requests are made: base URL, bearer key, JSON, errors as ToolshedError, and
retries that never run a side effect twice (the rules of _contract.py, from the OpenAPI document).
"""

from __future__ import annotations

import http.client
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable, Dict, Iterator, Mapping, Optional, TypeVar

from . import _contract
from .errors import HTTP_ERROR, NETWORK_ERROR, ToolshedError

U = TypeVar("U")

# A connection that failed before an answer: whether the API got the request is unknown.
_NETWORK_ERRORS = (OSError, http.client.HTTPException)


def retries_after_network_error(method: str) -> bool:
    """HTTP's own semantics: sending again cannot do anything twice."""
    return method.upper() in _contract.IDEMPOTENT_METHODS


def network_retry(operation_id: str, keyed: bool = False) -> bool:
    """Whether a failed connection may be retried for this operation (``keyed``: sent with an idempotency key)."""
    rule = _contract.NETWORK_RETRY[operation_id]
    return rule == "always" or (rule == "with_idempotency_key" and keyed)


class Http:
    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        max_retries: int = 3,
        max_retry_delay: float = 30.0,
        timeout: float = 90.0,
        opener: Optional[urllib.request.OpenerDirector] = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.base = base_url.rstrip("/")
        self.api_key = api_key
        self.max_retries = max(0, max_retries)
        self.max_retry_delay = max(0.0, max_retry_delay)
        self.timeout = timeout
        # No proxy from the environment unless the caller's opener brings one (as `fetch` in Node).
        self.opener = opener or urllib.request.build_opener(urllib.request.ProxyHandler({}))
        self.sleep = sleep

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        after_network_error: Optional[bool] = None,
    ) -> Any:
        """The decoded JSON answer (None for a 204)."""
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {} if body is None else {"content-type": "application/json"}
        with self.raw(method, path, data, headers, after_network_error=after_network_error) as res:
            payload = res.read()
            if res.status == 204 or not payload:
                return None
            return json.loads(payload)

    def raw(
        self,
        method: str,
        path: str,
        data: Optional[bytes] = None,
        headers: Optional[Mapping[str, str]] = None,
        *,
        after_network_error: Optional[bool] = None,
    ) -> http.client.HTTPResponse:
        """An open 2xx response (close it), or a raised ToolshedError after the retries the rules allow."""
        retry_network = retries_after_network_error(method) if after_network_error is None else after_network_error
        all_headers = {"authorization": f"Bearer {self.api_key}", **(headers or {})}
        attempt = 0
        while True:
            req = urllib.request.Request(self.base + path, data=data, headers=all_headers, method=method)
            try:
                return self.opener.open(req, timeout=self.timeout)
            except urllib.error.HTTPError as res:
                error = _to_error(res)
                if res.code not in _contract.RETRY_AFTER_STATUSES or attempt >= self.max_retries:
                    raise error from None
                self._pause(attempt, error.retry_after)
            except _NETWORK_ERRORS as err:
                if not retry_network or attempt >= self.max_retries:
                    raise _network_error(method, path, err, retry_network) from err
                self._pause(attempt, None)
            attempt += 1

    def pages(self, path: str, query: Mapping[str, Any], wrap: Callable[[Any], U]) -> Iterator[U]:
        """Every item of a paged list, the next page asked for only when the loop reaches it."""
        cursor: Optional[str] = None
        while True:
            page = self.request("GET", path + query_string({**query, "cursor": cursor}))
            for item in page["items"]:
                yield wrap(item)
            cursor = page.get("nextCursor")
            if not cursor:
                return

    def _pause(self, attempt: int, retry_after: Optional[float]) -> None:
        """``Retry-After`` when the API gave one, else 0.5 s doubling per try; at most max_retry_delay."""
        wait = retry_after if retry_after is not None else 0.5 * 2**attempt
        self.sleep(min(self.max_retry_delay, wait))


def _to_error(res: urllib.error.HTTPError) -> ToolshedError:
    text = res.read().decode("utf-8", "replace")
    res.close()
    try:
        body = json.loads(text)
    except ValueError:
        body = {"error": {"code": HTTP_ERROR, "message": text[:500] or f"HTTP {res.code}"}}
    try:
        retry_after: Optional[float] = float(res.headers.get("retry-after", ""))
    except ValueError:
        retry_after = None
    return ToolshedError(res.code, body, retry_after if retry_after and retry_after > 0 else None)


def _network_error(method: str, path: str, err: BaseException, retried: bool) -> ToolshedError:
    why = getattr(err, "reason", None) or err
    unsure = (
        ""
        if retried
        else " The API may have received it: for a tool call, send an idempotency_key so that a retry cannot run it twice."
    )
    return ToolshedError.client_side(NETWORK_ERROR, f"{method} {path} failed: {why}.{unsure}")


def enc(segment: str) -> str:
    return urllib.parse.quote(segment, safe="")


def query_string(query: Mapping[str, Any]) -> str:
    """``?a=1&b=x`` from the values that are not None (lists repeated, booleans as true/false), or ""."""
    pairs = []
    for key, value in query.items():
        if value is None:
            continue
        for one in value if isinstance(value, (list, tuple)) else [value]:
            pairs.append((key, str(one).lower() if isinstance(one, bool) else str(one)))
    return "?" + urllib.parse.urlencode(pairs) if pairs else ""


def compact(**fields: Any) -> Dict[str, Any]:
    """The fields that are not None, for a JSON body."""
    return {k: v for k, v in fields.items() if v is not None}
