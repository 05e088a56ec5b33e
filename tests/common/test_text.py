"""common.text: redaction of a forgotten member's id and names."""

import unicodedata

from common.text import names_word, redact, search_forms


def test_a_snowflake_is_redacted_as_a_mention_and_bare_but_not_inside_longer_numbers() -> None:
    sid = "330000000000000001"
    text = f"<@{sid}> and <@!{sid}> said {sid}; order 9{sid}9 stays"
    assert redact(text, [sid]) == "[forgotten] and [forgotten] said [forgotten]; order 9" + sid + "9 stays"


def test_names_are_redacted_as_whole_words_case_insensitively() -> None:
    assert redact("Charlie's sister met charlie and Charlieson", ["Charlie"]) == (
        "[forgotten]'s sister met [forgotten] and Charlieson"
    )


def test_a_name_written_with_combining_marks_is_the_same_name() -> None:
    """A name stored composed ("Zoë", NFC) is found and redacted in a text that writes it decomposed (NFD: "e" and
    a combining diaeresis), and the other way round; the rest of the text stays as written."""
    composed, decomposed = unicodedata.normalize("NFC", "Zoë"), unicodedata.normalize("NFD", "Zoë")
    assert names_word(f"thanks {decomposed}!", [composed]) and names_word(f"thanks {composed}!", [decomposed])
    assert redact(f"thanks {decomposed}! café", [composed]) == "thanks [forgotten]! café"
    untouched = unicodedata.normalize("NFD", "déjà vu, ") + "Zoë"
    assert redact(untouched, [decomposed]) == unicodedata.normalize("NFD", "déjà vu, ") + "[forgotten]"


def test_compatibility_forms_and_case_folding_are_one_name() -> None:
    assert names_word("ask ＺＯＥ about it", ["Zoe"]) and names_word("STRASSE", ["straße"])
    assert redact("ask ＺＯＥ about it", ["zoe"]) == "ask [forgotten] about it"
    assert not names_word("Zoës", ["Zoë"]) and redact("Zoëy", ["Zoë"]) == "Zoëy"  # whole words only


def test_search_forms_hold_every_form_a_text_may_write_the_name_in() -> None:
    forms = search_forms(["Zoë"])
    for form in ("NFC", "NFD"):
        assert unicodedata.normalize(form, "zoë") in forms


def test_a_mention_holds_ascii_digits_only() -> None:
    """Discord writes a mention's id in ASCII digits; full-width digits are text, not a member."""
    from common.text import MENTION

    assert MENTION.findall("hi <@300000000000000003>") == ["300000000000000003"]
    assert MENTION.findall("hi <@３００００００００００００００００３>") == []
