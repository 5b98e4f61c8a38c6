"""``ExternalBot``: a program speaking the Schotten protocol (docs/protocol.md), played as a Bot.

The program is started on the first decision (or by ``start()``), greeted with
``schotten 1`` and must answer ``ready``. For each decision it gets the seat's
view, the legal actions and ``go <milliseconds>``, and must answer ``move
<action>`` in time. Everything it is sent comes from the ``View`` handed to
``choose`` (R10): it never sees the state.

A program that answers garbage or an illegal action, stays silent past the time
limit, or exits, makes ``choose`` raise ``BotFailure`` with the reason; the program
is then killed (with any process it started) and the next decision starts it again.
"""

from __future__ import annotations

import contextlib
import os
import queue
import shlex
import signal
import subprocess
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Sequence
from types import TracebackType

from ..engine import Action, NotationError, parse_action
from ..engine.view import View
from . import messages as M

MAX_LINE = 1 << 20
"""Longer lines from the program are cut (and then cannot be a valid answer)."""

STDERR_LINES = 20
"""How many of the program's last standard-error lines are kept (``stderr_tail``)."""

EXIT_WAIT = 0.5
"""Seconds to wait for the program to exit after ``quit`` or after it closed its output."""


class BotFailure(Exception):
    """An external bot failed a decision; ``reason`` says how (it goes into the game record)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _command_list(command: str | Sequence[str]) -> list[str]:
    parts = shlex.split(command) if isinstance(command, str) else list(command)
    if not parts:
        raise ValueError("the command is empty")
    return parts


def _default_name(argv: list[str]) -> str:
    program = os.path.basename(argv[0])
    if program.startswith("python") and len(argv) > 1:
        return os.path.basename(argv[-1])
    return program


class _Process:
    """A running program: lines in and out through threads, so that nothing ever blocks the host."""

    def __init__(self, argv: list[str], echo: Callable[[str], None] | None) -> None:
        self.echo = echo
        self.lines: queue.Queue[str | None] = queue.Queue(maxsize=10_000)
        self.stderr: deque[str] = deque(maxlen=STDERR_LINES)
        self.stopped = threading.Event()
        self._outbox: queue.Queue[str | None] = queue.Queue()
        posix = os.name == "posix"
        self.popen = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=posix,
        )
        self._threads = [
            threading.Thread(target=self._read_stdout, daemon=True),
            threading.Thread(target=self._read_stderr, daemon=True),
            threading.Thread(target=self._write, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def send(self, line: str) -> None:
        """Queue ``line`` for the program (written by the writer thread)."""
        if self.echo is not None:
            self.echo(f"> {line}")
        self._outbox.put(line)

    def receive(self, deadline: float | None) -> str | None:
        """The next line from the program, None at the end of its output; TimeoutError at ``deadline``."""
        timeout = None if deadline is None else deadline - time.monotonic()
        if timeout is not None and timeout <= 0:
            raise TimeoutError
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError from None
        if line is not None and self.echo is not None:
            self.echo(f"< {line}")
        return line

    def pending(self) -> list[str]:
        """The lines already received and not read yet (the end of output is kept for ``receive``)."""
        found: list[str] = []
        while True:
            try:
                line = self.lines.get_nowait()
            except queue.Empty:
                return found
            if line is None:
                self._put(None)
                return found
            found.append(line)

    def _put(self, item: str | None) -> None:
        while not self.stopped.is_set():
            try:
                self.lines.put(item, timeout=0.1)
                return
            except queue.Full:
                continue

    def _read_stdout(self) -> None:
        stream = self.popen.stdout
        assert stream is not None
        with contextlib.suppress(OSError, ValueError):
            while raw := stream.readline(MAX_LINE):
                self._put(raw.decode("ascii", "replace").rstrip("\r\n"))
        self._put(None)

    def _read_stderr(self) -> None:
        stream = self.popen.stderr
        assert stream is not None
        with contextlib.suppress(OSError, ValueError):
            while raw := stream.readline(MAX_LINE):
                text = raw.decode("utf-8", "replace").strip()
                if any(c.isalnum() for c in text):
                    self.stderr.append(text)

    def _write(self) -> None:
        stream = self.popen.stdin
        assert stream is not None
        try:
            while (line := self._outbox.get()) is not None:
                stream.write(line.encode("ascii", "replace") + b"\n")
                stream.flush()
        except (OSError, ValueError):
            pass
        with contextlib.suppress(OSError, ValueError):
            stream.close()

    def exit_code(self, wait: float) -> int | None:
        """The program's exit code, waiting up to ``wait`` seconds for it to exit; None if it runs on."""
        try:
            return self.popen.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            return None

    def stop(self, grace: float = 0.0) -> None:
        """Close the program's input, give it ``grace`` seconds to exit, then kill it and its children."""
        self._outbox.put(None)
        if grace > 0:
            self.exit_code(grace)
        _kill(self.popen)
        self.stopped.set()
        for thread in self._threads:
            thread.join(timeout=1.0)
        readers = zip(self._threads[:2], (self.popen.stdout, self.popen.stderr), strict=True)
        for thread, stream in readers:
            if stream is not None and not thread.is_alive():
                with contextlib.suppress(OSError):
                    stream.close()


def _kill(popen: subprocess.Popen[bytes]) -> None:
    """Kill the program and every process of its session (POSIX), and reap it: no zombie is left."""
    if os.name == "posix":
        with contextlib.suppress(OSError):
            os.killpg(popen.pid, signal.SIGKILL)
    if popen.poll() is None:
        with contextlib.suppress(OSError):
            popen.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        popen.wait(timeout=5.0)


def _stop_quietly(process: _Process) -> None:
    process.stop()


class ExternalBot:
    """A Bot played by an external program over the Schotten protocol (docs/protocol.md).

    ``command`` is the program and its arguments (a string is split like a shell
    would, without running a shell). ``time_limit`` is the time in seconds the program
    has for each decision (None: no limit) and ``start_limit`` the time it has to
    answer the greeting. ``echo``, if given, is called with every line exchanged,
    prefixed ``> `` (sent) or ``< `` (received). Use ``close()`` or a ``with`` block
    to stop the program.
    """

    def __init__(
        self,
        command: str | Sequence[str],
        name: str | None = None,
        time_limit: float | None = 5.0,
        start_limit: float = 10.0,
        echo: Callable[[str], None] | None = None,
    ) -> None:
        self.argv = _command_list(command)
        self.name = name or _default_name(self.argv)
        self._fixed_name = name is not None
        self.time_limit = time_limit
        self.start_limit = start_limit
        self.echo = echo
        self.infos: deque[str] = deque(maxlen=100)
        self._stderr: deque[str] = deque()
        self._process: _Process | None = None
        self._finalizer: weakref.finalize[[_Process], ExternalBot] | None = None
        self._game: M.NewGame | None = None
        self._history: tuple[str, ...] = ()

    # ------------------------------------------------------------ life cycle

    @property
    def pid(self) -> int | None:
        """The process id of the running program, or None when it is not running."""
        return None if self._process is None else self._process.popen.pid

    @property
    def stderr_tail(self) -> list[str]:
        """The last lines the program (the running one, or the last one) wrote to its standard error."""
        return list(self._stderr)

    def start(self) -> None:
        """Start the program and do the handshake, unless it is running; BotFailure if it fails."""
        if self._process is not None:
            return
        try:
            process = _Process(self.argv, self.echo)
        except OSError as error:
            raise BotFailure(f"could not start {shlex.join(self.argv)}: {error}") from None
        self._process, self._stderr = process, process.stderr
        self._finalizer = weakref.finalize(self, _stop_quietly, process)
        self._game, self._history = None, ()
        try:
            self._handshake()
        except BotFailure:
            self._stop(quit=False)
            raise

    def close(self) -> None:
        """Say ``quit``, give the program a moment to exit, then kill it (and its children) if it has not."""
        self._stop(quit=True)

    def __enter__(self) -> ExternalBot:
        """The bot itself; the program is closed at the end of the block."""
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        """Close the program."""
        self.close()

    def _stop(self, quit: bool) -> None:
        process = self._process
        if process is None:
            return
        self._process = None
        if self._finalizer is not None:
            self._finalizer.detach()
        if quit:
            process.send("quit")
        process.stop(grace=EXIT_WAIT if quit else 0.0)

    # ------------------------------------------------------------ talking

    def _running(self) -> _Process:
        assert self._process is not None, "the program is not running"
        return self._process

    def _handshake(self) -> None:
        process = self._running()
        process.send(M.hello_line())
        deadline = time.monotonic() + self.start_limit
        while True:
            word, rest = self._next(deadline, f"did not answer 'ready' within {self.start_limit:g} s")
            if word == "ready":
                return
            if word == "name" and rest and not self._fixed_name:
                self.name = rest
            elif word not in ("name", "info", ""):
                raise BotFailure(f"answered {self._quoted(word, rest)} to the greeting: expected 'ready'")

    def _next(self, deadline: float | None, late: str) -> tuple[str, str]:
        """The next line as (keyword, rest), info lines kept; BotFailure on silence, exit or ``error``."""
        process = self._running()
        try:
            line = process.receive(deadline)
        except TimeoutError:
            raise BotFailure(late) from None
        if line is None:
            raise BotFailure(self._ended(process))
        word, rest = M.split_line(line)
        if word == "info":
            self.infos.append(rest)
        elif word == "error":
            raise BotFailure(f"the program reported an error: {rest or '(no reason given)'}")
        return word, rest

    def _ended(self, process: _Process) -> str:
        code = process.exit_code(EXIT_WAIT)
        said = f" (its last error line: {process.stderr[-1]})" if process.stderr else ""
        if code is None:
            return f"the program closed its output{said}"
        if code < 0:
            return f"the program was killed by signal {-code}{said}"
        return f"the program exited with code {code}{said}"

    @staticmethod
    def _quoted(word: str, rest: str) -> str:
        text = f"{word} {rest}".strip()
        return repr(text if len(text) <= 80 else text[:77] + "...")

    # ------------------------------------------------------------ games

    def _same_game(self, seen: View) -> bool:
        assert seen.seat is not None
        game = M.NewGame(seen.variant, seen.rounds, seen.seat)
        known = self._history
        return self._game == game and seen.history[: len(known)] == known

    def choose(self, seen: View) -> Action:
        """Send the view, the legal actions and ``go``; return the program's legal answer.

        Raises BotFailure (after killing the program) if it answers garbage or an illegal
        action, does not answer within ``time_limit``, or exits.
        """
        if seen.seat is None or not seen.legal:
            raise ValueError("choose needs the view of the seat to move (with its legal actions)")
        self.start()
        try:
            return self._decide(seen)
        except BotFailure:
            self._stop(quit=False)
            raise

    def _decide(self, seen: View) -> Action:
        process = self._running()
        for line in process.pending():
            self._stray(*M.split_line(line))
        assert seen.seat is not None
        if not self._same_game(seen):
            self._game = M.NewGame(seen.variant, seen.rounds, seen.seat)
            process.send(M.newgame_line(self._game))
        self._history = seen.history
        process.send(M.view_line(seen))
        process.send(M.legal_line(seen.legal))
        limit = self.time_limit
        process.send(M.go_line(None if limit is None else max(1, round(limit * 1000))))
        deadline = None if limit is None else time.monotonic() + limit
        while True:
            word, rest = self._next(deadline, f"no answer within {limit:g} s")
            if word == "move":
                return self._check(rest, seen)
            if word not in ("info", ""):
                raise BotFailure(f"answered {self._quoted(word, rest)}: expected 'move <action>'")

    def _stray(self, word: str, rest: str) -> None:
        if word == "info":
            self.infos.append(rest)
        elif word == "error":
            raise BotFailure(f"the program reported an error: {rest}")
        elif word not in ("", "name"):
            raise BotFailure(f"wrote {self._quoted(word, rest)} when no decision was asked")

    def _check(self, text: str, seen: View) -> Action:
        said = self._quoted("move", text)
        if not text:
            raise BotFailure(f"answered {said}: no action given")
        try:
            action = parse_action(text)
        except NotationError as error:
            raise BotFailure(f"answered {said}: {error}") from None
        if str(action) not in seen.legal:
            shown = ", ".join(seen.legal[:12]) + (", ..." if len(seen.legal) > 12 else "")
            raise BotFailure(f"answered {said}: {action} is not legal now (legal: {shown})")
        return action

    def game_over(self, seen: View) -> None:
        """Tell a running program the match is over: its last view, then ``gameover``.

        Optional for hosts (the program must cope with a ``newgame`` without it); a
        program that has died is not an error here.
        """
        process = self._process
        if process is None or seen.result is None:
            return
        process.send(M.view_line(seen))
        process.send(M.gameover_line(M.GameOver(seen.result.winner, seen.result.scores)))
        self._game, self._history = None, ()
