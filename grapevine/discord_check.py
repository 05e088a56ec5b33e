"""What Discord says about the bot's setup, for `grapevine doctor`: whether it accepts DISCORD_TOKEN
(`GET /users/@me`), and whether the application has every privileged intent the bot asks for turned on
(`GET /applications/@me`, its `flags`); without Message Content the bot would read no text in servers.
Each finding is one line, and the token never appears in one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import aiohttp

from bot.app import intents, invite_url
from common.settings import DiscordSettings
from common.urls import mask_credentials

# Application flags: the verified intent (100 servers or more), then the Bot page's toggle (under 100 servers).
PRIVILEGED = {
    "message_content": ("Message Content", (1 << 18) | (1 << 19)),
    "members": ("Server Members", (1 << 14) | (1 << 15)),
    "presences": ("Presence", (1 << 12) | (1 << 13)),
}
PORTAL = "Developer Portal > your application > Bot"


@dataclass(frozen=True)
class Finding:
    ok: bool
    text: str


class _Refused(Exception):
    def __init__(self, status: int, body: Any) -> None:
        message = body.get("message") if isinstance(body, dict) else None
        super().__init__(f"HTTP {status}" + (f" ({message})" if message else ""))
        self.status = status


async def check_discord(settings: DiscordSettings, *, timeout: float = 10.0) -> list[Finding]:  # noqa: ASYNC109 - aiohttp's own total timeout
    """The token, then the intents and the invite link; one unreachable-Discord finding stops there."""
    if settings.token is None or not settings.token.get_secret_value():
        return [Finding(False, "DISCORD_TOKEN is not set; `grapevine run` needs it (docs/discord-setup.md)")]
    headers = {"Authorization": f"Bot {settings.token.get_secret_value()}"}
    try:
        async with aiohttp.ClientSession(headers=headers, timeout=aiohttp.ClientTimeout(total=timeout)) as http:
            user = await _get(http, settings.api_url, "/users/@me")
            app = await _get(http, settings.api_url, "/applications/@me")
    except _Refused as exc:
        if exc.status == 401:
            return [Finding(False, f"Discord refused DISCORD_TOKEN ({exc}): copy the token again ({PORTAL} > Reset Token)")]
        where = mask_credentials(settings.api_url)
        return [Finding(False, f"Discord answered {exc} at {where}; the token and intents were not checked")]
    except (TimeoutError, aiohttp.ClientError, OSError) as exc:
        reason = mask_credentials(" ".join(str(exc).split()))[:200] or type(exc).__name__
        where = mask_credentials(settings.api_url)
        return [Finding(False, f"Discord unreachable at {where} ({reason}); the token and intents were not checked")]
    return [Finding(True, f"Discord accepts DISCORD_TOKEN: the bot {user.get('username')} (id {user.get('id')})"), *_app(app)]


async def _get(http: aiohttp.ClientSession, api_url: str, path: str) -> dict[str, Any]:
    async with http.get(api_url + path) as response:
        try:
            body = await response.json(content_type=None)
        except ValueError:
            body = None
        if response.status != 200:
            raise _Refused(response.status, body)
        if not isinstance(body, dict):
            raise _Refused(response.status, {"message": f"the answer to GET {path} is not a JSON object"})
        return body


def _app(app: dict[str, Any]) -> list[Finding]:
    flags = int(app.get("flags") or 0)
    servers = app.get("approximate_guild_count", "?")
    found = []
    for name, (label, bits) in PRIVILEGED.items():
        if not getattr(intents(), name):
            continue
        if flags & bits:
            found.append(Finding(True, f"the {label} intent is on for {app.get('name')} ({servers} servers)"))
        else:
            where = f"{PORTAL} > Privileged Gateway Intents"
            found.append(
                Finding(False, f"the {label} intent is off, so Discord would refuse the bot's connection: turn it on ({where})")
            )
    if app.get("bot_require_code_grant"):
        found.append(Finding(False, f"the bot requires an OAuth2 code grant, so the invite link fails: turn it off ({PORTAL})"))
    if str(app.get("id", "")).isdigit():
        found.append(Finding(True, f"invite link: {invite_url(int(app['id']))}"))
    return found
