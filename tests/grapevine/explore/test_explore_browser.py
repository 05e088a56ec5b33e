"""`grapevine explore` started as an operator starts it, on a populated embedded graph, driven in a
real headless Chromium (Debian's `chromium`, through Playwright): search a member, expand to their
facts and reporters, move the time control to before a supersession, step through a history, run
operator queries, show markup as text, lose a forgotten member. Screenshots go to log/explore/;
the assertions read what the page shows (its text, and the nodes its graph draws), never pixels."""

from __future__ import annotations

import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from graph.engines.arcadedb import ArcadeDBEngine
from graph.privacy.forget import forget_user
from graph.schema import setup_schema
from graph.store import GraphStore
from tests.grapevine.explore.conftest import MARKUP_FACT, MARKUP_NAME, explore_graph
from tests.support.busy_server import PEOPLE, Populated

REPO = Path(__file__).resolve().parents[3]
SHOTS = REPO / "log" / "explore"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def browser_missing() -> str | None:
    """Why no real browser can run here, or None."""
    if not Path(CHROMIUM).is_file():
        return "Debian's chromium is not installed (scripts/setup --dev installs it: apt-get install -y chromium)"
    try:
        import playwright.async_api  # noqa: F401
    except ImportError:
        return "the playwright package is missing: pip install -e '.[dev]'"
    return None


pytestmark = [pytest.mark.slow, pytest.mark.skipif(browser_missing() is not None, reason=browser_missing() or "")]


@dataclass
class Served:
    url: str
    store: GraphStore
    graph: Populated
    output: list[str]


def start_explore(engine: ArcadeDBEngine, workdir: Path) -> tuple[subprocess.Popen[str], str, list[str]]:
    """`grapevine explore --port 0` against the test engine; the process, its URL and its output so far."""
    env = {
        **os.environ,
        "GRAPEVINE_ENGINE": "arcadedb",
        "GRAPEVINE_DATA_DIR": str(workdir / "data"),
        "ARCADEDB_HOST": engine.host,
        "ARCADEDB_BOLT_PORT": str(engine.bolt_port),
        "ARCADEDB_HTTP_PORT": str(engine.http_port),
        "ARCADEDB_PASSWORD": engine.password,
        "ARCADEDB_DATABASE": engine.database,
        "ARCADEDB_EXTERNAL": "true",  # the test session's server: joined, not owned
    }
    command = Path(sys.executable).with_name("grapevine")
    argv = [str(command)] if command.exists() else [sys.executable, "-m", "grapevine"]
    proc = subprocess.Popen(
        [*argv, "explore", "--port", "0"], cwd=workdir, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    lines: queue.Queue[str] = queue.Queue()
    output: list[str] = []

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            output.append(line)
            lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    while True:
        try:
            line = lines.get(timeout=120)
        except queue.Empty:
            proc.kill()
            raise AssertionError("grapevine explore printed no URL in 120 s:\n" + "".join(output)) from None
        found = re.search(r"http://127\.0\.0\.1:\d+/[\w-]+/", line)
        if found:
            return proc, found[0], output


def stop_explore(proc: subprocess.Popen[str]) -> None:
    """Ctrl-C, as its user stops it; killed if it does not stop."""
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="module")
async def served(arcadedb_server: ArcadeDBEngine, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Served]:
    engine = arcadedb_server.for_database(f"explore{uuid.uuid4().hex[:10]}")
    await engine.create_database()
    driver = engine.driver()
    store = GraphStore(driver, engine)
    await setup_schema(store)
    graph = await explore_graph(store)
    proc, url, output = start_explore(engine, tmp_path_factory.mktemp("explore"))
    try:
        yield Served(url, store, graph, output)
    finally:
        stop_explore(proc)
        await driver.close()
        await engine.drop_database()
    assert "grapevine explore: stopped" in "".join(output), "".join(output)


@pytest.fixture(scope="module")
async def browser() -> AsyncIterator[Any]:
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        launched = await p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        await launched.close()


@pytest.fixture
async def page(browser: Any, served: Served) -> AsyncIterator[Any]:
    """A fresh page on the explorer, ready; `page.problems` collects console errors and page errors."""
    context = await browser.new_context(viewport={"width": 1500, "height": 900})
    opened = await context.new_page()
    opened.problems = []
    opened.on("console", lambda m: opened.problems.append(m.text) if m.type in ("error", "warning") else None)
    opened.on("pageerror", lambda e: opened.problems.append(f"page error: {e}"))
    await opened.goto(served.url)
    await opened.wait_for_selector("body[data-ready=true]", timeout=30_000)
    await opened.click("#clear")  # the page opens on its first member (test_explore_demo.py); these start empty
    yield opened
    await context.close()
    assert opened.problems == [], "console errors (a CSP violation is one) or page errors"


async def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / f"{name}.png"))


async def drawn(page: Any, label: str | None = None) -> list[str]:
    """Captions of the nodes the graph draws (not hidden by the time control), optionally of one label."""
    return sorted(
        await page.evaluate(
            """(label) => grapevineExplore.cy.nodes()
        .filter((n) => !n.hasClass('asof-hidden') && (!label || n.data('label') === label))
        .map((n) => n.data('caption'))""",
            label,
        )
    )


async def classes(page: Any, caption: str) -> list[str]:
    return sorted(
        await page.evaluate("(c) => grapevineExplore.cy.nodes().filter((n) => n.data('caption') === c)[0].classes()", caption)
    )


async def point(page: Any, caption: str) -> tuple[float, float]:
    """Where a node is drawn on the screen, to click it with the mouse."""
    xy = await page.evaluate(
        """(c) => {
        const node = grapevineExplore.cy.nodes().filter((n) => n.data('caption') === c)[0];
        const box = grapevineExplore.cy.container().getBoundingClientRect();
        const at = node.renderedPosition();
        return [box.left + at.x, box.top + at.y]; }""",
        caption,
    )
    return xy[0], xy[1]


async def open_member(page: Any, text: str, name: str) -> None:
    from playwright.async_api import expect

    await page.fill("#search", text)
    members = page.locator(".starts[data-kind=members] button.start")
    await expect(members).to_have_text([name])
    await members.click()
    await expect(page.locator("#panel-title")).to_have_text(name)


async def set_time(page: Any, value: str) -> None:
    await page.fill("#asof-date", value)
    await page.locator("#asof-date").dispatch_event("change")


def get_status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code


async def test_a_wrong_or_missing_token_is_403(served: Served, browser: Any) -> None:
    base, token = served.url.rsplit("/", 2)[:2]
    near = token[:-1] + ("A" if token[-1] != "A" else "B")
    assert get_status(served.url) == 200 and get_status(served.url + "api/guilds") == 200
    for url in (base + "/", base + "/api/guilds", base + "/not-the-token/", f"{base}/{near}/api/guilds"):
        assert get_status(url) == 403, url
    context = await browser.new_context()
    page = await context.new_page()
    response = await page.goto(base + "/wrong-token-wrong-token/")
    assert response.status == 403 and "token included" in await page.inner_text("body")
    await context.close()


async def test_a_guild_of_one_fact_says_one_fact(page: Any, served: Served) -> None:
    """Each guild of the selector with its facts counted: one is "1 fact", never "1 facts"."""
    options = await page.locator("#guild option").all_inner_texts()
    assert "Climbing Gym (1 fact)" in options and not any("(1 facts)" in o for o in options), options


async def test_search_expand_and_go_back_in_time(page: Any, served: Served) -> None:
    from playwright.async_api import expect

    await expect(page.locator("#guild option:checked")).to_have_text("Book Club (30 facts)")
    await expect(page.locator("#legend li[data-legend=User]")).to_contain_text("{display_name}")
    await expect(page.locator("#legend li[data-legend=Closed]")).to_contain_text("closed fact")
    # A member, their facts, and by a click and a double click on the graph, the fact's reporters.
    await open_member(page, "fra", "Frank")
    assert await drawn(page) == ["Frank", "Frank got engaged to Heather"]
    await page.mouse.click(*await point(page, "Frank got engaged to Heather"))
    await expect(page.locator("#panel-title")).to_have_text("Frank got engaged to Heather")
    reporters = page.locator("section.group[data-group=reported_by] li")
    await expect(reporters).to_have_count(2)
    await expect(reporters.first).to_contain_text("Eve REPORTED_BY · at 2024-05-04 18:00:00 UTC")
    await expect(reporters.last).to_contain_text("Grace")
    await page.mouse.dblclick(*await point(page, "Frank got engaged to Heather"))
    await expect(page.locator("#notice")).to_contain_text("2 reported by")
    assert {"Eve", "Grace", "Heather", "Frank got engaged to Heather!!", "yes Frank told me he got engaged to Heather"} <= set(
        await drawn(page)
    )
    await expect(page.locator("#status")).to_have_text(re.compile(r"^\d+ nodes, \d+ relationships shown$"))
    await shot(page, "1-facts-and-reporters")

    # Bob moved from Berlin to Munich: today the Berlin fact is closed, small and grey.
    await page.click("#clear")
    await open_member(page, "bob", "Bob")
    assert await drawn(page, "Fact") == ["Bob lives in Berlin", "Bob moved to Munich"]
    assert "Closed" in await classes(page, "Bob lives in Berlin")
    assert "Closed" not in await classes(page, "Bob moved to Munich")
    await set_time(page, "2024-05-05T00:00")  # before the move
    await expect(page.locator("#asof-shown")).to_have_text("what held at 2024-05-05 00:00:00 UTC")
    assert await drawn(page, "Fact") == ["Bob lives in Berlin"]
    assert await classes(page, "Bob lives in Berlin") == ["Fact", "closed-later"]  # it held then: drawn open
    await expect(page.locator("#status")).to_contain_text("hidden by the time control")
    await shot(page, "2-as-of-before-the-move")
    await set_time(page, "2024-05-20T00:00")
    assert await drawn(page, "Fact") == ["Bob lives in Berlin", "Bob moved to Munich"]
    assert await classes(page, "Bob lives in Berlin") == ["Closed", "Fact"]
    # Record time: what grapevine knew. Both facts were written when this test began.
    await page.select_option("#asof-axis", "recorded")
    await set_time(page, "2024-05-20T00:00")
    assert await drawn(page, "Fact") == []
    await page.uncheck("#asof-on")
    assert await drawn(page, "Fact") == ["Bob lives in Berlin", "Bob moved to Munich"]


async def test_stepping_through_a_members_history(page: Any, served: Served) -> None:
    from playwright.async_api import expect

    await open_member(page, "bob", "Bob")
    await page.click("#show-history")
    events = page.locator("#history-events li")
    await expect(events).to_have_text(
        [
            re.compile(r"2024-05-04 18:01 starts to hold: Bob lives in Berlin$"),
            re.compile(r"2024-05-06 18:00 starts to hold: Bob moved to Munich$"),
            re.compile(r"2024-05-06 18:00 stops holding: Bob lives in Berlin \(replaced by: Bob moved to Munich\)"),
        ]
    )
    await page.click("#history-next")
    await expect(page.locator("#history-position")).to_have_text("step 1 of 3")
    assert await drawn(page, "Fact") == ["Bob lives in Berlin"]
    await page.click("#history-next")
    await page.click("#history-next")
    await expect(page.locator("#history-position")).to_have_text("step 3 of 3")
    await expect(page.locator("#asof-shown")).to_have_text("what held at 2024-05-06 18:00:00 UTC")
    assert await drawn(page, "Fact") == ["Bob lives in Berlin", "Bob moved to Munich"]
    assert await classes(page, "Bob lives in Berlin") == ["Closed", "Fact", "step"]
    await shot(page, "3-history")
    await page.click("#history-prev")
    await expect(page.locator("#history-position")).to_have_text("step 2 of 3")
    await page.select_option("#asof-axis", "recorded")
    await expect(events).to_have_count(3)
    await expect(events.last).to_contain_text("closed: Bob lives in Berlin (superseded by: Bob moved to Munich)")


async def test_operator_queries_as_a_graph_and_as_a_table(page: Any, served: Served) -> None:
    from playwright.async_api import expect

    names = await page.locator("#query-name option").all_inner_texts()
    assert {"who_knows_what_graph", "who_reported", "guild_overview", "superseded_recently"} <= set(names)
    await page.select_option("#query-name", "who_knows_what_graph")
    await expect(page.locator("#query-about")).to_contain_text("Who was present when a fact was said (graph)")
    await page.fill("#query-form [name=user_id]", PEOPLE["frank"])
    await page.click("#query-run")
    await expect(page.locator("#query-status")).to_have_text(
        re.compile(r"^who_knows_what_graph: 1 row, \d+ nodes and \d+ relationships on the canvas$")
    )
    assert await drawn(page, "User") == ["Bob", "Eve", "Frank", "Grace"]
    await shot(page, "4-operator-query-graph")
    await page.select_option("#query-name", "who_reported")
    await page.fill("#query-form [name=user_id]", PEOPLE["frank"])
    await page.select_option("#query-view", "table")
    await page.click("#query-run")
    await expect(page.locator("#query-status")).to_have_text("who_reported: 2 rows")
    await expect(page.locator("#table thead th")).to_have_text(
        ["fact_uuid", "fact", "state", "reporter_id", "reporter", "reported_at", "message_id"]
    )
    await expect(page.locator("#table tbody tr")).to_have_count(2)
    assert [await page.locator(f"#table tbody tr:nth-child({i}) td:nth-child(5)").inner_text() for i in (1, 2)] == [
        "Eve",
        "Grace",
    ]
    await shot(page, "5-operator-query-table")
    await page.select_option("#query-name", "superseded_recently")
    await page.fill("#query-form [name=since]", "2024-05-01T00:00Z")
    await page.fill("#query-form [name=until]", "yesterday")
    await page.click("#query-run")
    await expect(page.locator("#query-status.error")).to_contain_text(
        "superseded_recently: parameter until must be datetime, got 'yesterday'"
    )
    assert page.problems == ["Failed to load resource: the server responded with a status of 400 (Bad Request)"]
    page.problems.clear()


async def test_markup_in_names_and_facts_is_shown_as_text(page: Any, served: Served) -> None:
    from playwright.async_api import expect

    await open_member(page, "<img", MARKUP_NAME)
    await expect(page.locator("section.group[data-group=facts_about] li")).to_contain_text(MARKUP_FACT)
    assert await drawn(page) == sorted([MARKUP_NAME, MARKUP_FACT, "a member wrote markup"])  # and its episode
    assert await page.evaluate("window.__xss === undefined")
    assert await page.locator("img").count() == 0 and await page.locator("script").count() == 2
    assert await page.locator("b", has_text="bold").count() == 0


async def test_a_forgotten_member_is_gone_from_the_page(page: Any, served: Served) -> None:
    from playwright.async_api import expect

    await open_member(page, "alice", "Alice")
    assert "Alice adopted a cat named Luna" in await drawn(page)
    assert not (await forget_user(served.store, PEOPLE["alice"])).residue
    await page.mouse.click(*await point(page, "Alice"))
    await expect(page.locator("#panel")).to_contain_text(
        "not in this guild's graph: deleted, forgotten, or of another guild. It is no longer shown."
    )
    assert "Alice" not in await drawn(page)
    await page.fill("#search", "alice")
    await expect(page.locator("#results")).to_have_text("nothing in this guild matches")
    await page.reload()
    await page.wait_for_selector("body[data-ready=true]")
    assert "Alice" not in await page.locator("#results").inner_text()
    assert page.problems == ["Failed to load resource: the server responded with a status of 404 (Not Found)"]
    page.problems.clear()
