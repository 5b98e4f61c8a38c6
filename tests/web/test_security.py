"""Origins, security headers, seat cookies over HTTPS, the seat link's token and clear request
errors (issue 13: "Secrets" and "Clear errors").

A page of another origin (another port of the same host is one) must not open the game socket
with a player's cookie nor change anything with a POST; every answer carries the security
headers; over HTTPS the seat cookies are ``Secure`` and ``__Host-`` prefixed; a seat link sets
the cookie and sends the browser on without the token; a refused body says what was wrong.
"""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path
from typing import Any

import pytest
from helpers_web import create, receive_error, receive_state, socket_path, test_settings
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from schotten.web import create_app
from schotten.web.core.settings import PACKAGE_DIR, WebSettings
from schotten.web.edge.security import FORBIDDEN_ORIGIN_CLOSE, POLICY, normal_origin

FOREIGN = "http://testserver:9000"
"""A page on another port of the same host: another origin."""
OWN = "http://testserver"
"""The test client's own origin (its Host is ``testserver``)."""
STATIC = PACKAGE_DIR / "static"
SECURITY_HEADERS = {"x-frame-options": "DENY", "x-content-type-options": "nosniff",
                    "referrer-policy": "no-referrer"}


@pytest.fixture
def site(tmp_path: Path) -> Any:
    """A client of an app with the real pages and static files."""
    with TestClient(create_app(test_settings(tmp_path, static_dir=STATIC))) as client:
        yield client


def client_of(settings: WebSettings, base_url: str = "http://testserver") -> TestClient:
    """A client of a fresh app on ``settings``."""
    return TestClient(create_app(settings), base_url=base_url)


# ---------------------------------------------------------------------- the socket's origin


def assert_refused_socket(ws: Any, origin: str) -> None:
    """The socket got ``forbidden_origin`` naming the origin, then was closed: no state, no view."""
    error = receive_error(ws, "forbidden_origin")
    assert origin in error["message"] and "SCHOTTEN_ALLOWED_ORIGINS" in error["message"]
    with pytest.raises(WebSocketDisconnect) as closed:
        ws.receive_json()
    assert closed.value.code == FORBIDDEN_ORIGIN_CLOSE


def test_a_socket_from_a_foreign_page_never_sees_the_hand(client: TestClient) -> None:
    """The issue's probe: a page on another port opened the socket with the player's cookie and
    read the hand. Now it is told why and closed before any state is sent."""
    grant = create(client)
    client.cookies.set(f"seat_{grant['id']}", grant["token"])
    for origin in (FOREIGN, "https://testserver", "null", "http://evil.example"):
        with client.websocket_connect(socket_path(grant["id"]), headers={"origin": origin}) as ws:
            assert_refused_socket(ws, origin)
    with client.websocket_connect(socket_path(grant["id"], grant["token"]),
                                  headers={"origin": FOREIGN}) as ws:
        assert_refused_socket(ws, FOREIGN)


def test_a_socket_from_the_own_origin_or_without_one_plays(client: TestClient) -> None:
    """The server's own page (its Host, any case, the default port written or not) and clients that
    send no Origin (scripts, this test client) are served."""
    grant = create(client)
    for headers in ({"origin": OWN}, {"origin": "HTTP://TestServer:80"}, {}):
        with client.websocket_connect(socket_path(grant["id"], grant["token"]), headers=headers) as ws:
            assert receive_state(ws)["seat"] == 0


def test_allowed_origins_are_served(tmp_path: Path) -> None:
    """``allowed_origins`` (SCHOTTEN_ALLOWED_ORIGINS) adds origins to the server's own."""
    settings = test_settings(tmp_path, allowed_origins=("https://play.example.org",))
    with client_of(settings) as client:
        grant = create(client)
        allowed = {"origin": "https://play.example.org"}
        with client.websocket_connect(socket_path(grant["id"]), headers=allowed) as ws:
            assert receive_state(ws)["seat"] is None
        with client.websocket_connect(socket_path(grant["id"]), headers={"origin": FOREIGN}) as ws:
            assert_refused_socket(ws, FOREIGN)
    env = {"SCHOTTEN_ALLOWED_ORIGINS": "https://a.example, https://b.example:8443"}
    assert WebSettings.from_env(env).allowed_origins == ("https://a.example", "https://b.example:8443")


# ---------------------------------------------------------------------- state-changing requests


def test_a_post_from_a_foreign_page_changes_nothing(client: TestClient) -> None:
    """Creating, joining and rematch requests from another origin are refused with 403, saying
    which origin and why, and change nothing (no table, no seat, no cookie)."""
    grant = create(client)
    before = client.get("/api/tables").json()
    body = {"variant": "base", "rounds": 1, "mode": "friend", "nickname": "Eve", "seat": 0}
    for path, sent in (("/api/tables", body), (f"/api/tables/{grant['id']}/join", {"nickname": "Eve"}),
                       (f"/api/games/{grant['id']}/rematch", {"token": grant["token"]})):
        refused = client.post(path, json=sent, headers={"origin": FOREIGN})
        assert refused.status_code == 403, refused.text
        assert refused.headers["content-type"] == "application/json"
        message = refused.json()["error"]
        assert FOREIGN in message and OWN in message and "nothing was changed" in message
        assert "set-cookie" not in refused.headers
    for method in ("PUT", "PATCH", "DELETE"):
        assert client.request(method, "/api/tables", headers={"origin": FOREIGN}).status_code == 403
    assert client.get("/api/tables").json() == before
    assert client.get("/api/tables", headers={"origin": FOREIGN}).status_code == 200, "reading is no change"


def test_a_post_from_the_own_origin_or_without_one_is_served(client: TestClient) -> None:
    """The lobby's own POSTs (and scripts without Origin) go through."""
    grant = create(client)
    assert client.post(f"/api/tables/{grant['id']}/join", json={"nickname": "Bob"},
                       headers={"origin": OWN}).status_code == 200
    assert client.post("/api/tables", json={"mode": "ai", "nickname": "Cy"}).status_code == 200


def test_over_https_only_the_https_origin_is_own(tmp_path: Path) -> None:
    """Behind a TLS proxy (``https`` on) the own origin is https://host, whatever scheme reached
    the server; without the setting a proxy's X-Forwarded-Proto says the same."""
    with client_of(test_settings(tmp_path, https=True)) as client:
        assert client.post("/api/tables", json={"mode": "ai", "nickname": "Al"},
                           headers={"origin": "https://testserver"}).status_code == 200
        refused = client.post("/api/tables", json={"mode": "ai", "nickname": "Al"}, headers={"origin": OWN})
        assert refused.status_code == 403 and "https://testserver" in refused.json()["error"]
    with client_of(test_settings(tmp_path)) as client:
        proxied = {"origin": "https://testserver", "x-forwarded-proto": "https"}
        answer = client.post("/api/tables", json={"mode": "ai", "nickname": "Al"}, headers=proxied)
        assert answer.status_code == 200


def test_origins_are_compared_normalised() -> None:
    """Case, a trailing slash and the scheme's default port do not make another origin."""
    assert normal_origin("HTTPS://Example.org:443/") == "https://example.org"
    assert normal_origin("http://example.org:80") == "http://example.org"
    assert normal_origin("http://example.org:8080") == "http://example.org:8080"
    assert normal_origin("http://[::1]:8000") == "http://[::1]:8000"
    assert normal_origin("null") == "null://"


# ---------------------------------------------------------------------- headers


def assert_secure_headers(response: Any, policy: str = POLICY) -> None:
    """The answer carries every security header and the policy."""
    for name, value in SECURITY_HEADERS.items():
        assert response.headers.get(name) == value, (response.url, name)
    assert response.headers.get("content-security-policy") == policy, response.url


def test_every_answer_carries_the_security_headers(site: TestClient) -> None:
    """Pages, the API, static files, errors and refusals all carry the headers and the policy."""
    grant = create(site)
    answers = [site.get(path) for path in ("/", "/rules", f"/game/{grant['id']}", f"/replay/{grant['id']}",
                                           "/api/tables", "/static/js/lobby.js", "/static/css/style.css",
                                           "/game/nosuchgame", "/api/games/nosuchgame", "/static/none.js",
                                           "/api/openapi.json")]
    answers.append(site.post("/api/tables", content=b"{", headers={"content-type": "application/json"}))
    answers.append(site.post("/api/tables", json={}, headers={"origin": FOREIGN}))
    answers.append(site.get(f"/game/{grant['id']}?token={grant['token']}", follow_redirects=False))
    assert [a.status_code for a in answers] == [200] * 5 + [200, 200, 404, 404, 404, 200, 422, 403, 303]
    for answer in answers:
        assert_secure_headers(answer)
    assert "'unsafe-inline'" not in POLICY and "frame-ancestors 'none'" in POLICY
    assert "connect-src 'self'" in POLICY and "script-src 'self';" in POLICY


def test_the_docs_page_has_a_policy_of_its_own(site: TestClient) -> None:
    """/api/docs (Swagger UI from its CDN, one inline script) allows exactly that script by hash."""
    page = site.get("/api/docs")
    assert page.status_code == 200
    policy = page.headers["content-security-policy"]
    scripts = re.findall(r"<script>(.*?)</script>", page.text, re.DOTALL)
    assert scripts, "the docs page has an inline script"
    for script in scripts:
        digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in policy
    assert "script-src 'self' https://cdn.jsdelivr.net 'sha256-" in policy
    assert "'unsafe-inline'" not in policy.split("script-src")[1].split(";")[0]
    assert "frame-ancestors 'none'" in policy
    for name, value in SECURITY_HEADERS.items():
        assert page.headers[name] == value


def test_the_pages_hold_no_inline_script_style_or_handler() -> None:
    """The strict policy would block them: every script and style is a file of /static."""
    for page in STATIC.glob("*.html"):
        text = page.read_text()
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", text), page.name
        assert "<style" not in text and not re.search(r"\sstyle=", text), page.name
        assert not re.search(r"\son[a-z]+=", text), page.name
        assert "javascript:" not in text, page.name


# ---------------------------------------------------------------------- cookies and the seat link


def set_cookies(response: Any) -> list[str]:
    """The Set-Cookie headers of an answer."""
    return [value for name, value in response.headers.multi_items() if name == "set-cookie"]


def test_over_https_the_seat_cookies_are_secure_host_cookies(tmp_path: Path) -> None:
    """With ``https`` on, every seat cookie is ``__Host-seat_{id}``, Secure, HttpOnly, Path=/, no
    Domain; it seats the socket and lists the game; a plain ``seat_{id}`` cookie counts no more."""
    with client_of(test_settings(tmp_path, https=True), base_url="https://testserver") as client:
        answer = client.post("/api/tables", json={"mode": "friend", "nickname": "Ann", "seat": 0})
        grant = answer.json()
        linked = client.get(f"/game/{grant['id']}?token={grant['token']}", follow_redirects=False)
        bob = client.post(f"/api/tables/{grant['id']}/join", json={"nickname": "Bob"})
        for response, game_id in ((answer, grant["id"]), (linked, grant["id"]), (bob, grant["id"])):
            (cookie,) = set_cookies(response)
            assert cookie.startswith(f"__Host-seat_{game_id}=")
            parts = {part.strip().lower() for part in cookie.split(";")}
            assert {"secure", "httponly", "path=/", "samesite=lax"} <= parts
            assert not any(part.startswith("domain") for part in parts)
        client.cookies.clear()
        name = f"__Host-seat_{grant['id']}"
        client.cookies.set(name, grant["token"])
        assert [t["seat"] for t in client.get("/api/my-games").json()["tables"]] == [0]
        with client.websocket_connect(socket_path(grant["id"])) as ws:
            assert receive_state(ws)["seat"] == 0
        client.cookies.clear()
        client.cookies.set(f"seat_{grant['id']}", grant["token"])
        assert client.get("/api/my-games").json()["tables"] == []
        with client.websocket_connect(socket_path(grant["id"])) as ws:
            assert receive_state(ws)["seat"] is None


def test_without_https_the_cookies_are_as_before(client: TestClient) -> None:
    """Plain HTTP (the default): ``seat_{id}``, not Secure (a browser would drop it over HTTP)."""
    answer = client.post("/api/tables", json={"mode": "ai", "nickname": "Ann"})
    (cookie,) = set_cookies(answer)
    assert cookie.startswith(f"seat_{answer.json()['id']}=") and "secure" not in cookie.lower()


def test_a_seat_link_sets_the_cookie_and_drops_the_token(site: TestClient) -> None:
    """Opening a seat link answers 303 to the address without the token, not cached; the cookie
    set then seats the socket without any token in its URL; a forged link sets nothing."""
    client = site
    grant = create(client)
    answer = client.get(f"/game/{grant['id']}?token={grant['token']}", follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"] == f"/game/{grant['id']}"
    assert "no-store" in answer.headers["cache-control"] and grant["token"] not in answer.headers["location"]
    with client.websocket_connect(socket_path(grant["id"])) as ws:
        assert receive_state(ws)["seat"] == 0
    forged = client.get(f"/game/{grant['id']}?token=forged", follow_redirects=False)
    assert forged.status_code == 200 and "set-cookie" not in forged.headers, "a forged link sets nothing"


# ---------------------------------------------------------------------- clear errors


def refused(client: TestClient, path: str, body: bytes, content_type: str = "application/json") -> str:
    """The error of a POST refused with 422."""
    answer = client.post(path, content=body, headers={"content-type": content_type})
    assert answer.status_code == 422, answer.text
    message: str = answer.json()["error"]
    return message


def test_malformed_json_says_where(client: TestClient) -> None:
    """Not "8: JSON decode error": the body is not valid JSON, why, at which line and column."""
    assert refused(client, "/api/tables", b'{"mode": "ai",}') == (
        "the body is not valid JSON: expecting property name enclosed in double quotes at line 1, column 15")
    assert refused(client, "/api/tables", b'{\n  "mode": \n') == (
        "the body is not valid JSON: expecting value at line 3, column 1")


def test_a_missing_body_says_what_it_must_hold(client: TestClient) -> None:
    """Not "Field required": which body, which fields (a guest's nickname is asked for by the server:
    a logged-in player needs none)."""
    assert refused(client, "/api/tables", b"").startswith(
        'the request has no body: send a JSON object with "mode" (optionally also "variant"')
    assert refused(client, "/api/tables", b"{}").startswith(
        'the body has no "mode": it must be a JSON object with "mode" (optionally also "variant"')
    assert refused(client, "/api/tables", b'{"mode": "ai"}') == (
        'the body has no "nickname": a guest (not logged in) plays under a nickname')
    assert refused(client, "/api/tables/abc/join", b"[1]") == (
        'the body must be a JSON object with "nickname", or empty, not a list')
    assert refused(client, "/api/tables/abc/join", b'{"nickname": "x"}', "text/plain") == (
        'send the body as JSON (Content-Type: application/json): a JSON object with "nickname", or empty')


@pytest.mark.parametrize(("name", "says"), [
    ("\\ud800", "U+D800: it is not a valid character (a lone surrogate"),
    ("A\\u0007", "U+0007: it is a control character"),
    ("A\\u202e", "U+202E: it is an invisible formatting character"),
])
def test_a_nickname_names_the_character_it_may_not_hold(client: TestClient, name: str, says: str) -> None:
    """A lone surrogate is not called a control character; each refused character is named."""
    message = refused(client, "/api/tables", f'{{"mode": "ai", "nickname": "{name}"}}'.encode())
    assert message.startswith("nickname: a nickname may not hold ") and says in message
    assert "control" not in message or "U+0007" in message


def test_unknown_paths_and_methods_are_sentences(client: TestClient) -> None:
    """Not "Not Found" / "Method Not Allowed": what is missing, and which methods the path answers
    (every route's, in Allow too)."""
    missing = client.get("/api/nothing")
    assert missing.status_code == 404
    assert missing.json() == {"error": "there is nothing at /api/nothing: see /api/docs for the API's routes"}
    wrong = client.delete("/api/tables")
    assert wrong.status_code == 405 and wrong.headers["allow"] == "GET, POST"
    assert wrong.json() == {"error": "DELETE /api/tables is not allowed: this path answers GET, POST"}
    assert client.get("/api/tables/x/join").json()["error"] == (
        "GET /api/tables/x/join is not allowed: this path answers POST")
