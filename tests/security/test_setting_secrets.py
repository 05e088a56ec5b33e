"""A bad setting is named with its variable, never with a secret: a URL's credentials are not printed, with or
without the URL's scheme, by the setting's own check nor by the line that reports it, and a secret setting's
value is never echoed, not even a wrong one."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel, Field, SecretStr, ValidationError

from grapevine.config import describe_errors
from tests.security.cli import grapevine

SECRET = "s3cret-7d1e"


@pytest.mark.parametrize(
    "url",
    [
        f"ftp://user:{SECRET}@127.0.0.1/api",
        f"user:{SECRET}@127.0.0.1/api",  # no scheme: no URL pattern finds its credentials
        f"ftp://user:{SECRET}{'x' * 60}@127.0.0.1/api",  # past the length a value is shortened to
        f"https://user:{SECRET}@127.0.0.1/ api",
    ],
)
def test_a_bad_url_setting_is_reported_without_its_credentials(tmp_path: Path, url: str) -> None:
    done = grapevine(tmp_path, "stats", DISCORD_API_URL=url, GRAPEVINE_DATA_DIR=str(tmp_path / "data"))
    shown = done.stdout + done.stderr
    assert done.returncode != 0 and "Traceback" not in shown, shown
    assert "DISCORD_API_URL must be an http(s) URL" in shown, shown
    assert SECRET not in shown, shown


class SettingsSection(BaseModel):
    api_key: SecretStr = Field(SecretStr(""), min_length=8)
    rate: int = 1


def test_a_secret_setting_that_fails_its_check_is_not_echoed() -> None:
    with pytest.raises(ValidationError) as info:
        SettingsSection.model_validate({"api_key": "sk-1", "rate": "many"})
    said = describe_errors(info.value, "X_", SettingsSection)
    assert "X_API_KEY" in said and "sk-1" not in said, said
    assert "X_RATE" in said and "(got 'many')" in said, said  # what is not secret is still quoted
