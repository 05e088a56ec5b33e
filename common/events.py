"""Structured events as JSON lines: one line per event, with a subsystem and an event name.

Message content never goes into an event unless content logging is switched on (LOG_CONTENT=true);
callers pass it as `content=` and this module drops it otherwise. Credentials in a URL never go in either.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import re
import secrets
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from common.urls import mask_credentials

_logger = logging.getLogger("common.events")
_log_content = False
_CONTENT_KEYS = frozenset({"content", "text", "prompt", "completion"})
_PERSON_KEYS = frozenset({"user_id", "author_id", "member_id"})
# Logs name people by a keyed hash that changes with every process, so a forgotten member's id is
# never written to a log, and events of one run can still be followed.
_LOG_KEY = secrets.token_bytes(16)


_SNOWFLAKE = re.compile(r"(?<!\d)\d{15,20}(?!\d)")  # a Discord id (user, message, ...), anywhere in a value
_DM_SCOPE = re.compile(r"dm:(\d+)")
_PLACE_KEYS = frozenset({"guild_id", "channel_id"})  # servers and channels stay readable; a DM scope does not


def pseudonym(user_id: str) -> str:
    return "u-" + hmac.new(_LOG_KEY, user_id.encode(), hashlib.sha256).hexdigest()[:12]


def _masked(value: Any, pattern: re.Pattern[str] = _SNOWFLAKE) -> Any:
    """The value with every Discord id in it (in texts, lists, maps; as a number too) pseudonymised."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int) and pattern is _SNOWFLAKE:
        return _masked(str(value)) if _SNOWFLAKE.fullmatch(str(value)) else value
    if isinstance(value, str):
        value = mask_credentials(value)
        if pattern is _DM_SCOPE:
            return _DM_SCOPE.sub(lambda m: "dm:" + pseudonym(m.group(1)), value)
        return _SNOWFLAKE.sub(lambda m: pseudonym(m.group(0)), _DM_SCOPE.sub(lambda m: "dm:" + pseudonym(m.group(1)), value))
    if isinstance(value, dict):
        return {k: _masked(v, pattern) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_masked(v, pattern) for v in value]
    return value


class _JsonLines(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        payload = getattr(record, "payload", None)
        if payload is None:
            payload = {"subsystem": record.name, "event": "log", "level": record.levelname, "msg": _masked(record.getMessage())}
        return json.dumps(payload, default=str, ensure_ascii=False)


def configure(level: str = "INFO", *, log_content: bool = False, file: Path | None = None) -> None:
    """Send events (and ordinary log records) to stderr, or a file, as JSON lines."""
    global _log_content
    _log_content = log_content
    handler: logging.Handler = logging.FileHandler(file, encoding="utf-8") if file else logging.StreamHandler(sys.stderr)
    handler.setFormatter(_JsonLines())
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(level)
    for noisy in ("neo4j", "discord", "httpx", "httpx2", "openai", "httpcore"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, logging.getLevelName(level)))


def emit(subsystem: str, event: str, *, level: int = logging.INFO, **fields: Any) -> dict[str, Any]:
    """Log one event; returns the payload (what was written) so callers and tests can see it."""
    payload: dict[str, Any] = {
        "ts": datetime.now(UTC).isoformat(timespec="milliseconds"),
        "subsystem": subsystem,
        "event": event,
    }
    for key, value in fields.items():
        if key in _CONTENT_KEYS and not _log_content:
            continue
        if key in _PERSON_KEYS and value is not None:
            payload[key] = pseudonym(str(value))
        else:
            payload[key] = _masked(value, _DM_SCOPE if key in _PLACE_KEYS else _SNOWFLAKE)
    _logger.log(level, "%s.%s", subsystem, event, extra={"payload": payload})
    return payload
