"""The JSON API, the pages, the languages, the settings and ``schotten serve`` (docs/web.md)."""

from __future__ import annotations

import hashlib
import json
import random
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from helpers_web import SEED, Duel, choose, create, join, log_of, moves_of, service_of, test_settings
from starlette.testclient import TestClient
from typer.testing import CliRunner

from schotten.cli import app as cli_app
from schotten.engine import GameState, Settings, parse_action
from schotten.engine.actions import action_parts
from schotten.engine.position import format_position
from schotten.engine.record import load_record
from schotten.engine.view import reveal
from schotten.web import create_app
from schotten.web.core.settings import WebSettings
from schotten.web.routes import i18n

TABLE_KEYS = {"id", "variant", "rounds", "mode", "level", "players", "status", "created", "winner", "rematch",
              "rematch_of", "seat", "clock", "ended", "turn", "your_turn", "rated", "accounts", "ratings",
              "provisional", "rating_range", "unrated_reason", "hints", "hints_used", "tournament"}
GRANT_KEYS = {"id", "seat", "token", "url", "invite"}


def _finished_duel(client: TestClient, seed: int = SEED) -> Duel:
    duel = Duel(client, seed=seed)
    rng = random.Random(seed)
    try:
        while not duel.state.is_over:
            duel.play(choose(duel.messages[duel.state.turn][-1], rng))
    finally:
        duel.close()
    return duel


def test_create_a_friend_table(client: TestClient) -> None:
    """A friend table: your seat's secret link, an invite link, a cookie; listed as open."""
    response = client.post("/api/tables", json={"variant": "tactics", "rounds": 3, "mode": "friend",
                                                "nickname": "  Ann  ", "seat": 1})
    assert response.status_code == 200
    grant = response.json()
    assert set(grant) == GRANT_KEYS and grant["seat"] == 1
    assert grant["url"] == f"/game/{grant['id']}?token={grant['token']}"
    assert grant["invite"] == f"/game/{grant['id']}?join=1"
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"seat_{grant['id']}={grant['token']};") and "HttpOnly" in cookie
    tables = client.get("/api/tables").json()["tables"]
    assert tables == [{
        "id": grant["id"], "variant": "tactics", "rounds": 3, "mode": "friend", "level": None,
        "players": [None, "Ann"], "status": "open", "created": tables[0]["created"], "winner": None,
        "rematch": None, "rematch_of": None, "clock": None, "ended": None, "turn": None, "seat": None,
        "your_turn": False, "rated": False, "accounts": [None, None], "ratings": [None, None],
        "provisional": [False, False], "rating_range": [None, None], "unrated_reason": None,
        "hints": False, "hints_used": 0, "tournament": None,
    }]
    assert datetime.fromisoformat(tables[0]["created"]).tzinfo is not None


def test_create_an_ai_table(client: TestClient) -> None:
    """Against the AI: the AI takes the other seat, named after its level; the game starts at once."""
    grant = create(client, mode="ai", level="hard", seat=1)
    assert grant["invite"] is None
    table = client.get(f"/api/games/{grant['id']}").json()
    assert table["players"] == ["AI (hard)", "Ann"] and table["level"] == "hard"
    assert table["status"] == "playing" and table["mode"] == "ai"
    default = create(client, mode="ai", seat=None)
    summary = client.get(f"/api/games/{default['id']}").json()
    assert summary["level"] == "medium" and default["seat"] in (0, 1)
    assert summary["players"][1 - default["seat"]] == "AI (medium)"


def test_secrets_stay_secret(client: TestClient) -> None:
    """Neither the seed nor a token hash is ever sent; tokens are stored only as hashes."""
    grant = create(client, seed=SEED)
    texts = [client.get("/api/tables").text, client.get(f"/api/games/{grant['id']}").text]
    assert all(str(SEED) not in text and "seed" not in text for text in texts)
    info = service_of(client).games[grant["id"]].info
    assert info.token_hashes[0] == hashlib.sha256(grant["token"].encode()).hexdigest()
    assert grant["token"] not in json.dumps(info.token_hashes)


@pytest.mark.parametrize(("body", "field"), [
    ({"mode": "friend"}, "nickname"),
    ({"mode": "friend", "nickname": ""}, "nickname"),
    ({"mode": "friend", "nickname": "   "}, "nickname"),
    ({"mode": "friend", "nickname": "x" * 25}, "nickname"),
    ({"mode": "friend", "nickname": "a\u0000b"}, "nickname"),
    ({"mode": "friend", "nickname": 7}, "nickname"),
    ({"mode": "chess", "nickname": "Ann"}, "mode"),
    ({"nickname": "Ann"}, "mode"),
    ({"mode": "friend", "nickname": "Ann", "variant": "poker"}, "variant"),
    ({"mode": "friend", "nickname": "Ann", "rounds": 0}, "rounds"),
    ({"mode": "friend", "nickname": "Ann", "rounds": 100}, "rounds"),
    ({"mode": "friend", "nickname": "Ann", "rounds": "many"}, "rounds"),
    ({"mode": "friend", "nickname": "Ann", "seat": 2}, "seat"),
    ({"mode": "ai", "nickname": "Ann", "level": "godlike"}, "level"),
])
def test_bad_tables_are_refused(client: TestClient, body: dict[str, Any], field: str) -> None:
    """A table request with a bad field: 422 and a clear message naming the field; nothing stored."""
    response = client.post("/api/tables", json=body)
    assert response.status_code == 422
    assert set(response.json()) == {"error"} and field in response.json()["error"]
    assert client.get("/api/tables").json() == {"tables": []}


def test_bad_json_bodies_are_refused(client: TestClient) -> None:
    """A body that is not JSON: a 4xx with an error message."""
    response = client.post("/api/tables", content=b"{nope", headers={"content-type": "application/json"})
    assert response.status_code == 422 and response.json()["error"]


def test_joining_a_table(client: TestClient) -> None:
    """Join takes the free seat (409 when there is none); unknown tables are 404."""
    grant = create(client, seat=0)
    response = client.post(f"/api/tables/{grant['id']}/join", json={"nickname": "Bob"})
    assert response.status_code == 200
    joined = response.json()
    assert joined["seat"] == 1 and joined["invite"] is None and joined["token"] != grant["token"]
    assert response.headers["set-cookie"].startswith(f"seat_{grant['id']}={joined['token']};")
    table = client.get(f"/api/games/{grant['id']}").json()
    assert table["players"] == ["Ann", "Bob"] and table["status"] == "playing" and table["version"] == 0
    again = client.post(f"/api/tables/{grant['id']}/join", json={"nickname": "Cy"})
    assert again.status_code == 409 and "no free seat" in again.json()["error"]
    ai = create(client, mode="ai", level="easy")
    assert client.post(f"/api/tables/{ai['id']}/join", json={"nickname": "Cy"}).status_code == 409
    missing = client.post("/api/tables/nosuchgame/join", json={"nickname": "Cy"})
    assert missing.status_code == 404 and "nosuchgame" in missing.json()["error"]
    bad = client.post(f"/api/tables/{create(client)['id']}/join", json={"nickname": ""})
    assert bad.status_code == 422 and "nickname" in bad.json()["error"]


def test_game_summary_counts_versions(client: TestClient) -> None:
    """GET /api/games/{id}: the table and the version (entries in the log)."""
    with Duel(client) as duel:
        rng = random.Random(1)
        for _ in range(3):
            duel.play(choose(duel.messages[duel.state.turn][-1], rng))
        summary = client.get(f"/api/games/{duel.id}").json()
        assert set(summary) == TABLE_KEYS | {"version"} and summary["version"] == 3
    assert client.get("/api/games/nosuchgame").status_code == 404


def test_records_and_replays_only_for_finished_games(client: TestClient) -> None:
    """While a game is played its record and replay would reveal hidden cards: 409 (R10.4)."""
    grant = create(client)
    join(client, grant["id"])
    for what in ("record", "replay"):
        response = client.get(f"/api/games/{grant['id']}/{what}")
        assert response.status_code == 409 and response.json()["error"] == (
            f"the game is still being played: its {what} would reveal hidden cards (R10.4)")
        assert client.get(f"/api/games/nosuchgame/{what}").status_code == 404


NOT_BEGUN = "the game has not begun yet: this table is waiting for its second player, so "


def test_no_record_nor_replay_before_the_second_player(client: TestClient) -> None:
    """A friend table waiting for its second player has no game yet: its replay and record (also
    the download) are refused (409, as for a game in play) saying so, not that a game is being
    played; once the second player sits down, the game in play is refused as such (R10.4)."""
    grant = create(client)
    requests = {
        f"/api/games/{grant['id']}/replay": "there is nothing to replay yet",
        f"/api/games/{grant['id']}/record": "there is no game record to download yet",
        f"/api/games/{grant['id']}/record?download=1": "there is no game record to download yet",
    }
    for path, nothing in requests.items():
        response = client.get(path)
        assert response.status_code == 409, path
        assert response.json() == {"error": NOT_BEGUN + nothing}, path
        assert "content-disposition" not in response.headers, path
    assert client.get(f"/api/games/{grant['id']}").json()["status"] == "open"
    join(client, grant["id"])
    for path in requests:
        response = client.get(path)
        assert response.status_code == 409 and "still being played" in response.json()["error"], path


def test_record_of_a_finished_game(client: TestClient) -> None:
    """A finished game's record replays to the same end (players, seed, every action)."""
    duel = _finished_duel(client)
    response = client.get(f"/api/games/{duel.id}/record")
    assert response.status_code == 200 and "content-disposition" not in response.headers
    record = response.json()
    assert record["players"] == ["Ann", "Bob"] and record["seed"] == SEED
    assert record["actions"] == [e.notation for e in log_of(client, duel.id)]
    final = load_record(json.dumps(record))
    assert final.history == duel.state.history and final.outcome == duel.state.outcome
    download = client.get(f"/api/games/{duel.id}/record?download=1")
    assert download.headers["content-disposition"] == f'attachment; filename="schotten-{duel.id}.json"'
    table = client.get(f"/api/games/{duel.id}").json()
    assert table["status"] == "over" and table["winner"] == duel.state.outcome.winner  # type: ignore[union-attr]


def test_replay_of_a_finished_game(client: TestClient) -> None:
    """The replay: the deal, then every move with its mover and the whole table after it."""
    duel = _finished_duel(client)
    replay = client.get(f"/api/games/{duel.id}/replay").json()
    assert replay["table"]["id"] == duel.id and replay["table"]["status"] == "over"
    steps = replay["steps"]
    assert len(steps) == len(duel.state.history) + 1
    state = GameState.new(Settings.of("base"), SEED)
    deal = json.loads(json.dumps(reveal(state, finished=True)))
    assert steps[0] == {"action": None, "parts": None, "mover": None, "state": deal,
                        "position": format_position(state)}
    assert steps[-1]["position"] == format_position(duel.state)
    for step, move, mover in zip(steps[1:], moves_of(duel.messages[None][-1]),
                                 duel.state.movers, strict=True):
        state.apply(move)
        assert step["action"] == move and step["mover"] == mover
        assert step["parts"] == action_parts(parse_action(move).id)
        assert step["state"]["hands"] == [[str(c) for c in h] for h in json.loads(json.dumps(
            reveal(state, finished=True)))["hands"]]
    assert steps[-1]["state"] == json.loads(json.dumps(reveal(duel.state)))
    assert steps[1]["state"]["decks"][0] and steps[1]["state"]["history"] == [steps[1]["action"]]


def test_the_lobby_lists_the_newest_tables(tmp_path: Path) -> None:
    """At most ``table_limit`` tables, newest first; finished games are listed with their winner."""
    settings = test_settings(tmp_path, table_limit=3)
    with TestClient(create_app(settings)) as client:
        ids = [create(client, nickname=f"P{i}")["id"] for i in range(5)]
        tables = client.get("/api/tables").json()["tables"]
        assert [t["id"] for t in tables] == ids[:-4:-1]
        assert all(set(t) == TABLE_KEYS for t in tables)


def _po(path: Path, entries: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    header = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
    path.write_text(header + entries, encoding="utf-8")


def test_catalogues(client: TestClient, settings: WebSettings) -> None:
    """GET /api/i18n/{lang}: the catalogue (empty msgstr: the msgid; fuzzy ones left out);
    a missing catalogue gives no messages; an unknown language is 404."""
    _po(i18n.catalogue_path(settings.locale_dir, "pt"), (
        'msgid "Claim"\nmsgstr "Reivindicar"\n\n'
        'msgid "Deck"\nmsgstr ""\n\n'
        '#, fuzzy\nmsgid "Pass"\nmsgstr "Passo"\n\n'
        'msgid "Your turn"\nmsgstr "A tua vez"\n'
    ))
    body = client.get("/api/i18n/pt").json()
    assert body["lang"] == "pt"
    assert body["messages"] == {"Claim": "Reivindicar", "Deck": "Deck", "Your turn": "A tua vez"}
    assert client.get("/api/i18n/ca").json() == {"lang": "ca", "messages": {}}
    missing = client.get("/api/i18n/xx")
    assert missing.status_code == 404 and "xx" in missing.json()["error"]


@pytest.mark.parametrize(("header", "cookie", "best"), [
    ("pt-BR,pt;q=0.9,en;q=0.8", None, "pt"),
    ("ca-ES,ca;q=0.9,en;q=0.8", None, "ca"),
    ("fr-FR, fr;q=0.9, pt;q=0.5", None, "pt"),
    ("de-DE", None, "en"),
    ("pt;q=0, ca", None, "ca"),
    ("en;q=0.2, ca;q=0.7", None, "ca"),
    (None, None, "en"),
    ("ca", "pt", "pt"),
    ("ca", "klingon", "ca"),
])
def test_preferred_language(client: TestClient, header: str | None, cookie: str | None, best: str) -> None:
    """GET /api/i18n: the languages, and the best for the lang cookie, else Accept-Language, else English."""
    headers = {"accept-language": header} if header else {}
    if cookie:
        client.cookies.set("lang", cookie)
    body = client.get("/api/i18n", headers=headers).json()
    client.cookies.clear()
    assert body == {"languages": ["en", "pt", "ca"], "preferred": best}


def test_the_shipped_catalogues_read() -> None:
    """The catalogues shipped in schotten/web/locale are read with Babel (msgid -> text)."""
    locale_dir = WebSettings().locale_dir
    shipped = [lang for lang in i18n.LANGUAGES if i18n.catalogue_path(locale_dir, lang).is_file()]
    if not shipped:
        pytest.skip("no catalogue shipped yet")
    for lang in shipped:
        table = i18n.messages(locale_dir, lang)
        assert table and all(isinstance(k, str) and isinstance(v, str) and v for k, v in table.items())


def test_pages(tmp_path: Path) -> None:
    """The pages come from static/; /static serves the rest; a seat's link sets the seat's cookie
    and sends the browser on to the address without the token."""
    static = tmp_path / "static"
    static.mkdir()
    for name in ("index", "game", "replay", "rules"):
        (static / f"{name}.html").write_text(f"<title>{name}</title>")
    (static / "app.css").write_text("body {}")
    with TestClient(create_app(test_settings(tmp_path))) as client:
        grant = create(client)
        pages = {"/": "index", "/rules": "rules", f"/game/{grant['id']}": "game",
                 f"/replay/{grant['id']}": "replay"}
        for path, name in pages.items():
            response = client.get(path)
            assert response.status_code == 200 and response.text == f"<title>{name}</title>"
            assert response.headers["content-type"].startswith("text/html")
        assert client.get("/static/app.css").text == "body {}"
        assert client.get("/static/missing.js").status_code == 404
        seat = client.get(f"/game/{grant['id']}?token={grant['token']}&join=1", follow_redirects=False)
        assert seat.headers["set-cookie"].startswith(f"seat_{grant['id']}={grant['token']};")
        assert seat.status_code == 303 and seat.headers["location"] == f"/game/{grant['id']}?join=1"
        assert "set-cookie" not in client.get(f"/game/{grant['id']}?token=forged").headers
        for path in ("/game/nosuchgame", "/replay/nosuchgame"):
            response = client.get(path)
            assert response.status_code == 404 and "No such game" in response.text


def test_missing_pages_are_a_clear_404(client: TestClient) -> None:
    """Without the static files the pages answer 404 saying what is missing."""
    response = client.get("/")
    assert response.status_code == 404 and "index.html" in response.text
    assert client.get("/rules").status_code == 404


def test_unknown_api_paths(client: TestClient) -> None:
    """Every API error is JSON with an ``error``."""
    response = client.get("/api/nothing")
    assert response.status_code == 404 and set(response.json()) == {"error"}
    assert client.delete("/api/tables").json()["error"]


def test_settings_from_the_environment() -> None:
    """SCHOTTEN_DATABASE_URL (postgres:// is accepted), SCHOTTEN_HOST, _PORT, _AI_WORKERS; overrides win."""
    env = {"SCHOTTEN_DATABASE_URL": "postgres://u:p@db/schotten", "SCHOTTEN_PORT": "9000",
           "SCHOTTEN_HOST": "0.0.0.0", "SCHOTTEN_AI_WORKERS": "3"}
    settings = WebSettings.from_env(env)
    assert settings.database_url == "postgresql://u:p@db/schotten"
    assert (settings.port, settings.ai_workers, settings.address) == (9000, 3, "http://localhost:9000")
    assert WebSettings.from_env({}, port=None).database_url == "sqlite:///schotten.db"
    assert WebSettings.from_env(env, port=8001, database_url="sqlite:///x.db").database_url == "sqlite:///x.db"


def test_an_in_memory_database(tmp_path: Path) -> None:
    """``sqlite://`` (in memory) works too: one connection shared by the threads."""
    with TestClient(create_app(test_settings(tmp_path, database_url="sqlite://"))) as client:
        grant = create(client)
        assert client.get("/api/tables").json()["tables"][0]["id"] == grant["id"]


def test_serve_command(monkeypatch: pytest.MonkeyPatch) -> None:
    """``schotten serve`` prints the address to open and serves with the options given."""
    served: list[WebSettings] = []
    monkeypatch.setattr("schotten.web.app.run", served.append)
    monkeypatch.setattr("schotten.cli._check_database", lambda url, timeout, shared: None)
    monkeypatch.delenv("SCHOTTEN_DATABASE_URL", raising=False)
    result = CliRunner().invoke(cli_app, ["serve", "--port", "8123", "--database", "sqlite:///t.db"])
    assert result.exit_code == 0, result.output
    assert "Open http://127.0.0.1:8123" in result.output
    assert served[0].port == 8123 and served[0].database_url == "sqlite:///t.db"
    result = CliRunner().invoke(cli_app, ["serve", "--database", "postgresql://me:secret@db/s"])
    assert "secret" not in result.output and served[1].port == 8000


def test_serve_refuses_a_setting_that_does_not_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``SCHOTTEN_*`` value of the wrong type stops ``schotten serve`` with one sentence naming it."""
    monkeypatch.setattr("schotten.web.app.run", lambda settings: None)
    monkeypatch.setenv("SCHOTTEN_UNDO_LIMIT", "many")
    result = CliRunner().invoke(cli_app, ["serve"])
    assert result.exit_code == 2
    assert "SCHOTTEN_UNDO_LIMIT='many' is not a valid undo_limit" in result.output
    assert "Traceback" not in result.output and "Open " not in result.output


def test_my_games_are_the_tables_whose_seat_cookies_this_browser_holds(client: TestClient) -> None:
    ann = create(client, nickname="Ann")
    bob_table = create(client, nickname="Bob", seat=1)
    other = create(client, nickname="Cy")
    client.cookies.set(f"seat_{ann['id']}", ann["token"])
    client.cookies.set(f"seat_{bob_table['id']}", bob_table["token"])
    client.cookies.set(f"seat_{other['id']}", "forged-token")
    client.cookies.set("seat_nosuchgame", "whatever")
    mine = client.get("/api/my-games").json()["tables"]
    assert {t["id"]: t["seat"] for t in mine} == {ann["id"]: 0, bob_table["id"]: 1}
    assert all(set(t) == TABLE_KEYS for t in mine)
    assert ann["token"] not in json.dumps(mine) and bob_table["token"] not in json.dumps(mine)
    assert all(t["seat"] is None for t in client.get("/api/tables").json()["tables"])
    client.cookies.clear()
    assert client.get("/api/my-games").json()["tables"] == []
