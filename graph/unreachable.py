"""When the graph engine itself cannot be reached, or refuses us: not one statement failing. Work that meets it
stops and waits (a window stays pending, a Discord change stays on disk) and a reply is answered without memory;
it is never counted as that work's own failure."""

from __future__ import annotations

from neo4j.exceptions import AuthError, DatabaseUnavailable, ServiceUnavailable, SessionExpired

# OSError: a connection refused or reset before the driver names it
UNREACHABLE = (ServiceUnavailable, SessionExpired, DatabaseUnavailable, AuthError, OSError)


def unreachable(exc: BaseException) -> bool:
    return isinstance(exc, UNREACHABLE)
