"""Browser tests of the screen-reader mode (issue 29, "a board every player can use"): a whole game
against the easy AI played with the keyboard only, reading only the text the mode gives (the
table in words and the live region) and typing commands; a refused command gets the server's
sentence, typed in the notation or in words (turned into the notation, legal or not); the mode is
remembered; the keys 1-9 and the arrow keys move the focus on the board and in the hand."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import LiveServer, create_table

os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")

ORDERS = """() => [...document.querySelectorAll('#blind [data-part="blind-moves"] li')]
  .map((n) => n.textContent)"""
LIVE = "() => [...document.querySelectorAll('#blind-live p')].map((n) => n.textContent)"
TURN = "() => document.querySelector('#blind [data-part=\"blind-turn\"] p').textContent"
READY = """() => {
  const turn = document.querySelector('#blind [data-part="blind-turn"] p');
  if (!turn || document.body.classList.contains('pending')) return false;
  return turn.textContent === 'Game over'
    || document.querySelectorAll('#blind [data-part="blind-moves"] li').length > 0;
}"""
SAID = "() => Number(document.querySelector('#blind-live').dataset.said || 0)"
MOVES_LIMIT = 200
COLOUR_WORDS = {"g": "green", "b": "blue", "r": "red", "y": "yellow", "p": "purple", "k": "pink"}
ANSWER = "() => document.querySelector('#blind-answer').textContent"
REFUSED = f"() => ({ANSWER})().startsWith('That move is not allowed: ')"


@pytest.fixture
def server(sync_api: Any, tmp_path: Path) -> Iterator[LiveServer]:
    """A server of its own for each test, its games seeded from 2929."""
    with LiveServer(tmp_path / "games.db", tmp_path / "server.log", seed=2929) as live:
        yield live


def blind_table(pages: Any, server: LiveServer, clock: str | None = None) -> Any:
    """A table against the easy AI (with the time control ``clock``), its screen-reader mode turned
    on with the keyboard."""
    page = pages.page()
    create_table(page, server.url, "Blind", "base", clock=clock)
    for _ in range(60):
        if page.evaluate("() => document.activeElement && document.activeElement.id") == "blind-toggle":
            break
        page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.activeElement && document.activeElement.id === 'blind-command'")
    return page


def type_command(page: Any, command: str) -> None:
    """Type a command in the focused command box and send it."""
    page.keyboard.type(command)
    page.keyboard.press("Enter")


def choose(orders: list[str], turn: int) -> str:
    """What to type from the orders the mode lists ("7b@3: play blue 7 on stone 3"): a claim first,
    then the end of the claims; a card play is typed in words on every other turn."""
    notation = [order.split(": ", 1) for order in orders]
    for action, _ in notation:
        if action.startswith("claim"):
            return action
    for action, words in notation:
        if action == "done":
            return words
    action, words = notation[0]
    return words if turn % 2 else action


def test_a_whole_game_against_the_ai_typed_in_the_screen_reader_mode(pages: Any,
                                                                     server: LiveServer) -> None:
    page = blind_table(pages, server)
    for turn in range(MOVES_LIMIT):
        page.wait_for_function(READY)
        if page.evaluate(TURN) == "Game over":
            break
        heard = page.evaluate(SAID)
        type_command(page, choose(page.evaluate(ORDERS), turn))
        page.wait_for_function(f"() => ({SAID})() > {heard}")
    else:
        pytest.fail("the game did not end")
    said = page.evaluate(LIVE)
    assert any(line.startswith("Blind played ") for line in said), said
    assert any(" played " in line and not line.startswith("Blind") for line in said), said
    ends = ("You win the match!", "The match is drawn.")
    assert said[-1] in ends or said[-1].endswith("wins the match."), said
    stones = page.inner_text('#blind [data-part="blind-stones"]')
    assert "claimed by" in stones


def test_a_refused_command_gets_the_server_sentence_and_words_are_matched(pages: Any,
                                                                          server: LiveServer) -> None:
    page = blind_table(pages, server)
    page.wait_for_function(READY)
    orders = page.evaluate(ORDERS)
    assert orders and all(": " in order for order in orders)
    type_command(page, "claim 9")
    page.wait_for_function("() => document.querySelector('#blind-answer').textContent !== ''")
    assert page.inner_text("#blind-answer").startswith("That move is not allowed:")
    type_command(page, "play the moon on stone 12")
    page.wait_for_function(f"() => ({ANSWER})().includes('cannot be read')")
    assert page.inner_text("#blind-answer") == (
        "“play the moon on stone 12” cannot be read as a move. Type a move's notation, as the list of what "
        "you may do shows it (7b@3, claim 4), or its order in words: play blue 7 on stone 3, claim stone 4, "
        "pass.")
    page.fill("#blind-command", "")
    type_command(page, "blue 7 on 3 play")
    page.wait_for_function(f"() => ({ANSWER})().includes('more than one')")
    answer = page.inner_text("#blind-answer")
    assert answer.startswith("“blue 7 on 3 play” may name more than one move (") and "7b@3" in answer
    assert "3b@7" in answer and page.input_value("#blind-command") == "blue 7 on 3 play"
    page.fill("#blind-command", "")
    action = orders[0].split(": ", 1)[0]
    card, stone = action.split("@")
    heard = len(page.evaluate(LIVE))
    type_command(page, f"PLAY {card} on   Stone {stone}")
    page.wait_for_function(f"() => document.querySelectorAll('#blind-live p').length > {heard}")
    assert page.evaluate(LIVE)[heard].startswith("Blind played "), page.evaluate(LIVE)


def refused_in_words(page: Any, command: str) -> str:
    """Type ``command`` and return the sentence it is refused with (the live region says it too)."""
    heard = page.evaluate(SAID)
    type_command(page, command)
    page.wait_for_function(REFUSED)
    answer = str(page.evaluate(ANSWER))
    assert page.evaluate(LIVE)[-1] == answer and page.evaluate(SAID) > heard
    page.fill("#blind-command", "")
    return answer


def fill_stone_one(page: Any) -> list[str]:
    """Play cards (typed in words) on stone 1 until no order of a card play names it (one's side is
    full, or the stone claimed); the claims are ended unmade. The orders left are returned."""
    for _ in range(MOVES_LIMIT):
        page.wait_for_function(READY)
        orders = [order.split(": ", 1) for order in page.evaluate(ORDERS)]
        ones = [words for action, words in orders if action.endswith("@1")]
        if not ones and any("@" in action for action, _ in orders):
            return [words for action, words in orders if "@" in action]
        heard = page.evaluate(SAID)
        done = [words for action, words in orders if action == "done"]
        type_command(page, (ones or done or [orders[0][1]])[0])
        page.wait_for_function(f"() => ({SAID})() > {heard}")
    pytest.fail("stone 1 never filled")


def test_a_move_in_words_that_is_not_legal_gets_the_engine_sentence(pages: Any, server: LiveServer) -> None:
    """"play blue 7 on stone 3" is turned into "7b@3" and sent even when it is not legal now: a card
    not in one's hand, or a stone whose side is full (or claimed), gets the engine's reason."""
    page = blind_table(pages, server)
    page.wait_for_function(READY)
    hand = page.evaluate("() => window.schotten.state.view.hand")
    card = next(f"{value}{letter}" for letter in COLOUR_WORDS for value in range(1, 10)
                if f"{value}{letter}" not in hand)
    answer = refused_in_words(page, f"play {COLOUR_WORDS[card[1]]} {card[0]} on stone 3")
    assert answer == f"That move is not allowed: you have no {card} in your hand", answer
    plays = fill_stone_one(page)
    answer = refused_in_words(page, plays[0].rsplit(" ", 1)[0] + " 1")
    assert "stone 1 is full" in answer or "is claimed" in answer, answer


def test_the_mode_is_remembered_and_the_keys_move_on_the_board(pages: Any, server: LiveServer) -> None:
    page = blind_table(pages, server)
    page.reload()
    page.wait_for_selector("#status[data-version]")
    assert page.get_attribute("#blind-toggle", "aria-pressed") == "true"
    assert page.is_visible("#blind-table h3")
    page.click("#blind-toggle")
    assert page.is_hidden("#blind")
    page.evaluate("() => document.activeElement.blur()")
    assert page.evaluate("() => document.querySelector('#blind-toggle').getBoundingClientRect().width") <= 1
    page.wait_for_function("() => document.querySelector('#status').dataset.mine === '1'")
    stops = page.evaluate("() => [...document.querySelectorAll('#hand .card')]"
                          ".filter((n) => n.tabIndex === 0).length")
    assert stops == 1
    page.focus("#hand .card[tabindex='0']")
    first = page.evaluate("() => document.activeElement.dataset.card")
    page.keyboard.press("ArrowRight")
    second = page.evaluate("() => document.activeElement.dataset.card")
    assert second and second != first
    page.keyboard.press("Enter")
    page.wait_for_selector("#board .col.target")
    page.keyboard.press("4")
    assert page.evaluate("() => document.activeElement.dataset.stone") == "4"
    page.keyboard.press("ArrowRight")
    assert page.evaluate("() => document.activeElement.dataset.stone") == "5"
    ring = page.evaluate("() => getComputedStyle(document.activeElement).outlineWidth")
    other = page.evaluate("() => getComputedStyle(document.querySelector('#board .col.target:not(:focus)'))"
                          ".outlineWidth")
    assert ring != other
    version = page.get_attribute("#status", "data-version")
    page.keyboard.press("Enter")
    page.wait_for_selector("#confirm-bar")
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => document.querySelector('#status').dataset.version !== '{version}'"
                           " && document.querySelector('#status').dataset.mine === '1'")
    page.wait_for_function("() => document.activeElement.closest('#hand, #board') !== null")


def test_the_clocks_are_read_as_they_run(pages: Any, server: LiveServer) -> None:
    page = blind_table(pages, server, clock="5+5")
    page.wait_for_function("() => document.querySelector('#blind-clocks-text') !== null")
    clocks = page.inner_text("#blind-clocks-text")
    assert "Blind: 5:00" in clocks or "Blind: 4:5" in clocks, clocks
    assert "AI — no clock" in clocks
    page.wait_for_function("() => /Blind: 4:5/.test(document.querySelector('#blind-clocks-text').textContent)"
                           " || document.querySelector('#status').dataset.mine !== '1'")


CATALAN_COLOURS = {"g": "verd", "b": "blau", "r": "vermell", "y": "groc", "p": "lila", "k": "rosa"}


def test_a_command_in_catalan_words(pages: Any, server: LiveServer) -> None:
    page = pages.page(locale="ca-ES")
    create_table(page, server.url, "Cega", "base")
    page.focus("#blind-toggle")
    page.keyboard.press("Enter")
    page.wait_for_function(READY)
    action = page.evaluate(ORDERS)[0].split(": ", 1)[0]
    card, stone = action.split("@")
    heard = page.evaluate(SAID)
    page.fill("#blind-command", f"Juga {card[0]} {CATALAN_COLOURS[card[1]]} a la pedra {stone}")
    page.press("#blind-command", "Enter")
    page.wait_for_function(f"() => ({SAID})() > {heard}")
    assert page.inner_text("#blind-answer") == ""
    said = f"Cega ha jugat {card[0]} {CATALAN_COLOURS[card[1]]} a la pedra {stone}"
    assert page.evaluate(LIVE)[heard].startswith(said)
