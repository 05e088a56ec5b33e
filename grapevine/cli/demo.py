"""`grapevine demo`: the shipped sample imported with its extraction answers replayed from the file beside it, so
`facts`, `who-knows`, `timeline`, `context` and the explorer show what grapevine remembers without an LLM."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from grapevine.cli.base import app, err, out, run_or_exit, settings_or_exit, with_store
from grapevine.cli.progress import Progress
from graph.reads.stats import graph_stats

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SAMPLE = EXAMPLES / "discord-export"
ANSWERS = EXAMPLES / "replayed-answers.json"


@app.command()
def demo(
    sample: Annotated[Path, typer.Option(help="a folder of DiscordChatExporter JSON exports", file_okay=False)] = SAMPLE,
    answers: Annotated[Path, typer.Option(help="the extraction answers recorded for its windows", dir_okay=False)] = ANSWERS,
) -> None:
    """Import the sample server (examples/) with its extraction answers replayed from a file instead of an LLM,
    then say what to look at. Safe to run again: nothing is added twice."""
    files = sorted(sample.glob("*.json"))
    if not files:
        err.print(f"[red]no sample:[/red] {sample} holds no .json export (the sample ships with a clone of the repository)")
        raise typer.Exit(2)
    from grapevine.replayed_llm import RecordedAnswers, ReplayedLLM

    try:
        recorded = RecordedAnswers.read(answers)
    except ValueError as exc:
        err.print(f"[red]no replayed answers:[/red] {exc}", soft_wrap=True)
        raise typer.Exit(2) from None
    settings = settings_or_exit()
    from common import names
    from graph.privacy.consent import Consent
    from ingest.history_import import import_export
    from ingest.ingestor import Ingestor

    llm = ReplayedLLM(recorded)
    # each window on its own, oldest first (EXTRACTION_BATCH_MESSAGES=1): each one's prompt shows the facts the
    # windows before it gave, so a later window can supersede them as it does in a live server
    extraction = settings.extraction.model_copy(update={"batch_messages": 1, "probability": 1.0})
    out.print(
        f"replayed answers: {answers} (written for the windows of this sample; no LLM is called)", highlight=False, soft_wrap=True
    )

    async def work(rt: Any) -> tuple[str, int]:
        consent = Consent(rt.store)
        await consent.load()
        ingestor = Ingestor(rt.store, llm, extraction, settings.window, hidden=lambda uid: not consent.allowed(uid))
        guild = ""
        for path in files:
            with Progress(out, path.name, every=settings.log.progress_seconds) as progress:
                result = await import_export(path, rt.store, ingestor, consent, settings.window, progress=progress)
            out.print(f"{path.name}: {result.messages:,} messages, {result.windows:,} windows {result.statuses}", soft_wrap=True)
            guild = guild or _guild_of(path)
        nodes = (await graph_stats(rt.store))["nodes"]
        return guild, sum(int(r["count"]) for r in nodes if r.get("label") == "Fact")

    guild, facts = run_or_exit(with_store(settings, work), failed="the demo import did not finish")
    names.warm()  # the lists the quick start's forget and export read, built while the user reads this output
    calls = llm.meter.total()
    out.print(
        f"{calls.calls} extraction answers replayed ({calls.failures} not found); {facts} facts in the graph (open and closed)"
    )
    for first in llm.missing:
        err.print(f"[red]no recorded answer[/red] for the window starting {first[:100]}", highlight=False, soft_wrap=True)
    if llm.missing:
        err.print(f"the sample changed since {answers} was written: write the answers of these windows again", soft_wrap=True)
        raise typer.Exit(1)
    out.print("now look (the ids are the sample's: Bob 602779366195331079, Alice 411521620377731078):", highlight=False)
    for command in (
        f"grapevine facts --guild {guild} --user 602779366195331079 --history",
        f"grapevine who-knows Berlin --guild {guild}",
        f"grapevine timeline --guild {guild} --user 602779366195331079",
        f"grapevine context --guild {guild} --channel 833055715491971076 --user 411521620377731078 "
        "--message 'is Bob coming in July?'",
        "grapevine explore",
    ):
        out.print(f"  {command}", highlight=False, markup=False, soft_wrap=True)


def _guild_of(path: Path) -> str:
    from ingest.export_format import parse_export

    return parse_export(path).guild.id
