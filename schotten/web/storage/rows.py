"""What the store hands out: a game's row (``GameInfo``) and its log's entries (``Entry``), as plain
values, and how they are read from and written to the ORM rows (nothing outside ``storage`` touches
an ORM session)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from ..core.clock import Clock, TimeControl
from ..core.offer import Offer, OfferState
from ..core.vocab import Ending, Mode, Status
from .db import ClosedRematchRow, GameRow, LogRow, RematchRow, TournamentGameRow, TournamentRow, utc

ACTION = "action"
UNDO = "undo"
END = "end"
"""The kind of the entry that ends a game off the board (its notation: an ``Ending``)."""
UNDO_SEPARATOR = "; "
"""Between the moves an ``undo`` entry's notation lists (the moves it took back)."""



@dataclass(frozen=True, slots=True)
class TournamentLink:
    """The tournament a game belongs to, as its page names it: ``format`` arena or swiss, ``ends_at``
    an arena's end (None: a Swiss, which ends after its rounds)."""

    id: int
    name: str
    format: str
    ends_at: datetime | None


@dataclass(slots=True)
class GameInfo:
    """A game's row: settings, seed, seats (nicknames, token hashes), status and winner.

    ``rematch`` is this game's rematch offer while it is open or accepted, ``rematch_of`` the game
    this table is the rematch of. ``rematch_closed`` is, for a finished game with no rematch,
    its last offer that was withdrawn or declined (if any); for a closed rematch table, its own.
    ``clock`` is the game's clock (None: untimed), ``ended`` how it ended off the board (None: it
    did not), ``moved`` when its last entry was stored.
    """

    id: str
    variant: str
    rounds: int
    seed: int
    mode: Mode
    level: str | None
    ai_seat: int | None
    players: list[str | None]
    token_hashes: list[str | None]
    status: Status
    winner: int | None = None
    created: datetime = field(default_factory=lambda: datetime.now(UTC))
    rematch: Offer | None = None
    rematch_of: str | None = None
    rematch_closed: Offer | None = None
    clock: Clock | None = None
    ended: Ending | None = None
    moved: datetime | None = None
    accounts: list[int | None] = field(default_factory=lambda: [None, None])
    """The account of each seat (None: a guest, the AI or a free seat)."""
    rated: bool = False
    rating_range: tuple[int | None, int | None] = (None, None)
    """An open challenge's bounds on the rating of who may take its free seat."""
    unrated: str | None = None
    """Why the game, created rated, changed no rating when it ended (``players.rating_rules``)."""
    hints: bool = False
    """Whether the human may ask for hints (against the AI only: such a game is never rated)."""
    hints_used: int = 0
    tournament: TournamentLink | None = None
    """The tournament this game is played in (read with the rematch links: ``with_links``)."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One log entry: ``kind`` is ``action``, ``undo`` or ``end``; ``index`` counts from 0;
    ``spent_ms`` is how long the decision took (None: untimed)."""

    index: int
    kind: str
    notation: str
    seat: int
    time: datetime = field(default_factory=lambda: datetime.now(UTC))
    spent_ms: int | None = None


def info_of(row: GameRow) -> GameInfo:
    """The game of a ``games`` row (without its rematch links: see ``with_links``)."""
    return GameInfo(
        id=row.id,
        variant=row.variant,
        rounds=row.rounds,
        seed=row.seed,
        mode=Mode(row.mode),
        level=row.ai_level,
        ai_seat=row.ai_seat,
        players=[row.player0, row.player1],
        token_hashes=[row.token_hash0, row.token_hash1],
        status=Status(row.status),
        winner=row.winner,
        created=utc(row.created),
        clock=clock_of(row),
        ended=Ending(row.ended) if row.ended else None,
        moved=utc(row.moved) if row.moved is not None else None,
        accounts=[row.account0, row.account1],
        rated=bool(row.rated),
        rating_range=(row.min_rating, row.max_rating),
        unrated=row.unrated,
        hints=bool(row.hints),
        hints_used=row.hints_used or 0,
    )


def clock_of(row: GameRow) -> Clock | None:
    """The game's clock from its columns (None: untimed)."""
    if row.clock_initial is None and row.clock_days is None:
        return None
    control = TimeControl(row.clock_initial, row.clock_increment or 0, row.clock_days)
    left = (control.allowance_ms if row.clock_ms0 is None else row.clock_ms0,
            control.allowance_ms if row.clock_ms1 is None else row.clock_ms1)
    since = utc(row.clock_since) if row.clock_since is not None else None
    bare = row.clock_bare or 0
    return Clock(control, left, row.clock_seat if since is not None else None, since,
                 (bool(bare & 1), bool(bare & 2)))


def bare_value(clock: Clock | None) -> int | None:
    """The ``clock_bare`` column of a clock: its seats without increment as bits (None: none)."""
    if clock is None or not any(clock.no_increment):
        return None
    return int(clock.no_increment[0]) | 2 * int(clock.no_increment[1])


def clock_values(clock: Clock | None) -> dict[str, Any]:
    """The games columns that hold what changes of a clock (all None for an untimed game)."""
    if clock is None:
        return {"clock_ms0": None, "clock_ms1": None, "clock_seat": None, "clock_since": None,
                "deadline": None}
    return {"clock_ms0": clock.left[0], "clock_ms1": clock.left[1], "clock_seat": clock.running,
            "clock_since": utc(clock.since) if clock.since else None,
            "deadline": utc(clock.deadline) if clock.deadline else None}


def row_of(info: GameInfo) -> GameRow:
    """The ``games`` row of a new game (pairing inserts one in its own transaction)."""
    control = info.clock.control if info.clock is not None else None
    return GameRow(
        clock_initial=control.initial if control else None,
        clock_increment=control.increment if control and not control.turn_based else None,
        clock_days=control.days if control else None,
        clock_bare=bare_value(info.clock),
        ended=str(info.ended) if info.ended else None,
        moved=utc(info.moved) if info.moved else None,
        **clock_values(info.clock),
        id=info.id,
        variant=info.variant,
        rounds=info.rounds,
        seed=info.seed,
        mode=str(info.mode),
        ai_level=info.level,
        ai_seat=info.ai_seat,
        player0=info.players[0],
        player1=info.players[1],
        token_hash0=info.token_hashes[0],
        token_hash1=info.token_hashes[1],
        status=str(info.status),
        winner=info.winner,
        created=utc(info.created),
        account0=info.accounts[0],
        account1=info.accounts[1],
        rated=info.rated,
        min_rating=info.rating_range[0],
        max_rating=info.rating_range[1],
        hints=info.hints,
        hints_used=info.hints_used,
    )


def with_links(session: Session, infos: list[GameInfo]) -> list[GameInfo]:
    """Fill in each game's rematch, its closed offer, the game it is the rematch of and its tournament
    (three queries)."""
    ids = [info.id for info in infos]
    if not ids:
        return infos
    query = (
        select(RematchRow, GameRow.token_hash0, GameRow.token_hash1)
        .join(GameRow, GameRow.id == RematchRow.rematch_id)
        .where(or_(RematchRow.game_id.in_(ids), RematchRow.rematch_id.in_(ids)))
    )
    rematches: dict[str, Offer] = {}
    origins: dict[str, str] = {}
    for link, hash0, hash1 in session.execute(query):
        other = hash1 if link.by_seat == 0 else hash0
        state = OfferState.OPEN if other is None else OfferState.ACCEPTED
        rematches[link.game_id] = Offer(link.rematch_id, link.game_id, link.by_seat, state)
        origins[link.rematch_id] = link.game_id
    closed = _closed_links(session, ids)
    for info in infos:
        info.rematch, info.rematch_of = rematches.get(info.id), origins.get(info.id)
        own = closed.get(info.id)
        if own is not None and own.id == info.id:
            info.rematch_of = own.game
        info.rematch_closed = own if info.rematch is None else None
    tournaments = _tournaments(session, ids)
    for info in infos:
        info.tournament = tournaments.get(info.id)
    return infos


def _tournaments(session: Session, ids: list[str]) -> dict[str, TournamentLink]:
    """The tournament of each of ``ids`` played in one (``tournament_games``; an arena ends ``minutes``
    after its start, as ``tournaments.records.Tournament.ends_at`` says)."""
    query = (select(TournamentGameRow.game_id, TournamentRow.id, TournamentRow.name, TournamentRow.format,
                    TournamentRow.starts_at, TournamentRow.minutes)
             .join(TournamentRow, TournamentRow.id == TournamentGameRow.tournament_id)
             .where(TournamentGameRow.game_id.in_(ids)))
    found: dict[str, TournamentLink] = {}
    for game_id, number, name, format_, starts_at, minutes in session.execute(query):
        ends_at = None if minutes is None else utc(starts_at) + timedelta(minutes=minutes)
        found[str(game_id)] = TournamentLink(number, name, format_, ends_at)
    return found


def _closed_links(session: Session, ids: list[str]) -> dict[str, Offer]:
    """For each of ``ids``: its own closed offer (a closed rematch table), else its latest one (a game)."""
    query = (
        select(ClosedRematchRow)
        .where(or_(ClosedRematchRow.game_id.in_(ids), ClosedRematchRow.rematch_id.in_(ids)))
        .order_by(ClosedRematchRow.closed, ClosedRematchRow.rematch_id)
    )
    found: dict[str, Offer] = {}
    for row in session.scalars(query):
        offer = Offer(row.rematch_id, row.game_id, row.by_seat, OfferState(row.reason))
        found[row.game_id] = offer
        found[row.rematch_id] = offer
    return found


def entry_of(row: LogRow) -> Entry:
    return Entry(row.index, row.kind, row.notation, row.seat, utc(row.time), row.spent_ms)


def finished(session: Session, ids: list[str]) -> set[str]:
    """Those of ``ids`` stored as finished or closed (one not stored yet, or no longer, is not)."""
    wanted = [i for i in ids if "\x00" not in i]
    if not wanted:
        return set()
    query = select(GameRow.id).where(GameRow.id.in_(wanted),
                                     GameRow.status.in_([Status.OVER.value, Status.CLOSED.value]))
    return set(session.scalars(query))
