"""Tournaments end to end on one process: the API and its refusals, a 60-minute arena of 16 players
run in seconds on an injected clock, a Swiss of 9 players over 3 rounds, and two directors racing on
one database (SQLite, and PostgreSQL when ``SCHOTTEN_TEST_POSTGRES_URL`` is set).

Games end through the games layer's own endings (``Endings.resign`` under the game's lock), so
results reach the tournament the way a player's resignation does: never written by the test.
"""

from __future__ import annotations

import random
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from helpers_web import FakeClock, app_at, log_of, service_of, test_settings
from sqlalchemy import select
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from test_postgres import database_url, server_url  # noqa: F401  (fixtures)

from schotten.engine import ACTIONS
from schotten.web.core.messages import ActionMessage
from schotten.web.players.accounts import AccountRef
from schotten.web.players.identity import SESSION_COOKIE
from schotten.web.players.seats import seat_of_token
from schotten.web.service import GameService
from schotten.web.storage.db import TournamentGameRow, TournamentRow
from schotten.web.storage.store import Store
from schotten.web.tournaments.channel import NOT_FOUND_CLOSE, STANDINGS_EVERY
from schotten.web.tournaments.director import Director
from schotten.web.tournaments.scoring import ArenaResult, Outcome, arena_standings
from schotten.web.tournaments.standings import standings
from schotten.web.tournaments.swiss import Played

CLOCK = {"initial": 600, "increment": 10}
ARENA = {"format": "arena", "name": "Tonight", "variant": "base", "clock": CLOCK, "rated": False,
         "starts_in": 0, "minutes": 60}


@contextmanager
def tournament_app(tmp_path: Path, **changes: Any) -> Iterator[tuple[TestClient, FakeClock]]:
    """An app on an injected clock whose director the test drives (``run_once``)."""
    clock = FakeClock()
    with app_at(test_settings(tmp_path, tournaments_director=False, **changes), clock) as client:
        yield client, clock


def account(client: TestClient, name: str) -> AccountRef:
    """An account of ``name`` (signed up behind the API)."""
    accounts = service_of(client).accounts
    found: AccountRef = accounts.by_name(name) or accounts.sign_up(name, "correct horse battery")
    return found


def log_in(client: TestClient, name: str) -> AccountRef:
    """Give the client the session cookie of ``name`` (and no other cookie)."""
    found = account(client, name)
    client.cookies.clear()
    client.cookies.set(SESSION_COOKIE, service_of(client).accounts.new_session(found.id))
    return found


def created(client: TestClient, **body: Any) -> int:
    """POST a tournament (``ARENA`` changed by ``body``); its id."""
    response = client.post("/api/tournaments", json=ARENA | body)
    assert response.status_code == 201, response.text
    number: int = response.json()["id"]
    return number


def resign(client: TestClient, game_id: str, seat: int) -> None:
    """``seat`` resigns ``game_id`` through the games layer."""
    authority = service_of(client).authority
    game = client.portal.call(authority.tables.live, game_id)
    assert game is not None
    client.portal.call(authority.endings.resign, game, seat)


def rows(service: GameService, tournament_id: int) -> list[TournamentGameRow]:
    """The tournament's games (and byes) as stored."""
    with service.store.use() as session:
        query = select(TournamentGameRow).where(TournamentGameRow.tournament_id == tournament_id)
        return list(session.scalars(query.order_by(TournamentGameRow.id)))


def running_per_player(service: GameService, tournament_id: int) -> dict[int, int]:
    """How many games each player has being played."""
    counts: dict[int, int] = defaultdict(int)
    for row in rows(service, tournament_id):
        if row.ended is None and row.account1 is not None:
            counts[row.account0] += 1
            counts[row.account1] += 1
    return counts


# ------------------------------------------------------------------ the API


def test_creating_is_for_accounts_and_bad_bodies_are_refused_with_a_sentence(tmp_path: Path) -> None:
    with tournament_app(tmp_path) as (client, _clock):
        guest = client.post("/api/tournaments", json=ARENA)
        assert guest.status_code == 401 and "log in" in guest.json()["error"]
        log_in(client, "Ann")
        for body, said in ((ARENA | {"minutes": None}, "minutes"), (ARENA | {"rounds": 3}, "rounds"),
                           (ARENA | {"starts_at": "2026-12-01T13:00:00+00:00"}, "starts_in"),
                           (ARENA | {"clock": {"days": 2}}, "turn-based"),
                           ({"format": "swiss", "name": "S", "clock": CLOCK, "starts_in": 0}, "rounds"),
                           (ARENA | {"format": "knockout"}, "format"), (ARENA | {"name": "  "}, "name"),
                           (ARENA | {"starts_in": -5}, "starts_in")):
            refused = client.post("/api/tournaments", json=body)
            assert refused.status_code == 400, (body, refused.text)
            assert said in refused.json()["error"], refused.json()
        past = client.post("/api/tournaments", json=ARENA | {"starts_in": None,
                                                             "starts_at": "2020-01-01T00:00:00+00:00"})
        assert past.status_code == 400 and "past" in past.json()["error"]
        assert client.get("/api/tournaments").json()["tournaments"] == []


def test_join_withdraw_pause_cancel_and_their_refusals(tmp_path: Path) -> None:
    with tournament_app(tmp_path) as (client, _clock):
        ann = log_in(client, "Ann")
        arena = created(client, starts_in=3600)
        swiss = created(client, format="swiss", minutes=None, rounds=3, starts_in=3600)
        listed = client.get("/api/tournaments").json()["tournaments"]
        assert [t["id"] for t in listed] == [arena, swiss] and listed[0]["status"] == "created"
        assert client.post(f"/api/tournaments/{arena}/join").json() == {"status": "waiting"}
        view = client.get(f"/api/tournaments/{arena}").json()
        assert view["you"] == {"status": "waiting"} and view["standings"][0]["player"] == "Ann"
        assert client.post(f"/api/tournaments/{swiss}/pause").status_code == 409
        log_in(client, "Bob")
        assert client.post(f"/api/tournaments/{arena}/cancel").status_code == 403
        assert client.get(f"/api/tournaments/{arena}").json()["you"] is None
        assert client.post(f"/api/tournaments/{arena}/withdraw").status_code == 409
        client.cookies.clear()
        assert client.post(f"/api/tournaments/{arena}/join").status_code == 401
        assert client.get("/api/tournaments/999").status_code == 404
        assert client.get("/api/tournaments/nope").status_code == 422
        log_in(client, ann.username)
        assert client.post(f"/api/tournaments/{arena}/pause").json() == {"status": "paused"}
        assert client.post(f"/api/tournaments/{arena}/join").json() == {"status": "waiting"}
        assert client.post(f"/api/tournaments/{arena}/withdraw").json() == {"status": "withdrawn"}
        assert client.get(f"/api/tournaments/{arena}").json()["standings"] == []
        assert client.post(f"/api/tournaments/{arena}/cancel").json() == {"status": "cancelled"}
        assert client.post(f"/api/tournaments/{arena}/join").status_code == 409
        assert client.post(f"/api/tournaments/{arena}/cancel").status_code == 409
        assert client.post(f"/api/tournaments/{arena}/berserk").status_code == 409


def test_the_view_tells_its_reader_whether_they_created_the_tournament(tmp_path: Path) -> None:
    """``created_by_you``: true for the creator only (the page offers Cancel on it), false for another
    account and a guest; once cancelled the view says so."""
    with tournament_app(tmp_path) as (client, _clock):
        log_in(client, "Ann")
        tid = created(client, starts_in=3600)
        assert client.get(f"/api/tournaments/{tid}").json()["created_by_you"] is True
        log_in(client, "Bob")
        assert client.get(f"/api/tournaments/{tid}").json()["created_by_you"] is False
        client.cookies.clear()
        assert client.get(f"/api/tournaments/{tid}").json()["created_by_you"] is False
        log_in(client, "Ann")
        assert client.post(f"/api/tournaments/{tid}/cancel").json() == {"status": "cancelled"}
        view = client.get(f"/api/tournaments/{tid}").json()
        assert view["status"] == "cancelled" and view["created_by_you"] is True


def test_a_swiss_with_days_per_move_starts_at_its_time_and_plays_its_rounds_on_that_clock(
        tmp_path: Path) -> None:
    """A Swiss of four with 3 days per move, starting at a local time given with its offset: not
    started before that moment; then round 1 pairs two games, each on a 3-day turn-based clock."""
    with tournament_app(tmp_path) as (client, clock):
        service = service_of(client)
        log_in(client, "Host")
        at = (clock() + timedelta(minutes=30)).astimezone(timezone(timedelta(hours=2)))
        tid = created(client, format="swiss", minutes=None, rounds=2, clock={"days": 3}, rated=True,
                      starts_in=None, starts_at=at.isoformat(), min_rating=0)
        view = client.get(f"/api/tournaments/{tid}").json()
        assert view["clock"] == {"days": 3} and view["min_rating"] == 0 and view["rated"] is True
        assert datetime.fromisoformat(view["starts_at"]) == at
        for name in ("ann", "bob", "cid", "dee"):
            client.portal.call(service.tournaments.join, tid, account(client, name))
        director = service.tournaments.director
        assert director.run_once() == []
        assert client.get(f"/api/tournaments/{tid}").json()["status"] == "created", "not before its time"
        clock.advance(30 * 60)
        assert director.run_once() == []
        games = director.run_once()
        assert len(games) == 2
        for game_id in games:
            info = client.portal.call(service.authority.tables.live, game_id).info
            assert info.clock is not None and info.clock.control.to_dict() == {"days": 3}
            assert info.clock.left == (3 * 86_400_000, 3 * 86_400_000) and info.rated
        view = client.get(f"/api/tournaments/{tid}").json()
        assert (view["status"], view["round"], view["rounds_total"]) == ("started", 1, 2), "how many rounds"
        assert sorted(game["id"] for game in view["rounds"][0]["pairings"]) == sorted(games)


def test_a_minimum_rating_or_number_of_rated_games_is_refused_with_a_sentence(tmp_path: Path) -> None:
    with tournament_app(tmp_path) as (client, _clock):
        log_in(client, "Ann")
        strong = created(client, min_rating=1800)
        seasoned = created(client, min_games=5)
        low = client.post(f"/api/tournaments/{strong}/join")
        assert low.status_code == 403 and "rated 1800 or more" in low.json()["error"]
        new = client.post(f"/api/tournaments/{seasoned}/join")
        assert new.status_code == 403 and "5 rated games" in new.json()["error"]
        assert client.get(f"/api/tournaments/{strong}").json()["players"] == 0


def test_one_account_has_at_most_five_tournaments_not_started(tmp_path: Path) -> None:
    with tournament_app(tmp_path) as (client, _clock):
        log_in(client, "Ann")
        for _ in range(5):
            created(client, starts_in=600)
        refused = client.post("/api/tournaments", json=ARENA | {"starts_in": 600})
        assert refused.status_code == 409 and "5 tournaments not started" in refused.json()["error"]
        assert len(client.get("/api/tournaments").json()["tournaments"]) == 5


def test_a_paired_player_sees_the_game_and_may_go_berserk_before_moving(tmp_path: Path) -> None:
    with tournament_app(tmp_path) as (client, clock):
        log_in(client, "Ann")
        tid = created(client)
        client.post(f"/api/tournaments/{tid}/join")
        log_in(client, "Bob")
        client.post(f"/api/tournaments/{tid}/join")
        director = service_of(client).tournaments.director
        assert director.run_once() == []  # the start
        [game] = director.run_once()
        you = client.get(f"/api/tournaments/{tid}").json()["you"]
        assert you["status"] == "playing" and you["game"] == game and you["url"] == f"/game/{game}"
        ticket = client.cookies.get(f"tournament_{tid}")
        assert ticket and client.cookies.get(f"seat_{game}") == ticket
        seated = client.portal.call(service_of(client).authority.tables.live, game).info
        assert seat_of_token(seated, ticket) == you["seat"]
        log_in(client, "Bob")
        client.cookies.set(f"tournament_{tid}", "not the ticket")
        wrong = client.get(f"/api/tournaments/{tid}")
        assert wrong.json()["you"]["game"] == game and "seat_" not in wrong.headers.get("set-cookie", "")
        assert client.post(f"/api/tournaments/{tid}/berserk").json() == {"game": game}
        again = client.post(f"/api/tournaments/{tid}/berserk")
        assert again.status_code == 409 and "already" in again.json()["error"]
        info = client.portal.call(service_of(client).authority.tables.live, game).info
        assert info.clock is not None and info.clock.left[you["seat"]] == 300_000
        assert info.clock.left[1 - you["seat"]] == 600_000
        view = client.get(f"/api/tournaments/{tid}").json()
        assert view["games"][0]["berserk"][you["seat"]] is True
        clock.advance(1)
        resign(client, game, 1 - you["seat"])
        view = client.get(f"/api/tournaments/{tid}").json()
        assert [(r["player"], r["score"]) for r in view["standings"]] == [("Bob", 2), ("Ann", 0)]
        assert view["you"] == {"status": "waiting"} and view["games"][0]["result"] in ("1-0", "0-1")


@pytest.mark.parametrize(("fmt", "gone"), [("arena", "paused"), ("swiss", "withdrawn")])
def test_a_player_who_loses_on_time_without_a_move_was_absent(tmp_path: Path, fmt: str, gone: str) -> None:
    """Flagged with no decision: paused (arena) or withdrawn after the forfeit (Swiss); the other
    waits and scores the win."""
    with tournament_app(tmp_path) as (client, clock):
        service = service_of(client)
        log_in(client, "Host")
        shape = {"format": "swiss", "minutes": None, "rounds": 2} if fmt == "swiss" else {}
        tid = created(client, **shape)
        ann, bob = account(client, "Ann"), account(client, "Bob")
        for player in (ann, bob):
            client.portal.call(service.tournaments.join, tid, player)
        director = service.tournaments.director
        director.run_once()
        [game] = director.run_once()
        clock.advance(601)
        assert client.portal.call(service.authority.endings.flag, game) is True
        view = client.get(f"/api/tournaments/{tid}").json()
        status = {row["player"]: row for row in view["standings"]}
        [loser] = [name for name, row in status.items() if row["score"] == 0]
        [winner] = [name for name in status if name != loser]
        if fmt == "arena":
            assert status[loser]["status"] == gone and status[winner]["status"] == "waiting"
        else:
            assert status[loser]["withdrawn"] is True and status[winner]["score"] == 1
        log_in(client, loser)
        assert client.post(f"/api/tournaments/{tid}/join").json() == {"status": "waiting"}


# ------------------------------------------------------------------ an arena, a Swiss


def test_a_sixty_minute_arena_of_sixteen_players_runs_in_seconds(tmp_path: Path) -> None:
    rng = random.Random(28)
    with tournament_app(tmp_path) as (client, clock):
        service = service_of(client)
        work, director = service.tournaments, service.tournaments.director
        log_in(client, "Host")
        tid = created(client)
        players = [account(client, f"bot{i:02d}") for i in range(16)]
        for player in players:
            client.portal.call(work.join, tid, player)
        ends_at = clock() + timedelta(minutes=60)
        results: dict[int, list[ArenaResult]] = {p.id: [] for p in players}
        started: dict[str, Any] = {}
        director.run_once()
        while clock() < ends_at + timedelta(minutes=5):
            for game_id in director.run_once():
                assert clock() < ends_at, "a game was paired after the arena's end"
                started[game_id] = clock()
            assert max(running_per_player(service, tid).values(), default=0) <= 1
            for row in rows(service, tid):
                if row.ended is None and row.game_id is not None and (
                        rng.random() < 0.6 or clock() - started[row.game_id] >= timedelta(minutes=3)):
                    loser = rng.randrange(2)
                    resign(client, row.game_id, loser)
                    winner = (row.account0, row.account1)[1 - loser]
                    for seat, player in enumerate((row.account0, row.account1)):
                        outcome = Outcome.WIN if player == winner else Outcome.LOSS
                        results[player].append(ArenaResult(outcome, False, 0))
                        assert seat in (0, 1) and player is not None
            clock.advance(rng.choice((60, 90, 120)))
        view = client.get(f"/api/tournaments/{tid}").json()
        assert view["status"] == "finished"
        assert all(results[p.id] for p in players), "someone was never paired"
        expected = [(r.player, r.rank, r.points, r.games, r.fire) for r in arena_standings(results)]
        shown = [(r["id"], r["rank"], r["score"], r["games"], r["fire"]) for r in view["standings"]]
        assert shown == expected
        assert len(view["games"]) == len(started) == sum(len(r) for r in results.values()) // 2
        assert all(game["result"] in ("1-0", "0-1") for game in view["games"])
        assert director.run_once() == []


def test_a_swiss_of_nine_players_over_three_rounds(tmp_path: Path) -> None:
    rng = random.Random(9)
    with tournament_app(tmp_path) as (client, _clock):
        service = service_of(client)
        log_in(client, "Host")
        tid = created(client, format="swiss", minutes=None, rounds=3)
        players = [account(client, f"swiss{i}") for i in range(9)]
        for player in players:
            client.portal.call(service.tournaments.join, tid, player)
        director = service.tournaments.director
        director.run_once()
        played: list[Played] = []
        byes: list[int] = []
        for number in range(1, 4):
            made = director.run_once()
            assert len(made) == 4 and director.run_once() == [], "a round was paired twice"
            now = [row for row in rows(service, tid) if row.round == number]
            byes += [row.account0 for row in now if row.account1 is None]
            assert len(now) == 5
            for row in now:
                if row.game_id is not None:
                    assert row.account1 is not None
                    loser = rng.randrange(2)
                    resign(client, row.game_id, loser)
                    seats = (row.account0, row.account1)
                    played.append(Played(row.account0, row.account1, seats[1 - loser]))
        assert director.run_once() == []
        view = client.get(f"/api/tournaments/{tid}").json()
        assert view["status"] == "finished" and [r["round"] for r in view["rounds"]] == [1, 2, 3]
        assert all(len(r["pairings"]) == 4 and r["bye"] for r in view["rounds"])
        pairs = [frozenset((g.first, g.second)) for g in played]
        assert len(set(pairs)) == len(pairs) and len(set(byes)) == 3
        expected = standings([p.id for p in players], played, byes)
        assert [(r["id"], r["rank"], r["score"], r["tiebreaks"]["buchholz"]) for r in view["standings"]] == [
            (row.player, row.rank, row.score, row.buchholz) for row in expected]


# ------------------------------------------------------------------ two directors


def _race(store: Store, clock: FakeClock, tournament_id: int, finish: Any) -> None:
    """Two directors on ``store`` racing (in threads) through an arena; then one dies and the other
    takes over after the lease. Each wave happens once: no player in two games at once, and the
    tournament's wave count equals the waves stored."""
    seeds = iter(range(1, 10**6))
    first = Director(store, clock, lambda: next(seeds), lease=30)
    second = Director(store, clock, lambda: next(seeds), lease=30)
    made: list[str] = []
    lock = threading.Lock()

    def look(director: Director) -> None:
        found = director.run_once()
        with lock:
            made.extend(found)

    for _ in range(12):
        threads = [threading.Thread(target=look, args=(d,)) for d in (first, second, first, second)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        with store.use() as session:
            games = list(session.scalars(select(TournamentGameRow)
                                         .where(TournamentGameRow.tournament_id == tournament_id)))
            waves = session.scalar(select(TournamentRow.round).where(TournamentRow.id == tournament_id))
        busy: dict[int, int] = defaultdict(int)
        for game in games:
            if game.ended is None:
                busy[game.account0] += 1
                busy[game.account1 or 0] += 1
        assert max(busy.values(), default=0) <= 1
        assert waves == len({game.round for game in games})
        assert len(made) == len(games) == len(set(made))
        finish([g for g in games if g.ended is None])
        clock.advance(5)
    held_by = {first.me: first, second.me: second}
    with store.use() as session:
        holder = session.scalar(select(TournamentRow.lease).where(TournamentRow.id == tournament_id))
    survivor = second if holder == first.me else first
    assert holder in held_by and survivor.run_once() == []
    clock.advance(31)
    before = survivor.steps
    survivor.run_once()
    assert survivor.steps > before, "the survivor did not take over after the lease"


def test_two_directors_racing_make_each_wave_once(tmp_path: Path) -> None:
    with tournament_app(tmp_path) as (client, clock):
        service = service_of(client)
        log_in(client, "Host")
        tid = created(client)
        for i in range(10):
            client.portal.call(service.tournaments.join, tid, account(client, f"racer{i}"))

        def finish(games: list[TournamentGameRow]) -> None:
            for game in games:
                assert game.game_id is not None
                resign(client, game.game_id, game.id % 2)
        _race(service.store, clock, tid, finish)


def test_two_apps_on_one_postgresql_database_make_each_wave_once(
        tmp_path: Path, database_url: str) -> None:  # noqa: F811
    with tournament_app(tmp_path / "a", database_url=database_url) as (client, clock), \
            tournament_app(tmp_path / "b", database_url=database_url) as (other, _other_clock):
        service_of(other).authority.now = clock
        log_in(client, "Host")
        tid = created(client)
        for i in range(10):
            client.portal.call(service_of(client).tournaments.join, tid, account(client, f"pg{i}"))

        def finish(games: list[TournamentGameRow]) -> None:
            for game in games:
                assert game.game_id is not None
                resign(other if game.id % 3 else client, game.game_id, game.id % 2)
        _race(service_of(other).store, clock, tid, finish)


@pytest.mark.parametrize("path", ["/tournaments", "/tournaments/1"])
def test_the_pages_are_served(tmp_path: Path, path: str) -> None:
    static = Path(__file__).resolve().parents[2] / "schotten" / "web" / "static"
    with tournament_app(tmp_path, static_dir=static) as (client, _clock):
        page = client.get(path)
        assert page.status_code == 200 and "tournament" in page.text.lower()


def test_players_who_block_each_other_are_never_paired(tmp_path: Path) -> None:
    """Blocks hold in tournaments (issue 29): in an arena two waiting players of whom one blocks the
    other are not paired (each gets another opponent); in a Swiss they are never paired either."""
    with tournament_app(tmp_path) as (client, clock):
        service = service_of(client)
        work, director = service.tournaments, service.tournaments.director
        log_in(client, "Host")
        arena = created(client)
        swiss = created(client, format="swiss", rounds=3, minutes=None)
        ann, bob, cid, dee = (account(client, name) for name in ("ann", "bob", "cid", "dee"))
        log_in(client, "ann")
        assert client.put("/api/blocks/bob").status_code == 204
        for tid in (arena, swiss):
            for player in (ann, bob):
                client.portal.call(work.join, tid, player)
        director.run_once()
        assert rows(service, arena) == [], "the only two waiting players are kept apart"
        for tid in (arena, swiss):
            for player in (cid, dee):
                client.portal.call(work.join, tid, player)
        clock.advance(1)
        director.run_once()
        for tid in (arena, swiss):
            pairs = [{row.account0, row.account1} for row in rows(service, tid) if row.account1 is not None]
            assert pairs and {ann.id, bob.id} not in pairs, (tid, pairs)


# ------------------------------------------------------------------ the tournament's socket


def session_header(client: TestClient, name: str) -> dict[str, str]:
    """A cookie header with a new session of ``name`` (and nothing else)."""
    found = account(client, name)
    return {"cookie": f"{SESSION_COOKIE}={service_of(client).accounts.new_session(found.id)}"}


def test_the_tournament_socket_tells_everyone_the_standings_and_only_the_player_their_pairing(
        tmp_path: Path) -> None:
    """Joins, the start, a wave and a game's end reach a guest's socket and the players' as
    ``standings``; ``paired`` (with the table) reaches only the paired player's own sockets."""
    with tournament_app(tmp_path) as (client, _clock):
        service = service_of(client)
        log_in(client, "Host")
        tid = created(client)
        ann, bob = account(client, "Ann"), account(client, "Bob")
        path = f"/ws/tournaments/{tid}"
        client.cookies.clear()
        with client.websocket_connect(path) as guest, \
                client.websocket_connect(path, headers=session_header(client, "Ann")) as anns, \
                client.websocket_connect(path, headers=session_header(client, "Bob")) as bobs:
            assert guest.receive_json() == {"type": "hello", "tournament": tid, "player": None}
            assert anns.receive_json()["player"] == "Ann" and bobs.receive_json()["player"] == "Bob"
            standings = {"type": "standings", "tournament": tid}
            for player in (ann, bob):
                client.portal.call(service.tournaments.join, tid, player)
                for socket in (guest, anns, bobs):
                    assert socket.receive_json() == standings
            director = service.tournaments.director
            director.run_once()  # the start
            for socket in (guest, anns, bobs):
                assert socket.receive_json() == standings
            [game] = director.run_once()
            paired = {"type": "paired", "tournament": tid, "game": game, "url": f"/game/{game}"}
            for socket in (anns, bobs):
                assert sorted([socket.receive_json(), socket.receive_json()], key=str) == [paired, standings]
            assert guest.receive_json() == standings
            resign(client, game, 0)
            for socket in (guest, anns, bobs):
                assert socket.receive_json() == standings, "the guest was told nothing else before"


def test_the_tournament_socket_of_no_tournament_is_refused(tmp_path: Path) -> None:
    with tournament_app(tmp_path) as (client, _clock), client.websocket_connect("/ws/tournaments/77") as ws:
        message = ws.receive_json()
        assert message["type"] == "error" and message["code"] == "not_found"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == NOT_FOUND_CLOSE


def test_tournament_events_are_handed_to_the_cluster_and_heard_from_it(tmp_path: Path) -> None:
    """What one process makes is relayed (``kind`` ``tournament``); an event heard is delivered to the
    sockets here, ``paired`` only to its player's."""
    with tournament_app(tmp_path) as (client, _clock):
        channel = service_of(client).tournaments.channel
        told: list[dict[str, Any]] = []
        channel.relay = told.append
        log_in(client, "Host")
        tid = created(client)
        ann = account(client, "Ann")
        client.cookies.clear()
        path = f"/ws/tournaments/{tid}"
        with client.websocket_connect(path) as guest, \
                client.websocket_connect(path, headers=session_header(client, "Ann")) as anns:
            guest.receive_json()
            anns.receive_json()
            paired = {"type": "paired", "tournament": tid, "game": "g1", "url": "/game/g1"}
            client.portal.call(_heard, channel, {"kind": "tournament", "tournament": tid, "player": ann.id,
                                                  "message": paired})
            client.portal.call(_heard, channel, {"kind": "tournament", "tournament": tid, "player": None,
                                                  "message": {"type": "standings", "tournament": tid}})
            assert anns.receive_json() == paired
            assert guest.receive_json()["type"] == anns.receive_json()["type"] == "standings"
            client.portal.call(service_of(client).tournaments.join, tid, ann)
            assert told == [{"kind": "tournament", "tournament": tid, "player": None,
                             "message": {"type": "standings", "tournament": tid}}]


async def _heard(channel: Any, event: dict[str, Any]) -> None:
    channel.heard(event)


async def _changes(channel: Any, tournament_id: int, count: int) -> None:
    for _ in range(count):
        channel.changed(tournament_id)


def test_standings_changes_close_together_are_told_once_a_second(tmp_path: Path) -> None:
    """Five changes at once: one ``standings`` now, one at the end of the second, none more."""
    with tournament_app(tmp_path) as (client, _clock):
        channel = service_of(client).tournaments.channel
        told: list[dict[str, Any]] = []
        channel.relay = told.append
        log_in(client, "Host")
        tid = created(client)
        client.portal.call(_changes, channel, tid, 5)
        assert len(told) == 1
        time.sleep(STANDINGS_EVERY * 1.5)
        client.portal.call(_changes, channel, tid, 0)
        assert len(told) == 2 and all(event["message"]["type"] == "standings" for event in told)


# ------------------------------------------------------------------ the profile


def test_the_profile_lists_the_tournaments_played_and_the_podiums(tmp_path: Path) -> None:
    """A finished Swiss of five (one round: two games and a bye) and a running arena: each player's
    profile lists what they played with the rank the standings show and the field's size; the podiums
    are the finished tournament's ranks 1 to 3; joining without a game lists nothing."""
    with tournament_app(tmp_path) as (client, clock):
        service = service_of(client)
        work, director = service.tournaments, service.tournaments.director
        log_in(client, "Host")
        swiss = created(client, format="swiss", minutes=None, rounds=1, name="Sunday Swiss")
        arena = created(client, name="Arena now")
        players = [account(client, name) for name in ("ann", "bob", "cid", "dee", "eve")]
        for player in players:
            client.portal.call(work.join, swiss, player)
        for player in players[:2]:
            client.portal.call(work.join, arena, player)
        director.run_once()
        director.run_once()
        for row in rows(service, swiss) + rows(service, arena):
            if row.game_id is not None:
                resign(client, row.game_id, 1)
        clock.advance(1)
        director.run_once()
        view = client.get(f"/api/tournaments/{swiss}").json()
        assert view["status"] == "finished"
        ranks = {row["player"]: row["rank"] for row in view["standings"]}
        assert min(ranks.values()) == 1 and max(ranks.values()) > 3
        arena_view = client.get(f"/api/tournaments/{arena}").json()
        arena_ranks = {row["player"]: row["rank"] for row in arena_view["standings"]}
        for player in players:
            shown = client.get(f"/api/players/{player.username}").json()["tournaments"]
            played = {entry["name"]: entry for entry in shown["played"]}
            assert played["Sunday Swiss"]["rank"] == ranks[player.username]
            assert played["Sunday Swiss"]["players"] == 5 and played["Sunday Swiss"]["format"] == "swiss"
            assert played["Sunday Swiss"]["starts_at"] == view["starts_at"]
            if player.username in arena_ranks:
                assert played["Arena now"]["status"] == "started"
                assert played["Arena now"]["rank"] == arena_ranks[player.username]
            else:
                assert "Arena now" not in played
            podium = [entry["name"] for entry in shown["podiums"]]
            assert podium == (["Sunday Swiss"] if ranks[player.username] <= 3 else [])
        assert client.get("/api/players/Host").json()["tournaments"] == {"played": [], "podiums": []}


# ------------------------------------------------------------------ berserk


def pass_the_turn(client: TestClient, game_id: str, seat: int) -> None:
    """``seat`` makes its first legal decisions through the games layer until the other is to decide."""
    authority = service_of(client).authority
    game = client.portal.call(authority.tables.live, game_id)
    assert game is not None
    while game.state.turn == seat:
        action = str(ACTIONS[game.state.legal_action_ids()[0]])
        client.portal.call(authority.play.act, game, seat, ActionMessage(type="action", action=action))


@pytest.mark.parametrize("first", [True, False])
def test_a_berserk_seat_plays_without_the_increment(tmp_path: Path, first: bool) -> None:
    """On the game's own clock (600 s + 10 s): the berserk seat keeps half its time and gains nothing
    after its turn; the other gains its 10 s; the stored clock (read again) says the same."""
    with tournament_app(tmp_path) as (client, clock):
        service = service_of(client)
        log_in(client, "Host")
        tid = created(client)
        for name in ("Ann", "Bob"):
            client.portal.call(service.tournaments.join, tid, account(client, name))
        service.tournaments.director.run_once()
        [game_id] = service.tournaments.director.run_once()
        game = client.portal.call(service.authority.tables.live, game_id)
        assert game is not None
        mover = game.state.turn
        berserk = mover if first else 1 - mover
        [row] = rows(service, tid)
        ann = account(client, "Ann")
        log_in(client, "Ann" if (row.account0, row.account1)[berserk] == ann.id else "Bob")
        assert client.post(f"/api/tournaments/{tid}/berserk").json() == {"game": game_id}
        for seat in (mover, 1 - mover):
            clock.advance(2)
            pass_the_turn(client, game_id, seat)
        info = client.portal.call(service.authority.tables.live, game_id).info
        assert info.clock is not None
        per_seat = [sum(e.spent_ms or 0 for e in log_of(client, game_id) if e.seat == s) for s in (0, 1)]
        assert per_seat[0] > 0 and per_seat[1] > 0
        left = info.clock.remaining(clock())
        assert left[berserk] == 300_000 - per_seat[berserk], "the berserk seat gained something"
        assert left[1 - berserk] == 600_000 - per_seat[1 - berserk] + 10_000
        stored = service.store.load(game_id)
        assert stored is not None and stored[0].clock is not None
        assert stored[0].clock.no_increment[berserk] and not stored[0].clock.no_increment[1 - berserk]


# ------------------------------------------------------------------ aborted games


@pytest.mark.parametrize("fmt", ["arena", "swiss"])
def test_an_aborted_tournament_game_scores_nothing_for_either_player(tmp_path: Path, fmt: str) -> None:
    """Aborted before both decided (the games layer's own abort): no points (not a draw), no game in
    the arena's standings, the result ``aborted``; both wait again."""
    with tournament_app(tmp_path) as (client, _clock):
        service = service_of(client)
        log_in(client, "Host")
        shape = {"format": "swiss", "minutes": None, "rounds": 2} if fmt == "swiss" else {}
        tid = created(client, **shape)
        for name in ("Ann", "Bob"):
            client.portal.call(service.tournaments.join, tid, account(client, name))
        service.tournaments.director.run_once()
        [game_id] = service.tournaments.director.run_once()
        game = client.portal.call(service.authority.tables.live, game_id)
        assert game is not None
        client.portal.call(service.authority.endings.abort, game, game.state.turn)
        view = client.get(f"/api/tournaments/{tid}").json()
        assert [g["result"] for g in view["games"]] == ["aborted"]
        assert [row["score"] for row in view["standings"]] == [0, 0]
        if fmt == "arena":
            assert [row["games"] for row in view["standings"]] == [0, 0]
            assert {row["status"] for row in view["standings"]} == {"waiting"}
        [row] = rows(service, tid)
        assert row.aborted and row.winner is None
