"""
The API's shapes as TypedDicts (names as in the OpenAPI document's components): what the methods
take and give back. Keys are the API's JSON names (camelCase); optional keys are in ``total=False`` bases.
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, TypedDict

from ._contract import JobStatus  # generated from the OpenAPI document


class ErrorDetail(TypedDict):
    path: str
    message: str


class ContentBlock(TypedDict, total=False):
    type: str
    text: str


class _ResultRequired(TypedDict):
    content: List[ContentBlock]
    state: str


class Result(_ResultRequired, total=False):
    exitCode: Optional[int]
    truncated: bool
    metadata: Dict[str, Any]


class _DecisionRequired(TypedDict):
    behavior: Literal["allow", "deny", "ask"]
    message: str
    reason: Optional[str]
    mode: str
    bypassImmune: bool
    suggestions: List[str]
    decidedBy: str


class Decision(_DecisionRequired, total=False):
    rule: str
    readOnly: bool


class _JobRequired(TypedDict):
    id: str
    sessionId: str
    tool: str
    input: Dict[str, Any]
    status: JobStatus
    decision: Decision
    createdAt: str


class JobData(_JobRequired, total=False):
    result: Result
    idempotencyKey: str
    approvedBy: str
    approvalExpiresAt: str
    startedAt: str
    finishedAt: str
    hostId: str
    attempts: List[Dict[str, Any]]


class RuleSet(TypedDict):
    allow: List[str]
    deny: List[str]
    ask: List[str]


class _SessionRequired(TypedDict):
    id: str
    mode: str
    cwd: str
    home: str
    workingDirectories: List[str]
    status: Literal["active", "deleted"]
    rules: RuleSet
    tools: List[str]
    createdAt: str
    lastUsedAt: str


class SessionData(_SessionRequired, total=False):
    # Those of workingDirectories the tenant's workingDirectoryRoots let count now (servers from 0.3 on).
    effectiveWorkingDirectories: List[str]
    hostId: str
    workspaceLost: bool


class ToolDefinition(TypedDict):
    """One tool as the model is given it: name, description, JSON Schema of the input."""

    name: str
    description: str
    inputSchema: Dict[str, Any]


class SessionTools(TypedDict):
    tools: List[ToolDefinition]
    systemPrompt: str


class JobEvent(TypedDict):
    """One SSE event of ``job.stream()``: ``status``, ``chunk`` (a delta of live output) or ``result`` (last)."""

    event: Literal["status", "chunk", "result"]
    id: str
    data: Dict[str, Any]


class Tenant(TypedDict):
    id: str
    name: str


class CreatedKey(TypedDict):
    """A new key; its secret (``key``) is shown only in this answer."""

    id: str
    key: str
    role: str


class ExternalResult(TypedDict, total=False):
    content: List[ContentBlock]
    isError: bool


class ApprovalItemData(TypedDict):
    job: JobData
    decision: Dict[str, Any]
    expiresAt: Optional[str]
