"""E-mail through the SMTP server of the settings (``smtp_*``), with the standard library's smtplib,
and the words of the mails the site sends, in the player's language.

``Mailer.send`` blocks (run it in a thread, never on the event loop); each connection is given up
after ``smtp_timeout`` seconds. Without ``smtp_host`` there is no mailer (``Mailer.of`` is None).

| mail | placeholders | sent when |
|---|---|---|
| ``CONFIRM`` | ``{username}``, ``{link}`` | an address is given to confirm |
| ``RESET`` | ``{username}``, ``{link}`` | a reset link is asked for ("forgot password") |

Subjects and texts are msgids of the site's catalogues (``locale/*/LC_MESSAGES/messages.po``);
``worded`` puts them in a language with that language's ``Words``.
"""

from __future__ import annotations

import smtplib
from collections.abc import Callable
from dataclasses import dataclass
from email.message import EmailMessage

from ..core.settings import WebSettings

Words = Callable[[str], str]
"""A msgid's translation in one language (the msgid itself where there is none)."""


@dataclass(frozen=True, slots=True)
class Wording:
    """A mail's subject and text in English: the msgids of its translations."""

    subject: str
    text: str


CONFIRM = Wording(
    "Confirm your e-mail address",
    "To confirm this address for the Schotten Totten account {username}, open\n\n{link}\n\nThe link works "
    "once, for a day. If you did not ask for it, ignore this e-mail.\n")
RESET = Wording(
    "Choose a new password",
    "To choose a new password for the Schotten Totten account {username}, open\n\n{link}\n\nThe link works "
    "once, within the hour; your other browsers are then logged out. If you did not ask for it, ignore "
    "this e-mail: your password stays as it is.\n")
MAILS = (CONFIRM, RESET)


def worded(wording: Wording, words: Words, **values: str) -> tuple[str, str]:
    """The mail's subject and text in the language of ``words``, ``values`` put in (the English text
    where a translation does not take them)."""
    try:
        return words(wording.subject), words(wording.text).format(**values)
    except (KeyError, IndexError, ValueError):
        return wording.subject, wording.text.format(**values)


class Mailer:
    """Sends plain-text e-mails through one SMTP server."""

    def __init__(self, settings: WebSettings) -> None:
        self.settings = settings
        self.sender = settings.smtp_from or f"schotten@{settings.smtp_host}"

    @classmethod
    def of(cls, settings: WebSettings) -> Mailer | None:
        """The settings' mailer, or None if they name no SMTP server."""
        return cls(settings) if settings.smtp_host else None

    def send(self, to: str, subject: str, text: str, lang: str | None = None) -> None:
        """Send one e-mail, in ``lang`` if given (OSError or smtplib.SMTPException if the server
        cannot take it)."""
        message = EmailMessage()
        message["From"] = self.sender
        message["To"] = to
        message["Subject"] = subject
        message.set_content(text)
        if lang:
            message["Content-Language"] = lang
        settings = self.settings
        with smtplib.SMTP(settings.smtp_host, settings.smtp_port, timeout=settings.smtp_timeout) as smtp:
            if settings.smtp_starttls:
                smtp.starttls()
            if settings.smtp_user:
                smtp.login(settings.smtp_user, settings.smtp_password)
            smtp.send_message(message)
