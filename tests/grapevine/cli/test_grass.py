"""docker/grapevine.grass: Neo4j Browser's style for the graph, read by grapevine/explore/grass.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from grapevine.explore.grass import GrassError, load_grass, parse_grass

GRASS = Path(__file__).resolve().parents[3] / "docker" / "grapevine.grass"
RELATIONSHIPS = (
    "IN_GUILD",
    "IN_CHANNEL",
    "IN_EPISODE",
    "SENT",
    "REPLIES_TO",
    "TOOK_PART_IN",
    "ABOUT",
    "MENTIONS",
    "RELATED_TO",
    "REPORTED_BY",
    "FROM",
    "EXTRACTED_FROM",
    "SUPERSEDES",
)


def px(value: str) -> int:
    assert value.endswith("px"), value
    return int(value[:-2])


def test_the_style_sheet_parses_and_captions_every_label() -> None:
    rules = load_grass(GRASS)
    captions = {
        "User": "{display_name}",
        "Fact": "{text}",
        "Entity": "{name}",
        "Episode": "{summary}",
        "Message": "{content}",
        "Guild": "{name}",
        "Channel": "{name}",
    }
    for label, caption in captions.items():
        rule = rules[f"node.{label}"]
        assert rule["caption"] == caption
        assert rule["color"].startswith("#") and px(rule["diameter"]) > 0
    colours = [rules[f"node.{label}"]["color"] for label in captions]
    assert len(set(colours)) == len(colours), "two labels share a colour"
    assert rules["node"]["diameter"] and rules["relationship"]["caption"] == "<type>"


def test_closed_facts_are_grey_small_and_win_over_fact() -> None:
    rules = load_grass(GRASS)
    closed, fact = rules["node.Closed"], rules["node.Fact"]
    order = list(rules)
    assert order.index("node.Closed") > order.index("node.Fact"), "Browser applies rules in order: Closed must come last"
    assert px(closed["diameter"]) < px(fact["diameter"])
    r, g, b = (int(closed["color"][i : i + 2], 16) for i in (1, 3, 5))
    assert abs(r - g) < 16 and abs(g - b) < 16, f"{closed['color']} is not grey"
    assert "caption" not in closed  # a closed fact keeps the Fact caption, {text}


def test_every_relationship_type_has_a_caption() -> None:
    rules = load_grass(GRASS)
    for rel in RELATIONSHIPS:
        assert rules[f"relationship.{rel}"]["caption"], rel
    assert rules["relationship.RELATED_TO"]["caption"] == "{kind}"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("node.User { caption: '{name}'; ", "block is not closed"),
        ("node.User  caption: x; }", "selector without a block"),
        ("node.User { caption {name}; }", "brace inside a block"),
        ("node.User { color #fff; }", "cannot read"),
        ("node.User { caption: 'a:b'; }", "holds a ':'"),
        ("node.User { color: #fff diameter: 5px; }", "holds a ':'"),
        ("person.User { color: #fff; }", "not a node or relationship selector"),
        ("node.User-x { color: #fff; }", "not a node or relationship selector"),
        ("node.User { color: #fff; }\nnode.User { diameter: 5px; }", "line 2: node.User is styled twice"),
        ("/* style */ node { color: #fff; }", "comments are allowed only after the last block"),
        ("node { color: #fff; } /* between */ relationship { color: #fff; }", "comments are allowed only after"),
        ("node { color: #fff; } /* it's */", "closing comment holds a quote"),
        ("node { caption: 'open; }", "quote is not closed"),
        ('node { caption: "{name}"; }', "double quotes"),
        ("node { color: ; }", "no value"),
        ("node { colour: #fff; }", "unknown property 'colour'"),
        ("node { color: #fff; color: #000; }", "set twice"),
        ("", "no style blocks"),
        ("node { color: #fff; } node.User", "selector without a block"),
        ("node { color: #fff; } }", "without a block"),
    ],
)
def test_malformed_style_sheets_are_refused(text: str, message: str) -> None:
    with pytest.raises(GrassError, match=message):
        parse_grass(text)


def test_single_quotes_are_removed_and_the_last_semicolon_is_optional() -> None:
    text = "node.A {\n  caption: '{x} ; {y}';\n  color: #fff\n}\nrelationship { caption: '<type>' }\n/* notes */\n"
    assert parse_grass(text) == {"node.A": {"caption": "{x} ; {y}", "color": "#fff"}, "relationship": {"caption": "<type>"}}


def test_load_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.grass"
    bad.write_text("node { color #fff; }", encoding="utf-8")
    with pytest.raises(GrassError, match="bad.grass: node"):
        load_grass(bad)


def test_the_notes_explain_closed_facts() -> None:
    notes = GRASS.read_text(encoding="utf-8").rsplit("/*", 1)[1]
    for word in ("Closed", "closed_facts_marked", "write_supersessions", "retire_expired", ":style"):
        assert word in notes
