"""Game review in the web layer (issue 27): the API, the queue of jobs in the database, its leases.

Every test runs on SQLite and on PostgreSQL (when ``SCHOTTEN_TEST_POSTGRES_URL`` is set, see
test_postgres). The apps are made with ``review_workers`` 0: the test works the queue itself
(``ReviewWorker.run_once``), so nothing depends on time; one test runs the worker's thread.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from helpers_web import Duel, choose, create, receive_state, service_of, socket_path, test_settings
from starlette.testclient import TestClient
from test_postgres import database_url, server_url  # noqa: F401  (fixtures)

from schotten.web.app import create_app
from schotten.web.core.settings import WebSettings
from schotten.web.reviews.queue import ATTEMPTS, FAILED_SAID, RETRY_AFTER, RUNNING, ReviewQueue
from schotten.web.reviews.worker import REVIEW_NICENESS
from schotten.web.storage.db import ReviewRow
from schotten.web.storage.store import Store

ITERATIONS = 16
"""A small budget per decision: fast tests (the figures are rough, the shape is what is checked)."""
MARKS = {None, "inaccuracy", "mistake", "blunder"}


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The database of the test: a SQLite file, or a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'games.db'}"
    found: str = request.getfixturevalue("database_url")
    return found


def review_settings(tmp_path: Path, url: str, **changes: Any) -> WebSettings:
    """Test settings on ``url`` with a small review budget and no worker thread."""
    values: dict[str, Any] = {"database_url": url, "review_workers": 0, "review_iterations": ITERATIONS}
    return test_settings(tmp_path, **(values | changes))


@pytest.fixture
def client(tmp_path: Path, url: str) -> Iterator[TestClient]:
    """An app on the test's database."""
    with TestClient(create_app(review_settings(tmp_path, url))) as client:
        yield client


def played(client: TestClient, moves: int = 3, resign: bool = True) -> str:
    """A friend game of ``moves`` random legal moves, then resigned by seat 0 unless ``resign`` is False."""
    rng = random.Random(moves)
    with Duel(client) as duel:
        for _ in range(moves):
            duel.play(choose(duel.messages[duel.state.turn][-1], rng))
        game_id, token = duel.id, duel.tokens[0]
    if resign:
        with client.websocket_connect(socket_path(game_id, token)) as ws:
            receive_state(ws)
            ws.send_json({"type": "resign"})
            assert receive_state(ws)["status"] == "over"
    return game_id


def work(client: TestClient) -> bool:
    """Work one job of the queue as a worker would (False: none to take)."""
    return service_of(client).reviews.worker.run_once()


def test_only_a_finished_game_is_reviewed(client: TestClient) -> None:
    """A game in progress is refused with a sentence and nothing is queued (R10.4: its record would
    reveal hidden cards); an unknown game is 404; a review never asked for is 404."""
    game_id = played(client, resign=False)
    refused = client.post(f"/api/games/{game_id}/review")
    assert refused.status_code == 409
    assert "still being played" in refused.json()["error"] and "review" in refused.json()["error"]
    assert client.get(f"/api/games/{game_id}/review").status_code == 404
    assert not work(client)
    assert client.post("/api/games/nosuchgame/review").status_code == 404
    waiting = create(client)["id"]
    not_begun = client.post(f"/api/games/{waiting}/review")
    assert not_begun.status_code == 409 and "no game to review yet" in not_begun.json()["error"]
    assert "no review" in client.get("/api/games/nosuchgame/review").json()["error"]


def test_a_review_is_queued_once_then_done_with_every_decision(client: TestClient) -> None:
    """Asked twice, one job (202 both times); once worked, every unforced decision has its seat, move,
    best move, chances and mark, and asking again answers 200 with the same review."""
    game_id = played(client, moves=4)
    first = client.post(f"/api/games/{game_id}/review")
    again = client.post(f"/api/games/{game_id}/review")
    assert (first.status_code, again.status_code) == (202, 202)
    assert first.json() == {"status": "queued", "progress": {"done": 0, "total": 0}, "decisions": [],
                            "attempts": 0}
    assert client.get(f"/api/games/{game_id}/review").json()["status"] == "queued"
    assert work(client)
    assert not work(client)
    done = client.get(f"/api/games/{game_id}/review").json()
    assert done["status"] == "done" and done["progress"] == {"done": 4, "total": 4}
    assert [d["seat"] for d in done["decisions"]] == [1, 2, 1, 2]
    for decision in done["decisions"]:
        assert set(decision) == {"move", "seat", "action", "best", "win_before", "win_after", "mark"}
        assert 0 <= decision["win_after"] <= 1 and 0 <= decision["win_before"] <= 1
        assert decision["mark"] in MARKS
    answer = client.post(f"/api/games/{game_id}/review")
    assert answer.status_code == 200 and answer.json() == done


def test_new_reviews_are_limited_per_address_and_asking_again_is_free(tmp_path: Path, url: str) -> None:
    """Over ``reviews_rate`` a new review is refused (429, a sentence, nothing queued); asking again for
    one already queued is answered and not counted."""
    with TestClient(create_app(review_settings(tmp_path, url, reviews_rate="1/minute"))) as client:
        first, second = played(client, moves=1), played(client, moves=2)
        assert client.post(f"/api/games/{first}/review").status_code == 202
        assert client.post(f"/api/games/{first}/review").status_code == 202
        refused = client.post(f"/api/games/{second}/review")
        assert refused.status_code == 429 and "too many reviews asked for" in refused.json()["error"]
        assert client.get(f"/api/games/{second}/review").status_code == 404


def reviewed_in_the_background(client: TestClient, moves: int) -> dict[str, Any]:
    """Ask for a review of a new game of ``moves`` moves and wait for the worker to end it."""
    game_id = played(client, moves=moves)
    assert client.post(f"/api/games/{game_id}/review").status_code == 202
    for _ in range(1200):
        state: dict[str, Any] = client.get(f"/api/games/{game_id}/review").json()
        if state["status"] not in ("queued", "running"):
            break
        time.sleep(0.05)
    return state


def test_the_worker_thread_reviews_in_the_background(tmp_path: Path, url: str) -> None:
    """With ``review_workers`` 1 the process's own thread takes the job and finishes it."""
    with TestClient(create_app(review_settings(tmp_path, url, review_workers=1))) as client:
        state = reviewed_in_the_background(client, moves=2)
    assert state["status"] == "done" and len(state["decisions"]) == 2


def test_with_ai_processes_the_analysis_runs_in_a_review_process(tmp_path: Path) -> None:
    """The default set-up: the worker thread hands each decision to its niced process pool."""
    settings = review_settings(tmp_path, f"sqlite:///{tmp_path / 'games.db'}", review_workers=1,
                               ai_processes=True)
    with TestClient(create_app(settings)) as client:
        state = reviewed_in_the_background(client, moves=1)
        pool = service_of(client).reviews.worker._pool
        assert pool is not None and pool.submit(os.nice, 0).result() >= REVIEW_NICENESS
    assert state["status"] == "done" and len(state["decisions"]) == 1


# ---------------------------------------------------------------------- the queue


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def queued(client: TestClient) -> str:
    """A finished game whose review is queued."""
    game_id = played(client, moves=1)
    assert client.post(f"/api/games/{game_id}/review").status_code == 202
    return game_id


def test_a_job_is_taken_by_one_of_two_workers(client: TestClient, url: str) -> None:
    """Two workers (two stores, as two processes) both see the job waiting; the first to claim it holds
    it, the other's conditional UPDATE changes nothing."""
    game_id = queued(client)
    one, other = (ReviewQueue(Store(url), 60.0) for _ in range(2))
    assert one.waiting() == other.waiting() == [game_id]
    mine = one.claim(game_id)
    assert mine is not None and other.claim(game_id) is None
    assert other.take() is None
    assert one.renew(mine, 0, 1)
    state = one.get(game_id)
    assert state is not None and state.status == RUNNING


def test_a_job_whose_lease_expired_is_taken_again(client: TestClient, url: str) -> None:
    """A worker that stops renewing (killed) loses its job once the lease expires: another takes it,
    and the first one can no longer store anything."""
    game_id = queued(client)
    clock = Clock()
    killed, alive = (ReviewQueue(Store(url), 60.0, clock) for _ in range(2))
    lost = killed.take()
    assert lost is not None and alive.take() is None
    clock.now += timedelta(seconds=59)
    assert alive.take() is None
    clock.now += timedelta(seconds=2)
    again = alive.take()
    assert again is not None and again.game_id == game_id and again.lease != lost.lease
    assert not killed.renew(lost, 1, 1) and not killed.finish(lost, [])
    assert alive.finish(again, [])
    state = alive.get(game_id)
    assert state is not None and state.status == "done"


def test_a_flood_from_one_player_waits_behind_the_others_first_request(client: TestClient, url: str) -> None:
    """Jobs are taken in turn per requester: three asked by one player, then one by another, are taken
    first of the first, first of the other, then the rest; a job being worked on is its owner's turn."""
    games = [played(client, moves=1) for _ in range(4)]
    clock = Clock()
    queue = ReviewQueue(Store(url), 60.0, clock)
    for game_id, by in zip(games, ["account:1"] * 3 + ["account:2"], strict=True):
        clock.now += timedelta(seconds=1)
        assert queue.ask(game_id, {}, by)[1]
    assert queue.waiting() == [games[0], games[3], games[1], games[2]]
    first = queue.take()
    assert first is not None and first.game_id == games[0]
    assert queue.waiting() == [games[3], games[1], games[2]]
    second = queue.take()
    assert second is not None and second.game_id == games[3]
    assert queue.finish(second, [])
    assert queue.waiting() == [games[1], games[2]]


BROKEN = {"variant": "base", "actions": ["not a move"]}
"""A record whose review raises (it does not replay)."""


def failing(client: TestClient, clock: Clock) -> str:
    """A finished game whose queued review raises at every attempt (its record does not replay); the
    app's queue reads ``clock``."""
    game_id = played(client, moves=1)
    queue = service_of(client).reviews.queue
    queue.clock = clock
    state, queued = queue.ask(game_id, BROKEN, "address:test")
    assert queued and state.status == "queued"
    return game_id


def failed_attempts(client: TestClient, clock: Clock, attempts: int) -> None:
    """Work the failing job ``attempts`` times, moving the clock past each wait before a retry."""
    for attempt in range(attempts):
        clock.now += timedelta(seconds=RETRY_AFTER * attempt + 1)
        assert work(client)


def test_a_failing_review_is_tried_again_then_failed_with_a_sentence(client: TestClient) -> None:
    """A job whose review raises is queued again, due later each time (not taken before), and after
    ``ATTEMPTS`` attempts is ``failed``: not taken again, its state says why with a sentence the page
    says in its reader's language."""
    clock = Clock()
    game_id = failing(client, clock)
    assert work(client)
    first = client.get(f"/api/games/{game_id}/review").json()
    assert (first["status"], first["attempts"]) == ("queued", 1) and "error" not in first
    assert not work(client), "a job that just failed waits before it is taken again"
    clock.now += timedelta(seconds=RETRY_AFTER + 1)
    assert work(client)
    assert not work(client)
    clock.now += timedelta(seconds=2 * RETRY_AFTER + 1)
    assert work(client)
    clock.now += timedelta(hours=1)
    assert not work(client)
    failed = client.get(f"/api/games/{game_id}/review").json()
    assert (failed["status"], failed["attempts"], failed["decisions"]) == ("failed", ATTEMPTS, [])
    assert "could not be made" in failed["error"] and "ask for it again" in failed["error"]
    assert failed["say"] == {"text": FAILED_SAID, "params": {"attempts": ATTEMPTS}}


def test_the_attempts_are_kept_in_the_database(client: TestClient, url: str) -> None:
    """A restart (another queue on the same database) finds the attempts made: a job that failed
    ``ATTEMPTS - 1`` times fails for good at its next attempt, whichever worker makes it."""
    clock = Clock()
    game_id = failing(client, clock)
    failed_attempts(client, clock, ATTEMPTS - 1)
    restarted = ReviewQueue(Store(url), 60.0, clock)
    state = restarted.get(game_id)
    assert state is not None and (state.status, state.attempts) == ("queued", ATTEMPTS - 1)
    clock.now += timedelta(hours=1)
    job = restarted.take()
    assert job is not None and restarted.fail(job)
    state = restarted.get(game_id)
    assert state is not None and (state.status, state.attempts) == ("failed", ATTEMPTS)


def test_a_review_failed_before_attempts_were_counted_says_one(client: TestClient, url: str) -> None:
    """A row ``failed`` with no attempts in ``result`` (stored before they were counted) failed once."""
    clock = Clock()
    game_id = failing(client, clock)
    with Store(url).use() as session, session.begin():
        row = session.get(ReviewRow, game_id)
        assert row is not None
        row.status, row.result = "failed", None
    state = client.get(f"/api/games/{game_id}/review").json()
    assert (state["status"], state["attempts"]) == ("failed", 1)


def test_a_failed_review_is_queued_again_when_asked_for(client: TestClient) -> None:
    """POST on a failed review queues it again (202), its record built anew from the game and its
    attempts from 0; then it is reviewed as any other."""
    clock = Clock()
    game_id = failing(client, clock)
    failed_attempts(client, clock, ATTEMPTS)
    again = client.post(f"/api/games/{game_id}/review")
    assert again.status_code == 202, again.text
    assert again.json() == {"status": "queued", "progress": {"done": 0, "total": 0}, "decisions": [],
                            "attempts": 0}
    assert client.post(f"/api/games/{game_id}/review").status_code == 202
    assert work(client)
    done = client.get(f"/api/games/{game_id}/review").json()
    assert done["status"] == "done" and len(done["decisions"]) == 1


def test_asking_again_for_failed_reviews_counts_against_the_rate(tmp_path: Path, url: str) -> None:
    """Queuing a failed review again is a new request: over ``reviews_rate`` it is refused (429) and
    the review stays failed."""
    with TestClient(create_app(review_settings(tmp_path, url, reviews_rate="1/minute"))) as client:
        clock = Clock()
        first, second = failing(client, clock), failing(client, clock)
        failed_attempts(client, clock, 2 * ATTEMPTS)
        assert client.post(f"/api/games/{first}/review").status_code == 202
        refused = client.post(f"/api/games/{second}/review")
        assert refused.status_code == 429 and "too many reviews asked for" in refused.json()["error"]
        assert client.get(f"/api/games/{second}/review").json()["status"] == "failed"


def test_the_planted_blunder_is_marked_with_the_winning_move_as_best(tmp_path: Path, url: str) -> None:
    """The planted game of tests/test_review.py reviewed through the queue: its move 55, 2k@9 where
    7b@9 wins the round at once (R4, R6.1), is a blunder with 7b@9 the best move found."""
    from tests.test_review import LOSING, PLANT_AT, WINNING, planted

    with TestClient(create_app(review_settings(tmp_path, url, review_iterations=40))) as client:
        game_id = played(client, moves=1)
        service_of(client).reviews.queue.ask(game_id, dict(planted(LOSING)), "address:test")
        assert work(client)
        decisions = client.get(f"/api/games/{game_id}/review").json()["decisions"]
    [found] = [d for d in decisions if d["move"] == PLANT_AT + 1]
    assert (found["action"], found["best"], found["mark"]) == (LOSING, WINNING, "blunder")
    assert found["win_before"] - found["win_after"] >= 0.30
