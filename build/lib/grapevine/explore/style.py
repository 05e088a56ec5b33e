"""The explorer draws with Neo4j Browser's style file, `docker/grapevine.grass`, read at start.

The page gets the parsed rules in file order (later rules win, as in Browser) and maps them onto
the graph library's style: node and relationship colours, sizes, borders and captions come from
the one file operators already load into Browser, so both pictures stay alike.
"""

from __future__ import annotations

from pathlib import Path

from grapevine.explore.grass import load_grass

GRASS = Path(__file__).resolve().parents[2] / "docker" / "grapevine.grass"


def style_rules(path: Path = GRASS) -> list[dict[str, object]]:
    """[{selector, properties}] in file order; GrassError when Browser would misread the file."""
    if not path.is_file():
        raise FileNotFoundError(
            f"{path}: the Browser style file the explorer draws with is missing (run grapevine from a checkout of the repository)"
        )
    return [{"selector": selector, "properties": props} for selector, props in load_grass(path).items()]
