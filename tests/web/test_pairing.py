"""Play now: pairing strangers in the database, exactly once (issue 15, "Play now").

Each player is a browser of its own: a ``TestClient`` with its own cookies on the test's app (and
its event loop). Time is a ``FakeClock`` the tests move by hand (the pairing reads the authority's
``now``). The concurrency tests call ``Pairing.pair`` from many threads on a SQLite file, and on
PostgreSQL when ``SCHOTTEN_TEST_POSTGRES_URL`` is set (see test_postgres).
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from cluster import Cluster
from helpers_web import FakeClock, app_at, receive_state, service_of, socket_path, test_settings
from playnow_crowd import press_at_once
from sqlalchemy import select
from starlette.testclient import TestClient
from test_postgres import database_url, server_url  # noqa: F401  (fixtures)

from schotten.web.core.settings import WebSettings
from schotten.web.players.identity import SESSION_COOKIE
from schotten.web.players.seats import token_hash
from schotten.web.playnow.entries import Entries, Entry
from schotten.web.playnow.pairing import PRESETS, Pairing
from schotten.web.storage.db import GameRow, PoolEntryRow, RatingRow
from schotten.web.storage.store import Store

FIVE = {"initial": 300, "increment": 5}
THREE = {"initial": 180, "increment": 2}
TICKET = "pool_ticket"
BROWSER = "pool_browser"
EMPTY = dict.fromkeys(("game", "seat", "url", "variant", "preset", "clock", "rated", "since", "waited",
                       "range", "ai_offer_after", "offer"))


@pytest.fixture
def fake() -> FakeClock:
    """The test's clock."""
    return FakeClock()


@pytest.fixture
def app(settings: WebSettings, fake: FakeClock) -> Iterator[TestClient]:
    """The app on the test's database, reading the time from ``fake``."""
    with app_at(settings, fake) as client:
        yield client


def browser(app: TestClient, account: str | None = None) -> TestClient:
    """Another browser (its own cookies) on the same app and event loop, which opened the lobby (its
    ``pool_browser`` cookie set); logged in as a new account named ``account`` if given."""
    other = TestClient(app.app, base_url=str(app.base_url))
    other.portal = app.portal
    if account is not None:
        accounts = service_of(app).accounts
        ref = accounts.sign_up(account, "a long password")
        other.cookies.set(SESSION_COOKIE, accounts.new_session(ref.id))
    assert other.get("/api/play-now").json() == {**EMPTY, "status": "none"}
    assert other.cookies.get(BROWSER)
    return other


def enter(player: TestClient, clock: dict[str, int] | None = None, **body: Any) -> dict[str, Any]:
    """Press Play now (base, 5+5, casual unless ``body`` says otherwise): the answer, which must be 200."""
    request = {"variant": "base", "clock": clock or FIVE, "rated": False, "nickname": "Ann"} | body
    response = player.post("/api/play-now", json=request)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def poll(player: TestClient) -> dict[str, Any]:
    """Ask how the waiting goes."""
    response = player.get("/api/play-now")
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def entries(app: TestClient) -> list[PoolEntryRow]:
    """Every pool entry stored."""
    with service_of(app).store.use() as session:
        return list(session.scalars(select(PoolEntryRow)))


def game_row(app: TestClient, game_id: str) -> GameRow:
    """The stored row of a game."""
    with service_of(app).store.use() as session:
        row = session.get(GameRow, game_id)
        assert row is not None
        return row


def set_rating(app: TestClient, name: str, rating: float, pool: str = "base.realtime") -> None:
    """Give the account ``name`` a rating in ``pool``."""
    account = service_of(app).accounts.by_name(name)
    assert account is not None
    with service_of(app).store.use() as session, session.begin():
        session.add(RatingRow(account_id=account.id, pool=pool, rating=rating, rd=80.0, volatility=0.06,
                              games=30, wins=15, losses=15, draws=0, played=datetime.now(UTC)))


# ---------------------------------------------------------------------- pairing through the API


def test_two_compatible_strangers_get_one_game_each_with_their_own_seat(app: TestClient) -> None:
    """The second entry pairs at once; the first learns it on its next poll: the same game, the other
    seat, its ticket now the seat's token in the seat cookie (it works on the game's socket)."""
    ann, bob = browser(app), browser(app)
    waiting = enter(ann, nickname="Ann")
    assert waiting["status"] == "waiting" and waiting["preset"] == "5+5" and waiting["range"] is None
    assert waiting["ai_offer_after"] == service_of(app).settings.pool_ai_offer
    ticket = ann.cookies.get(TICKET)
    assert ticket and entries(app)[0].ticket_hash == token_hash(ticket)
    paired = enter(bob, nickname="Bob")
    assert paired["status"] == "paired" and paired["url"] == f"/game/{paired['game']}"
    found = poll(ann)
    assert found["status"] == "paired" and found["game"] == paired["game"]
    assert {found["seat"], paired["seat"]} == {0, 1}
    assert ann.cookies.get(f"seat_{found['game']}") == ticket and ann.cookies.get(TICKET) is None
    assert poll(ann)["status"] == poll(bob)["status"] == "none"
    assert {row.game_id for row in entries(app)} == {found["game"]}
    row = game_row(app, found["game"])
    assert (row.mode, row.status, row.rated, row.rounds) == ("friend", "playing", False, 1)
    players = [row.player0, row.player1]
    assert players[found["seat"]] == "Ann" and players[paired["seat"]] == "Bob"
    assert [row.token_hash0, row.token_hash1][found["seat"]] == token_hash(ticket)
    assert row.clock_initial == 300 and row.clock_since is not None and row.deadline is not None
    for player, seat in ((ann, found["seat"]), (bob, paired["seat"])):
        with player.websocket_connect(socket_path(found["game"])) as ws:
            state = receive_state(ws)
            assert state["seat"] == seat and state["players"] == players and state["status"] == "playing"
            assert state["clock_running"] == state["view"]["turn"]


def test_a_lost_paired_answer_is_given_again_to_the_ticket_s_holder(app: TestClient) -> None:
    """The answer that hands Ann her seat is lost (its cookies never arrive): her next poll, with the
    ticket she still holds, says paired again with the same game and seat and sets the seat cookie;
    so does a cancel. Bob is not paired twice; a ticket nobody was given stays "none"."""
    ann, bob = browser(app), browser(app)
    enter(ann, nickname="Ann")
    ticket = ann.cookies.get(TICKET)
    paired = enter(bob, nickname="Bob")
    lost = ann.get("/api/play-now")
    assert lost.json()["status"] == "paired"
    ann.cookies.clear()
    ann.cookies.set(TICKET, ticket)
    again = poll(ann)
    assert (again["status"], again["game"], again["seat"]) == ("paired", paired["game"], 1 - paired["seat"])
    assert ann.cookies.get(f"seat_{again['game']}") == ticket
    assert ann.delete("/api/play-now").json()["game"] == paired["game"]
    with ann.websocket_connect(socket_path(again["game"])) as ws:
        assert receive_state(ws)["seat"] == again["seat"]
    stranger = browser(app)
    stranger.cookies.set(TICKET, "not a ticket anyone was given")
    assert poll(stranger)["status"] == "none"
    assert {row.game_id for row in entries(app)} == {paired["game"]} and poll(bob)["status"] == "none"


@pytest.mark.parametrize(("first", "second"), [
    ({"variant": "base"}, {"variant": "tactics"}),
    ({"clock": FIVE}, {"clock": THREE}),
    ({"clock": {"days": 1}}, {"clock": {"days": 3}}),
    ({"rated": True}, {"rated": False}),
], ids=["variant", "clock", "days", "rated"])
def test_incompatible_players_keep_waiting(app: TestClient, first: dict[str, Any],
                                           second: dict[str, Any]) -> None:
    """Another variant, another time control, rated against casual: nobody is paired."""
    ann, bob = browser(app, "ann"), browser(app, "bob")
    assert enter(ann, **first)["status"] == "waiting"
    assert enter(bob, **second)["status"] == "waiting"
    assert poll(ann)["status"] == poll(bob)["status"] == "waiting"
    assert all(row.game_id is None for row in entries(app))


def test_a_rated_range_widens_with_the_wait(app: TestClient, fake: FakeClock) -> None:
    """1500 and 1800 are 300 apart: beyond ±200 at first, within reach once both waited 10 s at ±10 per
    second (pair_range, pair_widen); the game is rated, between the two accounts."""
    settings = service_of(app).settings
    assert (settings.pair_range, settings.pair_widen) == (200, 10.0)
    ann, bob = browser(app, "ann"), browser(app, "bob")
    set_rating(app, "bob", 1800.0)
    first = enter(ann, rated=True)
    assert first["status"] == "waiting" and first["range"] == 200 and first["rated"] is True
    assert enter(bob, rated=True)["status"] == "waiting"
    fake.advance(9)
    assert poll(ann) | {"since": None} == first | {"waited": 9.0, "range": 290, "since": None}
    assert poll(bob)["status"] == "waiting"
    fake.advance(1)
    paired = poll(ann)
    assert paired["status"] == "paired"
    row = game_row(app, paired["game"])
    ids = [service_of(app).accounts.by_name(n) for n in ("ann", "bob")]
    assert row.rated and {row.account0, row.account1} == {ref.id for ref in ids if ref is not None}
    assert {row.player0, row.player1} == {"ann", "bob"}
    assert poll(bob)["game"] == paired["game"]


def test_casual_pools_ignore_ratings(app: TestClient) -> None:
    """Accounts 1000 points apart meet at once in a casual pool."""
    ann, bob = browser(app, "ann"), browser(app, "bob")
    set_rating(app, "bob", 2500.0)
    enter(ann)
    assert enter(bob)["status"] == "paired"


def test_the_longest_waiting_compatible_player_is_taken(app: TestClient, fake: FakeClock) -> None:
    """Two players too far apart to meet wait (1500, 1900); a newcomer within reach of both (1700) is
    paired with the one who came first."""
    first, second, newcomer = browser(app, "first"), browser(app, "second"), browser(app, "newcomer")
    set_rating(app, "second", 1900.0)
    set_rating(app, "newcomer", 1700.0)
    enter(first, rated=True)
    fake.advance(1)
    assert enter(second, rated=True)["status"] == "waiting"
    fake.advance(1)
    game = enter(newcomer, rated=True)["game"]
    assert poll(first)["game"] == game
    assert poll(second)["status"] == "waiting"


def test_cancel(app: TestClient) -> None:
    """Cancelling stops the waiting (no one is paired with it); with nothing to cancel it says so; too
    late, once paired, it gives the game."""
    ann, bob, cy = browser(app), browser(app), browser(app)
    enter(ann)
    cancelled = ann.delete("/api/play-now")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    assert ann.cookies.get(TICKET) is None and entries(app) == []
    assert ann.delete("/api/play-now").json()["status"] == "none"
    assert poll(ann)["status"] == "none"
    assert enter(bob)["status"] == "waiting"
    game = enter(cy)["game"]
    late = bob.delete("/api/play-now").json()
    assert late["status"] == "paired" and late["game"] == game and bob.cookies.get(f"seat_{game}")


def test_stale_entries_are_never_paired_and_are_dropped(app: TestClient, fake: FakeClock) -> None:
    """An entry not polled for pool_entry_ttl (its tab was closed) is not paired; it is dropped."""
    ann, bob = browser(app), browser(app)
    enter(ann)
    fake.advance(service_of(app).settings.pool_entry_ttl + 1)
    assert app.get("/api/play-now/pools").json()["waiting"] == 0
    assert enter(bob)["status"] == "waiting"
    assert [row.ticket_hash for row in entries(app)] == [token_hash(bob.cookies[TICKET])]
    assert poll(ann)["status"] == "none"


def test_polling_keeps_an_entry_alive(app: TestClient, fake: FakeClock) -> None:
    """Each poll counts as seen: a player polling for longer than the ttl is still paired."""
    ann, bob = browser(app), browser(app)
    enter(ann)
    ttl = service_of(app).settings.pool_entry_ttl
    for _ in range(3):
        fake.advance(ttl / 2)
        assert poll(ann)["status"] == "waiting"
    assert enter(bob)["status"] == "paired"


def test_an_account_waits_once_and_is_never_in_two_pairings(app: TestClient) -> None:
    """An account entering from a second browser (another session) replaces its first entry; it cannot
    meet itself."""
    laptop = browser(app, "ann")
    phone = TestClient(app.app, base_url=str(app.base_url))
    phone.portal = app.portal
    accounts = service_of(app).accounts
    ann = accounts.by_name("ann")
    assert ann is not None
    phone.cookies.set(SESSION_COOKIE, accounts.new_session(ann.id))
    enter(laptop)
    assert enter(phone)["status"] == "waiting"
    assert len(entries(app)) == 1 and poll(laptop)["status"] == "none"
    bob, cy = browser(app), browser(app)
    game = enter(bob)["game"]
    assert poll(phone)["game"] == game
    assert enter(cy)["status"] == "waiting"


def test_a_guest_entering_again_replaces_its_entry(app: TestClient) -> None:
    """Pressing Play now again from the same browser leaves the first pool (a new ticket)."""
    ann = browser(app)
    enter(ann, clock=FIVE)
    old = ann.cookies[TICKET]
    enter(ann, clock=THREE)
    assert ann.cookies[TICKET] != old and len(entries(app)) == 1
    assert entries(app)[0].clock_initial == 180


def test_a_press_while_paired_answers_the_game_until_it_is_over(app: TestClient, fake: FakeClock) -> None:
    """Pressed again once paired (a second tab, a twin request late), Play now answers the same game and
    seat, never a second entry; once that game is over, or the entry stale, it enters anew."""
    ann, bob = browser(app), browser(app)
    enter(ann)
    game = enter(bob)["game"]
    first = poll(ann)
    again = enter(ann, nickname="Ann")
    assert (again["status"], again["game"], again["seat"]) == ("paired", game, first["seat"])
    assert ann.cookies.get(f"seat_{game}") and ann.cookies.get(TICKET) is None
    assert enter(bob, clock=THREE)["game"] == game and len(entries(app)) == 2
    with service_of(app).store.use() as session, session.begin():
        session.get(GameRow, game).status = "over"  # type: ignore[union-attr]
    assert enter(ann)["status"] == "waiting"
    fake.advance(service_of(app).settings.pool_entry_ttl + 1)
    assert enter(bob)["status"] == "waiting" and len(entries(app)) == 1


def test_two_tabs_of_one_browser_share_one_entry(app: TestClient) -> None:
    """A second press into the same pool from the same browser (its ticket cookie gone, as in a second
    tab that pressed at once) is the same entry and ticket: both tabs learn the one game."""
    ann = browser(app)
    enter(ann)
    ticket = ann.cookies[TICKET]
    ann.cookies.delete(TICKET)
    assert enter(ann)["status"] == "waiting" and ann.cookies[TICKET] == ticket
    assert len(entries(app)) == 1
    account = browser(app, "cyd")
    enter(account, clock=THREE)
    ticket = account.cookies[TICKET]
    tab = TestClient(app.app, base_url=str(app.base_url))
    tab.portal = app.portal
    tab.cookies.set(SESSION_COOKIE, account.cookies[SESSION_COOKIE])
    assert enter(tab, clock=THREE)["status"] == "waiting" and tab.cookies[TICKET] == ticket
    assert len(entries(app)) == 2
    game = enter(browser(app), clock=THREE)["game"]
    assert poll(account)["game"] == poll(tab)["game"] == game


def test_a_guest_without_its_browser_cookie_is_told_so(app: TestClient) -> None:
    """A guest's entry without the pool_browser cookie: 409 with a sentence, the cookie given, nothing
    stored; sent again, it waits. Two such presses at once can then never be two entries."""
    ann = TestClient(app.app, base_url=str(app.base_url))
    ann.portal = app.portal
    refused = ann.post("/api/play-now", json={"clock": FIVE, "nickname": "Ann"})
    assert refused.status_code == 409 and "pool_browser cookie" in refused.json()["error"]
    assert ann.cookies.get(BROWSER) and entries(app) == []
    assert enter(ann)["status"] == "waiting"


def test_guests_are_refused_rated_games(app: TestClient) -> None:
    """Rated needs an account: 403, nothing stored."""
    response = browser(app).post("/api/play-now", json={"clock": FIVE, "rated": True, "nickname": "Ann"})
    assert response.status_code == 403
    assert response.json() == {"error": "log in to play rated games; guests play casual games"}
    assert entries(app) == []


def test_a_preset_by_name_is_the_same_pool_as_its_clock(app: TestClient) -> None:
    """The page names the preset ("3+2"); a script may give its clock: both wait in one pool."""
    by_name = browser(app).post("/api/play-now", json={"preset": "3+2", "nickname": "Ann"})
    assert by_name.status_code == 200 and by_name.json()["status"] == "waiting"
    assert enter(browser(app), THREE, nickname="Bob")["status"] == "paired"


@pytest.mark.parametrize(("body", "says"), [
    ({"nickname": "Ann"}, '"clock"'),
    ({"clock": {"initial": 240, "increment": 0}, "nickname": "Ann"}, "these time controls only"),
    ({"clock": {"days": 1, "initial": 60}, "nickname": "Ann"}, "not both"),
    ({"clock": FIVE, "variant": "chess", "nickname": "Ann"}, "variant"),
    ({"clock": FIVE, "nickname": ""}, "1 to 24 characters"),
    ({"clock": FIVE, "rated": "yes", "nickname": "Ann"}, "rated"),
    ({"clock": FIVE}, "nickname"),
    ({"preset": "4+0", "nickname": "Ann"}, "these time controls only"),
    ({"preset": "5+5", "clock": FIVE, "nickname": "Ann"}, '"preset" (its name) or as "clock"'),
], ids=["no-clock", "not-a-preset", "both-kinds", "variant", "empty-nickname", "rated", "guest-no-name",
        "unknown-preset", "preset-and-clock"])
def test_bad_bodies_are_refused(app: TestClient, body: dict[str, Any], says: str) -> None:
    """422 with a sentence naming the problem; nothing stored."""
    response = browser(app).post("/api/play-now", json=body)
    assert response.status_code == 422, response.text
    assert says in response.json()["error"]
    assert entries(app) == []


def test_a_foreign_origin_is_refused(app: TestClient) -> None:
    """A page of another site cannot make a browser enter or leave a pool."""
    ann = browser(app)
    headers = {"Origin": "https://elsewhere.example"}
    refused = ann.post("/api/play-now", json={"clock": FIVE, "nickname": "Ann"}, headers=headers)
    assert refused.status_code == 403
    assert entries(app) == []
    enter(ann)
    assert ann.delete("/api/play-now", headers=headers).status_code == 403
    assert poll(ann)["status"] == "waiting"


def test_entering_is_rate_limited_per_address(tmp_path: Path, fake: FakeClock) -> None:
    """Beyond tables_rate entries from one address: 429 with Retry-After."""
    with app_at(test_settings(tmp_path, tables_rate="2/minute"), fake) as app:
        ann = browser(app)
        enter(ann)
        enter(ann)
        refused = ann.post("/api/play-now", json={"clock": FIVE, "nickname": "Ann"})
        assert refused.status_code == 429 and refused.headers["retry-after"]
        assert "entries into Play now" in refused.json()["error"]


def test_the_pools_and_the_players_online(app: TestClient) -> None:
    """How many wait in each pool, and online: the waiting entries plus the seats with a socket open."""
    assert app.get("/api/play-now/pools").json() == {"pools": [], "waiting": 0, "online": 0}
    ann, bob, cy = browser(app), browser(app), browser(app)
    enter(ann)
    enter(bob, variant="tactics", clock={"days": 3})
    game = enter(cy)["game"]
    with cy.websocket_connect(socket_path(game)) as ws:
        receive_state(ws)
        answer = app.get("/api/play-now/pools").json()
    assert answer == {"pools": [{"variant": "tactics", "preset": "3d", "clock": {"days": 3}, "rated": False,
                                 "waiting": 1}], "waiting": 1, "online": 2}


def test_a_player_alone_is_offered_the_pool_where_someone_waits(app: TestClient) -> None:
    """Ann waits in 3+2, Bob in 5+5: each is offered the other's pool, as a count only; other variants
    and turn-based pools are not offered to a real-time wait. Taking the offer pairs them."""
    ann, bob = browser(app), browser(app)
    assert enter(ann, THREE)["offer"] is None
    enter(browser(app), variant="tactics")
    enter(browser(app), {"days": 1})
    offered = enter(bob)["offer"]
    assert offered == {"variant": "base", "preset": "3+2", "clock": THREE, "rated": False, "waiting": 1}
    assert poll(ann)["offer"] == offered | {"preset": "5+5", "clock": FIVE}
    assert enter(ann, FIVE)["game"] == poll(bob)["game"]


def test_no_pool_is_offered_to_a_player_who_is_not_alone(app: TestClient, fake: FakeClock) -> None:
    """Two rated players too far apart to meet wait in 5+5: they are not alone, nothing is offered,
    though someone waits in 3+2."""
    ann, bob, cy = browser(app, "ann"), browser(app, "bob"), browser(app, "cyd")
    set_rating(app, "bob", 2500.0)
    enter(cy, THREE, rated=True)
    assert enter(ann, rated=True)["offer"]["preset"] == "3+2"
    assert enter(bob, rated=True)["offer"] is None
    assert poll(ann)["offer"] is None


# ---------------------------------------------------------------------- exactly once, under threads


def _pairing(url: str) -> tuple[Pairing, Store]:
    """A ``Pairing`` on its own store at ``url`` (no app): the real time, random seeds."""
    store = Store(url)
    store.create_schema()
    host = SimpleNamespace(settings=WebSettings(), store=store, now=lambda: datetime.now(UTC),
                           new_seed=lambda: secrets.randbits(63))
    return Pairing(host), store  # type: ignore[arg-type]


def _entry(browser: str, nickname: str, ticket_hash: str | None = None) -> Entry:
    """A casual 5+5 entry of ``browser`` with the ticket hash given, or a new one."""
    ticket = ticket_hash or token_hash(secrets.token_urlsafe(24))
    return Entry(ticket, "salt", browser, "base", PRESETS["5+5"], False, None, nickname)


def _check_one_entry_per_browser(url: str, browsers: int = 10, presses: int = 4) -> None:
    """Each of ``browsers`` entering ``presses`` times at once on 8 threads: one row per browser, and
    every press of a browser is answered with that row."""
    pairing, store = _pairing(url)
    try:
        names = [token_hash(f"browser {number}") for number in range(browsers)]
        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(lambda name: Entries(pairing).enter(_entry(name, name[:8])),
                                    [name for name in names for _ in range(presses)]))
        with store.use() as session:
            rows = {row.browser_hash: row.ticket_hash for row in session.scalars(select(PoolEntryRow))}
        assert sorted(rows) == sorted(names)
        assert all(answer.ticket_hash == rows[answer.browser or ""] for answer in answers)
    finally:
        store.close()


def test_presses_at_once_make_one_row_per_browser_on_sqlite(tmp_path: Path) -> None:
    """Threads entering for the same browsers at once on a SQLite file: the unique key holds."""
    _check_one_entry_per_browser(f"sqlite:///{tmp_path / 'pool.db'}")


def test_presses_at_once_make_one_row_per_browser_on_postgres(database_url: str) -> None:  # noqa: F811
    """The same on PostgreSQL: a second insert waits for the first, breaks the key, finds its row."""
    _check_one_entry_per_browser(database_url)


def _check_paired_once(url: str, count: int = 40) -> None:
    """``count`` entries of one pool, each paired from its own call on 8 threads at once: every entry is
    in one game at most, every game holds two distinct entries marked with it, at most one is left."""
    pairing, store = _pairing(url)
    try:
        hashes = [token_hash(secrets.token_urlsafe(24)) for _ in range(count)]
        for number, hashed in enumerate(hashes):
            Entries(pairing).enter(_entry(hashed, f"p{number}", hashed))
        order = random.Random(15).sample(hashes, len(hashes))
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(pairing.pair, order))
        with store.use() as session:
            rows = session.scalars(select(PoolEntryRow))
            marked = {row.ticket_hash: (row.game_id, row.seat) for row in rows}
            games = list(session.scalars(select(GameRow)))
        seats = {(row.id, seat): hashed for row in games
                 for seat, hashed in enumerate((row.token_hash0, row.token_hash1))}
        assert sorted(seats.values()) == sorted(h for h, (game, _) in marked.items() if game is not None)
        assert len(set(seats.values())) == 2 * len(games)
        assert all(marked[hashed] == key for key, hashed in seats.items())
        assert sum(game is None for game, _ in marked.values()) <= 1
    finally:
        store.close()


def test_concurrent_entries_are_paired_exactly_once_on_sqlite(tmp_path: Path) -> None:
    """Many threads pairing at once on a SQLite file: one writer at a time, each entry once."""
    _check_paired_once(f"sqlite:///{tmp_path / 'pool.db'}")


def test_concurrent_entries_are_paired_exactly_once_on_postgres(database_url: str) -> None:  # noqa: F811
    """The same on PostgreSQL: the conditional update re-checks rows another pairing locked."""
    _check_paired_once(database_url)


# ---------------------------------------------------------------------- one browser, one entry


@pytest.fixture(params=[("sqlite", 1), ("postgres", 1), ("postgres", 2)],
                ids=["sqlite", "postgres", "two-processes"])
def servers(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[list[str], str]]:
    """Real servers on one database (SQLite: one process; PostgreSQL: one, or two with Redis):
    their addresses and the database's URL."""
    kind, processes = request.param
    url = (f"sqlite:///{tmp_path / 'crowd.db'}" if kind == "sqlite"
           else request.getfixturevalue("database_url"))
    with Cluster(tmp_path / "cluster", redis=processes > 1, database_url=url) as cluster:
        cluster.start(processes)
        yield cluster.server_urls, url


def test_presses_at_once_from_one_browser_are_one_entry(servers: tuple[list[str], str]) -> None:
    """20 guests, each sending two entries at the same moment (to two processes when there are two):
    every browser sits in one game, never facing itself; every answer is JSON, none a 500."""
    urls, url = servers
    crowd = press_at_once(urls, url, browsers=20)
    seated = (crowd.games, crowd.self_paired, crowd.double_seated, crowd.unpaired, crowd.failures)
    assert seated == (10, 0, 0, 0, 0), crowd.figures()


def test_presses_at_once_from_one_account_are_one_entry(servers: tuple[list[str], str]) -> None:
    """Accounts sending three rated entries at once: each account in one rated game."""
    urls, url = servers
    crowd = press_at_once(urls, url, browsers=8, presses=3, rated=True, account=True)
    seated = (crowd.games, crowd.self_paired, crowd.double_seated, crowd.unpaired, crowd.failures)
    assert seated == (4, 0, 0, 0, 0), crowd.figures()
