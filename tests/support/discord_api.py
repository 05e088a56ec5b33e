"""A fake of Discord's REST API on 127.0.0.1, for the checks that ask Discord about the bot token.

It answers the two calls `grapevine doctor` makes and the one discord.py's login makes, as Discord v10
does: `GET /users/@me` (the bot's user) and `GET /applications/@me` (the application, whose `flags` say
which privileged intents are on; discord.py reads it at `/oauth2/applications/@me`). A request without
`Authorization: Bot <the token>` gets Discord's 401 body. Every request's path and headers are kept.

    with FakeDiscordAPI(token="t", flags=MESSAGE_CONTENT_LIMITED) as api:
        settings = DiscordSettings(token=SecretStr("t"), api_url=api.api_url)
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MESSAGE_CONTENT = 1 << 18  # GATEWAY_MESSAGE_CONTENT: verified, in 100 servers or more
MESSAGE_CONTENT_LIMITED = 1 << 19  # GATEWAY_MESSAGE_CONTENT_LIMITED: the toggle on the Bot page, under 100 servers
GUILD_MEMBERS_LIMITED = 1 << 15
APP_COMMANDS_BADGE = 1 << 23

APPLICATION_ID = "1311111111111111111"


@dataclass
class FakeDiscordAPI:
    token: str
    flags: int = MESSAGE_CONTENT_LIMITED | APP_COMMANDS_BADGE
    guilds: int = 3
    status: int | None = None  # answer every request with this status instead (Discord's 5xx, 429...)
    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    _httpd: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None

    @property
    def api_url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("FakeDiscordAPI is not running; use it as a context manager")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/api/v10"

    def __enter__(self) -> FakeDiscordAPI:
        handler = type("_BoundHandler", (_Handler,), {"api": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = self._thread = None

    def answer(self, path: str, authorization: str | None) -> tuple[int, dict[str, Any]]:
        if self.status is not None:
            return self.status, {"message": f"{self.status}: scripted", "code": 0}
        if authorization != f"Bot {self.token}":
            return 401, {"message": "401: Unauthorized", "code": 0}
        if path == "/api/v10/users/@me":
            return 200, {
                "id": "1322222222222222222", "username": "grapevine", "discriminator": "0", "global_name": None,
                "avatar": None, "bot": True, "flags": 0, "mfa_enabled": True,
            }  # fmt: skip
        if path in ("/api/v10/applications/@me", "/api/v10/oauth2/applications/@me"):
            return 200, {
                "id": APPLICATION_ID, "name": "grapevine", "icon": None, "description": "", "bot_public": True,
                "bot_require_code_grant": False, "verify_key": "0" * 64, "flags": self.flags,
                "approximate_guild_count": self.guilds, "team": None, "summary": "",
                "owner": {"id": "1333333333333333333", "username": "owner", "discriminator": "0", "avatar": None},
                "bot": {"id": "1322222222222222222", "username": "grapevine", "discriminator": "0", "bot": True},
            }  # fmt: skip
        return 404, {"message": "404: Not Found", "code": 0}


class _Handler(BaseHTTPRequestHandler):
    api: FakeDiscordAPI
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.api.requests.append((self.path, dict(self.headers.items())))
        status, body = self.api.answer(self.path.split("?")[0], self.headers.get("Authorization"))
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
