"""Events: no message content unless asked for, and no raw user ids ever."""

from __future__ import annotations

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
