"""ArcadeDB aborts a statement once its regular expressions have run for `arcadedb.command.regexTimeout` in all
(1 s by default, one deadline for the whole statement). The reply reads match a channel's recent messages with
whole-word regexes (context/conversation.cypher), so on a loaded machine a reply's context failed with
TransactionTimedOut. The patterns are escaped word lists (no runaway backtracking): the engine is started
with a bound far above what a read needs (graph/engines/arcadedb_child.py)."""

from __future__ import annotations

import time

from graph.reads.context import search_patterns
from graph.store import GraphStore
from tests.support.scripted import cypher

ROWS = 4_000_000


async def test_a_statement_whose_regexes_run_past_a_second_still_answers(store: GraphStore) -> None:
    words = ["garden", "club", "thursday", "meets", "pottery", "anyone", "tonight", "match"]
    pattern = search_patterns(words, rarity=True)["pattern"]  # as the reply's recalled search writes it
    started = time.perf_counter()
    [row] = await cypher(
        store,
        "UNWIND range(1, $rows) AS i WITH i WHERE ('we talked about the weather, note ' + toString(i)) =~ $pattern "
        "OR i % 1000 = 0 RETURN count(i) AS matched",
        rows=ROWS,
        pattern=pattern,
    )
    assert row["matched"] == ROWS // 1000
    assert time.perf_counter() - started > 1.0, "the regexes ran for less than the default bound: nothing shown"
