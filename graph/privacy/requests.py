"""The file of forgets that must finish, whoever asked (a member's forget-me, a moderator's, `grapevine forget`): each request
is written to `<data dir>/unfinished_forgets.jsonl` (fsynced) before the graph is touched, and leaves it only once
the thorough residue audit is clean (the purge of the engine's files is held by the graph's own mark, written in
the forget's transaction: graph/privacy/purge.py). A forget that failed part-way, was killed, or left residue stays there; the next run of the same request, or the bot's next upkeep pass, runs it again until it is
clean. The line holds what the forget needs once the account is gone: the member's id, the names Discord gave,
and where each of their names stands for them (graph/privacy/guards/name_scope.py); it goes with the request."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from common.durable_lines import DurableLines
from graph.privacy.guards.name_scope import NameScope

FILE_NAME = "unfinished_forgets.jsonl"


@dataclass(frozen=True)
class Request:
    user_id: str
    guild_id: str | None  # None: everywhere, their DMs too (their own forget-me); else a moderator's, in one guild
    names: tuple[str, ...] = ()
    scope: NameScope | None = None

    @property
    def key(self) -> tuple[str, str | None]:
        return (self.user_id, self.guild_id)

    def to_json(self) -> dict[str, Any]:
        line: dict[str, Any] = {"user_id": self.user_id, "guild_id": self.guild_id, "names": list(self.names)}
        if self.scope is not None:
            line["scope"] = self.scope.to_json()
        return line

    @classmethod
    def from_json(cls, line: dict[str, Any]) -> Request:
        user_id = str(line["user_id"])
        guild_id = line.get("guild_id")
        names = tuple(str(n) for n in line.get("names") or ())
        return cls(
            user_id, str(guild_id) if guild_id is not None else None, names, NameScope.from_json(user_id, line.get("scope"))
        )

    def merged(self, other: Request | None) -> Request:
        if other is None:
            return self
        scope = self.scope.merged(other.scope) if self.scope is not None else other.scope
        return Request(self.user_id, self.guild_id, tuple(sorted({*self.names, *other.names})), scope)


class Requests:
    """The requests kept in one data directory."""

    def __init__(self, data_dir: Path) -> None:
        self.path = Path(data_dir) / FILE_NAME
        self._lines = DurableLines(self.path)

    def waiting(self) -> list[Request]:
        return [Request.from_json(r) for r in self._lines.load() if isinstance(r, dict) and r.get("user_id")]

    def find(self, key: tuple[str, str | None]) -> Request | None:
        return next((r for r in self.waiting() if r.key == key), None)

    def record(self, request: Request) -> Request:
        """Durably note the request (once per member and scope, merged with one already kept); returns what is kept."""
        kept = self.find(request.key)
        if kept is None:
            self._lines.add(request.to_json())
            return request
        merged = request.merged(kept)
        if merged != kept:
            self._keep([*(r for r in self.waiting() if r.key != request.key), merged])
        return merged

    def done(self, request: Request) -> None:
        self._keep([r for r in self.waiting() if r.key != request.key])

    def _keep(self, requests: list[Request]) -> None:
        self._lines.keep([r.to_json() for r in requests])
