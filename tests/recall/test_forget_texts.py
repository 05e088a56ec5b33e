"""A reply's assembly caches what it formats (lines, names, the stems of facts) to save CPU on the next reply;
`forget_texts` empties every one of them, so a forgotten member's words and name stay nowhere in the process."""

from __future__ import annotations

from common.settings import ContextSettings
from recall.assemble import assemble, forget_texts
from tests.recall.test_redundant import SHELTER, gathered


def test_forget_texts_leaves_no_member_words_in_the_assembly_caches() -> None:
    forget_texts()
    context = assemble(gathered(SHELTER), ContextSettings())
    assert "Biscuit" in context.render()
    assert forget_texts() > 0  # the assembly kept lines, names and stems of what it showed
    assert forget_texts() == 0  # and holds none of them now
