"""Cost per message: LLM calls and tokens to turn the IRC dev samples into memory.

    python -m bench.economy [--data DIR] [--quick] [--no-graphiti]

Every contender sees the same messages and is answered by the same scripted server, which counts
calls and tokens on its side with one estimate (`grapevine.tokens.estimate_tokens`):

- grapevine: the live window policy (`ingest.replay`, built-in defaults), one extraction call per
  closed window through the real pipeline (`Ingestor`) writing to a throw-away ArcadeDB;
- per-message extraction: one call per message, with the prompt such an extractor needs: the
  message and its author's current facts (grapevine's own prompt builder on a one-message window,
  the author's facts as known facts);
- graphiti-core's `add_episode` on the same windows (Kuzu in memory), its LLM client answering
  every call with the entities and facts grapevine's scripted answer holds for that window.

The scripted answers are deterministic: a message saying something about its author ("my",
"I'm", "I have", ...; a question only when it discloses something, "I have an ATI card, how do
I ...?") and naming a piece of software or hardware yields one fact about the author, with that
thing as an entity; each window's answer keeps at most 5 facts per person and 15 in all.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import math
import os
import re
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from bench.common import (
    TempArcadeDB,
    console,
    extraction_settings,
    machine_note,
    prompt_sections,
    quiet_logs,
    read_prompt,
    scripted_llm,
    table,
    user_prompt,
    window_settings,
)
from bench.datasets import DATA_DIR, IRC_GUILD, IrcSample, dev_samples, load_irc
from grapevine.scripted_llm import ScriptedLLMServer
from grapevine.tokens import estimate_tokens
from graph.models import Channel, FactView, Guild
from ingest.extraction import Extraction, PromptInput, build_prompt
from ingest.llm import OpenAILLM
from ingest.pipeline import Ingestor
from ingest.replay import replay
from ingest.windows import ClosedWindow, WindowMessage

QUICK_MESSAGES = 400  # --quick: the first 400 messages of the first sample
AUTHOR_FACTS = 50  # facts of the author shown to a per-message extractor (MEMORY_MAX_FACTS_PER_USER)

# --- the scripted extraction ----------------------------------------------------------------------------
_TERMS = sorted(set("""
ubuntu kubuntu xubuntu edubuntu debian gentoo fedora suse mandriva slackware arch windows xp vista mac osx
linux kernel grub lilo gnome kde xfce fluxbox xorg compiz beryl metacity nautilus konqueror firefox
thunderbird evolution gaim pidgin xchat irssi openoffice libreoffice gimp vlc mplayer totem amarok
rhythmbox xmms audacious wine samba nfs ssh apache mysql postgresql php python perl java ruby nvidia ati
radeon intel geforce fglrx alsa pulseaudio ndiswrapper wifi wireless ethernet router usb dvd ipod laptop
thinkpad dell hp ibm acer asus toshiba raid lvm ntfs fat32 ext3 ext4 reiserfs xfs swap bios dapper edgy
feisty gutsy hardy intrepid jaunty karmic lucid maverick natty oneiric precise trusty xenial yakkety zesty
hoary breezy warty apt aptitude synaptic dpkg bash vim emacs gcc sudo cron iptables firestarter azureus
ktorrent skype flash virtualbox vmware xen dropbox chrome chromium opera mozilla unity steam docker
""".split()))
_TERM = re.compile(r"\b(" + "|".join(_TERMS) + r")\b", re.IGNORECASE)
_UPPER = {"kde", "ati", "usb", "dvd", "hp", "ibm", "ssh", "nfs", "php", "gcc", "lvm", "raid", "xp", "vlc", "osx",
          "bios", "xfs", "ntfs", "gimp", "xmms"}
_SELF = re.compile(r"\b(i|i'm|im|i've|ive|i'd|my|mine|me)\b", re.IGNORECASE)
_DISCLOSES = re.compile(r"\b(i'm|im|i am|i've|ive|i have|i had|i got|i use|i run|i installed|i bought|i just|my)\b",
                        re.IGNORECASE)  # says something about the speaker even inside a question
_TROUBLE = re.compile(r"\b(can't|cant|cannot|doesn't|doesnt|won't|wont|isn't|not working|error|problem|issue|"
                      r"broken|fails?|crash\w*|stuck|freez\w*)\b", re.IGNORECASE)
_USES = re.compile(r"\b(use|using|used|run|running|installed|install|have|got|on|switched|upgraded)\b", re.IGNORECASE)


@dataclass(frozen=True)
class ScriptFact:
    """One fact the scripted model extracts from one message."""

    author: str  # display name of the author (the subject)
    thing: str  # the entity it names
    text: str
    trouble: bool

    @property
    def category(self) -> str:
        return "other" if self.trouble else "possession"

    @property
    def expiry(self) -> str:
        return "month" if self.trouble else "permanent"


def thing_name(word: str) -> str:
    word = word.casefold()
    return word.upper() if word in _UPPER else word.capitalize()


def message_facts(author: str, content: str) -> list[ScriptFact]:
    """What the scripted model reads in one message: at most one fact about its author."""
    text = content.strip()
    if len(text.split()) < 4 or not _SELF.search(text):
        return []
    if text.endswith("?") and not _DISCLOSES.search(text):
        return []  # "how do I ...?" asks, it tells nothing about the asker
    found = _TERM.search(text)
    if found is None:
        return []
    thing = thing_name(found[1])
    if _TROUBLE.search(text):
        return [ScriptFact(author, thing, f"{author} has a problem with {thing}", True)]
    if _USES.search(text):
        return [ScriptFact(author, thing, f"{author} uses {thing}", False)]
    return [ScriptFact(author, thing, f"{author} talked about their {thing}", False)]


def window_facts(lines: Sequence[tuple[str, str]], per_person: int = 5, per_window: int = 15) -> list[tuple[int, ScriptFact]]:
    """(line index, fact) of a window's (author, content) lines within the caps, in order; a fact
    stated twice in one window is kept once (from its first message)."""
    kept: list[tuple[int, ScriptFact]] = []
    seen: set[str] = set()
    per: Counter[str] = Counter()
    for i, (author, content) in enumerate(lines):
        for f in message_facts(author, content):
            if f.text in seen or per[f.author] >= per_person or len(kept) >= per_window:
                continue
            seen.add(f.text)
            per[f.author] += 1
            kept.append((i, f))
    return kept


def summary_of(lines: Sequence[tuple[str, str]], facts: Sequence[tuple[int, ScriptFact]]) -> str:
    names = list(dict.fromkeys(author for author, _ in lines))
    who = ", ".join(names[:4]) + (f" and {len(names) - 4} others" if len(names) > 4 else "")
    things = list(dict.fromkeys(f.thing for _, f in facts))
    about = ", ".join(things[:4]) if things else "Ubuntu support questions"
    return f"{who} talked in the Ubuntu help channel about {about}. {len(lines)} messages."


def grapevine_answer(request: dict[str, Any]) -> dict[str, Any]:
    """The scripted model's answer to one grapevine extraction prompt (a window or one message),
    written with that prompt's own refs."""
    refs = read_prompt(request)
    lines = [(refs.names.get(u or "", "?"), content) for _, u, content in refs.messages]
    facts = window_facts(lines)
    name_ref = {name: ref for ref, name in refs.names.items()}
    entities: list[dict[str, Any]] = []
    entity_ref: dict[str, str] = {}
    out: list[dict[str, Any]] = []
    known_fact = {text: ref for ref, text in refs.facts.items()}
    for i, f in facts:
        m_ref, u_ref, _ = refs.messages[i]
        if f.thing not in entity_ref:
            known = refs.entities.get(f.thing.casefold())
            entity_ref[f.thing] = known or f"E{sum(1 for r in entity_ref.values() if r.startswith('E')) + 1}"
            if known is None:
                entities.append({"ref": entity_ref[f.thing], "name": f.thing, "kind": "object", "aliases": [],
                                 "owner": None, "relation": None})
        subject = u_ref or name_ref.get(f.author, "U1")
        out.append({
            "text": f.text, "about": [subject], "mentions": [entity_ref[f.thing]], "reported_by": [subject],
            "source_messages": [m_ref], "category": f.category, "importance": 4, "confidence": 0.9,
            "valid_at": "", "expiry": f.expiry, "supersedes": [], "corroborates": known_fact.get(f.text),
        })  # fmt: skip
    summary = summary_of(lines, facts) if len(lines) > 1 else ""
    return {"summary": summary, "entities": entities, "facts": out}


# --- the contenders ---------------------------------------------------------------------------------------
@dataclass
class Usage:
    name: str
    messages: int = 0
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    schema_tokens: int = 0  # response_format schemas sent beside the prompt (not in the server's count)
    facts: int = 0
    seconds: float = 0.0
    note: str = ""
    by_prompt: Counter[str] = field(default_factory=Counter)
    sections: dict[str, float] = field(default_factory=dict)  # mean prompt tokens per call, by prompt section

    def per_100(self, value: float) -> float:
        return 100 * value / self.messages if self.messages else 0.0


def _take(srv: ScriptedLLMServer, usage: Usage) -> Usage:
    usage.calls, usage.prompt_tokens, usage.completion_tokens = srv.calls, srv.prompt_tokens, srv.completion_tokens
    usage.schema_tokens = sum(estimate_tokens(json.dumps(r["response_format"])) for r in srv.requests
                              if r.get("response_format"))
    sections: Counter[str] = Counter()
    ours = [r for r in srv.requests if "bench_reply" not in r]
    for request in ours:
        sections["system prompt"] += sum(estimate_tokens(m.get("content") or "") for m in request["messages"]
                                         if m.get("role") == "system")
        for title, lines in prompt_sections(user_prompt(request)).items():
            sections[title.lower()] += estimate_tokens("\n".join([title, *lines]))
    usage.sections = {k: v / len(ours) for k, v in sections.items()} if ours else {}
    srv.reset()
    return usage


def distinct_ids(sample: IrcSample) -> IrcSample:
    """Message ids of the loader are line numbers, the same in every sample: prefix them with the sample's
    name so the samples' messages stay apart in one guild (a store MERGEs messages on their id)."""
    messages = [WindowMessage(wm.message.model_copy(update={"id": f"{sample.name}:{wm.message.id}"}), wm.author)
                for wm in sample.messages]
    return IrcSample(sample.name, messages, sample.reply_links)


def _channel(sample: IrcSample) -> str:
    return sample.messages[0].message.channel_id


async def run_grapevine(samples: list[IrcSample], srv: ScriptedLLMServer, llm: OpenAILLM) -> Usage:
    usage = Usage("grapevine (one call per closed window)")
    started = time.perf_counter()
    windows = window_settings()
    with TempArcadeDB() as db:
        store = await db.store("economy")
        ingestor = Ingestor(store, llm, extraction_settings(), windows, rng=lambda: 0.0)
        await store.upsert_guild(Guild(id=IRC_GUILD, name="IRC"))
        for sample in samples:
            await store.upsert_channel(Channel(id=_channel(sample), guild_id=IRC_GUILD, name=sample.name))
            await store.upsert_users(list({wm.author.id: wm.author for wm in sample.messages}.values()))
            for start in range(0, len(sample.messages), 500):
                await store.record_messages([wm.message for wm in sample.messages[start:start + 500]])
            for window in replay(sample.messages, windows):
                await ingestor.submit(window)
            usage.messages += len(sample.messages)
        rows = await store.runner.read("bench/count_facts", guild_id=IRC_GUILD)
        usage.facts = int(rows[0]["facts"]) if rows else 0
        await db.close_drivers()
    usage.seconds = time.perf_counter() - started
    return _take(srv, usage)


def _fact_view(f: ScriptFact, author_id: str, at: datetime) -> FactView:
    uid = hashlib.sha1(f"{author_id}|{f.text}".encode()).hexdigest()
    return FactView(uuid=uid, text=f.text, category=f.category, importance=4, confidence=0.9, valid_at=at,
                    about=(f.author,), about_ids=(author_id,), reporters=((author_id, f.author, at),))


class PlainClient:
    """The request grapevine's client sends (model, messages, the Extraction schema as response_format),
    posted without the openai client's per-call schema conversion: 11k calls in reasonable time.
    The scripted server sees, counts and answers the same request."""

    def __init__(self, base_url: str) -> None:
        import httpx
        from openai.lib._parsing._completions import type_to_response_format_param

        self.http = httpx.AsyncClient(base_url=base_url, timeout=30.0)
        self.response_format = type_to_response_format_param(Extraction)

    async def extract(self, messages: list[dict[str, str]]) -> Extraction:
        body = {"model": "scripted-model", "messages": messages, "response_format": self.response_format}
        response = await self.http.post("/chat/completions", json=body)
        response.raise_for_status()
        return Extraction.model_validate_json(response.json()["choices"][0]["message"]["content"])

    async def aclose(self) -> None:
        await self.http.aclose()


async def run_per_message(samples: list[IrcSample], srv: ScriptedLLMServer) -> Usage:
    """One call per message: the message and its author's current facts (kept in memory here)."""
    usage = Usage("per-message extraction")
    started = time.perf_counter()
    settings = extraction_settings()
    client = PlainClient(srv.base_url)

    async def one_sample(sample: IrcSample) -> int:
        facts: defaultdict[str, dict[str, FactView]] = defaultdict(dict)  # author id -> text -> fact
        written = 0
        for wm in sample.messages:
            known = list(facts[wm.author.id].values())[-AUTHOR_FACTS:]
            window = ClosedWindow(wm.message.channel_id, wm.message.guild_id, (wm,), (), "message")
            inp = PromptInput(window=window, members=[], candidates=known[::-1], known_entities=[],
                              max_facts_per_person=settings.max_facts_per_person,
                              max_facts_per_window=settings.max_facts_per_window,
                              max_message_chars=settings.max_message_chars)
            messages, _ = build_prompt(inp)
            answer = await client.extract(messages)
            for fact in answer.facts:
                if fact.corroborates is None and fact.text not in facts[wm.author.id]:
                    sf = ScriptFact(wm.author.display_name, "", fact.text, fact.expiry != "permanent")
                    facts[wm.author.id][fact.text] = _fact_view(sf, wm.author.id, wm.message.created_at)
                    written += 1
        return written

    try:
        for sample in samples:
            usage.facts += await one_sample(sample)
            usage.messages += len(sample.messages)
    finally:
        await client.aclose()
    usage.seconds = time.perf_counter() - started
    return _take(srv, usage)


# --- graphiti-core ----------------------------------------------------------------------------------------
def graphiti_missing() -> str | None:
    """Why graphiti-core cannot run here, or None."""
    try:
        import graphiti_core  # noqa: F401
        import httpx  # noqa: F401
        import kuzu  # noqa: F401
    except ImportError as exc:
        return f"graphiti-core with its Kuzu driver is not installed ({exc}); install the bench extra: pip install -e '.[bench]'"
    return None


_NAME = re.compile(r'"name":\s*"((?:[^"\\]|\\.)*)"')
_COUNT = re.compile(r"ENTITIES contains (\d+) entities")
_CANDIDATE = re.compile(r'"candidate_id":\s*(\d+),\s*"name":\s*"((?:[^"\\]|\\.)*)"')


def _names_in(text: str) -> list[str]:
    return list(dict.fromkeys(json.loads(f'"{m}"') for m in _NAME.findall(text)))


class GraphitiScript:
    """What graphiti's LLM calls are answered with: the current window's scripted facts."""

    def __init__(self) -> None:
        self.facts: list[ScriptFact] = []
        self.at: datetime = datetime.now(timezone.utc)

    def set_window(self, window: ClosedWindow) -> None:
        lines = [(wm.author.display_name, wm.message.content) for wm in window.messages]
        self.facts = [f for _, f in window_facts(lines)]
        self.at = window.ended_at

    def answer(self, model: str, prompt: str) -> dict[str, Any]:
        facts = self.facts
        if model == "ExtractedEntities":
            names = list(dict.fromkeys([n for f in facts for n in (f.author, f.thing)]))
            return {"extracted_entities": [{"name": n, "entity_type_id": 0, "episode_indices": [0]} for n in names]}
        if model == "NodeResolutions":
            count = int(m[1]) if (m := _COUNT.search(prompt)) else 0
            entities_part = prompt.split("EXISTING ENTITIES", 1)
            names = _names_in(entities_part[0].split("<ENTITIES>", 1)[-1])
            existing = {json.loads(f'"{n}"').casefold(): int(i) for i, n in _CANDIDATE.findall(prompt)}
            out = []
            for i in range(count):
                name = names[i] if i < len(names) else f"entity {i}"
                out.append({"id": i, "name": name, "duplicate_candidate_id": existing.get(name.casefold(), -1)})
            return {"entity_resolutions": out}
        if model == "ExtractedEdges":
            return {"edges": [{
                "source_entity_name": f.author, "target_entity_name": f.thing,
                "relation_type": "HAS_PROBLEM_WITH" if f.trouble else "USES", "fact": f.text,
                "valid_at": self.at.isoformat(), "invalid_at": None, "episode_indices": [0],
            } for f in facts]}  # fmt: skip
        if model == "EdgeDuplicate":
            return {"duplicate_facts": [], "contradicted_facts": []}
        if model == "SummarizedEntities":
            names = _names_in(prompt.split("<ENTITIES>", 1)[-1].split("</ENTITIES>", 1)[0]) or _names_in(prompt)
            return {"summaries": [{"name": n, "summary": ". ".join(f.text for f in facts if n in (f.author, f.thing))[:240]
                                   or f"{n} came up in the Ubuntu help channel."} for n in names]}
        if model == "EdgeTimestamps":
            return {"valid_at": self.at.isoformat(), "invalid_at": None}
        if model == "BatchEdgeTimestamps":
            return {"timestamps": []}
        raise KeyError(model)


def _fallback(schema_model: Any) -> dict[str, Any]:
    """A minimal valid value for a response model the script does not know (counted all the same)."""
    out: dict[str, Any] = {}
    for name, f in schema_model.model_fields.items():
        if not f.is_required():
            continue
        ann = str(f.annotation)
        out[name] = [] if "list" in ann else 0 if "int" in ann else 0.0 if "float" in ann else False if "bool" in ann else ""
    return out


def _graphiti_classes(base_url: str, script: GraphitiScript) -> tuple[Any, Any, Any]:
    import httpx
    from graphiti_core.cross_encoder.client import CrossEncoderClient
    from graphiti_core.embedder.client import EmbedderClient
    from graphiti_core.llm_client.client import LLMClient
    from graphiti_core.llm_client.config import LLMConfig

    class ScriptedGraphitiLLM(LLMClient):
        """graphiti's LLM client, answered by the scripted server (which counts the tokens)."""

        def __init__(self) -> None:
            super().__init__(LLMConfig(api_key="bench", model="scripted-model", small_model="scripted-model"))
            self.http = httpx.AsyncClient(base_url=base_url, timeout=30.0)
            self.by_model: Counter[str] = Counter()

        async def _generate_response(self, messages: list[Any], response_model: Any = None, max_tokens: int = 0,
                                     model_size: Any = None, **_: Any) -> dict[str, Any]:
            name = response_model.__name__ if response_model is not None else "text"
            prompt = "\n".join(m.content for m in messages)
            try:
                reply = script.answer(name, prompt)
            except KeyError:
                reply = _fallback(response_model) if response_model is not None else {"content": ""}
            self.by_model[name] += 1
            body = {"model": "scripted-model", "messages": [{"role": m.role, "content": m.content} for m in messages],
                    "bench_reply": reply}
            response = await self.http.post("/chat/completions", json=body)
            response.raise_for_status()
            return json.loads(response.json()["choices"][0]["message"]["content"])

    class HashEmbedder(EmbedderClient):
        """A deterministic bag-of-words embedding: equal texts, equal vectors; no model, no network."""

        dim = 64

        def _one(self, text: str) -> list[float]:
            vec = [0.0] * self.dim
            for word in re.findall(r"\w+", str(text).casefold()):
                h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "little")
                vec[h % self.dim] += 1.0 if h & 1 << 31 else -1.0
            norm = math.sqrt(sum(x * x for x in vec)) or 1.0
            return [x / norm for x in vec]

        async def create(self, input_data: Any) -> list[float]:
            return self._one(input_data if isinstance(input_data, str) else " ".join(map(str, input_data)))

        async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
            return [self._one(t) for t in input_data_list]

    class KeepOrder(CrossEncoderClient):
        async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
            return [(p, 1.0 - i / (len(passages) or 1)) for i, p in enumerate(passages)]

    return ScriptedGraphitiLLM(), HashEmbedder(), KeepOrder()


async def run_graphiti(samples: list[IrcSample], srv: ScriptedLLMServer) -> Usage:
    """graphiti-core's add_episode on the same windows, one in-memory Kuzu graph per channel."""
    import warnings

    os.environ["GRAPHITI_TELEMETRY_ENABLED"] = "false"
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    from graphiti_core import Graphiti
    from graphiti_core.driver.driver import GraphProvider
    from graphiti_core.driver.kuzu_driver import KuzuDriver
    from graphiti_core.graph_queries import get_fulltext_indices
    from graphiti_core.nodes import EpisodeType

    usage = Usage("graphiti-core add_episode (same windows)")
    started = time.perf_counter()
    script = GraphitiScript()
    llm, embedder, reranker = _graphiti_classes(srv.base_url, script)
    windows = window_settings()
    edges = 0
    try:
        for sample in samples:
            group = re.sub(r"[^A-Za-z0-9_-]", "_", sample.name)
            driver = KuzuDriver(db=":memory:")
            driver._database = group  # GitHub issue 1258: KuzuDriver never sets its database name
            for statement in get_fulltext_indices(GraphProvider.KUZU):  # ... nor creates its full-text indexes
                await driver.execute_query(statement)
            graphiti = Graphiti(graph_driver=driver, llm_client=llm, embedder=embedder, cross_encoder=reranker)
            for window in replay(sample.messages, windows):
                script.set_window(window)
                body = "\n".join(f"{wm.author.display_name}: {wm.message.content}" for wm in window.messages)
                result = await graphiti.add_episode(
                    name=window.key, episode_body=body, source_description=f"IRC channel {sample.name}",
                    reference_time=window.ended_at, source=EpisodeType.message, group_id=group,
                )
                edges += len(result.edges)
            usage.messages += len(sample.messages)
    finally:
        await llm.http.aclose()
    usage.facts = edges
    usage.by_prompt = llm.by_model
    usage.seconds = time.perf_counter() - started
    return _take(srv, usage)


# --- the report --------------------------------------------------------------------------------------------
def responder(request: dict[str, Any]) -> Any:
    if "bench_reply" in request:  # graphiti's client sends the answer its script chose; counted all the same
        return request["bench_reply"]
    return grapevine_answer(request)


def report(usages: list[Usage], skipped: list[tuple[str, str]], samples: list[IrcSample]) -> None:
    out = console()
    out.print(machine_note())
    total = sum(len(s.messages) for s in samples)
    headers = ("contender", "LLM calls", "calls/100 msgs", "prompt tok/100", "completion tok/100", "total tok/100",
               "schema tok/100*", "facts", "run s")
    rows = [(u.name, u.calls, f"{u.per_100(u.calls):.2f}", f"{u.per_100(u.prompt_tokens):,.0f}",
             f"{u.per_100(u.completion_tokens):,.0f}", f"{u.per_100(u.prompt_tokens + u.completion_tokens):,.0f}",
             f"{u.per_100(u.schema_tokens):,.0f}", u.facts, f"{u.seconds:.0f}") for u in usages]
    rows += [(name, "not run", "", "", "", "", "", "", "") for name, _ in skipped]
    out.print(table(f"LLM cost per 100 messages: {len(samples)} IRC samples, {total} messages", headers, rows))
    out.print("* schema tok: the Extraction JSON schema sent as response_format beside the prompt; the server's "
              "prompt count leaves it out (graphiti writes its schemas into the prompt text, so they are counted).")
    out.print("facts: Fact nodes in the graph (grapevine; a restated fact corroborates), distinct facts kept "
              "(per-message), entity edges written (graphiti; its scripted dedupe answers 'no duplicate').")
    for name, reason in skipped:
        out.print(f"{name}: NOT RUN: {reason}")
    base = next((u for u in usages if u.name.startswith("grapevine")), None)
    if base and base.calls:
        base_tokens = base.prompt_tokens + base.completion_tokens
        for u in usages:
            if u is base:
                continue
            tokens = u.prompt_tokens + u.completion_tokens
            out.print(f"ratio {u.name} / grapevine: {u.calls / base.calls:.1f}x the calls, "
                      f"{tokens / base_tokens if base_tokens else 0:.1f}x the tokens "
                      f"({u.prompt_tokens / base.prompt_tokens if base.prompt_tokens else 0:.1f}x prompt, "
                      f"{u.completion_tokens / base.completion_tokens if base.completion_tokens else 0:.1f}x completion)")
    with_sections = [u for u in usages if u.sections]
    if with_sections:
        names = list(dict.fromkeys(k for u in with_sections for k in u.sections))
        out.print(table("Prompt tokens per call by section (grapevine's prompt builder)", ["section", *(u.name for u in with_sections)],
                        [[n, *(f"{u.sections.get(n, 0):,.0f}" for u in with_sections)] for n in names]))
    for u in usages:
        if u.by_prompt:
            parts = ", ".join(f"{name} {count}" for name, count in u.by_prompt.most_common())
            out.print(f"{u.name}: calls by response model: {parts}")


async def run(samples: list[IrcSample], with_graphiti: bool) -> tuple[list[Usage], list[tuple[str, str]]]:
    usages: list[Usage] = []
    skipped: list[tuple[str, str]] = []
    with scripted_llm(responder) as (srv, llm):
        usages.append(await run_grapevine(samples, srv, llm))
        usages.append(await run_per_message(samples, srv))
        name = "graphiti-core add_episode (same windows)"
        reason = graphiti_missing() if with_graphiti else "switched off with --no-graphiti"
        if reason is None:
            try:
                usages.append(await run_graphiti(samples, srv))
            except Exception as exc:  # noqa: BLE001 - report why it did not run, never invent numbers
                skipped.append((name, f"it failed: {type(exc).__name__}: {str(exc)[:300]}"))
                srv.reset()
        else:
            skipped.append((name, reason))
        await llm.aclose()
    return usages, skipped


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.economy", description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA_DIR, help="shared data folder (or a folder of *.raw.txt)")
    parser.add_argument("--quick", action="store_true", help=f"only the first {QUICK_MESSAGES} messages of one sample")
    parser.add_argument("--no-graphiti", action="store_true", help="skip graphiti-core")
    args = parser.parse_args(argv)
    quiet_logs()
    try:
        paths = dev_samples(args.data)
    except FileNotFoundError as exc:
        parser.error(str(exc))
    samples = [distinct_ids(load_irc(p)) for p in paths[: 1 if args.quick else None]]
    if args.quick:
        samples = [IrcSample(s.name, s.messages[:QUICK_MESSAGES], s.reply_links) for s in samples]
    usages, skipped = asyncio.run(run(samples, not args.no_graphiti))
    report(usages, skipped, samples)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
