"""Fixtures of the web tests: settings on a temporary SQLite file, and a client of the app.

The client is used as a context manager, so the app's start-up (schema, AI resume) and
shut-down run, and every request and socket shares one event loop.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from schotten.web.settings import WebSettings


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
