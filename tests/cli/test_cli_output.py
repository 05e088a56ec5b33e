"""What operator commands print: nothing found says so in a line; wide rows stay readable when the
terminal is narrow (operator query tables once wrapped into 6-character columns at 80 columns)."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from grapevine.cli import base


@pytest.fixture
def screen(monkeypatch: pytest.MonkeyPatch) -> io.StringIO:
    buffer = io.StringIO()
    monkeypatch.setattr(base, "out", Console(file=buffer, width=80, color_system=None))
    return buffer


def test_no_rows_is_one_line(screen: io.StringIO) -> None:
    base.print_rows([], "0 facts", as_json=False)
    assert screen.getvalue() == "0 facts: nothing found\n"


def test_many_columns_on_a_narrow_terminal_print_one_record_at_a_time(screen: io.StringIO) -> None:
    row = {f"column_{i}": f"a value that is long enough {i}" for i in range(8)}
    base.print_rows([row, row], "2 rows", as_json=False)
    lines = screen.getvalue().splitlines()
    assert "column_7  a value that is long enough 7" in lines
    assert all(len(line) <= 80 for line in lines)


def test_few_columns_stay_a_table(screen: io.StringIO) -> None:
    base.print_rows([{"status": "failed", "key": "k1"}], "1 row", as_json=False)
    assert "│ failed │ k1  │" in screen.getvalue()
