"""The page in Chromium under the security rules (issue 13, "Secrets"): a seat link leaves no
token in the address bar, in the history or in the WebSocket's URL, and the game still plays
under the Content-Security-Policy; a page on another port of the same host cannot read the hand
through the socket, although the browser sends it the player's cookie.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import Browser, LiveServer, create_table, play_a_card, post_json

ATTACK_PAGE = """<!doctype html><title>elsewhere</title><script>
window.got = []; window.shut = null;
const ws = new WebSocket("ws://127.0.0.1:{port}/ws/games/{game}");
ws.onmessage = (event) => window.got.push(JSON.parse(event.data));
ws.onclose = (event) => { window.shut = event.code; };
</script>"""
"""A page of another origin (another port of the same host) that opens the game's socket."""


@pytest.fixture
def server(sync_api: Any, tmp_path: Path) -> Iterator[LiveServer]:
    """A server of its own for each test (seeded games, the AI in threads)."""
    with LiveServer(tmp_path / "games.db", tmp_path / "server.log", seed=777) as live:
        yield live


@contextmanager
def serving(html: str) -> Iterator[str]:
    """A page served on 127.0.0.1 at a port of its own (a real server: Chromium lets a loopback
    page, not a made-up one, reach the game's loopback socket); its address."""

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            """Answer the page."""
            body = html.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args: Any) -> None:
            """Quiet."""

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def ai_table(server: LiveServer, nickname: str) -> dict[str, Any]:
    """A table against the easy AI, opened over the API, the nickname at seat 0: its grant."""
    body = {"mode": "ai", "level": "easy", "nickname": nickname, "seat": 0}
    return post_json(f"{server.url}/api/tables", body)


def watched(page: Any) -> tuple[list[str], list[str]]:
    """The URLs of the WebSockets the page opens, and the Content-Security-Policy complaints of
    its console (anything the policy blocked)."""
    sockets: list[str] = []
    blocked: list[str] = []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    page.on("console", lambda msg: blocked.extend([msg.text] * ("Content Security Policy" in msg.text)))
    return sockets, blocked


def assert_no_token(page: Any, sockets: list[str], token: str | None = None) -> None:
    """Neither the address bar nor any WebSocket URL holds a token."""
    assert "token" not in page.url and (token is None or token not in page.url), page.url
    assert sockets and all("token" not in url for url in sockets), sockets
    assert token is None or all(token not in url for url in sockets)


def test_a_game_from_the_lobby_keeps_no_token_in_any_url(pages: Browser, server: LiveServer) -> None:
    """Created from the lobby, a table's page has no token in its address or its socket's, plays
    under the policy (nothing blocked), and keeps the seat after a reload (the cookie)."""
    page = pages.page()
    sockets, blocked = watched(page)
    game_id = create_table(page, server.url, "Ann", "base")
    assert page.url == f"{server.url}/game/{game_id}"
    for _ in range(3):
        play_a_card(page)
    seat = page.evaluate("() => window.schotten.state.seat")
    assert seat in (0, 1)
    page.reload()
    page.wait_for_selector("#status[data-version]")
    assert page.evaluate("() => window.schotten.state.seat") == seat
    assert_no_token(page, sockets)
    assert not blocked, blocked


def test_a_seat_link_is_swapped_for_the_cookie(pages: Browser, server: LiveServer) -> None:
    """Opening a seat link (as a player does from another tab of the same browser): the address
    bar and the history end without the token, the socket's URL holds none, the seat plays."""
    grant = ai_table(server, "Bo")
    page = pages.page()
    sockets, blocked = watched(page)
    page.goto(f"{server.url}/")
    page.goto(f"{server.url}{grant['url']}")
    page.wait_for_selector("#status[data-version]")
    assert page.url == f"{server.url}/game/{grant['id']}"
    assert page.evaluate("() => window.schotten.state.seat") == 0
    play_a_card(page)
    assert_no_token(page, sockets, grant["token"])
    page.go_back()
    page.wait_for_url(f"{server.url}/")
    page.go_forward()
    page.wait_for_selector("#status[data-version]")
    assert grant["token"] not in page.url, "the history holds no token"
    assert not blocked, blocked


def test_a_forged_seat_link_is_said_and_dropped(pages: Browser, server: LiveServer) -> None:
    """A link whose token is no seat's: the page says so, drops it from the address and watches."""
    grant = ai_table(server, "Cy")
    page = pages.page()
    sockets, _ = watched(page)
    page.goto(f"{server.url}/game/{grant['id']}?token=forged-token")
    page.wait_for_selector("#status[data-version]")
    page.wait_for_selector("#message:not([hidden])")
    assert "This seat link is not valid." in page.inner_text("#message")
    assert page.url == f"{server.url}/game/{grant['id']}"
    assert page.evaluate("() => window.schotten.state.seat") is None
    assert_no_token(page, sockets, "forged-token")


def test_a_page_on_another_port_cannot_read_the_hand(pages: Browser, server: LiveServer) -> None:
    """The issue's probe in a real browser: the player's browser holds the seat cookie; a page of
    127.0.0.1 on another port opens the game's socket (Chromium sends the cookie: same site). It is
    told ``forbidden_origin`` and closed, and never gets a state message (nor the hand)."""
    grant = ai_table(server, "Di")
    page = pages.page()
    page.goto(f"{server.url}{grant['url']}")
    page.wait_for_selector("#status[data-version]")
    assert page.evaluate("() => window.schotten.state.seat") == 0, "the cookie seats this browser"
    html = ATTACK_PAGE.replace("{port}", str(server.port)).replace("{game}", grant["id"])
    with serving(html) as elsewhere:
        attack = page.context.new_page()
        attack.goto(elsewhere)
        attack.wait_for_function("() => window.shut !== null || window.got.some((m) => m.type === 'state')")
        got = attack.evaluate("() => window.got")
    assert [m["type"] for m in got] == ["error"], json.dumps(got)[:300]
    assert got[0]["code"] == "forbidden_origin" and elsewhere.rstrip("/") in got[0]["message"]
    assert attack.evaluate("() => window.shut") == 4003
