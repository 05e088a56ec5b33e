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

from common.names import SUPPORTED_LANGUAGES, Cached, Installed, fold, word_of

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
    word_of("merci", "fr", kept)
    for made in (tmp_path / "cache", tmp_path / "cache" / "grapevine", folder):
        assert stat.S_IMODE(made.stat().st_mode) == 0o700
    files = list(folder.iterdir())
    assert {f.name for f in files} == {"given-names.json", "words-fr.json"}  # no temporary file left
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


@pytest.mark.serial  # the build runs at a low priority: beside the other tests it gets next to no CPU
def test_warming_builds_what_a_forget_reads(tmp_path: Path) -> None:
    """`grapevine demo` warms the cache in a process of its own (`python -m common.names`), so the quick start's
    first forget reads the lists instead of building them, and the demo does not wait for them."""
    env = {k: v for k, v in os.environ.items() if k != "XDG_CACHE_HOME"} | {"XDG_CACHE_HOME": str(tmp_path)}
    missing = "from common import names; print(len(names.missing()))"
    before = subprocess.run([sys.executable, "-c", missing], env=env, capture_output=True, text=True, timeout=60)
    assert before.stdout.strip() == str(len(SUPPORTED_LANGUAGES) + 2), before.stderr
    done = subprocess.run([sys.executable, "-m", "common.names"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    built = sorted(p.name for p in (tmp_path / "grapevine" / "names").iterdir())
    expected = ["given-names.json", "words-supported.json", *(f"words-{language}.json" for language in SUPPORTED_LANGUAGES)]
    assert built == sorted(expected)
    after = subprocess.run([sys.executable, "-c", missing], env=env, capture_output=True, text=True, timeout=60)
    assert after.stdout.strip() == "0", after.stderr
    again = "from common import names; print(names.warm_in_background())"
    assert (
        subprocess.run([sys.executable, "-c", again], env=env, capture_output=True, text=True, timeout=60).stdout.strip()
        == "False"
    )


def test_one_file_answers_for_every_language_as_the_files_of_each_do(folder: Path) -> None:
    """A name is checked against every supported language: one file holds their words, and it says what each
    language's own list says, for the words of any of them and for what is none."""
    per_language, together = Cached(folder), Cached(folder)
    words = {w for language in LANGUAGES for w in sample(language)} | {fold(n) for n in NAMES} | {"zzqx", "obi1"}
    for word in sorted(w for w in words if w.isalpha()):  # a word with digits or marks is looked up as before
        expected = any(per_language.known_word(word, language) for language in SUPPORTED_LANGUAGES)
        assert together.known_anywhere(word) is expected, word
    assert together.known_anywhere("good morning") is None  # a phrase is looked up, language by language
    assert together.path("words-supported").is_file()


def test_the_installed_versions_are_looked_up_once_for_every_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each list's file is keyed by the versions of wordfreq and Faker; a forget reads the lists' files, and each
    version is looked up on the import path once per process, not per file, and as importlib.metadata says."""
    from importlib.metadata import version

    from common import names
    from common.user_cache import store

    assert names.installed_version("wordfreq") == version("wordfreq")
    assert names.installed_version("faker") == version("faker")
    kept = Cached(tmp_path)
    for language in SUPPORTED_LANGUAGES:  # planted, as a warm cache holds them: nothing is built here
        store(kept.path(f"words-{language}"), kept.key(), "likes")
    store(kept.path("given-names"), kept.key(), "charlie")
    looked_up: list[str] = []

    def counted(package: str) -> str:
        looked_up.append(package)
        return version(package)

    names.versions.cache_clear()
    monkeypatch.setattr("common.names.installed_version", counted)
    again = Cached(tmp_path)
    assert again.given_names() == {"charlie"}
    assert all(word_of("likes", language, again) for language in SUPPORTED_LANGUAGES)
    assert again.known_anywhere("likes") and not again.known_anywhere("charlie")
    assert sorted(looked_up) == ["faker", "wordfreq"], looked_up
    names.versions.cache_clear()


@pytest.mark.parametrize("language", ["de", "pl", "tr", "ru"])
def test_the_installed_lookup_is_wordfreqs_own(language: str) -> None:
    """The lists are built with a lookup that tokenizes a word once for the languages that tokenize alike: it must
    answer as wordfreq's `zipf_frequency` does, in every supported language, for words of any language's list."""
    from wordfreq import zipf_frequency

    installed = Installed()
    words = [*sample(language), *(fold(w) for w in [*NAMES, *HANDLES_AND_PHRASES]), *TOKENIZED_OTHERWISE, "", "'", "ıi"]
    for other in SUPPORTED_LANGUAGES:
        for wordlist in ("small", "best"):
            assert {w: installed.zipf(w, other, wordlist) for w in words} == {
                w: zipf_frequency(w, other, wordlist=wordlist) for w in words
            }, (other, wordlist)
