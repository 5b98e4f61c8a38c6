"""Browser tests of the analysis board's hand editor (issue 27): a card dragged from a hand to a stone
(HTML5 drag and drop, Playwright's ``drag_to``) gives a new position, in the URL, and new figures; a
card picked and placed with the keyboard does too; an impossible edit shows the engine's sentence
and keeps the old position. Debian's Chromium against a live server (``browser_helpers``)."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlparse

import pytest
from browser_helpers import Browser, LiveServer, finished_friend_game

from schotten.engine import GameState, Settings
from schotten.engine.cards import card_str
from schotten.engine.position import format_position, parse_position

os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")

FIGURES_SHOWN = "() => document.querySelectorAll('#best-moves li').length > 0"


@pytest.fixture
def server(sync_api: Any, tmp_path: Path) -> Iterator[LiveServer]:
    """A server of its own, analysing with a small budget."""
    env = {"SCHOTTEN_ANALYSIS_ITERATIONS": "24", "SCHOTTEN_REVIEW_WORKERS": "0"}
    with LiveServer(tmp_path / "games.db", tmp_path / "server.log", seed=2728, env=env) as live:
        yield live


def deck_dry(seed: int = 3) -> GameState:
    """A base game played at random until its clan deck is empty (hands may then shrink, R3.4)."""
    state = GameState.new(Settings.of("base", 1), seed)
    rng = random.Random(seed)
    while state.clan_deck and not state.is_over:
        state.apply(rng.choice(state.legal_actions()))
    assert not state.is_over
    return state


def open_board(pages: Browser, server: LiveServer, position: str, names: str = "") -> Any:
    """The analysis board on ``position``, once its figures are shown."""
    page = pages.page(viewport={"width": 1280, "height": 1000})
    page.goto(f"{server.url}/analysis?position={quote(position)}{names}")
    page.wait_for_function(FIGURES_SHOWN, timeout=60_000)
    return page


def url_position(page: Any) -> str:
    """The position the page's URL holds."""
    return parse_qs(urlparse(page.url).query)["position"][0]


def open_stone(state: GameState) -> int:
    """A stone (0-8) not claimed whose mover's side has room."""
    return next(s for s in range(9) if state.owner[s] < 0 and len(state.sides[state.turn][s]) < 3)


def test_a_card_dragged_from_a_hand_to_a_stone_changes_the_figures(pages: Browser,
                                                                    server: LiveServer) -> None:
    state = deck_dry()
    seat, stone = state.turn + 1, open_stone(state) + 1
    card = card_str(state.hands[state.turn][0])
    page = open_board(pages, server, format_position(state), "&seat1=Ann&seat2=Bob")
    row = f"#analysis-stones tr[data-stone='{stone}']"
    before = page.inner_text(row)
    assert "Ann" in page.inner_text("#analysis-win") and "Bob" in page.inner_text("#analysis-win")
    assert page.locator("#best-moves li .advice").first.inner_text().strip()
    source = page.locator(f"#editor .zone[data-place='hand:{seat}'] .card[data-card='{card}']")
    source.drag_to(page.locator(f"#editor .zone[data-place='stone:{stone}:{seat}']"))
    page.wait_for_selector(f"#editor .zone[data-place='stone:{stone}:{seat}'] .card[data-card='{card}']")
    page.wait_for_function(
        f"() => {{ const r = document.querySelector(\"{row}\"); return r && r.innerText !== {before!r}; }}",
        timeout=60_000)
    edited = parse_position(url_position(page))
    assert edited.sides[state.turn][stone - 1][-1] == state.hands[state.turn][0]
    assert page.input_value("#position") == url_position(page)
    assert page.locator(f"#editor .zone[data-place='hand:{seat}'] .card[data-card='{card}']").count() == 0


def test_a_card_picked_and_placed_with_the_keyboard(pages: Browser, server: LiveServer) -> None:
    state = deck_dry()
    seat, stone = state.turn + 1, open_stone(state) + 1
    card = card_str(state.hands[state.turn][-1])
    page = open_board(pages, server, format_position(state))
    page.focus(f"#editor .zone[data-place='hand:{seat}'] .card[data-card='{card}']")
    page.keyboard.press("Enter")
    assert page.get_attribute(f"#editor .card[data-card='{card}']", "aria-pressed") == "true"
    page.focus(f"#editor .zone[data-place='stone:{stone}:{seat}']")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"#editor .zone[data-place='stone:{stone}:{seat}'] .card[data-card='{card}']")
    assert parse_position(url_position(page)).sides[state.turn][stone - 1][-1] == state.hands[state.turn][-1]


def test_an_impossible_edit_shows_the_engines_sentence(pages: Browser, server: LiveServer) -> None:
    """A fresh deal: a card from a hand to a stone leaves a hand short while the decks hold cards."""
    position = format_position(GameState.new(Settings.of("tactics", 1), 3))
    page = open_board(pages, server, position)
    source = page.locator("#editor .zone[data-place='hand:1'] .card[data-card='4g']")
    source.drag_to(page.locator("#editor .zone[data-place='stone:5:1']"))
    page.wait_for_function("() => document.getElementById('edit-status').textContent.includes('impossible')")
    said = page.inner_text("#edit-status")
    assert "hands: seat 0 holds 6 cards, fewer than 7" in said and "R3.4" in said
    assert url_position(page) == position and page.input_value("#position") == position
    assert page.locator("#editor .zone[data-place='hand:1'] .card[data-card='4g']").count() == 1
    assert page.locator("#editor .zone[data-place='stone:5:1'] .card").count() == 0
    page.click("#switch-seat")
    page.wait_for_function(
        "() => new URL(window.location.href).searchParams.get('position').includes(' 1 play ')")
    assert parse_position(url_position(page)).turn == 1 and page.inner_text("#edit-status") == ""
    page.wait_for_function(
        "() => document.getElementById('analysis-win').textContent.startsWith('Seat 2 to move')",
        timeout=60_000)


def test_the_readers_own_seat_reads_you(pages: Browser, server: LiveServer) -> None:
    """Signed in as the account that sat in seat 1: that seat is "You", the other one its name."""
    page = pages.page(viewport={"width": 1280, "height": 1000})
    page.goto(f"{server.url}/rules")
    status = page.evaluate("""async () => (await fetch('/api/accounts', { method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ username: 'carla', password: 'a long enough password' }) })).status""")
    assert status == 201
    position = format_position(GameState.new(Settings.of("tactics", 1), 3))
    page.goto(f"{server.url}/analysis?position={quote(position)}&seat1=carla&account1=carla&seat2=Bob")
    page.wait_for_function(FIGURES_SHOWN, timeout=60_000)
    assert page.inner_text("#analysis-win").startswith("You are to move.")
    assert "You" in page.inner_text("#best-moves li >> nth=0")
    assert page.get_attribute("#editor .zone[data-place='hand:1']", "aria-label") == "Hand: You"
    assert page.get_attribute("#editor .zone[data-place='hand:2']", "aria-label") == "Hand: Bob"


def test_analyse_from_here_passes_the_players_names(pages: Browser, server: LiveServer) -> None:
    game_id, _ = finished_friend_game(server.url, seed=7)
    page = pages.page(viewport={"width": 1280, "height": 900})
    page.goto(f"{server.url}/replay/{game_id}")
    page.wait_for_function("() => document.getElementById('analyse-here').href.includes('position=')")
    query = parse_qs(urlparse(page.get_attribute("#analyse-here", "href") or "").query)
    assert query["seat1"] == ["Ann"] and query["seat2"] == ["Bob"] and "account1" not in query
    page.click("#analyse-here")
    page.wait_for_function(FIGURES_SHOWN, timeout=60_000)
    assert "Ann" in page.inner_text("#analysis-win") and "Bob" in page.inner_text("#analysis-win")
