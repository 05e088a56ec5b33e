"""Several closed windows, one structured LLM call: each window keeps its own section and refs.

A batch prompt is the instructions once, then each window's prompt exactly as `build_prompt` writes
it (its participants, earlier messages, messages, known facts and entities, refs numbered from 1),
under a `### W1`, `### W2`... heading; a reply to a message of an earlier window of the batch
says which ("reply to W1 m3"). The answer holds one `Extraction` per window, keyed by that
heading; `split` hands each window its own answer, to be resolved against its own `RefTable`.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import Field

from ingest.batching import MAX_WINDOWS
from ingest.extraction import SYSTEM, Extraction, PromptInput, RefTable, _Answer, build_prompt

BATCH_NOTE = """

Several windows
- This request holds several closed windows, each under its own heading (### W1, ### W2, ...), \
possibly from different channels. Each window has its own PARTICIPANTS, EARLIER MESSAGES, WINDOW, \
KNOWN FACTS and KNOWN ENTITIES, and its own refs: U1 in W1 and U1 in W2 may be different people. \
Never use a ref of one window in the answer of another.
- Answer every window once in `windows`, with its heading in `window` ("W1"), and apply every rule \
above to each window on its own: its facts come only from its own messages."""


class WindowAnswer(Extraction):
    window: str = Field(max_length=6, description='The heading of the window this answers: "W1", "W2", ...')


class BatchExtraction(_Answer):
    windows: list[WindowAnswer] = Field(
        max_length=MAX_WINDOWS, description="One answer per window of the request, each with its own refs."
    )


def heading(index: int) -> str:
    return f"W{index + 1}"


def build_batch_prompt(inputs: Sequence[PromptInput]) -> tuple[list[dict[str, str]], list[RefTable]]:
    """The chat messages for one call over several windows, and each window's refs (in order)."""
    parts: list[str] = []
    tables: list[RefTable] = []
    system = ""
    shown: dict[str, str] = {}  # message id -> "W1 m3": a reply to a message of an earlier window says where it is
    for i, inp in enumerate(inputs):
        messages, refs = build_prompt(inp, shown)
        shown |= {wm.message.id: f"{heading(i)} {ref}" for ref, wm in refs.messages.items()}
        system = messages[0]["content"]
        parts.append(f"### {heading(i)}\n\n{messages[1]['content']}")
        tables.append(refs)
    if not system:
        system = SYSTEM
    return [{"role": "system", "content": system + BATCH_NOTE}, {"role": "user", "content": "\n\n".join(parts)}], tables


def split(answer: BatchExtraction, count: int) -> list[Extraction | None]:
    """Each window's answer, in the order of the prompt; None for a window the model did not answer
    (or answered twice: neither is trusted)."""
    found: dict[str, list[WindowAnswer]] = {}
    for part in answer.windows:
        found.setdefault(part.window.strip().upper(), []).append(part)
    out: list[Extraction | None] = []
    for i in range(count):
        parts = found.get(heading(i), [])
        out.append(Extraction.model_validate(parts[0].model_dump(exclude={"window"})) if len(parts) == 1 else None)
    return out
