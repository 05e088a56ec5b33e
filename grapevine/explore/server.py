"""Serving the explorer: a loopback socket, the configured store, uvicorn, a URL with a fresh token.

The socket is bound before the engine starts (a port in use is reported at once), the store is
opened as every grapevine command opens it (`grapevine.runtime.open_store`: the embedded engine
is started unless `grapevine serve-db` already serves it), and Ctrl-C or SIGTERM stop uvicorn
gracefully, then the store and any engine started here.
"""

from __future__ import annotations

import contextlib
import ipaddress
import secrets
import signal
import socket
import threading
from collections.abc import Callable, Iterator

import uvicorn

from common.settings import Settings
from grapevine.explore.app import create_app
from grapevine.explore.gate import LOOPBACK_HOSTS
from grapevine.explore.reads import ExploreReader
from grapevine.explore.style import style_rules
from grapevine.runtime import open_store


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 or localhost; any other name or address reaches beyond this machine."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_host(host: str, allow_remote: bool) -> None:
    """Refuse a non-loopback address unless the operator said so (ValueError says how)."""
    if not is_loopback(host) and not allow_remote:
        raise ValueError(
            f"{host} is not a loopback address: the explorer shows everything the graph holds, "
            "so it listens on 127.0.0.1 only. To listen on another address anyway, add --allow-remote "
            "(anyone who can reach it and has the printed URL can read the graph)."
        )


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (port 0: any free port); OSError when the port is taken."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        raise OSError(f"cannot listen on {host}:{port}: {exc.strerror or exc} (choose another --port, or 0 for any)") from None
    sock.listen(128)
    return sock


def url_of(sock: socket.socket, host: str, token: str) -> str:
    port = sock.getsockname()[1]
    shown = f"[{host.strip('[]')}]" if ":" in host.strip("[]") else host
    return f"http://{shown}:{port}/{token}/"


class _Server(uvicorn.Server):
    """uvicorn's server, except that a signal only stops it: uvicorn re-raises SIGINT/SIGTERM after
    shutting down, which would end the process before the store and the engine are closed."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        originals = {sig: signal.signal(sig, self.handle_exit) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for sig, handler in originals.items():
                signal.signal(sig, handler)


async def serve(
    settings: Settings, host: str, port: int, *, allow_remote: bool = False, on_ready: Callable[[str], None] = print
) -> None:
    """Serve the explorer until a signal stops it; `on_ready` gets the URL once it answers."""
    check_host(host, allow_remote)
    style = style_rules()  # before anything starts: a missing or misread style file stops here
    sock = bind(host, port)
    token = secrets.token_urlsafe(24)
    try:
        async with open_store(settings, shared=True) as rt:
            reader = ExploreReader(await rt.reader())  # every read of the explorer runs as a read-only user
            hosts = None if allow_remote else LOOPBACK_HOSTS | {host.lower()}
            app = create_app(reader, token, style=style, hosts=hosts)
            server = _Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off"))
            on_ready(url_of(sock, host, token))  # the socket listens already: early requests wait in its backlog
            await server.serve(sockets=[sock])
    finally:
        sock.close()
