"""Reading the configuration from the environment (and an optional `.env`), once, in the wiring.

Each section of `common.settings` is read from its own `PREFIX_KEY` variables; a bad value raises
`ConfigError` naming the variable, so start-up stops with a message an operator can act on.
"""

from __future__ import annotations

from pydantic import BaseModel, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from common.ids import shown
from common.settings import ConfigError, Settings
from common.urls import mask_credentials


def _from_environment(section: type[BaseModel]) -> BaseModel:
    prefix = getattr(section, "PREFIX", "")

    class Environment(section, BaseSettings):  # type: ignore[valid-type,misc]  # a section made to read env vars
        model_config = SettingsConfigDict(env_prefix=prefix, env_file=".env", extra="ignore", env_ignore_empty=True)

    try:
        read = Environment()
    except ValidationError as exc:
        raise ConfigError(describe_errors(exc, prefix, section)) from None
    return section.model_validate(dict(read))


def load_settings() -> Settings:
    """Read every section; on a bad value raise ConfigError naming the variable."""
    sections: dict[str, BaseModel] = {}
    for name, field in Settings.model_fields.items():
        section = field.annotation
        assert isinstance(section, type) and issubclass(section, BaseModel)
        sections[name] = _from_environment(section)
    try:
        return Settings.model_validate(sections)
    except ValidationError as exc:
        raise ConfigError(
            "; ".join(mask_credentials(str(e["msg"]).removeprefix("Value error, ")) for e in exc.errors())
        ) from None


def describe_errors(exc: ValidationError, prefix: str, section: type[BaseModel]) -> str:
    """Each bad value named by its variable. The value is quoted (shortened) unless the setting is a secret or the
    value may hold one: a token or a password is never printed, not even a wrong one, nor a text with an `@` (the
    credentials of a URL, with or without its scheme)."""
    parts = []
    for err in exc.errors():
        key = prefix + "_".join(str(p) for p in err["loc"]).upper()
        message = mask_credentials(str(err["msg"]).removeprefix("Value error, "))
        given = str(err.get("input"))
        if _secret(section, err["loc"]) or "@" in given:
            parts.append(f"{key}: {message}")
        else:
            parts.append(f"{key}: {message} (got {shown(given)})")
    return "bad configuration: " + "; ".join(parts)


def _secret(section: type[BaseModel], loc: tuple[int | str, ...]) -> bool:
    field = section.model_fields.get(str(loc[0])) if loc else None
    return field is None or "SecretStr" in str(field.annotation)
