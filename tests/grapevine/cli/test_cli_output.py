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


LINK = "https://discord.com/channels/833055463833731073/833055715491971076/1236016300032131090"


@pytest.mark.parametrize("width", [80, 120, 200])
def test_ids_and_links_are_never_wrapped_mid_number(monkeypatch: pytest.MonkeyPatch, width: int) -> None:
    buffer = io.StringIO()
    monkeypatch.setattr(base, "out", Console(file=buffer, width=width, color_system=None))  # a pipe, or a terminal
    rows = [
        {"id": "602779366195331079", "text": "Bob has moved to Munich, where he works at a climbing gym " * 2, "link": LINK},
        {"id": "411521620377731078", "text": "Alice", "link": LINK},
    ]
    base.print_rows(rows, "2 rows", as_json=False)
    lines = buffer.getvalue().splitlines()
    for whole in ("602779366195331079", "411521620377731078", LINK):
        assert any(whole in line for line in lines), (whole, buffer.getvalue())
    table = any(line.startswith("┏") for line in lines)
    assert table == (width == 200), buffer.getvalue()  # a table where the link fits, else one record at a time
    assert not table or all(len(line) <= width for line in lines), buffer.getvalue()


def test_a_short_id_column_stays_a_table_at_80_columns(screen: io.StringIO) -> None:
    base.print_rows([{"id": "602779366195331079", "text": "a fact " * 20}], "1 row", as_json=False)
    said = screen.getvalue()
    assert "│ 602779366195331079 │" in said and all(len(line) <= 80 for line in said.splitlines()), said
