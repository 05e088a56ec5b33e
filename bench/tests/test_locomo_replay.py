"""bench.locomo's replay: saved reads assembled again give what the run's assembly gave."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from bench.locomo import context_settings, replayed
from bench.locomo_replay import SavedRead, found_in, load, replay, save
from graph.models import FactView, MessageView
from recall.assemble import Gathered, assemble

AT = datetime(2024, 5, 3, 18, 0, tzinfo=UTC)


def saved_read() -> SavedRead:
    fact = FactView("f1", "Eve paints landscapes", "other", 5, 0.9, AT, reporters=(("u1", "Eve", AT),))
    turn = MessageView("m2", "c1", "u1", "Eve", False, "I swim on Sundays", AT)
    gathered = Gathered("asker", "Observer", related=[[fact]], query="what does Eve paint and when does she swim?",
                        recalled=[turn])  # fmt: skip
    return SavedRead(1, ["D1:1", "D1:2", "D1:3"], gathered, {"f1": {"m1"}}, {"m1": "D1:1", "m2": "D1:2"})


def test_saved_reads_replay_as_the_assembly_found_them(tmp_path: Path) -> None:
    read = saved_read()
    path = tmp_path / "reads.pickle"
    save(path, [read])
    again = load(path)
    assert again[0].gathered == read.gathered
    ctx = assemble(read.gathered, context_settings(1000))
    assert found_in(ctx, read.sources, read.dia_of) == {"D1:1", "D1:2"}  # the fact by its source, the turn itself
    recalls = replay(again, [1000], {1000: context_settings(1000)})
    assert recalls[(1000, 1)] == recalls[(1000, 0)] == [pytest.approx(2 / 3)]
    assert replayed(path, [1000]) == 0


def test_a_file_of_anything_else_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.pickle"
    path.write_bytes(__import__("pickle").dumps({"not": "reads"}))
    with pytest.raises(ValueError, match="not reads saved"):
        load(path)
