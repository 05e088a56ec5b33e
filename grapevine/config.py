"""Reading the configuration from the environment (and an optional `.env`), once, in the wiring.

Each section of `common.settings` is read from its own `PREFIX_KEY` variables; a bad value raises
`ConfigError` naming the variable, so start-up stops with a message an operator can act on.
"""

from __future__ import annotations

from pydantic import BaseModel, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from common.settings import ConfigError, Settings


def _from_environment(section: type[BaseModel]) -> BaseModel:
    prefix = getattr(section, "PREFIX", "")

    class Environment(section, BaseSettings):  # type: ignore[valid-type,misc]  # a section made to read env vars
        model_config = SettingsConfigDict(env_prefix=prefix, env_file=".env", extra="ignore", env_ignore_empty=True)

    try:
        read = Environment()
    except ValidationError as exc:
        raise ConfigError(_describe(exc, prefix)) from None
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
        raise ConfigError("; ".join(str(e["msg"]).removeprefix("Value error, ") for e in exc.errors())) from None


def _describe(exc: ValidationError, prefix: str) -> str:
    parts = []
    for err in exc.errors():
        key = prefix + "_".join(str(p) for p in err["loc"]).upper()
        parts.append(f"{key}: {err['msg']} (got {err.get('input')!r})")
    return "bad configuration: " + "; ".join(parts)
