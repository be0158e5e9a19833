"""
An agent loop in the shape AgentScope gives one (ToolUseBlock in, ToolResultBlock out, the tools as
``get_json_schemas()`` lists them), with Toolshed running every tool call. The model here is a fake that
follows a script, so the example runs without a model provider:

    TOOLSHED_URL=http://127.0.0.1:8080 TOOLSHED_KEY=<agent key> python3 examples/agent_loop.py
"""

from __future__ import annotations

import os
from typing import Any, Dict, Iterable, List

from toolshed_client import Session, Toolshed

Message = Dict[str, Any]


def json_schemas(session: Session) -> List[Dict[str, Any]]:
    """The session's tools as function schemas (AgentScope's ``Toolkit.get_json_schemas()`` shape)."""
    return [
        {"type": "function", "function": {"name": t["name"], "description": t["description"], "parameters": t["inputSchema"]}}
        for t in session.tools()["tools"]
    ]


def run_tool(session: Session, use: Dict[str, Any]) -> Dict[str, Any]:
    """One ToolUseBlock run by Toolshed, as a ToolResultBlock. The block's id is the idempotency key: a retry runs it once."""
    job = session.call(use["name"], use["input"], wait=60, idempotency_key=use["id"])
    if job.pending:
        job = job.wait()
    if job.status in ("awaiting_approval", "awaiting_external"):
        text = f"[{job.status}] job {job.id}: {job.data['decision']['message']}"
    else:
        text = job.text or f"[{job.status}]"
    return {"type": "tool_result", "id": use["id"], "name": use["name"], "output": [{"type": "text", "text": text}]}


def run_agent(session: Session, model: Any, task: str, max_steps: int = 8) -> str:
    """Asks the model, runs the tool uses it answers with, hands back the results, until it answers with text only."""
    listing = session.tools()
    tools = json_schemas(session)
    messages: List[Message] = [
        {"role": "system", "content": [{"type": "text", "text": listing["systemPrompt"]}]},
        {"role": "user", "content": [{"type": "text", "text": task}]},
    ]
    for _ in range(max_steps):
        reply = model(messages, tools)
        messages.append(reply)
        uses = [b for b in reply["content"] if b["type"] == "tool_use"]
        if not uses:
            return "".join(b.get("text", "") for b in reply["content"])
        messages.append({"role": "user", "content": [run_tool(session, use) for use in uses]})
    return "(stopped: too many steps)"


class ScriptedModel:
    """A stand-in for a chat model: answers each turn with the next scripted content, and records what it saw."""

    def __init__(self, turns: Iterable[List[Dict[str, Any]]]) -> None:
        self.turns = list(turns)
        self.seen: List[List[Message]] = []

    def __call__(self, messages: List[Message], tools: List[Dict[str, Any]]) -> Message:
        self.seen.append(list(messages))
        return {"role": "assistant", "content": self.turns.pop(0)}


if __name__ == "__main__":
    client = Toolshed(os.environ["TOOLSHED_URL"], os.environ["TOOLSHED_KEY"])
    model = ScriptedModel(
        [
            [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "echo hello from the sandbox"}}],
            [{"type": "text", "text": "Done."}],
        ]
    )
    with client.sessions.create() as session:
        print(run_agent(session, model, "Say hello from the sandbox."))
        print(model.seen[-1][-1]["content"][0]["output"][0]["text"], end="")
