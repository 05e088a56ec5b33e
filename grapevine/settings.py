"""Configuration from the environment (and an optional `.env`), one section per subsystem.

Build `Settings()` in `main()`, never at import time. A bad value raises `ConfigError` naming the
environment variable, so start-up stops with a message an operator can act on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, ValidationError, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class ConfigError(ValueError):
    """A configuration value is missing or wrong; the message names the variable."""


def _section(prefix: str) -> SettingsConfigDict:
    return SettingsConfigDict(env_prefix=prefix, env_file=".env", extra="ignore")


class GraphSettings(BaseSettings):
    model_config = _section("GRAPEVINE_")

    engine: Literal["arcadedb", "neo4j"] = "arcadedb"
    data_dir: Path = Path("data")


class Neo4jSettings(BaseSettings):
    model_config = _section("NEO4J_")

    uri: str = "bolt://localhost:7687"
    user: str = "neo4j"
    password: SecretStr = SecretStr("")
    database: str = "neo4j"


class ArcadeDBSettings(BaseSettings):
    model_config = _section("ARCADEDB_")

    host: str = "127.0.0.1"
    bolt_port: int = Field(7688, ge=1, le=65535)
    http_port: int = Field(2480, ge=1, le=65535)
    database: str = "grapevine"
    password: SecretStr | None = None
    heap: str = Field("2g", pattern=r"^\d+[mMgG]$")
    start_timeout: float = Field(90.0, gt=0)


class LLMSettings(BaseSettings):
    model_config = _section("LLM_")

    base_url: str | None = None
    api_key: SecretStr = SecretStr("not-needed")
    model: str = "gpt-4o-mini"
    timeout: float = Field(60.0, gt=0)
    max_attempts: int = Field(4, ge=1, le=20)
    reply_model: str | None = None

    @property
    def configured(self) -> bool:
        return bool(self.base_url)


class EmbeddingSettings(BaseSettings):
    model_config = _section("EMBEDDINGS_")

    model: Literal["", "all-minilm-l6-v2"] = ""
    dimension: int = Field(384, gt=0)

    @property
    def enabled(self) -> bool:
        return bool(self.model)


class WindowSettings(BaseSettings):
    model_config = _section("WINDOW_")

    quiet_seconds: float = Field(180.0, gt=0)
    max_messages: int = Field(30, ge=1)
    max_age_seconds: float = Field(1800.0, gt=0)
    buffer_max_messages: int = Field(2000, ge=1)
    context_messages: int = Field(10, ge=0)  # earlier messages of the channel shown with a window


class ExtractionSettings(BaseSettings):
    model_config = _section("EXTRACTION_")

    probability: float = Field(1.0, ge=0.0, le=1.0)
    max_facts_per_person: int = Field(5, ge=1)
    max_facts_per_window: int = Field(15, ge=1)
    guild_concurrency: int = Field(4, ge=1)
    max_message_chars: int = Field(2000, ge=50)


class MemorySettings(BaseSettings):
    model_config = _section("MEMORY_")

    max_facts_per_user: int = Field(50, ge=1)
    upkeep_interval_hours: float = Field(24.0, gt=0)


class ContextSettings(BaseSettings):
    model_config = _section("CONTEXT_")

    total_tokens: int = Field(8000, ge=100)
    author_tokens: int = Field(1500, ge=0)
    related_tokens: int = Field(2000, ge=0)
    recalled_tokens: int = Field(1500, ge=0)
    channel_tokens: int = Field(2500, ge=0)
    thread_tokens: int = Field(2000, ge=0)
    channel_messages: int = Field(30, ge=0)
    channel_episodes: int = Field(5, ge=0)
    recalled_messages: int = Field(20, ge=0)  # earlier messages of the channel found by full-text search
    thread_messages: int = Field(5, ge=0)
    reply_chain_messages: int = Field(40, ge=0)
    reply_chain_chars: int = Field(8000, ge=0)
    reply_chain_minutes: int = Field(240, ge=0)


class DiscordSettings(BaseSettings):
    model_config = _section("DISCORD_")

    token: SecretStr | None = None


class LogSettings(BaseSettings):
    model_config = _section("LOG_")

    level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    content: bool = False
    file: Path | None = None


class Settings(BaseSettings):
    """Every section; each reads its own `PREFIX_KEY` variables."""

    model_config = SettingsConfigDict(extra="ignore")

    graph: GraphSettings = Field(default_factory=GraphSettings)
    neo4j: Neo4jSettings = Field(default_factory=Neo4jSettings)
    arcadedb: ArcadeDBSettings = Field(default_factory=ArcadeDBSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    embeddings: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    window: WindowSettings = Field(default_factory=WindowSettings)
    extraction: ExtractionSettings = Field(default_factory=ExtractionSettings)
    memory: MemorySettings = Field(default_factory=MemorySettings)
    context: ContextSettings = Field(default_factory=ContextSettings)
    discord: DiscordSettings = Field(default_factory=DiscordSettings)
    log: LogSettings = Field(default_factory=LogSettings)

    @model_validator(mode="after")
    def _neo4j_needs_password(self) -> Settings:
        if self.graph.engine == "neo4j" and not self.neo4j.password.get_secret_value():
            raise ValueError("NEO4J_PASSWORD is required when GRAPEVINE_ENGINE=neo4j")
        return self


_PREFIXES: dict[type[BaseSettings], str] = {
    GraphSettings: "GRAPEVINE_",
    Neo4jSettings: "NEO4J_",
    ArcadeDBSettings: "ARCADEDB_",
    LLMSettings: "LLM_",
    EmbeddingSettings: "EMBEDDINGS_",
    WindowSettings: "WINDOW_",
    ExtractionSettings: "EXTRACTION_",
    MemorySettings: "MEMORY_",
    ContextSettings: "CONTEXT_",
    DiscordSettings: "DISCORD_",
    LogSettings: "LOG_",
}


def load_settings() -> Settings:
    """Read every section; on a bad value raise ConfigError naming the variable."""
    sections: dict[str, BaseSettings] = {}
    for name, field in Settings.model_fields.items():
        cls = field.default_factory  # type: ignore[assignment]
        try:
            sections[name] = cls()  # type: ignore[misc]
        except ValidationError as exc:
            raise ConfigError(_describe(exc, _PREFIXES[cls])) from None  # type: ignore[index]
    try:
        return Settings(**sections)
    except ValidationError as exc:
        raise ConfigError("; ".join(str(e["msg"]).removeprefix("Value error, ") for e in exc.errors())) from None


def _describe(exc: ValidationError, prefix: str) -> str:
    parts = []
    for err in exc.errors():
        key = prefix + "_".join(str(p) for p in err["loc"]).upper()
        parts.append(f"{key}: {err['msg']} (got {err.get('input')!r})")
    return "bad configuration: " + "; ".join(parts)
