"""The replayed answers `grapevine demo` ships: an LLM adapter that answers the sample's windows from
examples/replayed-answers.json, in the refs of the prompt it is given, and says which window it has no
answer for. Its answers go through the same validation and resolution as a model's."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from common.settings import WindowSettings
from grapevine.replayed_llm import NotRecorded, RecordedAnswers, ReplayedLLM, prompt_windows
from graph.models import FactView
from ingest.export_format import parse_export
from ingest.extraction.batch_prompt import BatchExtraction, build_batch_prompt, split
from ingest.extraction.resolution import resolve
from ingest.extraction.window_prompt import Extraction, PromptInput, build_prompt
from ingest.replay import replay
from ingest.windows import ClosedWindow, WindowMessage

REPO = Path(__file__).resolve().parents[3]
SAMPLE = REPO / "examples" / "discord-export"
ANSWERS = REPO / "examples" / "replayed-answers.json"


def _windows(name: str) -> list[ClosedWindow]:
    parsed = parse_export(SAMPLE / name)
    stream = (WindowMessage(m, parsed.users[m.author_id]) for m in sorted(parsed.messages, key=lambda m: (m.created_at, m.id)))
    return list(replay(stream, WindowSettings()))


def _input(window: ClosedWindow, candidates: list[FactView] | None = None) -> PromptInput:
    return PromptInput(window, [], candidates or [], [], 5, 15, 2000)


def test_every_window_of_the_sample_has_a_recorded_answer_and_no_answer_is_left_over() -> None:
    windows = _windows("general.json") + _windows("saturday-carpool.json")
    keys = [prompt_windows(build_prompt(_input(w))[0])[0].key for w in windows]
    recorded = RecordedAnswers.read(ANSWERS).windows
    assert sorted(keys) == sorted(recorded)  # one answer per window: a stale answer would be a window that changed


async def test_a_batch_is_answered_window_by_window_in_its_own_refs_and_resolves() -> None:
    windows = _windows("general.json")
    llm = ReplayedLLM(RecordedAnswers.read(ANSWERS))
    messages, tables = build_batch_prompt([_input(w) for w in windows])
    answer = await llm.extract(messages, BatchExtraction, purpose="extraction")
    parts = split(answer, len(windows))
    assert all(part is not None for part in parts)
    first = parts[0]
    assert first is not None
    resolution = resolve(first, tables[0], _input(windows[0]), episode_key="k", now=datetime.now(UTC))
    bob = "602779366195331079"
    texts = {f.text: f for f in resolution.write.facts}
    assert "Bob has moved to Berlin" in texts and not resolution.unusable, resolution.dropped
    about = texts["Bob has moved to Berlin"].about
    assert [a.id for a in about] == [bob]  # "@Bob" became the prompt's U ref for Bob, and that ref his id
    assert llm.meter.total().calls == 1 and llm.meter.total().failures == 0


async def test_a_known_fact_is_named_by_its_ref_in_the_prompt_that_shows_it() -> None:
    munich = _windows("general.json")[-1]
    berlin = FactView(
        uuid="f-berlin", text="Bob has moved to Berlin", category="location", importance=9, confidence=0.9,
        valid_at=datetime(2024, 5, 3, tzinfo=UTC), about=("Bob",), about_ids=("602779366195331079",),
    )  # fmt: skip
    messages, _ = build_prompt(_input(munich, [berlin]))
    answer = await ReplayedLLM(RecordedAnswers.read(ANSWERS)).extract(messages, Extraction, purpose="extraction")
    moved = next(f for f in answer.facts if f.text == "Bob has moved to Munich")
    assert moved.supersedes == ["F1"]  # the one known fact the prompt shows; the rest it does not show are left out


async def test_a_window_without_a_recorded_answer_is_named_not_answered() -> None:
    window = _windows("general.json")[0]
    first = window.messages[0]
    changed = ClosedWindow(
        channel_id=window.channel_id, guild_id=window.guild_id, reason="stored", context=(),
        messages=(WindowMessage(first.message.model_copy(update={"content": "Anyone up for the coast path?"}), first.author),
                  *window.messages[1:]),
    )  # fmt: skip
    llm = ReplayedLLM(RecordedAnswers.read(ANSWERS))
    with pytest.raises(NotRecorded, match="no recorded answer for the window starting 2024-05-03 18:02 UTC Alice"):
        await llm.extract(build_prompt(_input(changed))[0], Extraction, purpose="extraction")
    assert llm.missing and "coast path" in llm.missing[0]
    assert llm.meter.total().failures == 1
