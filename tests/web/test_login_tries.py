"""Log-in tries and trusted devices (issue 26, item 1; docs/web/limits.md, "Log-in tries"): strangers
failing from many addresses lock out strangers only; a browser that logged in before keeps its own
allowance (OWASP's device cookies), and a device that fails is locked itself.

Each browser is a ``TestClient`` with its own cookies and its own client address (``127.0.12.x``) on
one app. The rates are the defaults (``WebSettings``): ``login_rate`` 5/minute;30/hour per browser,
``login_untrusted_rate`` 20/minute;100/hour per name for browsers that never logged in to it,
``login_address_rate`` 20/minute;200/hour per address. On SQLite and on PostgreSQL (when
``SCHOTTEN_TEST_POSTGRES_URL`` is set, see test_postgres).
"""

from __future__ import annotations

import logging
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers_web import FakeClock, app_at, service_of, test_settings
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from sqlalchemy import select
from starlette.testclient import TestClient
from test_postgres import database_url, server_url  # noqa: F401  (fixtures)

from schotten.web.core.settings import WebSettings
from schotten.web.edge.quotas import Rates, shared_limiter
from schotten.web.players.devices import DEVICE_COOKIE, MAX_DEVICES, Devices, device_hash
from schotten.web.storage.db import TrustedDeviceRow

PASSWORD = "correct horse battery"
WRONG = "not the password"
DEFAULTS = WebSettings()
RATES = {"login_rate": DEFAULTS.login_rate, "login_untrusted_rate": DEFAULTS.login_untrusted_rate,
         "login_address_rate": DEFAULTS.login_address_rate}


class Site:
    """The app and its browsers, each at an address of its own."""

    def __init__(self, client: TestClient) -> None:
        self.client = client

    def browser(self, address: str, cookies: TestClient | None = None) -> TestClient:
        """A new browser at ``address`` (with a copy of ``cookies``' cookies, if given)."""
        other = TestClient(self.client.app, base_url=str(self.client.base_url), client=(address, 50000))
        other.portal = self.client.portal
        if cookies is not None:
            for cookie in cookies.cookies.jar:
                other.cookies.set(cookie.name, cookie.value or "")
        return other

    def devices(self) -> Devices:
        """The app's trusted devices, read behind the API."""
        service = service_of(self.client)
        return Devices(service.store, service.settings.device_ttl, service.accounts.now)


@pytest.fixture(params=["sqlite", "postgres"])
def site_settings(request: pytest.FixtureRequest, tmp_path: Path) -> WebSettings:
    """The default log-in rates, on a SQLite file or a PostgreSQL schema of the test's own."""
    url = (f"sqlite:///{tmp_path / 'games.db'}" if request.param == "sqlite"
           else request.getfixturevalue("database_url"))
    return test_settings(tmp_path, database_url=url, **RATES)


@pytest.fixture
def clock() -> FakeClock:
    """The app's clock (the devices' expiry)."""
    return FakeClock()


@pytest.fixture
def site(site_settings: WebSettings, clock: FakeClock) -> Iterator[Site]:
    """The app on the test's database."""
    with app_at(site_settings, clock) as client:
        yield Site(client)


def log_in(browser: TestClient, name: str = "Ann", password: str = PASSWORD) -> Any:
    """POST a log-in; the response."""
    return browser.post("/api/session", json={"username": name, "password": password})


def home_of(site: Site, name: str = "Ann") -> TestClient:
    """A browser at 127.0.12.9 that signed up as ``name`` (so it is trusted for it)."""
    home = site.browser("127.0.12.9")
    assert home.post("/api/accounts", json={"username": name, "password": PASSWORD}).status_code == 201
    return home


def test_five_strangers_failing_do_not_lock_the_real_user_out(site: Site) -> None:
    """Issue 26: five wrong tries from five addresses, then the real user, right password, from a fresh
    address and a fresh browser: 200 (it was 429 "too many log-in attempts"); from the browser it signed
    up with, 200 too."""
    home = home_of(site)
    for host in range(1, 6):
        assert log_in(site.browser(f"127.0.12.{host}"), password=WRONG).status_code == 401
    assert log_in(site.browser("127.0.12.6")).status_code == 200
    assert log_in(home).status_code == 200


def test_a_flood_from_many_addresses_locks_out_strangers_only(site: Site) -> None:
    """Five addresses trying six wrong passwords each: each is refused after five (``login_rate``), and
    once 20 strangers' tries were counted every untrusted browser is (``login_untrusted_rate``, with a
    sentence saying to use a browser logged in before). The real user's browser gets in: 200, also
    moved to a fresh address; the attackers stay refused, right password or not."""
    home = home_of(site)
    strangers = [site.browser(f"127.0.12.{host}") for host in range(1, 6)]
    answers = [[log_in(stranger, password=WRONG) for stranger in strangers] for _ in range(6)]
    statuses = [[answer.status_code for answer in tries] for tries in answers]
    assert statuses == [[401] * 5] * 4 + [[429] * 5] * 2
    assert "from browsers that never logged in to it" in answers[4][0].json()["error"]
    assert answers[5][0].json()["error"].startswith("too many log-in attempts (at most 5 per 1 minute")
    assert log_in(home).status_code == 200
    travelling = site.browser("127.0.12.7", cookies=home)
    assert log_in(travelling).status_code == 200
    fresh = log_in(site.browser("127.0.12.8"))
    assert fresh.status_code == 429
    assert fresh.json()["say"]["text"].startswith("Too many log-in attempts for this name")
    assert all(log_in(stranger).status_code == 429 for stranger in strangers)


def test_a_device_that_fails_is_locked_itself(site: Site) -> None:
    """A trusted browser that fails five times is refused even the right password; another trusted
    browser of the account, and strangers, are not affected."""
    home = home_of(site)
    phone = site.browser("127.0.12.10")
    assert log_in(phone).status_code == 200
    for _ in range(5):
        assert log_in(home, password=WRONG).status_code == 401
    refused = log_in(home)
    assert refused.status_code == 429
    assert refused.json()["error"].startswith("too many log-in attempts (at most")
    assert log_in(phone).status_code == 200
    assert log_in(site.browser("127.0.12.11")).status_code == 200


def test_a_success_starts_the_browser_s_count_again(site: Site) -> None:
    """Four wrong tries and the right one from a stranger's browser: it is trusted now, and its next
    five wrong tries are counted from zero."""
    home_of(site)
    cafe = site.browser("127.0.12.12")
    for _ in range(4):
        assert log_in(cafe, password=WRONG).status_code == 401
    assert log_in(cafe).status_code == 200
    assert [log_in(cafe, password=WRONG).status_code for _ in range(6)] == [401] * 5 + [429]


def test_thirty_tries_an_hour_lock_no_one_out(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 26: 30 wrong tries an hour used to lock a name all hour. Spread over five addresses and
    the hour, they lock out nobody: a fresh browser gets in at the end of it."""
    home_of(site)
    now = [time.time()]
    monkeypatch.setattr(time, "time", lambda: now[0])
    for attempt in range(30):
        assert log_in(site.browser(f"127.0.12.{attempt % 5 + 1}"), password=WRONG).status_code == 401
        now[0] += 115
    assert log_in(site.browser("127.0.12.13")).status_code == 200


@pytest.mark.parametrize("https", [False, True])
def test_the_device_cookie_is_httponly_samesite_and_stored_hashed(
        tmp_path: Path, https: bool, caplog: pytest.LogCaptureFixture) -> None:
    """The device cookie: HttpOnly, SameSite=Lax as the session cookie, a year, ``__Host-`` and Secure
    over HTTPS; only its SHA-256 is stored and the token is never logged."""
    caplog.set_level(logging.DEBUG)
    settings = test_settings(tmp_path, https=https)
    base = "https://testserver" if https else "http://testserver"
    with app_at(settings, FakeClock()) as plain, TestClient(plain.app, base_url=base) as client:
        answer = client.post("/api/accounts", json={"username": "Ann", "password": PASSWORD})
        name = f"__Host-{DEVICE_COOKIE}" if https else DEVICE_COOKIE
        header = next(h for h in answer.headers.get_list("set-cookie") if h.startswith(f"{name}="))
        token = header.split(";")[0].split("=", 1)[1]
        flags = {part.strip().lower() for part in header.split(";")[1:]}
        assert {"httponly", "path=/", "samesite=lax", f"max-age={int(settings.device_ttl)}"} <= flags
        assert ("secure" in flags) == https
        with service_of(client).store.use() as session:
            assert list(session.scalars(select(TrustedDeviceRow.token_hash))) == [device_hash(token)]
    assert token not in caplog.text


def test_each_log_in_rotates_the_token_and_keeps_the_browser_s_accounts(site: Site) -> None:
    """A browser trusted for Ann that logs in as Bob gets a new token, trusted for both; a copy of the old
    token is a stranger, as is a made-up one; Bob's token is no device of Carol's."""
    home = home_of(site)
    old = home.cookies.get(DEVICE_COOKIE)
    home_of(site, "Bob")
    assert log_in(home, "Bob").status_code == 200
    new = home.cookies.get(DEVICE_COOKIE)
    devices = site.devices()
    assert new != old and devices.trusted(new, "Ann") and devices.trusted(new, "bob")
    assert devices.trusted(old, "Ann") is None and devices.trusted("made-up", "Ann") is None
    assert devices.trusted(new, "Carol") is None


def test_devices_expire_are_kept_per_account_and_go_with_the_account(site: Site, clock: FakeClock) -> None:
    """A device is a stranger ``device_ttl`` after its last log-in; an account keeps its ``MAX_DEVICES``
    newest; deleting the account deletes its devices."""
    home = home_of(site)
    devices = site.devices()
    token = home.cookies.get(DEVICE_COOKIE)
    clock.advance(service_of(site.client).settings.device_ttl - 1)
    assert devices.trusted(token, "Ann")
    clock.advance(1)
    assert devices.trusted(token, "Ann") is None
    account = service_of(site.client).accounts.by_name("Ann")
    assert account is not None
    tokens = []
    for _ in range(MAX_DEVICES + 1):
        tokens.append(devices.trust(None, account.id))
        clock.advance(1)
    assert devices.trusted(tokens[0], "Ann") is None
    assert all(devices.trusted(kept, "Ann") for kept in tokens[1:])
    assert log_in(home).status_code == 200
    assert home.request("DELETE", "/api/account", json={"password": PASSWORD}).status_code == 204
    with service_of(site.client).store.use() as session:
        assert list(session.scalars(select(TrustedDeviceRow))) == []


def test_a_rate_clears_in_this_process() -> None:
    """``Rates.clear`` forgets a key's tries (and only that key's)."""
    rates = Rates("login_rate", "2/minute", MovingWindowRateLimiter(MemoryStorage()))
    assert rates.hit("a") is None and rates.hit("a") is None and rates.hit("b") is None
    assert rates.hit("a") is not None
    rates.clear("a")
    assert rates.hit("a") is None and rates.hit("b") is None and rates.hit("b") is not None


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    """A Redis server of the test's own (skipped without ``redis-server``)."""
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = subprocess.Popen(["redis-server", "--port", str(port), "--save", "", "--appendonly", "no",
                               "--dir", str(tmp_path)], stdout=subprocess.DEVNULL)
    try:
        for _ in range(500):
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.01)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        server.terminate()
        server.wait(10)


def test_a_rate_clears_in_redis(redis_url: str) -> None:
    """Counted in Redis, over every process: a clear by one process is seen by another."""
    first, second = (Rates("login_rate", "2/minute", MovingWindowRateLimiter(MemoryStorage()),
                           shared_limiter(redis_url)) for _ in range(2))
    assert first.hit("a") is None and second.hit("a") is None and first.hit("a") is not None
    second.clear("a")
    assert first.hit("a") is None
