"""The `grapevine` console script: the commands are registered on `app` by importing their modules."""

from grapevine.cli import channels, commands, demo, names, operator, privacy, topics
from grapevine.cli.base import app
from grapevine.explore.command import explore

app.command()(explore)

__all__ = ["app", "channels", "commands", "demo", "names", "operator", "privacy", "topics"]
