"""Browser tests of the game page (issue 26): "Why not?" on a stone the seat may not claim (the
server's words, R5.2, in the reader's language, reached by keyboard), the AI's seat that has no
clock, and who watches (a spectator is told so; everyone sees how many watch, live)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

import pytest
from browser_helpers import (
    Browser,
    LiveServer,
    create_table,
    open_friend_table,
    play_friend_game,
    seated_pages,
)

os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")


@pytest.fixture(scope="module")
def server(sync_api: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One server for the module, its games' seeds fixed."""
    folder = tmp_path_factory.mktemp("game-page")
    with LiveServer(folder / "games.db", folder / "server.log", seed=2626) as live:
        yield live


def can_lose(state: dict[str, Any]) -> list[str]:
    """The stones of a state message that its seat may not claim because the other side can still win."""
    return [stone for stone, answer in state["answers"].items() if answer["kind"] == "can_lose"]


def watching(page: Any) -> str:
    """What the page says of who watches ("" when it says nothing)."""
    node = page.locator("#watching")
    return "" if node.is_hidden() else " ".join(str(node.inner_text()).split())


def wait_watching(page: Any, text: str) -> None:
    """Wait until the page says ``text`` of who watches."""
    said = "(text) => { const n = document.querySelector('#watching');" \
        " return n && !n.hidden && n.textContent.replace(/\\s+/g, ' ').includes(text); }"
    page.wait_for_function(said, arg=text)


def test_why_not_tells_why_a_stone_cannot_be_claimed(pages: Browser, server: LiveServer) -> None:
    """R5.2: Ann's side of a stone is complete but Bob's can still beat it. That stone has a "Why
    not?" button instead of Claim, reached with the keyboard; it shows the engine's reason in Ann's
    language with a "why?" link to the rule, and closes again. Bob and a spectator get no such button
    for it; a Portuguese reader gets the same answer in Portuguese."""
    grant, links = open_friend_table(server.url)
    state = play_friend_game(server.url, grant, 26, lambda s: bool(can_lose(s)), ask_why_not=True)
    stone = can_lose(state)[0]
    answer = state["answers"][stone]
    ann = seated_pages(pages, server.url, links[:1])[0]
    button = ann.locator(f'#board [data-why-not="{stone}"]')
    assert button.get_attribute("aria-label") == f"Why can I not claim stone {stone}?"
    assert ann.locator(f'#board .col[data-stone="{stone}"] .claim').count() == 0
    button.focus()
    ann.keyboard.press("Enter")
    box = ann.locator("#why-not")
    box.wait_for(state="visible")
    text = " ".join(str(box.inner_text()).split())
    assert text.startswith(f"Stone {stone}: Their side can still make"), text
    assert re.search(r"(is|are) not visible yet\.", text), text
    assert box.locator('a.why[href="/rules#R5.2"]').count() == 1
    assert button.get_attribute("aria-expanded") == "true"
    box.locator("button").click()
    assert box.is_hidden()
    assert ann.evaluate("() => document.activeElement.dataset.whyNot") == stone
    bob = seated_pages(pages, server.url, links[1:])[0]
    assert bob.locator(f'#board [data-why-not="{stone}"]').count() == 0
    spectator = pages.page()
    spectator.goto(f"{server.url}/game/{grant['id']}")
    spectator.wait_for_selector("#status[data-version]")
    assert spectator.locator("#board [data-why-not]").count() == 0
    reader = seated_pages(pages, server.url, links[:1], locale="pt-PT")[0]
    reader.click(f'#board [data-why-not="{stone}"]')
    said = str(reader.locator("#why-not").inner_text())
    assert f"Pedra {stone}" in said and "O lado do oponente ainda pode formar" in said, said
    assert answer["text"] not in said


def test_the_ai_has_no_clock_on_the_page(pages: Browser, server: LiveServer) -> None:
    """At a 3+2 table against the AI the player's clock runs and the AI's says it has none (the server
    never runs it), instead of a clock standing still all game."""
    page = pages.page()
    create_table(page, server.url, "Ann", "base", mode="ai", clock="3+2")
    ai_seat = page.evaluate("() => window.schotten.state.ai_seat")
    seat = page.evaluate("() => window.schotten.state.seat")
    assert ai_seat == 1 - seat
    page.wait_for_selector(f"#clock-{ai_seat}.no-clock")
    assert page.inner_text(f"#clock-{ai_seat}") == "AI — no clock"
    assert re.fullmatch(r"[23]:\d\d", page.inner_text(f"#clock-{seat}"))
    assert page.locator(f"#clock-{ai_seat}.running").count() == 0


def test_a_spectator_is_told_and_everyone_sees_how_many_watch(pages: Browser, server: LiveServer) -> None:
    """A spectator reads "You are watching this game."; both players and the spectators see how many
    watch, as spectators come and go."""
    grant, links = open_friend_table(server.url)
    ann, bob = seated_pages(pages, server.url, links)
    assert watching(ann) == "" and watching(bob) == ""
    first = pages.page()
    first.goto(f"{server.url}/game/{grant['id']}")
    wait_watching(first, "1 spectator")
    assert watching(first) == "You are watching this game. 1 spectator"
    for page in (ann, bob):
        wait_watching(page, "1 spectator")
        assert watching(page) == "1 spectator"
    second = pages.page()
    second.goto(f"{server.url}/game/{grant['id']}")
    for page in (ann, bob, first, second):
        wait_watching(page, "2 spectators")
    second.close()
    for page in (ann, bob, first):
        wait_watching(page, "1 spectator")
    first.close()
    ann.wait_for_selector("#watching", state="hidden")
