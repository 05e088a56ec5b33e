"""Opt-outs enforced where data is written: each write of users, messages or an extraction result reads
the opt-out records in its own transaction, so an opt-out (or a forget) by any process holds at once in
every other, whatever that process has cached."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from common.text import MENTION
from graph.models import EpisodeWrite, FactWrite, Message, NodeRef, User, dm_scope
from graph.session import Tx, run

HIDDEN_MENTION = "@someone"  # as the extraction prompt shows a hidden member's mention


async def opted_out(tx: Tx, consent_key: Callable[[str], str], user_ids: Iterable[str]) -> set[str]:
    """The ids among `user_ids` whose owner opted out (or was forgotten)."""
    keys = {consent_key(i): i for i in set(user_ids) if i}
    if not keys:
        return set()
    return {keys[r["key"]] for r in await run(tx, "store/opted_out_among", keys=sorted(keys))}


def dm_owner(guild_id: str) -> str | None:
    """Whose DM space a guild id is (graph/models.py dm_scope), or None for a guild."""
    return guild_id.removeprefix(dm_scope("")) if guild_id.startswith(dm_scope("")) else None


def mentioned(messages: Iterable[Message]) -> set[str]:
    """The members messages involve besides their authors: those they mention, and the owner of the DM space
    they are in (the bot's replies there are theirs too)."""
    owners = {o for msg in messages if (o := dm_owner(msg.guild_id))}
    return {m for msg in messages for m in MENTION.findall(msg.content)} | owners


def masked(content: str, out: set[str]) -> str:
    """`content` with the `<@id>` mentions of opted-out members masked."""
    return MENTION.sub(lambda m: HIDDEN_MENTION if m.group(1) in out else m.group(0), content)


def allowed_messages(messages: list[Message], out: set[str]) -> list[Message]:
    """Messages of members who did not opt out, outside the DM spaces of those who did, with opted-out members'
    `<@id>` mentions masked."""
    kept = []
    for message in messages:
        if message.author_id in out or dm_owner(message.guild_id) in out:
            continue
        masked_ = masked(message.content, out)
        kept.append(message if masked_ == message.content else message.model_copy(update={"content": masked_}))
    return kept


def allowed_users(users: list[User], out: set[str]) -> list[User]:
    return [u for u in users if u.id not in out]


def _user_ids(refs: Iterable[NodeRef]) -> set[str]:
    return {r.id for r in refs if r.kind == "user"}


def episode_users(body: EpisodeWrite) -> set[str]:
    ids = {r.user_id for f in body.facts for r in f.reports} | {c.report.user_id for c in body.corroborations}
    ids |= {i for f in body.facts for i in _user_ids((*f.about, *f.mentions))}
    return ids | _user_ids(r.target for r in body.relations)


def allowed_episode(body: EpisodeWrite, out: set[str]) -> EpisodeWrite:
    """An extraction result without the facts, relations and corroborations that involve an opted-out member."""
    if not out:
        return body

    def clear(fact: FactWrite) -> bool:
        refs = _user_ids((*fact.about, *fact.mentions)) | {r.user_id for r in fact.reports}
        return not refs & out

    return body.model_copy(
        update={
            "facts": tuple(f for f in body.facts if clear(f)),
            "relations": tuple(r for r in body.relations if not _user_ids([r.target]) & out),
            "corroborations": tuple(c for c in body.corroborations if c.report.user_id not in out),
        }
    )
