"""The accounts' routes: sign up, log in and out, who am I, change the password, delete the account.

| Route | Body | Answer |
|---|---|---|
| ``POST /api/accounts`` | ``{"username", "password"}`` | 201 ``{"username", "recovery_codes"}``, logged in |
| ``POST /api/session`` | ``{"username", "password"}`` | ``{"username"}``, a new session |
| ``DELETE /api/session`` | | 204, the session ended |
| ``GET /api/session`` | | ``{"username": name or null}`` |
| ``POST /api/account/password`` | ``{"password", "new_password"}`` | ``{"username"}``, other sessions ended |
| ``DELETE /api/account`` | ``{"password"}`` | 204, the account deleted |

Log-in tries are counted by ``players.tries`` (per address, per browser, and per name for browsers
that never logged in to it; names that are no account's alike), sign-up per address
(``signup_rate``); a wrong name and a wrong password get one answer. Signing up or logging in, the
browser gets a new device cookie (``players.devices``) and its guest seats become the account's
(``Accounts.adopt``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import replace

from fastapi import FastAPI, Request, Response
from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..core.errors import ServiceError
from ..edge import quotas
from ..games.live import LiveGame
from ..players.accounts import (
    DELETED_NAME,
    PASSWORD_MAX,
    AccountRef,
    check_password,
    check_username,
)
from ..players.devices import Devices, device_token, set_device_cookie
from ..players.identity import clear_session_cookie, session_id, set_session_cookie, viewer
from ..players.recovery import Recovery
from ..players.seats import cookie_tokens, seat_cookies, seat_of_token
from ..players.standing import standing_of
from ..players.tries import LogInTries
from ..service import GameService

WRONG = "wrong username or password"
"""The one answer to a log-in whose name is no account's or whose password is wrong."""


class SignUp(BaseModel):
    """A new account: its username and password (see ``accounts`` for the rules)."""

    model_config = ConfigDict(extra="forbid")

    username: str
    password: str

    @field_validator("username", mode="before")
    @classmethod
    def _username(cls, value: object) -> str:
        return check_username(value)

    @field_validator("password", mode="before")
    @classmethod
    def _password(cls, value: object) -> str:
        return check_password(value)


class LogIn(BaseModel):
    """A log-in: any name and password are accepted here (a wrong one is told as such)."""

    model_config = ConfigDict(extra="forbid")

    username: str = Field(max_length=64)
    password: str = Field(max_length=PASSWORD_MAX)


class PasswordChange(BaseModel):
    """The current password and the new one."""

    model_config = ConfigDict(extra="forbid")

    password: str = Field(max_length=PASSWORD_MAX)
    new_password: str

    @field_validator("new_password", mode="before")
    @classmethod
    def _new(cls, value: object) -> str:
        return check_password(value)


class Deletion(BaseModel):
    """Deleting an account asks for its password."""

    model_config = ConfigDict(extra="forbid")

    password: str = Field(max_length=PASSWORD_MAX)


class Who(BaseModel):
    """Who the browser is logged in as (null: a guest)."""

    username: str | None


class SignedUp(Who):
    """A new account: its name and its recovery codes, shown this once."""

    recovery_codes: list[str]


class AccountRoutes:
    """The routes' work: the accounts' blocking calls in threads, and the rates of sign-up and log-in."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        self.accounts = service.accounts
        settings = service.settings
        self.devices = Devices(service.store, settings.device_ttl, self.accounts.now)
        self.tries = LogInTries(settings)
        self.recovery = Recovery(service.store, settings, self.accounts.now)
        shared = quotas.shared_limiter(settings.redis_url)
        self.signups = quotas.Rates("signup_rate", settings.signup_rate, quotas.ExactWindow(), shared)

    async def sign_up(self, body: SignUp, request: Request, response: Response) -> SignedUp:
        """Make the account, with its recovery codes, and log the browser in with it."""
        refused = await asyncio.to_thread(self.signups.hit, quotas.address_of(request.client))
        if refused is not None:
            raise quotas.LimitError(quotas.over_rate(refused, "accounts made"), refused[1],
                                    quotas.over_rate_said(refused, "accounts made"))
        account = await asyncio.to_thread(self.accounts.sign_up, body.username, body.password)
        codes = await asyncio.to_thread(self.recovery.new_codes, account.id)
        await self.logged_in(account, request, response)
        return SignedUp(username=account.username, recovery_codes=codes)

    async def log_in(self, body: LogIn, request: Request, response: Response) -> Who:
        """Check the password (within the rates) and log the browser in, in a new session."""
        account = await self._verified(body.username, body.password, request)
        if account is None:
            raise ServiceError(401, WRONG)
        await self.logged_in(account, request, response)
        return Who(username=account.username)

    async def _verified(self, username: str, password: str, request: Request) -> AccountRef | None:
        """The account if ``password`` is its password, a try counted (``LogInTries``: 429 beyond a
        rate, the same words whether or not the name is an account's)."""
        address = quotas.address_of(request.client)
        device = await asyncio.to_thread(self.devices.trusted, device_token(request), username)
        await asyncio.to_thread(self.tries.admit, username, address, device)
        account = await asyncio.to_thread(self.accounts.verify, username, password)
        if account is not None:
            await asyncio.to_thread(self.tries.succeeded, username, address, device)
            found = await asyncio.to_thread(standing_of, self.service.store, account.id, self.accounts.now())
            if found.banned:
                raise ServiceError(403, found.banned_sentence())
        return account

    async def logged_in(self, account: AccountRef, request: Request, response: Response) -> None:
        """End the browser's old session, start a new one, trust the browser (a new device cookie), and
        give the account the browser's guest seats."""
        old = session_id(request)
        if old is not None:
            await asyncio.to_thread(self.accounts.end_session, old)
        new = await asyncio.to_thread(self.accounts.new_session, account.id)
        set_session_cookie(response, request, new)
        token = await asyncio.to_thread(self.devices.trust, device_token(request), account.id)
        set_device_cookie(response, request, token)
        seats = await self._guest_seats(request.cookies)
        if seats:
            seats = await asyncio.to_thread(self.accounts.adopt, account.id, seats)
            for game_id, seat in seats:
                game = self.service.games.get(game_id)
                if game is not None and game.info.accounts[seat] is None:
                    game.info.accounts[seat] = account.id

    async def _guest_seats(self, cookies: Mapping[str, str]) -> list[tuple[str, int]]:
        """The (game, seat) pairs whose valid seat cookies the browser holds, held by no account."""
        tokens = cookie_tokens(seat_cookies(cookies, self.service.settings.https))
        ids = sorted(tokens)[: 4 * self.service.settings.table_limit]
        found = []
        for info in await asyncio.to_thread(self.service.store.infos, ids):
            seat = seat_of_token(info, tokens[info.id])
            if seat is not None and info.accounts[seat] is None:
                found.append((info.id, seat))
        return found

    async def log_out(self, request: Request, response: Response) -> None:
        """End the browser's session (nothing if it has none), close its sockets on every process and
        take its cookie away."""
        old = session_id(request)
        if old is not None:
            await asyncio.to_thread(self.accounts.end_session, old)
            self.service.closing.log_out(old)
        clear_session_cookie(response, request)

    async def checked(self, request: Request, password: str) -> AccountRef:
        """The logged-in account, its password checked (401 logged out, 403 a wrong password)."""
        account = await viewer(request)
        if account is None:
            raise ServiceError(401, "you are not logged in")
        if await self._verified(account.username, password, request) is None:
            raise ServiceError(403, "the password is wrong: nothing was changed")
        return account

    async def change_password(self, body: PasswordChange, request: Request, response: Response) -> Who:
        """Store the new password; every session of the account ends, this browser gets a new one."""
        account = await self.checked(request, body.password)
        await asyncio.to_thread(self.accounts.set_password, account.id, body.new_password)
        await asyncio.to_thread(self.accounts.end_sessions, account.id)
        new = await asyncio.to_thread(self.accounts.new_session, account.id)
        set_session_cookie(response, request, new)
        return Who(username=account.username)

    async def delete(self, body: Deletion, request: Request, response: Response) -> None:
        """Delete the account (its games stay, under an anonymous name) and log the browser out."""
        account = await self.checked(request, body.password)
        await asyncio.to_thread(self.accounts.delete, account.id)
        for game in self.service.games.values():
            _rename_seats(game, account.id)
        clear_session_cookie(response, request)


def _rename_seats(game: LiveGame, account_id: int) -> None:
    """Call the account's seats of a game being served ``DELETED_NAME``, in its chat too."""
    for seat, owner in enumerate(game.info.accounts):
        if owner != account_id:
            continue
        game.info.players[seat] = DELETED_NAME
        for lines in game.chat.rooms.values():
            for at, line in enumerate(lines):
                if line.seat == seat:
                    lines[at] = replace(line, name=DELETED_NAME)


def install(app: FastAPI, service: GameService) -> AccountRoutes:
    """Add the accounts' routes to ``app``."""
    routes = AccountRoutes(service)

    @app.post("/api/accounts", response_model=SignedUp, status_code=201, responses=_ERRORS)
    async def sign_up(body: SignUp, request: Request, response: Response) -> SignedUp:
        """Make an account (usernames: 3-20 of A-Z a-z 0-9 _ -; passwords: 8-200 characters) and log in;
        its recovery codes are in the answer, this once."""
        return await routes.sign_up(body, request, response)

    @app.post("/api/session", response_model=Who, responses=_ERRORS)
    async def log_in(body: LogIn, request: Request, response: Response) -> Who:
        """Log in: a new session in an HttpOnly cookie (401 for a wrong name or password alike)."""
        return await routes.log_in(body, request, response)

    @app.get("/api/session", response_model=Who)
    async def who(request: Request) -> Who:
        """The username this browser is logged in as, or null."""
        account = await viewer(request)
        return Who(username=account.username if account else None)

    @app.delete("/api/session", status_code=204)
    async def log_out(request: Request) -> Response:
        """Log out: the session ends on the server and its cookie is taken away."""
        response = Response(status_code=204)
        await routes.log_out(request, response)
        return response

    @app.post("/api/account/password", response_model=Who, responses=_ERRORS)
    async def change_password(body: PasswordChange, request: Request, response: Response) -> Who:
        """Change the password (the current one checked); every other session ends."""
        return await routes.change_password(body, request, response)

    @app.delete("/api/account", status_code=204, responses=_ERRORS)
    async def delete_account(body: Deletion, request: Request) -> Response:
        """Delete the account (the password checked): its games stay under an anonymous name."""
        response = Response(status_code=204)
        await routes.delete(body, request, response)
        return response

    return routes


_ERRORS: dict[int | str, dict[str, object]] = {401: {}, 403: {}, 409: {}, 422: {}, 429: {}}
