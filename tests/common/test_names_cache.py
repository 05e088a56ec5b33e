"""The names rule's lists kept in the user's cache folder (common/names.py `Cached`, common/user_cache.py): the
rule decides the same from them as from the lists wordfreq and Faker ship, and a file is trusted only when it is
whole, of the right shape and built for the installed versions and settings."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from wordfreq import get_frequency_list

from common.names import CANDIDATE_LANGUAGES, Cached, Installed, fold, spoken_languages, word_of

LANGUAGES = ("en", "fr", "de", "pl")
NAMES = ["Charlie", "Sam", "Bob", "Ben", "Jürgen", "Maria", "Pierre", "Mohammed", "Zorro", "May", "Hope", "Will"]
HANDLES_AND_PHRASES = [
    "obi1",
    "mp3",
    "2nd",
    "nyx42",
    "good morning",
    "new york",
    "ça va",
    "alice.moreau",
    "|trey|",
    "l'eau",
    "e-mail",
]
TOKENIZED_OTHERWISE = ["straße", "ﬁne", "ıstanbul", "ﬂower", "ǅemal", "ﬀ"]  # letters a tokenizer folds or splits


def sample(language: str) -> list[str]:
    """The language's commonest words, and words about the foot of the common band (where the cache cuts)."""
    bands = get_frequency_list(language, "best")
    return [
        *bands[0][:20],
        *(w for band in bands[100:600:25] for w in band[:3]),
        *(w for band in bands[596:606] for w in band[:4]),
    ]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cache") / "names"


@pytest.fixture
def private() -> Iterator[None]:
    previous = os.umask(0o022)  # a umask that leaves new files readable by others
    yield
    os.umask(previous)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_cached_lists_decide_as_the_installed_ones(folder: Path, language: str) -> None:
    installed, kept = Installed(), Cached(folder)
    words = [*(fold(w) for w in [*sample(language), *NAMES, *HANDLES_AND_PHRASES]), *TOKENIZED_OTHERWISE]
    decided = {w: word_of(w, language, installed) for w in words}
    assert {w: word_of(w, language, kept) for w in words} == decided
    assert {w: word_of(w, language, Cached(folder)) for w in words} == decided  # read back from the files
    assert any(decided.values()) and not all(decided.values())


def test_the_cached_telling_words_tell_the_same_languages(folder: Path) -> None:
    installed, kept = Installed(), Cached(folder)
    words = {w for lang in CANDIDATE_LANGUAGES for band in get_frequency_list(lang, "small")[:520:8] for w in band[:5]}
    told = {w: installed.telling(w) for w in words}
    assert {w: kept.telling(w) for w in words} == told
    assert len(set(told.values())) > 10
    french = ["salut tout le monde, merci pour votre aide", "oui mais il faut voir, c'est pas mal du tout"]
    german = ["hallo ich bin nicht da, das ist gut", "wir sind alle hier und danke"]
    for texts, spoken in ((french, ("en", "fr")), (german, ("en", "de")), (french + german, ("en", "de", "fr"))):
        assert spoken_languages(texts, kept) == spoken_languages(texts, installed) == spoken


def test_the_cached_given_names_are_the_installed_ones(folder: Path) -> None:
    assert Cached(folder).given_names() == Installed().given_names() == Cached(folder).given_names()


def stored(path: Path) -> dict[str, object]:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_a_file_built_for_other_versions_is_built_again(tmp_path: Path) -> None:
    kept = Cached(tmp_path)
    real = kept.given_names()
    path = kept.path("given-names")
    planted = stored(path) | {"data": "planted"}
    path.write_text(json.dumps(planted), encoding="utf-8")
    assert Cached(tmp_path).given_names() == {"planted"}  # the key is what makes a file trusted ...
    path.write_text(json.dumps(planted | {"key": kept.key() | {"wordfreq": "0.0"}}), encoding="utf-8")
    assert Cached(tmp_path).given_names() == real  # ... and another version's is not
    assert stored(path) == {"key": kept.key(), "data": "\n".join(sorted(real))}


@pytest.mark.parametrize(
    "content",
    ['{"key": {"format": 1}, "data": [["a"', "", "\x00\x01", '["a", "b"]', "KEY_WRONG_SHAPE", "KEY_WORDS_NOT_STRINGS"],
)
def test_a_corrupt_file_is_built_again_not_trusted(tmp_path: Path, content: str) -> None:
    kept = Cached(tmp_path)
    key = kept.key()
    frequency = kept.zipf("the", "en", "small")
    path = kept.path("small-en")
    shapes = {"KEY_WRONG_SHAPE": {"not": "bands"}, "KEY_WORDS_NOT_STRINGS": [["the", 1]]}
    if content in shapes:
        content = json.dumps({"key": key, "data": shapes[content]})
    path.write_text(content, encoding="utf-8")
    again = Cached(tmp_path)
    assert again.zipf("the", "en", "small") == frequency > 6
    assert stored(path)["key"] == key
    assert again.zipf("kernel", "en", "small") == Installed().zipf("kernel", "en", "small") > 3


def test_the_cache_is_private_to_its_user(tmp_path: Path, private: None) -> None:
    folder = tmp_path / "cache" / "grapevine" / "names"
    kept = Cached(folder)
    kept.given_names()
    kept.telling("merci")
    for made in (tmp_path / "cache", tmp_path / "cache" / "grapevine", folder):
        assert stat.S_IMODE(made.stat().st_mode) == 0o700
    files = list(folder.iterdir())
    assert {f.name for f in files} == {"given-names.json", "telling-words.json"}  # no temporary file left
    assert all(stat.S_IMODE(f.stat().st_mode) == 0o600 for f in files)


def test_the_cache_lives_in_the_users_cache_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert Cached().path("given-names") == tmp_path / "grapevine" / "names" / "given-names.json"


def test_a_folder_that_cannot_be_written_costs_only_time(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    kept = Cached(blocker / "names")  # under a file: no folder can be made there
    assert kept.given_names() == Installed().given_names()
    assert word_of("likes", "en", kept) and not word_of("charlie", "en", kept)


def test_warming_builds_what_a_forget_reads(tmp_path: Path) -> None:
    """`grapevine demo` warms the cache, so the quick start's first forget reads the lists instead of building them."""
    env = {k: v for k, v in os.environ.items() if k != "XDG_CACHE_HOME"} | {"XDG_CACHE_HOME": str(tmp_path)}
    code = "from common import names; names.warm()"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    built = sorted(p.name for p in (tmp_path / "grapevine" / "names").iterdir())
    assert built == ["given-names.json", "telling-words.json", "words-en.json"]
