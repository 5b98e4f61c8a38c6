"""One server process per SQLite file (issue 16, item 1): a second ``schotten serve`` on the file of a
running server is refused at start with a sentence, and the first goes on serving; once the first is
gone (even killed), a new one starts. Apps of one process share the file (tests build several)."""

from __future__ import annotations

import subprocess
import sys
import urllib.request
from pathlib import Path

from browser_helpers import LiveServer, free_port
from helpers_web import test_settings
from starlette.testclient import TestClient

from schotten.web import create_app


def second_serve(database: Path) -> subprocess.CompletedProcess[str]:
    """Run ``schotten serve`` on ``database`` (it must stop by itself: refused)."""
    command = [sys.executable, "-m", "schotten", "serve", "--host", "127.0.0.1", "--port", str(free_port()),
               "--database", f"sqlite:///{database}"]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


def test_a_second_process_on_the_same_sqlite_file_is_refused(tmp_path: Path) -> None:
    """Refused with exit 1 and a sentence naming the file and the first server's process; the first
    server still answers. Killed, the first leaves no lock behind."""
    database = tmp_path / "games.db"
    with LiveServer(database, tmp_path / "server.log") as first:
        refused = second_serve(database)
        assert refused.returncode == 1, refused.stdout + refused.stderr
        said = refused.stdout + refused.stderr
        assert f"the database {database} is served by another schotten server already" in said
        assert first.process is not None and f"(process {first.process.pid})" in said
        assert "Traceback" not in said
        with urllib.request.urlopen(f"{first.url}/api/tables", timeout=5) as answer:
            assert answer.status == 200
        first.process.kill()
        first.process.wait(timeout=10)
        first.process = None
    with LiveServer(database, tmp_path / "again.log") as again, \
            urllib.request.urlopen(f"{again.url}/api/tables", timeout=5) as answer:
        assert answer.status == 200


def test_apps_of_one_process_share_the_file(tmp_path: Path) -> None:
    """Two apps of this process on one file both start (the lock is counted), and after both stop a
    third starts."""
    settings = test_settings(tmp_path)
    with TestClient(create_app(settings)) as one, TestClient(create_app(settings)) as two:
        assert one.get("/api/tables").status_code == two.get("/api/tables").status_code == 200
    with TestClient(create_app(settings)) as three:
        assert three.get("/api/tables").status_code == 200
