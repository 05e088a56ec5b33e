"""A long command run with its output going to a file or a pipe (a service's log, `nohup`, CI) prints a
progress line every few seconds, with the total where it is known, and says at the end what it added and
what was there already; on a terminal it draws progress bars."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from rich.console import Console

from grapevine.cli.progress import Progress
from graph.store import GraphStore
from tests.support.cli_process import cli_env

T = TypeVar("T")

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)
CONVERSATIONS, PER_CONVERSATION = 30, 40  # 1,200 messages; windows close at 30 messages or an hour's quiet


def _export(tmp_path: Path) -> Path:
    authors = [{"id": f"33000000000000000{n}", "name": name} for n, name in enumerate(["alice", "bob", "carol"], 1)]
    messages = [
        {"id": f"9{c:05d}{i:04d}000000", "type": "Default", "timestamp": (T0 + timedelta(hours=c, seconds=20 * i)).isoformat(),
         "timestampEdited": None, "content": f"conversation {c} message {i}", "author": authors[(c + i) % 3]}
        for c in range(CONVERSATIONS) for i in range(PER_CONVERSATION)
    ]  # fmt: skip
    doc = {"guild": {"id": "800000000000000042", "name": "g"}, "channel": {"id": "810000000000000042", "name": "general"},
           "messages": messages}  # fmt: skip
    path = tmp_path / "talk.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _import(store: GraphStore, tmp_path: Path, export: Path) -> subprocess.CompletedProcess[str]:
    env = {**cli_env(store, tmp_path), "LOG_PROGRESS_SECONDS": "0.1"}
    return subprocess.run([sys.executable, "-m", "grapevine", "import", str(export)], env=env, capture_output=True,
                          text=True, timeout=600, cwd=tmp_path)  # fmt: skip


async def test_an_import_to_a_pipe_prints_progress_lines_with_the_total_and_says_what_it_added(
    store: GraphStore, tmp_path: Path
) -> None:
    export = _export(tmp_path)
    total = CONVERSATIONS * PER_CONVERSATION
    first = await _in_thread(_import, store, tmp_path, export)
    assert first.returncode == 0, first.stderr
    lines = first.stdout.splitlines()
    assert "\x1b[" not in first.stdout and "━" not in first.stdout and "/?" not in first.stdout, first.stdout  # no bars
    progress = [line for line in lines if re.match(rf"^talk\.json: messages [\d,]+/{total:,}", line)]
    assert progress, first.stdout  # the total is known once the file is read
    counts = [int(re.match(r"^talk\.json: messages ([\d,]+)/", line)[1].replace(",", "")) for line in progress]  # type: ignore[index]
    assert counts == sorted(counts) and counts[-1] == total
    windows = CONVERSATIONS * 2  # each conversation's 40 messages: a window closed at 30, the rest at the quiet hour
    said = " ".join(first.stdout.split())
    assert (
        f"talk.json: {total:,} messages ({total:,} new, 0 already stored), {windows} windows {{'pending': {windows}}} ({windows} new, 0 already stored)"
        in said
    ), first.stdout

    again = await _in_thread(_import, store, tmp_path, export)
    assert again.returncode == 0, again.stderr
    said = " ".join(again.stdout.split())
    assert (
        f"talk.json: {total:,} messages (0 new, {total:,} already stored), {windows} windows {{'pending': {windows}}} (0 new, {windows} already stored)"
        in said
    ), again.stdout


def test_off_a_terminal_a_line_comes_every_few_seconds_while_work_goes_on() -> None:
    sink = io.StringIO()
    console = Console(file=sink, width=200)  # a file: not a terminal
    with Progress(console, "talk.json", every=0.05) as progress:
        progress.start("messages", 100)
        for _ in range(10):
            time.sleep(0.03)
            progress.advance("messages", 10)
        progress.start("windows", None)
        time.sleep(0.15)  # a slow step: the lines keep coming, saying where it is
        progress.advance("windows", 3)
    lines = sink.getvalue().splitlines()
    assert len(lines) >= 4, lines
    assert all(line.startswith("talk.json: messages ") for line in lines), lines
    assert re.fullmatch(r"talk\.json: messages 100/100, windows 3 \(\d+:\d\d:\d\d\)", lines[-1]), lines  # the last, at the end
    assert any(re.match(r"talk\.json: messages \d+/100 at [\d,]+/s(, about \d+:\d\d:\d\d left)? \(", line) for line in lines)


def test_on_a_terminal_the_bars_show_the_total() -> None:
    sink = io.StringIO()
    console = Console(file=sink, width=120, force_terminal=True)
    with Progress(console, "talk.json", every=5) as progress:
        progress.start("messages", 2400)
        progress.advance("messages", 2400)
    assert "2400/2400" in sink.getvalue() and "/?" not in sink.getvalue()


async def _in_thread(fn: Callable[..., T], *args: Any) -> T:
    import asyncio

    return await asyncio.to_thread(fn, *args)


def test_a_line_gives_the_time_left_once_the_total_is_known() -> None:
    sink = io.StringIO()
    console = Console(file=sink, width=200)  # a file: not a terminal
    with Progress(console, "talk.json", every=0.05) as progress:
        progress.start("messages", 100)
        for _ in range(6):
            time.sleep(0.04)
            progress.advance("messages", 10)
    lines = sink.getvalue().splitlines()
    assert any(re.search(r"messages \d+/100 at [\d,]+/s, about \d+:\d\d:\d\d left \(", line) for line in lines), lines
    assert "left" not in lines[-1], lines  # the last line, at the end, says what was done
