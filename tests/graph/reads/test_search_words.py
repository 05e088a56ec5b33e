"""A user's words reach a full-text index only escaped (common.text.lucene_escaped): any text given as an
operator query's `words` parameter (MCP's `run_query who_knows topic=...`, `grapevine query`) or to who-knows and
the explorer's search runs without an engine error and matches as words, never as query syntax."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from common.text import lucene_all, lucene_escaped, lucene_query
from graph.reads.operator import coerce_params, get_query, run_operator_query
from graph.store import GraphStore

GUILDS = itertools.count(1)
SHARED = "700000000000000001"
REPORTER = "710000000000000001"
CONTROL = "xylophone quartet"  # a fact no generated text is about


async def _plant(store: GraphStore, guild_id: str, texts: list[str]) -> None:
    await store.driver.execute_query(
        "MERGE (u:User {id: $u}) SET u.name = 'reporter' "
        "MERGE (c:Channel {id: $c}) SET c.guild_id = $g, c.mode = 'shared' "
        "WITH u UNWIND range(0, size($texts) - 1) AS i "
        "CREATE (f:Fact {uuid: $g + '-' + toString(i), guild_id: $g, guild_term: 'g' + $g, text: $texts[i], audience: [$c]}) "
        "CREATE (f)-[:REPORTED_BY {message_id: '', at: datetime('2024-01-01T00:00:00Z')}]->(u)",
        {"u": REPORTER, "c": SHARED, "g": guild_id, "texts": texts},
        database_=store.engine.database,
    )


@pytest.mark.parametrize(
    ("word", "escaped"),
    [("c++", "c\\+\\+"), ("title:x", "title\\:x"), ("AND", "\\AND"), ("a\\b", "a\\\\b"), ("(x)", "\\(x\\)"), ("*", "\\*")],
)
def test_every_character_of_the_syntax_is_escaped(word: str, escaped: str) -> None:
    assert lucene_escaped(word) == escaped


def test_the_words_of_a_question_make_groups_of_escaped_terms() -> None:
    assert lucene_all("who is Bob's title:move?") == "(Bob's OR bob) AND (title\\:move\\? OR title OR move)"
    assert lucene_query("c++ AND (x)") == "" and lucene_all("the, a?") == ""


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(min_size=1, max_size=40))
@example(text="server) OR guild_term:(g1")
@example(text='kubernetes AND "helm')
@example(text="what? NOT berlin*")
@example(text="ab.cd/ef~2 [x TO y]")
@example(text="\r")
async def test_any_text_as_a_topic_runs_and_matches_literally(store: GraphStore, text: str) -> None:
    guild = f"80000000000{next(GUILDS):07d}"
    query = get_query("who_knows")
    if not lucene_all(text):
        # only blanks: no topic given at all; other text with no word: nothing to search for
        with pytest.raises(ValueError, match="is required" if not text.strip() else "no word to search for"):
            coerce_params(query, {"guild_id": guild, "topic": text, "channel_id": ""})
        return
    await _plant(store, guild, [f"said: {text} (end)", CONTROL])
    values = coerce_params(query, {"guild_id": guild, "topic": text, "channel_id": ""})
    rows = await run_operator_query(store, query, values)
    found = {r["ref"] for r in rows if r["kind"] == "fact"}
    assert f"{guild}-0" in found, (text, values["topic"], rows)
    assert f"{guild}-1" not in found or any(w in text.casefold() for w in CONTROL.split()), (text, values["topic"])
