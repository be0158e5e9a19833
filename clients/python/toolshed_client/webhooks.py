"""Checking a webhook delivery on the receiving side.

``Toolshed-Signature: t=<unix seconds>,v1=<hex>`` is HMAC-SHA256 with the webhook's secret over
``<t>.<raw body>`` (docs/api.md, Webhooks). Standard library only, like the rest of the client.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from .errors import ToolshedError

# A signature that does not verify: missing, malformed, or made with another secret or body.
WEBHOOK_SIGNATURE_INVALID = "WEBHOOK_SIGNATURE_INVALID"
# A signature whose timestamp is outside the tolerance: a replay, or a clock far off.
WEBHOOK_TIMESTAMP_OUT_OF_RANGE = "WEBHOOK_TIMESTAMP_OUT_OF_RANGE"

_T = re.compile(r"^\d{1,12}$")
_V1 = re.compile(r"^[0-9a-fA-F]{64}$")


def verify_webhook(
    secret: Union[str, Sequence[str]],
    body: Union[bytes, str],
    signature: Optional[str],
    tolerance_seconds: int = 300,
    now: Optional[float] = None,
) -> Dict[str, Any]:
    """The delivery ``{id, event, createdAt, tenantId, data}``, parsed, when it verifies.

    ``secret``: the webhook's secret, or while rotating the new and the old one (any may match).
    ``body``: the raw request body as received, before any JSON parsing. ``signature``: the
    ``Toolshed-Signature`` header. ``tolerance_seconds``: how far its timestamp may be from ``now``
    (the receiver's clock, unix seconds) either way. Otherwise raises ``ToolshedError`` (status 0)
    with ``WEBHOOK_SIGNATURE_INVALID`` or ``WEBHOOK_TIMESTAMP_OUT_OF_RANGE``: answer such a delivery
    400 (Toolshed retries it, then gives up) and a verified one 2xx. Drop a delivery whose ``id``
    you have handled already: delivery is at least once.
    """
    raw = body.encode("utf-8") if isinstance(body, str) else bytes(body)
    parsed = _parse(signature)
    if parsed is None:
        raise _refused(WEBHOOK_SIGNATURE_INVALID, "the Toolshed-Signature header is missing or malformed")
    t, candidates = parsed
    secrets = [secret] if isinstance(secret, str) else list(secret)
    if not secrets or any(not s for s in secrets):
        raise _refused(WEBHOOK_SIGNATURE_INVALID, "no secret to verify with: pass the webhook's secret")
    matched = False
    for s in secrets:
        mac = hmac.new(s.encode("utf-8"), f"{t}.".encode("ascii") + raw, hashlib.sha256).digest()
        # Every candidate is compared in full (no early exit that would time which one matched).
        for v1 in candidates:
            matched = hmac.compare_digest(mac, v1) or matched
    if not matched:
        raise _refused(WEBHOOK_SIGNATURE_INVALID, "the signature does not match this body with the given secret(s)")
    clock = int(time.time() if now is None else now)
    if abs(clock - t) > tolerance_seconds:
        raise _refused(
            WEBHOOK_TIMESTAMP_OUT_OF_RANGE,
            f"the signature's timestamp is {clock - t} s from this clock (tolerance {tolerance_seconds} s): "
            "a replay, or a clock to fix",
        )
    try:
        delivery = json.loads(raw.decode("utf-8"))
    except ValueError:
        raise _refused(WEBHOOK_SIGNATURE_INVALID, "the signed body is not JSON") from None
    if not isinstance(delivery, dict):
        raise _refused(WEBHOOK_SIGNATURE_INVALID, "the signed body is not a JSON object")
    return delivery


def _parse(header: Optional[str]) -> Optional[Tuple[int, List[bytes]]]:
    """``t=<digits>`` once and one or more ``v1=<64 hex>``; other schemes are ignored (a later version)."""
    if not header:
        return None
    t: Optional[int] = None
    v1: List[bytes] = []
    for part in header.split(","):
        if "=" not in part:
            return None
        key, value = (x.strip() for x in part.split("=", 1))
        if key == "t":
            if t is not None or not _T.match(value):
                return None
            t = int(value)
        elif key == "v1":
            if not _V1.match(value):
                return None
            v1.append(bytes.fromhex(value))
    return None if t is None or not v1 else (t, v1)


def _refused(code: str, message: str) -> ToolshedError:
    return ToolshedError.client_side(code, message)
