"""Events: no message content unless asked for, and no raw user ids ever."""

from __future__ import annotations

import logging
from pathlib import Path

from common import events


def test_content_is_dropped_and_user_ids_are_pseudonymous() -> None:
    events.configure("INFO", log_content=False)
    payload = events.emit("bot", "reply_sent", user_id="300000000000000001", content="hello Alice", parts=3)
    assert "content" not in payload and payload["parts"] == 3
    assert payload["user_id"] != "300000000000000001" and payload["user_id"].startswith("u-")
    assert payload["user_id"] == events.pseudonym("300000000000000001")
    events.configure("INFO", log_content=True)
    assert events.emit("bot", "reply_sent", content="hello")["content"] == "hello"
    events.configure("INFO", log_content=False)


def test_http_client_request_lines_stay_out_of_the_event_log(tmp_path: Path) -> None:
    """openai's HTTP client (httpx2) logged every request line into the JSON event log."""
    log = tmp_path / "events.jsonl"
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        events.configure("INFO", file=log)
        logging.getLogger("httpx2").info('HTTP Request: POST http://127.0.0.1/v1/chat/completions "HTTP/1.1 200 OK"')
        events.emit("test", "kept")
    finally:
        root.handlers, root.level = handlers, level
    lines = log.read_text().splitlines()
    assert len(lines) == 1 and '"kept"' in lines[0]


def test_no_raw_discord_id_reaches_a_log_line(tmp_path: Path) -> None:
    """DM scopes (`dm:<user id>`), `about=[ids]` and message ids were logged as they are."""
    member, message = "300000000000000001", "500000000000000042"
    log = tmp_path / "events.jsonl"
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        events.configure("INFO", file=log)
        dm = events.emit("bot", "reply_sent", guild_id=f"dm:{member}", channel_id="110000000000000001")
        events.emit("bot", "fact_remembered", about=[member, "an-entity-uuid"], scope=f"dm:{member}", message_id=int(message))
        events.emit("ingest", "window", window=f"110000000000000001:{message}:{message}", extra={"who": [member]})
        logging.getLogger("somelib").warning("user %s said something", member)
    finally:
        root.handlers, root.level = handlers, level
    text = log.read_text()
    assert member not in text and message not in text, text
    assert dm["guild_id"] == f"dm:{events.pseudonym(member)}" and dm["channel_id"] == "110000000000000001"
    assert "an-entity-uuid" in text and len(text.splitlines()) == 4
