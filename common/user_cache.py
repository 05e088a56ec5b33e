"""Values derived once from installed data and kept in the user's cache folder (XDG_CACHE_HOME, else ~/.cache,
under grapevine/): the folder is 0700 and each file 0600. A file is trusted only when it holds the key it was built
for (the versions and settings it depends on) and data of the expected shape; anything else (stale, cut short,
edited, unreadable) is built again and replaced whole, so a reader never sees half a file. A cache that cannot be
written costs only the time to build its value again.

One process builds a folder's values at a time (`grapevine demo` builds the names lists in a process of its own,
and a forget started meanwhile needs the same files): a second builder waits for the first, then reads what it
stored. The lock is the folder's own (`flock` on it, leaving no file beside the values), so the kernel drops it
when its holder ends, however it ends."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, TypeVar

from common.files import private_dir, private_opener

T = TypeVar("T")


def cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "grapevine"


def cached(path: Path, key: Mapping[str, Any], build: Callable[[], object], read: Callable[[Any], T | None]) -> T:
    """The value `path` holds for `key`, as `read` makes it of the stored JSON (None for a wrong shape); else
    what `build()` makes (JSON data), stored there for the next process and read the same way. While another
    process builds a value of the same folder, this waits for it and reads again before building."""
    value = _stored(path, key, read)
    if value is not None:
        return value
    with building(path.parent):
        value = _stored(path, key, read)  # what the builder this waited for stored
        if value is not None:
            return value
        built = build()
        store(path, key, built)
    value = read(built)
    if value is None:
        raise ValueError(f"{path.name}: built data of a shape its reader refuses")
    return value


def _stored(path: Path, key: Mapping[str, Any], read: Callable[[Any], T | None]) -> T | None:
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(stored, dict) and stored.get("key") == json.loads(json.dumps(key)):
            return read(stored.get("data"))
    except (OSError, ValueError):
        pass  # missing, unreadable or not JSON: built again
    return None


_THREADS = threading.Lock()
_FOLDERS: dict[str, threading.RLock] = {}  # a thread of this process building in the folder
_HELD: set[str] = set()  # folders this process holds the lock of (a value built while building another)


@contextlib.contextmanager
def building(folder: Path) -> Iterator[None]:
    """Held while this process builds a value kept in `folder`: other processes' and threads' builders wait.
    Re-entered by the builder itself (a value built from others of the same folder). A folder that cannot be
    made or opened is built in without the lock: a cache there cannot be written anyway."""
    name = os.path.abspath(folder)
    with _THREADS:
        here = _FOLDERS.setdefault(name, threading.RLock())
    with here:
        if name in _HELD:
            yield
            return
        try:
            handle: int | None = os.open(private_dir(folder), os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            handle = None
        if handle is None:
            yield
            return
        try:
            fcntl.flock(handle, fcntl.LOCK_EX)
            _HELD.add(name)
            try:
                yield
            finally:
                _HELD.discard(name)
        finally:
            os.close(handle)  # and with it the lock


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
