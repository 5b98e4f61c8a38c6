"""Browser tests of games that end (issue 14): both clocks beside the players, ticking in two
browsers of a 3+2 friend game started from the lobby; a clock that runs out; resigning after a
confirmation and aborting, with the reason shown to both players and in the lobby; a player who
leaves and the win claimed; the lobby's "your turn" games first and counted in the tab's title.
The server is the authority: the page counts down from what it sent (a browser test waits for
the real clock; the clock's rules are tested with an injected clock in the server's tests)."""

from __future__ import annotations

import json
import os
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import (
    MY_DECISION,
    Browser,
    LiveServer,
    create_table,
    open_friend_table,
    play_a_card,
    seated_pages,
)

os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")

LEAVE_TIMEOUT_S = 2
SOUND_ON = "localStorage.setItem('schotten.sound', '1');"


@pytest.fixture
def server(sync_api: Any, tmp_path: Path) -> Iterator[LiveServer]:
    """A server of its own for each test, a seat away for 2 s counting as gone."""
    env = {"SCHOTTEN_LEAVE_TIMEOUT": str(LEAVE_TIMEOUT_S)}
    with LiveServer(tmp_path / "games.db", tmp_path / "server.log", seed=1414, env=env) as live:
        yield live


# ---------------------------------------------------------------------- helpers


def clock_text(page: Any, seat: int) -> str:
    """What the clock of ``seat`` reads."""
    return str(page.inner_text(f"#clock-{seat}"))


def running_seat(page: Any) -> int | None:
    """The seat whose clock the page shows running."""
    found = page.eval_on_selector_all(".clock.running", "nodes => nodes.map(n => Number(n.dataset.seat))")
    assert len(found) <= 1, found
    return int(found[0]) if found else None


def wait_clock_changes(page: Any, seat: int, text: str) -> None:
    """Wait until the clock of ``seat`` no longer reads ``text``."""
    now = f"document.querySelector('#clock-{seat}').textContent"
    page.wait_for_function(f"() => {now} !== {json.dumps(text)}")


def mover_first(players: list[Any]) -> tuple[Any, Any]:
    """The two seats' pages, the one whose decision it is first."""
    for page in players:
        page.wait_for_selector('#status[data-status="playing"]')
    ann, bob = players
    return (ann, bob) if ann.get_attribute("#status", "data-mine") == "1" else (bob, ann)


def seat_of(page: Any) -> int:
    """The seat of a player's page."""
    return int(page.evaluate("() => window.schotten.state.seat"))


def wait_over(page: Any) -> None:
    """Wait for the end-of-game summary."""
    page.wait_for_selector("#result:not([hidden])")


def lobby_row(page: Any, url: str, game_id: str, within: str) -> Any:
    """The lobby's row of a table in the list ``within``, once the lobby shows it."""
    page.goto(f"{url}/")
    row = page.locator(f'{within} li[data-table="{game_id}"]')
    row.wait_for()
    return row


def my_games(url: str, page: Any) -> list[dict[str, Any]]:
    """/api/my-games as the page's browser (its seat cookies) gets it."""
    cookies = "; ".join(f"{c['name']}={c['value']}" for c in page.context.cookies())
    request = urllib.request.Request(f"{url}/api/my-games", headers={"Cookie": cookies})
    with urllib.request.urlopen(request, timeout=10) as answer:
        tables: list[dict[str, Any]] = json.load(answer)["tables"]
        return tables


# ---------------------------------------------------------------------- clocks


def test_both_clocks_tick_in_a_3_2_friend_game_from_the_lobby(pages: Browser, server: LiveServer) -> None:
    """Ann picks 3+2 in the lobby (the form says what it means) and invites Bob: both pages show
    both clocks beside the players at 3:00; the mover's runs on both, the other's stands; after a
    move the other clock runs. The lobby lists the table as 3+2."""
    ann = pages.page()
    ann.goto(f"{server.url}/")
    ann.select_option("#clock", "3+2")
    assert ann.inner_text("#clock-hint") == "3 min each, plus 2 s after each of your turns."
    assert ann.locator("#clock-minutes").is_hidden() and ann.locator("#clock-days").is_hidden()
    game_id = create_table(ann, server.url, "Ann", "base", mode="friend", clock="3+2")
    invite = ann.input_value("#invite-link")
    bob = pages.page()
    bob.goto(invite)
    bob.fill("#join-nickname", "Bob")
    bob.click("#join-button")
    bob.wait_for_url(f"**/game/{game_id}")
    mover, other = mover_first([ann, bob])
    seat = seat_of(mover)
    for page in (mover, other):
        page.wait_for_function(f"() => document.querySelector('#clock-{seat}.running') !== null")
        assert page.locator("#clock-0").is_visible() and page.locator("#clock-1").is_visible()
        assert running_seat(page) == seat
        assert clock_text(page, 1 - seat) == "3:00", "the waiting clock stands"
        assert re.fullmatch(r"[23]:\d\d", clock_text(page, seat))
    for page in (mover, other):
        wait_clock_changes(page, seat, "3:00")
        assert re.fullmatch(r"2:5\d", clock_text(page, seat)), clock_text(page, seat)
    assert mover.locator(f"#panel-bottom #clock-{seat}").count() == 1, "the own clock is by the own name"
    assert other.locator(f"#panel-top #clock-{seat}").count() == 1

    play_a_card(mover)
    for page in (mover, other):
        page.wait_for_function(f"() => document.querySelector('#clock-{1 - seat}.running') !== null")
        wait_clock_changes(page, 1 - seat, "3:00")
    spent = clock_text(mover, seat)
    assert re.fullmatch(r"(2:5\d|3:0[0-2])", spent), f"the increment of 2 s was added: {spent}"
    assert clock_text(other, seat) == spent, "both pages show the server's value"
    row = lobby_row(pages.page(), server.url, game_id, "#playing-tables")
    assert "3+2" in row.inner_text()


def test_a_clock_that_runs_out_ends_the_game(pages: Browser, server: LiveServer) -> None:
    """A 5-second clock: it reads tenths and warns (class, and one short sound for the player whose
    clock it is, sounds being on); at 0 the server ends the game: "X ran out of time" for both."""
    grant, links = open_friend_table(server.url, clock={"initial": 5, "increment": 0})
    players = seated_pages(pages, server.url, links, SOUND_ON)
    mover, other = mover_first(players)
    seat = seat_of(mover)
    mover.wait_for_selector(f"#clock-{seat}.low.running")
    assert re.fullmatch(r"0:0\d\.\d", clock_text(mover, seat))
    assert other.locator(f"#clock-{1 - seat}.low").count() == 1, "under 10 s is low, running or not"
    for page in (mover, other):
        wait_over(page)
    name = "Ann" if seat == 0 else "Bob"
    for page in (mover, other):
        assert page.inner_text("#result-forfeit") == f"{name} ran out of time."
        assert page.locator("#resign").is_hidden()
    assert mover.inner_text("#result-title") == f"{'Bob' if seat == 0 else 'Ann'} wins the match."
    assert other.inner_text("#result-title") == "You win the match!"
    assert clock_text(mover, seat) == "0:00.0" and mover.locator(f"#clock-{seat}.out").count() == 1
    assert mover.evaluate("() => window.schotten.signals.warnings") == 1
    assert other.evaluate("() => window.schotten.signals.warnings") == 0
    row = lobby_row(pages.page(), server.url, grant["id"], "#over-tables")
    assert f"{'Bob' if seat == 0 else 'Ann'} won on time" in row.inner_text()
    assert row.get_attribute("data-ended") == "time"


# ---------------------------------------------------------------------- resign, abort, leave


def test_a_resignation_after_its_confirmation_ends_the_game(pages: Browser, server: LiveServer) -> None:
    """Resign asks first (No keeps the game going); Yes ends it for both, the reason shown."""
    grant, links = open_friend_table(server.url, clock={"initial": 180, "increment": 2})
    ann, bob = seated_pages(pages, server.url, links)
    for page in (ann, bob):
        page.wait_for_selector("#resign:not([hidden])")
    ann.click("#resign")
    ann.wait_for_selector("#confirm-end[open]")
    assert ann.inner_text("#confirm-end-text") == "Resign this game? Bob wins the match."
    ann.click("#confirm-end-no")
    ann.wait_for_selector("#confirm-end", state="hidden")
    assert ann.get_attribute("#status", "data-status") == "playing"
    ann.click("#resign")
    ann.click("#confirm-end-yes")
    for page in (ann, bob):
        wait_over(page)
        assert page.inner_text("#result-forfeit") == "Ann resigned."
        assert page.locator("#resign").is_hidden() and page.locator("#abort").is_hidden()
        assert page.evaluate("() => window.schotten.state.ended") == {"reason": "resigned", "seat": 0}
    assert bob.inner_text("#result-title") == "You win the match!"
    assert ann.inner_text("#result-title") == "Bob wins the match."
    row = lobby_row(pages.page(), server.url, grant["id"], "#over-tables")
    assert "Bob won by resignation" in row.inner_text()


def test_an_abort_before_both_have_moved(pages: Browser, server: LiveServer) -> None:
    """Abort is offered until both players have decided; confirmed, the game ends with no winner."""
    grant, links = open_friend_table(server.url)
    mover, other = mover_first(seated_pages(pages, server.url, links))
    play_a_card(mover)
    other.wait_for_function(MY_DECISION)
    assert other.locator("#abort").is_visible(), "one player has yet to decide"
    name = "Ann" if seat_of(other) == 0 else "Bob"
    other.click("#abort")
    assert other.inner_text("#confirm-end-text") == "Abort this game? It ends with no winner."
    other.click("#confirm-end-yes")
    for page in (mover, other):
        wait_over(page)
        assert page.inner_text("#result-title") == "Game aborted"
        assert page.inner_text("#result-forfeit") == f"{name} aborted the game."
    row = lobby_row(pages.page(), server.url, grant["id"], "#over-tables")
    assert "Aborted" in row.inner_text()


def test_a_player_who_leaves_and_the_win_claimed(pages: Browser, server: LiveServer) -> None:
    """Bob closes his page in a real-time game: Ann reads the seconds until she may claim the win
    counting down, then "Bob left the game." and Claim victory, which ends the game for her."""
    _, links = open_friend_table(server.url, clock={"initial": 180, "increment": 2})
    ann, bob = seated_pages(pages, server.url, links)
    ann.wait_for_selector('#status[data-status="playing"]')
    assert ann.locator("#away").is_hidden()
    bob.close()
    ann.wait_for_selector("#away:not([hidden])")
    assert re.fullmatch(r"Bob is disconnected: you may claim the win in [12] s|Bob left the game\.",
                        ann.inner_text("#away").strip()), ann.inner_text("#away")
    ann.wait_for_selector("#claim-victory")
    assert ann.inner_text("#away p") == "Bob left the game."
    ann.click("#claim-victory")
    wait_over(ann)
    assert ann.inner_text("#result-forfeit") == "Bob left the game."
    assert ann.inner_text("#result-title") == "You win the match!"
    assert ann.locator("#away").is_hidden()


def test_a_turn_based_clock_reads_whole_minutes_left_rounded_up(pages: Browser, server: LiveServer) -> None:
    """A fresh 1-day clock (a second or so already gone) reads 24 hours, not 23; a second short of two
    days reads 2 days; half a minute reads 1 minute; a day and a half reads 36 hours."""
    page = pages.page()
    page.goto(f"{server.url}/")
    page.wait_for_function("document.documentElement.lang !== ''")
    texts = page.evaluate("""async () => {
        const { turnText } = await import("/static/js/clocks.js");
        return [86_399_000, 86_400_000 - 59_000, 2 * 86_400_000 - 1000, 30_000, 36 * 3_600_000].map(turnText);
    }""")
    assert texts == ["24 hours left", "24 hours left", "2 days left", "1 minute left", "36 hours left"]


# ---------------------------------------------------------------------- the lobby


def test_the_lobby_puts_your_turn_first_and_counts_it(pages: Browser, server: LiveServer) -> None:
    """Two tables against the AI (one at 1 day per move) and a friend table waiting for its second
    player (5+5): "Your turn in 2 games", the title "(2) Schotten Totten", those rows first, each with
    its time control; the turn-based clock of the game page reads hours left."""
    page = pages.page()
    page.goto(f"{server.url}/")
    page.select_option("#clock", "1d")
    assert page.inner_text("#clock-hint") == "Each move within 1 day."
    daily = create_table(page, server.url, "Ann", "base", clock="1d")
    page.wait_for_function(MY_DECISION)
    seat = seat_of(page)
    assert re.fullmatch(r"2[34] hours left", clock_text(page, seat)), clock_text(page, seat)
    assert page.locator(f"#clock-{1 - seat}").is_hidden(), "a turn-based game shows the running clock only"
    page.goto(f"{server.url}/")
    page.select_option("#clock", "custom-time")
    assert page.locator("#clock-minutes").is_visible() and page.locator("#clock-days").is_hidden()
    page.fill("#clock-minutes", "0")
    assert page.inner_text("#clock-hint").startswith("Choose 1 second to 180 minutes")
    create_table(page, server.url, "Ann", "base", mode="friend", clock="5+5")
    page.goto(f"{server.url}/")
    assert page.input_value("#clock") == "5+5", "the last choice is remembered"
    untimed = create_table(page, server.url, "Ann", "base", clock="none")
    page.wait_for_function(MY_DECISION)
    page.goto(f"{server.url}/")
    page.wait_for_function("() => document.title === '(2) Schotten Totten'")
    assert page.inner_text("#my-turns") == "Your turn in 2 games"
    rows = page.locator("#my-games li")
    assert rows.count() == 3
    first = {str(rows.nth(i).get_attribute("data-table")) for i in (0, 1)}
    assert first == {daily, untimed}, "the games where it is your move come first"
    assert all(rows.nth(i).get_attribute("data-your-turn") == "1" for i in (0, 1))
    assert rows.nth(2).get_attribute("data-your-turn") is None
    assert "1 day" in page.inner_text(f'#my-games li[data-table="{daily}"]')
    assert "untimed" in page.inner_text(f'#my-games li[data-table="{untimed}"]')
    assert {t["id"] for t in my_games(server.url, page) if t["your_turn"]} == {daily, untimed}
