"""A small ``text/event-stream`` reader: the events of a response, as ``SseMessage`` tuples."""

from __future__ import annotations

from typing import BinaryIO, Iterator, List, NamedTuple, Optional


class SseMessage(NamedTuple):
    event: str
    id: Optional[str]
    data: str


def read_sse(stream: BinaryIO) -> Iterator[SseMessage]:
    """Messages as they arrive, line by line; a block without ``data`` (``retry:``, comments) dispatches nothing."""
    event, last_id, data = "message", None, []  # type: str, Optional[str], List[str]
    while True:
        raw = stream.readline()
        if not raw:
            return
        line = raw.decode("utf-8").rstrip("\r\n")
        if line == "":
            if data:
                yield SseMessage(event, last_id, "\n".join(data))
            event, last_id, data = "message", None, []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if field == "event":
            event = value
        elif field == "id":
            last_id = value
        elif field == "data":
            data.append(value)
