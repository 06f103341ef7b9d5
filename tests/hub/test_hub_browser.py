"""The projector page in a real headless Chromium: a table sends a result through its outbox and the
leaderboard shows it after its own refresh, without anyone reloading the page."""

from __future__ import annotations

import random
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hub.loadtest import random_game
from hub.outbox import Outbox, Sender, join

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]


@pytest.fixture
def browser() -> Any:
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    if not Path(CHROMIUM).exists() and shutil.which("chromium") is None:
        pytest.skip("Chromium is not installed: apt-get install chromium")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_leaderboard_shows_a_result_after_it_refreshes_itself(live_server: Any, browser: Any,
                                                              tmp_path: Path) -> None:
    created = live_server.app.state.store.create_event("Projector Con")
    code = created.event.code
    page = browser.new_page()
    page.goto(f"{live_server.url}/events/{code}/leaderboard?refresh_ms=250")
    assert page.title() == "Projector Con - Fuji Koro standings"
    assert page.locator("#standings").inner_text() == "No results yet."
    page.evaluate("window.__sameDocument = true")  # gone if the page reloads instead of refreshing itself

    outbox = Outbox(tmp_path / "tablet.sqlite3")
    join(outbox, live_server.url, code, "Table 12", created.event.join_secret)
    game = random_game(random.Random(12), players=3)
    outbox.enqueue_result(game)
    assert Sender(outbox).pump().sent == 1

    winner = min(game["players"], key=lambda p: p["rank"])
    row = page.locator(f"#standings tr[data-player='{winner['name']}']")
    row.wait_for(timeout=15_000)
    assert row.locator("td").nth(2).inner_text() == "10"  # rank points of a win
    assert "Table 12" in page.locator("#recent").inner_text()
    assert page.evaluate("window.__sameDocument") is True
    outbox.close()


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_page_on_another_port_cannot_post_the_admins_forms(
    live_server: Any, browser: Any, html_page: Callable[[str], str]
) -> None:
    """Issue 14: the organiser is signed in; a page served from the same host on another port auto-posts the
    void form. SameSite=Strict lets the cookie go (same site); the Origin check and the CSRF token refuse it."""
    store = live_server.app.state.store
    created = store.create_event("Cross Con")
    code = created.event.code
    joined = store.join(code, "Table 1", "k" * 32, created.event.join_secret)
    from hub.schema import GameResult

    result_id = store.submit_result(joined.table, GameResult.model_validate(random_game(random.Random(3)))).result_id
    page = browser.new_page()
    page.goto(f"{live_server.url}/events/{code}/admin")
    page.fill("input[name=token]", created.admin_token)
    page.click("button[type=submit]")
    page.wait_for_load_state()
    assert "Audit log" in page.content(), page.content()[:2000]
    page.wait_for_selector("#results")

    target = f"{live_server.url}/events/{code}/admin/results/{result_id}/void"
    evil = html_page(f"<!doctype html><html><body><form id=f method=post action='{target}'>"
                     "<input name=reason value='pwned'></form>"
                     "<script>document.getElementById('f').submit()</script></body></html>")
    with page.expect_response(lambda r: r.url == target) as answer:
        page.goto(evil)
    assert answer.value.status == 403
    assert store.result(store.event(code), result_id)["void"] is False
    # the organiser's own page still works: same browser, same session, the form from the hub
    page.goto(f"{live_server.url}/events/{code}/admin")
    page.locator(f"form[action$='/results/{result_id}/void'] input[name=reason]").fill("duplicate")
    page.locator(f"form[action$='/results/{result_id}/void'] button").click()
    page.wait_for_selector("text=voided")
    assert store.result(store.event(code), result_id)["void"] is True
