"""An answer whose refs do not resolve lost its window for good (written `done` with no
fact, never retried) and wrote every entity it declared, used or not."""

from __future__ import annotations

from ingest.ingestor import BacklogResult
from tests.ingest.test_ingestor_recovery import GUILD, PLANT, Setup, episode_rows, setup, srv  # noqa: F401 - fixtures
from tests.support.scripted import answer, fact


# --- an answer none of whose facts resolve: failed with the reason and retried, no orphan entity -----------------
async def test_an_answer_whose_refs_resolve_to_nothing_fails_the_window_and_writes_no_entity(setup: Setup) -> None:
    """Such a window was written `done` with 0 facts (never retried) and every entity
    the answer declared was written anyway, with no fact using it."""
    from tests.support.scripted import entity, entity_names

    ingestor = setup.ingestor(setup.llm(), max_attempts=2)
    live = await setup.live(ingestor)
    await live.start()
    lost = answer(
        "Alice named her plant.",
        entities=[entity(f"E{i}", f"Thing {i}") for i in range(1, 6)],
        facts=[fact("Someone has a plant named Gus", about=["U7"], source=["m9"])],
    )
    setup.srv.push(lost)
    await setup.feed(live, PLANT)
    await setup.quiet(live)

    [ep] = await episode_rows(setup.store)
    assert (ep["status"], ep["attempts"]) == ("failed", 1)
    assert ep["error"].startswith("UnusableAnswer: no fact of the answer resolved: fact 1 about: unknown ref 'U7'")
    assert await entity_names(setup.store, GUILD) == set()

    setup.srv.push(lost)  # the same answer again: failed for good, visibly
    assert await ingestor.process_backlog() == BacklogResult(failed=1)
    [ep] = await episode_rows(setup.store)
    assert (ep["status"], ep["attempts"]) == ("failed", 2) and ep["error"].startswith("failed for good after 2 attempts")
    assert await ingestor.process_backlog() == BacklogResult()

    setup.srv.push(answer("Alice named her plant.", entities=[entity("E1", "Gus", "pet"), entity("E2", "Unused")],
                          facts=[fact("Alice has a plant named Gus", about=["U1"], source=["m3"], mentions=["E1"])]))  # fmt: skip
    assert await ingestor.process_backlog(retry_failed=True) == BacklogResult(done=1)
    assert await entity_names(setup.store, GUILD) == {"Gus"}, "an entity no fact uses is not written"
