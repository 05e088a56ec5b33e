"""Loopback ports for test servers, and whether a Docker engine answers (for the Neo4j 5 container)."""

from __future__ import annotations

import os
import secrets
import socket

# Below Linux's ephemeral range (32768-60999): no outgoing connection is given one of these ports between the
# moment a port is chosen here and the moment its server binds it.
LOW, HIGH = 20000, 32768
_handed: set[int] = set()


def _span() -> range:
    """This process's share of the ports: under pytest-xdist each worker draws from its own slice, so two
    workers never choose the same port before either has bound it."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    index = int(worker[2:]) if worker.startswith("gw") and worker[2:].isdigit() else 0
    size = (HIGH - LOW) // max(count, 1)
    start = LOW + (index % max(count, 1)) * size
    return range(start, start + size)


def free_port() -> int:
    """A loopback port nobody listens on, never handed out twice by this process (a server may still be starting
    on an earlier one). The first try is random (not the `random` module, which a test may have seeded), so
    test runs side by side on one machine rarely try the same ports."""
    span = _span()
    first = secrets.randbelow(len(span))
    for i in range(len(span)):
        port = span[(first + i) % len(span)]
        if port in _handed:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        _handed.add(port)
        return port
    raise RuntimeError(f"no free loopback port in {span.start}-{span.stop - 1}")


def docker_missing() -> str | None:
    """Why no Neo4j 5 container can be started here (no Docker engine answers), or None."""
    try:
        import docker

        docker.from_env().ping()
    except Exception as exc:  # noqa: BLE001 - any failure means no usable engine
        return f"no Docker engine for the Neo4j 5 container (testcontainers): {type(exc).__name__}: {str(exc)[:160]}"
    return None
