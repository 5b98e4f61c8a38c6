"""E-mail through the SMTP server of the settings (``smtp_*``), with the standard library's smtplib.

``Mailer.send`` blocks (run it in a thread, never on the event loop); each connection is given up
after ``smtp_timeout`` seconds. Without ``smtp_host`` there is no mailer (``Mailer.of`` is None).
"""

from __future__ import annotations

import smtplib
from email.message import EmailMessage

from ..core.settings import WebSettings


class Mailer:
    """Sends plain-text e-mails through one SMTP server."""

    def __init__(self, settings: WebSettings) -> None:
        self.settings = settings
        self.sender = settings.smtp_from or f"schotten@{settings.smtp_host}"

    @classmethod
    def of(cls, settings: WebSettings) -> Mailer | None:
        """The settings' mailer, or None if they name no SMTP server."""
        return cls(settings) if settings.smtp_host else None

    def send(self, to: str, subject: str, text: str) -> None:
        """Send one e-mail (OSError or smtplib.SMTPException if the server cannot take it)."""
        message = EmailMessage()
        message["From"] = self.sender
        message["To"] = to
        message["Subject"] = subject
        message.set_content(text)
        settings = self.settings
        with smtplib.SMTP(settings.smtp_host, settings.smtp_port, timeout=settings.smtp_timeout) as smtp:
            if settings.smtp_starttls:
                smtp.starttls()
            if settings.smtp_user:
                smtp.login(settings.smtp_user, settings.smtp_password)
            smtp.send_message(message)
