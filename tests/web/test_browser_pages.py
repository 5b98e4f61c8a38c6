"""Browser tests of the lobby and the replay page (issue 11, item 5): plural forms in pt and ca,
the AI level shown as "Master" (not the name of the Expert variant), the Expert variant without
tactic cards, Resume on one's own tables and Watch on the others', the My games list, and the
replay page of a game that has no replay yet. Playwright's sync API drives Debian's Chromium
against a live server (``browser_helpers.LiveServer``)."""

from __future__ import annotations

import json
import os
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import (
    Browser,
    LiveServer,
    create_table,
    finished_friend_game,
    open_friend_table,
    play_friend_game,
    post_json,
)

os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")

LOCALES = {"en": "en-GB", "pt": "pt-BR", "ca": "ca-ES"}
PLAYING = "This game is still being played: its replay opens when it is over."
PT_PLAYING = "Esta partida ainda está sendo jogada: o replay abre quando ela terminar."
# What tn("{n} round", "{n} rounds", n) shows for 0, 1, 2, 5 and a million (CLDR: pt puts 0
# with 1; pt and ca have a form of their own for millions).
ROUNDS = {
    "en": ["0 rounds", "1 round", "2 rounds", "5 rounds", "1000000 rounds"],
    "pt": ["0 rodada", "1 rodada", "2 rodadas", "5 rodadas", "1000000 de rodadas"],
    "ca": ["0 rondes", "1 ronda", "2 rondes", "5 rondes", "1000000 de rondes"],
}
THREE_ROUNDS = {"pt": "3 rodadas", "ca": "3 rondes"}
TN_ROUNDS = """async () => {
  const { tn } = await import('/static/js/i18n.js');
  return [0, 1, 2, 5, 1000000].map((n) => tn('{n} round', '{n} rounds', n));
}"""


# ---------------------------------------------------------------------- fixtures


@pytest.fixture
def server(sync_api: Any, tmp_path: Path) -> Iterator[LiveServer]:
    """A server of its own for each test, with fixed game seeds."""
    with LiveServer(tmp_path / "games.db", tmp_path / "server.log", seed=5151) as live:
        yield live


def open_page(pages: Browser, lang: str = "en", width: int = 1280) -> Any:
    """A page of a new browser (its own cookies: its own seats) whose preferred language is
    ``lang``, ``width`` pixels wide."""
    return pages.page(viewport={"width": width, "height": 900}, locale=LOCALES[lang])


# ---------------------------------------------------------------------- helpers


def ai_table(url: str, nickname: str, rounds: int = 1, level: str = "easy", variant: str = "tactics") -> str:
    """A table against the AI opened over the API (no browser holds its seat); its id."""
    body = {"mode": "ai", "level": level, "variant": variant, "rounds": rounds, "nickname": nickname,
            "seat": 0}
    return str(post_json(f"{url}/api/tables", body)["id"])


def table_of(url: str, game_id: str) -> dict[str, Any]:
    """The table as the API describes it."""
    with urllib.request.urlopen(f"{url}/api/games/{game_id}", timeout=10) as answer:
        data: dict[str, Any] = json.load(answer)
        return data


def lobby(page: Any, url: str, lang: str = "en") -> None:
    """Open the lobby and wait until its lists are filled in the page's language."""
    page.goto(f"{url}/")
    page.wait_for_function(f"() => document.documentElement?.lang === '{lang}'")
    page.wait_for_selector("#playing-tables li")


def row(page: Any, game_id: str, within: str = "main") -> Any:
    """The lobby's row of a table (in the list ``within``)."""
    return page.locator(f'{within} li[data-table="{game_id}"]')


# ---------------------------------------------------------------------- plurals


@pytest.mark.parametrize("lang", ["pt", "ca"])
def test_plurals_in_the_lobby(pages: Browser, server: LiveServer, lang: str) -> None:
    """A table of 1 round reads "1 rodada" / "1 ronda", one of 3 "3 rodadas" / "3 rondes"; the
    page's tn picks each form by the language's plural category (Intl.PluralRules)."""
    one, three = ai_table(server.url, "Ann", rounds=1), ai_table(server.url, "Bob", rounds=3)
    page = open_page(pages, lang)
    lobby(page, server.url, lang)
    assert f" · {ROUNDS[lang][1]} · " in row(page, one).inner_text()
    assert f" · {THREE_ROUNDS[lang]} · " in row(page, three).inner_text()
    assert page.evaluate(TN_ROUNDS) == ROUNDS[lang]


def test_plurals_in_english_need_no_catalogue(pages: Browser, server: LiveServer) -> None:
    page = open_page(pages, "en")
    ai_table(server.url, "Ann", rounds=1)
    lobby(page, server.url)
    assert page.evaluate(TN_ROUNDS) == ROUNDS["en"]
    assert " · 1 round · " in page.inner_text("#playing-tables")


def test_plurals_on_the_replay_page(pages: Browser, server: LiveServer) -> None:
    """The replay's first step counts its moves with the plural form ("lances", "jugades")."""
    game_id, _ = finished_friend_game(server.url, seed=3)
    for lang, words in (("pt", "lances no total"), ("ca", "jugades en total")):
        page = open_page(pages, lang)
        page.goto(f"{server.url}/replay/{game_id}")
        page.wait_for_selector("#step[data-index='0']")
        total = int(page.get_attribute("#slider", "max") or 0)
        assert page.inner_text("#step").endswith(f"({total} {words})")


def test_the_replay_page_says_how_a_game_ended_off_the_board(pages: Browser, server: LiveServer) -> None:
    """A game Bob resigned after a few moves: the replay's last step says "Bob resigned." before who
    won, in English and in Portuguese; the first step says nothing of it."""
    from websockets.sync.client import connect

    grant, _ = open_friend_table(server.url)
    play_friend_game(server.url, grant, 5, lambda state: len(state["log"]) >= 4)
    where = server.url.replace("http://", "ws://") + f"/ws/games/{grant['id']}?token={grant['tokens'][1]}"
    with connect(where) as ws:
        ws.send(json.dumps({"type": "resign"}))
        while json.loads(ws.recv(timeout=10)).get("status") != "over":
            pass
    for lang, said in (("en", "Bob resigned. Ann wins the match."), ("pt", "Bob desistiu.")):
        page = open_page(pages, lang)
        page.goto(f"{server.url}/replay/{grant['id']}")
        page.wait_for_selector("#step[data-index='0']")
        assert page.inner_text("#outcome") == ""
        page.click("#last")
        assert page.inner_text("#outcome").startswith(said), page.inner_text("#outcome")


# ---------------------------------------------------------------------- AI level and variants


def test_the_expert_ai_level_is_shown_as_master(pages: Browser, server: LiveServer) -> None:
    """"Expert" names a variant only: the level (API value ``expert``) reads "Master" in the form,
    the table's description and the AI's name, in the lobby and on the replay page."""
    game_id = ai_table(server.url, "Ann", level="expert", variant="base")
    page = open_page(pages, "en")
    lobby(page, server.url)
    assert page.inner_text('#level option[value="expert"]') == "Master"
    text = row(page, game_id).inner_text()
    assert "against the computer (Master)" in text and "AI (master)" in text and "xpert" not in text
    assert table_of(server.url, game_id)["level"] == "expert", "the API keeps its value"

    reader = open_page(pages, "pt")
    lobby(reader, server.url, "pt")
    assert reader.inner_text('#level option[value="expert"]') == "Mestre"
    assert reader.inner_text('#variant option[value="expert"]') == "Especialista"
    assert "IA (mestre)" in row(reader, game_id).inner_text()

    # The replay of a finished game whose second player is the AI at that level (the finished
    # friend game's answer with Bob renamed as the server names the AI).
    finished, _ = finished_friend_game(server.url, seed=4)

    def as_ai(route: Any) -> None:
        answer = route.fetch()
        body = answer.json()
        body["table"]["players"][1] = "AI (expert)"
        route.fulfill(response=answer, json=body)

    page.route(f"**/api/games/{finished}/replay", as_ai)
    page.goto(f"{server.url}/replay/{finished}")
    page.wait_for_selector("#step[data-index='0']")
    assert page.inner_text("#panel-top .pname") == "AI (master)"


def test_expert_without_tactic_cards_can_be_chosen(pages: Browser, server: LiveServer) -> None:
    """The lobby offers the expert variant without tactic cards (``expert-base``) and opens such
    a table; the lobby lists it under that name."""
    page = open_page(pages, "en")
    page.goto(f"{server.url}/")
    assert page.inner_text('#variant option[value="expert-base"]') == "Expert, without tactic cards"
    game_id = create_table(page, server.url, "Ann", "expert-base")
    assert table_of(server.url, game_id)["variant"] == "expert-base"
    lobby(page, server.url)
    assert row(page, game_id, "#my-games").inner_text().startswith("Expert, without tactic cards · 1 round")
    reader = open_page(pages, "ca")
    reader.goto(f"{server.url}/")
    reader.wait_for_function("() => document.documentElement?.lang === 'ca'")
    assert reader.inner_text('#variant option[value="expert-base"]') == "Expert, sense cartes tàctiques"


# ---------------------------------------------------------------------- one's own games


def test_resume_on_ones_own_tables_and_watch_on_the_others(pages: Browser, server: LiveServer) -> None:
    """In the lobby Ann's game in progress and her table waiting for a friend say Resume (to her
    seat's page); Bob's game says Watch. Bob sees Ann's open table with Join, his own with Resume."""
    ann, bob = open_page(pages), open_page(pages)
    ann_game = create_table(ann, server.url, "Ann", "tactics")
    ann_open = create_table(ann, server.url, "Ann", "base", mode="friend")
    bob_game = create_table(bob, server.url, "Ann", "base")
    lobby(ann, server.url)
    resume = row(ann, ann_game, "#playing-tables").locator("a")
    assert resume.inner_text() == "Resume" and resume.get_attribute("href") == f"/game/{ann_game}"
    assert row(ann, ann_open, "#open-tables").locator("a, button").inner_text() == "Resume"
    assert row(ann, bob_game, "#playing-tables").locator("a").inner_text() == "Watch"
    lobby(bob, server.url)
    assert row(bob, bob_game, "#playing-tables").locator("a").inner_text() == "Resume"
    assert row(bob, ann_game, "#playing-tables").locator("a").inner_text() == "Watch"
    assert row(bob, ann_open, "#open-tables").locator("button").inner_text() == "Join"
    ann.click(f'#playing-tables li[data-table="{ann_game}"] a')
    ann.wait_for_url(f"**/game/{ann_game}")
    ann.wait_for_selector("#status[data-version]")
    assert ann.evaluate("() => window.schotten.state.seat") in (0, 1), "Ann is back at her seat"


def test_the_my_games_list(pages: Browser, server: LiveServer) -> None:
    """A new browser has no My games section; once it holds seats, the list shows its game in
    progress and its open table with Resume, its finished game with its replay; not the others'
    games, nor a rematch table closed before its game began (nothing to resume or replay)."""
    page = open_page(pages)
    others = ai_table(server.url, "Cleo")
    lobby(page, server.url)
    assert page.locator("#my-games-box").is_hidden()
    playing = create_table(page, server.url, "Ann", "tactics")
    waiting = create_table(page, server.url, "Ann", "base", mode="friend")
    finished, links = finished_friend_game(server.url, seed=5)
    token = links[1].split("token=")[1]
    offer = post_json(f"{server.url}/api/games/{finished}/rematch", {"token": token})
    for link in (links[1], offer["url"]):  # Bob's seat links: this browser now holds his seats
        page.goto(f"{server.url}{link}")
        page.wait_for_selector("#status[data-version]")
    lobby(page, server.url)
    assert row(page, offer["id"], "#my-games").locator("a").inner_text() == "Resume"
    post_json(f"{server.url}/api/games/{finished}/rematch/withdraw", {"token": token})
    lobby(page, server.url)
    page.wait_for_selector("#my-games-box:not([hidden])")
    listed = page.eval_on_selector_all("#my-games li", "ns => ns.map(n => n.dataset.table)")
    assert sorted(listed) == sorted([playing, waiting, finished]) and others not in listed
    for game_id in (playing, waiting):
        link = row(page, game_id, "#my-games").locator("a")
        assert link.inner_text() == "Resume" and link.get_attribute("href") == f"/game/{game_id}"
    replay = row(page, finished, "#my-games").locator("a")
    assert replay.inner_text() == "Replay" and replay.get_attribute("href") == f"/replay/{finished}"
    page.click(f'#my-games li[data-table="{waiting}"] a')
    page.wait_for_url(f"**/game/{waiting}")
    page.wait_for_selector('#status[data-status="open"]')


@pytest.mark.parametrize("lang", ["en", "pt", "ca"])
def test_the_lobby_fits_a_phone(pages: Browser, server: LiveServer, lang: str) -> None:
    """On a 320-pixel screen the lobby (its form, My games) needs no sideways scrolling."""
    page = open_page(pages, lang, width=320)
    create_table(page, server.url, "Ann", "expert-base")
    lobby(page, server.url, lang)
    page.wait_for_selector("#my-games li")
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 320, f"the lobby is {width}px wide"


# ---------------------------------------------------------------------- the replay page


def assert_no_replay_parts(page: Any) -> None:
    """No replay control, no record download and no empty board or hand is shown."""
    assert page.locator("#slider, #download, #play").count() == 0
    for part in ("#board", "#panel-top", "#panel-bottom"):
        assert page.locator(part).is_hidden(), f"{part} is not drawn empty"
    assert page.locator("#message").is_hidden()


def test_the_replay_page_of_a_game_in_progress(pages: Browser, server: LiveServer) -> None:
    """The replay of a game being played is refused (409, R10.4): the page says so where the
    replay would be, in the reader's language, with a link to watch it live, and offers nothing
    empty or dead (neither while the answer is awaited)."""
    game_id = ai_table(server.url, "Ann")
    page = open_page(pages, "en")
    held: list[Any] = []
    page.route(f"**/api/games/{game_id}/replay", lambda route: held.append(route))
    page.goto(f"{server.url}/replay/{game_id}")
    page.wait_for_function("() => document.querySelector('#step').textContent !== ''")
    assert page.inner_text("#step") == "Loading the replay…"
    for part in ("#download", "#play", "#slider", "#board", "#panel-top"):
        assert page.locator(part).is_hidden(), f"{part} is shown before the replay arrives"
    while not held:  # the replay request is on its way: wait until it is held
        page.wait_for_timeout(50)
    held[0].continue_()
    page.wait_for_selector("#replay-playing")
    assert page.inner_text("#replay-playing") == PLAYING
    assert_no_replay_parts(page)
    page.click("#watch-live")
    page.wait_for_url(f"**/game/{game_id}")
    page.wait_for_selector('#status[data-status="playing"]')

    reader = open_page(pages, "pt")
    reader.goto(f"{server.url}/replay/{game_id}")
    reader.wait_for_selector("#replay-playing")
    assert reader.inner_text("#replay-playing") == PT_PLAYING
    assert reader.inner_text("#watch-live") == "Assistir ao vivo"


def test_the_replay_page_of_an_unknown_game(pages: Browser, server: LiveServer) -> None:
    """An unknown game's replay page is the server's 404 page; a game that vanishes between the
    page and its replay request gets a sentence and a way back to the lobby."""
    page = open_page(pages, "en")
    answer = page.goto(f"{server.url}/replay/0123456789abcdef")
    assert answer.status == 404 and page.inner_text("h1") == "No such game"
    finished, _ = finished_friend_game(server.url, seed=6)
    page.route(f"**/api/games/{finished}/replay",
               lambda route: route.fulfill(status=404, json={"error": f"no game {finished}"}))
    page.goto(f"{server.url}/replay/{finished}")
    page.wait_for_selector("#replay-missing")
    assert page.inner_text("#replay-missing") == "This game does not exist."
    assert_no_replay_parts(page)
    assert page.get_attribute("#back-to-lobby", "href") == "/"
