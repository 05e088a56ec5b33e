"""Loopback ports for test servers, and whether a Docker engine answers (for the Neo4j 5 container)."""

from __future__ import annotations

import socket


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def docker_missing() -> str | None:
    """Why no Neo4j 5 container can be started here (no Docker engine answers), or None."""
    try:
        import docker

        docker.from_env().ping()
    except Exception as exc:  # noqa: BLE001 - any failure means no usable engine
        return f"no Docker engine for the Neo4j 5 container (testcontainers): {type(exc).__name__}: {str(exc)[:160]}"
    return None
