"""A Discord id (a snowflake) never starts with 0: every parser of ids refuses one that does, so that
`grapevine forget 0300000000000000002` is not taken as another member's id (it once reported nothing stored,
exited 0 and recorded an opt-out for an id nobody has)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from common import ids, links

LEADING_ZERO = st.integers(min_value=ids.MIN_DIGITS - 1, max_value=ids.MAX_DIGITS - 1).flatmap(
    lambda n: st.text(alphabet="0123456789", min_size=n, max_size=n).map(lambda rest: "0" + rest)
)


@given(LEADING_ZERO)
def test_an_id_with_a_leading_zero_is_refused_by_every_parser(text: str) -> None:
    for parse in (ids.user_id, ids.guild_id, ids.channel_id, ids.named):
        with pytest.raises(ids.IdError, match="never starts with 0"):
            parse(text)
    with pytest.raises(ids.IdError):
        ids.guild_id(f"{ids.DM_PREFIX}{text}")
    assert not ids.is_ascii_id(text)
    assert ids.mentioned(f"<@{text}>") == []
    assert links.jump_url("833055463833731073", text, "833055715491971076") is None
    assert links.jump_url(text, "833055463833731073", "833055715491971076") is None


@given(st.integers(min_value=10 ** (ids.MIN_DIGITS - 1), max_value=2**64 - 1))
def test_an_id_as_discord_writes_it_is_taken(number: int) -> None:
    text = str(number)
    assert ids.user_id(text) == text and ids.guild_id(text) == text and ids.mentioned(f"<@{text}>") == [text]


def test_forget_refuses_an_id_with_a_leading_zero_before_anything_is_kept(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "grapevine", "forget", "0300000000000000002", "--yes"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "GRAPEVINE_DATA_DIR": str(tmp_path / "data")},
    )  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    assert "never starts with 0" in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert not (tmp_path / "data" / "unfinished_forgets.jsonl").exists()
