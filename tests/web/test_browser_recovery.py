"""Account recovery in the browser (issue 29): the sign-up dialog shows the recovery codes once; the
account page confirms an address by the mailed link; a player who forgot the password asks from the
log-in dialog, follows the mailed link (its token leaves the address bar at once), chooses a new
password and is logged in. The mail goes to a local SMTP server (aiosmtpd)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import Browser, LiveServer
from test_recovery import Inbox, inbox, link_in  # noqa: F401  (inbox: a fixture)

PASSWORD = "correct horse battery"
NEW_PASSWORD = "a brand new password"


@pytest.fixture
def server(sync_api: Any, tmp_path: Path, inbox: tuple[Inbox, int]) -> Iterator[LiveServer]:  # noqa: F811
    """``schotten serve`` of its own, sending its mail to the test's SMTP server."""
    env = {"SCHOTTEN_SMTP_HOST": "127.0.0.1", "SCHOTTEN_SMTP_PORT": str(inbox[1]),
           "SCHOTTEN_SMTP_STARTTLS": "false"}
    with LiveServer(tmp_path / "games.db", tmp_path / "server.log", env=env) as live:
        yield live


def sign_up(page: Any, url: str, name: str) -> list[str]:
    """Sign up in the dialog of the lobby's account bar: the recovery codes it shows, once closed."""
    page.goto(f"{url}/")
    page.click("#sign-up")
    page.fill("#account-username", name)
    page.fill("#account-password", PASSWORD)
    page.click("#account-submit")
    page.wait_for_selector("#recovery-codes li")
    codes: list[str] = page.locator("#recovery-codes li").all_inner_texts()
    page.click("#codes-saved")
    page.wait_for_selector(f'#account-bar[data-user="{name}"]')
    return codes


def confirm_address(page: Any, url: str, box: Inbox, email: str) -> None:
    """Set the address on the account page and open the link mailed to it."""
    page.goto(f"{url}/account")
    page.wait_for_selector("body[data-ready='1'] #email-form:not([hidden])")
    page.fill("#email-address", email)
    page.fill("#email-password", PASSWORD)
    page.click("#set-email")
    page.wait_for_function("() => document.querySelector('#email-state').textContent.includes('@')")
    page.goto(url + link_in(box.wait(1)[0]))
    page.wait_for_function("() => location.pathname === '/account' && location.search === ''")
    page.wait_for_function("() => document.querySelector('#email-state').textContent.includes('ann@')")


def test_forgot_password_mail_link_new_password_logged_in(pages: Browser, server: LiveServer,
                                                          inbox: tuple[Inbox, int]) -> None:  # noqa: F811
    """The whole way: codes at sign-up, the address confirmed, "Forgot your password?", the mailed
    link, a new password, logged in with it; the server's log has no token."""
    box = inbox[0]
    page = pages.page()
    codes = sign_up(page, server.url, "Ann")
    assert len(codes) == 8 and all(len(code) == 19 for code in codes)
    confirm_address(page, server.url, box, "ann@example.org")
    page.click("#log-out")
    page.wait_for_selector('#account-bar[data-user=""]')
    page.click("#log-in")
    page.click("#forgot-password")
    page.wait_for_selector("body[data-ready='1'] #forgot-box:not([hidden])")
    page.fill("#forgot-name", "ann@example.org")
    page.click("#forgot-submit")
    page.wait_for_selector("#forgot-sent:not([hidden])")
    link = link_in(box.wait(2)[1])
    page.goto(server.url + link)
    page.wait_for_selector("body[data-ready='1'] #link-box:not([hidden])")
    assert "token" not in page.url
    page.fill("#link-password", NEW_PASSWORD)
    page.click("#link-submit")
    page.wait_for_selector("#reset-done:not([hidden])")
    page.wait_for_selector('#account-bar[data-user="Ann"]')
    assert page.evaluate("() => document.cookie") == ""
    assert link.partition("token=")[2] not in server.log.read_text(errors="replace")
    again = pages.page()
    again.goto(f"{server.url}/")
    again.click("#log-in")
    again.fill("#account-username", "Ann")
    again.fill("#account-password", NEW_PASSWORD)
    again.click("#account-submit")
    again.wait_for_selector('#account-bar[data-user="Ann"]')
