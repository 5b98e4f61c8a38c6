"""Helpers for the web tests: tables over the API, games over WebSockets, the expected messages.

A test fixes each new game's seed (``service.new_seed``), so it can keep its own copy of
the game (a ``GameState`` replayed with the engine) and compute, independently of the
server, exactly what each socket may receive: ``expected_state`` builds the state message
from ``view(state, seat)`` (R10), and ``leaked`` lists any card a message shows that its
seat may not know.
"""

from __future__ import annotations

import json
import random
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient, WebSocketTestSession

from schotten.engine import ACTIONS, GameState, Kind, Phase, Settings
from schotten.engine.actions import action_parts
from schotten.engine.cards import NUM_STONES, card_str
from schotten.engine.explain import claim_proof, formations
from schotten.engine.view import public_history, public_log, reveal, round_board, view
from schotten.engine.whynot import WhyNot
from schotten.web import create_app
from schotten.web.core.settings import WebSettings
from schotten.web.games.gamelog import undo_span
from schotten.web.service import GameService
from schotten.web.storage.rows import Entry

SEED = 7_318_092_455_120_386_611
"""The seed of the test games (never to be seen in a message before the end)."""

STATE_KEYS = {"type", "version", "seat", "players", "view", "last", "can_undo", "claims", "legal",
              "auto_draw", "formations", "log_from", "log", "round_end", "status", "reveal", "rematch",
              "rematch_of", "rematch_closed", "clock", "clocks", "clock_running", "ended", "can_resign",
              "can_abort", "can_claim_victory", "away", "chat_muted", "why_not", "ai_seat"}
CARD_TEXT = re.compile(r"(?<![A-Za-z0-9])([1-9][gbrypk]|JO|SP|SH|BB|MF|ST|BA|TR|RE)(?![A-Za-z0-9])")

Message = dict[str, Any]
WORKED_OUT = ("claims", "why_not", "formations", "round_end")
"""Parts of a state message worked out from public cards only (claim proofs, why a stone may not be
claimed and formations name the cards elite troops stand for and best completions, which may be
anywhere): a leak check skips them, as the exact-message check shows they are the engine's public
data (and ``test_game_page`` that ``why_not`` is the same whatever the opponent holds)."""


GENEROUS_LIMITS: dict[str, Any] = {
    "flood_limit": 100_000,
    "address_rate": "100000/second",
    "tables_rate": "100000/second",
    "open_tables_per_address": 100_000,
    "ai_tables_per_address": 100_000,
    "sockets_per_address": 100_000,
    "spectators_per_game": 100_000,
    "login_rate": "100000/second",
    "login_address_rate": "100000/second",
    "login_untrusted_rate": "100000/second",
    "signup_rate": "100000/second",
}
"""Limits no test reaches unless it is about them: every test client has one address."""
GENEROUS_ENV = {f"SCHOTTEN_{name.upper()}": str(value) for name, value in GENEROUS_LIMITS.items()}
"""``GENEROUS_LIMITS`` as the environment of a server run in a subprocess."""


def test_settings(tmp_path: Path, **changes: Any) -> WebSettings:
    """Settings for a test: a SQLite file in ``tmp_path``, AI in threads, limits no test reaches
    (``GENEROUS_LIMITS``) unless ``changes`` lower them."""
    values: dict[str, Any] = {
        "database_url": f"sqlite:///{tmp_path / 'games.db'}",
        "ai_processes": False,
        "ai_workers": 1,
        "static_dir": tmp_path / "static",
        "locale_dir": tmp_path / "locale",
    } | GENEROUS_LIMITS
    values.update(changes)
    return WebSettings(**values)


test_settings.__test__ = False  # type: ignore[attr-defined]


def service_of(client: TestClient) -> GameService:
    """The app's game service (tests may look behind the API)."""
    service = client.app.state.service  # type: ignore[attr-defined]
    assert isinstance(service, GameService)
    return service


def create(client: TestClient, seed: int = SEED, **body: Any) -> Message:
    """Open a table (friend game, seat 0, base, one round unless ``body`` says otherwise)."""
    service_of(client).new_seed = lambda: seed
    request = {"variant": "base", "rounds": 1, "mode": "friend", "nickname": "Ann", "seat": 0} | body
    response = client.post("/api/tables", json=request)
    assert response.status_code == 200, response.text
    client.cookies.clear()
    grant: Message = response.json()
    return grant


def join(client: TestClient, game_id: str, nickname: str = "Bob") -> Message:
    """Take the free seat of a table."""
    response = client.post(f"/api/tables/{game_id}/join", json={"nickname": nickname})
    assert response.status_code == 200, response.text
    client.cookies.clear()
    grant: Message = response.json()
    return grant


def socket_path(game_id: str, token: str | None = None) -> str:
    """The WebSocket path of a game, with a seat token or none (a spectator)."""
    return f"/ws/games/{game_id}" + (f"?token={token}" if token else "")


def whole_log(previous: Message | None, message: Message) -> Message:
    """``message`` with the whole log, as a page puts it together: the log it had (``previous``'s)
    up to ``log_from``, then the entries ``message`` tells."""
    start = message["log_from"]
    earlier = previous["log"] if previous is not None else []
    assert start == 0 or start <= len(earlier), "entries told after a gap"
    whole: Message = message | {"log_from": 0, "log": earlier[:start] + message["log"]}
    return whole


def moves_of(message: Message) -> list[str]:
    """The moves of a state message's log (a whole one: ``log_from`` 0), in notation as its seat may
    see them (R10.2): what ``view.history`` held before the log replaced it on the wire."""
    assert message["log_from"] == 0, "a part of the log: put the whole one together first"
    return [entry["action"] for entry in message["log"]]


ASIDE = ("presence", "chat")
"""The message types ``next_message`` passes over: who is connected, and the chat."""


def next_message(ws: WebSocketTestSession) -> Message:
    """The next message that is not a presence or chat message."""
    while True:
        message: Message = ws.receive_json()
        if message.get("type") not in ASIDE:
            return message


def receive_state(ws: WebSocketTestSession) -> Message:
    """The next message (presence and chat aside), which must be a state message."""
    message = next_message(ws)
    assert message["type"] == "state", message
    return message


def receive_error(ws: WebSocketTestSession, code: str) -> Message:
    """The next message (presence and chat aside), which must be an error with this code."""
    message = next_message(ws)
    assert message["type"] == "error", message
    assert message["code"] == code, message
    assert set(message) - {"say"} == {"type", "code", "message"} and message["message"], message
    return message


def log_of(client: TestClient, game_id: str) -> list[Entry]:
    """The game's log as stored."""
    loaded = service_of(client).store.load(game_id)
    assert loaded is not None
    return loaded[1]


def replayed(settings: Settings, seed: int, moves: list[str]) -> GameState:
    """The test's own copy of a game: the deal, then ``moves`` applied with the engine."""
    state = GameState.new(settings, seed)
    for move in moves:
        state.apply(move)
    return state


def public_last(state: GameState, seat: int | None) -> dict[str, Any] | None:
    """The last move as ``seat`` may read it (another seat's Recruiter return names no card)."""
    if not state.history:
        return None
    action, mover = ACTIONS[state.history[-1]], state.movers[-1]
    text = str(action)
    if action.kind == Kind.RETURN and mover != seat:
        text = "return clan" if text[-1] in "gbrypk" and text[-2].isdigit() else "return tactic"
    return {"action": text, "mover": mover}


def legal_parts(state: GameState, seat: int | None, status: str) -> list[Message]:
    """The legal actions a seat is offered, as data: only its own, only while the game is played."""
    if seat != state.turn or state.is_over or status != "playing":
        return []
    return [action_parts(a.id) for a in state.legal_actions()]


AI_NAME = re.compile(r"AI \([\w-]+\)")
"""How the server names its AI seats ("AI (easy)"): the tests' players never take such a name."""


def ai_seat_of(players: list[str | None]) -> int | None:
    """The AI's seat of a table whose players are ``players`` (None: no AI plays)."""
    found = [seat for seat, name in enumerate(players) if name is not None and AI_NAME.fullmatch(name)]
    return found[0] if len(found) == 1 else None


def expected_why_not(state: GameState, seat: int | None) -> list[int]:
    """The ``why_not`` field ``seat`` should get: each unclaimed stone (1-9) where its side is
    complete and that it may not claim now."""
    if seat is None or state.is_over:
        return []
    claimable = view(state, seat).claimable
    return [stone + 1 for stone in range(NUM_STONES)
            if state.owner[stone] < 0 and state.is_complete(seat, stone) and stone not in claimable]


def expected_why_not_answers(state: GameState, seat: int | None) -> Message:
    """The answers ``seat`` should get to a "why not?" on each stone of its ``why_not``: the claim
    proof of the whole state (with the claim step's rule when it holds: R3.3, R8.1 in the expert
    variant)."""
    wait = "R8.1" if state.settings.expert else "R3.3"
    found: Message = {}
    for stone in expected_why_not(state, seat):
        proof = claim_proof(state, seat, stone - 1)
        found[str(stone)] = WhyNot(proof, wait if proof.holds else None).to_dict()
    return found


def expected_state(state: GameState, seat: int | None, version: int, players: list[str | None],
                   status: str, log_from: int = 0, undos_left: int = 1,
                   decided: tuple[bool, bool] | None = None, muted: bool = False) -> Message:
    """The exact state message ``seat`` should get (built here, not by the server), telling the
    log's entries from ``log_from`` on, when the seat may still undo ``undos_left`` times, in an
    untimed game where both seats are connected (``away`` as ``steady`` makes it) and ``decided``
    says which seats have made a decision (default: those with a move in the history)."""
    seen = view(state, seat)
    playing = status == "playing" and not state.is_over
    if decided is None:
        decided = (0 in state.movers, 1 in state.movers)
    claims = {str(s + 1): claim_proof(state, state.turn, s).to_dict() for s in seen.claimable}
    can_undo = (seat is not None and status == "playing" and undos_left > 0
                and isinstance(undo_span(state, seat), int))
    message: Message = json.loads(json.dumps({
        "type": "state",
        "version": version,
        "seat": seat,
        "players": players,
        "view": {k: v for k, v in seen.to_dict().items() if k not in ("history", "movers")},
        "last": public_last(state, seat),
        "can_undo": can_undo,
        "claims": claims,
        "why_not": expected_why_not(state, seat) if playing else [],
        "legal": legal_parts(state, seat, status),
        "auto_draw": seat == state.turn and state.draw_is_forced,
        "formations": formations(state),
        "log_from": log_from,
        "log": public_log(state, seat)[log_from:],
        "round_end": round_board(state, len(state.round_outcomes) - 1),
        "status": "over" if state.is_over else status,
        "reveal": reveal(state) if state.is_over else None,
        "rematch": None,
        "rematch_of": None,
        "rematch_closed": None,
        "clock": None,
        "clocks": None,
        "clock_running": None,
        "ai_seat": ai_seat_of(players),
        "ended": None,
        "can_resign": seat is not None and playing,
        "can_abort": seat is not None and playing and not all(decided),
        "can_claim_victory": False,
        "away": [None, None],
        "chat_muted": muted,
    }))
    return message


def steady(message: Message, leave_timeout: float = 60.0) -> Message:
    """``message`` with its ``away`` countdowns (which depend on when sockets came and went) checked to
    be in range and set to None, so it can be compared with ``expected_state``."""
    away = message.get("away")
    assert isinstance(away, list) and len(away) == 2, away
    assert all(a is None or 0 <= a <= leave_timeout * 1000 for a in away), away
    return {**message, "away": [None, None]}


def secret_cards(state: GameState, seat: int | None) -> set[str]:
    """Card texts ``seat`` may not see anywhere now: the other hand(s) and the decks (R10),
    less every card of the same text it can see, has itself put under a deck, or saw played
    in an earlier round (the public history, R10.1)."""
    hidden = list(state.clan_deck) + list(state.tactic_deck)
    hidden += state.hands[1 - seat] if seat is not None else state.hands[0] + state.hands[1]
    visible = [c for side in state.sides for stone in side for c in stone]
    visible += state.discards[0] + state.discards[1]
    if seat is not None:
        visible += state.hands[seat]
        visible += [ACTIONS[a].card for a, m in zip(state.history, state.movers, strict=True)
                    if m == seat and ACTIONS[a].kind == Kind.RETURN]
    if state.held >= 0:
        visible.append(state.held)
    earlier = " ".join(public_history(state, seat)[:state.round_starts[-1]])
    return {card_str(c) for c in hidden} - {card_str(c) for c in visible} - set(CARD_TEXT.findall(earlier))


def leaked(message: Message, state: GameState, seat: int | None, seed: int = SEED) -> list[str]:
    """What ``message`` shows that ``seat`` may not know: secret cards, the seed (empty: nothing)."""
    if message.get("status") == "over":
        return []
    shown = json.dumps({k: v for k, v in message.items() if k not in WORKED_OUT}
                       | {"round_end": (message.get("round_end") or {}).get("stones")})
    found = [f"seed {seed}"] if str(seed) in json.dumps(message) else []
    secret = secret_cards(state, seat)
    return found + sorted({m for m in CARD_TEXT.findall(shown) if m in secret})


def choose(message: Message, rng: random.Random, prefer: tuple[str, ...] = ()) -> str:
    """A move from a state message's legal actions: a claim if any, a preferred move, else random."""
    legal: list[str] = message["view"]["legal"]
    assert legal, message
    claims = [a for a in legal if a.startswith("claim")]
    if claims:
        return claims[0]
    liked = [a for a in legal if a in prefer]
    return liked[0] if liked else rng.choice(legal)


class Duel:
    """A friend game over WebSockets: seat 0 (Ann), seat 1 (Bob) and a spectator.

    The test keeps its own copy of the game; every message any socket receives is checked
    against ``expected_state`` for that socket's seat and for leaks. ``play`` sends a move
    from the seat to move and reads one message on every socket.
    """

    def __init__(self, client: TestClient, variant: str = "base", rounds: int = 1, seed: int = SEED) -> None:
        self.client = client
        self.seed = seed
        grant = create(client, seed=seed, variant=variant, rounds=rounds)
        self.id: str = grant["id"]
        self.tokens: list[str] = [grant["token"], join(client, self.id)["token"]]
        self.players: list[str | None] = ["Ann", "Bob"]
        self.state = GameState.new(Settings.of(variant, rounds), seed)
        self.version = 0
        self.undos = [0, 0]
        self.decided = [False, False]
        self.muted = [False, False]
        """Whether each seat muted the other's chat (the test says so when it does)."""
        self.undo_limit = service_of(client).settings.undo_limit
        self.messages: dict[int | None, list[Message]] = {0: [], 1: [], None: []}
        self.log_from = 0
        """Where the log told by the next broadcast starts (0: a whole log, on connecting)."""
        self._connect()

    def _connect(self) -> None:
        self.log_from = 0
        self._stack = ExitStack()
        self.sockets: dict[int | None, WebSocketTestSession] = {}
        try:
            for seat in (0, 1, None):
                token = None if seat is None else self.tokens[seat]
                path = socket_path(self.id, token)
                self.sockets[seat] = self._stack.enter_context(self.client.websocket_connect(path))
                self._check(seat, receive_state(self.sockets[seat]))
        except BaseException:
            self._stack.close()
            raise

    def reconnect(self, client: TestClient) -> None:
        """Close the sockets and open them again on ``client`` (say, a new app on the same database):
        each must get exactly the state the test's copy of the game says."""
        self.close()
        self.client = client
        self._connect()

    def __enter__(self) -> Duel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the three sockets."""
        self._stack.close()

    @property
    def status(self) -> str:
        """The game's status as the test sees it."""
        return "over" if self.state.is_over else "playing"

    def _check(self, seat: int | None, message: Message, log_from: int | None = None) -> None:
        start = self.log_from if log_from is None else log_from
        left = 0 if seat is None else self.undo_limit - self.undos[seat]
        expected = expected_state(self.state, seat, self.version, self.players, self.status, start, left,
                                  (self.decided[0], self.decided[1]), seat is not None and self.muted[seat])
        message = steady(message)
        assert message == expected, _difference(message, expected)
        assert not (found := leaked(message, self.state, seat, self.seed)), (seat, found, message)
        whole = whole_log(self.messages[seat][-1] if self.messages[seat] else None, message)
        assert whole["log"] == public_log(self.state, seat)  # what the page puts together (R10.2)
        self.messages[seat].append(whole)

    def collect(self) -> None:
        """Read one state message on every socket and check each."""
        for seat, ws in self.sockets.items():
            self._check(seat, receive_state(ws))

    def play(self, move: str, with_version: bool = True) -> None:
        """The seat to move plays ``move``; every socket gets its new state."""
        seat = self.state.turn
        payload: Message = {"type": "action", "action": move}
        if with_version:
            payload["version"] = self.version
        self.sockets[seat].send_json(payload)
        self.state.apply(move)
        self.decided[seat] = True
        self.version += 1
        self.log_from = len(self.state.history) - 1
        self.collect()

    def undo(self, seat: int, count: int) -> None:
        """``seat`` takes back its last ``count`` moves (misclick undo); every socket gets the state."""
        self.sockets[seat].send_json({"type": "undo"})
        self.state = replayed(self.state.settings, self.seed, [str(ACTIONS[a]) for a in
                                                               self.state.history[:-count]])
        self.version += 1
        self.undos[seat] += 1
        self.log_from = len(self.state.history)
        self.collect()

    def refused(self, seat: int | None, payload: Message | str | bytes, code: str) -> Message:
        """Send something that must be refused with ``code``; check that nothing changed."""
        ws = self.sockets[seat]
        if isinstance(payload, bytes):
            ws.send_bytes(payload)
        else:
            ws.send_text(payload if isinstance(payload, str) else json.dumps(payload))
        error = receive_error(ws, code)
        if code == "stale":
            self._check(seat, receive_state(ws), log_from=0)
        self.sync(seat)
        return error

    def sync(self, seat: int | None) -> Message:
        """Ask for the state on one socket; it must be unchanged."""
        self.sockets[seat].send_json({"type": "sync"})
        message = receive_state(self.sockets[seat])
        self._check(seat, message, log_from=0)
        return message

    def play_until(self, done: Any, rng: random.Random, prefer: tuple[str, ...] = ()) -> None:
        """Play chosen moves until ``done(state)`` holds (or the game ends)."""
        while not self.state.is_over and not done(self.state):
            mover = self.messages[self.state.turn][-1]
            self.play(choose(mover, rng, prefer))


def _difference(got: Message, want: Message) -> str:
    keys = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))
    parts = []
    for key in keys:
        if key == "view":
            fields = set(got["view"]) | set(want["view"])
            sub = sorted(k for k in fields if got["view"].get(k) != want["view"].get(k))
            parts.append(f"view fields differ: {sub}")
        else:
            parts.append(f"{key}: got {got.get(key)!r}, want {want.get(key)!r}")
    return "; ".join(parts)


def open_stone(state: GameState, seat: int) -> int:
    """A stone (1-9) where ``seat`` could put a card now."""
    for stone in range(NUM_STONES):
        if state.owner[stone] < 0 and not state.is_complete(seat, stone):
            return stone + 1
    raise AssertionError("no open stone")


def in_phase(phase: Phase) -> Any:
    """A ``done`` test for ``Duel.play_until``: the decision is in ``phase``."""
    return lambda state: state.phase == phase


WAIT = 15.0
"""A guard against a hang, not a measurement: every wait in the tests ends long before."""


def until(done: Callable[[], bool], what: str, timeout: float = WAIT) -> None:
    """Wait (bounded by ``timeout``) until ``done()`` holds."""
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.moment = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.moment

    def advance(self, seconds: float) -> None:
        """Move the time on by ``seconds``."""
        self.moment += timedelta(seconds=seconds)


@contextmanager
def app_at(settings: WebSettings, clock: FakeClock) -> Iterator[TestClient]:
    """A test client of an app that reads the time from ``clock``."""
    app = create_app(settings)
    app.state.service.authority.now = clock
    with TestClient(app) as client:
        yield client


@contextmanager
def uvicorn_in_thread(config: Any, timeout: float = 30.0) -> Iterator[int]:
    """A ``uvicorn.Config``'s server running in a thread (its port); stopped at the end."""
    import uvicorn

    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        for _ in range(int(timeout / 0.02)):
            if server.started:
                break
            time.sleep(0.02)
        assert server.started, "the server did not start"
        yield int(server.servers[0].sockets[0].getsockname()[1])
    finally:
        server.should_exit = True
        thread.join(timeout)
