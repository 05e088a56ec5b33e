"""Progress of a long command, by named steps (`start`, `advance`). On a terminal, rich's bars. Otherwise (a
file, a pipe, a service's log) a plain line every `every` seconds while the work goes on, with the time left once
the step's total is known, and one at the end: `talk.json: messages 120,000/200,000 at 2,400/s, about 0:00:33 left
(0:00:50)`. A step's total, when known,
comes with its start."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from datetime import timedelta
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.progress import Progress as Bars
from rich.text import Text


class _Rate(ProgressColumn):
    def render(self, task: Task) -> Text:
        return Text(f"{task.speed:,.1f}/s" if task.speed else "")


@dataclass
class _Step:
    name: str
    total: int | None
    started: float
    done: int = 0


class Progress:
    def __init__(self, console: Console, label: str, *, every: float) -> None:
        self.console, self.label, self.every = console, label, every
        self._steps: dict[str, _Step] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        self._bars: Bars | None = None
        self._ids: dict[str, TaskID] = {}
        self._began = time.monotonic()

    def __enter__(self) -> Progress:
        self._began = time.monotonic()
        if self.console.is_terminal:
            columns = (
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                _Rate(),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
            )
            self._bars = Bars(*columns, console=self.console)
            self._bars.__enter__()
        else:
            self._ticker = threading.Thread(target=self._tick, name="progress-lines", daemon=True)
            self._ticker.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._bars is not None:
            self._bars.__exit__(kind, exc, tb)
            return
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
        if self._steps:
            self._print(final=True)

    def start(self, step: str, total: int | None = None) -> None:
        with self._lock:
            self._steps[step] = _Step(step, total, time.monotonic())
        if self._bars is not None:
            self._ids[step] = self._bars.add_task(f"{self.label}: {step}", total=total)

    def advance(self, step: str, n: int = 1) -> None:
        with self._lock:
            self._steps[step].done += n
        if self._bars is not None:
            self._bars.advance(self._ids[step], n)

    def _tick(self) -> None:
        while not self._stop.wait(self.every):
            self._print(final=False)

    def _print(self, *, final: bool) -> None:
        now = time.monotonic()
        with self._lock:
            steps = list(self._steps.values())
        parts = []
        for step in steps:
            part = f"{step.name} {step.done:,}" + (f"/{step.total:,}" if step.total is not None else "")
            if not final and step is steps[-1] and now > step.started:
                rate = step.done / (now - step.started)
                part += f" at {rate:,.0f}/s"
                if rate and step.total is not None and step.total > step.done:
                    part += f", about {timedelta(seconds=round((step.total - step.done) / rate))} left"
            parts.append(part)
        elapsed = timedelta(seconds=round(now - self._began))
        said = ", ".join(parts) or "started, reading"  # before the first step: its input is being read
        self.console.print(f"{self.label}: {said} ({elapsed})", soft_wrap=True, highlight=False, markup=False)
