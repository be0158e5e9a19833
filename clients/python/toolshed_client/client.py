"""
The entry point: ``Toolshed(base_url, api_key)``, then ``sessions.create()``, ``session.tools()``,
``session.call(tool, input, wait=…)``, ``job.stream()``, ``job.approve()``.
"""

from __future__ import annotations

import urllib.request
from typing import Callable, Optional

from ._http import Http
from .jobs import Approvals, Jobs
from .sessions import Sessions
from .tenants import Tenants


class Toolshed:
    """
    A client bound to one API key. ``max_retries`` (default 3; 0: never) bounds how often a request is sent
    again: after a 429 or 503 (the API did nothing) on every method, waiting ``Retry-After`` (capped at
    ``max_retry_delay`` seconds); after a failed connection only where sending again cannot do a thing twice.
    ``timeout`` is how long a read may wait for bytes (default 90 s: above the longest ``wait``, 60 s, and the
    event stream's 10 s keep-alive, so a stream that goes quiet that long is a dead connection and is resumed).
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        max_retries: int = 3,
        max_retry_delay: float = 30.0,
        timeout: float = 90.0,
        opener: Optional[urllib.request.OpenerDirector] = None,
        sleep: Optional[Callable[[float], None]] = None,
    ) -> None:
        extra = {} if sleep is None else {"sleep": sleep}
        http = Http(
            base_url,
            api_key,
            max_retries=max_retries,
            max_retry_delay=max_retry_delay,
            timeout=timeout,
            opener=opener,
            **extra,
        )
        self.tenants = Tenants(http)
        self.sessions = Sessions(http)
        self.jobs = Jobs(http)
        self.approvals = Approvals(http)
