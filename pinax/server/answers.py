"""JSON where it does, SSE where a call streams: one choice per request, stateless.

The SDK answers a whole endpoint one way (`json_response`). One JSON body per call is about
twice the throughput of an SSE stream (bench/speed/http.py), but a JSON answer cannot carry
progress notifications, which a client asks for with a `progressToken` (Pinax sends them
while get_page fetches a slow page, so the client's timeout does not fire). So Pinax keeps
two stateless session managers over the one server and sends each POST to one of them: to
SSE when its body asks for progress or its Accept header takes no JSON, else to JSON.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

PROGRESS = b'"progressToken"'
MAX_PEEK = 4 * 1024 * 1024  # a body past this goes on unread, to JSON (the SDK refuses it)


class JsonOrSse:
    """ASGI app: each POST to `json` or `sse`, as above; anything else (GET, DELETE) to `sse`."""

    def __init__(self, json: ASGIApp, sse: ASGIApp) -> None:
        self.json = json
        self.sse = sse

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.sse(scope, receive, send)
            return
        if not _takes_json(scope):
            await self.sse(scope, receive, send)
            return
        messages: list[Message] = []
        size = 0
        streams = False
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            body = message.get("body", b"")
            size += len(body)
            streams = streams or PROGRESS in body or _split(messages, body)
            if not message.get("more_body", False) or size > MAX_PEEK:
                break
        await (self.sse if streams else self.json)(scope, _replay(messages, receive), send)


def _takes_json(scope: Scope) -> bool:
    """Whether the Accept header takes application/json (or any type)."""
    for name, value in scope["headers"]:
        if name == b"accept":
            accepted = value.lower()
            return (
                b"application/json" in accepted
                or b"*/*" in accepted
                or b"application/*" in accepted
            )
    return True  # no Accept header: anything goes


def _split(messages: list[Any], body: bytes) -> bool:
    """Whether PROGRESS straddles the previous chunk and this one."""
    if len(messages) < 2:
        return False
    previous = messages[-2].get("body", b"")
    return PROGRESS in previous[-len(PROGRESS) :] + body[: len(PROGRESS)]


def _replay(messages: list[Message], receive: Receive) -> Receive:
    """`receive`, giving back the messages already read first."""
    pending = list(messages)

    async def replay() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replay
