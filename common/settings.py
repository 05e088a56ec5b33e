"""Configuration as plain data, one section per subsystem, with its defaults and bounds.

Nothing here reads the environment: `grapevine.config.load_settings` does, once, in the wiring, and
hands each package its section. A bad value there raises `ConfigError` naming the variable.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator

from common.urls import mask_credentials


class ConfigError(ValueError):
    """A configuration value is missing or wrong; the message names the variable."""


class SettingsSection(BaseModel):
    """One subsystem's settings; `PREFIX` is the start of its environment variables' names."""

    model_config = ConfigDict(extra="ignore")
    PREFIX: ClassVar[str] = ""

    def __repr_args__(self) -> Iterable[tuple[str | None, Any]]:
        """As pydantic shows them, with the credentials of a URL masked (secrets are SecretStr already)."""
        for name, value in super().__repr_args__():
            yield name, mask_credentials(value) if isinstance(value, str) else value


class GraphSettings(SettingsSection):
    PREFIX = "GRAPEVINE_"

    engine: Literal["arcadedb", "neo4j"] = "arcadedb"
    data_dir: Path = Path("data")


class Neo4jSettings(SettingsSection):
    PREFIX = "NEO4J_"

    uri: str = "bolt://localhost:7687"
    user: str = "neo4j"
    password: SecretStr = SecretStr("")
    database: str = "neo4j"
    reader_user: str = ""  # a user with the `reader` role (Enterprise): operator queries run as it
    reader_password: SecretStr = SecretStr("")


class ArcadeDBSettings(SettingsSection):
    PREFIX = "ARCADEDB_"

    host: str = "127.0.0.1"
    bolt_port: int = Field(7688, ge=1, le=65535)
    http_port: int = Field(2480, ge=1, le=65535)
    database: str = "grapevine"
    password: SecretStr | None = None
    heap: str = Field("2g", pattern=r"^\d+[mMgG]$")
    start_timeout: float = Field(90.0, gt=0)
    external: bool = False  # an ArcadeDB server run by someone else: joined as it is, never started or owned
    aot_cache: bool = True  # the JDK AOT cache (grapevine.runtime.aot_folder): a restarted engine warms up sooner


class WarmEngineSettings(SettingsSection):
    PREFIX = "ENGINE_"

    # The embedded engine a one-shot command starts keeps serving in the background for the commands after it
    # until it has been idle this long; 0: each command starts and stops its own (tests, CI).
    idle_minutes: float = Field(15.0, ge=0)


class LLMSettings(SettingsSection):
    PREFIX = "LLM_"

    base_url: str | None = None
    api_key: SecretStr = SecretStr("not-needed")
    model: str = "gpt-4o-mini"
    timeout: float | None = Field(None, gt=0)  # None: 60 s for a remote endpoint, 600 s for one on this machine
    max_attempts: int = Field(4, ge=1, le=20)
    reply_model: str | None = None
    output_mode: Literal["auto", "json_schema", "json_object", "tools", "text"] = "auto"
    fold_system: bool = True  # instructions go in the first user turn: some chat templates drop system messages
    max_tokens: int = Field(8192, ge=64)  # a cap on any answer; extraction asks for less when its schema bounds allow
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    context_tokens: int = Field(0, ge=0)  # the model's context size; 0: ask the server (llama.cpp /props), else unbounded
    breaker_failures: int = Field(3, ge=1)  # consecutive unreachable calls that open the circuit breaker
    breaker_seconds: float = Field(300.0, gt=0)  # how long an open breaker parks calls before one is tried again
    price_prompt_per_mtok: float = Field(0.0, ge=0.0)  # price table (any currency) per million tokens, for stats
    price_completion_per_mtok: float = Field(0.0, ge=0.0)

    @property
    def configured(self) -> bool:
        return bool(self.base_url)


class EmbeddingSettings(SettingsSection):
    PREFIX = "EMBEDDINGS_"

    model: Literal["", "all-minilm-l6-v2"] = ""
    dimension: int = Field(384, gt=0)

    @property
    def enabled(self) -> bool:
        return bool(self.model)


class WindowSettings(SettingsSection):
    PREFIX = "WINDOW_"

    quiet_seconds: float = Field(180.0, gt=0)
    max_messages: int = Field(30, ge=1)
    max_age_seconds: float = Field(1800.0, gt=0)
    buffer_max_messages: int = Field(2000, ge=1)
    context_messages: int = Field(15, ge=0)  # earlier messages of the channel shown with a window
    record_tick_ms: float = Field(50.0, ge=0, le=5000)  # messages are written in batches this often (0: one by one)


class ExtractionSettings(SettingsSection):
    PREFIX = "EXTRACTION_"

    probability: float = Field(1.0, ge=0.0, le=1.0)
    max_facts_per_person: int = Field(5, ge=1)
    max_facts_per_window: int = Field(15, ge=1)
    guild_concurrency: int = Field(4, ge=1)
    max_message_chars: int = Field(2000, ge=50)
    max_attempts: int = Field(5, ge=1, le=50)  # attempts per window before it is failed for good
    retry_minutes: float = Field(2.0, gt=0)  # the bot retries a failed window after 2, 4, 8... of these
    # closed windows of a guild wait and are extracted together in one call (ingest.extraction.batch_rule)
    batch_messages: int = Field(30, ge=1)  # a batch is sent once its windows hold this many messages (1: no batching)
    batch_tokens: int = Field(6000, ge=200)  # ... or their messages this many prompt tokens (estimated)
    batch_age_seconds: float = Field(7200.0, gt=0)  # ... or its oldest message is this old (a busy guild's limit)
    batch_age_max_seconds: float = Field(43200.0, gt=0)  # a quiet guild's batch waits longer, with its pace, up to this
    batch_attempts: int = Field(2, ge=1, le=10)  # tries of a batch before its windows are extracted one by one


class MemorySettings(SettingsSection):
    PREFIX = "MEMORY_"

    max_facts_per_user: int = Field(50, ge=1)
    upkeep_interval_hours: float = Field(24.0, gt=0)
    retain_messages_days: int = Field(0, ge=0)  # 0: keep forever (graph/privacy/retention.py)
    retain_closed_facts_days: int = Field(0, ge=0)  # 0: keep forever


class ReplySettings(SettingsSection):
    PREFIX = "REPLY_"

    member_cooldown_seconds: float = Field(10.0, ge=0)  # one reply per member in this time (a polite word once)
    channel_cooldown_seconds: float = Field(2.0, ge=0)  # one reply per channel in this time
    guild_daily_replies: int = Field(500, ge=0)  # reply calls per guild per UTC day; 0: no budget


class ContextSettings(SettingsSection):
    PREFIX = "CONTEXT_"

    total_tokens: int = Field(8000, ge=100)
    author_tokens: int = Field(1500, ge=0)
    related_tokens: int = Field(2000, ge=0)
    recalled_tokens: int = Field(1500, ge=0)
    channel_tokens: int = Field(2500, ge=0)
    thread_tokens: int = Field(2000, ge=0)
    channel_messages: int = Field(30, ge=0)
    channel_episodes: int = Field(5, ge=0)
    recalled_messages: int = Field(20, ge=0)  # earlier messages of the channel holding the message's words
    thread_messages: int = Field(5, ge=0)
    reply_chain_messages: int = Field(40, ge=0)
    reply_chain_chars: int = Field(8000, ge=0)
    reply_chain_minutes: int = Field(240, ge=0)
    rehearsal_seconds: float = Field(60.0, ge=0)  # at start, the reply reads rehearsed in the background (recall/rehearsal.py)


class RecallTuning(BaseModel):
    """What a reply recalls and how it ranks it: the sizes of the reply's reads and the switches of its ranking,
    each measured on LoCoMo (`bench.locomo` turns each lever off alone). Passed to the reads, the ranking and
    the assembly. Not read from the environment: a change here is a measurement, not a setting; `Settings.recall`
    gives them with the older windows following the operator's WINDOW_MAX_MESSAGES."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # the first round of reads (recall.gather, context/facts.cypher, context/conversation.cypher)
    author_facts: int = Field(50, ge=0)  # facts about the author read
    source_facts: int = Field(20, ge=0)  # per related source: linked entities, vectors
    ranked_pool: int = Field(150, ge=0)  # facts about named people and entities read, then ranked by relevance
    hop_facts: int = Field(20, ge=0)  # facts of the second hop (entities related to the named) read, before ranking
    search_hits: int = Field(5, ge=1)  # full-text matches read per result kept, before the guild and validity filters
    chain_depth: int = Field(41, ge=1)  # the reply chain follows at most 40 hops: the message and 40 ancestors
    message_episodes: int = Field(3, ge=0)  # recent messages come from at least the channel's last 3 windows
    name_words: int = Field(3, ge=1)  # runs of up to this many words of a message may name an entity
    name_candidates: int = Field(60, ge=0)  # such runs looked up at most
    # recalled messages (context/recalled.cypher, context/recalled_before.cypher)
    span: timedelta = timedelta(days=30)  # searched for in the channel's last 30 days,
    span_messages: int = Field(2000, ge=1)  # among its last 2,000 messages at most: the search never grows with history
    older_episodes: int = Field(66, ge=0)  # a quiet channel's windows before the span searched too (`for_windows`)
    rarity: bool = True  # candidates preselected by the rarity of the words they hold (idf), not their count
    passage: bool = True  # a candidate also scores the words of the messages next to it (a question and its answer)
    neighbour_matches: int = Field(10, ge=0)  # the best matches that bring the messages just before and after them
    # the second round (recall.expand)
    passage_reach: int = Field(3, ge=0)  # a recalled match's passage: up to this many turns each side in its window
    evidence_facts: int = Field(5, ge=0)  # the best related facts whose turns are read
    evidence_span: int = Field(1, ge=0)  # neighbours each side of a source turn in its window
    matched_facts: int = Field(40, ge=0)  # facts drawn from the recalled messages read, before those sharing no word go
    # ranking (recall.ranking)
    stems: bool = True  # the question and the facts compared by word stems
    plural_ing: bool = True  # "writings" meets "writing": the plural of an -ing word loses both endings
    time_aware: bool = True  # a message naming a date ranks what was said then first among what matches it
    searched_weight: float = Field(1.0, ge=0.0)  # weight in the fusion of each search index's order (vectors)
    rrf_k: int = Field(60, ge=1)  # reciprocal rank fusion constant (Cormack, Clarke and Büttcher, 2009)
    # assembly (recall.assemble)
    related_facts: int = Field(40, ge=1)  # related facts a context considers, best first
    redundant: bool = True  # a recalled message whose fact the context keeps gives way to the next match
    redundant_rounds: int = Field(4, ge=0)  # selections at most: each drops what the one before kept twice
    speaker_blind: bool = True  # a question naming a member is ranked by its other words: who said it is shown, not ranked on
    shared_relevance: bool = True  # related facts and recalled messages share their tokens by one relevance to the message
    passages: bool = True  # a recalled message scores with the messages that came beside it (its passage)
    grouped: bool = True  # facts of the same reporters and day, and messages of the same day, say it once
    many_turn_weight: float = Field(1.5, ge=0.0)  # asking several things: recalled turns' tokens count this many times

    def for_windows(self, windows: WindowSettings) -> RecallTuning:
        """With the older windows searched following `windows`: as many as hold about `span_messages` at the
        windows' largest, whatever the channel's age (the default is that at WINDOW_MAX_MESSAGES's default). In a
        channel that talks a few times a month, what was said two months ago lies before the span: these windows
        are how it is recalled at all."""
        return self.model_copy(update={"older_episodes": self.span_messages // windows.max_messages})


class DiscordSettings(SettingsSection):
    PREFIX = "DISCORD_"

    token: SecretStr | None = None
    # Discord's REST API: the bot's client and `grapevine doctor` call it here (a REST proxy shared by shards may stand in).
    api_url: str = "https://discord.com/api/v10"
    # One gateway shard per process when one is not enough (bot/shards.py): this process's shard of shard_count.
    shard_count: int = Field(default=1, ge=1)
    shard_id: int = Field(default=0, ge=0)

    @field_validator("api_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not value.startswith(("https://", "http://")) or len(value.split()) != 1:
            scheme = value.partition("://")[0]  # the rest is not shown: it may hold credentials
            if len(value.split()) != 1:
                why = "this one holds white space"
            elif "://" in value and scheme.isalnum() and len(scheme) < 20:
                why = f"this one starts with {scheme}://"
            else:
                why = "this one does not start with http:// or https://"
            raise ValueError(f"DISCORD_API_URL must be an http(s) URL, like https://discord.com/api/v10; {why}")
        return value.rstrip("/")

    @model_validator(mode="after")
    def _shard_in_range(self) -> DiscordSettings:
        if self.shard_id >= self.shard_count:
            raise ValueError(f"DISCORD_SHARD_ID must be below DISCORD_SHARD_COUNT ({self.shard_count}), not {self.shard_id}")
        return self


class LogSettings(SettingsSection):
    PREFIX = "LOG_"

    level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    content: bool = False
    file: Path | None = None
    # A long command whose output is not a terminal (a file, a pipe, a service's log) prints a progress line this often.
    progress_seconds: float = Field(default=5.0, gt=0)


class Settings(BaseModel):
    """Every section; in the environment each reads its own `PREFIX_KEY` variables."""

    model_config = ConfigDict(extra="ignore")

    graph: GraphSettings = Field(default_factory=lambda: GraphSettings())
    neo4j: Neo4jSettings = Field(default_factory=Neo4jSettings)
    arcadedb: ArcadeDBSettings = Field(default_factory=lambda: ArcadeDBSettings())
    warm: WarmEngineSettings = Field(default_factory=lambda: WarmEngineSettings())
    llm: LLMSettings = Field(default_factory=lambda: LLMSettings())
    embeddings: EmbeddingSettings = Field(default_factory=lambda: EmbeddingSettings())
    window: WindowSettings = Field(default_factory=lambda: WindowSettings())
    extraction: ExtractionSettings = Field(default_factory=lambda: ExtractionSettings())
    memory: MemorySettings = Field(default_factory=lambda: MemorySettings())
    reply: ReplySettings = Field(default_factory=lambda: ReplySettings())
    context: ContextSettings = Field(default_factory=lambda: ContextSettings())
    discord: DiscordSettings = Field(default_factory=lambda: DiscordSettings())
    log: LogSettings = Field(default_factory=lambda: LogSettings())

    @property
    def recall(self) -> RecallTuning:
        """The reply's recall tuning, its older windows following WINDOW_MAX_MESSAGES (not an environment section)."""
        return RecallTuning().for_windows(self.window)

    @model_validator(mode="after")
    def _neo4j_needs_password(self) -> Settings:
        if self.graph.engine == "neo4j" and not self.neo4j.password.get_secret_value():
            raise ValueError("NEO4J_PASSWORD is required when GRAPEVINE_ENGINE=neo4j")
        return self
