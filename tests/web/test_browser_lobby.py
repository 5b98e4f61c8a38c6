"""The lobby, the profile and the table in the browser (issue 26): the New table form keeps each box
beside its label (signed in too, on a desktop and a phone), a profile links the opponent's name, the
profile and the leaderboard say what "provisional" means and how far a rating is from ranked (the
server's numbers), and a table waiting for its second player offers no mute for the free seat and
says who waits. Playwright's sync API drives Debian's Chromium."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import Browser, LiveServer, post_json
from helpers_ratings import add_game, finish, sign_up

from schotten.web.core.vocab import Ending
from schotten.web.players import ratings
from schotten.web.storage.store import Store

os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")

PHONE = {"width": 360, "height": 740}
DASH = "\N{EN DASH}"
BESIDE = """() => {
  const box = (node) => node.getBoundingClientRect();
  const shown = (node) => node && node.offsetParent !== null;
  const found = [];
  for (const label of document.querySelectorAll('#create-form label[for]')) {
    const control = document.getElementById(label.htmlFor);
    if (!shown(label) || !shown(control)) continue;
    const [l, c] = [box(label), box(control)];
    found.push({ id: label.htmlFor, gap: c.left - l.right, dy: (c.top + c.bottom - l.top - l.bottom) / 2,
                 height: c.height });
  }
  const check = document.getElementById('rated');
  if (!shown(check)) return { labels: found, rated: null };
  const [k, s] = [box(check), check.closest('label').querySelector('span').getClientRects()[0]];
  const dy = (s.top + s.bottom - k.top - k.bottom) / 2;
  return { labels: found, rated: { width: k.width, gap: s.left - k.right, dy } };
}"""


@pytest.fixture
def server(sync_api: Any, tmp_path: Path) -> Iterator[LiveServer]:
    """A server of its own for each test."""
    with LiveServer(tmp_path / "games.db", tmp_path / "server.log", seed=26) as live:
        yield live


@pytest.fixture
def store(server: LiveServer) -> Iterator[Store]:
    """A store on the live server's database file that rates the games it ends, as the server's does."""
    opened = Store(f"sqlite:///{server.database}")
    opened.on_finished = ratings.rate_finished
    yield opened
    opened.close()


def signed_up(page: Any, url: str, username: str) -> None:
    """Sign up over the API in the page's browser (the session cookie is its own), then open the lobby."""
    page.goto(f"{url}/rules")
    status = page.evaluate("""async (name) => (await fetch('/api/accounts', { method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ username: name, password: 'a long enough password' }) })).status""", username)
    assert status == 201
    page.goto(f"{url}/")
    page.wait_for_selector(f'#account-bar[data-user="{username}"]')


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])
@pytest.mark.parametrize("mode", ["ai", "friend"])
def test_each_box_of_the_new_table_form_is_beside_its_label(pages: Browser, server: LiveServer,
                                                           viewport: dict[str, int] | None,
                                                           mode: str) -> None:
    """Signed in (the rated options shown): each label's box ends just left of its control's, on the
    same line; the Rated checkbox is checkbox-sized, right before its words (their first line)."""
    page = pages.page(viewport) if viewport else pages.page()
    signed_up(page, server.url, "Former")
    page.check(f'input[name="mode"][value="{mode}"]')
    found = page.evaluate(BESIDE)
    ids = [item["id"] for item in found["labels"]]
    assert {"variant", "rounds", "clock", "level", "min-rating", "max-rating"} <= set(ids), ids
    assert "nickname" not in ids, "signed in: no nickname field"
    for item in found["labels"]:
        assert 0 <= item["gap"] <= 24, item
        assert abs(item["dy"]) <= item["height"] / 2, item
    rated = found["rated"]
    assert rated["width"] <= 24 and 0 <= rated["gap"] <= 12 and abs(rated["dy"]) <= 8, rated


def test_a_guest_s_form_keeps_its_boxes_beside_their_labels(pages: Browser, server: LiveServer) -> None:
    page = pages.page(PHONE)
    page.goto(f"{server.url}/")
    page.wait_for_selector("#account-bar[data-ready]")
    found = page.evaluate(BESIDE)
    labels = found["labels"]
    assert found["rated"] is None
    assert "nickname" in [item["id"] for item in labels] and "min-rating" not in [i["id"] for i in labels]
    assert all(0 <= item["gap"] <= 24 and abs(item["dy"]) <= item["height"] / 2 for item in labels), labels


def test_the_profile_links_the_opponent_and_explains_provisional(pages: Browser, server: LiveServer,
                                                                 store: Store) -> None:
    """Ann's games: Bob (an account) links to his profile, a guest is plain text; her provisional
    rating says how many more rated games it takes (the server's number), and the page says what
    provisional means with the server's threshold."""
    ann, bob = sign_up(store, "Ann", "Bob")
    at = datetime.now(UTC) - timedelta(hours=1)
    finish(store, add_game(store, [ann, bob], created=at), 0, Ending.RESIGNED, at=at)
    later = at + timedelta(minutes=1)
    finish(store, add_game(store, [None, ann], rated=False, created=later), 1, Ending.RESIGNED, at=later)
    page = pages.page()
    page.goto(f"{server.url}/player/Ann")
    page.wait_for_selector(".rating-pool")
    api = page.evaluate("async () => (await fetch('/api/players/Ann')).json()")
    rows = page.locator("#recent-games li")
    assert rows.count() == 2
    links = [rows.nth(i).locator("a.player-link") for i in range(2)]
    assert [link.count() for link in links] == [1, 2]
    assert links[1].nth(0).get_attribute("href") == "/player/Ann"
    assert links[1].nth(1).get_attribute("href") == "/player/Bob"
    assert "Ann" in rows.nth(0).inner_text() and links[0].get_attribute("href") == "/player/Ann"
    left = api["ratings"]["base.realtime"]["games_to_ranked"]
    assert left > 1
    ranked = page.inner_text('.rating-pool[data-pool="base.realtime"] .ranked')
    assert ranked == f"Provisional: ranked after about {left} more rated games."
    note = page.inner_text("#ratings-note")
    assert "rating deviation (RD) is 110 or more" in note
    assert f"about {api['ranking']['new_player_games']} rated games for a new player" in note


def test_the_leaderboard_says_what_it_takes_and_how_far_you_are(pages: Browser, server: LiveServer) -> None:
    page = pages.page()
    signed_up(page, server.url, "Newcomer")
    page.goto(f"{server.url}/leaderboard")
    page.wait_for_selector("#ranking-rules:not(:empty)")
    board = page.evaluate("async () => (await fetch('/api/leaderboard')).json()")
    rules = board["ranking"]
    assert page.inner_text("#you") == (f"Your rating 1500? is still provisional: ranked after about "
                                       f"{rules['games_to_ranked']} more rated games.")
    assert page.inner_text("#ranking-rules") == (
        f"Listed: the {rules['size']} best ratings that are no longer provisional, each with a rated game "
        f"in the last {rules['days']:g} days.")
    assert "is 110 or more: about 11 rated games for a new player" in page.inner_text("#provisional-note")


def test_a_table_waiting_for_its_friend_offers_no_mute_and_says_who_waits(pages: Browser,
                                                                          server: LiveServer) -> None:
    """Carol's table before a friend joins: no "Mute (free seat)", the score says she waits; once Bob
    sits down: "Mute Bob" and the score names both."""
    grant = post_json(f"{server.url}/api/tables", {"mode": "friend", "nickname": "Carol", "seat": 0,
                                                    "variant": "base", "rounds": 1})
    page = pages.page()
    page.goto(f"{server.url}{grant['url']}")
    page.wait_for_selector("#status[data-version]")
    assert page.locator("#chat-mute").is_hidden()
    assert page.inner_text("#score .points") == f"Score: Carol 0 {DASH} 0, waiting for an opponent"
    post_json(f"{server.url}/api/tables/{grant['id']}/join", {"nickname": "Bob"})
    page.wait_for_function("() => !document.querySelector('#chat-mute').hidden")
    assert page.inner_text("#chat-mute") == "Mute Bob"
    assert page.inner_text("#score .points") == f"Score: Carol 0 {DASH} 0 Bob"
