"""The routes of account recovery (``players.recovery``, docs/web/players.md "Recovery").

| Route | Body | Answer |
|---|---|---|
| ``GET /api/account/recovery`` | | ``{"email", "pending", "codes_left", "mail"}`` |
| ``POST /api/account/email`` | ``{"password", "email"}`` | 202 ``{"pending"}``, a confirmation link sent |
| ``DELETE /api/account/email`` | ``{"password"}`` | 204, the address removed |
| ``POST /api/account/recovery-codes`` | ``{"password"}`` | ``{"recovery_codes"}``, the old ones void |
| ``GET /confirm-email?token=`` | | 303 to ``/account?email=confirmed`` (or ``=expired``) |
| ``POST /api/recovery/forgot`` | ``{"name"}`` (a username or an address) | 202, the same whatever it names |
| ``GET /reset?token=`` | | 303 to ``/reset?link=1``, the token in a short-lived cookie |
| ``POST /api/recovery/reset`` | ``{"new_password"}`` and that cookie | ``{"username"}``, logged in |
| ``POST /api/recovery/code`` | ``{"username", "code", "new_password"}`` | ``{"username"}``, logged in |

Asking and trying are counted per address (``recovery_rate``) and per account, name or e-mail
address (``recovery_account_rate``), names of no account alike. E-mails are sent in a thread after
the answer, so its time says nothing either; a token is never logged. They are worded in the
language of the request that asks for them (the page's: ``lang`` cookie, else Accept-Language).
"""

from __future__ import annotations

import asyncio
import logging
import smtplib
from collections.abc import Coroutine
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..core.errors import ServiceError
from ..edge import quotas
from ..players.accounts import PASSWORD_MAX, AccountRef, check_password, name_key
from ..players.identity import viewer
from ..players.mail import CONFIRM, RESET, Mailer, Words, worded
from ..players.recovery import EMAIL_MAX, check_email
from ..players.seats import cookie_name
from ..players.standing import standing_of
from ..service import GameService
from . import i18n
from .accounts import AccountRoutes, Who
from .pages import static_page

logger = logging.getLogger("schotten.web")

RESET_COOKIE = "reset"
SENT = ("if that names an account with a confirmed e-mail address, a link to choose a new password "
        "was sent to it: it works once, within the hour")
"""The one answer to "forgot password", whatever it names."""
NO_MAIL = ("this server sends no e-mail (it has no SMTP server): keep your recovery codes, they reset "
           "the password without one")
BAD_LINK = "this link is not valid, was used already or has expired: ask for a new one"
BAD_CODE = "wrong username or recovery code (each code works once)"


class EmailChange(BaseModel):
    """The password and the address to confirm."""

    model_config = ConfigDict(extra="forbid")

    password: str = Field(max_length=PASSWORD_MAX)
    email: str

    @field_validator("email", mode="before")
    @classmethod
    def _email(cls, value: object) -> str:
        return check_email(value)


class Password(BaseModel):
    """The account's password, for a change that asks for it."""

    model_config = ConfigDict(extra="forbid")

    password: str = Field(max_length=PASSWORD_MAX)


class Forgot(BaseModel):
    """A username or an e-mail address whose password was forgotten."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=EMAIL_MAX)


class NewPassword(BaseModel):
    """The new password of a reset by link."""

    model_config = ConfigDict(extra="forbid")

    new_password: str

    @field_validator("new_password", mode="before")
    @classmethod
    def _new(cls, value: object) -> str:
        return check_password(value)


class CodeReset(NewPassword):
    """A reset by recovery code: the username, one of its codes and the new password."""

    username: str = Field(max_length=64)
    code: str = Field(max_length=64)


class RecoveryState(BaseModel):
    """What the account page shows: the confirmed address, the one to confirm, the codes left, and
    whether this server sends e-mail at all."""

    email: str | None
    pending: str | None
    codes_left: int
    mail: bool


class Pending(BaseModel):
    """The address a confirmation link was sent to."""

    pending: str


class Codes(BaseModel):
    """New recovery codes: shown this once."""

    recovery_codes: list[str]


class Sent(BaseModel):
    """The answer to "forgot password" (the same whatever it names)."""

    message: str


class RecoveryRoutes:
    """The routes' work: recovery's blocking calls in threads, the rates, and the e-mails."""

    def __init__(self, service: GameService, accounts: AccountRoutes) -> None:
        settings = service.settings
        self.service = service
        self.accounts = accounts
        self.recovery = accounts.recovery
        self.mailer = Mailer.of(settings)
        self.site = (settings.site_url or settings.address).rstrip("/")
        shared = quotas.shared_limiter(settings.redis_url)
        self.per_address = quotas.Rates("recovery_rate", settings.recovery_rate, quotas.ExactWindow(), shared)
        self.per_account = quotas.Rates("recovery_account_rate", settings.recovery_account_rate,
                                        quotas.ExactWindow(), shared)
        self.sending: set[asyncio.Task[None]] = set()

    async def count(self, request: Request, key: str | None = None) -> None:
        """Count one try of the request's address and of ``key``, an account or a name, if given (429
        beyond either rate)."""
        counts = [(self.per_address, quotas.address_of(request.client))]
        if key is not None:
            counts.append((self.per_account, key))
        for rates, counted in counts:
            refused = await asyncio.to_thread(rates.hit, counted)
            if refused is not None:
                raise quotas.LimitError(f"too many recovery requests (at most {refused[0]}): try again in "
                                        f"{quotas.seconds(refused[1])}", refused[1])

    async def state(self, request: Request) -> RecoveryState:
        """The account's recovery as its page shows it (401 for a guest)."""
        account = await _member(request)
        email = await asyncio.to_thread(self.recovery.email_of, account.id)
        left = await asyncio.to_thread(self.recovery.codes_left, account.id)
        return RecoveryState(email=email.confirmed, pending=email.pending, codes_left=left,
                             mail=self.mailer is not None)

    async def set_email(self, body: EmailChange, request: Request) -> Pending:
        """Send a confirmation link to the new address (the password checked)."""
        if self.mailer is None:
            raise ServiceError(409, NO_MAIL)
        account = await self.accounts.checked(request, body.password)
        await self.count(request, f"account:{account.id}")
        letter = await asyncio.to_thread(self.recovery.ask_confirm, account, body.email)
        lang, words = await self.words(request)
        link = f"{self.site}/confirm-email?token={letter.token}"
        subject, text = worded(CONFIRM, words, username=letter.username, link=link)
        self._later(self._send(letter.to, subject, text, lang))
        return Pending(pending=body.email)

    async def remove_email(self, body: Password, request: Request) -> None:
        """Remove the account's address (the password checked)."""
        account = await self.accounts.checked(request, body.password)
        await asyncio.to_thread(self.recovery.remove_email, account.id)

    async def new_codes(self, body: Password, request: Request) -> Codes:
        """New recovery codes for the account (the password checked); its older codes stop working."""
        account = await self.accounts.checked(request, body.password)
        return Codes(recovery_codes=await asyncio.to_thread(self.recovery.new_codes, account.id))

    async def confirm(self, request: Request, token: str | None) -> Response:
        """Confirm the link's address; the browser goes on to the account page (the token out of its
        address bar)."""
        await self.count(request)
        done = await asyncio.to_thread(self.recovery.confirm, token or "")
        return RedirectResponse(f"/account?email={'confirmed' if done else 'expired'}", status_code=303,
                                headers={"cache-control": "no-store"})

    async def forgot(self, body: Forgot, request: Request) -> Sent:
        """E-mail reset links for what ``name`` names, if anything, after the answer: it is the same,
        and as quick, either way."""
        if self.mailer is None:
            raise ServiceError(409, NO_MAIL)
        name = body.name.strip()
        await self.count(request, f"asked:{name.lower() if '@' in name else name_key(name)}")
        self._later(self._send_resets(name, *await self.words(request)))
        return Sent(message=SENT)

    async def words(self, request: Request) -> tuple[str, Words]:
        """The language of the request (its ``lang`` cookie, else Accept-Language: the page's own) and
        its words."""
        lang = i18n.preferred(request.headers.get("accept-language"), request.cookies.get(i18n.LANG_COOKIE))
        table = await asyncio.to_thread(i18n.messages, self.service.settings.locale_dir, lang)
        return lang, lambda msgid: table.get(msgid) or msgid

    async def _send_resets(self, name: str, lang: str, words: Words) -> None:
        """Make and mail the reset links of what ``name`` names, in ``lang``."""
        try:
            letters = await asyncio.to_thread(self.recovery.ask_reset, name)
        except Exception as error:
            logger.warning("reset links could not be made (%s)", type(error).__name__)
            return
        for letter in letters:
            link = f"{self.site}/reset?token={letter.token}"
            await self._send(letter.to, *worded(RESET, words, username=letter.username, link=link), lang)

    def reset_page(self, token: str | None) -> Response:
        """The reset page; a link's token moves into a short-lived cookie, out of the address bar."""
        settings = self.service.settings
        if not token:
            return static_page(settings, "reset")
        response = RedirectResponse("/reset?link=1", status_code=303, headers={"cache-control": "no-store"})
        response.set_cookie(cookie_name(RESET_COOKIE, settings.https), token[:200],
                            max_age=int(settings.reset_ttl), path="/", httponly=True, samesite="strict",
                            secure=settings.https)
        return response

    async def reset_by_link(self, body: NewPassword, request: Request, response: Response) -> Who:
        """Store the new password of the link's account, end its sessions, log this browser in."""
        await self.count(request)
        https = self.service.settings.https
        token = request.cookies.get(cookie_name(RESET_COOKIE, https), "")
        account = await asyncio.to_thread(self.recovery.reset_by_token, token, body.new_password)
        if account is None:
            raise ServiceError(403, BAD_LINK)
        response.delete_cookie(cookie_name(RESET_COOKIE, https), path="/", httponly=True, samesite="strict",
                               secure=https)
        return await self._logged_in(account, request, response)

    async def reset_by_code(self, body: CodeReset, request: Request, response: Response) -> Who:
        """Use a recovery code to store the new password, end the sessions, log this browser in."""
        await self.count(request, f"asked:{name_key(body.username.strip())}")
        account = await asyncio.to_thread(self.recovery.reset_by_code, body.username.strip(), body.code,
                                          body.new_password)
        if account is None:
            raise ServiceError(403, BAD_CODE)
        return await self._logged_in(account, request, response)

    async def _logged_in(self, account: AccountRef, request: Request, response: Response) -> Who:
        """Log the browser in after a reset (403 if the account is banned: the password stays changed)."""
        now = self.accounts.accounts.now()
        standing = await asyncio.to_thread(standing_of, self.service.store, account.id, now)
        if standing.banned:
            raise ServiceError(403, "the password was changed, but " + standing.banned_sentence())
        await self.accounts.logged_in(account, request, response)
        return Who(username=account.username)

    def _later(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` after the answer, the task held until it is done."""
        task = asyncio.get_running_loop().create_task(work)
        self.sending.add(task)
        task.add_done_callback(self.sending.discard)

    async def _send(self, to: str, subject: str, text: str, lang: str) -> None:
        """Send the e-mail in a thread (after the answer: ``_later``); a failure is logged, never its
        token."""
        assert self.mailer is not None
        try:
            await asyncio.to_thread(self.mailer.send, to, subject, text, lang)
        except (OSError, smtplib.SMTPException) as error:
            logger.warning("an e-mail could not be sent (%s): the SMTP server did not take it",
                           type(error).__name__)


async def _member(request: Request) -> AccountRef:
    account = await viewer(request)
    if account is None:
        raise ServiceError(401, "you are not logged in")
    return account


def install(app: FastAPI, service: GameService, accounts: AccountRoutes) -> RecoveryRoutes:
    """Add the recovery routes to ``app``."""
    routes = RecoveryRoutes(service, accounts)

    @app.get("/api/account/recovery", response_model=RecoveryState, responses=_ERRORS)
    async def recovery_state(request: Request) -> RecoveryState:
        """The account's e-mail address (confirmed and waiting) and how many recovery codes are left."""
        return await routes.state(request)

    @app.post("/api/account/email", response_model=Pending, status_code=202, responses=_ERRORS)
    async def set_email(body: EmailChange, request: Request) -> Pending:
        """Set or change the e-mail address (the password checked): a confirmation link is sent to it."""
        return await routes.set_email(body, request)

    @app.delete("/api/account/email", status_code=204, responses=_ERRORS)
    async def remove_email(body: Password, request: Request) -> Response:
        """Remove the e-mail address (the password checked)."""
        await routes.remove_email(body, request)
        return Response(status_code=204)

    @app.post("/api/account/recovery-codes", response_model=Codes, responses=_ERRORS)
    async def new_codes(body: Password, request: Request) -> Codes:
        """New recovery codes, shown this once (the password checked); the older ones stop working."""
        return await routes.new_codes(body, request)

    @app.get("/confirm-email", include_in_schema=False)
    async def confirm_email(request: Request, token: str | None = None) -> Response:
        return await routes.confirm(request, token)

    @app.post("/api/recovery/forgot", response_model=Sent, status_code=202, responses=_ERRORS)
    async def forgot(body: Forgot, request: Request) -> Sent:
        """E-mail a reset link to the confirmed address of that username, or to that address."""
        return await routes.forgot(body, request)

    @app.get("/reset", include_in_schema=False)
    async def reset_page(token: str | None = None) -> Response:
        return routes.reset_page(token)

    @app.post("/api/recovery/reset", response_model=Who, responses=_ERRORS)
    async def reset_by_link(body: NewPassword, request: Request, response: Response) -> Who:
        """Choose a new password with the link's token (its cookie); the other sessions end."""
        return await routes.reset_by_link(body, request, response)

    @app.post("/api/recovery/code", response_model=Who, responses=_ERRORS)
    async def reset_by_code(body: CodeReset, request: Request, response: Response) -> Who:
        """Choose a new password with one of the account's recovery codes; the other sessions end."""
        return await routes.reset_by_code(body, request, response)

    return routes


_ERRORS: dict[int | str, dict[str, object]] = {401: {}, 403: {}, 409: {}, 422: {}, 429: {}}
