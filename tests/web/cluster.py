"""A harness for tests of several server processes: a private PostgreSQL, a private Redis, N
``schotten serve`` processes on one database and nginx in front (deploy/nginx.conf.template).

    with Cluster() as cluster:
        cluster.start(processes=3)
        status, body = cluster.request("GET", "/api/tables")      # through nginx
        cluster.kill(1)                                             # SIGKILL one server
        cluster.start_server(1)

Everything listens on 127.0.0.1, on free ports, with its files in one temporary folder (or
``folder``); ``stop`` (also on leaving the ``with``, and when ``start`` fails) stops every process it
started, by its id. As root, PostgreSQL runs as the user ``postgres`` (``runuser``), its data in a
folder of its own. Every wait is bounded and names the process and its log when it fails.
``missing()`` says what is not installed (scripts/setup-postgres, setup-redis, setup-nginx install
it); ``start`` then skips the test, or fails it when ``SCHOTTEN_REQUIRE_CLUSTER=1``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import pwd
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from helpers_web import GENEROUS_ENV

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "deploy" / "nginx.conf.template"
REQUIRE_VARIABLE = "SCHOTTEN_REQUIRE_CLUSTER"
READY_TIMEOUT = 60.0
"""Seconds a process has to become ready (a server's first start imports a lot)."""
STOP_TIMEOUT = 10.0
COMMAND_TIMEOUT = 60.0
LOG_TAIL = 3000
FAIL_TIMEOUT = "5s"
"""How long nginx leaves out a server after a failed connection to it."""


LISTEN_PORTS = range(20_000, 32_000)
"""Where listening ports are chosen: below Linux's ephemeral range (32768-60999), so no outgoing
connection of a server (to PostgreSQL, to Redis) can hold the port between its choice and its use."""


def free_port(taken: set[int] | None = None) -> int:
    """A TCP port of 127.0.0.1 in ``LISTEN_PORTS`` that nothing listens on now (and not in ``taken``)."""
    while True:
        port = random.choice(LISTEN_PORTS)
        if taken is not None and port in taken:
            continue
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port


def postgres_bin() -> Path | None:
    """The bin folder of the newest PostgreSQL under /usr/lib/postgresql with initdb and pg_ctl."""
    found = [path for path in Path("/usr/lib/postgresql").glob("*/bin")
             if (path / "initdb").exists() and (path / "pg_ctl").exists()]
    return max(found, key=lambda path: float(path.parent.name), default=None) if found else None


def binary(name: str) -> str | None:
    """The path of a program on PATH or in /usr/sbin, or None."""
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/bin")


def missing() -> str | None:
    """Why a cluster cannot start on this machine (a program missing), or None."""
    if binary("redis-server") is None:
        return "redis-server is not installed (scripts/setup-redis installs it)"
    if binary("nginx") is None:
        return "nginx is not installed (scripts/setup-nginx installs it)"
    if postgres_bin() is None:
        return "PostgreSQL's initdb and pg_ctl are not in /usr/lib/postgresql/*/bin (scripts/setup-postgres)"
    if importlib.util.find_spec("psycopg") is None:
        return "psycopg is not installed (scripts/setup installs the postgres extra)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "as root, PostgreSQL runs as the user postgres, which does not exist"
        if binary("runuser") is None:
            return "as root, PostgreSQL runs as the user postgres through runuser, which is missing"
    return None


def skip_or_fail(reason: str) -> None:
    """Skip the test for ``reason``, or fail it when ``SCHOTTEN_REQUIRE_CLUSTER`` is set."""
    import pytest

    if os.environ.get(REQUIRE_VARIABLE):
        pytest.fail(f"{reason} ({REQUIRE_VARIABLE} is set)")
    pytest.skip(reason)


def tail(path: Path, size: int = LOG_TAIL) -> str:
    """The end of a log file (empty if there is none)."""
    try:
        return path.read_text(errors="replace")[-size:]
    except OSError:
        return ""


def http_status(url: str, timeout: float = 2.0) -> int | None:
    """The status of a GET of ``url``, or None if nothing answered."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return int(error.code)
    except (OSError, ValueError):
        return None


def nginx_config(listen: str, servers: Sequence[str], connections: int) -> str:
    """deploy/nginx.conf.template filled in: nginx on ``listen`` before ``servers`` (host:port)."""
    lines = "\n        ".join(f"server {address} max_fails=1 fail_timeout={FAIL_TIMEOUT};"
                               for address in servers)
    text = TEMPLATE.read_text()
    for field, value in (("@LISTEN@", listen), ("@SERVERS@", lines), ("@CONNECTIONS@", str(connections))):
        text = text.replace(field, value)
    return text


def run_command(command: Sequence[str], what: str, timeout: float = COMMAND_TIMEOUT) -> None:
    """Run a command to its end (bounded); an error naming ``what`` and its output if it fails."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired as error:
        raise RuntimeError(f"{what} took more than {timeout:g} s: {' '.join(command)}") from error
    if done.returncode != 0:
        raise RuntimeError(f"{what} failed (exit {done.returncode}): {done.stdout[-LOG_TAIL:]}"
                           f"{done.stderr[-LOG_TAIL:]}")


def end_processes(processes: Sequence[subprocess.Popen[bytes] | None], timeout: float = STOP_TIMEOUT) -> None:
    """Stop processes we started, each in a session of its own: SIGTERM to all, a bounded wait, then
    SIGKILL to each one's process group (its children too)."""
    running = [process for process in processes if process is not None]
    for process in running:
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
    deadline = time.monotonic() + timeout
    for process in running:
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(max(0.0, deadline - time.monotonic()))
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout)


class Postgres:
    """A private PostgreSQL cluster: a data folder of its own, a free port, trust on 127.0.0.1."""

    USER = "schotten"
    DATABASE = "schotten"

    def __init__(self) -> None:
        bin_dir = postgres_bin()
        assert bin_dir is not None, missing()
        self.bin = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="schotten-cluster-pg-"))
        self.root.chmod(0o755)
        self.data = self.root / "data"
        self.sockets = self.root / "sockets"
        self.log = self.root / "postgres.log"
        self.port = free_port()
        self.url = f"postgresql+psycopg://{self.USER}@127.0.0.1:{self.port}/{self.DATABASE}"

    def _as_owner(self, *command: str) -> list[str]:
        if os.geteuid() == 0:
            return [binary("runuser") or "runuser", "-u", "postgres", "--", *command]
        return list(command)

    def create(self) -> None:
        """initdb, start, and create the database."""
        self.sockets.mkdir()
        if os.geteuid() == 0:
            entry = pwd.getpwnam("postgres")
            for path in (self.root, self.sockets):
                os.chown(path, entry.pw_uid, entry.pw_gid)
        run_command(self._as_owner(str(self.bin / "initdb"), "-D", str(self.data), "-U", self.USER,
                                   "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C.UTF-8"),
                    "initdb of the private PostgreSQL")
        self.start()
        import psycopg

        with psycopg.connect(host="127.0.0.1", port=self.port, user=self.USER, dbname="postgres",
                             autocommit=True, connect_timeout=10) as connection:
            connection.execute(f'CREATE DATABASE "{self.DATABASE}"')

    def start(self) -> None:
        """Start the cluster on its port and wait until it accepts connections (pg_ctl -w)."""
        options = (f"-p {self.port} -k {self.sockets} -c listen_addresses=127.0.0.1 -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off -c max_connections=300")
        try:
            run_command(self._as_owner(str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.log),
                                       "-w", "-t", "30", "-o", options, "start"), "starting PostgreSQL", 40)
        except RuntimeError as error:
            raise RuntimeError(f"{error}\nits log:\n{tail(self.log)}") from None

    def stop(self, mode: str = "fast") -> None:
        """Stop the cluster (``fast``: disconnect clients, then shut down; ``immediate``: at once)."""
        if (self.data / "postmaster.pid").exists():
            run_command(self._as_owner(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w",
                                       "-t", "30", "stop"), "stopping PostgreSQL", 40)

    def remove(self) -> None:
        """Stop at once and delete the data."""
        try:
            self.stop("immediate")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


class Cluster:
    """A private PostgreSQL and Redis, ``processes`` servers on them and nginx before them.

    ``url`` is nginx's address, ``server_urls`` each server's, ``database_url`` and ``redis_url``
    what they were given (``redis=False``: no ``--redis``, ``redis_url`` empty). ``env`` adds settings
    to the servers' environment (after ``GENEROUS_ENV``, ``SCHOTTEN_CONNECTIONS_PER_ADDRESS=0`` and
    ``SCHOTTEN_AI_WORKERS=1``). ``database_url`` given: that database instead of a private PostgreSQL
    (``restart_postgres`` is then impossible).
    """

    def __init__(self, folder: Path | None = None, *, redis: bool = True,
                 env: Mapping[str, str] | None = None, database_url: str | None = None,
                 connections_per_address: int = 10_000) -> None:
        self.own_folder = folder is None
        self.folder = Path(tempfile.mkdtemp(prefix="schotten-cluster-")) if folder is None else folder
        self.folder.mkdir(parents=True, exist_ok=True)
        self.use_redis = redis
        self.env = dict(env or {})
        self.connections_per_address = connections_per_address
        self.postgres: Postgres | None = None
        self.database_url = database_url or ""
        self.taken: set[int] = set()
        self.redis_port = self._port()
        self.redis_url = f"redis://127.0.0.1:{self.redis_port}/0" if redis else ""
        self.redis: subprocess.Popen[bytes] | None = None
        self.port = self._port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.nginx: subprocess.Popen[bytes] | None = None
        self.ports: list[int] = []
        self.server_urls: list[str] = []
        self.servers: list[subprocess.Popen[bytes] | None] = []

    def _port(self) -> int:
        port = free_port(self.taken)
        self.taken.add(port)
        return port

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.stop()

    # ------------------------------------------------------------------ starting

    def start(self, processes: int = 3) -> Cluster:
        """Start PostgreSQL (unless a database was given), Redis, the servers and nginx; wait until
        nginx answers ``/healthz``. Skips (or fails) the test when a program is missing; on any
        failure everything started so far is stopped."""
        reason = missing()
        if reason is not None:
            skip_or_fail(reason)
        self.ports = [self._port() for _ in range(processes)]
        self.server_urls = [f"http://127.0.0.1:{port}" for port in self.ports]
        self.servers = [None] * processes
        try:
            if not self.database_url:
                self.postgres = Postgres()
                self.postgres.create()
                self.database_url = self.postgres.url
            if self.use_redis:
                self.start_redis()
            self.start_server(0)
            self.start_servers(range(1, processes))
            self._start_nginx()
        except BaseException:
            self.stop()
            raise
        return self

    def start_servers(self, indices: Sequence[int] | range) -> None:
        """Start several servers at once (after the first made the tables) and wait for each."""
        for index in indices:
            self._spawn_server(index)
        for index in indices:
            self._wait_server(index)

    def start_server(self, index: int) -> None:
        """Start server ``index`` (again) on its port and wait until it answers ``/healthz``."""
        self._spawn_server(index)
        self._wait_server(index)

    def _spawn_server(self, index: int) -> None:
        current = self.servers[index]
        if current is not None and current.poll() is None:
            raise RuntimeError(f"server {index} runs already (process {current.pid})")
        command = [sys.executable, "-m", "schotten", "serve", "--host", "127.0.0.1", "--port",
                   str(self.ports[index]), "--database", self.database_url]
        if self.redis_url:
            command += ["--redis", self.redis_url]
        inherited = {name: value for name, value in os.environ.items() if not name.startswith("SCHOTTEN_")}
        env = {**inherited, "PYTHONUNBUFFERED": "1", **GENEROUS_ENV, "SCHOTTEN_CONNECTIONS_PER_ADDRESS": "0",
               "SCHOTTEN_AI_WORKERS": "1", **self.env}
        self.servers[index] = self._spawn(command, self.log_path(index), env)

    def _spawn(self, command: Sequence[str], log: Path, env: Mapping[str, str] | None = None,
               ) -> subprocess.Popen[bytes]:
        out: IO[bytes]
        with log.open("ab") as out:
            return subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                    env=env, cwd=self.folder, start_new_session=True)

    def _wait_server(self, index: int) -> None:
        self._wait_http(f"server {index}", self.servers[index], f"{self.server_urls[index]}/healthz",
                        self.log_path(index))

    def _wait_http(self, name: str, process: subprocess.Popen[bytes] | None, url: str, log: Path) -> None:
        assert process is not None
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"{name} (process {process.pid}) stopped with exit {process.returncode} "
                                   f"before answering {url}; its log ({log}) ends:\n{tail(log)}")
            if http_status(url, 1.0) == 200:
                return
            time.sleep(0.1)
        raise RuntimeError(f"{name} (process {process.pid}) did not answer {url} with 200 within "
                           f"{READY_TIMEOUT:g} s; its log ({log}) ends:\n{tail(log)}")

    def _start_nginx(self) -> None:
        path = binary("nginx")
        assert path is not None
        prefix = self.folder / "nginx"
        (prefix / "temp").mkdir(parents=True, exist_ok=True)
        conf = prefix / "nginx.conf"
        servers = [f"127.0.0.1:{port}" for port in self.ports]
        conf.write_text(nginx_config(f"127.0.0.1:{self.port}", servers, self.connections_per_address))
        log = self.folder / "nginx.log"
        command = [path, "-p", f"{prefix}/", "-c", str(conf), "-e", "stderr", "-g", "daemon off;"]
        self.nginx = self._spawn(command, log)
        self._wait_http("nginx", self.nginx, f"{self.url}/healthz", log)

    def start_redis(self) -> None:
        """Start the private redis-server (again) on its port, and wait until it answers PING."""
        if self.redis is not None and self.redis.poll() is None:
            raise RuntimeError(f"redis-server runs already (process {self.redis.pid})")
        path = binary("redis-server")
        assert path is not None
        command = [path, "--port", str(self.redis_port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
                   "no", "--dir", str(self.folder), "--daemonize", "no", "--protected-mode", "no"]
        log = self.folder / "redis.log"
        self.redis = self._spawn(command, log)
        deadline = time.monotonic() + READY_TIMEOUT
        while not self.redis_answers():
            if self.redis.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server (process {self.redis.pid}) did not answer on port "
                                   f"{self.redis_port}; its log ends:\n{tail(log)}")
            time.sleep(0.05)

    def redis_answers(self) -> bool:
        """Whether the private redis-server answers PING now."""
        try:
            with socket.create_connection(("127.0.0.1", self.redis_port), timeout=1) as connection:
                connection.sendall(b"PING\r\n")
                return connection.recv(64).startswith(b"+PONG")
        except OSError:
            return False

    # ------------------------------------------------------------------ failures

    def kill(self, index: int) -> None:
        """SIGKILL server ``index`` (and its AI workers: its process group), as a crash would."""
        process = self.servers[index]
        if process is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(STOP_TIMEOUT)

    def stop_server(self, index: int) -> None:
        """Stop server ``index`` as an operator would (SIGTERM, then SIGKILL if it lingers)."""
        process = self.servers[index]
        end_processes([process])

    def stop_redis(self) -> None:
        """Stop the private redis-server (SIGTERM; it keeps nothing)."""
        end_processes([self.redis])

    def restart_postgres(self) -> None:
        """Stop PostgreSQL (fast: clients are disconnected) and start it again, same port and data."""
        if self.postgres is None:
            raise RuntimeError("this cluster uses a database it was given: it cannot restart PostgreSQL")
        self.postgres.stop("fast")
        self.postgres.start()

    def stop_postgres(self) -> None:
        """Stop PostgreSQL (fast) until ``start_postgres``."""
        if self.postgres is not None:
            self.postgres.stop("fast")

    def start_postgres(self) -> None:
        """Start PostgreSQL again after ``stop_postgres``."""
        if self.postgres is not None:
            self.postgres.start()

    # ------------------------------------------------------------------ reading

    def log_path(self, index: int) -> Path:
        """The file of server ``index``'s output (standard output and error, every start)."""
        return self.folder / f"server-{index}.log"

    def logs(self, index: int) -> str:
        """Server ``index``'s output so far (every start of it)."""
        return tail(self.log_path(index), 1 << 30)

    def pid(self, index: int) -> int | None:
        """The process id of server ``index`` if it runs, else None."""
        process = self.servers[index]
        return process.pid if process is not None and process.poll() is None else None

    def request(self, method: str, path: str, body: Any = None, server: int | None = None,
                headers: Mapping[str, str] | None = None, timeout: float = 10.0) -> tuple[int, Any]:
        """An HTTP request through nginx (or to server ``server``): its status and decoded JSON body
        (the text if it is not JSON)."""
        base = self.url if server is None else self.server_urls[server]
        data = None if body is None else json.dumps(body).encode()
        sent = {"content-type": "application/json", **(headers or {})}
        request = urllib.request.Request(f"{base}{path}", data=data, method=method, headers=sent)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                status, raw = int(answer.status), answer.read()
        except urllib.error.HTTPError as error:
            status, raw = int(error.code), error.read()
        try:
            return status, json.loads(raw)
        except ValueError:
            return status, raw.decode(errors="replace")

    def describe(self) -> str:
        """One line per process: what it is, its pid, whether it runs (for failure messages)."""
        rows = [f"nginx {self.url}: {self._state(self.nginx)}"]
        rows += [f"server {i} {url}: {self._state(p)}" for i, (url, p) in enumerate(zip(self.server_urls,
                                                                                        self.servers,
                                                                                        strict=True))]
        rows.append(f"redis {self.redis_url or '(none)'}: {self._state(self.redis)}")
        return "\n".join(rows)

    @staticmethod
    def _state(process: subprocess.Popen[bytes] | None) -> str:
        if process is None:
            return "not started"
        code = process.poll()
        return f"process {process.pid}, " + ("running" if code is None else f"exited {code}")

    # ------------------------------------------------------------------ stopping

    def stop(self) -> None:
        """Stop everything this cluster started (nginx, the servers, Redis, PostgreSQL), by process id;
        delete its temporary folders. Safe to call twice."""
        end_processes([self.nginx])
        end_processes(self.servers)
        end_processes([self.redis])
        if self.postgres is not None:
            self.postgres.remove()
            self.postgres = None
        if self.own_folder:
            shutil.rmtree(self.folder, ignore_errors=True)
