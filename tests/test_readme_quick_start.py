"""Every command of the README's quick starts runs as written in a fresh clone of the project, and runs again
after that in the same data directory, saying the same.

The commands are read from README.md: the fenced shell blocks under each heading that says "quick start"
(with its subsections), in order, so the test follows the README wherever it moves them. The clone is this
checkout's tracked files copied into an empty folder, with this checkout's virtualenv as its `.venv`. The
deployment around it is configured as an operator's `.env` would be: the embedded engine on free ports (one
`grapevine serve-db` for the whole run, which every command joins, as the README says they do), the scripted
OpenAI-compatible server as LLM_BASE_URL, and a fake of Discord's REST API with a token for `doctor`.

Not run: `bash scripts/setup` (the clone has this checkout's virtualenv; CI runs setup first), `bash
scripts/test` (CI's own command, which runs this test), `docker ...` (needs a Docker engine and builds
images). `grapevine run` needs Discord's gateway: it runs without a token and must stop at its configuration
check (exit 2, before the engine or Discord), in one line naming DISCORD_TOKEN. A command that serves until stopped (`explore`, `serve-db`) must say where it serves,
answer there, and stop on Ctrl-C (`explore` on its fixed default port only while no other process holds it)."""

from __future__ import annotations

import os
import queue
import re
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from grapevine.explore.command import DEFAULT_PORT
from tests.support.discord_api import MESSAGE_CONTENT_LIMITED, FakeDiscordAPI
from tests.support.ports import free_port
from tests.support.prompt_reader import Prompt
from tests.support.scripted import answer, batch_aware, fact
from tests.support.scripted_llm import Reply, ScriptedLLMServer

REPO = Path(__file__).resolve().parents[1]
SHELLS = {"bash", "sh", "shell", "console", ""}
SERVING = {"explore": "http://127.0.0.1:", "serve-db": "ArcadeDB serving database"}
TOKEN = "quick-start-token"

pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Command:
    heading: str
    line: str


def quick_start_commands(readme: str) -> list[Command]:
    """The shell commands of the fenced blocks under headings containing "quick start", in order; a `&&`
    chain is its commands one by one, a line ending in a backslash continues on the next."""
    found: list[Command] = []
    section: tuple[int, str] | None = None  # (level, title) of the quick start being read
    fence: str | None = None
    lines = readme.splitlines()
    for number, line in enumerate(lines):
        if fence is None and (heading := re.match(r"^(#{1,6})\s+(.*)$", line)):
            level, title = len(heading[1]), heading[2].strip()
            if "quick start" in title.lower():
                section = (level, title)
            elif section is not None and level <= section[0]:
                section = None
            continue
        if (opening := re.match(r"^\s*```(\w*)\s*$", line)) and fence is None:
            fence = opening[1]
            continue
        if fence is not None and line.strip() == "```":
            fence = None
            continue
        if fence is None or section is None or fence not in SHELLS or not line.strip():
            continue
        if number and lines[number - 1].rstrip().endswith("\\"):
            continue  # joined to the line it continues, below
        full = line
        follow = number
        while full.rstrip().endswith("\\") and follow + 1 < len(lines):
            follow += 1
            full = full.rstrip()[:-1] + " " + lines[follow].strip()
        body = full.strip().removeprefix("$ ")
        if body.startswith("#"):
            continue
        found += [Command(section[1], part.strip()) for part in re.split(r"\s&&\s", body)]
    return found


def test_the_readme_has_quick_starts_with_commands() -> None:
    """The test below reads the quick starts; a README without one (or with no commands in one) fails here."""
    commands = quick_start_commands((REPO / "README.md").read_text(encoding="utf-8"))
    assert commands, 'README.md has no heading containing "quick start" with a fenced shell block under it'
    assert any(_grapevine_command(shlex.split(c.line, comments=True)) for c in commands), commands


def test_every_quick_start_command_runs_as_written_in_a_fresh_clone_twice_with_the_same_output(tmp_path: Path) -> None:
    """The quick starts run twice in a row in one data directory (its last step forgets a member, which opts them
    out: the second run must start over as the README says, not show less); each command says the same both
    times, but for how long things took."""
    commands = quick_start_commands((REPO / "README.md").read_text(encoding="utf-8"))
    clone = _fresh_clone(tmp_path / "clone")
    ran: list[str] = []
    skipped: list[str] = []
    said: list[list[str]] = [[], []]
    with ScriptedLLMServer() as llm, FakeDiscordAPI(token=TOKEN, flags=MESSAGE_CONTENT_LIMITED) as discord_api:
        llm.responder = _responder
        env = _deployment(llm.base_url, discord_api.api_url)
        with _serving(clone, env, [".venv/bin/grapevine", "serve-db"], SERVING["serve-db"]):
            for round_ in (0, 1):
                for command in commands:
                    why, output = _run(command, clone, env)
                    # a command one round could not run (explore's port held by a test beside this one) is compared
                    # by neither
                    said[round_].append(f"$ {command.line}\n{_timeless(output)}" if why is None else "")
                    if round_ == 0:
                        line = f"[{command.heading}] {command.line}" + (f": not run, {why}" if why else "")
                        (skipped if why else ran).append(line)
    print("\n".join(["ran:", *ran, "skipped:", *skipped]))
    assert len(ran) >= 5, (ran, skipped)  # the quick starts were run, not skipped
    for first, second in zip(said[0], said[1], strict=True):
        if not first or not second:
            continue
        assert first == second, f"the second run said something else:\n--- first\n{first}\n--- second\n{second}"


_TIMES = re.compile(r"\d+(?:\.\d+)? ?(?:s|ms)\b|\(\d+:\d\d:\d\d\)|\d+:\d\d:\d\d")


_TICK = re.compile(
    r" at [0-9,.]+/s(, about <time> left)? <time>$"
)  # a progress line printed every few seconds while work goes on


def _timeless(output: str) -> str:
    """What a command said, but for how long it took (seconds, a progress line's clock, how many progress lines
    came while it worked) and the times it happened at (when a fact was closed: today; the sample's are 2024's)."""
    today = re.compile(rf"{datetime.now(UTC):%Y-%m-%d}[T ][0-9:.+]+")
    lines = _TIMES.sub("<time>", today.sub("<now>", output)).splitlines()
    return "\n".join(line for line in lines if not _TICK.search(line))


def _run(command: Command, clone: Path, env: dict[str, str]) -> tuple[str | None, str]:
    """Run one command as the README says: (None, what it printed) when it ran, else (why it was not run, '').
    A command that serves until stopped is compared by its having served, not by its address."""
    argv = shlex.split(command.line, comments=True)
    if not argv:
        return "no command", ""
    if any(a.endswith("scripts/setup") for a in argv):
        return "the clone has this checkout's virtualenv (CI runs scripts/setup first)", ""
    if any(a.endswith("scripts/test") for a in argv):
        return "CI's own command, which runs this test", ""
    if argv[0] == "docker":
        return "compose needs a Docker engine and builds images (tests/grapevine/cli/test_compose.py reads the file)", ""
    sub = _grapevine_command(argv)
    if sub == "run":
        quiet = {k: v for k, v in env.items() if not k.startswith("DISCORD_")}
        done = _bash(command.line, clone, quiet, timeout=300)
        said = [line for line in done.stderr.splitlines() if line.strip()]
        assert done.returncode == 2, (command, done.stdout, done.stderr)  # its configuration check, before anything starts
        assert len(said) == 1 and "DISCORD_TOKEN" in said[0] and "Traceback" not in done.stdout, (command, done.stderr)
        return None, done.stdout + done.stderr
    if sub == "explore" and "--port" not in argv and not _free(DEFAULT_PORT, wait=60.0):
        return f"another process listens on {DEFAULT_PORT}, explore's default port", ""
    if sub in SERVING:
        with _serving(clone, env, ["bash", "-c", command.line], SERVING[sub]) as first_line:
            if sub == "explore":
                url = first_line[first_line.index("http://") :].split()[0]
                with urllib.request.urlopen(url, timeout=60) as page:
                    assert page.status == 200, (command, page.status)
        return None, "served"
    done = _bash(command.line, clone, env, timeout=600)
    assert done.returncode == 0, f"{command.line}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"
    assert "Traceback" not in done.stdout + done.stderr, command
    return None, done.stdout + done.stderr


def _free(port: int, wait: float = 0.0) -> bool:
    """Whether nothing listens on `port`, waiting up to `wait` seconds for it to be let go (the first round's
    explore, or a test beside this one, may hold it a moment longer)."""
    deadline = time.monotonic() + wait
    while True:
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                pass
            else:
                return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.5)


def _grapevine_command(argv: list[str]) -> str | None:
    """The grapevine subcommand of a command line (`.venv/bin/grapevine import ...`, `python -m grapevine ...`)."""
    for i, arg in enumerate(argv):
        named = arg == "grapevine" and i > 0 and argv[i - 1] == "-m"
        if (named or Path(arg).name == "grapevine") and i + 1 < len(argv):
            return argv[i + 1]
    return None


def _bash(line: str, clone: Path, env: dict[str, str], *, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", line], cwd=clone, env=env, capture_output=True, text=True, timeout=timeout)


class _serving:
    """A command that serves until Ctrl-C: started, its ready line awaited (returned), then stopped by SIGINT.
    Its output is read all along by a thread, so it never blocks on a full pipe."""

    def __init__(self, clone: Path, env: dict[str, str], argv: list[str], ready: str) -> None:
        self.process = subprocess.Popen(argv, cwd=clone, env={**env, "PYTHONUNBUFFERED": "1"}, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True, start_new_session=True)  # fmt: skip
        self.ready = ready
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def __enter__(self) -> str:
        deadline = time.monotonic() + 300
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                break
            self.seen.append(line)
            if self.ready in line:
                return line
        self._stop()
        raise AssertionError(f"{self.process.args!r} never said {self.ready!r}:\n{''.join(self.seen)}")

    def __exit__(self, *exc: object) -> None:
        self._stop()

    def _stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGINT)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=30)


def _fresh_clone(into: Path) -> Path:
    """This checkout's tracked files (and new ones not ignored), nothing else: no data dir, no `.env`."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                            capture_output=True, check=True).stdout.decode().split("\0")  # fmt: skip
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file():
            target = into / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
            target.chmod(source.stat().st_mode)
    (into / ".venv").symlink_to(Path(sys.prefix))
    return into


def _deployment(llm_url: str, discord_url: str) -> dict[str, str]:
    clean = {
        k: v for k, v in os.environ.items() if not k.startswith(("GRAPEVINE_", "NEO4J_", "ARCADEDB_", "LLM_", "DISCORD_", "LOG_"))
    }
    return {
        **clean,
        "ARCADEDB_BOLT_PORT": str(free_port()),
        "ARCADEDB_HTTP_PORT": str(free_port()),
        "LLM_BASE_URL": llm_url,
        "LLM_API_KEY": "quick-start-key",
        "LLM_MODEL": "scripted-model",
        "DISCORD_TOKEN": TOKEN,
        "DISCORD_API_URL": discord_url,
        "COLUMNS": "200",
    }


def _window(request: dict[str, Any]) -> Reply:
    """A window's answer: a fact from its first message, about its author."""
    prompt = Prompt(request)
    first = next(iter(prompt.messages.values()))
    return answer("They talked.", facts=[fact(f"Said: {first.content[:80]}", about=[first.author_ref], source=[first.ref])])


def _responder(request: dict[str, Any]) -> Reply:
    texts = " ".join(str(m.get("content")) for m in request.get("messages", []))
    if "Say ok." in texts:  # doctor's probe of structured output
        return {"ok": True, "word": "ok"}
    return batch_aware(_window)(request)
