"""Write a DiscordChatExporter JSON export built from one shared IRC sample, to try `grapevine import`.

usage: .venv/bin/python -m bench.sample_export ../shared/data/irc/dev/2009-10-01_17.raw.txt export.json
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.support.dce_builder import export_from_irc


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    export_from_irc(Path(argv[0]), Path(argv[1]))
    print(f"wrote {argv[1]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
