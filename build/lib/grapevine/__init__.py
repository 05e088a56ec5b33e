"""grapevine: long-term memory for Discord communities."""

__version__ = "0.1.0"
