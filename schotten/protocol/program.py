"""One of our bots as a protocol program: ``serve(bot, stdin, stdout)`` answers a host's lines.

The host (``ExternalBot``, or anyone's program speaking docs/protocol.md) sends the
greeting, then for each decision the seat's view, the legal actions and ``go``;
``serve`` reads the view back into a ``View`` and answers ``move <bot.choose(view)>``.

``bot_command`` is the ``schotten bot NAME`` command; ``main()`` runs it on its own
(``python -m schotten.protocol.program greedy --seed 3``).
"""

from __future__ import annotations

import sys
from typing import Annotated, TextIO

import typer

from ..bots import Bot, make_bot
from ..engine.view import View
from . import messages as M
from .flags import FlagCommand


class _Session:
    """What the program knows between lines: the last view received."""

    def __init__(self, bot: Bot, outfile: TextIO) -> None:
        self.bot = bot
        self.outfile = outfile
        self.seen: View | None = None

    def say(self, line: str) -> None:
        """Write one line and flush it at once (the host is waiting for it)."""
        self.outfile.write(line + "\n")
        self.outfile.flush()

    def handle(self, line: str) -> bool:
        """Act on one line from the host; False once the session is over (``quit``)."""
        word, rest = M.split_line(line)
        try:
            if word == "quit":
                return False
            if word == "schotten":
                self.greet(rest)
            elif word == "newgame":
                M.parse_newgame(rest)
                self.seen = None
            elif word == "view":
                self.seen = M.parse_view(rest)
            elif word == "go":
                M.parse_go(rest)
                self.go()
            elif word == "gameover":
                self.seen = None
        except Exception as error:
            self.say("error " + M.one_line(f"{type(error).__name__}: {error}"))
        return True

    def greet(self, version: str) -> None:
        """Answer the greeting: our name, then ``ready`` (or an error for another version)."""
        if version != str(M.PROTOCOL_VERSION):
            self.say(f"error this program speaks protocol version {M.PROTOCOL_VERSION}, not {version!r}")
            return
        self.say("name " + M.one_line(self.bot.name))
        self.say("ready")

    def go(self) -> None:
        """Answer ``go`` with the bot's choice for the last view."""
        if self.seen is None or not self.seen.legal:
            self.say("error 'go' came without a view holding legal actions")
            return
        self.say(M.move_line(self.bot.choose(self.seen)))


def serve(bot: Bot, infile: TextIO, outfile: TextIO) -> None:
    """Play ``bot`` over the protocol: read the host's lines from ``infile`` until ``quit`` or its end.

    Lines the program does not know are ignored (docs/protocol.md); a line it cannot
    act on (a malformed view, a ``go`` without a view) is answered with ``error``.
    """
    session = _Session(bot, outfile)
    for line in infile:
        if not session.handle(line):
            return


def bot_command(
    name: Annotated[
        str, typer.Argument(help="A built-in bot or level: random, greedy, ..., easy .. expert.")
    ],
    seed: Annotated[int | None, typer.Option(help="Seed of the bot's random choices.")] = None,
    seconds: Annotated[float | None, typer.Option(help="A search bot's time per decision.")] = None,
    iterations: Annotated[int | None, typer.Option(help="A search bot's iterations per decision.")] = None,
) -> None:
    """Run a built-in bot as a program speaking the text protocol on stdin/stdout (docs/protocol.md)."""
    try:
        bot = make_bot(name, seed, seconds, iterations)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="NAME") from None
    serve(bot, sys.stdin, sys.stdout)


def main() -> None:
    """Run ``bot_command`` as a program of its own (its arguments come from ``sys.argv``)."""
    program = typer.Typer(add_completion=False)
    program.command(cls=FlagCommand)(bot_command)
    program()


if __name__ == "__main__":
    main()
