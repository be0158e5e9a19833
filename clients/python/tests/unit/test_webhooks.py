"""verify_webhook's edges: header spellings it accepts, malformed ones it refuses, bytes, secrets, clock.

A real delivery from the server through both clients is in test/api/webhooks.int.test.ts.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import unittest

from toolshed_client import ToolshedError, verify_webhook

SECRET = "whsec_test-secret-0123456789"
BODY = json.dumps({"id": "dlv_1", "event": "job.finished", "createdAt": "x", "tenantId": "ten_1", "data": {"job": {"id": "job_1"}}})
T = 1_800_000_000
V1 = hmac.new(SECRET.encode(), f"{T}.{BODY}".encode(), hashlib.sha256).hexdigest()


def outcome(signature, body=BODY, secret=SECRET, now=T):
    try:
        return verify_webhook(secret, body, signature, now=now)["id"]
    except ToolshedError as err:
        return f"{err.status} {err.code}"


class VerifyWebhook(unittest.TestCase):
    def test_accepts_the_spellings_of_a_good_header(self) -> None:
        for header in [
            f"t={T},v1={V1}",
            f"t={T}, v1={V1}",
            f"v1={V1},t={T}",
            f"t={T},v1={V1.upper()}",
            f"t={T},v1={'0' * 64},v1={V1}",
            f"t={T},v0=abc,v1={V1}",
        ]:
            self.assertEqual(outcome(header), "dlv_1", header)

    def test_refuses_malformed_or_wrong_headers(self) -> None:
        for header in [
            None,
            "",
            f"v1={V1}",
            f"t={T}",
            f"t={T},t={T},v1={V1}",
            f"t=1e9,v1={V1}",
            f"t={T},v1={V1[2:]}",
            f"t={T},v1={'z' * 64}",
            f"t={T},v1={V1},junk",
            f"t={T + 1},v1={V1}",
        ]:
            self.assertEqual(outcome(header), "0 WEBHOOK_SIGNATURE_INVALID", header)

    def test_checks_the_bytes(self) -> None:
        self.assertEqual(outcome(f"t={T},v1={V1}", body=BODY.encode()), "dlv_1")
        self.assertEqual(outcome(f"t={T},v1={V1}", body=BODY + " "), "0 WEBHOOK_SIGNATURE_INVALID")

    def test_takes_any_of_several_secrets_and_refuses_none(self) -> None:
        self.assertEqual(outcome(f"t={T},v1={V1}", secret=["whsec_other", SECRET]), "dlv_1")
        self.assertEqual(outcome(f"t={T},v1={V1}", secret=[]), "0 WEBHOOK_SIGNATURE_INVALID")
        self.assertEqual(outcome(f"t={T},v1={V1}", secret=""), "0 WEBHOOK_SIGNATURE_INVALID")

    def test_bounds_the_timestamp_both_ways(self) -> None:
        self.assertEqual(outcome(f"t={T},v1={V1}", now=T + 300), "dlv_1")
        self.assertEqual(outcome(f"t={T},v1={V1}", now=T + 301), "0 WEBHOOK_TIMESTAMP_OUT_OF_RANGE")
        self.assertEqual(outcome(f"t={T},v1={V1}", now=T - 301), "0 WEBHOOK_TIMESTAMP_OUT_OF_RANGE")


if __name__ == "__main__":
    unittest.main()
