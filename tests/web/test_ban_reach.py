"""A moderator's ban reaches everywhere a player meets strangers (issue 29, docs/web/moderation.md,
"What a ban reaches"): the leaderboard, the Play now pool, arena and Swiss tournaments (withdrawn,
never paired again, the opponent's win counted), and challenges (cancelled both ways and heard on the
other's ``/ws/me``; a new one refused as to an unknown name; an acceptance refused). Each test runs on
SQLite and on PostgreSQL (when ``SCHOTTEN_TEST_POSTGRES_URL`` is set, see test_postgres).

Games end through the games layer's own endings and the ban through ``POST /api/moderation/actions``:
the test never writes a tournament or challenge row itself."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from helpers_community import player, url  # noqa: F401  (a fixture)
from helpers_web import FakeClock, app_at, service_of, test_settings
from sqlalchemy import select, update
from starlette.testclient import TestClient
from test_postgres import database_url, server_url  # noqa: F401  (fixtures)

from schotten.web.moderation.roles import set_moderator
from schotten.web.storage.db import AccountRow, GameRow, PoolEntryRow, RatingRow, TournamentGameRow

FIVE = {"initial": 300, "increment": 5}
ARENA = {"format": "arena", "name": "Tonight", "variant": "base", "clock": {"initial": 600, "increment": 10},
         "rated": False, "starts_in": 0, "minutes": 60}
SWISS = ARENA | {"format": "swiss", "minutes": None, "rounds": 3}


@pytest.fixture
def app(tmp_path: Path, url: str) -> Iterator[TestClient]:  # noqa: F811 (the fixture)
    """An app on the test's database and an injected clock, its tournament director driven by the test."""
    settings = test_settings(tmp_path, database_url=url, tournaments_director=False)
    with app_at(settings, FakeClock()) as client:
        yield client


def moderator(app: TestClient) -> TestClient:
    """A browser signed in as "Moder", granted the role (as ``schotten moderators add`` does)."""
    browser = player(app, "Moder")
    set_moderator(service_of(app).store, "Moder", True)
    return browser


def ban(mod: TestClient, name: str) -> None:
    """The moderator bans ``name`` through the API."""
    taken = mod.post("/api/moderation/actions", json={"player": name, "action": "ban", "note": "cheating"})
    assert taken.status_code == 200, taken.text


def account_id(app: TestClient, name: str) -> int:
    """The id of the account ``name``."""
    found = service_of(app).accounts.by_name(name)
    assert found is not None
    return found.id


# ---------------------------------------------------------------------- leaderboard and Play now


def test_a_banned_player_leaves_the_leaderboard(app: TestClient) -> None:
    """Two established players are on the board; once one is banned, only the other is."""
    mod = moderator(app)
    now = service_of(app).authority.now()
    for name, rating in (("Ann", 1700.0), ("Bob", 1800.0)):
        player(app, name)
        with service_of(app).store.use() as session, session.begin():
            session.add(RatingRow(account_id=account_id(app, name), pool="base.realtime", rating=rating,
                                  rd=60.0, volatility=0.06, games=30, wins=15, losses=15, draws=0,
                                  played=now))

    def board() -> list[str]:
        answer = app.get("/api/leaderboard?pool=base.realtime")
        assert answer.status_code == 200, answer.text
        return [entry["username"] for entry in answer.json()["players"]]

    assert board() == ["Bob", "Ann"]
    ban(mod, "Bob")
    assert board() == ["Ann"]


def enter(browser: TestClient) -> dict[str, Any]:
    """Press Play now (base, 5+5, casual) from a browser that opened the lobby: the answer."""
    assert browser.get("/api/play-now").status_code == 200
    answer = browser.post("/api/play-now", json={"variant": "base", "clock": FIVE, "rated": False})
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def test_a_banned_player_leaves_the_play_now_pool_and_is_not_paired(app: TestClient) -> None:
    """Bob waits in 5+5; banned, the pools count him no more, and Ann entering 5+5 waits alone."""
    mod, bob, ann = moderator(app), player(app, "Bob"), player(app, "Ann")
    assert enter(bob)["status"] == "waiting"
    assert app.get("/api/play-now/pools").json()["waiting"] == 1
    ban(mod, "Bob")
    assert app.get("/api/play-now/pools").json() == {"pools": [], "waiting": 0, "online": 0}
    answer = enter(ann)
    assert answer["status"] == "waiting" and answer["game"] is None
    with service_of(app).store.use() as session:
        waiting = session.scalars(select(PoolEntryRow.account_id)).all()
    assert waiting == [account_id(app, "Ann")]


# ---------------------------------------------------------------------- tournaments


def tournament(app: TestClient, *names: str, **shape: Any) -> int:
    """A tournament (``ARENA`` changed by ``shape``) created by "Host", joined by ``names``, started."""
    host = player(app, "Host")
    made = host.post("/api/tournaments", json=ARENA | shape)
    assert made.status_code == 201, made.text
    tid: int = made.json()["id"]
    for name in names:
        joined = player(app, name).post(f"/api/tournaments/{tid}/join")
        assert joined.status_code == 200, joined.text
    assert service_of(app).tournaments.director.run_once() == []  # the start
    return tid


def standings(app: TestClient, tid: int) -> dict[str, dict[str, Any]]:
    """The tournament's standings by player."""
    view = app.get(f"/api/tournaments/{tid}").json()
    return {row["player"]: row for row in view["standings"]}


def seated(app: TestClient, game_id: str) -> list[int]:
    """The accounts at a game's two seats."""
    with service_of(app).store.use() as session:
        row = session.get(GameRow, game_id)
        assert row is not None and row.account0 is not None and row.account1 is not None
        return [row.account0, row.account1]


def resign(app: TestClient, game_id: str, seat: int) -> None:
    """``seat`` resigns ``game_id`` through the games layer."""
    authority = service_of(app).authority
    game = app.portal.call(authority.tables.live, game_id)
    assert game is not None
    app.portal.call(authority.endings.resign, game, seat)


def test_a_banned_waiting_arena_player_is_not_paired_and_shows_withdrawn(app: TestClient) -> None:
    """Four wait; Bob is banned before the wave: it pairs one game of the three others, Bob in none."""
    mod = moderator(app)
    tid = tournament(app, "Ann", "Bob", "Cyd", "Dee")
    ban(mod, "Bob")
    director = service_of(app).tournaments.director
    made = director.run_once()
    assert len(made) == 1
    assert account_id(app, "Bob") not in seated(app, made[0])
    assert standings(app, tid)["Bob"]["status"] == "withdrawn"
    assert director.run_once() == []


def test_a_banned_arena_player_s_game_ends_and_the_opponent_s_win_counts(app: TestClient) -> None:
    """Ann and Bob play; Bob's ban ends the game (``banned``): Ann scores the win and waits again, Bob
    is withdrawn; Cyd joins and the next wave pairs Ann with Cyd, never Bob."""
    mod = moderator(app)
    tid = tournament(app, "Ann", "Bob")
    director = service_of(app).tournaments.director
    [game] = director.run_once()
    ban(mod, "Bob")
    with service_of(app).store.use() as session:
        assert session.scalar(select(GameRow.ended).where(GameRow.id == game)) == "banned"
    table = standings(app, tid)
    assert (table["Ann"]["score"], table["Ann"]["status"]) == (2, "waiting")
    assert (table["Bob"]["score"], table["Bob"]["status"]) == (0, "withdrawn")
    assert player(app, "Cyd").post(f"/api/tournaments/{tid}/join").status_code == 200
    [second] = director.run_once()
    assert sorted(seated(app, second)) == sorted([account_id(app, "Ann"), account_id(app, "Cyd")])


def test_a_game_ended_banned_never_puts_its_banned_player_back_to_waiting(app: TestClient) -> None:
    """The ending alone (as a ban on another path ends a game): the loser is withdrawn, not waiting."""
    tid = tournament(app, "Ann", "Bob")
    [game] = service_of(app).tournaments.director.run_once()
    bob_seat = seated(app, game).index(account_id(app, "Bob"))
    assert app.portal.call(service_of(app).authority.endings.forfeit_banned, game, bob_seat) is True
    table = standings(app, tid)
    assert table["Bob"]["status"] == "withdrawn" and table["Ann"]["status"] == "waiting"
    assert table["Ann"]["score"] == 2


def test_a_banned_swiss_player_is_not_paired_next_round_and_keeps_their_results(app: TestClient) -> None:
    """Round 1 of four is played; Bob is banned: round 2 pairs the three others (a game and a bye),
    and Bob's round-1 result stays in the standings, withdrawn."""
    mod = moderator(app)
    tid = tournament(app, "Ann", "Bob", "Cyd", "Dee", **SWISS)
    director = service_of(app).tournaments.director
    first = director.run_once()
    assert len(first) == 2
    bob = account_id(app, "Bob")
    for game in first:
        seats = seated(app, game)
        resign(app, game, 1 - seats.index(bob) if bob in seats else 0)
    bob_score = standings(app, tid)["Bob"]["score"]
    assert bob_score == 1
    ban(mod, "Bob")
    second = director.run_once()
    assert len(second) == 1 and bob not in seated(app, second[0])
    with service_of(app).store.use() as session:
        round_two = session.scalars(select(TournamentGameRow).where(TournamentGameRow.tournament_id == tid,
                                                                    TournamentGameRow.round == 2)).all()
    assert all(bob not in (row.account0, row.account1) for row in round_two) and len(round_two) == 2
    table = standings(app, tid)
    assert table["Bob"]["withdrawn"] is True and table["Bob"]["score"] == bob_score


def test_a_ban_withdraws_from_one_not_started_and_leaves_a_finished_one_alone(app: TestClient) -> None:
    """An arena not started yet lists Bob withdrawn; a finished arena keeps him as he ended."""
    mod = moderator(app)
    done = tournament(app, "Ann", "Bob", minutes=5)
    clock = service_of(app).authority.now
    assert isinstance(clock, FakeClock)
    clock.advance(timedelta(minutes=6).total_seconds())
    service_of(app).tournaments.director.run_once()
    assert app.get(f"/api/tournaments/{done}").json()["status"] == "finished"
    later = player(app, "Host2").post("/api/tournaments", json=ARENA | {"starts_in": 3600})
    assert later.status_code == 201, later.text
    upcoming = later.json()["id"]
    assert player(app, "Bob2").post(f"/api/tournaments/{upcoming}/join").status_code == 200
    before = standings(app, done)["Bob"]["status"]
    ban(mod, "Bob2")
    ban(mod, "Bob")
    assert standings(app, upcoming)["Bob2"]["status"] == "withdrawn"
    assert standings(app, done)["Bob"]["status"] == before


# ---------------------------------------------------------------------- challenges


def notice(ws: Any, kind: str) -> dict[str, Any]:
    """The next message of a player socket, which must be of ``kind``: its challenge."""
    message = ws.receive_json()
    assert message["type"] == kind, message
    found: dict[str, Any] = message["challenge"]
    return found


def challenge(browser: TestClient, name: str) -> dict[str, Any]:
    """Challenge ``name`` (5+5): the challenge, which must be sent."""
    sent = browser.post("/api/challenges", json={"player": name, "clock": FIVE})
    assert sent.status_code == 201, sent.text
    found: dict[str, Any] = sent.json()
    return found


def test_a_ban_cancels_the_banned_player_s_challenges_both_ways(app: TestClient) -> None:
    """Ann challenged Bob, Bob challenged Cyd: once Bob is banned both are cancelled, and Ann and Cyd
    each hear it on their own socket, as on a cancel (before the challenges they send each other
    next, so a notice missing fails the test rather than waits)."""
    mod, ann, bob, cyd = moderator(app), player(app, "Ann"), player(app, "Bob"), player(app, "Cyd")
    to_bob, from_bob = challenge(ann, "Bob"), challenge(bob, "Cyd")
    with ann.websocket_connect("/ws/me") as ann_ws, cyd.websocket_connect("/ws/me") as cyd_ws:
        assert ann_ws.receive_json()["type"] == "hello" and cyd_ws.receive_json()["type"] == "hello"
        ban(mod, "Bob")
        challenge(ann, "Cyd")
        challenge(cyd, "Ann")
        heard_by_ann = notice(ann_ws, "challenge_cancelled")
        heard_by_cyd = notice(cyd_ws, "challenge_cancelled")
    assert (heard_by_ann["id"], heard_by_ann["state"]) == (to_bob["id"], "cancelled")
    assert (heard_by_cyd["id"], heard_by_cyd["state"]) == (from_bob["id"], "cancelled")
    states = {c["id"]: c["state"] for c in ann.get("/api/challenges").json()["outgoing"]}
    assert states[to_bob["id"]] == "cancelled" and sorted(states.values()) == ["cancelled", "pending"]
    states = {c["id"]: c["state"] for c in cyd.get("/api/challenges").json()["incoming"]}
    assert states[from_bob["id"]] == "cancelled" and sorted(states.values()) == ["cancelled", "pending"]
    assert cyd.post(f"/api/challenges/{from_bob['id']}/accept").status_code == 409


def test_a_challenge_to_a_banned_player_is_refused_as_to_an_unknown_name(app: TestClient) -> None:
    """The same 404 and sentence as for a name nobody has: the ban is not told."""
    mod, ann = moderator(app), player(app, "Ann")
    player(app, "Bob")
    ban(mod, "Bob")
    banned = ann.post("/api/challenges", json={"player": "Bob", "clock": FIVE})
    unknown = ann.post("/api/challenges", json={"player": "Zed", "clock": FIVE})
    assert banned.status_code == unknown.status_code == 404
    assert banned.json()["error"] == unknown.json()["error"].replace("'Zed'", "'Bob'")
    assert ann.get("/api/challenges").json()["outgoing"] == []


def test_a_challenge_left_pending_with_a_banned_player_cannot_be_accepted(app: TestClient) -> None:
    """A challenge still pending when its challenger is banned (as a ban stored on another path would
    leave it) is refused with a sentence, and no game is made."""
    ann, bob = player(app, "Ann"), player(app, "Bob")
    sent = challenge(ann, "Bob")
    now = service_of(app).authority.now()
    with service_of(app).store.use() as session, session.begin():
        session.execute(update(AccountRow).where(AccountRow.username == "Ann").values(banned=now))
    refused = bob.post(f"/api/challenges/{sent['id']}/accept")
    assert refused.status_code == 409 and "can no longer be accepted" in refused.json()["error"]
    with service_of(app).store.use() as session:
        assert session.scalars(select(GameRow.id)).all() == []
