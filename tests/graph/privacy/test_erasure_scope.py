"""A forget and an export reach what is the member's by identity (their id, their graph edges, the guilds they
belong to), and their names only where a name identifies them: never in a guild they never joined, never in
another member's DM space, never a common word, never a name another member of that guild carries."""

from __future__ import annotations

from datetime import timedelta

from graph.models import Channel, EpisodeWrite, Guild, Message, User
from graph.privacy.export import export_member
from graph.privacy.forget import forget_user, run_request, with_scope
from graph.privacy.guards.consent import opt_out
from graph.privacy.requests import Request
from graph.reads.facts import users_by_id
from graph.store import GraphStore
from graph.writes.discord_records import upsert_channel, upsert_guild, upsert_users
from graph.writes.episodes import write_episode
from tests.support.busy_server import G1, G2, GENERAL, OTHER, PEOPLE, T0, Populated, U

DM_BOB = "dm:" + PEOPLE["bob"]
DM_BOB_CHANNEL = "910000000000000001"


async def _world(store: GraphStore, nick: str = "likes") -> Populated:
    """Alice is in G1 only, where her nickname is `nick` (her account name is "zed99", and was "zorro" before);
    Bob and Dave are in both guilds; Bob also talks to the bot in his DMs."""
    p = Populated(store)
    await upsert_guild(store, Guild(id=G1, name="Book Club"))
    await upsert_guild(store, Guild(id=G2, name="Climbing Gym"))
    await upsert_guild(store, Guild(id=DM_BOB, name="DM"))
    await upsert_channel(store, Channel(id=GENERAL, guild_id=G1, name="general"))
    await upsert_channel(store, Channel(id=OTHER, guild_id=G2, name="bouldering"))
    await upsert_channel(store, Channel(id=DM_BOB_CHANNEL, guild_id=DM_BOB, name="bob"))
    await upsert_users(store, [User(id=PEOPLE["alice"], name="zorro", display_name="Zorro")], G1)
    await upsert_users(store, [User(id=PEOPLE["alice"], name="zed99", display_name=nick)], G1)
    for guild in (G1, G2):
        await upsert_users(
            store,
            [User(id=PEOPLE["bob"], name="bob", display_name="Bob"), User(id=PEOPLE["dave"], name="dave", display_name="Dave")],
            guild,
        )
    return p


async def _content(store: GraphStore, message_id: str) -> str | None:
    found = await store.driver.execute_query(
        "MATCH (m:Message {id: $id}) RETURN m.content AS c", {"id": message_id}, database_=store.engine.database
    )
    return found.records[0]["c"] if found.records else None


async def _fact_texts(store: GraphStore, guild: str) -> set[str]:
    found = await store.driver.execute_query(
        "MATCH (f:Fact) WHERE f.guild_id = $g RETURN f.text AS t", {"g": guild}, database_=store.engine.database
    )
    return {r["t"] for r in found.records}


async def _say_and_learn(p: Populated, channel: str, guild: str, who: str, text: str, fact: str, at_day: int) -> Message:
    said = await p.say(channel, who, text, T0 + timedelta(days=at_day), guild=guild)
    key = await p.episode(channel, [said], guild=guild)
    await write_episode(
        p.store,
        EpisodeWrite(
            key=key, guild_id=guild, summary=f"{who} said: {text}", facts=(p.fact(f"{guild}:{text}", fact, [U(who)], said),)
        ),
    )
    return said


async def test_a_nickname_that_is_a_word_reaches_no_other_guild_and_no_other_words(store: GraphStore) -> None:
    p = await _world(store, nick="likes")
    mine = await p.say(GENERAL, "alice", "I read all night", T0)
    here = await _say_and_learn(p, GENERAL, G1, "dave", "Dave likes the new kernel", "Dave likes the new kernel", 1)
    there = await _say_and_learn(p, OTHER, G2, "dave", "Dave likes the new kernel too", "Dave likes climbing", 2)
    dm = await p.say(DM_BOB_CHANNEL, "bob", "zorro is my favourite film", T0 + timedelta(days=3), guild=DM_BOB)
    before_g2 = await _fact_texts(store, G2)

    report = await forget_user(store, PEOPLE["alice"])

    assert report.clean and report.deleted["Message"] == 1 and await _content(store, mine.id) is None
    assert await _content(store, here.id) == "Dave likes the new kernel"  # "likes" is a word, not Alice
    assert await _content(store, there.id) == "Dave likes the new kernel too"
    assert await _fact_texts(store, G2) == before_g2 and "Dave likes the new kernel" in await _fact_texts(store, G1)
    assert await _content(store, dm.id) == "zorro is my favourite film"  # another member's DMs are never searched
    assert report.scope is not None and "likes" in report.scope.withheld


async def test_a_name_no_one_else_carries_is_redacted_in_her_guild_only(store: GraphStore) -> None:
    p = await _world(store, nick="likes")
    thanks = await p.say(GENERAL, "bob", "thanks Zorro, and zed99 too", T0)
    elsewhere = await p.say(OTHER, "bob", "Zorro the film was great", T0, guild=G2)
    report = await forget_user(store, PEOPLE["alice"])
    assert report.clean
    assert await _content(store, thanks.id) == "thanks [forgotten], and [forgotten] too"  # her earlier name too
    assert await _content(store, elsewhere.id) == "Zorro the film was great"  # a guild she never joined


async def test_names_that_differ_by_case_are_one_name_and_identify_neither(store: GraphStore) -> None:
    p = await _world(store, nick="Obi1")
    await upsert_users(store, [User(id=PEOPLE["eve"], name="eve", display_name="OBI1")], G1)
    about_eve = await _say_and_learn(p, GENERAL, G1, "eve", "OBI1 here, I moved to Oslo", "OBI1 moved to Oslo", 1)
    report = await forget_user(store, PEOPLE["alice"])
    assert report.clean
    assert await _content(store, about_eve.id) == "OBI1 here, I moved to Oslo"
    assert "OBI1 moved to Oslo" in await _fact_texts(store, G1)


async def test_a_mention_by_id_is_theirs_wherever_it_is(store: GraphStore) -> None:
    p = await _world(store)
    mention = await p.say(OTHER, "bob", f"ask <@{PEOPLE['alice']}> about it", T0, guild=G2)
    assert (await forget_user(store, PEOPLE["alice"])).clean
    assert await _content(store, mention.id) == "ask [forgotten] about it"


async def test_a_rerun_after_a_committed_forget_still_audits_and_finishes(store: GraphStore) -> None:
    """The forget committed, then the process died before its thorough audit: the request kept on disk runs
    again, finds the account gone, and still finds and redacts what only the thorough audit reaches."""
    p = await _world(store, nick="Zorro99")
    said = await p.say(GENERAL, "alice", "hi all", T0)
    other = await p.say(GENERAL, "bob", "welcome", T0 + timedelta(minutes=1))
    key = await p.episode(GENERAL, [other], guild=G1)  # a conversation she took no part in
    await write_episode(store, EpisodeWrite(key=key, guild_id=G1, summary="Bob welcomed someone like zorro99x, a zorro99 fan."))
    request = await with_scope(store, Request(PEOPLE["alice"], None))
    first = await run_request(store, request, thorough=False)
    assert first.deleted["User"] == 1 and await _content(store, said.id) is None

    again = await run_request(store, request, purge=True)

    assert again.thorough and again.clean and again.files_purged
    assert again.redacted == 1  # the summary no index lookup reached
    [summary] = (await store.driver.execute_query("MATCH (e:Episode {key: $k}) RETURN e.summary AS s", {"k": key},
                                                  database_=store.engine.database)).records  # fmt: skip
    assert "zorro99 fan" not in summary["s"].casefold()


async def test_what_is_hers_alone_goes_and_what_another_member_shares_stays(store: GraphStore) -> None:
    from graph.models import RelationWrite
    from tests.support.busy_server import E

    p = await _world(store, nick="Zorro99")
    said = await p.say(GENERAL, "alice", "my sister is a nurse, we both work at Acme", T0)
    told = await p.say(GENERAL, "bob", "I work at Acme too", T0 + timedelta(minutes=1))
    sister, acme = p.entity("sister", "her sister", "person"), p.entity("acme", "Acme", "organization")
    await write_episode(
        store,
        EpisodeWrite(
            key=await p.episode(GENERAL, [said, told], guild=G1),
            guild_id=G1,
            entities=(sister, acme),
            relations=(
                RelationWrite(entity_uuid=sister.uuid, kind="sister", target=U("alice")),
                RelationWrite(entity_uuid=acme.uuid, kind="employer", target=U("alice")),
                RelationWrite(entity_uuid=acme.uuid, kind="employer", target=U("bob")),
            ),
            facts=(
                p.fact("nurse", "Her sister is a nurse", [E(sister.uuid)], told),  # told by Bob, about her sister
                p.fact("acme", "Acme is hiring", [E(acme.uuid)], told),
            ),
        ),
    )
    report = await forget_user(store, PEOPLE["alice"])
    assert report.clean
    texts = await _fact_texts(store, G1)
    assert "Her sister is a nurse" not in texts and "Acme is hiring" in texts


async def test_an_export_holds_her_guilds_only_and_names_others_by_display_name(store: GraphStore) -> None:
    p = await _world(store, nick="likes")
    mine = await p.say(GENERAL, "alice", f"hi <@{PEOPLE['bob']}>", T0)
    about = await p.say(GENERAL, "bob", "alice's fine", T0 + timedelta(minutes=1))
    await write_episode(
        store,
        EpisodeWrite(
            key=await p.episode(GENERAL, [mine, about], guild=G1),
            guild_id=G1,
            facts=(p.fact("alice_fine", "Zorro is fine", [U("alice")], about),),
        ),
    )
    await _say_and_learn(p, OTHER, G2, "dave", "Dave likes the new kernel", "Dave likes climbing", 2)
    await _say_and_learn(p, GENERAL, G1, "dave", "Dave likes tea", "Dave likes tea", 3)

    data = await export_member(store, PEOPLE["alice"])

    assert data is not None
    text = repr(data)
    assert PEOPLE["bob"] not in text and PEOPLE["dave"] not in text  # others by display name, never by id
    assert [m["content"] for m in data["messages"]] == ["hi @Bob"]
    [fact] = data["facts"]
    assert fact["text"] == "Zorro is fine" and fact["reports"] == [{"by": "Bob", "at": fact["reports"][0]["at"]}]
    assert data["facts_naming_them"] == [] and data["summaries_naming_them"] == []  # "likes" is a word
    assert all(m["guild_id"] == G1 for m in data["messages"])


async def test_an_extraction_finishing_after_an_opt_out_keeps_no_summary_of_their_conversation(store: GraphStore) -> None:
    """An import or the live bot extracting beside a forget: once the opt-out committed, the summary of a window
    they wrote in is not written (it would tell what they said), nor any fact about them."""
    p = await _world(store, nick="Zorro99")
    said = await p.say(GENERAL, "alice", "my new job starts monday", T0)
    reply = await p.say(GENERAL, "bob", "congrats!", T0 + timedelta(minutes=1))
    key = await p.episode(GENERAL, [said, reply], guild=G1)
    await opt_out(store, PEOPLE["alice"])
    job = p.fact("job", "Zorro99 starts a new job on Monday", [U("alice")], said)
    await write_episode(
        store,
        EpisodeWrite(
            key=key,
            guild_id=G1,
            summary="Zorro99 starts a job; Bob congratulates.",
            facts=(job,),
            people=(PEOPLE["alice"], PEOPLE["bob"]),
        ),  # fmt: skip
    )
    found = await store.driver.execute_query(
        "MATCH (e:Episode {key: $k}) RETURN e.summary AS s, e.status AS st", {"k": key}, database_=store.engine.database
    )
    assert found.records[0]["s"] == "" and found.records[0]["st"] == "done"
    assert "Zorro99 starts a new job on Monday" not in await _fact_texts(store, G1)


async def test_a_moderator_forget_keeps_a_membership_of_another_guild(store: GraphStore) -> None:
    """A member of two guilds who only wrote in one: a moderator's forget there leaves their membership (and its
    nickname) in the other, which is not that moderator's to erase."""
    p = await _world(store, nick="Zorro99")
    await upsert_users(store, [User(id=PEOPLE["alice"], name="zed99", display_name="Zee")], G2)
    await p.say(GENERAL, "alice", "hello", T0)
    request = await with_scope(store, Request(PEOPLE["alice"], G1))
    report = await run_request(store, request)
    assert report.clean and report.deleted["User"] == 0
    [kept] = await users_by_id(store, [PEOPLE["alice"]], G2)
    assert kept.display_name == "Zee"


async def test_a_member_only_ever_mentioned_is_no_account_and_their_forget_is_clean(store: GraphStore) -> None:
    """The stateful test's finding, kept as a plain case: a fact naming a member the graph never stored (only
    mentioned by id) links no account; their export is empty, their forget redacts the mention and is clean."""
    p = await _world(store)
    said = await p.say(OTHER, "bob", f"thanks the likes hello <@{PEOPLE['eve']}>", T0, guild=G2)
    met = p.fact("met", "They met at the kernel summit", [U("bob")], said, mentions=[U("eve")])
    await write_episode(store, EpisodeWrite(key=await p.episode(OTHER, [said], guild=G2), guild_id=G2, facts=(met,)))
    assert await users_by_id(store, [PEOPLE["eve"]]) == []
    assert await export_member(store, PEOPLE["eve"]) is None
    report = await run_request(store, await with_scope(store, Request(PEOPLE["eve"], None)))
    assert report.clean and await _content(store, said.id) == "thanks the likes hello [forgotten]"
