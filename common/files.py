"""Files and folders grapevine creates for its user alone: folders 0700, files 0600, with those rights from the
first byte (never written first and narrowed after). The data directory holds what members said, the engine's
password and its records: another local user must not read any of it.

Commands and the engine child also set the umask to PRIVATE_UMASK at start, so what a library writes (the engine's
own files, a log handler's file) is private too; the helpers here make it so whatever the process's umask is.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path

PRIVATE_UMASK = 0o077
DIR_MODE = 0o700
FILE_MODE = 0o600


def private_umask() -> None:
    """Everything this process creates from now on is its user's alone."""
    os.umask(PRIVATE_UMASK)


def private_dir(path: Path) -> Path:
    """`path` as a folder; it and any missing parent are created 0700 (an existing folder keeps its mode:
    `grapevine doctor` reports one that others can read)."""
    missing: list[Path] = []
    probe = path
    while not probe.exists() and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    for folder in reversed(missing):
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=DIR_MODE)
    return path


def private_opener(path: str, flags: int) -> int:
    """An `opener` for `open()`: a file it creates is 0600 from the start."""
    return os.open(path, flags, FILE_MODE)


def touch_private(path: Path) -> Path:
    """Create `path` empty and 0600 unless it exists (for a file a library opens by name, such as a log)."""
    private_dir(path.parent)
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, FILE_MODE))
    return path


def create_private(path: Path, text: str) -> bool:
    """Write `text` to a new file `path`, 0600, whole or not at all; False when `path` exists already (another
    process made it first: its content stands)."""
    private_dir(path.parent)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.link(tmp, path)  # fails if it exists: never replaces what another process wrote
    except FileExistsError:
        return False
    finally:
        tmp.unlink(missing_ok=True)
    return True


def exposed(root: Path) -> Iterator[Path]:
    """`root` and what is under it that a user other than the owner may read, write or enter (symbolic links
    are not followed)."""
    if not root.exists():
        return
    for folder, dirs, files in os.walk(root):
        base = Path(folder)
        if stat.S_IMODE(base.lstat().st_mode) & 0o077:
            yield base
        for name in files:
            mode = (base / name).lstat().st_mode
            if not stat.S_ISLNK(mode) and stat.S_IMODE(mode) & 0o077:
                yield base / name
        dirs[:] = [d for d in dirs if not (base / d).is_symlink()]
