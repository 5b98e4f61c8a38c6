"""A game's chat: its two rooms, who may say what, who is told, mutes, and the rate.

The players chat in the ``players`` room, spectators in the ``spectators`` room. While the game is
played a seat gets only the players' room and a spectator only the spectators'; once it is over
everyone gets both (``opened``). At a table against the AI the human seat cannot chat (there is no
chat with the AI); its spectators still may. A message is a text (outer spaces removed, 1 to
``chat_max_chars`` characters, none of them a control or formatting character) or one of the
``QUICK_MESSAGES``, kept as its key (each page shows it in its reader's language). A seat writes under
its nickname, a spectator under the ``name`` it gives (cleaned like a nickname; "spectator" if none).
Each author may send ``chat_rate`` (the ``limits`` notation): a seat per game, a spectator per socket
and per address. Text is never HTML: it is stored and sent as it was written (the page shows it as
text).

A seat may mute the other player: that player's messages are not sent to it any more (nor its
history), until it unmutes. A reader who blocks a player (``ports.Apart``) is never sent that player's
lines as a seat of any game, live or in the history, as a player or as a spectator; the blocked
player is told nothing. Every message and mute is stored (``chat_messages``, ``chat_mutes``)
before anyone is told (else ``StoreUnavailable``: the client gets ``unavailable``). A game's chat
is loaded once when a socket asks for the game (``load``): the last ``chat_history`` messages of
each room and the mutes, kept with the ``LiveGame`` (``GameChat``) so a client entering is sent
the history at once, after its state (of each room it gets where anyone wrote: a page starts with an
empty chat). A quick message is stored as ``QUICK_MARK`` and its key in
the ``text`` column (a text can hold no control character, so the two never meet).
"""

from __future__ import annotations

import asyncio
import logging
import time
import unicodedata
from collections import deque
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from ..core import metrics
from ..core.errors import StoreUnavailable, say, saying
from ..core.messages import QUICK_MESSAGES, ChatMessage, ClientError, MuteMessage
from ..core.schemas import clean_nickname
from ..core.settings import WebSettings
from ..core.vocab import Mode, Room
from ..edge.quotas import ExactWindow, Rates, address_of, seconds
from ..games.gamechat import ChatLine, GameChat
from ..games.live import LiveGame
from ..games.outbound import state_text
from ..games.ports import Apart, Cluster, Strangers
from ..games.sockets import Connection
from ..players.standing import is_muted
from ..storage.store import Store

logger = logging.getLogger("schotten.web")

SPECTATOR_NAME = "spectator"
"""The name of a spectator who gives none."""
ADD_TRIES = 3
"""How many times a message is stored again when another took its index meanwhile."""


def rooms_of(game: LiveGame, seat: int | None) -> tuple[Room, ...]:
    """The rooms a client of ``seat`` gets now."""
    if game.finished:
        return (Room.PLAYERS, Room.SPECTATORS)
    return (Room.SPECTATORS,) if seat is None else (Room.PLAYERS,)


def shown_to(line: ChatLine, seat: int | None, chat: GameChat) -> bool:
    """Whether ``line`` is sent to a client of ``seat`` (not if its author is a player it muted)."""
    return not (seat is not None and line.seat is not None and line.seat != seat and chat.muted(seat))


def author_of(game: LiveGame, line: ChatLine) -> int | None:
    """The account that wrote ``line``: the one stored with it, else its seat's (None: a guest)."""
    if line.account is not None:
        return line.account
    return game.info.accounts[line.seat] if line.seat in (0, 1) else None


def chat_message(room: Room, lines: list[ChatLine], full: bool) -> dict[str, Any]:
    """The chat message of ``lines`` of ``room``: its history (``full``) or new ones."""
    return {"type": "chat", "room": str(room), "full": full, "messages": [line.told() for line in lines]}


def clean_text(value: str, limit: int) -> str:
    """A chat text with its outer spaces removed; ClientError ``cannot_chat`` saying what is wrong."""
    text = value.strip()
    if not 1 <= len(text) <= limit:
        raise ClientError("cannot_chat", f"a chat message has 1 to {limit} characters; this one has "
                          f"{len(text)}" + (" (after removing the outer spaces)" if text != value else ""))
    for char in text:
        if unicodedata.category(char).startswith("C"):
            raise ClientError("cannot_chat", f"a chat message may not hold U+{ord(char):04X}: it is a "
                              "control, formatting or invalid character (a message is one line of text)")
    return text


CHAT_FULL = saying("This game's chat holds {limit} messages, the most it may: no more can be sent here.")
CHAT_RATE = saying("wait {wait} before the next")
"""Why a chat message was not sent (the page says "Not sent: you are writing too fast (...)")."""

class Chat:
    """The chat of every served game: checks, stores and sends its messages and mutes."""

    def __init__(self, settings: WebSettings, store: Store, peers: Cluster,
                 apart: Apart | None = None) -> None:
        self.settings = settings
        self.store = store
        self.peers = peers
        self.apart: Apart = apart if apart is not None else Strangers()
        self.rates = Rates("chat_rate", settings.chat_rate, ExactWindow())

    # ------------------------------------------------------------ loading and entering

    async def load(self, game: LiveGame) -> None:
        """Read the game's chat (last messages of each room, mutes) once; ``StoreUnavailable`` if not now."""
        chat = game.chat
        if chat.loaded:
            return
        async with chat.lock:
            if chat.loaded:
                return
            rooms, mutes = await asyncio.to_thread(self._read, game.info.id)
            limit = self.settings.chat_history
            chat.rooms = {room: deque(lines, maxlen=limit) for room, lines in rooms.items()}
            chat.mutes = mutes
            chat.opened = game.finished
            chat.loaded = True

    def _read(self, game_id: str) -> tuple[dict[Room, list[ChatLine]], set[int]]:
        limit = self.settings.chat_history
        rooms = {room: [ChatLine.stored(room, row) for row in self.store.chat_lines(game_id, room, limit)]
                 for room in Room}
        return rooms, self.store.chat_mutes(game_id)

    async def know(self, conn: Connection) -> None:
        """Learn whose lines the reader of an arriving client blocks."""
        if conn.reader is not None:
            await self.apart.know(conn.reader)

    def _shown(self, game: LiveGame, line: ChatLine, conn: Connection) -> bool:
        """Whether ``line`` is sent to ``conn``: not muted by its seat, its author not blocked by its
        reader."""
        hidden = self.apart.hides(conn.reader, author_of(game, line))
        return not hidden and shown_to(line, conn.seat, game.chat)

    def enter(self, game: LiveGame, conn: Connection) -> None:
        """Send a client arriving the history of each room it gets (none of a room nobody wrote in)."""
        for room in rooms_of(game, conn.seat):
            self._send_history(game, conn, room, always=False)

    def _send_history(self, game: LiveGame, conn: Connection, room: Room, always: bool = True) -> None:
        held = game.chat.rooms[room]
        if held or always:
            lines = [line for line in held if self._shown(game, line, conn)]
            conn.send(chat_message(room, lines, full=True))

    def opened(self, game: LiveGame) -> None:
        """Once the game is over: send every client the history of the room it did not get."""
        chat = game.chat
        if chat.opened or not chat.loaded or not game.finished:
            return
        chat.opened = True
        for conn in list(game.connections):
            other = Room.PLAYERS if conn.seat is None else Room.SPECTATORS
            self._send_history(game, conn, other, always=False)

    def muted(self, game: LiveGame, seat: int | None) -> bool:
        """Whether ``seat`` muted the other player's chat in ``game``."""
        return game.chat.muted(seat)

    # ------------------------------------------------------------ messages

    async def say(self, game: LiveGame, conn: Connection, message: ChatMessage) -> None:
        """A client's chat message: checked, counted against the rate, stored, then sent to every
        client that gets its room (not to a seat that muted its author)."""
        seat = conn.seat
        if seat is not None and game.info.mode == Mode.AI:
            raise ClientError("cannot_chat", "there is no chat with the AI: only the spectators of this "
                              "game chat, among themselves")
        text, quick = self._content(message)
        name = self._name(game, seat, message.name)
        room = Room.SPECTATORS if seat is None else Room.PLAYERS
        await self.load(game)
        async with game.chat.lock:
            await self._check_not_muted(game, conn)
            self._charge(game, conn)
            line = await self._store(game.info.id, ChatLine(-1, room, seat, name, text, quick,
                                                            account=conn.reader))
            self._show(game, line)
        self.peers.said(game, {"room": str(room), **line.told(), "account": line.account})

    def _show(self, game: LiveGame, line: ChatLine) -> None:
        """Keep a stored line in its room and send it to every client here that gets it."""
        room = game.chat.rooms[line.room]
        room.append(line)
        while len(room) > self.settings.chat_history:
            room.popleft()
        for client in list(game.connections):
            if line.room in rooms_of(game, client.seat) and self._shown(game, line, client):
                client.send(chat_message(line.room, [line], full=False))

    def heard(self, game: LiveGame, data: dict[str, Any]) -> None:
        """A line another server process stored: sent to the clients here (if this process holds the
        game's chat; else it reads it with the rest when it loads)."""
        if not game.chat.loaded:
            return
        try:
            line = ChatLine.heard(data)
        except (KeyError, ValueError, TypeError):
            logger.error("game %s: a chat line heard from another process was malformed", game.info.id)
            return
        if all(held.index != line.index for held in game.chat.rooms[line.room]):
            self._show(game, line)

    def heard_mute(self, game: LiveGame, seat: int, muted: bool) -> None:
        """Another server process stored that ``seat`` muted (or unmuted) the other player."""
        if game.chat.loaded and seat in (0, 1):
            (game.chat.mutes.add if muted else game.chat.mutes.discard)(seat)
            self._tell_muted(game, seat)

    async def _check_not_muted(self, game: LiveGame, conn: Connection) -> None:
        """Refuse the line of an account a moderator muted or banned (the socket's reader, else its
        seat's account, which a log-in may have given the seat since the socket opened), saying until
        when and why (under the chat's lock: lines keep their order)."""
        account = conn.reader
        if account is None and conn.seat is not None:
            account = game.info.accounts[conn.seat]
        if account is None:
            return
        found = await asyncio.to_thread(is_muted, self.store, account, datetime.now(UTC))
        if found is not None:
            sentence = found.banned_sentence() if found.banned else found.muted_sentence()
            raise ClientError("cannot_chat", sentence)

    def _content(self, message: ChatMessage) -> tuple[str | None, str | None]:
        if message.text is not None and message.quick is not None:
            raise ClientError("cannot_chat", 'a chat message has a "text" or a "quick" message, not both')
        if message.quick is not None:
            return None, message.quick
        if message.text is None:
            quick = ", ".join(QUICK_MESSAGES)
            raise ClientError("cannot_chat", f'a chat message needs a "text" or a "quick" message ({quick})')
        return clean_text(message.text, self.settings.chat_max_chars), None

    @staticmethod
    def _name(game: LiveGame, seat: int | None, given: str | None) -> str:
        if seat is not None:
            return game.info.players[seat] or f"player {seat + 1}"
        if given is None:
            return SPECTATOR_NAME
        try:
            return clean_nickname(given)
        except ValueError as error:
            raise ClientError("cannot_chat", f"bad name: {error}") from None

    def _charge(self, game: LiveGame, conn: Connection) -> None:
        """Count one message of its author (a seat; a spectator's socket and address), or refuse it
        (``limit``, nothing counted)."""
        if conn.seat is not None:
            keys = [f"seat:{game.info.id}:{conn.seat}"]
        else:
            keys = [f"socket:{id(conn)}", f"address:{address_of(getattr(conn.socket, 'client', None))}"]
        rates, limiter = self.rates, self.rates.limiter
        blocked = {item for key in keys for item in rates.items if not limiter.test(item, rates.name, key)}
        if not blocked:
            for key in keys:
                for item in rates.items:
                    limiter.hit(item, rates.name, key)
            return
        metrics.REFUSED.labels("chat_rate").inc()
        now = time.time()
        wait = max(limiter.get_window_stats(item, rates.name, key).reset_time - now
                   for key in keys for item in blocked)
        who = "you" if conn.seat is not None else "this socket or your address"
        raise ClientError("limit", f"too many chat messages from {who} (at most "
                          f"{', '.join(str(item) for item in blocked)}): this one was not sent; wait "
                          f"{seconds(wait)} before the next", say(CHAT_RATE, wait=seconds(wait)))

    async def _store(self, game_id: str, line: ChatLine) -> ChatLine:
        try:
            cap = self.settings.chat_lines_per_game
            index = await asyncio.to_thread(self.store.add_chat, game_id, str(line.room), line.seat,
                                            line.name, line.stored_text, line.time, ADD_TRIES, cap,
                                            line.account)
        except StoreUnavailable:
            raise
        except Exception as error:
            metrics.STORE_ERRORS.inc()
            logger.exception("game %s: a chat message could not be stored", game_id)
            raise StoreUnavailable(f"a chat message of game {game_id} was not stored") from error
        if index is None:
            raise ClientError("limit", f"this game's chat holds {cap} chat messages, the most it may: no "
                              "more can be sent here", say(CHAT_FULL, limit=cap))
        return replace(line, index=index)

    # ------------------------------------------------------------ mutes

    async def mute(self, game: LiveGame, conn: Connection, message: MuteMessage) -> None:
        """A seat mutes (or unmutes) the other player: stored, then each of that seat's clients gets
        its state (``chat_muted``) and the players' history as it now may see it."""
        seat = conn.seat
        if seat is None:
            raise ClientError("spectator", "spectators cannot mute anyone: only a player may mute the "
                              "other player's chat")
        if game.info.mode == Mode.AI:
            raise ClientError("cannot_chat", "there is no chat with the AI: nobody to mute")
        await self.load(game)
        async with game.chat.lock:
            if message.muted != game.chat.muted(seat):
                await asyncio.to_thread(self.store.set_chat_mute, game.info.id, seat, message.muted)
                (game.chat.mutes.add if message.muted else game.chat.mutes.discard)(seat)
                self.peers.muted(game, seat, message.muted)
            self._tell_muted(game, seat)

    def _tell_muted(self, game: LiveGame, seat: int) -> None:
        """Send each client of ``seat`` its state (``chat_muted``) and the players' history it may see."""
        for client in [c for c in game.connections if c.seat == seat]:
            client.send(state_text(game, seat))
            self._send_history(game, client, Room.PLAYERS)
