"""Values derived once from installed data and kept in the user's cache folder (XDG_CACHE_HOME, else ~/.cache,
under grapevine/): the folder is 0700 and each file 0600. A file is trusted only when it holds the key it was built
for (the versions and settings it depends on) and data of the expected shape; anything else (stale, cut short,
edited, unreadable) is built again and replaced whole, so a reader never sees half a file. A cache that cannot be
written costs only the time to build its value again."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from common.files import private_dir, private_opener

T = TypeVar("T")


def cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "grapevine"


def cached(path: Path, key: Mapping[str, Any], build: Callable[[], object], read: Callable[[Any], T | None]) -> T:
    """The value `path` holds for `key`, as `read` makes it of the stored JSON (None for a wrong shape); else
    what `build()` makes (JSON data), stored there for the next process and read the same way."""
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(stored, dict) and stored.get("key") == json.loads(json.dumps(key)):
            value = read(stored.get("data"))
            if value is not None:
                return value
    except (OSError, ValueError):
        pass  # missing, unreadable or not JSON: built again below
    built = build()
    store(path, key, built)
    value = read(built)
    if value is None:
        raise ValueError(f"{path.name}: built data of a shape its reader refuses")
    return value


def store(path: Path, key: Mapping[str, Any], value: object) -> bool:
    """Replace `path` atomically by `value` under `key`, the new file 0600 from its first byte; False when the
    folder cannot be written."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        private_dir(path.parent)
        with open(tmp, "x", encoding="utf-8", opener=private_opener) as f:
            json.dump({"key": key, "data": value}, f, ensure_ascii=False, separators=(",", ":"))
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        return False
    return True
