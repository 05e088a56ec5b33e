"""Every statement that reads for a channel filters the one way graph/privacy/guards/scope.py describes: the same `visible`
channels, facts kept by their stored audience, never by a walk to their source messages (which retention, deletes
and forgets remove), and the facts on the other side of a supersession by theirs."""

from __future__ import annotations

import re

import queries
from graph.privacy.guards.scope import FILTER, VISIBLE


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//")))


SCOPED = {path.relative_to(queries.ROOT).with_suffix("").as_posix(): _flat(path.read_text()) for path in queries.all_files()
          if "AS visible" in path.read_text()}  # fmt: skip


def test_the_scoped_reads_are_the_ones_expected() -> None:
    assert set(SCOPED) == {
        "context/conversation",
        "context/facts",
        "context/second_round",
        "operator/topic_timeline",
        "operator/who_knows",
        "store/facts_about",
        "store/forgettable_facts",
        "store/nearest_facts",
    }


def test_every_scoped_read_computes_visible_the_same_way() -> None:
    for name, text in SCOPED.items():
        assert _flat(VISIBLE) in text, name


def test_facts_are_kept_by_their_audience_not_by_their_sources() -> None:
    for name, text in SCOPED.items():
        if ":Fact" not in text:
            continue
        assert FILTER in text, name
        assert "size(sources) = 0" not in text and "EXISTS { MATCH (f)-[:FROM]" not in text, name
        for other in re.findall(r"\((\w+):Fact\)", text):
            if other != "f" and re.search(rf"\b{other}\.text\b|\b{other}\.uuid\b", text):
                assert f"any(a IN {other}.audience WHERE a IN visible)" in text, (name, other)
