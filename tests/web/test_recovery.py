"""Account recovery (issue 29, docs/web/players.md "Recovery"): an e-mail address confirmed by a link,
reset links sent by a local SMTP server (aiosmtpd), recovery codes, and every refusal: expired, reused,
wrong, forged, over a rate, a guest; no token in the logs, no answer that tells whether an address or
a name is an account's. Each test runs on SQLite and on PostgreSQL (when ``SCHOTTEN_TEST_POSTGRES_URL``
is set, see test_postgres)."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email import message_from_bytes
from email.header import decode_header, make_header
from email.message import Message
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from browser_helpers import free_port
from helpers_web import service_of, test_settings
from sqlalchemy import select, update
from starlette.testclient import TestClient
from test_moderation import Browser, member
from test_postgres import database_url, server_url  # noqa: F401  (fixtures)

from schotten.web.app import create_app
from schotten.web.core.settings import WebSettings
from schotten.web.players.identity import SESSION_COOKIE
from schotten.web.players.mail import MAILS
from schotten.web.routes import i18n
from schotten.web.routes.recovery import BAD_CODE, BAD_LINK, NO_MAIL, RESET_COOKIE, SENT
from schotten.web.storage.db import AccountRow
from schotten.web.storage.recovery_rows import AccountTokenRow, RecoveryCodeRow

PASSWORD = "correct horse battery"
NEW_PASSWORD = "a brand new password"
TEST_TOOLS = {"mail.log", "httpx2"}
"""The loggers of the test's own SMTP server and client (they see the secrets the test sends)."""
PLACEHOLDER = re.compile(r"\{\w+\}")
LINK = re.compile(r"http://[^/\s]+(/(?:reset|confirm-email)\?token=[A-Za-z0-9_-]+)")


class Inbox:
    """What the local SMTP server received: one e-mail message per delivery."""

    def __init__(self) -> None:
        self.mails: list[Message] = []

    async def handle_DATA(self, _server: Any, _session: Any, envelope: Any) -> str:
        """aiosmtpd's hook: keep the message."""
        self.mails.append(message_from_bytes(envelope.content))
        return "250 OK"

    def wait(self, count: int, timeout: float = 10.0) -> list[Message]:
        """The first ``count`` mails, once they are there."""
        deadline = time.monotonic() + timeout
        while len(self.mails) < count and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(self.mails) >= count, f"{len(self.mails)} mails arrived, not {count}"
        return self.mails[:count]


def link_in(mail: Message) -> str:
    """The path and query of the link a mail carries."""
    body = mail.get_payload(decode=True)
    assert isinstance(body, bytes)
    found = LINK.search(body.decode())
    assert found, body
    return found.group(1)


@pytest.fixture
def inbox() -> Iterator[tuple[Inbox, int]]:
    """A local SMTP server on 127.0.0.1: its inbox and port."""
    box = Inbox()
    controller = Controller(box, hostname="127.0.0.1", port=free_port())
    controller.start()
    yield box, controller.port
    controller.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The database of the test: a SQLite file, or a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'games.db'}"
    found: str = request.getfixturevalue("database_url")
    return found


def app_settings(tmp_path: Path, url: str, port: int | None, **changes: Any) -> Any:
    """Test settings on ``url`` with the local SMTP server at ``port`` (None: no e-mail)."""
    mail = {"smtp_host": "127.0.0.1", "smtp_port": port, "smtp_starttls": False} if port else {}
    rates = {"recovery_rate": "1000/minute", "recovery_account_rate": "1000/minute"}
    return test_settings(tmp_path, database_url=url, **(mail | rates | changes))


@pytest.fixture
def client(tmp_path: Path, url: str, inbox: tuple[Inbox, int]) -> Iterator[TestClient]:
    """An app on the test's database that sends its mail to ``inbox``."""
    with TestClient(create_app(app_settings(tmp_path, url, inbox[1]))) as client:
        yield client


def confirmed(client: TestClient, box: Inbox, name: str, email: str) -> Browser:
    """A member ``name`` whose address ``email`` is confirmed (its confirmation mail read)."""
    browser = member(client, name)
    before = len(box.mails)
    assert browser.post("/api/account/email", {"password": PASSWORD, "email": email}).status_code == 202
    answer = visit(browser, link_in(box.wait(before + 1)[before]))
    assert answer.status_code == 303 and answer.headers["location"] == "/account?email=confirmed"
    return browser


def visit(browser: Browser, path: str) -> Any:
    """GET ``path`` without following a redirect."""
    return browser.request("GET", path, follow_redirects=False)


def forgot(client: TestClient, name: str) -> Any:
    """Ask, as a fresh browser, for a reset link for ``name``."""
    return Browser(client).post("/api/recovery/forgot", {"name": name})


def reset_with(client: TestClient, link: str, password: str = NEW_PASSWORD) -> tuple[Browser, Any]:
    """Follow a reset link in a fresh browser and choose ``password``: the browser, the answer."""
    browser = Browser(client)
    moved = visit(browser, link)
    assert moved.status_code == 303 and moved.headers["location"] == "/reset?link=1"
    return browser, browser.post("/api/recovery/reset", {"new_password": password})


def logs_in(client: TestClient, name: str, password: str) -> bool:
    """Whether ``name`` logs in with ``password``."""
    answer = Browser(client).post("/api/session", {"username": name, "password": password})
    return bool(answer.status_code == 200)


def test_an_address_is_confirmed_by_the_link_sent_to_it(client: TestClient, inbox: tuple[Inbox, int]) -> None:
    """The password is checked; the link comes to the address, confirms it once, leaves the address bar."""
    box = inbox[0]
    ann = member(client, "Ann")
    wrong = ann.post("/api/account/email", {"password": "not the password", "email": "ann@example.org"})
    assert wrong.status_code == 403 and "password is wrong" in wrong.json()["error"]
    assert ann.post("/api/account/email", {"password": PASSWORD, "email": "ann@example.org"}).json() == {
        "pending": "ann@example.org"}
    mail = box.wait(1)[0]
    assert mail["To"] == "ann@example.org" and "Ann" in str(mail.get_payload(decode=True))
    assert ann.get("/api/account/recovery").json() == {"email": None, "pending": "ann@example.org",
                                                      "codes_left": 8, "mail": True}
    link = link_in(mail)
    answer = visit(Browser(client), link)
    assert answer.status_code == 303 and answer.headers["location"] == "/account?email=confirmed"
    assert ann.get("/api/account/recovery").json()["email"] == "ann@example.org"
    assert visit(Browser(client), link).headers["location"] == "/account?email=expired"


def test_a_reset_link_sets_a_new_password_once_and_ends_every_session(
        client: TestClient, inbox: tuple[Inbox, int]) -> None:
    """Forgot by name: the link moves into an HttpOnly cookie, the new password works, the old does not,
    Ann's other browser is logged out, this one logged in; the link does not work twice."""
    box = inbox[0]
    ann = confirmed(client, box, "Ann", "ann@example.org")
    answer = forgot(client, "ann")
    assert answer.status_code == 202 and answer.json() == {"message": SENT}
    link = link_in(box.wait(2)[1])
    browser = Browser(client)
    moved = visit(browser, link)
    cookie = moved.headers["set-cookie"]
    assert cookie.startswith(f"{RESET_COOKIE}=") and "HttpOnly" in cookie
    assert "samesite=strict" in cookie.lower()
    done = browser.post("/api/recovery/reset", {"new_password": NEW_PASSWORD})
    assert done.status_code == 200 and done.json() == {"username": "Ann"}
    assert browser.get("/api/session").json() == {"username": "Ann"}
    assert ann.get("/api/session").json() == {"username": None}
    assert logs_in(client, "Ann", NEW_PASSWORD) and not logs_in(client, "Ann", PASSWORD)
    again = reset_with(client, link, "yet another password")[1]
    assert again.status_code == 403 and again.json()["error"] == BAD_LINK
    assert logs_in(client, "Ann", NEW_PASSWORD)


def test_forgot_by_address_and_a_used_link_voids_the_others(client: TestClient,
                                                             inbox: tuple[Inbox, int]) -> None:
    """An address in any case finds its account; once one link is used, the account's others fail."""
    box = inbox[0]
    confirmed(client, box, "Ann", "Ann@Example.org")
    assert forgot(client, "ann@example.ORG").status_code == 202
    assert forgot(client, "Ann").status_code == 202
    first, second = (link_in(mail) for mail in box.wait(3)[1:])
    assert reset_with(client, second)[1].status_code == 200
    assert reset_with(client, first, "yet another password")[1].status_code == 403


def subject_of(mail: Message) -> str:
    """A mail's subject, decoded."""
    return str(make_header(decode_header(mail["Subject"])))


def test_the_mails_are_in_the_language_of_the_page_that_asks(tmp_path: Path, url: str,
                                                             inbox: tuple[Inbox, int]) -> None:
    """The confirmation asked from a page in Portuguese (Accept-Language) comes in Portuguese, the reset
    link asked from a page in Catalan (the ``lang`` cookie) in Catalan; both links work."""
    settings = app_settings(tmp_path, url, inbox[1], locale_dir=WebSettings().locale_dir)
    with TestClient(create_app(settings)) as client:
        in_languages(client, inbox[0])


def in_languages(client: TestClient, box: Inbox) -> None:
    """The body of ``test_the_mails_are_in_the_language_of_the_page_that_asks``, on the shipped
    catalogues."""
    ann = member(client, "Ann")
    asked = ann.request("POST", "/api/account/email", json={"password": PASSWORD, "email": "ann@example.org"},
                        headers={"accept-language": "pt-PT,pt;q=0.9,en;q=0.5"})
    assert asked.status_code == 202
    mail = box.wait(1)[0]
    assert subject_of(mail) == "Confirme o seu endereço de e-mail" and mail["Content-Language"] == "pt"
    text = mail.get_payload(decode=True).decode()
    assert text.startswith("Para confirmar este endereço para a conta Schotten Totten Ann, abra")
    assert visit(Browser(client), link_in(mail)).headers["location"] == "/account?email=confirmed"
    catalan = Browser(client)
    catalan.cookies["lang"] = "ca"
    assert catalan.post("/api/recovery/forgot", {"name": "Ann"}).status_code == 202
    mail = box.wait(2)[1]
    assert subject_of(mail) == "Tria una contrasenya nova" and mail["Content-Language"] == "ca"
    assert "Per triar una contrasenya nova per al compte de Schotten Totten Ann" in mail.get_payload(
        decode=True).decode()
    assert reset_with(client, link_in(mail))[1].status_code == 200


@pytest.mark.parametrize("lang", ["pt", "ca"])
def test_every_mail_is_translated_with_its_placeholders(lang: str) -> None:
    """Each mail's subject and text have a translation, with the English placeholders."""
    table = i18n.messages(WebSettings().locale_dir, lang)
    for wording in MAILS:
        for msgid in (wording.subject, wording.text):
            assert table.get(msgid, msgid) != msgid, (lang, msgid)
            assert PLACEHOLDER.findall(table[msgid]) == PLACEHOLDER.findall(msgid), (lang, msgid)


def test_forgot_says_the_same_whatever_it_names(client: TestClient, inbox: tuple[Inbox, int]) -> None:
    """No account, an account without an address, an unconfirmed address and a real one: one answer;
    only the real one gets a mail."""
    box = inbox[0]
    confirmed(client, box, "Ann", "ann@example.org")
    bob = member(client, "Bob")
    asked = bob.post("/api/account/email", {"password": PASSWORD, "email": "bob@example.org"})
    assert asked.status_code == 202
    box.wait(2)
    answers = [forgot(client, name) for name in ("nobody", "nobody@example.org", "Bob", "bob@example.org",
                                                 "Ann")]
    assert {(a.status_code, a.text) for a in answers} == {(202, answers[0].text)}
    box.wait(3)
    time.sleep(0.3)
    assert [mail["To"] for mail in box.mails[2:]] == ["ann@example.org"]


def test_an_expired_or_forged_link_changes_nothing(client: TestClient, inbox: tuple[Inbox, int]) -> None:
    """A link past its hour, a token made up, and no cookie at all: 403, the password stays."""
    box = inbox[0]
    confirmed(client, box, "Ann", "ann@example.org")
    forgot(client, "Ann")
    link = link_in(box.wait(2)[1])
    with service_of(client).store.use() as session, session.begin():
        session.execute(update(AccountTokenRow).where(AccountTokenRow.kind == "reset").values(
            expires=datetime.now(UTC) - timedelta(seconds=1)))
    for tried in (link, "/reset?token=" + "A" * 43):
        answer = reset_with(client, tried)[1]
        assert answer.status_code == 403 and answer.json()["error"] == BAD_LINK
    bare = Browser(client).post("/api/recovery/reset", {"new_password": NEW_PASSWORD})
    assert bare.status_code == 403
    assert logs_in(client, "Ann", PASSWORD)


def test_a_recovery_code_resets_the_password_once(client: TestClient) -> None:
    """The codes of the sign-up: each works once, a wrong one or a wrong name says the same, new codes
    void the old ones."""
    browser = Browser(client)
    codes = browser.post("/api/accounts", {"username": "Ann", "password": PASSWORD}).json()["recovery_codes"]
    assert len(codes) == 8 and len(set(codes)) == 8
    other = Browser(client)
    used = other.post("/api/recovery/code", {"username": "ANN", "code": codes[0].upper(),
                                              "new_password": NEW_PASSWORD})
    assert used.status_code == 200 and used.json() == {"username": "Ann"}
    assert browser.get("/api/session").json() == {"username": None}
    assert other.get("/api/account/recovery").json()["codes_left"] == 7
    for name, code in (("Ann", codes[0]), ("Ann", "aaaa-bbbb-cccc-dddd"), ("nobody", codes[1])):
        refused = Browser(client).post("/api/recovery/code", {"username": name, "code": code,
                                                               "new_password": PASSWORD})
        assert refused.status_code == 403 and refused.json()["error"] == BAD_CODE
    fresh = other.post("/api/account/recovery-codes", {"password": NEW_PASSWORD}).json()["recovery_codes"]
    assert set(fresh).isdisjoint(codes)
    stale = Browser(client).post("/api/recovery/code", {"username": "Ann", "code": codes[1],
                                                         "new_password": PASSWORD})
    assert stale.status_code == 403 and logs_in(client, "Ann", NEW_PASSWORD)


def test_secrets_are_stored_hashed_and_never_logged(client: TestClient, inbox: tuple[Inbox, int],
                                                     caplog: pytest.LogCaptureFixture) -> None:
    """Neither a link's token nor a code is in the database or in any log line of the server's."""
    caplog.set_level(logging.DEBUG)
    box = inbox[0]
    browser = Browser(client)
    codes = browser.post("/api/accounts", {"username": "Ann", "password": PASSWORD}).json()["recovery_codes"]
    browser.post("/api/account/email", {"password": PASSWORD, "email": "ann@example.org"})
    confirm = link_in(box.wait(1)[0])
    visit(Browser(client), confirm)
    forgot(client, "Ann")
    reset = link_in(box.wait(2)[1])
    reset_with(client, reset)
    Browser(client).post("/api/recovery/code", {"username": "Ann", "code": codes[0],
                                                 "new_password": PASSWORD})
    secrets = [confirm.partition("=")[2], reset.partition("=")[2], *(code.replace("-", "") for code in codes)]
    with service_of(client).store.use() as session:
        stored = str([*session.scalars(select(AccountTokenRow.token_hash)),
                      *session.scalars(select(RecoveryCodeRow.code_hash))])
    logged = "\n".join(record.getMessage() for record in caplog.records
                       if record.name not in TEST_TOOLS).replace("-", "")
    assert not [secret for secret in secrets if secret in stored or secret in logged]


def test_asking_and_trying_are_rate_limited_per_account_and_per_address(
        tmp_path: Path, url: str, inbox: tuple[Inbox, int]) -> None:
    """Past the rate of one name (an account's or not) or of one address (refused tries count): 429."""
    settings = app_settings(tmp_path, url, inbox[1], recovery_account_rate="2/hour",
                            recovery_rate="7/hour")
    with TestClient(create_app(settings)) as client:
        for name in ("Ann", "nobody"):
            answers = [forgot(client, name).status_code for _ in range(3)]
            assert answers == [202, 202, 429]
        assert forgot(client, "Carol").status_code == 202
        over = forgot(client, "Dave")
        assert over.status_code == 429 and "Retry-After" in over.headers
        assert "too many recovery requests" in over.json()["error"]


def test_links_of_different_accounts_are_not_counted_together(tmp_path: Path, url: str,
                                                               inbox: tuple[Inbox, int]) -> None:
    """With one try per account, Ann's and Bob's links both confirm and both reset."""
    box = inbox[0]
    settings = app_settings(tmp_path, url, inbox[1], recovery_account_rate="1/hour")
    with TestClient(create_app(settings)) as client:
        for at, name in enumerate(("Ann", "Bob")):
            confirmed(client, box, name, f"{name.lower()}@example.org")
            assert forgot(client, name).status_code == 202
            assert reset_with(client, link_in(box.wait(2 * at + 2)[2 * at + 1]))[1].status_code == 200


def test_a_guest_has_no_recovery_to_change(client: TestClient) -> None:
    """401 for the account's recovery routes without a session; bad bodies get 422 with the rule."""
    guest = Browser(client)
    assert guest.get("/api/account/recovery").status_code == 401
    assert guest.post("/api/account/email", {"password": PASSWORD,
                                             "email": "g@example.org"}).status_code == 401
    assert guest.post("/api/account/recovery-codes", {"password": PASSWORD}).status_code == 401
    ann = member(client, "Ann")
    bad = ann.post("/api/account/email", {"password": PASSWORD, "email": "not an address"})
    assert bad.status_code == 422 and "e-mail address is a name, @ and a domain" in bad.text
    short = guest.post("/api/recovery/code", {"username": "Ann", "code": "x", "new_password": "short"})
    assert short.status_code == 422 and "8 to 200 characters" in short.text
    assert guest.post("/api/recovery/forgot", {"name": "Ann", "extra": 1}).status_code == 422


def test_an_address_can_be_removed_and_goes_with_the_account(client: TestClient,
                                                              inbox: tuple[Inbox, int]) -> None:
    """Removing the address (password checked) stops reset links; a deleted account keeps no address."""
    box = inbox[0]
    ann = confirmed(client, box, "Ann", "ann@example.org")
    assert ann.request("DELETE", "/api/account/email", json={"password": "wrong password"}).status_code == 403
    assert ann.request("DELETE", "/api/account/email", json={"password": PASSWORD}).status_code == 204
    forgot(client, "Ann")
    confirmed(client, box, "Bob", "bob@example.org")
    bob = Browser(client)
    bob.post("/api/session", {"username": "Bob", "password": PASSWORD})
    assert bob.request("DELETE", "/api/account", json={"password": PASSWORD}).status_code == 204
    time.sleep(0.3)
    assert len(box.mails) == 2
    with service_of(client).store.use() as session:
        assert list(session.scalars(select(AccountRow.email))) == [None, None]
        codes = select(RecoveryCodeRow.code_hash).where(RecoveryCodeRow.account_id == 2)
        assert list(session.scalars(codes)) == []


def test_without_an_smtp_server_the_codes_remain(tmp_path: Path, url: str) -> None:
    """No SMTP server: setting an address and forgot are refused (409) with what to use instead."""
    with TestClient(create_app(app_settings(tmp_path, url, None))) as client:
        ann = member(client, "Ann")
        assert ann.get("/api/account/recovery").json()["mail"] is False
        refused = ann.post("/api/account/email", {"password": PASSWORD, "email": "ann@example.org"})
        assert refused.status_code == 409 and refused.json()["error"] == NO_MAIL
        assert forgot(client, "Ann").status_code == 409
        assert SESSION_COOKIE in ann.cookies
