"""Players in the browser (issue 15): the account bar (sign up, log out, log in, a wrong password),
the account page, and the newcomers' whole way: two new users sign up in two browsers, press Play
now (rated), are paired, play a rated game to its end, and see their new ratings on their profiles,
at the table, in the lobby and the replay (names linked to profiles) and on the leaderboard."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import Browser, LiveServer, play_a_card

from schotten.web.players.rating_rules import MIN_DECISIONS

PASSWORD = "correct horse battery"


@pytest.fixture
def server(sync_api: Any, tmp_path: Path) -> Iterator[LiveServer]:
    """A server of its own."""
    with LiveServer(tmp_path / "games.db", tmp_path / "server.log", seed=1517) as live:
        yield live


def open_dialog(page: Any, which: str) -> None:
    """Open the account bar's sign-up or log-in dialog."""
    page.wait_for_selector("#account-bar[data-ready]")
    page.click(f"#{which}")
    page.wait_for_selector("#account-dialog[open]")


def sign_up(page: Any, url: str, username: str, password: str = PASSWORD) -> None:
    """Sign up from the lobby's account bar; close the recovery codes it shows; wait for the bar to name
    the new account."""
    page.goto(f"{url}/")
    open_dialog(page, "sign-up")
    page.fill("#account-username", username)
    page.fill("#account-password", password)
    page.click("#account-submit")
    page.click("#codes-saved")
    page.wait_for_selector(f'#account-bar[data-user="{username}"]')


def test_the_account_bar_signs_up_logs_out_and_logs_in(pages: Browser, server: LiveServer) -> None:
    """Sign up: the bar names the account (a link to its profile) and the lobby drops the nickname field
    for rated options; a taken name and a wrong password are said in the dialog; log out and in."""
    page = pages.page()
    sign_up(page, server.url, "Newcomer")
    assert page.get_attribute("#account-bar .account-name", "href") == "/player/Newcomer"
    assert page.locator("#nickname").is_hidden() and page.locator("#rated").is_visible()
    page.click("#log-out")
    page.wait_for_selector('#account-bar[data-user=""]')
    assert page.locator("#nickname").is_visible() and page.locator("#rated").is_hidden()
    open_dialog(page, "sign-up")
    page.fill("#account-username", "newc0mer")
    page.fill("#account-password", PASSWORD)
    page.click("#account-submit")
    page.wait_for_selector("#account-error:not(:empty)")
    assert "is taken" in page.inner_text("#account-error")
    page.click("#account-cancel")
    open_dialog(page, "log-in")
    page.fill("#account-username", "Newcomer")
    page.fill("#account-password", "not the password")
    page.click("#account-submit")
    page.wait_for_selector("#account-error:not(:empty)")
    assert page.inner_text("#account-error") == "Wrong username or password."
    page.fill("#account-password", PASSWORD)
    page.click("#account-submit")
    page.wait_for_selector('#account-bar[data-user="Newcomer"]')


def test_the_account_page_changes_the_password_and_deletes_the_account(pages: Browser,
                                                                       server: LiveServer) -> None:
    """Change the password (said done), then delete the account after its confirmation: back in the
    lobby logged out, and the old name's profile is gone."""
    page = pages.page()
    sign_up(page, server.url, "Leaving")
    page.goto(f"{server.url}/account")
    page.wait_for_selector("body[data-ready] #password-box:not([hidden])")
    page.fill("#current-password", PASSWORD)
    page.fill("#new-password", "another long one")
    page.click("#change-password")
    page.wait_for_selector("#password-done:not([hidden])")
    page.once("dialog", lambda dialog: dialog.accept())
    page.fill("#delete-password", "another long one")
    page.click("#delete-account")
    page.wait_for_url(f"{server.url}/")
    page.wait_for_selector('#account-bar[data-user=""]')
    assert page.request.get(f"{server.url}/api/players/Leaving").status == 404


def press_rated_play_now(page: Any) -> None:
    """Choose rated 3+2 in the lobby's Play now box and press Play now."""
    page.wait_for_selector("#play-now[data-ready]")
    page.wait_for_selector("#pn-rated:enabled")
    page.check('input[name="pn-clock"][value="3+2"]')
    page.check("#pn-rated")
    page.click("#pn-play")


def rating_of(page: Any, url: str, username: str) -> dict[str, Any]:
    """The account's base real-time rating as its profile's JSON says."""
    profile: dict[str, Any] = page.request.get(f"{url}/api/players/{username}").json()
    rating: dict[str, Any] = profile["ratings"]["base.realtime"]
    return rating


def test_two_newcomers_meet_play_a_rated_game_and_see_their_ratings_change(pages: Browser,
                                                                           server: LiveServer) -> None:
    """Sign up, Play now rated, paired, the fewest decisions a rated game takes (three cards each) and
    a resignation: the winner's rating rises and the loser's falls, on the profile pages (with a chart
    point), at the table and on the leaderboard."""
    ann, bob = pages.page(), pages.page()
    sign_up(ann, server.url, "Ann_new")
    sign_up(bob, server.url, "Bob_new")
    press_rated_play_now(ann)
    ann.wait_for_selector("#pn-waiting:not([hidden])")
    press_rated_play_now(bob)
    for page in (ann, bob):
        page.wait_for_url("**/game/**")
        page.wait_for_selector("#status[data-version]")
        page.wait_for_selector("#players-line:not([hidden]) .tag.rated")
        assert re.fullmatch(r"(Ann_new|Bob_new) \(1500\?\) \N{EN DASH} (Ann_new|Bob_new) \(1500\?\) Rated",
                            page.inner_text("#players-line")), page.inner_text("#players-line")
    assert ann.url == bob.url
    first = ann if ann.locator("#hand .card.playable").count() else bob
    loser = bob if first is ann else ann
    for _ in range(MIN_DECISIONS):
        play_a_card(first)
        play_a_card(loser)
    loser.wait_for_selector("#resign:not([hidden])")
    loser.click("#resign")
    loser.click("#confirm-end-yes")
    for page in (ann, bob):
        page.wait_for_selector('#status[data-status="over"]')
    winner_name, loser_name = ("Ann_new", "Bob_new") if loser is bob else ("Bob_new", "Ann_new")
    won, lost = rating_of(ann, server.url, winner_name), rating_of(ann, server.url, loser_name)
    assert won["rating"] > 1500 > lost["rating"] and won["games"] == lost["games"] == 1
    winner_page = ann if loser is bob else bob
    winner_page.wait_for_selector(f'#players-line a[href="/player/{winner_name}"]')
    assert f"{winner_name} ({round(won['rating'])}?)" in winner_page.inner_text("#players-line")
    game_id = ann.url.split("/game/")[1]
    ann.goto(f"{server.url}/")
    row = ann.locator(f'#over-tables [data-table="{game_id}"]')
    row.wait_for()
    assert row.locator("a.player-link").count() == 2 and row.locator(".tag.rated").count() == 1
    ann.goto(f"{server.url}/replay/{game_id}")
    ann.wait_for_selector(f'#players-line a[href="/player/{loser_name}"]')
    for page, name in ((ann, "Ann_new"), (bob, "Bob_new")):
        page.goto(f"{server.url}/player/{name}")
        page.wait_for_selector('.rating-pool[data-pool="base.realtime"]')
        shown = page.locator('.rating-pool[data-pool="base.realtime"] .value').inner_text()
        expected = round((won if name == winner_name else lost)["rating"])
        assert shown == f"{expected}?"
        assert page.locator('.rating-pool[data-pool="base.realtime"] svg.rating-chart circle').count() == 1
        page.goto(f"{server.url}/leaderboard?pool=base.realtime")
        page.wait_for_selector("#you:not(:empty)")
        assert f"{expected}?" in page.inner_text("#you")


def test_an_open_challenge_rated_within_a_range_from_the_lobby(pages: Browser, server: LiveServer) -> None:
    """Logged in: a rated 3+2 table for players rated 1400 to 1600 from the New table form; untimed it
    is refused in the page. The lobby lists it with its range and the Rated tag; a guest's Join is told
    to log in, another account sits down."""
    host, guest, joiner = pages.page(), pages.page(), pages.page()
    sign_up(host, server.url, "Host_1")
    host.check('input[name="mode"][value="friend"]')
    host.select_option("#clock", "none")
    host.check("#rated")
    host.click("#create")
    host.wait_for_selector("#message:not([hidden])")
    assert "needs a clock" in host.inner_text("#message")
    host.select_option("#clock", "3+2")
    host.fill("#min-rating", "1400")
    host.fill("#max-rating", "1600")
    host.click("#create")
    host.wait_for_url("**/game/**")
    game_id = host.url.split("/game/")[1]
    guest.goto(f"{server.url}/")
    row = guest.locator(f'#open-tables [data-table="{game_id}"]')
    row.wait_for()
    assert "rated 1400 to 1600" in row.inner_text() and row.locator(".tag.rated").count() == 1
    assert row.locator('a.player-link[href="/player/Host_1"]').inner_text() == "Host_1"
    guest.fill("#nickname", "Gus")
    row.locator("[data-join]").click()
    guest.wait_for_selector("#message:not([hidden])")
    assert "log in" in guest.inner_text("#message")
    sign_up(joiner, server.url, "Joiner_1")
    joiner.locator(f'#open-tables [data-table="{game_id}"] [data-join]').click()
    joiner.wait_for_url(f"**/game/{game_id}")
    joiner.wait_for_selector("#players-line:not([hidden])")
    assert "Joiner_1 (1500?)" in joiner.inner_text("#players-line")
