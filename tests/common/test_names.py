"""Which names stand for their carrier in plain text (common/names.py): a word of English never does, a given name
does even where it is frequent, and a handle does as written."""

from __future__ import annotations

import pytest

from common.names import given_names, identifying, identifying_names, spoken_languages


@pytest.mark.parametrize(
    "word", ["likes", "me", "the", "ok", "ok!", "May", "may", "Hope", "Will", "June", "guest", "home", "Ubuntu"]
)
def test_words_of_english_are_no_one(word: str) -> None:
    assert not identifying(word)


@pytest.mark.parametrize(
    "name", ["Charlie", "Sam", "Bob", "John", "Mark", "Max", "Kim", "Pierre", "Mohammed", "Maria", "Charlie!"]
)
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


FRENCH = [
    "salut tout le monde, je pense que c'est bien",
    "oui mais il faut voir avec le serveur",
    "bonjour à tous, merci pour votre aide",
    "c'est pas mal du tout, on verra demain",
]


def test_a_guild_speaks_the_languages_its_messages_are_written_in() -> None:
    assert spoken_languages(FRENCH + ["the kernel is ok"]) == ("en", "fr")
    assert spoken_languages(["hello Sam, thanks for the kernel", "Sam likes me"] * 20) == ("en",)  # "sam" is Polish too
    assert spoken_languages(["hallo ich bin nicht da, das ist gut", "wir sind alle hier und danke"]) == ("en", "de")


@pytest.mark.parametrize(("word", "languages"), [("Merci", ("en", "fr")), ("ciao", ("en", "it")), ("Ben", ("en", "nl"))])
def test_a_common_word_of_any_language_the_guild_speaks_is_no_one(word: str, languages: tuple[str, ...]) -> None:
    assert not identifying(word, languages)
    assert identifying(word)  # where only English is spoken, it identifies its carrier


@pytest.mark.parametrize("name", ["Charlie", "Zorro", "Maria", "Jürgen", "Sam"])
def test_names_stay_names_where_other_languages_are_spoken(name: str) -> None:
    assert identifying(name, ("en", "fr", "it", "de", "es"))
