"""The one policy for an extraction call that gives no answer: the LLM unreachable parks the work, any other LLM
error fails it; and no path of ingest/ decides it again on its own."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ingest.extraction.on_error import NoAnswer, OnError, answer_of, on_error
from llm.errors import LLMError, LLMOutputError, LLMUnavailable

INGEST = Path(__file__).resolve().parents[3] / "ingest"


@pytest.mark.parametrize(
    ("error", "then"),
    [
        (LLMUnavailable("circuit open"), OnError.PARK),
        (LLMUnavailable("refused", outcome="unreachable"), OnError.PARK),
        (LLMOutputError("invalid twice", "fact: field required"), OnError.FAIL),
        (LLMError("context exceeded", outcome="too_long"), OnError.FAIL),
        (LLMError("HTTP 400: bad request"), OnError.FAIL),
    ],
)
async def test_unreachable_parks_and_any_other_error_fails(error: LLMError, then: OnError) -> None:
    async def call() -> str:
        raise error

    answered = await answer_of(call())
    assert isinstance(answered, NoAnswer) and answered.then is then is on_error(error)
    assert answered.name == type(error).__name__ and answered.reason == str(error)


async def test_an_answer_passes_and_another_fault_is_raised() -> None:
    async def answer() -> str:
        return "the answer"

    async def broken() -> str:
        raise RuntimeError("a fault of the code, not the LLM's")

    assert await answer_of(answer()) == "the answer"
    with pytest.raises(RuntimeError):
        await answer_of(broken())


def catches_unavailable(source: str) -> list[int]:
    """Lines of `except` clauses that name LLMUnavailable: a path deciding the policy on its own."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ExceptHandler) and node.type is not None:
            names = {
                n.id if isinstance(n, ast.Name) else n.attr
                for n in ast.walk(node.type)
                if isinstance(n, ast.Name | ast.Attribute)
            }
            if "LLMUnavailable" in names:
                found.append(node.lineno)
    return found


def test_no_path_of_ingest_decides_the_policy_again() -> None:
    found = {
        str(path.relative_to(INGEST.parent)): lines
        for path in sorted(INGEST.rglob("*.py"))
        if path.name != "on_error.py" and (lines := catches_unavailable(path.read_text(encoding="utf-8")))
    }
    assert found == {}


def test_the_policy_check_catches_a_path_of_its_own() -> None:
    planted = (
        "try:\n    x = await ask()\nexcept errors.LLMUnavailable:\n    park()\nexcept (LLMUnavailable, KeyError):\n    pass\n"
    )
    assert catches_unavailable(planted) == [3, 5]
    assert catches_unavailable("try:\n    x = 1\nexcept LLMError:\n    fail()\n") == []
