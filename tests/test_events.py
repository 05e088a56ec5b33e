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
    """Issue 17: openai's HTTP client (httpx2) logged every request line into the JSON event log."""
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
