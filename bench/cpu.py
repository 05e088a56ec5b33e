"""CPU time per operation, which a loaded machine does not inflate the way it inflates wall-clock time: the
engine's process (the embedded ArcadeDB's JVM runs inside its child process) from /proc, and this process's own."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def process_cpu_s(pid: int | None) -> float | None:
    """utime + stime of process `pid` in seconds (None without one, or when /proc cannot say)."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / _TICKS


@dataclass(frozen=True)
class CpuPerOp:
    """Milliseconds of CPU per operation: the engine's process (None when it is not a local child) and this one's."""

    engine_ms: float | None
    client_ms: float

    @property
    def total_ms(self) -> float | None:
        return None if self.engine_ms is None else self.engine_ms + self.client_ms

    def text(self) -> str:
        if self.engine_ms is None:
            return f"client {self.client_ms:.1f} ms (engine not measured)"
        return f"{self.total_ms:.1f} ms (engine {self.engine_ms:.1f} + client {self.client_ms:.1f})"


class CpuClock:
    """Started at construction; `per_op(n)` is the CPU spent since, per operation."""

    def __init__(self, engine_pid: int | None) -> None:
        self.pid = engine_pid
        self.engine = process_cpu_s(engine_pid)
        self.client = time.process_time()

    def per_op(self, ops: int) -> CpuPerOp:
        n = max(1, ops)
        engine_now = process_cpu_s(self.pid)
        engine = None if self.engine is None or engine_now is None else (engine_now - self.engine) * 1000 / n
        return CpuPerOp(engine, (time.process_time() - self.client) * 1000 / n)
