"""toolshed_client: a Python client for the Toolshed API, standard library only (see README.md)."""

from ._contract import ERROR_CODES
from .client import Toolshed
from .errors import NETWORK_ERROR, STREAM_ENDED, ToolshedError
from .jobs import Approval, Job
from .sessions import Session, SessionFiles
from .types import (
    Decision,
    JobData,
    JobEvent,
    JobStatus,
    Result,
    RuleSet,
    SessionData,
    SessionTools,
    ToolDefinition,
)
from .webhooks import WEBHOOK_SIGNATURE_INVALID, WEBHOOK_TIMESTAMP_OUT_OF_RANGE, verify_webhook

__version__ = "0.2.0"

__all__ = [
    "ERROR_CODES",
    "NETWORK_ERROR",
    "STREAM_ENDED",
    "Approval",
    "Decision",
    "Job",
    "JobData",
    "JobEvent",
    "JobStatus",
    "Result",
    "RuleSet",
    "Session",
    "SessionData",
    "SessionFiles",
    "SessionTools",
    "ToolDefinition",
    "Toolshed",
    "ToolshedError",
    "WEBHOOK_SIGNATURE_INVALID",
    "WEBHOOK_TIMESTAMP_OUT_OF_RANGE",
    "verify_webhook",
]
