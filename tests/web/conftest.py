"""Fixtures of the web tests: settings on a temporary SQLite file, a client of the app, and
Chromium under Playwright with pages that collect their uncaught errors (the browser tests).

The client is used as a context manager, so the app's start-up (schema, AI resume) and
shut-down run, and every request and socket shares one event loop.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from schotten.web.core.settings import WebSettings


def pytest_configure(config: pytest.Config) -> None:
    """Starlette's test client warns that it prefers httpx2, which is not installed."""
    config.addinivalue_line("filterwarnings", "ignore:Using .httpx. with .starlette.testclient.")


@pytest.fixture
def settings(tmp_path: Path) -> WebSettings:
    """Settings for one test (see helpers_web.test_settings)."""
    from helpers_web import test_settings

    return test_settings(tmp_path)


@pytest.fixture
def client(settings: WebSettings) -> Iterator[Any]:
    """A test client of a fresh app on the test's database."""
    from starlette.testclient import TestClient

    from schotten.web import create_app

    with TestClient(create_app(settings)) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def sync_api() -> Any:
    """Playwright's sync API; without Chromium the tests skip, or fail where CI requires them."""
    from browser_helpers import CHROMIUM

    if not CHROMIUM.exists():
        reason = f"Debian chromium is not installed at {CHROMIUM}: the browser tests need it"
        if os.environ.get("SCHOTTEN_REQUIRE_BROWSER"):
            pytest.fail(reason + " (SCHOTTEN_REQUIRE_BROWSER is set)")
        pytest.skip(reason)
    import playwright.sync_api

    return playwright.sync_api


@pytest.fixture(scope="module")
def chromium_browser(sync_api: Any) -> Iterator[Any]:
    """Debian's Chromium, launched once per test module."""
    from browser_helpers import CHROMIUM, CHROMIUM_ARGS

    with sync_api.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def pages(chromium_browser: Any) -> Iterator[Any]:
    """A ``browser_helpers.Browser`` for one test; the test fails if a page threw an error."""
    from browser_helpers import Browser

    opened = Browser(chromium_browser)
    yield opened
    opened.close()
    assert not opened.errors, f"uncaught errors in the page: {opened.errors}"
