"""Clocks, resigning, aborting, leaving and abandoning, with an injected clock (never by sleeping).

The tests move a ``FakeClock`` by hand and ask the timekeeper to look (``Timekeeper.check``) instead
of waiting for it; its own loop also reads the fake clock, so it can only ever agree.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from helpers_web import (
    SEED,
    FakeClock,
    Message,
    app_at,
    choose,
    create,
    join,
    leaked,
    log_of,
    receive_error,
    receive_state,
    service_of,
    socket_path,
    test_settings,
    until,
)
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from schotten.engine import GameState, Settings
from schotten.web import create_app
from schotten.web.core.clock import DAY_MS, Clock, TimeControl


@pytest.fixture
def fake() -> FakeClock:
    """The test's clock."""
    return FakeClock()


def check_clocks(client: TestClient) -> None:
    """Have the timekeeper look at the deadlines now."""
    keeper = service_of(client).authority.timekeeper
    assert keeper is not None and client.portal is not None
    client.portal.call(keeper.check)


def timed_duel(client: TestClient, clock: dict[str, int] | None, **body: Any) -> tuple[Message, Message]:
    """A friend table with ``clock``, both seats taken: the two grants (seat 0 moves first)."""
    grant = create(client, clock=clock, **body)
    return grant, join(client, grant["id"])


def play(ws: Any, message: Message, rng: random.Random) -> Message:
    """Send a random legal action of ``message`` and return the next state."""
    ws.send_json({"type": "action", "action": choose(message, rng), "version": message["version"]})
    return receive_state(ws)


# ---------------------------------------------------------------------- the clock as values


def test_a_real_time_clock_runs_for_the_seat_to_move_and_adds_the_increment() -> None:
    """The mover's time goes down while it decides; passing the turn adds the increment."""
    start = datetime(2026, 1, 1, tzinfo=UTC)
    clock = Clock.new(TimeControl(180, 2)).start(0, start)
    later = start + timedelta(seconds=30)
    assert clock.remaining(later) == (150_000, 180_000)
    same_turn = clock.after_decision(0, later, 0)
    assert same_turn == clock
    passed = clock.after_decision(0, later, 1)
    assert passed.left == (152_000, 180_000) and passed.running == 1 and passed.since == later
    assert passed.deadline == later + timedelta(seconds=180)
    assert not passed.flagged(later + timedelta(seconds=179.9))
    assert passed.flagged(later + timedelta(seconds=180))


def test_a_seat_without_increment_gains_nothing_when_it_passes_the_turn() -> None:
    """A berserk seat (``without_increment``) keeps only what it had left; the other gets its increment."""
    start = datetime(2026, 1, 1, tzinfo=UTC)
    clock = Clock.new(TimeControl(180, 2)).without_increment(0).start(0, start)
    later = start + timedelta(seconds=30)
    passed = clock.after_decision(0, later, 1)
    assert passed.left == (150_000, 180_000) and passed.no_increment == (True, False)
    back = passed.after_decision(1, later + timedelta(seconds=10), 0)
    assert back.left == (150_000, 172_000)
    assert clock.increment_ms(0) == 0 and clock.increment_ms(1) == 2_000


def test_a_turn_based_clock_gives_each_turn_its_days() -> None:
    """Days per move: nothing is banked, each turn starts with the whole allowance."""
    start = datetime(2026, 1, 1, tzinfo=UTC)
    clock = Clock.new(TimeControl(days=2)).start(0, start)
    later = start + timedelta(hours=47)
    passed = clock.after_decision(0, later, 1)
    back = passed.after_decision(1, later + timedelta(hours=1), 0)
    assert back.left[0] == 2 * DAY_MS and back.running == 0
    assert back.deadline == later + timedelta(hours=1, days=2)


# ---------------------------------------------------------------------- clocks in play


def test_the_state_carries_both_clocks_and_the_running_one(tmp_path: Path, fake: FakeClock) -> None:
    """Every state message says each seat's time left when it was made and whose clock runs."""
    with app_at(test_settings(tmp_path), fake) as client:
        ann, _ = timed_duel(client, {"initial": 180, "increment": 2})
        fake.advance(10)
        with client.websocket_connect(socket_path(ann["id"], ann["token"])) as ws:
            state = receive_state(ws)
            assert state["clock"] == {"initial": 180, "increment": 2}
            assert state["clocks"] == [170_000, 180_000] and state["clock_running"] == 0
            fake.advance(5)
            after = play(ws, state, random.Random(1))
            while after["view"]["turn"] == 0:
                after = play(ws, after, random.Random(2))
            assert after["clock_running"] == 1
            assert after["clocks"] == [165_000 + 2_000, 180_000]


def test_a_turn_of_several_decisions_is_one_running_clock(tmp_path: Path, fake: FakeClock) -> None:
    """Claims and draws within a turn keep the mover's clock running; the increment comes once."""
    with app_at(test_settings(tmp_path), fake) as client:
        ann, _ = timed_duel(client, {"initial": 60, "increment": 5}, variant="tactics")
        rng = random.Random(4)
        with client.websocket_connect(socket_path(ann["id"], ann["token"])) as ws:
            state = receive_state(ws)
            decisions = 0
            while state["view"]["turn"] == 0:
                fake.advance(3)
                state = play(ws, state, rng)
                decisions += 1
            assert decisions >= 2
            assert state["clocks"][0] == 60_000 - 3_000 * decisions + 5_000
    times = [entry.spent_ms for entry in log_of(client, ann["id"])]
    assert times == [3_000] * decisions


def test_a_flag_at_the_deadline_with_nobody_connected(tmp_path: Path, fake: FakeClock) -> None:
    """The clock runs out with no socket open: the game is lost on time at the deadline (a forfeit:
    the round and the match to the other seat, R9.2)."""
    with app_at(test_settings(tmp_path), fake) as client:
        ann, _ = timed_duel(client, {"initial": 30, "increment": 0})
        fake.advance(29.9)
        check_clocks(client)
        assert client.get(f"/api/games/{ann['id']}").json()["status"] == "playing"
        fake.advance(0.1)
        check_clocks(client)
        table = client.get(f"/api/games/{ann['id']}").json()
        assert (table["status"], table["winner"], table["ended"]) == ("over", 1, "time")
        record = client.get(f"/api/games/{ann['id']}/record").json()
        assert record["ending"] == {"reason": "time", "seat": 0}
        assert record["forfeit"] == {"seat": 0, "reason": "time"}
        assert record["time_control"] == {"initial": 30, "increment": 0}
        with client.websocket_connect(socket_path(ann["id"], ann["token"])) as ws:
            state = receive_state(ws)
            assert state["ended"] == {"reason": "time", "seat": 0} and state["clocks"][0] == 0
            assert state["legal"] == [] and not state["can_resign"]


def test_a_move_after_the_deadline_is_refused_and_loses(tmp_path: Path, fake: FakeClock) -> None:
    """A move arriving once the time is up is not played: time_up, and the game is lost on time."""
    with app_at(test_settings(tmp_path), fake) as client:
        ann, _ = timed_duel(client, {"initial": 5})
        with client.websocket_connect(socket_path(ann["id"], ann["token"])) as ws:
            state = receive_state(ws)
            fake.advance(6)
            ws.send_json({"type": "action", "action": choose(state, random.Random(1))})
            ended = receive_state(ws)
            assert ended["ended"] == {"reason": "time", "seat": 0}
            receive_error(ws, "time_up")
        assert [e.kind for e in log_of(client, ann["id"])] == ["end"]


def test_a_restart_mid_turn_keeps_the_deadline_and_costs_nothing(tmp_path: Path, fake: FakeClock) -> None:
    """The server stops mid-turn and is down an hour: the clock comes back with what it had left."""
    settings = test_settings(tmp_path)
    with app_at(settings, fake) as client:
        ann, _ = timed_duel(client, {"initial": 60, "increment": 0})
        fake.advance(20)
    fake.advance(3600)
    with app_at(settings, fake) as client:
        with client.websocket_connect(socket_path(ann["id"], ann["token"])) as ws:
            state = receive_state(ws)
            assert state["clocks"] == [40_000, 60_000] and state["clock_running"] == 0
        fake.advance(39)
        check_clocks(client)
        assert client.get(f"/api/games/{ann['id']}").json()["status"] == "playing"
        fake.advance(1)
        check_clocks(client)
        assert client.get(f"/api/games/{ann['id']}").json()["ended"] == "time"


def test_a_turn_based_game_survives_a_restart_and_flags_at_its_deadline(tmp_path: Path,
                                                                        fake: FakeClock) -> None:
    """Two days per move: the deadline is stored; a restart keeps it; it passes: lost on time."""
    settings = test_settings(tmp_path)
    with app_at(settings, fake) as client:
        ann, _ = timed_duel(client, {"days": 2})
        with client.websocket_connect(socket_path(ann["id"], ann["token"])) as ws:
            state = receive_state(ws)
            assert state["clock"] == {"days": 2} and state["clocks"] == [2 * DAY_MS, 2 * DAY_MS]
            assert state["away"] == [None, None]
            fake.advance(3600)
            while state["view"]["turn"] == 0:
                state = play(ws, state, random.Random(3))
            assert state["clocks"] == [2 * DAY_MS - 3_600_000, 2 * DAY_MS]
        client.cookies.set(f"seat_{ann['id']}", ann["token"])
        mine = client.get("/api/my-games").json()
    fake.advance(24 * 3600)
    with app_at(settings, fake) as client:
        fake.advance(2 * 24 * 3600 - 1)
        check_clocks(client)
        assert client.get(f"/api/games/{ann['id']}").json()["status"] == "playing"
        fake.advance(1)
        check_clocks(client)
        table = client.get(f"/api/games/{ann['id']}").json()
        assert (table["ended"], table["winner"]) == ("time", 0)
    assert mine["tables"][0]["your_turn"] is False and mine["tables"][0]["clock"] == {"days": 2}


def test_my_games_put_the_games_where_it_is_my_move_first(tmp_path: Path, fake: FakeClock) -> None:
    """``your_turn`` and the order of "My games" (turn-based games where it is your move lead)."""
    with app_at(test_settings(tmp_path), fake) as client:
        first, _ = timed_duel(client, {"days": 1}, seat=1)
        fake.advance(1)
        second, _ = timed_duel(client, {"days": 1}, seat=0)
        for grant in (first, second):
            client.cookies.set(f"seat_{grant['id']}", grant["token"])
        tables = client.get("/api/my-games").json()["tables"]
    assert [(t["id"], t["your_turn"]) for t in tables] == [(second["id"], True), (first["id"], False)]


# ---------------------------------------------------------------------- resign, abort, leave


def test_resigning_gives_the_match_to_the_opponent(tmp_path: Path, fake: FakeClock) -> None:
    """A resignation ends the game for everyone at once, reason ``resigned`` (a forfeit, R9.2); a
    spectator cannot."""
    with app_at(test_settings(tmp_path), fake) as client:
        ann, bob = timed_duel(client, {"initial": 180, "increment": 2})
        with client.websocket_connect(socket_path(ann["id"], ann["token"])) as a, \
                client.websocket_connect(socket_path(ann["id"], bob["token"])) as b, \
                client.websocket_connect(socket_path(ann["id"])) as watcher:
            for ws in (a, b, watcher):
                receive_state(ws)
            watcher.send_json({"type": "resign"})
            receive_error(watcher, "cannot_resign")
            b.send_json({"type": "resign"})
            for ws in (a, b, watcher):
                state = receive_state(ws)
                assert state["ended"] == {"reason": "resigned", "seat": 1}
                assert state["status"] == "over" and state["view"]["result"]["winner"] == 0
            a.send_json({"type": "resign"})
            receive_error(a, "cannot_resign")
    record = client.get(f"/api/games/{ann['id']}/record").json()
    assert record["ending"] == {"reason": "resigned", "seat": 1} and record["result"]["winner"] == 0


def test_abort_until_both_have_decided(tmp_path: Path, fake: FakeClock) -> None:
    """Either seat may abort until both have made their first decision; then it is refused."""
    with app_at(test_settings(tmp_path), fake) as client:
        ann, bob = timed_duel(client, None)
        rng = random.Random(5)
        with client.websocket_connect(socket_path(ann["id"], ann["token"])) as a, \
                client.websocket_connect(socket_path(ann["id"], bob["token"])) as b:
            state, other = receive_state(a), receive_state(b)
            assert state["can_abort"] and other["can_abort"]
            while state["view"]["turn"] == 0:
                state = play(a, state, rng)
            other = receive_state(b)
            while other["version"] < state["version"]:
                other = receive_state(b)
            assert other["can_abort"]
            other = play(b, other, rng)
            assert not other["can_abort"]
            b.send_json({"type": "abort"})
            assert "no longer be aborted" in receive_error(b, "cannot_abort")["message"]
        second, joined = timed_duel(client, None)
        with client.websocket_connect(socket_path(second["id"], joined["token"])) as b:
            receive_state(b)
            b.send_json({"type": "abort"})
            state = receive_state(b)
            assert state["ended"] == {"reason": "aborted", "seat": 1} and state["status"] == "over"
            assert state["view"]["result"] is None and state["legal"] == []
        table = client.get(f"/api/games/{second['id']}").json()
        assert (table["status"], table["winner"], table["ended"]) == ("over", None, "aborted")
        record = client.get(f"/api/games/{second['id']}/record").json()
        assert record["ending"] == {"reason": "aborted", "seat": 1} and record["result"] is None


def test_leave_and_claim_and_coming_back_in_time(tmp_path: Path, fake: FakeClock) -> None:
    """A seat gone for ``leave_timeout``: the other is told and may claim the win; coming back
    before that cancels it."""
    with app_at(test_settings(tmp_path, leave_timeout=60.0), fake) as client:
        ann, bob = timed_duel(client, {"initial": 600, "increment": 0})
        with client.websocket_connect(socket_path(ann["id"], ann["token"])) as a:
            receive_state(a)
            with client.websocket_connect(socket_path(ann["id"], bob["token"])) as b:
                receive_state(b)
            presence = a.receive_json()
            while presence["type"] != "presence" or presence["away"][1] is None:
                presence = a.receive_json()
            assert presence["away"][1] == 60_000 and not presence["can_claim_victory"]
            fake.advance(59)
            a.send_json({"type": "claim_victory"})
            assert "in 1 s" in receive_error(a, "cannot_claim")["message"]
            with client.websocket_connect(socket_path(ann["id"], bob["token"])) as b:
                receive_state(b)
                fake.advance(120)
                a.send_json({"type": "sync"})
                state = receive_state(a)
                assert state["away"] == [None, None] and not state["can_claim_victory"]
                a.send_json({"type": "claim_victory"})
                receive_error(a, "cannot_claim")
            fake.advance(60)
            a.send_json({"type": "sync"})
            state = receive_state(a)
            assert state["away"] == [None, 0] and state["can_claim_victory"]
            a.send_json({"type": "claim_victory"})
            state = receive_state(a)
            assert state["ended"] == {"reason": "left", "seat": 1}
            assert state["view"]["result"]["winner"] == 0


def test_against_the_ai_leaving_pauses_the_clock(tmp_path: Path, fake: FakeClock) -> None:
    """At an AI table the AI has no clock and the human's stops while no socket of theirs is open."""
    with app_at(test_settings(tmp_path), fake) as client:
        grant = create(client, mode="ai", level="easy", clock={"initial": 60, "increment": 0})
        with client.websocket_connect(socket_path(grant["id"], grant["token"])) as ws:
            state = receive_state(ws)
            while state["clock_running"] != 0:
                state = receive_state(ws)
            fake.advance(10)
        service = service_of(client)
        game = service.games[grant["id"]]

        def paused() -> bool:
            return game.clock is not None and game.clock.running is None

        until(paused, "the clock paused")
        fake.advance(3600)
        check_clocks(client)
        assert client.get(f"/api/games/{grant['id']}").json()["status"] == "playing"
        with client.websocket_connect(socket_path(grant["id"], grant["token"])) as ws:
            state = receive_state(ws)
            while state["clock_running"] != 0:
                state = receive_state(ws)
            assert state["clocks"][0] == 50_000
            assert state["away"] == [None, None] and not state["can_claim_victory"]


def test_an_untimed_friend_game_with_no_move_for_long_is_abandoned(tmp_path: Path, fake: FakeClock) -> None:
    """No move for ``abandon_after``: closed as abandoned, no winner, out of the games in progress."""
    with app_at(test_settings(tmp_path, abandon_after=30 * 24 * 3600.0), fake) as client:
        ann, _ = timed_duel(client, None)
        keeper = service_of(client).authority.timekeeper
        assert keeper is not None and client.portal is not None
        fake.advance(30 * 24 * 3600 - 10)
        assert client.portal.call(keeper.abandon_idle) == 0
        fake.advance(20)
        assert client.portal.call(keeper.abandon_idle) == 1
        table = client.get(f"/api/games/{ann['id']}").json()
        assert (table["status"], table["winner"], table["ended"]) == ("over", None, "abandoned")
        playing = [t for t in client.get("/api/tables").json()["tables"] if t["status"] == "playing"]
        assert playing == []


# ---------------------------------------------------------------------- refusals and R10


@pytest.mark.parametrize(("clock", "words"), [
    ({"initial": 0}, "greater than or equal to 1"),
    ({"initial": 60, "days": 2}, "not both"),
    ({"increment": 2}, "needs"),
    ({"days": 0}, "greater than or equal to 1"),
    ({"days": 99}, "less than or equal to 14"),
    ({"initial": "60"}, "valid integer"),
    ({"initial": 60, "speed": 1}, "speed"),
])
def test_bad_time_controls_are_refused_with_a_reason(tmp_path: Path, clock: Any, words: str) -> None:
    """A time control that is not one is refused (422) and says why; no table is opened."""
    with TestClient(create_app(test_settings(tmp_path))) as client:
        body = {"mode": "friend", "nickname": "Ann", "clock": clock}
        response = client.post("/api/tables", json=body)
        assert response.status_code == 422 and words in response.json()["error"], response.text
        assert client.get("/api/tables").json()["tables"] == []


def test_timed_play_never_shows_a_seat_what_r10_hides(tmp_path: Path, fake: FakeClock) -> None:
    """Every message to each seat and the spectator of a timed game, resigned at the end (R10.4)."""
    with app_at(test_settings(tmp_path), fake) as client:
        ann, bob = timed_duel(client, {"initial": 300, "increment": 3}, variant="tactics")
        rng = random.Random(8)
        tokens = {0: ann["token"], 1: bob["token"], None: None}
        with client.websocket_connect(socket_path(ann["id"], ann["token"])) as a, \
                client.websocket_connect(socket_path(ann["id"], bob["token"])) as b, \
                client.websocket_connect(socket_path(ann["id"])) as w:
            sockets = {0: a, 1: b, None: w}
            last = {seat: receive_state(ws) for seat, ws in sockets.items()}
            for _ in range(30):
                mover = last[0]["view"]["turn"]
                fake.advance(2)
                sockets[mover].send_json({"type": "action", "action": choose(last[mover], rng)})
                for seat, ws in sockets.items():
                    last[seat] = receive_state(ws)
                state = GameState.new(Settings.of("tactics"), SEED)
                for entry in log_of(client, ann["id"]):
                    state.apply(entry.notation)
                for seat in sockets:
                    assert not leaked(last[seat], state, seat, SEED), (seat, tokens[seat])
            a.send_json({"type": "resign"})
            for ws in sockets.values():
                assert receive_state(ws)["ended"]["reason"] == "resigned"
        with pytest.raises(WebSocketDisconnect), \
                client.websocket_connect(socket_path(ann["id"], "forged")) as bad:
            receive_error(bad, "bad_token")
            bad.receive_json()


def test_the_timekeepers_own_loop_flags_a_game_nobody_watches(tmp_path: Path, fake: FakeClock) -> None:
    """Without being asked: the running server's timekeeper ends the game once its deadline passed."""
    with app_at(test_settings(tmp_path), fake) as client:
        ann, _ = timed_duel(client, {"initial": 10, "increment": 0})
        fake.advance(11)

        def ended() -> bool:
            return bool(client.get(f"/api/games/{ann['id']}").json()["ended"] == "time")

        until(ended, "the timekeeper flagged the game")
