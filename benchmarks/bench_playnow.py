"""Presses of Play now at the same moment: ``python benchmarks/bench_playnow.py [--browsers N] [--short]``.

For SQLite (one process), PostgreSQL (one process) and PostgreSQL with Redis (two processes), it
starts the servers (tests/web/cluster.py) and lets ``--browsers`` guests each send ``--presses``
entries into one pool at once, to the processes in turn, then poll until paired
(tests/web/playnow_crowd.py); then as many accounts each sending three rated entries. It prints per
configuration the entries, the games made, self-pairings, browsers seated twice, browsers left
unpaired, failed answers (a 5xx or no JSON), every kind of answer and the seconds it all took.
PostgreSQL is ``SCHOTTEN_TEST_POSTGRES_URL`` (a fresh schema) or a private cluster. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
import tempfile
from pathlib import Path
from typing import Any

from sqlalchemy import make_url, text

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "web"))
from cluster import Cluster, Postgres
from playnow_crowd import press_at_once

from schotten.web.storage.db import make_engine

CONFIGURATIONS = (("sqlite", 1), ("postgres", 1), ("postgres", 2))


def _schema(server: str) -> str:
    """A fresh schema on ``server``: the URL whose tables live there."""
    name = f"bench_playnow_{secrets.token_hex(4)}"
    engine = make_engine(server)
    with engine.begin() as connection:
        connection.execute(text(f'CREATE SCHEMA "{name}"'))
    engine.dispose()
    return make_url(server).update_query_dict({"options": f"-csearch_path={name}"}).render_as_string(
        hide_password=False)


def _database(kind: str, folder: Path, postgres: list[Postgres]) -> str:
    if kind == "sqlite":
        return f"sqlite:///{folder / 'playnow.db'}"
    server = os.environ.get("SCHOTTEN_TEST_POSTGRES_URL")
    if not server:
        if not postgres:
            postgres.append(Postgres())
            postgres[0].create()
        server = postgres[0].url
    return _schema(server)


def run(kind: str, processes: int, args: argparse.Namespace, postgres: list[Postgres]) -> dict[str, Any]:
    """One configuration's figures: guests pressing ``args.presses`` times, accounts three times."""
    with tempfile.TemporaryDirectory(prefix="bench-playnow-") as where:
        folder = Path(where)
        url = _database(kind, folder, postgres)
        with Cluster(folder / "cluster", redis=processes > 1, database_url=url) as cluster:
            cluster.start(processes)
            guests = press_at_once(cluster.server_urls, url, args.browsers, args.presses)
            accounts = press_at_once(cluster.server_urls, url, args.browsers, 3, rated=True, account=True,
                                     prefix="account")
    return {"database": kind, "processes": processes, "guests": guests.figures(),
            "accounts": accounts.figures()}


def main() -> None:
    """Run every configuration and print its figures (JSON with ``--json``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--browsers", type=int, default=100)
    parser.add_argument("--presses", type=int, default=2)
    parser.add_argument("--short", action="store_true", help="20 browsers")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.short:
        args.browsers = 20
    postgres: list[Postgres] = []
    try:
        figures = [run(kind, processes, args, postgres) for kind, processes in CONFIGURATIONS]
    finally:
        for cluster in postgres:
            cluster.remove()
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    for found in figures:
        for who in ("guests", "accounts"):
            row = found[who]
            print(f"{found['database']:8} x{found['processes']} {who:8} entries {row['entries']:4}  games "
                  f"{row['games']:3}  self-paired {row['self_paired']}  seated twice {row['double_seated']}  "
                  f"unpaired {row['unpaired']}  failures {row['failures']}  {row['seconds']:6.2f} s  "
                  f"{row['answers']}")


if __name__ == "__main__":
    main()
