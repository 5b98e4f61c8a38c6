"""Settings of the web app: the database, where to listen, the AI pool and the socket limits.

``WebSettings.from_env()`` reads ``SCHOTTEN_DATABASE_URL`` (default ``sqlite:///schotten.db``,
a file in the current directory; a PostgreSQL URL such as
``postgresql+psycopg://user:pass@host/db`` works through SQLAlchemy), ``SCHOTTEN_HOST``,
``SCHOTTEN_PORT``, ``SCHOTTEN_AI_WORKERS`` and ``SCHOTTEN_FLOOD_LIMIT`` (messages a socket
may send per second); keyword arguments override them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

PACKAGE_DIR = Path(__file__).resolve().parent
DEFAULT_DATABASE_URL = "sqlite:///schotten.db"


@dataclass(frozen=True, slots=True)
class WebSettings:
    """Everything the server needs to know before it starts.

    ``ai_processes`` runs the AI in a process pool (the default: a search bot never slows
    the event loop); False uses threads (fast to start, for tests). A socket may send
    ``flood_limit`` messages per ``flood_window`` seconds of at most ``max_message_bytes``
    each; a client that lets ``send_queue`` outgoing messages pile up is disconnected.
    """

    database_url: str = DEFAULT_DATABASE_URL
    host: str = "127.0.0.1"
    port: int = 8000
    static_dir: Path = PACKAGE_DIR / "static"
    locale_dir: Path = PACKAGE_DIR / "locale"
    ai_workers: int = 2
    ai_processes: bool = True
    max_message_bytes: int = 4096
    flood_limit: int = 20
    flood_window: float = 1.0
    send_queue: int = 64
    table_limit: int = 50

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> WebSettings:
        """Settings from the environment (``SCHOTTEN_*``), then ``overrides``; None values are ignored."""
        env = os.environ if env is None else env
        settings = cls()
        if url := env.get("SCHOTTEN_DATABASE_URL"):
            settings = replace(settings, database_url=url)
        if host := env.get("SCHOTTEN_HOST"):
            settings = replace(settings, host=host)
        if port := env.get("SCHOTTEN_PORT"):
            settings = replace(settings, port=int(port))
        if workers := env.get("SCHOTTEN_AI_WORKERS"):
            settings = replace(settings, ai_workers=max(1, int(workers)))
        if flood := env.get("SCHOTTEN_FLOOD_LIMIT"):
            settings = replace(settings, flood_limit=max(1, int(flood)))
        settings = replace(settings, **{k: v for k, v in overrides.items() if v is not None})
        return replace(settings, database_url=normalise_url(settings.database_url))

    @property
    def address(self) -> str:
        """The address to open in a browser."""
        host = "localhost" if self.host in ("0.0.0.0", "::") else self.host
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}"


def normalise_url(url: str) -> str:
    """A database URL SQLAlchemy accepts: ``postgres://`` (as some hosts write it) becomes ``postgresql://``."""
    if url.startswith("postgres://"):
        return "postgresql://" + url[len("postgres://"):]
    return url
