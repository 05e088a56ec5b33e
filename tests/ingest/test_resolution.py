"""Resolving an extraction answer: refs checked, reporters from cited messages, dates, caps."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from common.text import name_key
from graph.models import (
    Corroboration,
    EntityView,
    FactView,
    Message,
    NodeRef,
    RelationWrite,
    Report,
    User,
)
from ingest.extraction.resolution import Resolution, parse_when, resolve
from ingest.extraction.window_prompt import (
    ExtractedEntity,
    ExtractedFact,
    Extraction,
    PromptInput,
    build_prompt,
)
from ingest.windows import ClosedWindow, WindowMessage

T0 = datetime(2023, 5, 8, 13, 50, tzinfo=UTC)
NOW = T0 + timedelta(minutes=20)
ALICE = User(id="111", name="alice", display_name="Alice")
BOB = User(id="222", name="bob", display_name="Bob")
CHARLIE = User(id="333", name="charlie", display_name="Charlie")
EVE = User(id="444", name="eve", display_name="Eve")
FRANK = User(id="555", name="frank", display_name="Frank")
HELPER = User(id="900", name="helper", display_name="Helper", is_bot=True)


def wm(mid: str, author: User, content: str, minutes: float = 0) -> WindowMessage:
    msg = Message(id=mid, guild_id="g1", channel_id="c1", author_id=author.id, content=content,
                  created_at=T0 + timedelta(minutes=minutes))  # fmt: skip
    return WindowMessage(message=msg, author=author)


def at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def fact(text: str, about: list[str], sources: list[str], **kw: Any) -> ExtractedFact:
    return ExtractedFact(text=text, about=about, source_messages=sources, **kw)


def run(messages: list[WindowMessage], facts: list[ExtractedFact], *, entities: Sequence[ExtractedEntity] = (),
        context: tuple[WindowMessage, ...] = (), summary: str = "s", **kw: Any) -> Resolution:  # fmt: skip
    """Build the prompt for a window (so the refs are the real ones), then resolve a scripted answer."""
    win = ClosedWindow(channel_id="c1", guild_id="g1", messages=tuple(messages), context=context, reason="quiet")
    matcher = kw.pop("entity_matcher", None)
    base: dict[str, Any] = dict(members=[], candidates=[], known_entities=[], max_facts_per_person=5,
                                max_facts_per_window=15, max_message_chars=2000)  # fmt: skip
    inp = PromptInput(window=win, **(base | kw))
    _, refs = build_prompt(inp)
    counter = itertools.count(1)
    answer = Extraction(summary=summary, entities=list(entities), facts=facts)
    return resolve(answer, refs, inp, episode_key=win.key, now=NOW, new_uuid=lambda: f"uuid-{next(counter)}",
                   entity_matcher=matcher)  # fmt: skip


MOVE = [  # U1 Bob, U2 Alice, U3 Charlie
    wm("m-1", BOB, "Alice, where did you move to?"),
    wm("m-2", ALICE, "Austin!", 2),
    wm("m-3", ALICE, "Next month actually", 3),
    wm("m-4", CHARLIE, "my sister lives there", 6),
]
AUSTIN = ExtractedEntity(ref="E1", name="Austin", kind="place")
SISTER = ExtractedEntity(ref="E2", name="Charlie's sister", kind="person", owner="U3", relation="sister")
MOVING = fact("Alice is moving to Austin next month", ["U2"], ["m2", "m3"], mentions=["E1"], reported_by=["U2"],
              category="location", importance=8, valid_at="2023-06-08")  # fmt: skip
SISTER_LIVES = fact("Charlie's sister lives in Austin", ["E2"], ["m4"], mentions=["E1"], reported_by=["U3"],
                    category="location", importance=5, valid_at="2023-05-08")  # fmt: skip
ADIDAS = FactView(uuid="f-adidas", text="Alice prefers Adidas", category="preference", importance=4, confidence=0.9,
                  valid_at=at(-10_000), about=("Alice",), about_ids=("111",), reporters=(("222", "Bob", at(-10_000)),))  # fmt: skip
KNOWN_AUSTIN = EntityView(uuid="e-austin", name="Austin", kind="place", aliases=("ATX",))


def test_moving_to_austin_conversation() -> None:
    res = run(MOVE, [MOVING, SISTER_LIVES], entities=[AUSTIN, SISTER], summary="  Alice told Bob about her move to Austin.  ")
    w = res.write
    assert (w.key, w.guild_id, w.summary) == ("c1:m-1:m-4", "g1", "Alice told Bob about her move to Austin.")
    assert [(e.uuid, e.name, e.kind) for e in w.entities] == [
        ("uuid-1", "Austin", "place"),
        ("uuid-2", "Charlie's sister", "person"),
    ]
    assert w.relations == (RelationWrite(entity_uuid="uuid-2", kind="sister", target=NodeRef(kind="user", id="333")),)
    moving, sister = w.facts
    assert moving.about == (NodeRef(kind="user", id="111"),)
    assert moving.mentions == (NodeRef(kind="entity", id="uuid-1"),)
    assert moving.reports == (Report(user_id="111", message_id="m-2", at=at(2)),)
    assert moving.source_message_ids == ("m-2", "m-3")
    assert moving.valid_at == datetime(2023, 6, 8, tzinfo=UTC) and moving.expires_at is None
    assert (moving.category, moving.importance) == ("location", 8)
    assert sister.about == (NodeRef(kind="entity", id="uuid-2"),)
    assert sister.reports == (Report(user_id="333", message_id="m-4", at=at(6)),)
    everyone = [n.id for f in w.facts for n in f.about + f.mentions] + [r.user_id for f in w.facts for r in f.reports]
    assert "222" not in everyone  # nothing about Bob, and he reported nothing
    assert [f.uuid for f in w.facts] == ["uuid-3", "uuid-4"] and res.dropped == []


def test_reporter_is_the_author_of_the_cited_message_not_the_claimed_one() -> None:
    claimed = MOVING.model_copy(update={"reported_by": ["U1"]})
    res = run(MOVE, [claimed], entities=[AUSTIN])
    assert [r.user_id for r in res.write.facts[0].reports] == ["111"]
    assert any("reported_by" in reason for reason in res.dropped)


def test_reported_by_is_used_only_without_a_valid_source_and_must_be_an_author() -> None:
    alone = fact("Alice likes tea", ["U2"], [], reported_by=["U2"])
    res = run(MOVE, [alone])
    assert res.write.facts[0].reports == (Report(user_id="111", message_id=None, at=at(3)),)
    assert res.write.facts[0].valid_at == at(3)  # dated by her last message when nothing is cited
    stranger = fact("Frank likes tea", ["U4"], ["m99"], reported_by=["U4"])
    res = run(MOVE, [stranger], members=[FRANK])
    assert res.write.facts == ()
    assert any("m99" in r for r in res.dropped) and any("no reporter" in r for r in res.dropped)


def test_a_forged_source_ref_cannot_borrow_another_authors_name() -> None:
    forged = fact("Alice is an admin", ["U2"], ["m99"], reported_by=["U2"])
    res = run(MOVE, [forged])
    assert res.write.facts == ()
    assert any("cites no message of the window" in r for r in res.dropped)


def test_a_claim_about_a_member_is_about_them_and_reported_by_the_speaker() -> None:
    msgs = [wm("m-1", EVE, "Frank got engaged to Heather!!"), wm("m-2", BOB, "no way", 1)]  # U1 Eve, U2 Bob, U3 Frank
    heather = ExtractedEntity(ref="E1", name="Heather", kind="person")
    engaged = fact("Frank got engaged to Heather", ["U3"], ["m1"], mentions=["E1"], reported_by=["U1"],
                   category="relationship", importance=9)  # fmt: skip
    res = run(msgs, [engaged], entities=[heather], members=[FRANK])
    (f,) = res.write.facts
    assert f.about == (NodeRef(kind="user", id="555"),)
    assert f.mentions == (NodeRef(kind="entity", id="uuid-1"),)
    assert f.reports == (Report(user_id="444", message_id="m-1", at=at(0)),)
    assert res.write.entities[0].name == "Heather"


def test_unknown_refs_are_dropped_with_reasons() -> None:
    facts = [
        fact("Alice lives in Austin", ["U2", "U9"], ["m2"], mentions=["E7", "K1"]),
        fact("Someone has a cat", ["X1"], ["m2"]),
        fact("Alice said so earlier", ["U2"], ["c1"], reported_by=["U1"]),
    ]
    entities = [
        ExtractedEntity(ref="Q1", name="Mars", kind="place"),
        ExtractedEntity(ref="E3", name="Rex", kind="pet", owner="U8", relation="dog"),
    ]
    context = (wm("m-0", ALICE, "earlier", -30),)
    res = run(MOVE, facts, entities=entities, context=context)
    (kept,) = res.write.facts
    assert kept.about == (NodeRef(kind="user", id="111"),) and kept.mentions == ()
    assert res.write.relations == () and res.write.entities == ()  # no kept fact uses Rex
    text = "\n".join(res.dropped)
    for ref in ("'U9'", "'E7'", "'K1'", "'X1'", "'Q1'", "'U8'", "c1", "fact 2", "fact 3", "entity E3: no kept fact"):
        assert ref in text, ref
    assert "Alice" not in text and "Mars" not in text  # reasons name refs, never chat text


def test_supersedes_only_maps_shown_candidates() -> None:
    puma = fact("Alice now prefers Puma", ["U2"], ["m2"], supersedes=["F1", "f-other-uuid", "F7"], category="preference")
    res = run(MOVE, [puma], candidates=[ADIDAS])
    assert res.write.facts[0].supersedes == ("f-adidas",)
    assert sum("supersedes" in r for r in res.dropped) == 2


def test_supersedes_a_fact_about_someone_else_is_ignored() -> None:
    bob_fact = fact("Bob prefers Puma", ["U1"], ["m1"], supersedes=["F1"])
    res = run(MOVE, [bob_fact], candidates=[ADIDAS])
    assert res.write.facts[0].supersedes == ()


def test_restated_candidate_becomes_a_corroboration() -> None:
    said = fact("Alice prefers Adidas", ["U2"], ["m2"], corroborates="F1")
    res = run(MOVE, [said], candidates=[ADIDAS])
    assert res.write.facts == ()
    assert res.write.corroborations == (
        Corroboration(fact_uuid="f-adidas", report=Report(user_id="111", message_id="m-2", at=at(2))),
    )
    same_words = fact("alice prefers  ADIDAS.", ["U2"], ["m3"])  # no corroborates given: same text, same subject
    res = run(MOVE, [same_words], candidates=[ADIDAS])
    assert [c.report.message_id for c in res.write.corroborations] == ["m-3"] and res.write.facts == ()


def test_a_corroboration_by_an_earlier_reporter_writes_nothing() -> None:
    again = fact("Alice prefers Adidas", ["U2"], ["m1"], corroborates="F1")  # Bob reported it before
    res = run(MOVE, [again], candidates=[ADIDAS])
    assert res.write.facts == () and res.write.corroborations == ()
    assert any("already reported" in r for r in res.dropped)


def test_duplicate_facts_in_one_answer_are_merged() -> None:
    a = fact("Alice is moving to Austin", ["U2"], ["m2"], importance=6)
    b = fact("Alice is moving to Austin.", ["U2"], ["m4"], importance=8)
    res = run(MOVE, [a, b])
    (f,) = res.write.facts
    assert [r.user_id for r in f.reports] == ["111", "333"] and f.importance == 8
    assert f.source_message_ids == ("m-2", "m-4")


def test_caps_per_person_and_per_window() -> None:
    alice = [fact(f"Alice fact {n}", ["U2"], ["m2"], importance=i) for n, i in enumerate((3, 9, 5, 9, 1, 7, 5), 1)]
    res = run(MOVE, alice, max_facts_per_person=5)  # highest importance first, then the earliest
    assert [f.text[-1] for f in res.write.facts] == ["2", "3", "4", "6", "7"]
    assert [f.importance for f in res.write.facts] == [9, 5, 9, 7, 5]
    assert sum("per person" in r for r in res.dropped) == 2
    mixed = [fact("Bob fact", ["U1"], ["m1"], importance=2), fact("Charlie fact", ["U3"], ["m4"], importance=6),
             fact("Alice fact", ["U2"], ["m2"], importance=6)]  # fmt: skip
    res = run(MOVE, mixed, max_facts_per_window=2)
    assert [f.text for f in res.write.facts] == ["Charlie fact", "Alice fact"]
    assert any("per window" in r for r in res.dropped)


def test_facts_about_bots_are_dropped_and_bots_report_nothing() -> None:
    msgs = [wm("m-1", ALICE, "!play lofi"), wm("m-2", HELPER, "Now playing lofi, I love lofi", 1)]  # U1 Alice, U2 Helper
    about_bot = fact("Helper loves lofi", ["U2"], ["m2"], reported_by=["U2"])
    by_bot = fact("Alice listens to lofi", ["U1"], ["m2"], reported_by=["U2"])
    mentions_bot = fact("Alice uses the Helper bot for music", ["U1"], ["m1"], mentions=["U2"])
    res = run(msgs, [about_bot, by_bot, mentions_bot])
    (kept,) = res.write.facts
    assert kept.text == "Alice uses the Helper bot for music" and kept.mentions == (NodeRef(kind="user", id="900"),)
    assert any("bot" in r and "fact 1" in r for r in res.dropped) and any("fact 2" in r for r in res.dropped)


def test_known_entity_is_reused_instead_of_a_new_one() -> None:
    res = run(
        MOVE, [MOVING], entities=[ExtractedEntity(ref="E1", name="the austin", kind="place")], known_entities=[KNOWN_AUSTIN]
    )
    assert res.write.entities == ()
    assert res.write.facts[0].mentions == (NodeRef(kind="entity", id="e-austin"),)
    atx = ExtractedEntity(ref="E1", name="ATX!", kind="other")
    res = run(MOVE, [MOVING], entities=[atx], known_entities=[KNOWN_AUSTIN])
    assert res.write.facts[0].mentions == (NodeRef(kind="entity", id="e-austin"),)
    a_person = ExtractedEntity(ref="E1", name="Austin", kind="person")  # another kind: not the city
    res = run(MOVE, [MOVING], entities=[a_person], known_entities=[KNOWN_AUSTIN])
    assert [e.name for e in res.write.entities] == ["Austin"]


def test_entity_matcher_replaces_name_matching() -> None:
    calls: list[str] = []

    def matcher(name: str, known: list[EntityView]) -> EntityView | None:
        calls.append(name)
        return known[0] if name == "Austin, Texas" else None

    entities = [ExtractedEntity(ref="E1", name="Austin, Texas", kind="place")]
    res = run(MOVE, [MOVING], entities=entities, known_entities=[KNOWN_AUSTIN], entity_matcher=matcher)
    assert calls == ["Austin, Texas"] and res.write.entities == ()
    assert res.write.facts[0].mentions == (NodeRef(kind="entity", id="e-austin"),)


def test_owner_relation_on_a_known_entity() -> None:
    known_sis = EntityView(uuid="e-sis", name="Charlie's sister", kind="person")
    owned = ExtractedEntity(ref="K1", name="Charlie's sister", kind="person", owner="U3", relation="Sister")
    res = run(MOVE, [fact("Charlie's sister is a nurse", ["K1"], ["m4"])], entities=[owned], known_entities=[known_sis])
    assert res.write.relations == (RelationWrite(entity_uuid="e-sis", kind="sister", target=NodeRef(kind="user", id="333")),)
    assert res.write.facts[0].about == (NodeRef(kind="entity", id="e-sis"),) and res.write.entities == ()


def test_valid_at_and_expiry() -> None:
    cases = {
        ("2023-05-08T22:00:00+02:00", "day"): (datetime(2023, 5, 8, 20, tzinfo=UTC), datetime(2023, 5, 9, 20, tzinfo=UTC)),
        ("2023-05-01", "day"): (datetime(2023, 5, 1, tzinfo=UTC), at(2) + timedelta(days=1)),  # from when it was said
        ("tonight", "3days"): (at(2), at(2) + timedelta(days=3)),
        ("", "week"): (at(2), at(2) + timedelta(days=7)),
        ("2023-06", "month"): (datetime(2023, 6, 1, tzinfo=UTC), datetime(2023, 7, 1, tzinfo=UTC)),
        ("2023-05-09 18:30", "permanent"): (datetime(2023, 5, 9, 18, 30, tzinfo=UTC), None),
    }
    for (valid_at, expiry), (want_valid, want_expires) in cases.items():
        f = fact("Alice is out", ["U2"], ["m3", "m2"], valid_at=valid_at, expiry=expiry)
        (got,) = run(MOVE, [f]).write.facts
        assert (got.valid_at, got.expires_at) == (want_valid, want_expires), valid_at


def test_values_are_clamped_and_text_limited() -> None:
    wild = [fact("  A" * 400, ["U2"], ["m2"], importance=42, confidence=-3), fact("   ", ["U2"], ["m2"]),
            fact("Alice is calm", ["U2"], ["m2"], importance=-5, confidence=7.5)]  # fmt: skip
    res = run(MOVE, wild, summary="Alice " * 1000)
    first, second = res.write.facts
    assert first.text.startswith("A A") and len(first.text) <= 300  # the answer's own bound: 300 characters
    assert (first.importance, first.confidence) == (10, 0.0)
    assert (second.importance, second.confidence) == (1, 1.0)
    assert any("fact 2: empty text" == r for r in res.dropped) and 0 < len(res.write.summary) <= 600


@pytest.mark.parametrize(
    ("summary", "problem"),
    [
        ("   ", "empty"),
        ("Two or three sentences on what the window was about, naming who took part.", "copied from the instructions"),
        ("User: Alice, 16827647873329430", "carries a raw Discord id"),
        ("People talked about the weather.", "names none of the window's authors"),
    ],
)
def test_a_summary_is_checked_like_a_fact(summary: str, problem: str) -> None:
    """A small model's summary copied the participants line; it reached replies."""
    res = run(MOVE, [], summary=summary)
    assert res.write.summary == "" and f"summary: {problem}" in res.dropped
    assert run(MOVE, [], summary="Alice told Bob she is moving.").write.summary == "Alice told Bob she is moving."


def test_helpers() -> None:
    assert name_key("The Austin!") == name_key("austin") == "austin"
    assert name_key("Charlie's  Sister") == "charlies sister"
    assert parse_when("2023-06-08") == datetime(2023, 6, 8, tzinfo=UTC)
    assert parse_when("2023-06-08T10:00:00Z") == datetime(2023, 6, 8, 10, tzinfo=UTC)
    assert parse_when("next month") is None and parse_when("") is None
