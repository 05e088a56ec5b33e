"""Test servers' ports (tests/support/ports.py) when the suite runs on several pytest-xdist workers: a port is
chosen before its server binds it, so neither another worker nor this one may choose it again meanwhile."""

from __future__ import annotations

import socket

import pytest

from tests.support import ports


def test_a_process_never_hands_out_a_port_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ports, "_handed", set())
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "64")  # a slice of 199 ports: repeats would show
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw3")
    chosen = [ports.free_port() for _ in range(150)]
    assert len(set(chosen)) == len(chosen)


def test_workers_choose_from_disjoint_slices_below_the_ephemeral_range(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "2")
    slices = []
    for worker in ("gw0", "gw1"):
        monkeypatch.setenv("PYTEST_XDIST_WORKER", worker)
        slices.append(set(ports._span()))
        assert ports.free_port() in slices[-1]
    assert slices[0] and slices[1] and not slices[0] & slices[1]
    assert max(slices[0] | slices[1]) < 32768


def test_a_port_taken_by_a_listener_is_passed_over(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "6384")  # a slice of two ports
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw100")
    monkeypatch.setattr(ports, "_handed", set())
    a, b = ports._span()
    with socket.socket() as held:
        try:
            held.bind(("127.0.0.1", a))
        except OSError:
            pytest.skip(f"port {a} is in use on this machine")
        held.listen()
        assert ports.free_port() == b
        with pytest.raises(RuntimeError, match="no free loopback port"):
            ports.free_port()
