"""Reply limits: a cooldown per member and per channel, and a daily budget of reply calls per guild, so ten
mentions in five seconds make one LLM call, not ten. Times are the messages' own (Discord's clock)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime

from common.settings import ReplySettings

MEMBER_WAIT = "I'm still on your last message; give me {seconds} seconds before the next one."
GUILD_SPENT = "I've used up today's replies for this server; I'll answer again tomorrow (UTC)."


@dataclass
class ReplyLimits:
    settings: ReplySettings
    _member_at: dict[str, datetime] = field(default_factory=dict)
    _channel_at: dict[str, datetime] = field(default_factory=dict)
    _told: dict[str, datetime] = field(default_factory=dict)  # whom we told to wait, and when
    _spent: dict[tuple[str, date], int] = field(default_factory=dict)

    def check(self, guild_id: str, channel_id: str, member_id: str, at: datetime) -> tuple[bool, str | None]:
        """(may reply, what to say instead): a polite word once per cooldown, then silence."""
        s = self.settings
        last = self._member_at.get(member_id)
        if last is not None and (at - last).total_seconds() < s.member_cooldown_seconds:
            return False, self._once(f"member:{member_id}", at, MEMBER_WAIT.format(seconds=round(s.member_cooldown_seconds)))
        last = self._channel_at.get(channel_id)
        if last is not None and (at - last).total_seconds() < s.channel_cooldown_seconds:
            return False, None
        day = (guild_id, at.date())
        if s.guild_daily_replies and self._spent.get(day, 0) >= s.guild_daily_replies:
            return False, self._once(f"guild:{guild_id}:{channel_id}:{at.date()}", at, GUILD_SPENT, forever=True)
        self._member_at[member_id] = self._channel_at[channel_id] = at
        self._spent[day] = self._spent.get(day, 0) + 1
        return True, None

    def _once(self, key: str, at: datetime, text: str, *, forever: bool = False) -> str | None:
        told = self._told.get(key)
        if told is not None and (forever or (at - told).total_seconds() < self.settings.member_cooldown_seconds):
            return None
        self._told[key] = at
        return text
