"""The event stream as an iterator: typed events, the job kept up to date, a dropped connection resumed."""

from __future__ import annotations

import io
import json
import unittest

from toolshed_client import Job, Toolshed, ToolshedError
from toolshed_client._sse import read_sse

from .scripted_server import ScriptedServer, error, events


def sse(event: str, id: str, data: object) -> str:
    return f"event: {event}\nid: {id}\ndata: {json.dumps(data)}\n\n"


RESULT = {"status": "succeeded", "result": {"content": [{"type": "text", "text": "1\n2\n"}], "state": "ok"}}


def job(client: Toolshed) -> Job:
    return Job(client.jobs._http, {"id": "job_1", "status": "queued"})  # type: ignore[typeddict-item]


class Stream(unittest.TestCase):
    def test_yields_status_chunks_and_the_result_then_stops(self) -> None:
        body = [
            "retry: 1000\n\n: keep-alive\n\n",
            sse("status", "1", {"status": "running"}),
            sse("chunk", "2", {"content": [{"type": "text", "text": "1\n"}]}),
            "event: chunk\r\nid: 3\r\ndata: {\"content\": [{\"type\": \"text\",\r\ndata:  \"text\": \"2\\n\"}]}\r\n\r\n",
            sse("result", "4", RESULT),
            sse("status", "5", {"status": "never-read"}),
        ]
        with ScriptedServer(events(*body)) as server:
            j = job(Toolshed(server.url, "k"))
            got = list(j.stream())
        self.assertEqual([(e["event"], e["id"]) for e in got], [("status", "1"), ("chunk", "2"), ("chunk", "3"), ("result", "4")])
        self.assertEqual(got[2]["data"]["content"][0]["text"], "2\n")
        self.assertEqual((j.status, j.text), ("succeeded", "1\n2\n"))
        self.assertEqual(server.seen[0].headers["accept"], "text/event-stream")

    def test_a_dropped_connection_is_resumed_after_the_last_event(self) -> None:
        first = events(sse("status", "1", {"status": "running"}), sse("chunk", "2", {"content": []}))
        with ScriptedServer(first, events(sse("result", "3", RESULT))) as server:
            got = [e["id"] for e in job(Toolshed(server.url, "k")).stream()]
        self.assertEqual(got, ["1", "2", "3"])
        self.assertNotIn("last-event-id", server.seen[0].headers)
        self.assertEqual(server.seen[1].headers["last-event-id"], "2")

    def test_a_stream_gone_silent_past_the_timeout_is_resumed(self) -> None:
        silent = events(sse("status", "1", {"status": "running"}), stall=2.0)
        with ScriptedServer(silent, events(sse("result", "2", RESULT))) as server:
            got = [e["id"] for e in job(Toolshed(server.url, "k", timeout=0.3)).stream()]
        self.assertEqual(got, ["1", "2"])
        self.assertEqual(server.seen[1].headers["last-event-id"], "1")

    def test_a_stream_that_never_reaches_a_result_ends_with_stream_ended(self) -> None:
        with ScriptedServer(*[events(sse("status", "1", {"status": "running"}))] * 3) as server:
            with self.assertRaises(ToolshedError) as caught:
                list(job(Toolshed(server.url, "k")).stream(reconnects=2))
        self.assertEqual(caught.exception.code, "STREAM_ENDED")
        self.assertEqual(len(server.seen), 3)

    def test_an_api_error_is_raised_not_retried(self) -> None:
        with ScriptedServer(error(404, "NOT_FOUND")) as server:
            with self.assertRaises(ToolshedError) as caught:
                list(job(Toolshed(server.url, "k")).stream())
        self.assertEqual(caught.exception.code, "NOT_FOUND")
        self.assertEqual(len(server.seen), 1)

    def test_the_reader_joins_data_lines_and_skips_blocks_without_data(self) -> None:
        raw = io.BytesIO(b"id: 7\n\ndata: a\ndata: b\n\nevent: x\ndata:c\n\n")
        self.assertEqual([tuple(m) for m in read_sse(raw)], [("message", None, "a\nb"), ("x", None, "c")])


if __name__ == "__main__":
    unittest.main()
