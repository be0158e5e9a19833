"""
The Python client against a running Toolshed (the vitest test test/clients/python-client.int.test.ts starts
one and runs these): TOOLSHED_URL and TOOLSHED_ADMIN_KEY name it. Without them every test is skipped.
"""

from __future__ import annotations

import os
import sys
import unittest
import uuid
from pathlib import Path

from toolshed_client import Toolshed, ToolshedError

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
from agent_loop import ScriptedModel, run_agent  # noqa: E402

URL = os.environ.get("TOOLSHED_URL")
ADMIN_KEY = os.environ.get("TOOLSHED_ADMIN_KEY", "")


@unittest.skipUnless(URL, "TOOLSHED_URL is not set: no server to run against")
class AgainstServer(unittest.TestCase):
    def setUp(self) -> None:
        self.platform = Toolshed(URL or "", ADMIN_KEY)
        tenant = self.platform.tenants.create(f"py-{uuid.uuid4().hex[:6]}")
        self.tenant_id = tenant["id"]
        self.admin = Toolshed(URL or "", self.platform.tenants.create_key(tenant["id"], "tenant_admin")["key"])
        self.agent_key = self.platform.tenants.create_key(tenant["id"], "agent")["key"]
        self.agent = Toolshed(URL or "", self.agent_key)

    def test_the_readme_walkthrough_call_ask_approve_stream_deny(self) -> None:
        self.admin.tenants.set_rules(
            self.tenant_id, {"allow": ["Bash(echo:*)", "Read", "Write"], "ask": ["Bash(touch:*)"], "deny": ["Bash(rm:*)"]}
        )
        with self.agent.sessions.create() as session:
            hello = session.call("Bash", {"command": "echo hello"}, wait=30)
            self.assertEqual((hello.status, hello.text), ("succeeded", "hello\n"))

            held = session.call("Bash", {"command": "touch /workspace/approved && echo touched"})
            self.assertEqual(held.status, "awaiting_approval")
            self.assertEqual(held.data["decision"]["behavior"], "ask")
            with self.assertRaises(ToolshedError) as refused:
                held.approve()  # an agent may not, by default
            self.assertEqual((refused.exception.status, refused.exception.code), (403, "FORBIDDEN"))

            self.assertEqual(self.admin.jobs.get(held.id).approve().status, "queued")
            events = list(held.stream())
            self.assertEqual(events[-1]["event"], "result")
            self.assertEqual([e["event"] for e in events].count("result"), 1)
            self.assertEqual((held.status, held.text), ("succeeded", "touched\n"))

            denied = session.call("Bash", {"command": "rm -r /workspace"}, wait=5)
            self.assertEqual(denied.status, "denied")

    def test_api_errors_are_exceptions_with_code_status_and_field(self) -> None:
        with self.agent.sessions.create() as session:
            with self.assertRaises(ToolshedError) as unknown:
                session.call("NoSuchTool", {})
            e = unknown.exception
            self.assertEqual((e.status, e.code, e.field), (400, "VALIDATION", "tool"))
            self.assertTrue(e.request_id)
        with self.assertRaises(ToolshedError) as missing:
            self.agent.jobs.get("job_nope")
        self.assertEqual((missing.exception.status, missing.exception.code), (404, "NOT_FOUND"))
        with self.assertRaises(ToolshedError) as bad_key:
            Toolshed(URL or "", "wrong").sessions.create()
        self.assertEqual((bad_key.exception.status, bad_key.exception.code), (401, "UNAUTHENTICATED"))

    def test_an_agent_loops_daily_verbs_tools_decisions_files_external_tools_lists(self) -> None:
        lookup = {
            "name": "lookup",
            "description": "Looks a word up.",
            "inputSchema": {"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]},
        }
        self.assertEqual([t["name"] for t in self.admin.tenants.set_tools(self.tenant_id, [lookup])], ["lookup"])
        self.admin.tenants.set_rules(self.tenant_id, {"allow": ["lookup", "Read", "Write"], "deny": [], "ask": ["Bash(touch:*)"]})
        with self.agent.sessions.create(mode="accept_edits", working_directories=["/tmp/scratch"]) as session:
            self.assertEqual(session.data["workingDirectories"], ["/tmp/scratch"])
            self.assertEqual(session.data.get("effectiveWorkingDirectories"), ["/tmp/scratch"])
            listing = session.tools()
            names = [t["name"] for t in listing["tools"]]
            self.assertTrue({"Bash", "Read", "lookup"} <= set(names), names)
            self.assertIsInstance(listing["systemPrompt"], str)
            self.assertEqual(session.decide("Bash", {"command": "touch x"})["behavior"], "ask")

            self.assertEqual(session.files.put("/workspace/notes/a.txt", "hello files\n")["bytes"], 12)
            self.assertEqual(session.files.get_text("/workspace/notes/a.txt"), "hello files\n")
            tar = session.files.export_tar()
            with self.agent.sessions.create() as copy:
                self.assertGreater(copy.files.import_tar(tar)["entries"], 0)
                self.assertEqual(copy.files.get_text("/workspace/notes/a.txt"), "hello files\n")

            held = session.call("lookup", {"word": "shed"}, wait=5, idempotency_key="lookup-1")
            self.assertEqual(held.status, "awaiting_external")
            again = session.call("lookup", {"word": "shed"}, idempotency_key="lookup-1")
            self.assertEqual(again.id, held.id)  # the key answers the first job
            held.submit_result({"content": [{"type": "text", "text": "a small building"}]})
            self.assertEqual((held.status, held.text), ("succeeded", "a small building"))

            asking = session.call("Bash", {"command": "touch /workspace/t"})
            jobs = [j.id for j in self.agent.jobs.list(session_id=session.id, limit=1)]
            self.assertEqual(jobs[:2], [asking.id, held.id])
            self.assertGreater(len(jobs), 3)
            self.assertIn(session.id, [s.id for s in self.agent.sessions.list(status="active")])
            waiting = list(self.admin.approvals.list(session_id=session.id))
            self.assertEqual([a.job.id for a in waiting], [asking.id])
            waiting[0].job.deny()
            self.assertEqual(self.agent.jobs.get(asking.id).status, "denied")

            dry = self.admin.tenants.dry_run_rules(self.tenant_id, {"allow": [], "deny": ["lookup"], "ask": []})
            self.assertIn(held.id, [c["jobId"] for c in dry["changes"]])
            kinds = {e["kind"] for e in self.admin.tenants.audit(self.tenant_id, job_id=held.id)["entries"]}
            self.assertTrue({"decision", "external_result"} <= kinds, kinds)

    def test_a_quota_refusal_is_sent_again_after_retry_after_then_raised_as_rate_limited(self) -> None:
        self.platform.tenants.update_settings(self.tenant_id, quotas={"maxSessions": 1})
        slept = []
        agent = Toolshed(URL or "", self.agent_key, max_retries=2, sleep=slept.append)
        with agent.sessions.create() as first:
            with self.assertRaises(ToolshedError) as refused:
                agent.sessions.create()
            self.assertEqual([s.id for s in agent.sessions.list(status="active")], [first.id])
        e = refused.exception
        self.assertEqual((e.status, e.code), (429, "RATE_LIMITED"))
        self.assertGreater(e.retry_after or 0, 0)
        # Sent three times, waiting Retry-After between (capped by max_retry_delay, 30 s by default).
        self.assertEqual(slept, [min(e.retry_after or 0, 30.0)] * 2)

    def test_the_readme_agent_loop_runs_the_models_tool_uses(self) -> None:
        self.admin.tenants.set_rules(self.tenant_id, {"allow": ["Bash(echo:*)"], "deny": [], "ask": []})
        model = ScriptedModel(
            [
                [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "echo one"}}],
                [{"type": "tool_use", "id": "toolu_2", "name": "Bash", "input": {"command": "touch /workspace/x"}}],
                [{"type": "text", "text": "Done."}],
            ]
        )
        with self.agent.sessions.create() as session:
            self.assertEqual(run_agent(session, model, "Say one."), "Done.")
            results = [m["content"][0] for m in model.seen[-1] if m["role"] == "user" and m["content"][0]["type"] == "tool_result"]
            self.assertEqual(results[0]["output"][0]["text"], "one\n")
            self.assertTrue(results[1]["output"][0]["text"].startswith("[awaiting_approval]"), results[1])
            jobs = list(self.agent.jobs.list(session_id=session.id))
            self.assertEqual(sorted(j.data.get("idempotencyKey") for j in jobs), ["toolu_1", "toolu_2"])


if __name__ == "__main__":
    unittest.main()
