"""Shared real-conversation data sets, read by path from `../shared/data` (never copied here).

IRC samples (Kummerfeld et al., 2019, CC BY 4.0; see `irc/README-data.txt` there): `NAME.raw.txt`
holds one line per message, `[HH:MM] <nick> text`, `[HH:MM]  * nick action` or `=== ...` system
lines; `NAME.annotation.txt` holds `A B -` lines, message B replies to message A (A == B starts a
conversation), annotated from line 1000 on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from graph.models import Message, User
from ingest.windows import WindowMessage

DATA_DIR = Path(__file__).resolve().parents[3] / "shared" / "data"  # ../shared/data beside the repository
IRC_GUILD = "irc-guild"
ANNOTATED_FROM = 1000  # lines before this are unannotated context

_CHAT = re.compile(r"^\[(\d{1,2}):(\d{2})\] +(?:<([^>]*)> ?(.*)|\* (\S+) ?(.*))$")
_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:_(\d{2}))?")


@dataclass(frozen=True)
class IrcSample:
    name: str
    messages: list[WindowMessage]  # time order; ids are 0-based raw line indexes
    reply_links: list[tuple[str, str]]  # (parent id, reply id) as annotated; self-links included


def dev_samples(folder: Path = DATA_DIR) -> list[Path]:
    """The `*.raw.txt` IRC samples in `folder` or in `folder/irc/dev`, sorted by name."""
    folder = Path(folder)
    for place in (folder, folder / "irc" / "dev"):
        found = sorted(place.glob("*.raw.txt")) if place.is_dir() else []
        if found:
            return found
    raise FileNotFoundError(
        f"no IRC samples (*.raw.txt) in {folder} or {folder / 'irc' / 'dev'}; the shared data "
        "lives in ../shared/data next to the repository (see shared/data/README.md)"
    )


def load_irc(path_raw_txt: Path) -> IrcSample:
    """One IRC sample as Discord-like messages plus its annotated reply links."""
    raw = Path(path_raw_txt)
    if not raw.name.endswith(".raw.txt"):
        raise ValueError(f"{raw}: expected a *.raw.txt IRC sample")
    name = raw.name.removesuffix(".raw.txt")
    annotation = raw.with_name(name + ".annotation.txt")
    if not raw.is_file() or not annotation.is_file():
        raise FileNotFoundError(f"IRC sample {name}: need both {raw} and {annotation}")
    lines = raw.read_text(encoding="utf-8", errors="replace").splitlines()
    parsed: list[tuple[int, int, int, str, str]] = []  # (line index, hour, minute, nick, text)
    for index, line in enumerate(lines):
        if line.startswith("==="):
            continue  # system line: skipped, but it keeps its index
        match = _CHAT.match(line)
        if match is None:
            raise ValueError(f"{raw}:{index + 1}: not an IRC chat or system line: {line[:80]!r}")
        hour, minute, nick, text, actor, action = match.groups()
        if nick is None:
            nick, text = actor, f"* {actor} {action}".rstrip()
        parsed.append((index, int(hour), int(minute), nick, text))
    times = _timestamps(name, [(h, m) for _, h, m, _, _ in parsed], [i for i, *_ in parsed])
    channel = f"irc:{name}"
    users: dict[str, User] = {}
    messages: list[WindowMessage] = []
    for (index, _, _, nick, text), at in zip(parsed, times):
        user = users.setdefault(nick, User(id=f"irc:{nick}", name=nick, display_name=nick))
        message = Message(id=str(index), guild_id=IRC_GUILD, channel_id=channel, author_id=user.id, content=text, created_at=at)
        messages.append(WindowMessage(message, user))
    return IrcSample(name, messages, _links(annotation))


def _timestamps(name: str, clock: list[tuple[int, int]], indexes: list[int]) -> list[datetime]:
    """Aware UTC times for [HH:MM] stamps: a stamp earlier than the one before it rolls over to
    the next day (or half-day: the 2004-2005 logs use a 12-hour clock without am/pm). Messages in
    the same minute are spread evenly over its seconds, so their order survives."""
    if not clock:
        return []
    twelve = all(1 <= h <= 12 for h, _ in clock)
    period = 720 if twelve else 1440
    minutes: list[int] = []
    rolls, previous = 0, None
    for h, m in clock:
        of_day = (0 if twelve and h == 12 else h) * 60 + m
        if previous is not None and of_day < previous:
            rolls += 1
        previous = of_day
        minutes.append(of_day + rolls * period)
    # Anchor: the first annotated message falls on the file's date (at the hour its name gives).
    named = _NAME.match(name)
    if named is None:
        raise ValueError(f"IRC sample {name}: the file name must start with its date, YYYY-MM-DD")
    day = datetime.fromisoformat(named.group(1)).replace(tzinfo=UTC)
    anchor = next((k for k, i in enumerate(indexes) if i >= ANNOTATED_FROM), 0)
    of_day = minutes[anchor] % period
    options = [of_day, of_day + 720] if twelve else [of_day]
    if named.group(2) is not None:
        target = int(named.group(2)) * 60
        of_day = min(options, key=lambda o: min(abs(o - target), 1440 - abs(o - target)))
    base = day + timedelta(minutes=of_day - minutes[anchor])
    times: list[datetime] = []
    start = 0
    while start < len(minutes):
        end = start
        while end < len(minutes) and minutes[end] == minutes[start]:
            end += 1
        run = end - start
        times.extend(base + timedelta(minutes=minutes[start], seconds=60 * k / run) for k in range(run))
        start = end
    return times


def _links(annotation: Path) -> list[tuple[str, str]]:
    links: list[tuple[str, str]] = []
    for number, line in enumerate(annotation.read_text(encoding="utf-8").splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) < 2 or not (parts[0].isdigit() and parts[1].isdigit()):
            raise ValueError(f"{annotation}:{number}: expected 'A B -', got {line[:80]!r}")
        links.append((str(int(parts[0])), str(int(parts[1]))))
    return links
