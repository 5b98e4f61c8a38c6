"""Browser tests of the web page (issues 4 and 11): Playwright's sync API driving Debian's Chromium.

A real server runs in a subprocess (see ``browser_helpers.LiveServer``); the tests click
through the lobby, play whole matches against the AI (base, and tactics over 3 rounds) by
picking among the moves the page lights up, start a friend game from two browser contexts with
the invite link, meet again at one table when one player asks for a rematch and the other
accepts it (or the asker withdraws it, or the other declines it; the closed table's replay page
says no game was played there, and a table waiting for its second player's that its game has
not begun), confirm and take back card plays whose draw is automatic (base game), switch the
language and use a phone-sized screen. Following the game (issue 11): the move log, the other
player's last turn marked on the board, the board a round ended with kept until Continue, an
undo announced, "your turn" signalled, the claim buttons with their proofs and why? links to
the rules page, and the bugs a new user found. Screenshots go to $SCHOTTEN_SCREENSHOTS
(default: a pytest temporary folder). The catalogue and rules-page tests need no browser.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import (
    DESKTOP,
    STATIC,
    Browser,
    LiveServer,
    create_table,
    finished_friend_game,
    open_friend_table,
    page_msgids,
    placeholders,
    play_friend_game,
    post_json,
    read_catalogue,
)

from schotten.engine import GameState, Phase, Settings
from schotten.engine.actions import DONE_ID
from schotten.engine.cards import MODE_BLUFF, MODE_MUD, parse_card
from schotten.engine.explain import board_formations, claim_proof

os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")

MY_DECISION_OR_OVER = """() => {
  const s = document.querySelector('#status');
  return s && s.dataset.version !== undefined && !document.body.classList.contains('pending')
    && (s.dataset.mine === '1' || s.dataset.status === 'over');
}"""
VISIBLE_ACTIONS = """nodes => nodes.filter(n => n.offsetParent !== null && n.id !== 'undo')
  .map(n => n.dataset.action)"""
CARDS = "nodes => nodes.map(n => n.dataset.card)"
# Whether the page must ask to confirm a card play now: the preference is on and the server
# says the draw that follows a play now is automatic (R3.4: it could not be taken back).
CONFIRM_EXPECTED = """() => {
  const state = window.schotten.state;
  return document.querySelector('#confirm-plays').checked && state.view.phase === 'PLAY' && state.auto_draw;
}"""
PHONE = {"width": 375, "height": 740}
TACTICS_TURNS = 14
RUSE_PHASES = {
    "STRATEGIST_TAKE", "STRATEGIST_PLACE", "BANSHEE", "TRAITOR_TAKE", "TRAITOR_PLACE", "RECRUIT_DRAW",
    "RECRUIT_RETURN",
}


# ---------------------------------------------------------------------- catalogues (no browser)


@pytest.mark.parametrize("lang", ["en", "pt", "ca"])
def test_every_page_string_is_in_the_catalogue(lang: str) -> None:
    keys = page_msgids()
    assert len(keys) > 150, "the page's strings were not found"
    catalogue = read_catalogue(lang)
    missing = sorted(keys - catalogue.keys())
    assert not missing, f"{lang} catalogue lacks: {missing}"
    if lang == "en":
        return
    untranslated = sorted(k for k in keys if not catalogue[k])
    assert not untranslated, f"{lang} catalogue leaves untranslated: {untranslated}"
    for key in keys:
        assert placeholders(catalogue[key]) == placeholders(key), f"{lang}: placeholders differ in {key!r}"


def test_translations_differ_from_english() -> None:
    pt, ca = read_catalogue("pt"), read_catalogue("ca")
    for key in ("New table", "Your turn", "Claim", "Play again", "Joker"):
        assert pt[key] != key and ca[key] != key and pt[key] != ca[key]


# ---------------------------------------------------------------------- fixtures


@pytest.fixture
def server(sync_api: Any, tmp_path: Path) -> Iterator[LiveServer]:
    """A server of its own for each test, whose games get the seeds 4242, 4243, ..."""
    with LiveServer(tmp_path / "games.db", tmp_path / "server.log", seed=4242) as live:
        yield live


@pytest.fixture
def cli_server(sync_api: Any, tmp_path: Path) -> Iterator[LiveServer]:
    """The server as ``python -m schotten serve`` starts it."""
    with LiveServer(tmp_path / "games.db", tmp_path / "server.log") as live:
        yield live


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("SCHOTTEN_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


# ---------------------------------------------------------------------- helpers


def visible_actions(page: Any) -> list[str]:
    """The data-action of every visible clickable move (buttons, lit stones, pickable cards)."""
    return [str(a) for a in page.eval_on_selector_all("[data-action]", VISIBLE_ACTIONS)]


def legal(page: Any) -> list[str]:
    """The legal actions of the last state message (what the page was told)."""
    return [str(a) for a in page.evaluate("() => window.schotten.state.view.legal")]


def check_targets(page: Any, card: str) -> list[str]:
    """After selecting ``card``: the lit stones are exactly its legal plays; return their actions."""
    lit = [str(a) for a in page.eval_on_selector_all(".col.target", "ns => ns.map(n => n.dataset.action)")]
    expected = sorted(a for a in legal(page) if a.startswith(f"{card}@"))
    assert sorted(lit) == expected, f"lit stones {lit} but legal plays {expected}"
    return lit


def fit(page: Any, card: str, action: str) -> int:
    """How well ``card`` joins the seat's cards on the stone of ``action`` (more cards, same colour)."""
    where = f'.col[data-action="{action}"] .side.bottom > .card'
    mine = [str(c) for c in page.eval_on_selector_all(where, CARDS)]
    return 2 * len(mine) + 3 * sum(1 for c in mine if c[1:] == card[1:])


def provisional_on_board(page: Any, action: str) -> int:
    """How many cards the board shows as the provisional play ``action`` ("7b@3")."""
    card, stone = action.split("@")
    return int(page.locator(f'.col[data-stone="{stone}"] .card.provisional[data-card="{card}"]').count())


def settle_play(page: Any, action: str, confirm: bool, version: str | None) -> None:
    """After a stone was chosen for a card: when the page must ask (``confirm``), check that
    nothing was sent and the card waits on its stone, then confirm (button, or Enter)."""
    if not confirm:
        assert page.locator("#confirm-bar").count() == 0, "a play with no automatic draw is sent at once"
        return
    page.wait_for_selector("#confirm-bar")
    assert page.get_attribute("#status", "data-version") == version, "nothing is sent before the confirmation"
    assert provisional_on_board(page, action) == 1, "the card waits on its stone, marked"
    assert action.split("@")[0] not in hand_of(page), "the card left the hand"
    if int(action[-1]) % 2:
        page.click('#prompt [data-action="confirm"]')
    else:
        page.evaluate("() => document.activeElement && document.activeElement.blur()")
        page.keyboard.press("Enter")


def pick_card(page: Any, rng: random.Random, drag: bool = False, tactics: bool = False) -> str:
    """Pick a lit card of the hand (a tactic card first if ``tactics``), then one of its lit
    stones (by click, or drag and drop); confirm the play when the page asks."""
    cards = [str(c) for c in page.eval_on_selector_all("#hand .card.playable", CARDS)]
    assert cards, "no move offered although it is this seat's decision"
    confirm = bool(page.evaluate(CONFIRM_EXPECTED))
    version = page.get_attribute("#status", "data-version")
    tactic_cards = [c for c in cards if c.isupper()]
    high = max((c for c in cards if c[0].isdigit()), default=None, key=lambda c: (c[0], rng.random()))
    card = rng.choice(tactic_cards) if tactics and tactic_cards else high or rng.choice(cards)
    # .first: a seat may hold both Jokers (R7.3)
    source = page.locator(f'#hand .card.playable[data-card="{card}"]').first
    if drag and "@" in "".join(a for a in legal(page) if a.startswith(f"{card}@")):
        source.click()
        action = rng.choice(check_targets(page, card))
        source.drag_to(page.locator(f'.col[data-action="{action}"]'))
        settle_play(page, action, confirm, version)
        return action
    source.click()
    lit = check_targets(page, card)
    if lit:
        action = max(lit, key=lambda a: (fit(page, card, a), rng.random()))
        page.click(f'.col[data-action="{action}"]')
        settle_play(page, action, confirm, version)
        return action
    action = card  # a ruse: the prompt offers a button to play it (its questions follow)
    page.click(f'#prompt [data-action="{action}"]')
    return action


def decide(page: Any, rng: random.Random, drag: bool = False, tactics: bool = False) -> str:
    """Make one decision by clicking what the page lights up; wait until the server answers.

    Claims come first; with ``tactics`` tactic cards and the tactic deck are preferred.
    """
    version = page.get_attribute("#status", "data-version")
    assert page.inner_text("#prompt").strip(), "the page says what to do"
    shown = visible_actions(page)
    allowed = set(legal(page))
    assert set(shown) <= allowed, f"the page offers moves that are not legal: {set(shown) - allowed}"
    playable = set(page.eval_on_selector_all("#hand .card.playable", CARDS))
    hidden = {a for a in allowed - set(shown) if a.split("@")[0] not in playable}
    assert not hidden, f"legal moves the page does not offer: {hidden}"
    claims = sorted({a for a in shown if a.startswith("claim")})
    if claims:
        assert page.locator("#prompt .claims li").count() == len(claims), "each claim's proof is listed"
        for claim in claims:
            item = page.locator(f'#prompt .claim-item:has([data-action="{claim}"])')
            assert item.locator(".proof").inner_text().strip(), "each claim button comes with its proof"
            assert item.locator(".why").count() >= 1, "and a why? link to its rule"
        action = claims[0]
        page.click(f'#prompt [data-action="{action}"]')
    elif shown:
        action = "draw tactic" if tactics and "draw tactic" in shown else rng.choice(sorted(shown))
        page.click(f'[data-action="{action}"]')
    else:
        action = pick_card(page, rng, drag, tactics)
    page.wait_for_function(f"() => document.querySelector('#status').dataset.version !== '{version}'")
    return action


def continue_after_round(page: Any) -> bool:
    """When the page shows the board a round ended with, check it and press Continue."""
    if not page.locator("#continue").count():
        return False
    ended = page.evaluate("() => window.schotten.roundEnd")
    assert ended is not None and page.locator("#board.round-end").count() == 1
    outcome = page.inner_text("#prompt .round-outcome")
    assert outcome.startswith(f"Round {ended['round'] + 1}: "), outcome
    assert not page.locator("#hand .card.playable, .col.target").count(), "nothing is played on an old board"
    page.click("#continue")
    page.wait_for_selector("#board.round-end", state="detached")
    return True


def play(page: Any, rng: random.Random, decisions: int, drag_every: int = 0) -> int:
    """Make up to ``decisions`` decisions (pressing Continue after each round); return how many
    were made (fewer if the game ended)."""
    for made in range(decisions):
        page.wait_for_function(MY_DECISION_OR_OVER)
        if page.get_attribute("#status", "data-status") == "over":
            return made
        continue_after_round(page)
        decide(page, rng, drag=bool(drag_every) and made % drag_every == 1)
    return decisions


COLOUR_NAMES = dict(zip("gbrypk", ("green", "blue", "red", "yellow", "purple", "pink"), strict=True))
TACTIC_NAMES = {"JO": "Joker", "SP": "Spy", "SH": "Shield-bearer", "BB": "Blind-man's Bluff",
                "MF": "Mud Fight", "ST": "Strategist", "BA": "Banshee", "TR": "Traitor", "RE": "Recruiter"}


def card_name(card: str) -> str:
    """A card's English name as the page writes it ("blue 7", "Joker")."""
    return TACTIC_NAMES.get(card) or f"{COLOUR_NAMES[card[1]]} {card[0]}"


def hand_of(page: Any) -> list[str]:
    """The cards of the seat's hand, in the order shown."""
    return [str(c) for c in page.eval_on_selector_all("#hand .card", CARDS)]


def no_sideways_scroll(page: Any) -> None:
    """The page fits the width of the screen."""
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"] + 1, f"the page is {width}px wide"


def check_replay(page: Any, shots: Path, name: str) -> None:
    """Open the replay from the end-of-game summary, step through it and download the record."""
    page.click("#replay-link")
    page.wait_for_url("**/replay/**")
    page.wait_for_selector("#step[data-index='0']")
    total = int(page.get_attribute("#slider", "max") or 0)
    assert total > 5
    page.click("#next")
    page.wait_for_selector("#step[data-index='1']")
    page.click("#last")
    page.wait_for_selector(f"#step[data-index='{total}']")
    assert page.locator("#outcome").inner_text().strip()
    hand_cards = page.locator("#panel-top [data-hand] .card").count()
    assert hand_cards > 0, "a replay shows every hand"
    page.screenshot(path=str(shots / f"{name}-replay.png"), full_page=True)
    with page.expect_download() as info:
        page.click("#download")
    record = json.loads(Path(info.value.path()).read_text(encoding="utf-8"))
    assert record["format"] == "schotten-record" and len(record["actions"]) == total


# ---------------------------------------------------------------------- the lobby


def test_the_lobby_form_works_before_its_translations_arrive(pages: Browser, server: LiveServer) -> None:
    """The create form is wired as soon as the lobby's script runs, not after the language
    catalogue has loaded: with that request held, a table created at once is created (no plain
    form submission reloading the lobby), under the nickname typed rather than a saved one."""
    page = pages.page()
    page.add_init_script("localStorage.setItem('schotten.nickname', 'Saved')")
    held: list[Any] = []
    page.route("**/api/i18n**", lambda route: held.append(route))
    page.goto(f"{server.url}/")
    page.fill("#nickname", "Quick")
    page.click("#create")
    page.wait_for_url("**/game/**", timeout=10_000)
    assert held, "the catalogue request was answered before the click"
    with urllib.request.urlopen(f"{server.url}/api/games/{game_of(page)}", timeout=10) as answer:
        assert "Quick" in json.load(answer)["players"]


# ---------------------------------------------------------------------- games against the AI


def play_against_ai(pages: Browser, server: LiveServer, shots: Path, variant: str, seed: int,
                    rounds: int = 1, confirm: bool = True) -> Any:
    """Play a whole match against the easy AI by clicking; return the page at its end.

    Without ``confirm`` the preference "Confirm card plays" is turned off first (it is kept
    in the browser: it is still off after a reload).
    """
    page = pages.page()
    create_table(page, server.url, "Ann", variant, rounds=rounds)
    assert page.is_checked("#confirm-plays"), "plays are confirmed by default"
    if not confirm:
        page.uncheck("#confirm-plays")
        page.reload()
        page.wait_for_selector("#status[data-version]")
        assert not page.is_checked("#confirm-plays")
    page.screenshot(path=str(shots / f"{variant}-start.png"), full_page=True)
    rng = random.Random(seed)
    made = play(page, rng, 12, drag_every=5)
    page.screenshot(path=str(shots / f"{variant}-middle.png"), full_page=True)
    made += play(page, rng, 500)
    assert made < 512, "the game did not end"
    page.wait_for_selector("#result:not([hidden])")
    summary = page.locator("#result").inner_text()
    assert "wins the match" in summary or "win the match" in summary or "drawn" in summary
    assert page.locator("#result-rounds li").count() == rounds
    assert page.locator('#status[data-status="over"]').count() == 1
    assert page.locator("#panel-top .hand.revealed .card").count() > 0, "the end reveals the hands"
    claimed = page.locator(".stone.claimed").count()
    assert claimed >= 3 and page.locator(".formation").count() >= claimed, "resolved stones show their troops"
    page.screenshot(path=str(shots / f"{variant}-end.png"), full_page=True)
    return page


def test_a_whole_base_game_against_the_ai(pages: Browser, server: LiveServer, shots: Path) -> None:
    page = play_against_ai(pages, server, shots, "base", seed=1, rounds=3)
    game_url = page.url
    check_replay(page, shots, "base")
    page.goto(game_url)
    page.wait_for_selector("#result:not([hidden])")
    page.click("#play-again")
    page.wait_for_url(lambda url: "/game/" in url and url != game_url)
    page.wait_for_selector("#status[data-version]")
    assert page.locator("#result").is_hidden()


def test_a_whole_tactics_match_of_three_rounds_against_the_ai(
        pages: Browser, server: LiveServer, shots: Path) -> None:
    """A tactics match of 3 rounds against the AI, played by clicking to its end: each round's
    end board is shown until Continue is pressed."""
    page = play_against_ai(pages, server, shots, "tactics", seed=2, rounds=3, confirm=False)
    assert page.locator("[data-deck='tactic']").count() == 1
    check_replay(page, shots, "tactics")


# ---------------------------------------------------------------------- a friend game


def start_friend_game(pages: Browser, server: LiveServer, variant: str) -> tuple[str, str, Any, Any]:
    """Ann creates a friend table, Bob joins it with the invite link: (game id, invite, mover, other)."""
    ann = pages.page()
    game_id = create_table(ann, server.url, "Ann", variant, mode="friend")
    ann.wait_for_selector("#invite:not([hidden])")
    invite = ann.input_value("#invite-link")
    assert invite.endswith(f"/game/{game_id}?join=1")
    assert ann.get_attribute("#status", "data-status") == "open"

    bob = pages.page()
    bob.goto(invite)
    bob.wait_for_selector("#join:not([hidden])")
    bob.fill("#join-nickname", "Bob")
    bob.click("#join-button")
    bob.wait_for_url(f"**/game/{game_id}")
    for page in (ann, bob):
        page.wait_for_selector('#status[data-status="playing"]')
    assert ann.locator("#invite").is_hidden()
    mover, other = (ann, bob) if ann.get_attribute("#status", "data-mine") == "1" else (bob, ann)
    return game_id, invite, mover, other


def test_a_friend_game_from_two_browsers(pages: Browser, server: LiveServer, shots: Path) -> None:
    game_id, invite, mover, other = start_friend_game(pages, server, "tactics")
    hand_before = sorted(hand_of(mover))
    played = pick_card(mover, random.Random(3), drag=True)
    mover.wait_for_selector("#undo:not([hidden])")
    card, stone = played.split("@")
    seen = f'.col[data-stone="{stone}"] .side.top .card[data-card="{card}"]'
    other.wait_for_selector(seen)
    mover.click("#undo")
    mover.wait_for_selector("#undo", state="hidden")
    mover.wait_for_function(MY_DECISION_OR_OVER)
    assert sorted(hand_of(mover)) == hand_before
    other.wait_for_selector(seen, state="detached")
    name = mover.evaluate("() => window.schotten.state.players[window.schotten.state.seat]")
    other.wait_for_selector("#message:not([hidden])")
    assert other.inner_text("#message") == f"{name} took back {card_name(card)}: it went back to their hand."
    assert mover.locator("#message").is_hidden() or "took back" not in mover.inner_text("#message")

    rng = random.Random(4)
    phases: set[str] = set()
    claims = 0
    for turn in range(TACTICS_TURNS + 40):
        mover.wait_for_function(MY_DECISION_OR_OVER)
        while mover.get_attribute("#status", "data-mine") == "1":
            phases.add(mover.get_attribute("#status", "data-phase") or "")
            claims += decide(mover, rng, tactics=turn < TACTICS_TURNS).startswith("claim")
        mover, other = other, mover
        if turn >= TACTICS_TURNS and (claims or mover.get_attribute("#status", "data-status") == "over"):
            break
    assert {"PLAY", "DRAW"} <= phases
    assert len(phases & RUSE_PHASES) >= 2, f"few ruses were played: {phases}"
    assert claims, "a stone was claimed with the Claim button"
    mover.screenshot(path=str(shots / "friend-player.png"), full_page=True)

    spectator = pages.page()
    spectator.goto(f"{server.url}/game/{game_id}")
    spectator.wait_for_selector('#status[data-status="playing"]')
    assert spectator.locator("#hand").count() == 0
    assert spectator.locator(".panel .backs").count() == 2
    assert spectator.locator("[data-action]").count() == 0
    spectator.screenshot(path=str(shots / "friend-spectator.png"), full_page=True)

    late = pages.page()
    late.goto(invite)
    late.wait_for_selector("#table-full:not([hidden])")
    assert late.inner_text("#table-full-text") == "This table is full: both seats are taken."
    assert late.locator("#join").is_hidden(), "no Join form at a full table"
    late.click("#watch-full")
    late.wait_for_selector("#table-full", state="hidden")
    assert late.locator("[data-action]").count() == 0 and late.locator(".panel .backs").count() == 2


# ---------------------------------------------------------------------- a rematch


def finished_pages(pages: Browser, server: LiveServer, seed: int) -> tuple[str, list[str], Any, Any]:
    """A finished friend game and both players' pages open at its summary: (game id, seat links,
    Ann's page, Bob's page)."""
    game_id, links = finished_friend_game(server.url, seed=seed)
    ann, bob = pages.page(), pages.page()
    for page, link in ((ann, links[0]), (bob, links[1])):
        page.goto(f"{server.url}{link}")
        page.wait_for_selector("#result:not([hidden])")
    return game_id, links, ann, bob


def test_a_rematch_offered_and_accepted(pages: Browser, server: LiveServer, shots: Path) -> None:
    """Ann asks for a rematch from the summary of a finished friend game; Bob's page shows the
    offer at once (and again after a reload) and seats him at the same table, with his own seat."""
    game_id, links, ann, bob = finished_pages(pages, server, seed=5)
    for page in (ann, bob):
        assert page.locator("#play-again").is_visible() and page.locator("#rematch").is_hidden()
    ann.click("#play-again")
    ann.wait_for_url(lambda url: "/game/" in url and game_id not in url)
    ann.wait_for_selector('#status[data-status="open"]')
    rematch_id = ann.url.split("/game/")[1].split("?")[0]
    assert "accept the rematch" in ann.inner_text("#status")
    assert ann.locator("#invite").is_hidden(), "the kept seat has no invite link"
    ann.wait_for_function("() => document.querySelector('#panel-top .pname')?.textContent === "
                          "'seat kept for Bob'")
    assert "(free seat)" not in ann.inner_text("body")

    bob.wait_for_selector("#accept-rematch")
    assert bob.inner_text("#rematch .rematch-offer") == "Ann wants a rematch."
    assert bob.locator("#play-again").is_hidden()
    assert "Ann wants a rematch." in bob.inner_text("#message")
    bob.reload()
    bob.wait_for_selector("#accept-rematch")
    bob.screenshot(path=str(shots / "rematch-offer.png"), full_page=True)
    bob.click("#accept-rematch")
    bob.wait_for_url(f"**/game/{rematch_id}")
    for page in (ann, bob):
        page.wait_for_selector('#status[data-status="playing"]')
    assert [page.evaluate("() => window.schotten.state.seat") for page in (ann, bob)] == [0, 1]
    assert "token" not in ann.url + bob.url, "each seat's cookie holds its token, no address"
    assert bob.evaluate("() => window.schotten.state.players") == ["Ann", "Bob"]

    ann.goto(f"{server.url}{links[0]}")
    ann.wait_for_selector("#go-to-rematch")
    assert ann.inner_text("#rematch p") == "The rematch has started."
    ann.click("#go-to-rematch")
    ann.wait_for_url(f"**/game/{rematch_id}")
    ann.wait_for_selector('#status[data-status="playing"]')
    assert ann.evaluate("() => window.schotten.state.seat") == 0


def test_a_refused_accept_leaves_the_offer_usable(pages: Browser, server: LiveServer) -> None:
    """When accepting fails (the server answers 410, as for an offer withdrawn a moment before), Bob
    stays on the finished game, is told why, and the Accept button works again; the next click
    seats him at the rematch table."""
    game_id, _, ann, bob = finished_pages(pages, server, seed=9)
    rematch_id = ask_again(ann, bob, game_id)
    refusal = json.dumps({"error": "the offer is gone"})
    pattern = f"**/api/games/{game_id}/rematch"
    bob.route(pattern, lambda route: route.fulfill(status=410, body=refusal, content_type="application/json"))
    bob.click("#accept-rematch")
    bob.wait_for_function("() => document.querySelector('#message').textContent.includes('no longer open')")
    assert "This rematch offer is no longer open." in bob.inner_text("#message")
    assert game_of(bob) == game_id
    assert bob.locator("#accept-rematch").is_enabled()
    bob.unroute(pattern)
    bob.click("#accept-rematch")
    bob.wait_for_url(f"**/game/{rematch_id}")
    bob.wait_for_selector('#status[data-status="playing"]')


def test_play_again_after_too_many_offers(pages: Browser, server: LiveServer) -> None:
    """After five offers were withdrawn, Play again is refused: the page says why and points to
    the lobby, and stays on the finished game."""
    game_id, links = finished_friend_game(server.url, seed=10)
    token = links[0].split("token=")[1]
    for _ in range(5):
        post_json(f"{server.url}/api/games/{game_id}/rematch", {"token": token})
        post_json(f"{server.url}/api/games/{game_id}/rematch/withdraw", {"token": token})
    ann = pages.page()
    ann.goto(f"{server.url}{links[0]}")
    ann.wait_for_selector("#result:not([hidden])")
    ann.click("#play-again")
    ann.wait_for_function("() => document.querySelector('#message').textContent.includes('too many')")
    assert "too many rematch offers: open a new table from the lobby." in ann.inner_text("#message")
    assert game_of(ann) == game_id and ann.locator("#play-again").is_enabled()


def game_of(page: Any) -> str:
    """The id of the game a page shows."""
    return str(page.url.split("/game/")[1].split("?")[0])


def open_tables(page: Any, url: str) -> list[str]:
    """The ids of the lobby's open tables."""
    page.goto(f"{url}/")
    page.wait_for_selector("#open-tables li")
    found = page.eval_on_selector_all("#open-tables [data-table]", "ns => ns.map(n => n.dataset.table)")
    return [str(i) for i in found]


def ask_again(ann: Any, bob: Any, game_id: str) -> str:
    """Ann clicks Play again on the finished game and goes to the new rematch table; Bob's page
    offers it. The table's id."""
    ann.click("#play-again")
    ann.wait_for_url(lambda url: "/game/" in url and game_id not in url)
    ann.wait_for_selector("#withdraw-rematch")
    bob.wait_for_selector("#decline-rematch")
    return game_of(ann)


def test_a_rematch_withdrawn_then_declined(pages: Browser, server: LiveServer, shots: Path) -> None:
    """Ann asks and withdraws (Cancel rematch at the rematch table): Bob's page stops offering it at
    once and after a reload. Ann asks again and Bob declines: Ann's page at the table says so, and
    after a reload too; neither table is left in the lobby. A third offer is withdrawn from the
    finished game's page."""
    game_id, links, ann, bob = finished_pages(pages, server, seed=8)
    first = ask_again(ann, bob, game_id)
    assert "accept the rematch" in ann.inner_text("#status")
    ann.click("#withdraw-rematch")
    ann.wait_for_url(f"**/game/{game_id}")
    ann.wait_for_selector("#rematch .rematch-closed")
    assert ann.inner_text("#rematch .rematch-closed") == "You withdrew your rematch offer."
    bob.wait_for_selector("#accept-rematch", state="detached")
    assert bob.inner_text("#rematch .rematch-closed") == "Ann withdrew the rematch offer."
    assert "Ann withdrew the rematch offer." in bob.inner_text("#message")
    bob.reload()
    bob.wait_for_selector("#rematch .rematch-closed")
    assert bob.locator("#accept-rematch").count() == 0 and bob.locator("#play-again").is_visible()

    second = ask_again(ann, bob, game_id)
    assert second != first
    bob.click("#decline-rematch")
    ann.wait_for_selector('#status[data-status="closed"]')
    assert ann.inner_text("#status") == "The rematch was declined."
    assert "The rematch was declined." in ann.inner_text("#message")
    ann.screenshot(path=str(shots / "rematch-declined.png"), full_page=True)
    bob.wait_for_selector("#rematch .rematch-closed")
    assert bob.inner_text("#rematch .rematch-closed") == "You declined the rematch."
    ann.reload()
    ann.wait_for_selector("#back-to-game")
    assert ann.inner_text("#status") == "The rematch was declined."
    assert ann.locator("#hand .card.playable").count() == 0, "nothing is played at a closed table"
    assert not {first, second} & set(open_tables(pages.page(), server.url))

    ann.click("#back-to-game")
    ann.wait_for_url(f"**/game/{game_id}")
    ann.wait_for_selector("#rematch .rematch-closed")
    assert ann.inner_text("#rematch .rematch-closed") == "Bob declined the rematch."
    third = ask_again(ann, bob, game_id)
    ann.goto(f"{server.url}{links[0]}")
    ann.wait_for_selector("#rematch #withdraw-rematch")
    ann.click("#withdraw-rematch")
    ann.wait_for_selector("#rematch .rematch-closed")
    bob.wait_for_selector("#accept-rematch", state="detached")
    bob.select_option("#lang", "pt")
    bob.wait_for_function("() => document.documentElement?.lang === 'pt'")
    assert bob.inner_text("#rematch .rematch-closed") == "Ann retirou o pedido de revanche."
    assert third not in open_tables(pages.page(), server.url)


CLOSED_REPLAY = ("This table was closed before its game began (the rematch offer was withdrawn or "
                 "declined): there is nothing to replay.")
NOT_BEGUN_REPLAY = ("This game has not begun yet: the table is waiting for its second player, so "
                    "there is nothing to replay yet.")


def assert_nothing_to_replay(page: Any, selector: str, text: str) -> None:
    """The replay page shows ``text`` at ``selector`` in place of the replay: no controls, no empty
    board, no claim that a game is being played."""
    page.wait_for_selector(selector)
    assert page.inner_text(selector) == text
    assert page.locator("#slider, #download, #play").count() == 0
    assert page.locator("#board").is_hidden(), "no empty board is drawn"
    assert page.locator("#message").is_hidden(), "no claim that a game is being played"


def test_the_replay_page_of_a_closed_table(pages: Browser, server: LiveServer, shots: Path) -> None:
    """An open rematch table's replay page says its game has not begun yet; once the offer is
    withdrawn, the page says no game was played there (not that one is being played), offers no
    replay controls, leads back to the finished game, and speaks the reader's language."""
    game_id, links = finished_friend_game(server.url, seed=9)
    token = links[0].split("token=")[1]
    offer = post_json(f"{server.url}/api/games/{game_id}/rematch", {"token": token})
    page = pages.page()
    page.goto(f"{server.url}/replay/{offer['id']}")
    page.wait_for_selector("#replay-not-begun")
    assert page.inner_text("#replay-not-begun") == NOT_BEGUN_REPLAY
    post_json(f"{server.url}/api/games/{game_id}/rematch/withdraw", {"token": token})
    page.reload()
    assert_nothing_to_replay(page, "#replay-closed", CLOSED_REPLAY)
    page.screenshot(path=str(shots / "replay-closed.png"), full_page=True)
    page.click("#back-to-game")
    page.wait_for_url(f"**/game/{game_id}")
    page.wait_for_selector("#result:not([hidden])")
    reader = pages.page(locale="pt-PT")
    reader.goto(f"{server.url}/replay/{offer['id']}")
    reader.wait_for_selector("#replay-closed")
    assert reader.inner_text("#replay-closed") == read_catalogue("pt")[CLOSED_REPLAY]
    assert reader.inner_text("#back-to-game") == read_catalogue("pt")["Back to the game"]


def test_the_replay_page_of_a_table_waiting_for_its_second_player(
        pages: Browser, server: LiveServer, shots: Path) -> None:
    """A friend table waiting for its second player: its replay page says the game has not begun
    (not that it is being played), offers no replay controls nor empty board, leads back to the
    table, and speaks the reader's language; once Bob sits down, the page says the game is not
    over yet."""
    grant = post_json(f"{server.url}/api/tables", {"mode": "friend", "nickname": "Ann", "seat": 0})
    page = pages.page()
    page.goto(f"{server.url}/replay/{grant['id']}")
    assert_nothing_to_replay(page, "#replay-not-begun", NOT_BEGUN_REPLAY)
    page.screenshot(path=str(shots / "replay-not-begun.png"), full_page=True)
    page.click("#back-to-game")
    page.wait_for_url(f"**/game/{grant['id']}")
    page.wait_for_selector('#status[data-status="open"]')
    for lang, locale in (("pt", "pt-PT"), ("ca", "ca-ES")):
        reader = pages.page(locale=locale)
        reader.goto(f"{server.url}/replay/{grant['id']}")
        reader.wait_for_selector("#replay-not-begun")
        assert reader.inner_text("#replay-not-begun") == read_catalogue(lang)[NOT_BEGUN_REPLAY]
    post_json(f"{server.url}/api/tables/{grant['id']}/join", {"nickname": "Bob"})
    page.goto(f"{server.url}/replay/{grant['id']}")
    assert_nothing_to_replay(page, "#replay-playing",
                             "This game is still being played: its replay opens when it is over.")
    assert page.locator("#replay-not-begun").count() == 0


# ---------------------------------------------------------------------- confirming a card play


def server_version(server: LiveServer, game_id: str) -> int:
    """The game's version as the server has it (entries in its log)."""
    with urllib.request.urlopen(f"{server.url}/api/games/{game_id}", timeout=10) as answer:
        return int(json.load(answer)["version"])


def propose_play(page: Any, card: str, which: int = 0) -> str:
    """Pick ``card`` and the ``which``-th of its lit stones; the page must then ask to confirm.
    Return the play."""
    page.click(f'#hand .card[data-card="{card}"]')
    action = check_targets(page, card)[which]
    page.click(f'.col[data-action="{action}"]')
    page.wait_for_selector("#confirm-bar")
    return action


def resynced(page: Any) -> None:
    """Make the page ask the server for the state again and wait until it has drawn it."""
    page.evaluate("() => { window.schotten.mark = true; window.dispatchEvent(new Event('online')); }")
    page.wait_for_function("() => !window.schotten.mark")


def test_a_card_play_is_confirmed_or_taken_back_in_the_base_game(
        pages: Browser, server: LiveServer, shots: Path) -> None:
    game_id, _, mover, other = start_friend_game(pages, server, "base")
    version = mover.get_attribute("#status", "data-version") or ""
    hand, seen = hand_of(mover), other.inner_html("#board")
    card = max(hand)
    first = propose_play(mover, card)
    assert "drawn" in mover.inner_text("#confirm-bar") and mover.locator("#confirm-bar .btn").count() == 2
    assert hand_of(mover) == [c for c in hand if c != card] and provisional_on_board(mover, first) == 1
    assert mover.locator(".col.target, #hand .card.playable").count() == 0, "nothing else is offered now"
    assert mover.locator("#undo").is_hidden()
    mover.screenshot(path=str(shots / "base-pending-play.png"), full_page=True)
    mover.keyboard.press("Escape")
    mover.wait_for_selector("#confirm-bar", state="detached")
    assert hand_of(mover) == hand and mover.locator(".provisional").count() == 0

    second = propose_play(mover, card, -1)
    mover.click('#prompt [data-action="take-back"]')
    mover.wait_for_selector("#confirm-bar", state="detached")
    assert hand_of(mover) == hand and mover.get_attribute("#status", "data-version") == version
    assert server_version(server, game_id) == int(version), "nothing was sent"
    resynced(other)
    assert other.get_attribute("#status", "data-version") == version and other.inner_html("#board") == seen

    before = len(other.evaluate("() => window.schotten.state.log.map((entry) => entry.action)"))
    assert propose_play(mover, card, -1) == second
    mover.click('#prompt [data-action="confirm"]')
    mover.wait_for_function(f"() => document.querySelector('#status').dataset.version !== '{version}'")
    stone = second.split("@")[1]
    other.wait_for_selector(f'.col[data-stone="{stone}"] .side.top .card[data-card="{card}"]')
    history = other.evaluate("() => window.schotten.state.log.map((entry) => entry.action)")
    assert history[before:] == [second], "only the confirmed play was made"
    assert server_version(server, game_id) == int(version) + 1
    assert len(hand_of(mover)) == len(hand), "the play drew a card"

    # A play waiting for its confirmation is dropped when the table moves on without it
    # (here the same seat played from a second tab).
    other.wait_for_function(MY_DECISION_OR_OVER)
    twin = pages.twin(other)
    propose_play(other, hand_of(other)[0])
    pick_card(twin, random.Random(8))
    other.wait_for_selector("#message:not([hidden])")
    assert "no longer allowed" in other.inner_text("#message")
    assert other.locator("#confirm-bar, .provisional").count() == 0
    assert sorted(hand_of(other)) == sorted(other.evaluate("() => window.schotten.state.view.hand"))


# ---------------------------------------------------------------------- languages and phones


def test_the_language_switch(pages: Browser, cli_server: LiveServer, shots: Path) -> None:
    server = cli_server
    page = pages.page()
    page.goto(f"{server.url}/")
    page.wait_for_selector("#lang option[value='pt']", state="attached")
    assert page.inner_text("h2 >> nth=0") == "Play now"
    page.select_option("#lang", "pt")
    page.wait_for_function("() => document.documentElement?.lang === 'pt'")
    assert page.inner_text("h2 >> nth=0") == "Jogar agora"
    assert any(c["name"] == "lang" and c["value"] == "pt" for c in page.context.cookies())
    page.screenshot(path=str(shots / "lobby-pt.png"), full_page=True)
    page.select_option("#lang", "ca")
    page.wait_for_function("() => document.documentElement?.lang === 'ca'")
    assert page.inner_text("h2 >> nth=0") == "Juga ara"
    page.goto(f"{server.url}/rules")
    page.wait_for_selector("[data-tactic='JO'] h3")
    assert page.inner_text("h1") == "Les regles en resum"
    assert page.inner_text("[data-tactic='JO'] h3") == "Comodí"
    tip = page.get_attribute("[data-tactic='JO'] .card", "title") or ""
    assert tip.startswith("Comodí (Tropa d'elit): Qualsevol color")
    page.screenshot(path=str(shots / "rules-ca.png"), full_page=True)
    create_table(page, server.url, "Joan", "tactics")
    page.wait_for_function(MY_DECISION_OR_OVER)
    assert page.inner_text("#status") == "El teu torn"
    assert page.get_attribute("[data-deck='tactic'] .card", "title") == "Carta tàctica"

    brazil = pages.page(locale="pt-BR")
    brazil.goto(f"{server.url}/")
    brazil.wait_for_function("() => document.documentElement?.lang === 'pt'")
    assert brazil.input_value("#lang") == "pt"


def test_a_phone_sized_screen(pages: Browser, server: LiveServer, shots: Path) -> None:
    page = pages.page(viewport=PHONE, is_mobile=True, has_touch=True)
    page.goto(f"{server.url}/")
    no_sideways_scroll(page)
    create_table(page, server.url, "Pia", "tactics")
    rng = random.Random(5)
    play(page, rng, 6)
    no_sideways_scroll(page)
    page.click("#sort-value")
    values = [int(card[0]) for card in hand_of(page) if card[0].isdigit()]
    assert values == sorted(values)
    page.click("#sort-colour")
    colours = ["gbrypk".index(card[1]) for card in hand_of(page) if card[0].isdigit()]
    assert colours == sorted(colours)
    board = page.locator("#board").bounding_box()
    assert board is not None and board["width"] <= PHONE["width"]
    for stone in range(1, 10):
        box = page.locator(f'.col[data-stone="{stone}"]').bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    page.screenshot(path=str(shots / "phone-game.png"), full_page=True)
    page.goto(f"{server.url}/rules")
    page.wait_for_selector("[data-tactic='RE']")
    no_sideways_scroll(page)
    page.screenshot(path=str(shots / "phone-rules.png"), full_page=True)


# Resolved stones whose labels are the longest words of the catalogues ("Sequência de cor",
# "Escala de color", "Three of a kind"), elite troops and both combat modes: [top, bottom] sides,
# the owner (-1: none) and the combat modes.
LONG_LABEL_STONES = [
    ([["3y", "4b", "5g"], ["JO", "SP", "SH", "6b"]], 1, ["MF"]),
    ([["7g", "7b", "7r"], ["1p", "5p", "9p"]], 0, []),
    ([["8g", "8b", "8r", "8y"], ["2k", "3k", "4k"]], 1, ["MF", "BB"]),
    ([["4y", "5b", "6g"], ["5y", "6b", "7g"]], 0, []),
    ([["1g", "2g", "3g"], ["SP", "8k", "9k"]], 1, []),
    ([["2r", "3b", "4g"], ["3r", "4b", "5g"]], -1, []),
    ([["9y", "9b", "JO"], ["1b", "2b", "SH"]], 0, ["BB"]),
    ([["2y", "7b", "9g"], ["4k", "5k", "6k"]], 1, []),
    ([["5r", "6r", "7r"], ["6y", "7y", "8y"]], 0, []),
]


RENDER_TEST_BOARD = """async ([data, withClaims]) => {
  const board = await import('/static/js/board.js');
  const live = document.querySelector('#board');
  let node = document.querySelector('#test-board');
  if (!node) {
    node = document.createElement('div');
    node.id = 'test-board';
    node.className = 'board';
    live.after(node);
  }
  live.hidden = true;
  const claim = (_, i) => [i + 1, { action: `claim ${i + 1}`, why: 'proof' }];
  const claims = withClaims ? new Map(data.stones.map(claim)) : null;
  board.renderBoard(node, data, { bottom: 0, names: ['Pia', 'AI'], over: !withClaims, claims });
  node.scrollIntoView();
}"""


def board_data(owners: bool) -> dict[str, Any]:
    """LONG_LABEL_STONES as the server sends a board: the stones and each side's formation,
    computed by the engine (``owners``: with their owners, else none claimed)."""
    bits = {"BB": MODE_BLUFF, "MF": MODE_MUD}
    stones = [{"cards": cards, "owner": owner if owners else -1, "modes": modes}
              for cards, owner, modes in LONG_LABEL_STONES]
    sides = [[[parse_card(c) for c in side] for side in cards] for cards, _, _ in LONG_LABEL_STONES]
    modes = [sum(bits[m] for m in modes) for _, _, modes in LONG_LABEL_STONES]
    return {"stones": stones, "formations": board_formations(sides, modes)}


def render_test_board(page: Any, data: dict[str, Any], claims: bool) -> None:
    """Draw ``data`` (stones and formations) with the page's own renderBoard in a board of their
    own, in place of the table's (hidden: a state message redraws only the table's board), in the
    page's language; every stone claimable (``claims``) or the game over (labels on every
    complete side)."""
    page.evaluate(RENDER_TEST_BOARD, [data, claims])


LABEL_LINES = """() => [...document.querySelectorAll('#test-board .formation .fname')].map(svg => {
  const box = svg.getBoundingClientRect();
  const col = svg.closest('.col').getBoundingClientRect();
  const lines = [...svg.querySelectorAll('text')];
  return {
    label: svg.getAttribute('aria-label'),
    lines: lines.map(line => line.textContent),
    inside: box.left >= col.left - 0.5 && box.right <= col.right + 0.5,
    fits: lines.every(line => {
      const b = line.getBoundingClientRect();
      return b.left >= box.left - 0.5 && b.right <= box.right + 0.5;
    }),
  };
})"""


def test_formation_labels_fit_a_phone_in_every_language(pages: Browser, server: LiveServer) -> None:
    """The labels of resolved stones (the formations the server sends) stay inside their column,
    are never cut, and break only between words ("Colou / r 18" was a bug): the board stays as
    wide as a phone."""
    page = pages.page(viewport={"width": 390, "height": 844})
    create_table(page, server.url, "Pia", "tactics")
    page.wait_for_function(MY_DECISION_OR_OVER)
    for lang in ("en", "pt", "ca"):
        page.select_option("#lang", lang)
        page.wait_for_function(f"() => document.documentElement?.lang === '{lang}'")
        render_test_board(page, board_data(owners=True), claims=False)
        assert page.locator("#test-board .formation").count() == 16, "every complete side has its label"
        no_sideways_scroll(page)
        for stone in range(1, 10):
            box = page.locator(f'#test-board .col[data-stone="{stone}"]').bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, (lang, stone)
        for label in page.evaluate(LABEL_LINES):
            assert label["inside"] and label["fits"], (lang, label)
            assert " ".join(label["lines"]).replace("- ", "-") == label["label"], (lang, label)


CLAIM_BUTTON_BOXES = """() => [...document.querySelectorAll('#test-board .claim')].map(button => {
  const box = button.getBoundingClientRect();
  const col = button.closest('.col').getBoundingClientRect();
  const hit = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
  return { action: button.dataset.action, inside: box.left >= col.left - 0.5 && box.right <= col.right + 0.5,
           tappable: button.contains(hit), text: button.textContent };
})"""


def test_claim_buttons_can_be_tapped_on_a_phone_in_every_language(
        pages: Browser, server: LiveServer, shots: Path) -> None:
    """With every stone claimable, each Claim button ("Reivindicar", "Reclamar") stays inside its
    column, and a tap on its middle reaches it (no neighbour's button lies over it)."""
    page = pages.page(viewport={"width": 375, "height": 740}, is_mobile=True, has_touch=True)
    create_table(page, server.url, "Pia", "tactics")
    page.wait_for_function(MY_DECISION_OR_OVER)
    for lang in ("en", "pt", "ca"):
        page.select_option("#lang", lang)
        page.wait_for_function(f"() => document.documentElement?.lang === '{lang}'")
        render_test_board(page, board_data(owners=False), claims=True)
        buttons = page.evaluate(CLAIM_BUTTON_BOXES)
        assert len(buttons) == 9
        for button in buttons:
            assert button["inside"] and button["tappable"], (lang, button)
        no_sideways_scroll(page)
        page.locator("#test-board").screenshot(path=str(shots / f"phone-claims-{lang}.png"))


def test_the_page_reconnects_after_a_server_restart(pages: Browser, server: LiveServer) -> None:
    """The server stays down until the page says the connection is lost (so the page cannot have
    reconnected before the check), then comes back on the same database: the page reconnects
    by itself to the same version and hand, and play goes on."""
    page = pages.page()
    create_table(page, server.url, "Rae", "base")
    rng = random.Random(6)
    assert play(page, rng, 2) == 2
    page.wait_for_function(MY_DECISION_OR_OVER)
    version, hand = page.get_attribute("#status", "data-version"), hand_of(page)
    server.stop()
    page.wait_for_selector("#conn:not([hidden])")
    server.start()
    page.wait_for_selector("#conn", state="hidden")
    page.wait_for_function(MY_DECISION_OR_OVER)
    assert page.get_attribute("#status", "data-version") == version
    assert hand_of(page) == hand
    decide(page, rng)


# ---------------------------------------------------------------------- claim explanations, translated

ENGLISH_WORDS = re.compile(
    r"\b(your|their|beats?|ties|completed|first|cannot|beaten|best|side|wins|unseen|still|stone|colour|run|"
    r"sum|three|four|kind|blue|green|red|yellow|purple|pink|joker|spy)\b", re.IGNORECASE)
RULE_ID = re.compile(r"\((R\d+\.\d+)\)")


def sample_claim_proofs() -> dict[str, dict[str, Any]]:
    """A claim proof of each kind (and one with an elite troop, one under Blind-man's Bluff) as
    the server sends them, from seeded random games in which nobody claims."""
    found: dict[str, dict[str, Any]] = {}
    for seed in range(40):
        state = GameState.new(Settings.of("tactics"), seed)
        rng = random.Random(seed)
        while not state.is_over and len(found) < 6:
            ids = state.legal_action_ids()
            state.apply_id(DONE_ID if state.phase == Phase.CLAIM else rng.choice(ids))
            for seat, stone in itertools.product((0, 1), range(9)):
                proof = claim_proof(state, seat, stone)
                if proof.holds and proof.mine is not None:
                    found.setdefault(proof.kind, proof.to_dict())
                    if proof.mine.troops:
                        found.setdefault("troops", proof.to_dict())
                    if proof.mine.bluff:
                        found.setdefault("bluff", proof.to_dict())
        if len(found) == 6:
            return found
    raise AssertionError(f"random games gave only {sorted(found)}")


def rule_of(sentence: str) -> str:
    """The rule id a sentence of the engine ends with ("... (R5.2)")."""
    found = RULE_ID.findall(sentence)
    assert found, sentence
    return str(found[-1])


def test_claim_explanations_are_translated(pages: Browser, server: LiveServer, shots: Path) -> None:
    """Claim proofs of every kind read in Portuguese with no rule id in the sentence (the rule
    is apart, for the why? link); in a game, each provable stone gets a "Claim stone N" button
    in the prompt with its proof in words and a why? link to its rule (R5.1, R5.2, R4.6), the
    stone's own Claim button its proof as tooltip, while the server still sends the English
    sentence."""
    proofs = sample_claim_proofs()
    page = pages.page(locale="pt-PT")
    page.goto(f"{server.url}/rules")
    page.wait_for_function("() => document.documentElement?.lang === 'pt'")
    texts = page.evaluate(
        """async (proofs) => {
          const words = await import('/static/js/proofs.js');
          return Object.fromEntries(Object.entries(proofs).map(([k, p]) => [k, words.claimText(p)]));
        }""", proofs)
    for kind, said in texts.items():
        assert said["text"].startswith("A sua formação ") and said["text"].endswith("."), (kind, said)
        assert "(R" not in said["text"] and not ENGLISH_WORDS.search(said["text"]), (kind, said)
        assert said["rules"] == [rule_of(proofs[kind]["text"])], (kind, said)
    assert "como" in texts["troops"]["text"] and "Total" in texts["bluff"]["text"]

    _, _, mover, other = start_friend_game(pages, server, "base")
    for player in (mover, other):
        player.select_option("#lang", "pt")
        player.wait_for_function("() => document.documentElement?.lang === 'pt'")
    claims: list[str] = []
    rng = random.Random(3)
    for _ in range(60):
        mover.wait_for_function(MY_DECISION_OR_OVER)
        while not claims and mover.get_attribute("#status", "data-mine") == "1":
            claims = sorted({a for a in visible_actions(mover) if a.startswith("claim")})
            if not claims:
                decide(mover, rng)
        if claims:
            break
        mover, other = other, mover
    assert claims, "no claim came up"
    page = mover
    page.screenshot(path=str(shots / "claim-pt.png"), full_page=True)
    pt = read_catalogue("pt")
    sent = page.evaluate("() => window.schotten.state.claims")
    assert page.locator("#prompt .claim-item").count() == len(claims) == len(sent)
    assert page.inner_text("#prompt [data-action='done']") == pt["Don't claim"]
    for action in claims:
        stone = action.split()[1]
        item = page.locator(f'#prompt .claim-item:has([data-action="{action}"])')
        assert item.locator("button").inner_text() == pt["Claim stone {n}"].replace("{n}", stone)
        proof = item.locator(".proof").inner_text()
        why = item.locator(".why")
        assert why.inner_text() == pt["why?"] and proof.endswith(f". {pt['why?']}"), proof
        assert why.get_attribute("href") == f"/rules#{rule_of(sent[stone]['text'])}"
        words = proof[: -len(pt["why?"])].strip()
        assert "(R" not in words and not ENGLISH_WORDS.search(words), words
        assert page.get_attribute(f'#board [data-action="{action}"]', "title") == words
        assert sent[stone]["kind"] in ("beats", "ties_first", "unbeatable", "incompletable")


# ---------------------------------------------------------------------- following the game (issue 11)

REASONS = ("three adjacent stones", "five stones", "more stones when play ran out",
           "equal stones when play ran out")
BOARD_CARDS = "#board .side > .card"


def round_text(outcome: dict[str, Any], index: int, names: list[str]) -> str:
    """How the page words a finished round (its result and why)."""
    points = f"{outcome['points'][0]}\u2013{outcome['points'][1]}"
    if outcome["winner"] is None:
        return f"Round {index + 1}: a draw ({outcome['reason']}), {points}"
    return f"Round {index + 1}: {names[outcome['winner']]} won ({outcome['reason']}), {points}"


def round_ended(rounds: int) -> Any:
    """A stop condition for ``play_friend_game``: ``rounds`` rounds have ended."""
    return lambda state: len(state["view"]["round_outcomes"]) >= rounds


def test_the_end_of_a_round_stays_until_continue(pages: Browser, server: LiveServer, shots: Path) -> None:
    """Ann's page is open while round 1 of a 2-round match is played to its end (R6.1): the
    server deals round 2 at once, but the page keeps the board round 1 ended with (its cards,
    owners and formations; the claim that ended it marked), with the result and why, until
    Continue. Round 2's empty board then marks nothing of round 1 (a bug: it ringed the stone of
    round 1's last claim and said "Last move: ... claimed stone 8"), nor after a reload."""
    grant, links = open_friend_table(server.url, rounds=2)
    ann = pages.page()
    ann.goto(f"{server.url}{links[0]}")
    ann.wait_for_selector('#status[data-status="playing"]')
    final = play_friend_game(server.url, grant, seed=11, until=round_ended(1))
    assert final["view"]["round"] == 1 and final["log"][-1]["round"] == 0, "round 2 has not begun yet"
    ann.wait_for_selector("#continue")
    ended = final["round_end"]
    assert ann.evaluate("() => window.schotten.roundEnd.round") == 0
    assert ann.evaluate("() => window.schotten.state.version") == final["version"]
    on_board = sorted(ann.eval_on_selector_all(BOARD_CARDS, CARDS))
    assert on_board == sorted(c for stone in ended["stones"] for side in stone["cards"] for c in side)
    owned = sum(stone["owner"] >= 0 for stone in ended["stones"])
    assert ann.locator("#board .stone.claimed").count() == owned >= 3
    labels = sum(shape is not None for stones in ended["formations"] for shape in stones)
    assert ann.locator("#board .formation").count() == labels
    last = final["log"][-1]
    assert last["kind"] == "claim"
    assert ann.locator(f'#board .col[data-stone="{last["stone"] + 1}"] .stone.last').count() == 1
    outcome = final["view"]["round_outcomes"][0]
    assert ann.inner_text("#prompt .round-outcome") == round_text(outcome, 0, ["Ann", "Bob"])
    assert outcome["reason"] in REASONS
    assert "Round 2 of 2" in ann.inner_text("#score"), "the live table is in round 2"
    assert ann.locator("#hand .card.playable, .col.target").count() == 0
    ann.screenshot(path=str(shots / "round-end.png"), full_page=True)

    ann.click("#continue")
    ann.wait_for_selector("#board.round-end", state="detached")
    assert ann.locator(BOARD_CARDS).count() == 0, "round 2's board is empty"
    assert ann.locator("#board .last").count() == 0, "nothing of round 1 is marked on round 2's board"
    assert ann.inner_text("#last-turn") == ""
    ann.reload()
    ann.wait_for_selector("#status[data-version]")
    assert ann.locator("#continue").count() == 0, "a round seen is not shown again"
    assert ann.locator("#board .last").count() == 0 and ann.inner_text("#last-turn") == ""


LOG_ITEMS = """() => [...document.querySelectorAll('#log-list li')].map(n => ({
  kind: n.classList.contains('move') ? 'move' : n.className, text: n.textContent,
  index: n.dataset.index === undefined ? null : Number(n.dataset.index), round: Number(n.dataset.round),
}))"""


def move_words(move: dict[str, Any], names: list[str]) -> str:
    """The log's words for a card play, a claim or a draw (the moves a base game has most)."""
    who = names[move["mover"]]
    if move["kind"] == "play":
        return f"{who} played {card_name(move['card'])} on stone {move['stone'] + 1}"
    if move["kind"] == "claim":
        return f"{who} claimed stone {move['stone'] + 1}"
    return {"pass": f"{who} passed", "done": f"{who} ended the claims"}[move["kind"]]


def test_the_move_log_tells_every_move_newest_first(pages: Browser, server: LiveServer) -> None:
    """The log beside the board holds every move of the match (more than 60: it is not cut),
    newest first, in words, under a heading per round with the finished round's result (R9.2
    points) at its top; it comes from the server, so a reload shows the same log."""
    grant, links = open_friend_table(server.url, rounds=2)
    final = play_friend_game(server.url, grant, seed=12,
                             until=lambda state: round_ended(1)(state) and len(state["log"]) > 70)
    log = final["log"]
    assert len(log) > 70 and final["status"] == "playing"
    ann = pages.page()
    ann.goto(f"{server.url}{links[0]}")
    ann.wait_for_selector("#status[data-version]")
    items = ann.evaluate(LOG_ITEMS)
    moves = [item for item in items if item["kind"] == "move"]
    assert [m["index"] for m in moves] == list(range(len(log) - 1, -1, -1)), "every move, newest first"
    assert [m["text"] for m in moves] == [move_words(move, ["Ann", "Bob"]) for move in reversed(log)]
    assert ann.inner_text("#log-count") == str(len(log))
    heads = [i for i, item in enumerate(items) if item["kind"] == "round-head"]
    assert [items[i]["text"] for i in heads] == ["Round 2", "Round 1"] and heads[0] == 0
    first_round = [m for m in moves if m["round"] == 1]
    assert items[heads[1] + 1] == {"kind": "round-result", "round": 1, "index": None,
                                  "text": round_text(final["view"]["round_outcomes"][0], 0, ["Ann", "Bob"])}
    assert items[heads[1] + 2:] == first_round, "round 1's moves under its heading and result"
    assert ann.locator("#log").is_visible()
    box, board = ann.locator("#log").bounding_box(), ann.locator("#board").bounding_box()
    assert box is not None and board is not None
    assert box["x"] >= board["x"] + board["width"], "the log is beside the board"
    ann.reload()
    ann.wait_for_selector("#status[data-version]")
    assert ann.evaluate(LOG_ITEMS) == items, "the log survives a reload"


def their_turn(state: dict[str, Any]) -> list[dict[str, Any]]:
    """The other seat's moves since this seat's last move in the round (this seat's own moves
    of the turn it is making skipped)."""
    seat, moves = state["seat"], [m for m in state["log"] if m["round"] == state["view"]["round"]]
    while moves and moves[-1]["mover"] == seat:
        moves.pop()
    turn: list[dict[str, Any]] = []
    while moves and moves[-1]["mover"] != seat:
        turn.insert(0, moves.pop())
    return turn


def check_turn_marks(page: Any) -> list[dict[str, Any]]:
    """On this seat's decision: the board frames exactly the cards the other player put down in
    their last turn (and the stone they claimed), and a line names their moves; the turn."""
    state = page.evaluate("() => window.schotten.state")
    turn = their_turn(state)
    placed = [m for m in turn if m["kind"] in ("play", "place")]
    for move in placed:
        where = f'#board .col[data-stone="{move["stone"] + 1}"] .card.last[data-card="{move["card"]}"]'
        assert page.locator(where).count() == 1, move
    claimed = [m["stone"] + 1 for m in turn if m["kind"] == "claim"]
    assert sorted(int(n) for n in page.eval_on_selector_all(
        "#board .col:has(.stone.last)", "ns => ns.map(n => n.dataset.stone)")) == sorted(claimed)
    assert page.locator("#board .card.last").count() == len(placed)
    line = page.inner_text("#last-turn")
    assert line.startswith("AI (easy)'s last turn: ") if turn else line == ""
    for move in placed:
        assert f"{card_name(move['card'])} on stone {move['stone'] + 1}" in line
    for deck, name in (("clan", "clan"), ("tactic", "tactics")):
        draws = sum(m["kind"] == "draw" and m["deck"] == deck for m in turn)
        assert (f"drew {draws} card{'s' * (draws != 1)} from the {name} deck" in line) == bool(draws)
    return turn


def test_the_opponent_s_last_turn_is_marked_on_the_board(pages: Browser, server: LiveServer) -> None:
    """Against the AI (tactics, so its draws are choices in the log): at each of Ann's decisions
    the AI's last turn is framed on the board and told in a line (its draws counted by deck), while Ann
    makes her own turn too; the cards arrive with a short animation, none when the browser asks
    for reduced motion."""
    for motion, seed in (("no-preference", 21), ("reduce", 22)):
        page = pages.page(reduced_motion=motion)
        create_table(page, server.url, "Ann", "tactics")
        rng = random.Random(seed)
        turns = set()
        for _ in range(12):
            page.wait_for_function(MY_DECISION_OR_OVER)
            turns.update(move["index"] for move in check_turn_marks(page)[:1])
            decide(page, rng)
        assert len(turns) >= 4, "the AI's turns were seen"
        animated = page.evaluate("() => window.schotten.animated")
        expected = animated >= len(turns) - 1 if motion == "no-preference" else animated == 0
        assert expected, (motion, animated)


NOTIFICATION_STUB = """(() => {
  window.asked = 0;
  window.notices = [];
  class FakeNotification {
    constructor(title, options) { window.notices.push(options.body); }
  }
  FakeNotification.permission = 'default';
  FakeNotification.requestPermission = async () => {
    window.asked += 1;
    FakeNotification.permission = 'granted';
    return 'granted';
  };
  window.Notification = FakeNotification;
  Object.defineProperty(document, 'hidden', { get: () => window.tabHidden === true, configurable: true });
})()"""


def test_your_turn_is_signalled(pages: Browser, server: LiveServer) -> None:
    """The tab's title says "Your turn" exactly when the decision is the seat's; the sound (off
    by default) is turned on by its switch and remembered; notifications are never asked for on
    load, only on a click of their switch, and come when the turn arrives in a hidden tab."""
    _, links = open_friend_table(server.url)
    players = []
    for link in links:
        page = pages.page()
        page.add_init_script(NOTIFICATION_STUB)
        page.goto(f"{server.url}{link}")
        page.wait_for_selector('#status[data-status="playing"]')
        players.append(page)
    mover, other = players if players[0].get_attribute("#status", "data-mine") == "1" else players[::-1]
    assert mover.title() == "Your turn · Schotten Totten" and other.title() == "Schotten Totten"
    assert other.evaluate("() => window.asked") == 0, "no permission is asked on load"
    assert other.get_attribute("#sound", "aria-pressed") == "false", "the sound is off by default"
    other.click("#sound")
    other.click("#notify")
    assert other.evaluate("() => window.asked") == 1
    assert other.get_attribute("#notify", "aria-pressed") == "true"
    beeps = other.evaluate("() => window.schotten.signals.beeps")
    other.evaluate("() => { window.tabHidden = true; }")
    rng = random.Random(5)
    while mover.get_attribute("#status", "data-mine") == "1":
        decide(mover, rng)
    other.wait_for_function(MY_DECISION_OR_OVER)
    assert other.title() == "Your turn · Schotten Totten" and mover.title() == "Schotten Totten"
    assert other.evaluate("() => window.notices") == ["Your turn"]
    assert other.evaluate("() => window.schotten.signals.beeps") == beeps + 1
    other.reload()
    other.wait_for_selector("#status[data-version]")
    assert other.get_attribute("#sound", "aria-pressed") == "true", "the sound switch is remembered"
    assert other.evaluate("() => window.asked") == 0


# ---------------------------------------------------------------------- claiming and the rules page

def test_every_rule_the_engine_cites_has_its_anchor_on_the_rules_page() -> None:
    """The why? links open /rules#R5.2: every rule id in the engine's sentences (claim proofs,
    refusals) has an element of that id on the rules page, and each rule item is its own anchor."""
    engine = Path(__file__).resolve().parents[2] / "schotten" / "engine"
    texts = [path.read_text(encoding="utf-8") for path in engine.glob("*.py")]
    cited = {rule for text in texts for rule in RULE_ID.findall(text)}
    page = (STATIC / "rules.html").read_text(encoding="utf-8")
    anchors = set(re.findall(r'<li id="(R\d+\.\d+)"><a class="rule-id" href="#\1">\1</a>', page))
    assert {"R3.2", "R4.6", "R5.1", "R5.2", "R7.2", "R8.1"} <= cited
    assert cited <= anchors, f"rules without an anchor: {sorted(cited - anchors)}"
    counts = {1: 3, 2: 4, 3: 5, 4: 7, 5: 4, 6: 2, 7: 12, 8: 1, 9: 3, 10: 4}  # the rules, R1.1 to R10.4
    assert anchors == {f"R{group}.{n}" for group, last in counts.items() for n in range(1, last + 1)}
    assert len(re.findall(r'<li id="R', page)) == len(anchors)


def test_a_why_link_opens_the_rules_page_at_its_rule(pages: Browser, server: LiveServer) -> None:
    """A refusal's rule id (the server's reason "... (R3.1)") is not shown in the sentence but
    as a why? link, which opens the rules page scrolled to that rule, highlighted."""
    sockets: list[Any] = []

    def keep(route: Any) -> None:
        route.connect_to_server()
        sockets.append(route)

    page = pages.page()
    page.route_web_socket(re.compile(r".*/ws/games/.*"), keep)
    create_table(page, server.url, "Ann", "base")
    page.wait_for_function(MY_DECISION_OR_OVER)
    reason = "your side of stone 3 is full (3 cards) (R3.1)"
    sockets[-1].send(json.dumps({"type": "error", "code": "illegal_action", "message": reason}))
    page.wait_for_selector("#message:not([hidden]) .why")
    said = page.inner_text("#message")
    assert said == "That move is not allowed: your side of stone 3 is full (3 cards) why?"
    with page.expect_popup() as opened:
        page.click("#message .why")
    rules = opened.value
    rules.wait_for_selector("[data-tactic='JO']")
    assert rules.url.endswith("/rules#R3.1")
    target = rules.evaluate("""() => {
      const node = document.querySelector(':target');
      const box = node.getBoundingClientRect();
      return { id: node.id, seen: box.top >= 0 && box.top < window.innerHeight };
    }""")
    assert target == {"id": "R3.1", "seen": True}


# ---------------------------------------------------------------------- bugs a new user found (issue 11)

FACE_BOXES = """() => [...document.querySelectorAll('#test-faces .card')].map(card => {
  const box = card.getBoundingClientRect();
  const name = card.querySelector('.tname');
  const lines = [...name.querySelectorAll('text')];
  return {
    card: card.dataset.card, label: card.querySelector('.corner.top .val').textContent,
    name: name.getAttribute('aria-label'), lines: lines.map(line => line.textContent),
    inside: lines.every(line => {
      const b = line.getBoundingClientRect();
      return b.left >= box.left - 0.5 && b.right <= box.right + 0.5
        && b.top >= box.top && b.bottom <= box.bottom;
    }),
  };
})"""
SHOW_FACES = """async () => {
  const cards = await import('/static/js/cards.js');
  let node = document.querySelector('#test-faces');
  if (!node) {
    node = document.createElement('div');
    node.id = 'test-faces';
    document.querySelector('#board').after(node);
  }
  const codes = Object.keys(cards.TACTICS);
  node.replaceChildren(
    Object.assign(document.createElement('div'), { className: 'hand' }),
    Object.assign(document.createElement('div'), { className: 'side bottom spread' }));
  for (const box of node.children) box.append(...codes.map(code => cards.cardFace(code)));
}"""


def test_card_names_and_codes_fit_their_faces_in_every_language(pages: Browser, server: LiveServer) -> None:
    """Every tactic card's name stays whole on its face, in the hand and on the board, on a phone
    and a desktop, in every language ("Strategis", "Recruite" were cut); the code in its corner
    is the language's own ("MF" is "LL" in Portuguese)."""
    page = pages.page(viewport={"width": 390, "height": 844})
    create_table(page, server.url, "Pia", "tactics")
    page.wait_for_function(MY_DECISION_OR_OVER)
    for lang in ("en", "pt", "ca"):
        page.select_option("#lang", lang)
        page.wait_for_function(f"() => document.documentElement?.lang === '{lang}'")
        catalogue = read_catalogue(lang)
        for viewport in ({"width": 390, "height": 844}, DESKTOP):
            page.set_viewport_size(viewport)
            page.evaluate(SHOW_FACES)
            faces = page.evaluate(FACE_BOXES)
            assert len(faces) == 18, "the 9 tactic cards, in a hand and on a stone"
            for face in faces:
                code = face["card"]
                assert face["inside"], (lang, viewport, face)
                assert " ".join(face["lines"]).replace("- ", "-") == face["name"], (lang, face)
                assert face["name"] == (catalogue[TACTIC_NAMES[code]] or TACTIC_NAMES[code])
                assert face["label"] == (catalogue[code] or code), (lang, face)
    assert read_catalogue("pt")["MF"] == "LL" and read_catalogue("ca")["JO"] == "CO"


def test_the_invite_link_of_a_finished_table_offers_to_watch(pages: Browser, server: LiveServer) -> None:
    """The invite link (?join=1) of a finished game shows no Join form: it says the game is over
    and offers to watch; at a rematch table the free seat is kept, and the link says so."""
    game_id, links = finished_friend_game(server.url, seed=13)
    page = pages.page()
    page.goto(f"{server.url}/game/{game_id}?join=1")
    page.wait_for_selector("#table-full:not([hidden])")
    assert page.inner_text("#table-full-text") == "This game is over: nobody can join it any more."
    assert page.locator("#join").is_hidden()
    page.click("#watch-full")
    page.wait_for_selector("#table-full", state="hidden")
    assert page.locator("#result").is_visible()
    offer = post_json(f"{server.url}/api/games/{game_id}/rematch", {"token": links[0].split("token=")[1]})
    stranger = pages.page()
    stranger.goto(f"{server.url}/game/{offer['id']}?join=1")
    stranger.wait_for_selector("#table-full:not([hidden])")
    kept = "This is a rematch: its free seat is kept for the other player."
    assert stranger.inner_text("#table-full-text") == kept
    assert stranger.locator("#join").is_hidden()


IN_VIEW = """(selector) => [...document.querySelectorAll(selector)].every(node => {
  const box = node.getBoundingClientRect();
  return box.top >= 0 && box.bottom <= window.innerHeight && box.height > 0;
})"""


def test_the_hand_and_the_prompt_stay_in_view_on_a_phone(
        pages: Browser, server: LiveServer, shots: Path) -> None:
    """Mid-game on a phone (390x844), the hand and the prompt stay on the screen wherever the
    page is scrolled to (they fell below it), and the board's stones can all be seen above them."""
    page = pages.page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    create_table(page, server.url, "Pia", "tactics")
    play(page, random.Random(9), 14)
    page.wait_for_function(MY_DECISION_OR_OVER)
    for where in ("0", "document.querySelector('#board').getBoundingClientRect().top + window.scrollY",
                  "document.body.scrollHeight"):
        page.evaluate(f"() => window.scrollTo(0, {where})")
        assert page.evaluate(IN_VIEW, "#hand .card, #prompt"), where
    page.evaluate("() => window.scrollTo(0, 0)")
    page.screenshot(path=str(shots / "phone-mid-game.png"))
    dock = page.locator("#dock").bounding_box()
    board = page.locator("#board .stone").first.bounding_box()
    assert dock is not None and board is not None and board["y"] + board["height"] <= dock["y"]
    no_sideways_scroll(page)
