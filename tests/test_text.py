"""common.text: redaction of a forgotten member's id and names."""

from common.text import redact


def test_a_snowflake_is_redacted_as_a_mention_and_bare_but_not_inside_longer_numbers() -> None:
    sid = "330000000000000001"
    text = f"<@{sid}> and <@!{sid}> said {sid}; order 9{sid}9 stays"
    assert redact(text, [sid]) == "[forgotten] and [forgotten] said [forgotten]; order 9" + sid + "9 stays"


def test_names_are_redacted_as_whole_words_case_insensitively() -> None:
    assert redact("Charlie's sister met charlie and Charlieson", ["Charlie"]) == (
        "[forgotten]'s sister met [forgotten] and Charlieson"
    )
