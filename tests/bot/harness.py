"""The harness the bot tests drive: the message cogs on a MockBot, fed as discord.py dispatches."""

from __future__ import annotations

import unittest.mock
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import discord
import pytest

from bot.listening import Listening
from bot.memory import Memory
from bot.memory._forget_me import ConfirmForget
from bot.replying import Replying
from tests.support.busy_server import PEOPLE, T0
from tests.support.discord_doubles import (
    MockBot,
    MockGuild,
    MockInteraction,
    MockMember,
    MockMessage,
    MockTextChannel,
    sent_texts,
)

AT = T0 + timedelta(days=4)  # after everything populate() says


@dataclass
class Harness:
    """The three message-handling cogs on a MockBot, fed the way discord.py dispatches `on_message`."""

    bot: MockBot
    listening: Listening
    memory: Memory
    replying: Replying
    guild: MockGuild
    general: MockTextChannel
    members: dict[str, MockMember] = field(default_factory=dict)

    async def deliver(self, message: MockMessage) -> MockMessage:
        for cog in (self.listening, self.memory, self.replying):
            await cog.on_message(message)
        await self.bot.services.live.drain()
        return message

    def member(self, name: str, **kwargs: object) -> MockMember:
        if name not in self.members:
            values: dict[str, object] = {"name": name, "display_name": name.capitalize(), "guild": self.guild}
            if name in PEOPLE:
                values["id"] = int(PEOPLE[name])
            self.members[name] = MockMember(**{**values, **kwargs})
        return self.members[name]

    async def forget_me_confirmed(self, name: str) -> str:
        """`name` says "forget me" and presses the confirmation; what the bot answers them."""
        member = self.member(name)
        ask = self.message(member, "forget me", to_bot=True)
        await self.deliver(ask)
        view = ask.reply.await_args.kwargs["view"]
        assert isinstance(view, ConfirmForget)
        press = MockInteraction(user=member)
        await view._scheduled_task(view.confirm, press)
        [said] = sent_texts(press.followup.send)
        return str(said)

    def mention(self) -> str:
        return f"<@{self.bot.user.id}>"

    def message(
        self, author: object, content: str, *, channel: object = None, at: datetime = AT, to_bot: bool = False, **kwargs: Any
    ) -> MockMessage:
        """A message; `to_bot` puts the bot's mention in front of the text (and in `mentions`)."""
        if to_bot:
            content = f"{self.mention()} {content}"
            kwargs["mentions"] = [self.bot.user, *kwargs.get("mentions", [])]
        return MockMessage(author=author, content=content, channel=channel or self.general, created_at=at, **kwargs)


def allowed_none(call: unittest.mock._Call) -> bool:
    mentions = call.kwargs.get("allowed_mentions")
    return isinstance(mentions, discord.AllowedMentions) and dict(mentions.to_dict()) == {"parse": []}


def events(caplog: pytest.LogCaptureFixture, name: str) -> list[dict[str, Any]]:
    """The payloads of the `name` events logged."""
    return [r.payload for r in caplog.records if getattr(r, "payload", {}).get("event") == name]  # type: ignore[attr-defined]
