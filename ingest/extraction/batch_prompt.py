"""Several closed windows, one structured LLM call: each window keeps its own section and refs.

A batch prompt is the instructions once, then each window's prompt exactly as `build_prompt` writes
it (its participants, earlier messages, messages, known facts and entities, refs numbered from 1),
under a `### W1`, `### W2`... heading; a reply to a message of an earlier window of the batch
says which ("reply to W1 m3"), and an earlier message a window before it shows already is not
repeated (a note says where it is). The answer holds one `Extraction` per window, keyed by that
heading; `split` hands each window its own answer, to be resolved against its own `RefTable`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from pydantic import Field

from ingest.extraction.batch_rule import MAX_WINDOWS
from ingest.extraction.window_prompt import SYSTEM, BoundedAnswer, Extraction, PromptInput, RefTable, build_prompt

BATCH_NOTE = """

Several windows
- This request holds several closed windows, each under its own heading (### W1, ### W2, ...), \
possibly from different channels. Each window has its own PARTICIPANTS, EARLIER MESSAGES, WINDOW, \
KNOWN FACTS and KNOWN ENTITIES, and its own refs: U1 in W1 and U1 in W2 may be different people. \
Never use a ref of one window in the answer of another. Earlier messages that an earlier window shows \
already are not repeated: a note in EARLIER MESSAGES says which window shows them.
- Answer every window once in `windows`, with its heading in `window` ("W1"), and apply every rule \
above to each window on its own: its facts come only from its own messages."""


class WindowAnswer(Extraction):
    window: str = Field(max_length=6, description='The heading of the window this answers: "W1", "W2", ...')


class BatchExtraction(BoundedAnswer):
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
        inp, note = _unrepeated(inp, shown)
        messages, refs = build_prompt(inp, shown, note)
        shown |= {wm.message.id: f"{heading(i)} {ref}" for ref, wm in (refs.context | refs.messages).items()}
        system = messages[0]["content"]
        parts.append(f"### {heading(i)}\n\n{messages[1]['content']}")
        tables.append(refs)
    if not system:
        system = SYSTEM
    return [{"role": "system", "content": system + BATCH_NOTE}, {"role": "user", "content": "\n\n".join(parts)}], tables


def _unrepeated(inp: PromptInput, shown: Mapping[str, str]) -> tuple[PromptInput, str]:
    """The window without the earlier messages an earlier window of the batch shows already (a quiet channel's
    small windows follow each other: each one's earlier messages are mostly the previous ones), and the line
    that says where they are."""
    repeated = [wm for wm in inp.window.context if wm.message.id in shown]
    if not repeated:
        return inp, ""
    kept = tuple(wm for wm in inp.window.context if wm.message.id not in shown)
    where = ", ".join(dict.fromkeys(shown[wm.message.id].split()[0] for wm in repeated))
    note = f"({len(repeated)} earlier messages are shown above, in {where}: not repeated here)"
    return replace(inp, window=replace(inp.window, context=kept)), note


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
