"""Token estimates without a tokenizer download.

Roughly one token per common English word (about 4-5 characters with its space) for BPE vocabularies such as cl100k; words, numbers and
each punctuation or non-ASCII symbol counted apart so that code, ids and emoji are not undercounted: a
run of ASCII letters is one token per 7 letters, a number one per 3 digits, any other symbol one.
Every contender in the benchmarks is counted with this same estimate.
"""

from __future__ import annotations

import re

_PIECES = re.compile(r"[A-Za-z]{1,7}|\d{1,3}|[^\sA-Za-z\d]")  # one match per token


def estimate_tokens(text: str) -> int:
    return len(_PIECES.findall(text)) if text else 0
