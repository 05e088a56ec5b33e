"""The explorer's door: the access token in the path, the Host header, and safe response headers.

Every request must start with `/<token>/` (compared in constant time); anything else is answered
403 before the app sees it, static files included. A Host header that is not the loopback
address the server listens on is refused too (a page of another site that rebinds its DNS name to
127.0.0.1 would send its own name), unless the operator chose to listen beyond loopback. Every
response says: no caching (a forgotten member must not linger in a browser cache), no referrer,
no framing, and a Content-Security-Policy that runs only the page's own scripts.
"""

from __future__ import annotations

import hmac

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse, RedirectResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "[::1]"})
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
]
FORBIDDEN = (
    "403 forbidden: open the explorer with the address `grapevine explore` printed, "
    "token included (a new token is made each time it starts)"
)


def host_of(header: str) -> str:
    """The host of a Host header without its port: '127.0.0.1:8474' -> '127.0.0.1', '[::1]:80' -> '[::1]'."""
    if header.startswith("["):
        return header[: header.find("]") + 1] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


class TokenGate:
    """ASGI middleware: the token, the Host header, the headers above. `hosts` None accepts any Host."""

    def __init__(self, app: ASGIApp, token: str, hosts: frozenset[str] | None = LOOPBACK_HOSTS) -> None:
        if len(token) < 16:
            raise ValueError("the access token is too short to guess at")
        self.app = app
        self.token = token.encode()
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            return  # no websockets here: closing without accepting refuses them

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
            await send(message)

        host = host_of(Headers(scope=scope).get("host", "")).lower()
        if self.hosts is not None and host not in self.hosts:
            await PlainTextResponse(f"403 forbidden: Host {host!r} is not this loopback server", 403)(
                scope, receive, send_with_headers
            )
            return
        segment, slash, _ = scope["path"][1:].partition("/")
        if not hmac.compare_digest(segment.encode(), self.token):
            await PlainTextResponse(FORBIDDEN, 403)(scope, receive, send_with_headers)
            return
        if not slash:  # /<token> -> /<token>/, so the page's relative addresses resolve under the token
            await RedirectResponse(f"/{segment}/", 307)(scope, receive, send_with_headers)
            return
        inner = {**scope, "root_path": scope.get("root_path", "") + "/" + segment}
        await self.app(inner, receive, send_with_headers)
