"""The commonest words of a language as wordfreq ranks them, for the tests of the names rule: an independent
reading of what is a word (wordfreq's own ranking), not the rule's."""

from __future__ import annotations

import functools

from common.names import EVERYDAY_ZIPF, MIN_NAME_CHARS, fold, given_names

TOP = 300  # of each language's list: every one of these is at least once in ten thousand words


@functools.cache
def common_words(language: str) -> tuple[str, ...]:
    """The language's TOP commonest words that could be a name (letters only, MIN_NAME_CHARS or longer), less the
    given names below EVERYDAY_ZIPF there (a name frequent in one country's text, "Jean" in French, stays a name)."""
    from wordfreq import top_n_list, zipf_frequency

    given = given_names()
    words = (fold(w) for w in top_n_list(language, TOP))
    return tuple(
        w
        for w in dict.fromkeys(words)
        if len(w) >= MIN_NAME_CHARS and w.isalpha() and (w not in given or zipf_frequency(w, language) >= EVERYDAY_ZIPF)
    )
