"""Token estimates without a tokenizer download.

Roughly one token per common English word (about 4-5 characters with its space) for BPE vocabularies such as cl100k; words, numbers and
each punctuation or non-ASCII symbol counted apart so that code, ids and emoji are not undercounted.
Every contender in the benchmarks is counted with this same estimate.
"""

from __future__ import annotations

import re

_PIECES = re.compile(r"[A-Za-z]+|\d{1,3}|[^\sA-Za-z\d]")


def estimate_tokens(text: str) -> int:
    if not text:
        return 0
    total = 0
    for piece in _PIECES.findall(text):
        total += (len(piece) + 6) // 7 if piece[0].isalpha() else 1
    return total
