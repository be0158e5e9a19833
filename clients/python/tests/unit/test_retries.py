"""The retry contract against a scripted loopback server: what is sent again, when, and what never is."""

from __future__ import annotations

import os
import unittest
from typing import Any, List

from toolshed_client import NETWORK_ERROR, Session, Toolshed, ToolshedError

from .scripted_server import DROP, ScriptedServer, answer, error

JOB = {"job": {"id": "job_1", "sessionId": "ses_1", "tool": "Bash", "input": {}, "status": "queued"}}
RULES = {"allow": [], "deny": [], "ask": []}


class RetryCase(unittest.TestCase):
    def client(self, server: ScriptedServer, **opts: Any) -> Toolshed:
        self.slept: List[float] = []
        return Toolshed(server.url, "key_1", sleep=self.slept.append, **opts)

    def session(self, client: Toolshed) -> Session:
        return Session(client.sessions._http, {"id": "ses_1"})  # type: ignore[typeddict-item]


class AfterRetryAfter(RetryCase):
    """429 and 503 promise the API did nothing: every method is sent again after Retry-After."""

    def test_a_keyless_submit_is_sent_again_after_429_and_503_waiting_retry_after(self) -> None:
        steps = [error(429, "RATE_LIMITED", retry_after="2"), error(503, "UNAVAILABLE", retry_after="1"), answer(202, JOB)]
        with ScriptedServer(*steps) as server:
            job = self.session(self.client(server)).call("Bash", {"command": "true"})
        self.assertEqual(job.id, "job_1")
        self.assertEqual([s.method for s in server.seen], ["POST"] * 3)
        self.assertEqual(self.slept, [2.0, 1.0])

    def test_gives_up_after_max_retries_with_the_last_error(self) -> None:
        with ScriptedServer(*[error(429, "RATE_LIMITED", retry_after="1")] * 5) as server:
            with self.assertRaises(ToolshedError) as caught:
                self.client(server, max_retries=2).sessions.create()
        self.assertEqual((caught.exception.status, caught.exception.code), (429, "RATE_LIMITED"))
        self.assertEqual(caught.exception.retry_after, 1.0)
        self.assertEqual(len(server.seen), 3)

    def test_caps_a_long_retry_after_and_backs_off_without_one(self) -> None:
        steps = [error(503, "UNAVAILABLE", retry_after="600"), error(503, "UNAVAILABLE"), answer(200, RULES)]
        with ScriptedServer(*steps) as server:
            self.client(server, max_retry_delay=5).tenants.get_rules("ten_1")
        self.assertEqual(self.slept, [5.0, 1.0])  # capped; then 0.5 s doubled for the second try

    def test_other_errors_are_raised_at_once(self) -> None:
        with ScriptedServer(error(409, "CONFLICT"), error(500, "INTERNAL")) as server:
            client = self.client(server)
            with self.assertRaises(ToolshedError):
                client.jobs.get("job_1").approve()
            with self.assertRaises(ToolshedError):
                client.jobs.get("job_1")
        self.assertEqual(len(server.seen), 2)
        self.assertEqual(self.slept, [])


class AfterAFailedConnection(RetryCase):
    """Sent again only where a second copy cannot do anything twice."""

    def test_get_put_delete_and_read_only_posts_are_sent_again(self) -> None:
        steps = [DROP, answer(200, JOB), DROP, answer(200, RULES), DROP, answer(204), DROP]
        steps += [answer(200, {"decision": {"behavior": "allow"}})]
        with ScriptedServer(*steps) as server:
            client = self.client(server)
            client.jobs.get("job_1")
            client.tenants.set_rules("ten_1", RULES)
            client.tenants.revoke_key("key_2")
            self.assertEqual(self.session(client).decide("Bash", {"command": "ls"}), {"behavior": "allow"})
        self.assertEqual([s.method for s in server.seen], ["GET", "GET", "PUT", "PUT", "DELETE", "DELETE", "POST", "POST"])

    def test_a_keyless_submit_is_not_sent_again_and_says_it_may_have_been_received(self) -> None:
        with ScriptedServer(DROP, answer(202, JOB)) as server:
            with self.assertRaises(ToolshedError) as caught:
                self.session(self.client(server)).call("Bash", {"command": "touch x"})
        self.assertEqual((caught.exception.code, caught.exception.status), (NETWORK_ERROR, 0))
        self.assertIn("may have received it", caught.exception.message)
        self.assertEqual(len(server.seen), 1)

    def test_a_submit_with_an_idempotency_key_is_sent_again_with_the_same_key(self) -> None:
        with ScriptedServer(DROP, answer(202, JOB)) as server:
            job = self.session(self.client(server)).call("Bash", {"command": "touch x"}, idempotency_key="tu_1")
        self.assertEqual(job.id, "job_1")
        self.assertEqual([s.json()["idempotencyKey"] for s in server.seen], ["tu_1", "tu_1"])

    def test_an_upload_and_a_tar_import_are_never_sent_again(self) -> None:
        with ScriptedServer(DROP, DROP, answer(200, {})) as server:
            files = self.session(self.client(server)).files
            for send in (lambda: files.put("/workspace/a", "x"), lambda: files.import_tar(b"tar")):
                with self.assertRaises(ToolshedError) as caught:
                    send()
                self.assertEqual(caught.exception.code, NETWORK_ERROR)
        self.assertEqual([s.method for s in server.seen], ["PUT", "PUT"])

    def test_other_posts_are_not_sent_again(self) -> None:
        with ScriptedServer(DROP, answer(201, {"id": "ten_1", "name": "a"})) as server:
            with self.assertRaises(ToolshedError):
                self.client(server).tenants.create("a")
        self.assertEqual(len(server.seen), 1)

    def test_max_retries_zero_never_sends_again(self) -> None:
        with ScriptedServer(DROP, answer(200, JOB)) as server:
            with self.assertRaises(ToolshedError):
                self.client(server, max_retries=0).jobs.get("job_1")
        self.assertEqual(len(server.seen), 1)


class TransferPending(RetryCase):
    def test_a_504_transfer_pending_is_never_sent_again_and_names_the_job(self) -> None:
        pending = answer(
            504,
            {"error": {"code": "TRANSFER_PENDING", "message": "m", "details": [{"path": "job", "message": "job_9"}]}},
        )
        with ScriptedServer(pending, pending) as server:
            files = self.session(self.client(server)).files
            for send in (lambda: files.put("/workspace/a", b"\x00"), lambda: files.get("/workspace/a")):
                with self.assertRaises(ToolshedError) as caught:
                    send()
                self.assertEqual((caught.exception.status, caught.exception.code), (504, "TRANSFER_PENDING"))
                self.assertEqual(caught.exception.details[0]["message"], "job_9")
        self.assertEqual(len(server.seen), 2)
        self.assertEqual(self.slept, [])


class Requests(RetryCase):
    def test_errors_carry_code_message_field_status_and_request_id(self) -> None:
        body = {
            "error": {"code": "VALIDATION", "message": "bad", "details": [{"path": "tool", "message": "unknown"}]},
            "requestId": "req_7",
        }
        with ScriptedServer(answer(400, body), answer(502, b"<html>bad gateway</html>")) as server:
            client = self.client(server)
            with self.assertRaises(ToolshedError) as caught:
                self.session(client).call("Nope", {})
            e = caught.exception
            self.assertEqual((e.status, e.code, e.message, e.field, e.request_id), (400, "VALIDATION", "bad", "tool", "req_7"))
            with self.assertRaises(ToolshedError) as caught:
                client.jobs.get("job_1")
            self.assertEqual((caught.exception.status, caught.exception.code), (502, "HTTP_ERROR"))
            self.assertIn("bad gateway", caught.exception.message)

    def test_sends_the_key_json_and_encoded_paths_and_no_environment_proxy(self) -> None:
        saved = {k: os.environ.get(k) for k in ("http_proxy", "HTTP_PROXY", "no_proxy", "NO_PROXY")}
        os.environ.update(http_proxy="http://127.0.0.1:9", HTTP_PROXY="http://127.0.0.1:9", no_proxy="", NO_PROXY="")
        try:
            with ScriptedServer(answer(202, JOB)) as server:
                self.session(self.client(server)).call("Bash", {"command": "ls"}, wait=5)
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        seen = server.seen[0]
        self.assertEqual(seen.path, "/v1/sessions/ses_1/calls?wait=5")
        self.assertEqual(seen.headers["authorization"], "Bearer key_1")
        self.assertEqual(seen.headers["content-type"], "application/json")
        self.assertEqual(seen.json(), {"tool": "Bash", "input": {"command": "ls"}})

    def test_lists_are_iterators_that_fetch_the_next_page_only_when_reached(self) -> None:
        first = {"items": [JOB["job"], {**JOB["job"], "id": "job_2"}], "nextCursor": "c2"}
        last = {"items": [{**JOB["job"], "id": "job_3"}], "nextCursor": None}
        with ScriptedServer(answer(200, first), answer(200, last)) as server:
            jobs = self.client(server).jobs.list(session_id="ses_1", status=["failed", "denied"], limit=2)
            self.assertEqual(next(jobs).id, "job_1")
            self.assertEqual(len(server.seen), 1)
            self.assertEqual([j.id for j in jobs], ["job_2", "job_3"])
        self.assertEqual(server.seen[0].path, "/v1/jobs?sessionId=ses_1&status=failed&status=denied&limit=2")
        self.assertEqual(server.seen[1].path, "/v1/jobs?sessionId=ses_1&status=failed&status=denied&limit=2&cursor=c2")


if __name__ == "__main__":
    unittest.main()
