"""Test doubles for discord.py objects, after python-discord's tests/helpers.py: each mock takes its
`spec_set` from a real discord.py instance, so code under test cannot touch what the real object lacks,
and its coroutine methods are AsyncMocks."""

from __future__ import annotations

import collections
import itertools
import unittest.mock
import warnings
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, cast

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import GrapevineBot
from bot.services import Services

if TYPE_CHECKING:  # payload types only: importing discord.types first at run time is circular
    from discord.types import channel as channel_types
    from discord.types import guild as guild_types
    from discord.types import member as member_types
    from discord.types import message as message_types
    from discord.types import role as role_types
    from discord.types import threads as thread_types
    from discord.types import user as user_types
    from discord.types.gateway import MessageUpdateEvent

_ids = itertools.count(900000000000000000)
_state = unittest.mock.MagicMock()
_USER: user_types.User = {"id": 1, "username": "user", "discriminator": "0", "avatar": None, "global_name": None}


if TYPE_CHECKING:  # the mixin is always combined with MagicMock, whose attributes it uses
    _MockBase = unittest.mock.MagicMock
else:
    _MockBase = object


class CustomMockMixin(_MockBase):
    """spec_set from a real object; coroutine methods (and `additional_spec_asyncs`) become AsyncMocks."""

    child_mock_type = unittest.mock.MagicMock
    spec_set: Any = None
    additional_spec_asyncs: tuple[str, ...] = ()

    def __init__(self, **kwargs: Any) -> None:
        name = kwargs.pop("name", None)  # `name` means something else to Mock
        super().__init__(spec_set=self.spec_set, **kwargs)
        self._spec_asyncs.extend(self.additional_spec_asyncs)
        if name is not None:
            self.name = name

    def _get_child_mock(self, **kw: Any) -> unittest.mock.Mock:
        if kw.get("_new_name") in self.__dict__["_spec_asyncs"]:
            return unittest.mock.AsyncMock(**kw)
        if self._mock_sealed:
            raise AttributeError(self._extract_mock_name() + "." + kw.get("name", "()"))
        return self.child_mock_type(**kw)


class HashableMixin(discord.mixins.EqualityComparable):
    def __hash__(self) -> int:
        return self.id


# The specs come from instances built of partial payloads (the few fields the mocks need): discord.py reads a missing
# field as absent, so each payload is cast to its type rather than filled with values no test reads.
guild_instance = discord.Guild(data=cast("guild_types.Guild", {"id": 1, "name": "guild", "owner_id": 1}), state=_state)
role_instance = discord.Role(guild=guild_instance, state=_state, data=cast("role_types.Role", {"id": 1, "name": "role"}))
member_instance = discord.Member(
    data=cast("member_types.MemberWithUser", {"user": _USER, "roles": [], "flags": 0, "joined_at": None}),
    guild=guild_instance,
    state=_state,
)
user_instance = discord.User(state=_state, data=_USER)
client_user_instance = discord.ClientUser(state=_state, data={**_USER, "bot": True})
text_channel_instance = discord.TextChannel(
    state=_state,
    guild=guild_instance,
    data=cast("channel_types.TextChannel", {"id": 1, "type": 0, "name": "channel", "position": 1, "parent_id": None}),
)
forum_channel_instance = discord.ForumChannel(
    state=_state,
    guild=guild_instance,
    data=cast("channel_types.ForumChannel", {"id": 1, "type": 15, "name": "forum", "position": 1, "parent_id": None}),
)
guild_instance._add_channel(text_channel_instance)  # a thread's spec reads its parent (`category`)
thread_instance = discord.Thread(
    guild=guild_instance,
    state=_state,
    data=cast(
        "thread_types.Thread",
        {
            "id": 1,
            "type": 11,
            "name": "thread",
            "parent_id": 1,
            "owner_id": 1,
            "message_count": 0,
            "member_count": 0,
            "rate_limit_per_user": 0,
            "thread_metadata": {
                "archived": False,
                "auto_archive_duration": 60,
                "archive_timestamp": "2024-01-01T00:00:00+00:00",
                "locked": False,
            },
        },
    ),
)
dm_channel_instance = discord.DMChannel(
    me=client_user_instance, state=_state, data=cast("channel_types.DMChannel", {"id": 1, "recipients": [], "type": 1})
)
message_instance = discord.Message(
    state=_state,
    channel=unittest.mock.MagicMock(),
    data=cast(
        "message_types.Message",
        {
            "id": 1,
            "attachments": [],
            "embeds": [],
            "edited_timestamp": None,
            "type": 0,
            "pinned": False,
            "mention_everyone": False,
            "tts": False,
            "content": "content",
            "author": _USER,
            "mentions": [],
            "mention_roles": [],
            "timestamp": "2024-01-01T00:00:00+00:00",
        },
    ),
)
bot_instance = GrapevineBot(services=cast("Services", None), sync_commands=False)  # a spec: it never runs


def _defaults(kwargs: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
    return dict(collections.ChainMap(kwargs, defaults))


class MockGuild(CustomMockMixin, unittest.mock.Mock, HashableMixin):
    spec_set = guild_instance

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**_defaults(kwargs, {"id": next(_ids), "name": "guild", "members": [], "roles": []}))


class MockRole(CustomMockMixin, unittest.mock.Mock, HashableMixin):
    spec_set = role_instance

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**_defaults(kwargs, {"id": next(_ids), "name": "role", "position": 1}))


def _person(kwargs: dict[str, Any], bot: bool = False) -> dict[str, Any]:
    values = _defaults(kwargs, {"id": next(_ids), "name": "member", "bot": bot})
    values.setdefault("display_name", values["name"])
    values.setdefault("global_name", None)
    values.setdefault("mention", f"<@{values['id']}>")
    return values


class MockMember(CustomMockMixin, unittest.mock.Mock, HashableMixin):
    spec_set = member_instance

    def __init__(self, **kwargs: Any) -> None:
        values = _person(kwargs)
        values.setdefault("guild_permissions", discord.Permissions.none())
        values.setdefault("roles", [])
        super().__init__(**values)


class MockUser(CustomMockMixin, unittest.mock.Mock, HashableMixin):
    spec_set = user_instance

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**_person(kwargs))


class MockClientUser(CustomMockMixin, unittest.mock.Mock, HashableMixin):
    """The bot's own account (`bot.user`)."""

    spec_set = client_user_instance

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**_person(_defaults(kwargs, {"name": "grapevine"}), bot=True))


class MockTextChannel(CustomMockMixin, unittest.mock.Mock, HashableMixin):
    spec_set = text_channel_instance

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**_defaults(kwargs, {"id": next(_ids), "name": "channel", "guild": MockGuild()}))


class MockForumChannel(CustomMockMixin, unittest.mock.Mock, HashableMixin):
    spec_set = forum_channel_instance

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**_defaults(kwargs, {"id": next(_ids), "name": "forum", "guild": MockGuild()}))


class MockThread(CustomMockMixin, unittest.mock.Mock, HashableMixin):
    spec_set = thread_instance

    def __init__(self, **kwargs: Any) -> None:
        values = _defaults(kwargs, {"id": next(_ids), "name": "thread"})
        parent = values.pop("parent", None) or MockTextChannel()  # `parent=` means something else to Mock
        values.setdefault("parent_id", parent.id)
        values.setdefault("guild", parent.guild)
        super().__init__(**values)
        self.parent = parent


class MockDMChannel(CustomMockMixin, unittest.mock.Mock, HashableMixin):
    spec_set = dm_channel_instance

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**_defaults(kwargs, {"id": next(_ids), "recipient": None}))


class MockMessage(CustomMockMixin, unittest.mock.MagicMock):
    spec_set = message_instance

    def __init__(self, **kwargs: Any) -> None:
        channel = kwargs.setdefault("channel", MockTextChannel())
        # Reading the spec touches the deprecated `Message.interaction`, whose decorator forces its warning
        # through every filter: record it here, and drop it.
        with warnings.catch_warnings(record=True):
            self._init(kwargs, channel)

    def _init(self, kwargs: dict[str, Any], channel: Any) -> None:
        super().__init__(
            **_defaults(
                kwargs,
                {
                    "id": next(_ids),
                    "content": "",
                    "author": MockMember(),
                    "attachments": [],
                    "stickers": [],
                    "mentions": [],
                    "role_mentions": [],
                    "reference": None,
                    "type": discord.MessageType.default,
                    "guild": None if isinstance(channel, MockDMChannel) else channel.guild,
                    "created_at": datetime.now(UTC),
                    "edited_at": None,
                    "mention_everyone": False,
                },
            )
        )


def reply_to(message: MockMessage) -> discord.MessageReference:
    """A real reference to `message`, resolved as the gateway delivers it."""
    ref = discord.MessageReference(
        message_id=message.id, channel_id=message.channel.id, guild_id=message.guild.id if message.guild else None
    )
    ref.resolved = message
    return ref


class MockBot(CustomMockMixin, unittest.mock.MagicMock):
    """The bot: spec from a real GrapevineBot; `services`, `user` and the text-command registry are real."""

    spec_set = bot_instance
    additional_spec_asyncs = ("wait_for", "wait_until_ready")

    def __init__(self, services: Any = None, user: MockClientUser | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.services = services
        self.user = user or MockClientUser()
        self.text_commands: list[Callable[[str], bool]] = []
        self.claimed.side_effect = lambda text: GrapevineBot.claimed(self, text)
        self.traceless_commands: list[Callable[[str], bool]] = []
        self.traceless.side_effect = lambda text: GrapevineBot.traceless(self, text)
        self.get_user.return_value = None


class MockInteractionResponse(CustomMockMixin, unittest.mock.MagicMock):
    spec_set = discord.InteractionResponse

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.is_done.return_value = False


class MockWebhook(CustomMockMixin, unittest.mock.MagicMock):
    spec_set = discord.Webhook


class MockInteraction(CustomMockMixin, unittest.mock.MagicMock):
    """A component or slash-command interaction (spec from the class: its slots are filled per test)."""

    spec_set = discord.Interaction

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(
            **_defaults(
                kwargs,
                {
                    "id": next(_ids),
                    "user": MockMember(),
                    "guild": None,
                    "data": {},
                    "created_at": datetime.now(UTC),
                },
            )
        )
        self.response = MockInteractionResponse()
        self.followup = MockWebhook()


async def invoke(command: app_commands.Command[Any, ..., Any], cog: commands.Cog, /, *args: Any, **kwargs: Any) -> None:
    """A cog's slash command called as discord.py dispatches it: its callback, with the cog first."""
    callback: Callable[..., Awaitable[object]] = command.callback
    await callback(cog, *args, **kwargs)


def sent_texts(mock_send: unittest.mock.AsyncMock) -> list[str]:
    """The text of every call of a reply/send/followup mock ("" for a call that sends no text, a file alone)."""
    return [str(call.args[0]) if call.args else str(call.kwargs.get("content") or "") for call in mock_send.await_args_list]


def raw_edit(message: discord.Message) -> discord.RawMessageUpdateEvent:
    """The gateway's edit event for `message`, the message cached (its payload is then not read)."""
    return discord.RawMessageUpdateEvent(data=cast("MessageUpdateEvent", {}), message=message)


def http_error(cls: type[discord.HTTPException], status: int, code: int, message: str) -> discord.HTTPException:
    """An error as discord.py raises it from an HTTP response (`status`, Discord's JSON error `code`)."""
    response = unittest.mock.MagicMock(status=status, reason=message)
    return cls(response, {"code": code, "message": message})


def dms_closed() -> discord.HTTPException:
    """What `User.send` raises when the member does not accept DMs from the bot: 403, code 50007."""
    return http_error(discord.Forbidden, 403, 50007, "Cannot send messages to this user")


class DMInbox:
    """A member's DMs with the bot: `user.send` checks its arguments as discord.py 2.7 and Discord do (not
    `file` with `files`, at most 10 files, each within the upload limit, a discord.File each) and keeps
    what was sent: texts, and each file's name and bytes."""

    def __init__(self, user: Any, limit_bytes: int = discord.utils.DEFAULT_FILE_SIZE_LIMIT_BYTES) -> None:
        self.limit_bytes = limit_bytes
        self.texts: list[str | None] = []
        self.files: list[tuple[str, bytes]] = []
        user.send.side_effect = self._send

    async def _send(self, content: str | None = None, **kwargs: Any) -> MockMessage:
        file, files = kwargs.get("file"), kwargs.get("files")
        if file is not None and files is not None:
            raise TypeError("Cannot mix file and files keyword arguments.")
        sent = [file] if file is not None else list(files or [])
        if len(sent) > 10:
            raise http_error(discord.HTTPException, 400, 50035, "Invalid Form Body: files has at most 10 elements")
        received = []
        for f in sent:
            if not isinstance(f, discord.File):
                raise TypeError(f"file parameter must be File not {f.__class__.__name__}")
            data = f.fp.read()
            if len(data) > self.limit_bytes:
                raise http_error(discord.HTTPException, 413, 40005, "Request entity too large")
            received.append((f.filename or "untitled", data))
            f.close()  # discord.py closes what it sent
        self.texts.append(content)
        self.files.extend(received)
        return MockMessage(content=content or "", channel=MockDMChannel())
