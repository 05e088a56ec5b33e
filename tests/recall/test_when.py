"""Time-aware ranking: a message naming a date ranks what was said then first among what matches
it. The dates a message writes out (`recall.when.named_period`), and the case it fixes on a small hand-made
graph on the real embedded engine: many dinners, one asked about by its day."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from common.settings import ContextSettings, RecallTuning
from graph.models import EpisodeWrite
from graph.store import GraphStore
from graph.writes.episodes import write_episode
from recall.assemble import ContextRequest
from recall.gather import build_context
from recall.when import named_period, timely
from tests.support.busy_server import BOT, G1, GENERAL, PEOPLE, T0, U, in_general

AT = datetime(2024, 3, 10, 12, 0, tzinfo=UTC)


def day(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


def test_a_day_written_out_is_that_day_and_the_next_ones_around_it() -> None:
    one = timedelta(days=1)
    for text in (
        "What did Nate cook on 9 November, 2022?",
        "what did nate cook on November 9th 2022",
        "the 9th of November 2022",
    ):
        assert named_period(text, AT) == (day(2022, 11, 9) - one, day(2022, 11, 10) + one), text


def test_a_month_a_year_and_a_range() -> None:
    assert named_period("What is Tim learning in December 2023?", AT) == (day(2023, 12, 1), day(2024, 1, 1))
    assert named_period("Which performances did John achieve in 2023?", AT) == (day(2023, 1, 1), day(2024, 1, 1))
    start, end = named_period("Where was John between August 11 and August 15 2023?", AT) or (AT, AT)
    assert (start.date(), end.date()) == (day(2023, 8, 10).date(), day(2023, 8, 17).date())


def test_a_date_without_its_year_is_the_latest_before_the_message() -> None:
    assert named_period("what did you do in December?", AT) == (day(2023, 12, 1), day(2024, 1, 1))
    assert named_period("what did you do in February?", AT) == (day(2024, 2, 1), day(2024, 3, 1))


def test_no_date_no_period() -> None:
    for text in ("When did Caroline go to the LGBTQ support group?", "May I ask what Tim may like?", "it took 2023 tries"):
        assert named_period(text, AT) is None, text


async def test_what_was_said_on_the_day_named_ranks_first(store: GraphStore) -> None:
    """Twelve dinners, the one of 5 May cooked last of all; relevance alone cannot tell them apart."""
    p = await in_general(store, "alice", "judy")
    dishes = ["lasagna", "paella", "ramen", "tacos", "risotto", "curry", "gumbo", "pho", "chili", "stew", "pizza", "sushi"]
    writes = []
    for i, dish in enumerate(dishes):  # one a day from 3 May; paella on 4 May... sushi on 14 May
        said = await p.say(GENERAL, "alice", f"made {dish} for dinner tonight", T0 + timedelta(days=i))
        writes.append(p.fact(dish, f"Alice cooked {dish} for dinner", [U("alice")], said, importance=9 - (i == 2) * 4))
    key = await p.episode(GENERAL, p.messages)
    await write_episode(store, EpisodeWrite(key=key, guild_id=G1, facts=tuple(writes)))
    question = ContextRequest(
        G1, GENERAL, PEOPLE["judy"], "What did Alice cook for dinner on 5 May?", None, T0 + timedelta(days=20), bot_user_id=BOT
    )
    settings = ContextSettings(total_tokens=120, channel_messages=0)
    ctx = await build_context(store, question, settings)
    assert ctx.part("related").ids[0] == p.facts["ramen"]  # 5 May: the least important dinner, ranked first
    before = await build_context(store, question, settings, tuning=RecallTuning(time_aware=False))
    assert p.facts["ramen"] not in before.part("related").ids[:1]  # the case it fixes


def test_a_named_day_comes_before_the_days_of_slack_around_it() -> None:
    """ "On 9 November" holds the day either side too (time zones); what was said on the day itself ranks first,
    whatever order the keys came in."""
    period = named_period("what did Nate cook on 9 November, 2022?", AT)
    said = [("eve", day(2022, 11, 8) + timedelta(hours=23)), ("day", day(2022, 11, 9) + timedelta(hours=12)),
            ("after", day(2022, 11, 10) + timedelta(hours=1)), ("week", day(2022, 11, 16))]  # fmt: skip
    assert timely(said, period) == ["day", "eve", "after"]
    assert timely(said, named_period("what did Nate cook in November 2022?", AT)) == ["eve", "day", "after", "week"]
