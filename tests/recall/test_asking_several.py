"""What a question's form says it asks for: one detail, or several things said at different times
(`recall.ranking.asks_for_several`), and what the reply's tokens go to then. Pure, no database."""

from __future__ import annotations

import pytest

from recall.ranking import asks_for_several, member_words

WHO = member_words(["Caroline", "Melanie", "Jon", "Gina"])


@pytest.mark.parametrize(
    "question",
    [
        "What books has Melanie read?",  # what has accrued over time
        "Where has Caroline camped?",
        "What European countries did Melanie visit?",  # a plural in what it asks for
        "What kind of paintings does Caroline make?",
        "What are Melanie's hobbies?",
        "How many children does Melanie have?",
        "What subject have Caroline and Melanie both painted?",
        "Do Jon and Gina start businesses out of what they love?",  # two members joined
    ],
)
def test_a_question_asking_several_things(question: str) -> None:
    assert asks_for_several(question, WHO)


@pytest.mark.parametrize(
    "question",
    [
        "What did Melanie paint?",
        "Why did Melanie choose to use colors and patterns in her pottery project?",  # plurals of the detail asked
        "What did Joanna find in old notebooks last week?",
        "What inspires Caroline to create drawings of her characters?",  # no noun asked for before the verb
        "According to Gina, what makes Jon a perfect mentor and guide?",
        "Where are Jon and his teammates planning to explore?",  # one member and others
    ],
)
def test_a_question_asking_one_detail(question: str) -> None:
    assert not asks_for_several(question, WHO)
