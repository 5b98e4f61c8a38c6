"""The fair-play figures of the moderators' queue (issue 29, ``moderation.evidence``, docs/web/moderation.md):
their values, from games and finished reviews written through the store, read back through
``GET /api/moderation/reports``. Each test runs on SQLite and on PostgreSQL (when
``SCHOTTEN_TEST_POSTGRES_URL`` is set, see test_postgres)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from helpers_web import service_of, test_settings
from starlette.testclient import TestClient
from test_moderation import account_id, grant, member
from test_postgres import database_url, server_url  # noqa: F401  (fixtures)

from schotten.web.app import create_app
from schotten.web.moderation import evidence
from schotten.web.storage.db import GameRow, RatingRow, ReviewRow

START = datetime(2024, 5, 1, 12, tzinfo=UTC)
BAND = "base.realtime 1600-1799"
Share = tuple[int, int]
"""A seat's decisions in a review: (how many were the best move, how many there were)."""


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The database of the test: a SQLite file, or a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'games.db'}"
    found: str = request.getfixturevalue("database_url")
    return found


@pytest.fixture
def client(tmp_path: Path, url: str) -> Iterator[TestClient]:
    """An app on the test's database."""
    with TestClient(create_app(test_settings(tmp_path, database_url=url))) as client:
        yield client


class Site:
    """The test's players (signed up through the API) and the rows written for them."""

    def __init__(self, client: TestClient, url: str, *names: str) -> None:
        self.client = client
        self.browsers = {name: member(client, name) for name in names}
        self.ids = {name: account_id(client, name) for name in names}
        self.games = 0
        self.moderator = member(client, "mod")
        grant(url, "mod")

    def rate(self, name: str, rating: float, pool: str = "base.realtime", games: int = 10) -> None:
        """Give ``name`` a rating in ``pool``."""
        with service_of(self.client).store.use() as session, session.begin():
            session.add(RatingRow(account_id=self.ids[name], pool=pool, rating=rating, rd=60.0,
                                  volatility=0.06, games=games, wins=games, losses=0, draws=0, played=START))

    def game(self, seats: tuple[str, str], shares: tuple[Share, Share], variant: str = "base",
             days: int | None = None, rated: bool = True, status: str = "done") -> None:
        """A finished game between ``seats`` (created after the previous one), with a review in
        ``status`` in which seat i made ``shares[i][1]`` decisions, ``shares[i][0]`` of them the best."""
        self.games += 1
        game_id = f"g{self.games}"
        decisions = [decision for seat, (agreed, made) in enumerate(shares)
                     for decision in decisions_of(seat, agreed, made)]
        with service_of(self.client).store.use() as session, session.begin():
            session.add(GameRow(id=game_id, variant=variant, rounds=1, seed=self.games, mode="friend",
                                status="over", winner=0, created=START + timedelta(minutes=self.games),
                                clock_days=days, account0=self.ids[seats[0]], account1=self.ids[seats[1]],
                                rated=rated))
            session.flush()
            session.add(ReviewRow(game_id=game_id, status=status, record="{}", done=len(decisions),
                                  total=len(decisions), requested_by="account:1", requested=START,
                                  result=json.dumps(decisions) if status == "done" else None))

    def figures(self, *names: str) -> dict[str, dict[str, Any]]:
        """Report each of ``names`` and read their ``fair_play`` figures off the moderators' queue."""
        reporter = self.browsers["ann"]
        for name in names:
            filed = reporter.post("/api/reports", json={"player": name, "reason": "cheating"})
            assert filed.status_code == 201, filed.text
        answer = self.moderator.get("/api/moderation/reports")
        assert answer.status_code == 200, answer.text
        return {report["player"]: report["fair_play"] for report in answer.json()["reports"]}


def decisions_of(seat: int, agreed: int, made: int) -> list[dict[str, Any]]:
    """``made`` decisions of ``seat`` (0 or 1) as a review stores them, the first ``agreed`` the best."""
    return [{"move": 2 * index + seat + 1, "seat": seat + 1, "action": "6b@4" if index < agreed else "7k@1",
             "best": "6b@4", "win_before": 0.5, "win_after": 0.5, "mark": None} for index in range(made)]


def test_the_figures_are_as_documented(client: TestClient, url: str) -> None:
    """The constants are the documented ones. Bob's agreement counts his seats' decisions in his
    reviewed rated games of every pool (4 of 5); his band is his most played pool's, 200 wide; the
    band's figure counts seats of players rated in it now (1600 in, 1800 out) in that pool's reviewed
    rated games only (3 of 4 for Bob, 1 of 5 for Cat: 4 of 9). Unrated games, unfinished reviews and
    other pools count for no band."""
    assert (evidence.GAMES, evidence.SAMPLE, evidence.BAND) == (20, 500, 200)
    site = Site(client, url, "ann", "bob", "cat", "dan", "fay", "gus")
    for name, rating in (("ann", 1900.0), ("bob", 1650.0), ("cat", 1600.0), ("dan", 1800.0), ("fay", 1799.0)):
        site.rate(name, rating)
    site.rate("bob", 2100.0, pool="tactics.realtime", games=1)
    site.game(("bob", "ann"), ((2, 2), (0, 3)))
    site.game(("ann", "bob"), ((3, 3), (1, 2)))
    site.game(("bob", "ann"), ((1, 1), (0, 1)), variant="tactics")
    site.game(("cat", "dan"), ((1, 5), (4, 4)))
    site.game(("bob", "cat"), ((0, 3), (3, 3)), rated=False)
    site.game(("bob", "fay"), ((0, 3), (3, 3)), status="queued")
    site.game(("cat", "ann"), ((5, 5), (0, 5)), days=1)
    found = site.figures("bob", "fay", "gus")
    assert found["bob"] == {"games": 3, "decisions": 5, "agreement": 0.8, "band": BAND,
                            "band_agreement": 0.444, "band_decisions": 9}
    assert found["fay"] == {"games": 0, "decisions": 0, "agreement": None, "band": BAND,
                            "band_agreement": 0.444, "band_decisions": 9}
    assert found["gus"] == {"games": 0, "decisions": 0, "agreement": None, "band": None,
                            "band_agreement": None, "band_decisions": 0}


def test_only_the_last_games_count(client: TestClient, url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """With room for two games: Bob's agreement is over his last two reviewed rated games (3 of 3, not
    his older 0 of 2); the band's over the band's pool's last two (3 of 5), however many newer games
    another pool has."""
    monkeypatch.setattr(evidence, "GAMES", 2)
    monkeypatch.setattr(evidence, "SAMPLE", 2)
    site = Site(client, url, "ann", "bob", "cat")
    for name, rating in (("ann", 1900.0), ("bob", 1650.0), ("cat", 1700.0)):
        site.rate(name, rating)
    site.game(("bob", "ann"), ((0, 2), (2, 2)))
    site.game(("ann", "bob"), ((2, 2), (1, 1)))
    site.game(("bob", "cat"), ((2, 2), (0, 2)))
    site.game(("cat", "ann"), ((4, 4), (0, 4)), variant="tactics")
    site.game(("cat", "ann"), ((4, 4), (0, 4)), days=3)
    (found,) = site.figures("bob").values()
    assert found == {"games": 2, "decisions": 3, "agreement": 1.0, "band": BAND,
                     "band_agreement": 0.6, "band_decisions": 5}

