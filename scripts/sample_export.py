"""Write a DiscordChatExporter JSON export built from one shared IRC sample, to try `grapevine import`.

usage: .venv/bin/python scripts/sample_export.py ../shared/data/irc/dev/2009-10-01_17.raw.txt export.json
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.dce_builder import export_from_irc  # noqa: E402

if len(sys.argv) != 3:
    sys.exit(__doc__)
export_from_irc(Path(sys.argv[1]), Path(sys.argv[2]))
print(f"wrote {sys.argv[2]}")
