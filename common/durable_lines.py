"""A file of JSON lines that survives a crash: each line written and fsynced before the caller goes on, the
whole file replaced atomically when lines leave it, and a line cut short by a crash ignored (what it held was
never acknowledged); the file is its user's alone (common/files.py). Pending edits and deletes, and unfinished forgets, are kept this way."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from common.files import private_dir, private_opener


class DurableLines:
    def __init__(self, path: Path) -> None:
        self.path = path

    def add(self, change: dict[str, Any]) -> None:
        private_dir(self.path.parent)
        with open(self.path, "a", encoding="utf-8", opener=private_opener) as f:
            f.write(json.dumps(change, ensure_ascii=False) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def load(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        changes = []
        for line in self.path.read_text(encoding="utf-8").splitlines():
            try:
                changes.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a line cut short by a crash while it was written: its event was never acknowledged
        return changes

    def keep(self, remaining: list[dict[str, Any]]) -> None:
        """Replace the file by what is still to apply (atomically)."""
        if not remaining:
            self.path.unlink(missing_ok=True)
            return
        tmp = self.path.with_suffix(".tmp")
        tmp.unlink(missing_ok=True)  # a file left by a crash keeps its mode: write a new one
        with open(tmp, "w", encoding="utf-8", opener=private_opener) as f:
            f.writelines(json.dumps(c, ensure_ascii=False) + "\n" for c in remaining)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)

    def __bool__(self) -> bool:
        return self.path.exists() and self.path.stat().st_size > 0
