"""`grapevine demo`: the shipped sample imported with its extraction answers replayed from the file beside it, so
`facts`, `who-knows`, `timeline`, `context` and the explorer show what grapevine remembers without an LLM."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from grapevine.cli.base import app, err, invoked_as, out, run_or_exit, settings_or_exit, with_store

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SAMPLE = EXAMPLES / "discord-export"
ANSWERS = EXAMPLES / "replayed-answers.json"


@app.command()
def demo(
    sample: Annotated[Path, typer.Option(help="a folder of DiscordChatExporter JSON exports", file_okay=False)] = SAMPLE,
    answers: Annotated[Path, typer.Option(help="the extraction answers recorded for its windows", dir_okay=False)] = ANSWERS,
    fresh: Annotated[
        bool,
        typer.Option(
            "--fresh",
            help="start the sample over: delete what is stored of its guild and lift its members' opt-outs (a forget of "
            "one of them too) first; nothing of any other guild is touched",
        ),
    ] = False,
) -> None:
    """Import the sample server (examples/) with its extraction answers replayed from a file instead of an LLM,
    then say what to look at. Safe to run again: nothing is added twice; `--fresh` starts it over."""
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

    names.warm_in_background()  # the lists the quick start's forget and export read, built while the demo imports
    from grapevine.cli.progress import Progress
    from graph.privacy.guards.consent import Consent
    from graph.reads.stats import graph_stats
    from ingest.export_format import parse_export
    from ingest.history_import import import_export
    from ingest.ingestor import Ingestor

    llm = ReplayedLLM(recorded)
    # each window on its own, oldest first (EXTRACTION_BATCH_MESSAGES=1): each one's prompt shows the facts the
    # windows before it gave, so a later window can supersede them as it does in a live server
    extraction = settings.extraction.model_copy(update={"batch_messages": 1, "probability": 1.0})
    out.print(
        f"replayed answers: {answers} (written for the windows of this sample; no LLM is called)", highlight=False, soft_wrap=True
    )

    parsed = [parse_export(path) for path in files]
    guild = parsed[0].guild.id
    members = sorted({user_id for export in parsed for user_id in export.users})

    async def work(rt: Any) -> tuple[int, int]:
        if fresh:
            from graph.writes.guild_reset import reset_guild

            await reset_guild(rt.store, guild, members)
            out.print(
                f"starting the sample over: what was stored of its guild {guild} is deleted and its members' opt-outs "
                "lifted; no other guild is touched",
                highlight=False,
                soft_wrap=True,
            )
        consent = Consent(rt.store)
        await consent.load()
        ingestor = Ingestor(rt.store, llm, extraction, settings.window, hidden=lambda uid: not consent.allowed(uid))
        left_out = 0
        for path in files:
            with Progress(out, path.name, every=settings.log.progress_seconds) as progress:
                result = await import_export(path, rt.store, ingestor, consent, settings.window, progress=progress)
            out.print(f"{path.name}: {result.messages:,} messages, {result.windows:,} windows {result.statuses}", soft_wrap=True)
            left_out += result.opted_out
        nodes = (await graph_stats(rt.store))["nodes"]
        return left_out, sum(int(r["count"]) for r in nodes if r.get("label") == "Fact")

    left_out, facts = run_or_exit(with_store(settings, work), failed="the demo import did not finish")
    calls = llm.meter.total()
    out.print(
        f"{calls.calls} extraction answers replayed ({calls.failures} not found); {facts} facts in the graph (open and closed)"
    )
    for first in llm.missing:
        err.print(f"[red]no recorded answer[/red] for the window starting {first[:100]}", highlight=False, soft_wrap=True)
    if llm.missing:
        err.print(f"the sample changed since {answers} was written: write the answers of these windows again", soft_wrap=True)
        raise typer.Exit(1)
    if left_out:
        out.print(
            f"{left_out} messages of members who opted out or were forgotten were left out (the quick start's last step "
            "forgets Bob); `grapevine demo --fresh` starts the sample over, their opt-outs too",
            highlight=False,
            soft_wrap=True,
        )
    grapevine = invoked_as()
    out.print("now look (names or ids: the sample's guild is 833055463833731073, Bob 602779366195331079):", highlight=False)
    for command in (
        f"{grapevine} facts --guild {guild} --user Bob --history",
        f"{grapevine} who-knows Berlin --guild {guild}",
        f"{grapevine} timeline --guild {guild} --user Bob",
        f"{grapevine} context --guild {guild} --channel general --user Alice --message 'is Bob coming in July?'",
        f"{grapevine} explore",
    ):
        out.print(f"  {command}", highlight=False, markup=False, soft_wrap=True)
