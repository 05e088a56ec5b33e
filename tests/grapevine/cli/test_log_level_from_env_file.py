"""LOG_LEVEL set in `.env` applies to the operator commands as it does set in the environment: their events go
to the data directory's log at that level (without it, warnings only)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from grapevine.cli.base import settings_or_exit


@pytest.fixture
def restored_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for handler in root.handlers:
        if handler not in handlers:
            handler.close()
    root.handlers, root.level = handlers, level


@pytest.mark.usefixtures("restored_logging")
@pytest.mark.parametrize(("env_file", "level"), [("LOG_LEVEL=DEBUG\n", logging.DEBUG), ("", logging.WARNING)])
def test_log_level_in_the_env_file_sets_an_operator_commands_level(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, env_file: str, level: int
) -> None:
    for name in ("LOG_LEVEL", "LOG_FILE", "GRAPEVINE_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text(env_file + f"GRAPEVINE_DATA_DIR={tmp_path / 'data'}\n", encoding="utf-8")
    settings_or_exit()
    assert logging.getLogger().level == level
    assert (tmp_path / "data" / "logs" / "grapevine.log").exists()
