"""Which names stand for their carrier in plain text (common/names.py): a word of English never does, a given name
does even where it is frequent, and a handle does as written."""

from __future__ import annotations

import pytest

from common.names import SUPPORTED_LANGUAGES, common_word, given_names, identifying, identifying_names
from tests.support.common_words import common_words


@pytest.mark.parametrize(
    "word", ["likes", "me", "the", "ok", "ok!", "May", "may", "Hope", "Will", "June", "guest", "home", "Ubuntu"]
)
def test_words_of_english_are_no_one(word: str) -> None:
    assert not identifying(word)


@pytest.mark.parametrize("name", ["Charlie", "Bob", "John", "Mark", "Max", "Pierre", "Mohammed", "Maria", "Charlie!"])
def test_given_names_identify_though_english_text_uses_them_often(name: str) -> None:
    assert identifying(name)


@pytest.mark.parametrize("handle", ["Obi1", "OBI1", "ikonia", "Zorro", "nyx42", "|trey|", "Steve^", "Matt|", "Jürgen"])
def test_handles_and_rare_names_identify(handle: str) -> None:
    assert identifying(handle)


def test_a_name_two_members_carry_in_any_case_identifies_neither() -> None:
    assert identifying_names(["Obi1", "Charlie"], taken=["OBI1"]) == ("Charlie",)
    assert identifying_names(["Obi1"], taken=["obi1"]) == ()


def test_given_names_are_those_several_national_lists_agree_on() -> None:
    names = given_names()
    assert {"charlie", "sam", "pierre", "mohammed", "jürgen"} <= names
    assert not {"texas", "media", "server"} & names  # each in one list only


@pytest.mark.parametrize("word", ["Merci", "ciao", "Ben", "Pero", "nicht", "foto", "Tom", "Kim", "Sam"])
def test_a_common_word_of_any_supported_language_is_no_one(word: str) -> None:
    """Wherever the member is, whatever a guild's sample of messages says it speaks: a minority may write it."""
    assert not identifying(word)


@pytest.mark.parametrize("name", ["Charlie", "Zorro", "Maria", "Jürgen", "Jean", "Pierre", "Anna"])
def test_names_stay_names_though_other_languages_have_many_words(name: str) -> None:
    assert identifying(name)


@pytest.mark.parametrize("language", SUPPORTED_LANGUAGES)
def test_every_common_word_of_a_supported_language_is_one(language: str) -> None:
    """The commonest words of each language wordfreq knows for the rule, read from wordfreq itself: each is a word
    of some supported language for the rule (a given name only where it is among its language's commonest)."""
    missed = [w for w in common_words(language) if not common_word(w)]
    assert not missed, f"words of {language} taken for names: {missed}"
