"""A game's changes: actions, undos and endings, each checked, stored, then made the game's and told.

A change is checked by the engine (its checked ``apply``, on a copy of the state), written to the
log with the game's status (``storage.writer`` stores the entries of many games that arrive
together in one transaction) and only then made the game's state; every client then gets its own
view (R10) on its own queue, never waited on under the lock.
"""

from __future__ import annotations

import logging

from ...engine import ACTIONS, GameState, IllegalActionError, NotationError
from ..core import metrics
from ..core.errors import LogConflict, StoreUnavailable
from ..core.messages import ActionMessage, ClientError
from ..core.vocab import Ending, Mode, Status
from ..storage.rows import ACTION, END, UNDO, Entry
from ..storage.writer import Writer
from .catchup import CatchUp
from .context import Context
from .gamelog import rebuilt, undo_notation, undo_span
from .live import LiveGame
from .news import News
from .ports import Cluster

logger = logging.getLogger("schotten.web")


class Play:
    """Every change to a served game, one at a time under its lock, stored before it is told."""

    def __init__(self, context: Context, news: News, cluster: Cluster, catchup: CatchUp,
                 writer: Writer) -> None:
        self.context = context
        self.news = news
        self.cluster = cluster
        self.catchup = catchup
        self.writer = writer

    async def act(self, game: LiveGame, seat: int | None, message: ActionMessage) -> None:
        """A client's action: checked (seat, version, turn, then the engine's checked ``apply`` on a
        copy of the state), logged, made the game's state and sent."""
        if seat is None:
            raise ClientError("spectator", "spectators cannot play: open the game with your seat's link")
        async with game.lock:
            if message.version is not None and message.version != game.version:
                raise ClientError(
                    "stale", f"your state is out of date (version {message.version}, now {game.version})"
                )
            _check_turn(game, seat)
            await self.check_time(game, seat)
            after = game.state.copy()
            try:
                after.apply(message.action)
            except NotationError as error:
                raise ClientError("unknown_action", str(error)) from None
            except IllegalActionError as error:
                raise ClientError("illegal_action", str(error)) from None
            await self.commit(game, ACTION, str(ACTIONS[after.history[-1]]), seat, after)

    async def undo(self, game: LiveGame, seat: int | None) -> None:
        """A seat's misclick undo (see ``gamelog.undo_span``), stored as an undo entry."""
        if seat is None:
            raise ClientError("spectator", "spectators cannot undo moves")
        async with game.lock:
            if game.info.status in (Status.OPEN, Status.CLOSED):
                raise ClientError("cannot_undo", "nothing to take back: the game has not started")
            if game.finished:
                raise ClientError("cannot_undo", "the game is over: nothing can be taken back")
            await self.check_time(game, seat)
            span = undo_span(game.state, seat)
            if isinstance(span, str):
                raise ClientError("cannot_undo", span)
            limit = game.undo_limit
            if not game.undos_left(seat):
                raise ClientError("cannot_undo", f"you have used all {limit} undos of this game: "
                                  f"each player may take back a move at most {limit} times per game")
            after = rebuilt(game.state, len(game.state.history) - span)
            await self.commit(game, UNDO, undo_notation(game.state, span), seat, after)
            game.undos[seat] += 1

    async def check_time(self, game: LiveGame, seat: int) -> None:
        """Under the game's lock: if ``seat``'s clock has run out, the game ends on time and the
        decision is refused (``time_up``)."""
        clock = game.info.clock
        if clock is not None and clock.running == seat and clock.flagged(self.context.now()):
            await self.end(game, Ending.TIME, seat)
            raise ClientError("time_up", "your time ran out before this move arrived: the game is lost "
                              "on time")

    async def end(self, game: LiveGame, ending: Ending, seat: int) -> None:
        """End the game off the board (under its lock): an ``end`` entry against ``seat``; a forfeit
        gives the match to the other seat, an abort or an abandonment to nobody."""
        after = game.state.copy()
        if ending.forfeits:
            after.forfeit(seat, str(ending))
        await self.commit(game, END, str(ending), seat, after, ending)
        logger.info("game %s ended: %s (seat %d)", game.info.id, ending, seat)

    async def commit(self, game: LiveGame, kind: str, notation: str, seat: int, after: GameState,
                     ended: Ending | None = None) -> None:
        """Write one log entry (group commit) with the game's clock after it, then make ``after`` the
        game's state and tell every client. ``StoreUnavailable`` (nothing changed) if it could not be
        stored; ``stale`` if another process stored the game's next entry first."""
        now = self.context.now()
        status = Status.OVER if after.is_over or ended is not None else game.info.status
        winner = after.outcome.winner if after.outcome is not None else None
        clock, spent = game.info.clock, None
        if clock is not None:
            spent = None if kind == END else max(0, int((now - game.mark).total_seconds() * 1000))
            clock = clock.after_decision(seat, now, game.clock_seat(after, status))
        entry = Entry(game.version, kind, notation, seat, now, spent)
        try:
            await self.writer.append(game.info.id, entry, status, winner, clock, ended)
        except LogConflict:
            await self.catchup.refreshed(game)
            raise ClientError("stale", "another move reached the game first: your state is out of date, "
                              "here is the game as it now stands") from None
        except StoreUnavailable:
            raise
        except Exception as error:
            raise _not_stored(game, entry) from error
        kept = min(len(game.state.history), len(after.history))
        game.state, game.version, game.mark = after, entry.index + 1, now
        game.info.status, game.info.winner, game.info.clock, game.info.moved = status, winner, clock, now
        if kind == ACTION:
            game.decided[seat] = True
        if ended is not None:
            game.info.ended, game.ending = ended, (ended, seat)
        self.news.tell(game, kept)
        self.cluster.changed(game, entry)
        self.news.kick_ai(game)
        if clock is not None:
            self.news.wake_clocks()


def _not_stored(game: LiveGame, entry: Entry) -> StoreUnavailable:
    """The refusal of an entry the database failed to store for an unforeseen reason (logged, counted)."""
    metrics.STORE_ERRORS.inc()
    logger.exception("game %s: entry %d could not be stored", game.info.id, entry.index)
    return StoreUnavailable(f"entry {entry.index} of game {game.info.id} was not stored")


def _check_turn(game: LiveGame, seat: int) -> None:
    """Refuse a decision of ``seat`` when the game is over, not begun, or not at its turn."""
    if game.finished:
        raise ClientError("illegal_action", "the game is over: no action is legal")
    if game.info.status == Status.CLOSED:
        raise ClientError("illegal_action", "this table is closed: its rematch offer was withdrawn or "
                          "declined, so no game is played here")
    if game.info.status == Status.OPEN:
        raise ClientError("not_your_turn", "wait for your opponent to take the other seat")
    if game.state.turn != seat:
        who = "the AI's" if game.info.mode == Mode.AI else "your opponent's"
        raise ClientError("not_your_turn", f"it is {who} turn: wait for your turn")
