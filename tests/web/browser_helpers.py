"""Helpers for the browser tests: the catalogue keys the page uses, a live server, Chromium.

``page_msgids`` lists every catalogue key of the browser side (``t("...")`` and ``N_("...")``
in the ES modules, ``data-i18n`` texts and ``data-i18n-*`` attributes in the HTML), so a
test can check that each .po catalogue translates all of them. ``LiveServer`` runs
``python -m schotten serve`` on 127.0.0.1 with a temporary SQLite database;
``finished_friend_game`` plays a friend game to its end over the API and WebSockets
(quicker than clicking), for tests of what the page offers once a game is over.
"""

from __future__ import annotations

import json
import os
import random
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from types import TracebackType
from typing import Any

from helpers_web import GENEROUS_ENV

WEB = Path(__file__).resolve().parents[2] / "schotten" / "web"
STATIC = WEB / "static"
LOCALE = WEB / "locale"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

_JS_KEY = re.compile(r"\b(?:t|N_)\(\s*\"((?:[^\"\\]|\\.)*)\"")
_I18N_ATTRS = ("data-i18n-title", "data-i18n-placeholder", "data-i18n-aria-label")


def _unescape_js(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


class _HtmlKeys(HTMLParser):
    """Collects the data-i18n keys of one HTML page (data-i18n elements hold text only)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.keys: set[str] = set()
        self._text: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        for name in _I18N_ATTRS:
            if found.get(name):
                self.keys.add(str(found[name]))
        if "data-i18n" in found:
            if found["data-i18n"]:
                self.keys.add(str(found["data-i18n"]))
            else:
                self._text = []

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if self._text is not None:
            key = " ".join("".join(self._text).split())
            if key:
                self.keys.add(key)
            self._text = None


def page_msgids() -> set[str]:
    """Every catalogue key used by the browser side."""
    keys: set[str] = set()
    for path in sorted((STATIC / "js").glob("*.js")):
        keys.update(_unescape_js(m) for m in _JS_KEY.findall(path.read_text(encoding="utf-8")))
    for path in sorted(STATIC.glob("*.html")):
        parser = _HtmlKeys()
        parser.feed(path.read_text(encoding="utf-8"))
        keys.update(parser.keys)
    return keys


def read_catalogue(lang: str) -> dict[str, str]:
    """The msgid -> msgstr pairs of a .po catalogue (read with Babel)."""
    from babel.messages.pofile import read_po

    with (LOCALE / lang / "LC_MESSAGES" / "messages.po").open("rb") as handle:
        catalogue = read_po(handle)
    return {str(m.id): str(m.string or "") for m in catalogue if m.id and isinstance(m.id, str)}


def placeholders(text: str) -> set[str]:
    """The {name} placeholders of a message."""
    return set(re.findall(r"\{(\w+)\}", text))


PAGE_TIMEOUT_MS = 45_000
"""How long a page step may wait: a guard against a hung page, not a measurement."""
DESKTOP = {"width": 1280, "height": 900}
"""The viewport of a desktop page."""


class Browser:
    """Opens contexts and pages on one Chromium and collects the pages' uncaught errors."""

    def __init__(self, chromium: Any) -> None:
        self.chromium = chromium
        self.contexts: list[Any] = []
        self.errors: list[str] = []

    def page(self, viewport: dict[str, int] = DESKTOP, **options: Any) -> Any:
        """A page in a fresh context (its own cookies)."""
        context = self.chromium.new_context(viewport=viewport, locale=options.pop("locale", "en-GB"),
                                            accept_downloads=True, **options)
        context.set_default_timeout(PAGE_TIMEOUT_MS)
        self.contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        return page

    def twin(self, page: Any) -> Any:
        """Another page of ``page``'s context (same cookies and saved preferences) on its URL."""
        other = page.context.new_page()
        other.on("pageerror", lambda error: self.errors.append(str(error)))
        other.goto(page.url)
        other.wait_for_selector("#status[data-version]")
        return other

    def close(self) -> None:
        """Close every context."""
        for context in self.contexts:
            context.close()


def create_table(page: Any, url: str, nickname: str, variant: str, mode: str = "ai", rounds: int = 1,
                 clock: str | None = None) -> str:
    """Create a table from the lobby form (with the time control ``clock``, a value of its
    ``#clock`` choice, else the one the form offers); return the game id."""
    page.goto(f"{url}/")
    page.fill("#nickname", nickname)
    if clock is not None:
        page.select_option("#clock", clock)
    page.select_option("#variant", variant)
    page.select_option("#rounds", str(rounds))
    page.check(f'input[name="mode"][value="{mode}"]')
    if mode == "ai":
        page.select_option("#level", "easy")
    page.click("#create")
    page.wait_for_url("**/game/**")
    page.wait_for_selector("#status[data-version]")
    return str(page.url.split("/game/")[1].split("?")[0])


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LiveServer:
    """The web server in a subprocess, on 127.0.0.1 with its own SQLite file.

    Without ``seed`` it is exactly ``python -m schotten serve``; with ``seed`` it is the same
    app (``create_app``) run by uvicorn from this module, with the games' seeds fixed
    (``seed``, ``seed + 1``, ... in the order the tables are created) and the AI in threads,
    so that the games a test plays are the same on every run. ``env`` adds settings
    (``SCHOTTEN_LEAVE_TIMEOUT``, ...) to its environment.
    """

    def __init__(self, database: Path, log: Path, seed: int | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.database = database
        self.log = log
        self.seed = seed
        self.env = dict(env or {})
        self.process: subprocess.Popen[bytes] | None = None

    def command(self) -> list[str]:
        """The command line that starts the server."""
        where = ["--port", str(self.port), "--database", f"sqlite:///{self.database}"]
        if self.seed is None:
            return [sys.executable, "-m", "schotten", "serve", "--host", "127.0.0.1", *where]
        return [sys.executable, str(Path(__file__).resolve()), *where, "--seed", str(self.seed)]

    def start(self) -> None:
        """Start the server and wait until it answers."""
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **GENEROUS_ENV, **self.env}
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(self.command(), stdout=out, stderr=subprocess.STDOUT, env=env)
        self._wait_ready()

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL if it lingers)."""
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        self.process = None

    def __enter__(self) -> LiveServer:
        self.start()
        return self

    def _wait_ready(self, attempts: int = 300) -> None:
        assert self.process is not None
        for _ in range(attempts):
            if self.process.poll() is not None:
                raise RuntimeError(f"the server stopped: {self.log.read_text(errors='replace')[-2000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/tables", timeout=1):
                    return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.1)
        raise RuntimeError(f"the server did not answer: {self.log.read_text(errors='replace')[-2000:]}")

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.stop()


def post_json(url: str, body: dict[str, Any]) -> dict[str, Any]:
    """POST a JSON body to the server and read its JSON answer."""
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        data: dict[str, Any] = json.load(answer)
        return data


def finished_friend_game(base: str, seed: int = 0) -> tuple[str, list[str]]:
    """Ann (seat 0) and Bob (seat 1) play a base game to its end over WebSockets, claims first,
    else a seeded random legal move: (game id, [Ann's seat link, Bob's seat link])."""
    grant, links = open_friend_table(base)
    play_friend_game(base, grant, seed, lambda state: state["status"] == "over")
    return grant["id"], links


def open_friend_table(base: str, variant: str = "base", rounds: int = 1,
                      clock: dict[str, int] | None = None) -> tuple[dict[str, Any], list[str]]:
    """A friend table with Ann (seat 0) and Bob (seat 1) seated, with the time control ``clock``
    (untimed by default): (Ann's grant with both tokens as ``tokens``, [Ann's seat link, Bob's
    seat link])."""
    body: dict[str, Any] = {"mode": "friend", "nickname": "Ann", "seat": 0, "variant": variant,
                            "rounds": rounds}
    if clock is not None:
        body["clock"] = clock
    grant = post_json(f"{base}/api/tables", body)
    bob = post_json(f"{base}/api/tables/{grant['id']}/join", {"nickname": "Bob"})
    grant["tokens"] = [grant["token"], bob["token"]]
    return grant, [grant["url"], bob["url"]]


MY_DECISION = """() => {
  const s = document.querySelector('#status');
  return s && s.dataset.version !== undefined && !document.body.classList.contains('pending')
    && s.dataset.mine === '1';
}"""
"""A page script: whether the decision is this page's seat's and nothing is pending."""


def play_a_card(page: Any) -> None:
    """On this seat's turn: play its first lit card on its first lit stone (confirming if asked);
    wait until the server has answered."""
    page.wait_for_function(MY_DECISION)
    version = page.get_attribute("#status", "data-version")
    page.locator("#hand .card.playable").first.click()
    page.locator(".col.target").first.click()
    if page.locator("#confirm-bar").count():
        page.click('#prompt [data-action="confirm"]')
    page.wait_for_function(f"() => document.querySelector('#status').dataset.version !== '{version}'")


def seated_pages(pages: Browser, base: str, links: list[str], init_script: str | None = None,
                 **options: Any) -> list[Any]:
    """A page of its own browser (cookies) for each seat link, open at its table once the state
    has arrived, ``init_script`` run first in each; ``options`` go to ``Browser.page`` (``locale``, ...)."""
    opened = []
    for link in links:
        page = pages.page(**options)
        if init_script is not None:
            page.add_init_script(init_script)
        page.goto(f"{base}{link}")
        page.wait_for_selector("#status[data-version]")
        opened.append(page)
    return opened


def play_friend_game(base: str, grant: dict[str, Any], seed: int, until: Callable[[dict[str, Any]], bool],
                     pick: Callable[[list[str], random.Random], str] | None = None,
                     ask_why_not: bool = False) -> dict[str, Any]:
    """Both seats of ``grant``'s table (see ``open_friend_table``) play over WebSockets until
    ``until(state)`` holds for Ann's state message (or the game ends): claims first, else
    ``pick(legal, rng)`` (by default a seeded random legal move). Ann's last state message; with
    ``ask_why_not``, each of Ann's states carries ``answers``: the server's answer to a "why not?"
    on each stone its ``why_not`` lists."""
    from websockets.sync.client import connect

    rng = random.Random(seed)
    where = base.replace("http://", "ws://") + f"/ws/games/{grant['id']}?token="
    with connect(where + grant["tokens"][0]) as ws0, connect(where + grant["tokens"][1]) as ws1:
        sockets = [ws0, ws1]
        states = [recv_main(ws) for ws in sockets]
        while not until(_asked(ws0, states[0], ask_why_not)) and states[0]["status"] != "over":
            mover = next(seat for seat in (0, 1) if states[seat]["view"]["legal"])
            legal = states[mover]["view"]["legal"]
            claims = [a for a in legal if a.startswith("claim")]
            move = claims[0] if claims else (pick or _random_move)(legal, rng)
            states[mover] = _with_log(states[mover], _send_move(sockets[mover], move))
            states[1 - mover] = _with_log(states[1 - mover], recv_main(sockets[1 - mover]))
    return dict(states[0])


def _asked(ws: Any, state: dict[str, Any], ask: bool) -> dict[str, Any]:
    """``state`` with ``answers``: stone (its number as text) to the server's answer to a "why not?"
    on it, for each stone its ``why_not`` lists (when ``ask``)."""
    if ask:
        state["answers"] = {str(stone): _send_until_taken(ws, {"type": "why_not", "stone": stone})["answer"]
                            for stone in state["why_not"]}
    return state


def _send_until_taken(ws: Any, message: dict[str, Any]) -> dict[str, Any]:
    """Send ``message`` and read the answer; a flood refusal is waited out and it is sent again."""
    for _ in range(5):
        ws.send(json.dumps(message))
        answer = recv_main(ws)
        if answer.get("code") != "flood":
            return answer
        time.sleep(1.0)
    raise AssertionError(f"{message} was refused again and again")


def _with_log(before: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
    """``message`` with the whole log: ``before``'s up to ``log_from``, then the entries it tells."""
    start = message["log_from"]
    assert start <= len(before["log"]), "entries told after a gap"
    return message | {"log_from": 0, "log": before["log"][:start] + message["log"]}


def _random_move(legal: list[str], rng: random.Random) -> str:
    return rng.choice(legal)


def recv_main(ws: Any) -> dict[str, Any]:
    """The next message that is not a presence or chat message."""
    while True:
        message: dict[str, Any] = json.loads(ws.recv(timeout=10))
        if message["type"] not in ("presence", "chat"):
            return message


def _send_move(ws: Any, move: str) -> dict[str, Any]:
    """Send a move and read the state that follows; a flood refusal (the server allows 20
    messages a second) is waited out and the move sent again."""
    for _ in range(5):
        ws.send(json.dumps({"type": "action", "action": move}))
        answer = recv_main(ws)
        if answer["type"] == "state":
            return answer
        assert answer.get("code") == "flood", answer
        time.sleep(1.0)
    raise AssertionError(f"the move {move} was refused again and again")


def _serve_with_seeds(argv: list[str]) -> None:
    """Run the app on 127.0.0.1 with fixed game seeds (see ``LiveServer``)."""
    import argparse
    import itertools

    import uvicorn

    from schotten.web.app import WS_MAX_SIZE, create_app
    from schotten.web.core.settings import WebSettings

    parser = argparse.ArgumentParser(description=_serve_with_seeds.__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--database", required=True)
    parser.add_argument("--seed", type=int, required=True)
    args = parser.parse_args(argv)
    settings = WebSettings.from_env(host="127.0.0.1", port=args.port, database_url=args.database,
                                    ai_processes=False)
    app = create_app(settings)
    seeds = itertools.count(args.seed)
    app.state.service.new_seed = lambda: next(seeds)
    uvicorn.run(app, host="127.0.0.1", port=args.port, ws_max_size=WS_MAX_SIZE, log_level="warning")


if __name__ == "__main__":
    _serve_with_seeds(sys.argv[1:])
