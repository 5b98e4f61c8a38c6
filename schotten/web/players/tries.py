"""Log-in tries: who may try a password now. Strangers' failures lock out strangers only (OWASP's
device cookies, ``devices``): a browser that logged in to the account before keeps its own allowance.

| counted under                | rate                     | counts                                 | success |
|------------------------------|--------------------------|----------------------------------------|---------|
| the address                  | ``login_address_rate``   | every try from it                      | stays   |
| a browser trusted for a name | ``login_rate``           | its tries of that name                 | clears  |
| (name, address), untrusted   | ``login_rate``           | tries of the name from the address     | clears  |
| the name, untrusted          | ``login_untrusted_rate`` | its tries from every untrusted browser | stays   |

A try is counted before its password is checked, so tries at once are counted exactly; names that
are no account's are counted alike, with the same words. Counted in Redis, over every process, when
there is one (``quotas.Rates``), else in this process.
"""

from __future__ import annotations

from ..core.errors import say, saying
from ..core.metrics import REFUSED
from ..core.settings import WebSettings
from ..edge import quotas
from .accounts import name_key

LOG_IN_TRIES = saying("Too many log-in attempts: try again in {wait}.")
STRANGERS_TRIES = saying("Too many log-in attempts for this name from browsers that never logged in to it: "
                         "try again in {wait}, or from a browser you logged in with before.")


class LogInTries:
    """The rates of log-in tries (blocking calls when Redis counts them: run them in a thread)."""

    def __init__(self, settings: WebSettings) -> None:
        limiter, shared = quotas.ExactWindow(), quotas.shared_limiter(settings.redis_url)

        def rates(name: str) -> quotas.Rates:
            return quotas.Rates(name, getattr(settings, name), limiter, shared)

        self.by_address = rates("login_address_rate")
        self.by_browser = rates("login_rate")
        self.by_strangers = rates("login_untrusted_rate")

    def admit(self, username: str, address: str, device: str | None) -> None:
        """Count a try of ``username`` from ``address`` by a browser trusted for it (``device``, its
        hash) or not (None); ``LimitError`` (429) if a rate is exceeded."""
        _refuse(self.by_address, self.by_address.hit(address))
        _refuse(self.by_browser, self.by_browser.hit(_browser(username, address, device)))
        if device is None:
            _refuse(self.by_strangers, self.by_strangers.hit(name_key(username)))

    def succeeded(self, username: str, address: str, device: str | None) -> None:
        """The password was right: the browser's count starts again."""
        self.by_browser.clear(_browser(username, address, device))


def _browser(username: str, address: str, device: str | None) -> str:
    """The key a browser's tries of ``username`` are counted under: its device, else the name and address."""
    return f"device:{device}" if device is not None else f"name:{name_key(username)}@{address}"


def _refuse(counted: quotas.Rates, refused: tuple[str, int] | None) -> None:
    """Raise the 429 of the rates ``counted`` if they ``refused`` (as ``Rates.hit`` says), counting it in
    ``schotten_refused_total``."""
    if refused is None:
        return
    REFUSED.labels(counted.name).inc()
    rates, wait = refused[0], quotas.seconds(refused[1])
    strangers = counted.name == "login_untrusted_rate"
    if strangers:
        message = (f"too many log-in attempts for this name from browsers that never logged in to it "
                   f"(at most {rates}): try again in {wait}, or from a browser you logged in with before")
    else:
        message = f"too many log-in attempts (at most {rates}): try again in {wait}"
    said = say(STRANGERS_TRIES if strangers else LOG_IN_TRIES, wait=wait)
    raise quotas.LimitError(message, refused[1], said)
