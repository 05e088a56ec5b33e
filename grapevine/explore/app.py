"""The explorer's ASGI app: the page, its static files, and a read-only JSON API (GET only).

| GET | answers |
| --- | --- |
| `/` | the page |
| `/static/...` | its script, style sheet and the vendored graph library |
| `/api/guilds` | guilds with their fact counts |
| `/api/style` | the rules of docker/grapevine.grass, in file order |
| `/api/start?guild_id&q` | members, entities, channels whose name contains q; facts matching its words |
| `/api/around?guild_id&label&key&limit` | a node and its neighbours by kind of link (404 once it is gone) |
| `/api/history?guild_id&label&key` | a fact's supersession chain or a member's facts, with change events |
| `/api/bounds?guild_id` | per time axis, the earliest and latest time of the guild's facts (and episodes) |
| `/api/queries` | the operator queries of `grapevine query --list`, with their parameters |
| `/api/queries/{name}?guild_id&...` | one operator query's rows, columns and graph elements |

Every path sits under `/<token>/` (see gate.py). Errors are JSON `{"error": message}`: 400 for bad
parameters or a refused write (the CLI's message), 404 for what the guild does not hold.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from neo4j.exceptions import DriverError, Neo4jError
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from common import bounds, ids
from common.urls import mask_credentials
from grapevine.explore.gate import LOOPBACK_HOSTS, TokenGate
from grapevine.explore.reads import MAX_LIMIT, ExploreReader, describe
from graph.reads.operator import MAX_STRING_CHARS

STATIC = Path(__file__).resolve().parent / "static"
GONE = "not in this guild's graph: deleted, forgotten, or of another guild"
Handler = Callable[[Request], Awaitable[Any]]


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _required(request: Request, name: str) -> str:
    value = request.query_params.get(name, "")
    if not value:
        raise ValueError(f"the parameter {name} is required")
    return value


def _guild(request: Request) -> str:
    return ids.guild_id(_required(request, "guild_id"), "the parameter guild_id")


def _limit(request: Request, default: int) -> int:
    raw = request.query_params.get("limit", "")
    return bounds.count(raw, "the parameter limit", high=MAX_LIMIT) if raw else default


def _bounded(request: Request) -> None:
    """Every parameter within MAX_STRING_CHARS (ids, names, words and dates are far shorter)."""
    for name, value in request.query_params.multi_items():
        if len(value) > MAX_STRING_CHARS:
            raise ValueError(f"the parameter {name} is longer than {MAX_STRING_CHARS} characters ({len(value)})")


def _json(work: Handler) -> Callable[[Request], Awaitable[Response]]:
    """An endpoint whose result is JSON: None is a 404, a bad request a 400, an engine error a 502."""

    async def endpoint(request: Request) -> Response:
        try:
            _bounded(request)
            result = await work(request)
        except KeyError as exc:
            return _error(404, str(exc.args[0]) if exc.args else "not found")
        except (ValueError, OverflowError) as exc:  # also ReadOnlyViolation: the CLI's refusal, word for word
            return _error(400, str(exc))
        except Neo4jError as exc:
            return _error(502, mask_credentials(f"the graph engine refused the read: {exc.message or exc}"))
        except DriverError as exc:
            return _error(502, mask_credentials(f"the graph engine cannot be reached: {exc}"))
        return _error(404, GONE) if result is None else JSONResponse(result)

    return endpoint


def create_app(
    reader: ExploreReader, token: str, *, style: list[dict[str, object]], hosts: frozenset[str] | None = LOOPBACK_HOSTS
) -> Starlette:
    """The app behind its gate; `hosts` None accepts any Host header (listening beyond loopback)."""

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    async def guilds(request: Request) -> Any:
        return await reader.guilds()

    async def style_rules(request: Request) -> Any:
        return style

    async def start(request: Request) -> Any:
        return await reader.start_points(_guild(request), request.query_params.get("q", ""), _limit(request, 25))

    async def around(request: Request) -> Any:
        return await reader.around(_guild(request), _required(request, "label"), _required(request, "key"), _limit(request, 25))

    async def history(request: Request) -> Any:
        return await reader.history(_guild(request), _required(request, "label"), _required(request, "key"), _limit(request, 200))

    async def bounds(request: Request) -> Any:
        return await reader.time_bounds(_guild(request))

    async def operator_list(request: Request) -> Any:
        return [describe(q) for q in reader.operator_queries()]

    async def operator_run(request: Request) -> Any:
        return await reader.run_operator(request.path_params["name"], dict(request.query_params))

    routes = [
        Route("/", page, methods=["GET"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
        *(
            Route(f"/api/{path}", _json(handler), methods=["GET"])
            for path, handler in (
                ("guilds", guilds),
                ("style", style_rules),
                ("start", start),
                ("around", around),
                ("history", history),
                ("bounds", bounds),
                ("queries", operator_list),
                ("queries/{name}", operator_run),
            )
        ),
    ]
    return Starlette(routes=routes, middleware=[Middleware(TokenGate, token=token, hosts=hosts)])
