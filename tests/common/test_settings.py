"""Configuration: defaults, a bad value named, and .env.example documenting every key."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from common.settings import ConfigError, RecallTuning, Settings, SettingsSection
from grapevine.config import load_settings

REPO = Path(__file__).resolve().parents[2]


def test_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO / "tests")  # no .env here
    s = load_settings()
    assert (s.graph.engine, s.window.quiet_seconds, s.window.max_messages, s.window.buffer_max_messages) == (
        "arcadedb",
        180,
        30,
        2000,
    )
    assert (s.context.total_tokens, s.memory.max_facts_per_user, s.extraction.probability) == (8000, 50, 1.0)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("WINDOW_QUIET_SECONDS", "soon"),
        ("EXTRACTION_PROBABILITY", "1.5"),
        ("GRAPEVINE_ENGINE", "mysql"),
        ("ARCADEDB_HEAP", "lots"),
    ],
)
def test_a_bad_value_names_its_key(monkeypatch: pytest.MonkeyPatch, key: str, value: str) -> None:
    monkeypatch.setenv(key, value)
    with pytest.raises(ConfigError, match=key):
        load_settings()


def test_neo4j_needs_a_password(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPEVINE_ENGINE", "neo4j")
    monkeypatch.delenv("NEO4J_PASSWORD", raising=False)
    with pytest.raises(ConfigError, match="NEO4J_PASSWORD"):
        load_settings()


def test_env_example_documents_every_key() -> None:
    documented = set(re.findall(r"^([A-Z0-9_]+)=", (REPO / ".env.example").read_text(), re.M))
    sections = [
        s for f in Settings.model_fields.values() if isinstance(s := f.annotation, type) and issubclass(s, SettingsSection)
    ]
    assert len(sections) == len(Settings.model_fields)  # every field is a section
    keys = {section.PREFIX + name.upper() for section in sections for name in section.model_fields}
    assert keys == documented


def test_env_example_loads_as_it_is(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A newcomer copies .env.example to .env: every value in it, empty ones included, must load."""
    (tmp_path / ".env").write_text((REPO / ".env.example").read_text())
    monkeypatch.chdir(tmp_path)
    settings = load_settings()
    assert settings.llm.timeout is None and settings.llm.base_url is None and not settings.llm.configured


def test_the_older_windows_recalled_follow_the_operators_window_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """A quiet channel's windows searched past the recalled span are as many as hold `span_messages` messages at
    WINDOW_MAX_MESSAGES each: the operator's value, not the default's."""
    monkeypatch.chdir(REPO / "tests")  # no .env here
    assert load_settings().recall == RecallTuning()  # the tuning's default is its rule at the default window size
    monkeypatch.setenv("WINDOW_MAX_MESSAGES", "50")
    assert load_settings().recall.older_episodes == RecallTuning().span_messages // 50 == 40
