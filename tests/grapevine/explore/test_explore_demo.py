"""The explorer on the demo's data (the shipped sample with its replayed answers, as `grapevine demo` loads it)
opens on something to see: the guild with its facts, a member already on the canvas under the name the CLI uses
(the guild's display name "Alice", not the account "alice.moreau"), and a query panel on a query that runs as it
is. Bob's history, stepped to his move, is the picture of docs/explore.png (log/explore/demo-bob-history.png)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from graph.engines.arcadedb import ArcadeDBEngine
from graph.schema import setup_schema
from graph.store import GraphStore
from tests.grapevine.explore.test_explore_browser import (
    browser,
    browser_missing,
    classes,
    drawn,
    shot,
    start_explore,
    stop_explore,
)
from tests.support.demo_sample import load_demo

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"

pytestmark = [pytest.mark.slow, pytest.mark.skipif(browser_missing() is not None, reason=browser_missing() or "")]
__all__ = ["browser"]  # the browser fixture, shared with the other explorer tests


@pytest.fixture(scope="module")
async def demo_url(arcadedb_server: ArcadeDBEngine, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[str]:
    engine = arcadedb_server.for_database(f"demo{uuid.uuid4().hex[:10]}")
    await engine.create_database()
    driver = engine.driver()
    store = GraphStore(driver, engine)
    await setup_schema(store)
    await load_demo(store)
    proc, url, _ = start_explore(engine, tmp_path_factory.mktemp("demo"))
    try:
        yield url
    finally:
        stop_explore(proc)
        await driver.close()
        await engine.drop_database()


async def test_the_explorer_opens_on_the_demo_with_a_member_by_name_and_a_query_that_runs(demo_url: str, browser: Any) -> None:
    from playwright.async_api import expect

    context = await browser.new_context(viewport={"width": 1500, "height": 900})
    page = await context.new_page()
    await page.goto(demo_url)
    await page.wait_for_selector("body[data-ready=true]", timeout=30_000)
    option = await page.locator("#guild option:checked").inner_text()
    assert option.startswith("Tidewater Hiking Club (") and not option.endswith("(0 facts)"), option
    members = await page.locator(".starts[data-kind=members] button.start").all_inner_texts()
    assert {"Alice", "Bob", "Carol", "May", "Noor"} <= set(members) and "alice.moreau" not in members, members
    on_canvas = await drawn(page)
    assert "Alice" in on_canvas and len(on_canvas) > 3, on_canvas  # the first member, with her facts
    await expect(page.locator("#panel-title")).to_have_text("Alice")
    assert await page.locator("#query-name").input_value() == "guild_overview"
    assert await page.locator("#query-form [required]").count() == 0
    await page.click("#query-run")
    await expect(page.locator("#query-status")).to_have_text("guild_overview: 1 row (no nodes in them: shown as a table)")
    await page.click("#table-close")

    await page.click("#clear")
    await page.fill("#search", "bob")
    await page.locator(".starts[data-kind=members] button.start", has_text="Bob").click()
    await expect(page.locator("#panel-title")).to_have_text("Bob")
    await page.click("#show-history")
    events = page.locator("#history-events li")
    await expect(events.first).to_contain_text("starts to hold")
    assert "Bob has moved to Munich" in await page.locator("#history-events").inner_text()
    moved = events.filter(has_text="stops holding").filter(has_text="Bob has moved to Berlin")
    await moved.locator("button").click()  # the day he moved
    await expect(page.locator("#asof-shown")).to_have_text("what held at 2024-06-10 00:00:00 UTC")
    assert {"Bob has moved to Berlin", "Bob has moved to Munich"} <= set(await drawn(page, "Fact"))
    assert "Closed" in await classes(page, "Bob has moved to Berlin")
    await page.click("#fit")
    await shot(page, "demo-bob-history")  # docs/explore.png
    await page.click("#clear")
    await page.fill("#search", "carpool")
    await page.locator(".starts[data-kind=channels] button.start").first.click()
    await page.wait_for_function(  # the channel's neighbourhood arrives after the click
        "() => grapevineExplore.cy.nodes().some((n) => !n.hasClass('asof-hidden') && n.data('label') === 'Episode')",
        timeout=15_000,
    )
    episodes = await drawn(page, "Episode")
    assert episodes and all(len(c) <= 72 for c in episodes), episodes  # a summary is cut, so labels do not overlap
    assert any(c.endswith("…") for c in episodes), episodes
    await context.close()
