"""Settings of the web app: the database, where to listen, the AI pool and every limit.

``WebSettings.from_env()`` reads each field from ``SCHOTTEN_<FIELD>`` (upper case:
``SCHOTTEN_DATABASE_URL``, default ``sqlite:///schotten.db``, a file in the current
directory; a PostgreSQL URL such as ``postgresql+psycopg://user:pass@host/db`` works through
SQLAlchemy; ``SCHOTTEN_PORT``, ``SCHOTTEN_AI_WORKERS``, ``SCHOTTEN_FLOOD_LIMIT``, ...);
keyword arguments override them. docs/web.md lists every setting.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

PACKAGE_DIR = Path(__file__).resolve().parent.parent
DEFAULT_DATABASE_URL = "sqlite:///schotten.db"
_MINIMUM_ONE = ("ai_workers", "flood_limit")


@dataclass(frozen=True, slots=True)
class WebSettings:
    """Everything the server needs to know before it starts.

    ``ai_processes`` runs the AI in a process pool (the default: a search bot never slows
    the event loop); False uses threads (fast to start, for tests). A socket may send
    ``flood_limit`` messages per ``flood_window`` seconds of at most ``max_message_bytes``
    each; a client that lets ``send_queue`` outgoing messages pile up is disconnected.
    Sizes are in bytes, times in seconds; rates are in the ``limits`` library's notation
    (``"30/second;600/minute"``).
    """

    database_url: str = DEFAULT_DATABASE_URL
    redis_url: str = ""
    """The Redis server that processes sharing one PostgreSQL database meet at ("": one process)."""
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
    # storage
    db_busy_timeout: float = 5.0
    # the edge: connections, requests and frames
    max_body_bytes: int = 64 * 1024
    max_header_bytes: int = 16 * 1024
    ws_max_bytes: int = 64 * 1024
    ws_deflate: bool = False
    handshake_timeout: float = 10.0
    idle_timeout: float = 5.0
    connections_per_address: int = 64
    # origins, cookies and headers
    allowed_origins: tuple[str, ...] = ()
    https: bool = False
    # per client address
    address_rate: str = "50/second;1000/minute"
    tables_rate: str = "10/minute;60/hour"
    open_tables_per_address: int = 3
    ai_tables_per_address: int = 3
    sockets_per_address: int = 24
    spectators_per_game: int = 100
    open_table_ttl: float = 24 * 3600.0
    # memory
    game_cache_size: int = 2000
    game_idle_eviction: float = 600.0
    undo_limit: int = 30
    # hints at tables against the AI
    hint_iterations: int = 200
    """The budget of a hint's analysis (``bots.analysis``): a fraction of a second."""
    hint_rate: str = "6/minute;60/hour"
    """How many hints a game may be given (the ``limits`` notation), one at a time."""
    # games that end: leaving, abandoning and chat
    leave_timeout: float = 60.0
    abandon_after: float = 30 * 24 * 3600.0
    ai_leave_after: float = 600.0
    """A game against the AI that no human was at for this long is closed (turn-based: ``abandon_after``)."""
    chat_max_chars: int = 300
    chat_rate: str = "5/10second;30/minute"
    chat_history: int = 200
    chat_lines_per_game: int = 500
    # players: accounts, sessions, ratings and "Play now"
    session_ttl: float = 30 * 24 * 3600.0
    login_rate: str = "5/minute;30/hour"
    login_untrusted_rate: str = "20/minute;100/hour"
    """A name's log-in tries from every browser that never logged in to it (``players.tries``)."""
    login_address_rate: str = "20/minute;200/hour"
    device_ttl: float = 365 * 24 * 3600.0
    """How long a browser stays trusted after its last log-in (``players.devices``)."""
    signup_rate: str = "5/hour;20/day"
    pair_range: int = 200
    pair_widen: float = 10.0
    pool_ai_offer: float = 30.0
    pool_entry_ttl: float = 30.0
    leaderboard_days: float = 90.0
    leaderboard_size: int = 50
    # game reviews (``reviews``)
    review_workers: int = 1
    """Review jobs this process works on at once (0: it takes none; another process does)."""
    review_iterations: int = 800
    """The analysis budget of each reviewed decision (``bots.review``)."""
    review_lease: float = 60.0
    """How long a worker holds a job without renewing it before another worker may take it."""
    reviews_rate: str = "5/minute;30/hour"
    """New review jobs an address may ask for."""
    # tournaments (``tournaments``)
    tournaments_director: bool = True
    """Whether this process runs a tournament director (every process may: leases keep them apart)."""
    tournament_lease: float = 10.0
    """Seconds a director holds a tournament without renewing it before another may take it over."""
    tournament_every: float = 1.0
    """Seconds between two looks of a director at the tournaments due."""
    # the analysis board (``analysis``)
    analysis_iterations: int = 400
    """The most iterations one analysis of ``POST /api/analysis`` may spend (asked for more: capped)."""
    analysis_rate: str = "10/minute;100/hour"
    """Analyses an address may ask for."""
    analysis_edit_rate: str = "60/minute;600/hour"
    """Edits of a position (``POST /api/analysis/edit``) an address may ask for."""
    # account recovery (``players.recovery``, docs/web/players.md)
    site_url: str = ""
    """The address the links of e-mails point to, e.g. ``https://schotten.example`` (default: ``address``)."""
    smtp_host: str = ""
    """The SMTP server e-mail is sent through ("": none, so no address can be set; recovery codes only)."""
    smtp_port: int = 587
    smtp_from: str = ""
    """The sender of the e-mails (default: ``schotten@`` the SMTP server's host)."""
    smtp_user: str = ""
    smtp_password: str = field(default="", repr=False)
    smtp_starttls: bool = True
    smtp_timeout: float = 10.0
    """How long (seconds) sending one e-mail may take before it is given up."""
    reset_ttl: float = 3600.0
    """How long a password-reset link works."""
    confirm_ttl: float = 24 * 3600.0
    """How long a link confirming an e-mail address works."""
    recovery_rate: str = "10/hour;30/day"
    """Resets, e-mails and recovery codes an address may ask for or try."""
    recovery_account_rate: str = "3/hour;10/day"
    """The same per account (and per name or e-mail address asked for, account or not)."""

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> WebSettings:
        """Settings from the environment (``SCHOTTEN_*``), then ``overrides``; None values are ignored."""
        env = os.environ if env is None else env
        settings = cls()
        for item in dataclasses.fields(cls):
            text = env.get(f"SCHOTTEN_{item.name.upper()}")
            if text:
                value = _parse(item.name, getattr(settings, item.name), text)
                settings = replace(settings, **{item.name: value})
        settings = replace(settings, **{k: v for k, v in overrides.items() if v is not None})
        return replace(settings, database_url=normalise_url(settings.database_url))

    @property
    def address(self) -> str:
        """The address to open in a browser."""
        host = "localhost" if self.host in ("0.0.0.0", "::") else self.host
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}"


def _parse(name: str, default: Any, text: str) -> Any:
    """The value of setting ``name`` written as ``text``, of the type of its ``default``."""
    try:
        if isinstance(default, bool):
            if text.lower() not in ("1", "0", "true", "false", "yes", "no", "on", "off"):
                raise ValueError("say true or false")
            return text.lower() in ("1", "true", "yes", "on")
        if isinstance(default, int):
            value: Any = int(text)
        elif isinstance(default, float):
            value = float(text)
        elif isinstance(default, tuple):
            value = tuple(part.strip() for part in text.split(",") if part.strip())
        elif isinstance(default, Path):
            value = Path(text)
        else:
            value = text
    except ValueError as error:
        raise ValueError(f"SCHOTTEN_{name.upper()}={text!r} is not a valid {name}: {error}") from None
    return max(1, value) if name in _MINIMUM_ONE else value


def normalise_url(url: str) -> str:
    """A database URL SQLAlchemy accepts: ``postgres://`` (as some hosts write it) becomes ``postgresql://``."""
    if url.startswith("postgres://"):
        return "postgresql://" + url[len("postgres://"):]
    return url
