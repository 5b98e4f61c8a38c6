"""The page's languages: gettext catalogues read with Babel, and the browser's preferred language.

Catalogues live in ``locale/{lang}/LC_MESSAGES/messages.po``; msgids are the English
texts. A message with an empty translation (or a fuzzy one) reads as its msgid; a
missing catalogue gives no messages at all, so the page shows its English texts.

A plural message (``msgid`` / ``msgid_plural``, ``msgstr[0]`` ...) reaches the page as one
entry per CLDR plural category of the language, keyed ``plural_key(msgid, category)``: the
page picks with ``Intl.PluralRules(lang).select(n)``. Which ``msgstr[i]`` a category gets is
read from the catalogue's ``Plural-Forms`` expression, evaluated on numbers of that category.

| key | value |
|---|---|
| ``msgid`` | the translation (a plural message: its ``msgstr[0]``) |
| ``msgid + PLURAL_GLUE + category`` | a plural message's form for ``category`` ("one", "many", "other" ...) |
"""

from __future__ import annotations

import gettext
from collections.abc import Callable, Iterator
from pathlib import Path

from babel import Locale
from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po
from fastapi import FastAPI, Request

from ..core.errors import ServiceError
from ..core.schemas import ErrorBody, Languages, Messages
from ..core.settings import WebSettings

LANGUAGES: tuple[str, ...] = ("en", "pt", "ca")
"""The languages offered, English first (the fallback)."""
DEFAULT_LANGUAGE = "en"
LANG_COOKIE = "lang"
PLURAL_GLUE = "\x04"
"""Joins a plural message's msgid and a CLDR category in the keys sent to the page (gettext's
own context separator: never part of a msgid)."""
PLURAL_SAMPLES: tuple[int, ...] = (*range(0, 1001), 10**6, 2 * 10**6, 10**7, 10**9)
"""The numbers on which a catalogue's Plural-Forms are compared with the CLDR categories."""

_cache: dict[Path, tuple[float, dict[str, str]]] = {}


def catalogue_path(locale_dir: Path, lang: str) -> Path:
    """Where the catalogue of ``lang`` lives."""
    return locale_dir / lang / "LC_MESSAGES" / "messages.po"


def messages(locale_dir: Path, lang: str) -> dict[str, str]:
    """``{msgid: translation}`` for ``lang`` (one of LANGUAGES); empty if there is no catalogue.

    Raises ValueError for a language that is not offered. A catalogue is read again when
    its file changes.
    """
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}: choose one of {', '.join(LANGUAGES)}")
    path = catalogue_path(locale_dir, lang)
    try:
        stamp = path.stat().st_mtime
    except OSError:
        return {}
    cached = _cache.get(path)
    if cached is not None and cached[0] == stamp:
        return dict(cached[1])
    with path.open("rb") as file:
        catalog = read_po(file, locale=None if lang == "en" else lang)
    table = _table(catalog, lang)
    _cache[path] = (stamp, table)
    return dict(table)


def plural_key(msgid: str, category: str) -> str:
    """The key under which the page finds the form of plural message ``msgid`` for ``category``."""
    return f"{msgid}{PLURAL_GLUE}{category}"


def plural_indices(lang: str, plural_expr: str) -> dict[str, int]:
    """``{CLDR category: msgstr index}`` for ``lang``: the index the gettext expression
    ``plural_expr`` gives the first sample number of each category (PLURAL_SAMPLES)."""
    found: dict[str, int] = {}
    for _, category, index in _samples(lang, plural_expr):
        found.setdefault(category, index)
    return found


def plural_disagreements(lang: str, plural_expr: str) -> list[tuple[int, str, int]]:
    """The sample numbers whose msgstr index under ``plural_expr`` is not the one their CLDR
    category maps to (empty when the catalogue's Plural-Forms agree with CLDR's rules for ``lang``):
    ``(n, category, index)``."""
    indices = plural_indices(lang, plural_expr)
    return [sample for sample in _samples(lang, plural_expr) if indices[sample[1]] != sample[2]]


def _samples(lang: str, plural_expr: str) -> Iterator[tuple[int, str, int]]:
    """``(n, CLDR category of n, msgstr index of n)`` for each of PLURAL_SAMPLES."""
    category = Locale.parse(lang).plural_form
    index: Callable[[int], int] = gettext.c2py(plural_expr)
    for n in PLURAL_SAMPLES:
        yield n, category(n), index(n)


def _table(catalog: Catalog, lang: str) -> dict[str, str]:
    """The messages of a catalogue as the page reads them (see the module's table)."""
    table: dict[str, str] = {}
    indices: dict[str, int] | None = None
    for message in catalog:
        if not message.id or message.fuzzy:
            continue
        if isinstance(message.id, str):
            table[message.id] = (message.string if isinstance(message.string, str) else "") or message.id
            continue
        if indices is None:
            indices = plural_indices(lang, catalog.plural_expr)
        table.update(_plural_entries(message, indices))
    return table


def _plural_entries(message: Message, indices: dict[str, int]) -> dict[str, str]:
    """A plural message's entries: its msgid, then one form per category (an empty form reads
    as the English msgid for "one", the English msgid_plural for any other category)."""
    singular, plural = str(message.id[0]), str(message.id[1])
    forms = [message.string] if isinstance(message.string, str) else list(message.string or ())
    entries = {singular: (forms[0] if forms else "") or singular}
    for category, index in indices.items():
        form = forms[index] if index < len(forms) else ""
        entries[plural_key(singular, category)] = form or (singular if category == "one" else plural)
    return entries


def preferred(accept_language: str | None, cookie: str | None) -> str:
    """The language to show: the ``lang`` cookie if it names an offered one, else the best
    match for the Accept-Language header, else English."""
    if cookie in LANGUAGES:
        return cookie
    for lang in _ranked(accept_language or ""):
        primary = lang.split("-")[0].split("_")[0]
        if primary in LANGUAGES:
            return primary
    return DEFAULT_LANGUAGE


def _ranked(header: str) -> list[str]:
    """The languages of an Accept-Language header, by decreasing quality (q=0 left out)."""
    ranked: list[tuple[float, int, str]] = []
    for position, part in enumerate(header.split(",")):
        fields = part.strip().split(";")
        tag = fields[0].strip().lower()
        quality = 1.0
        for param in fields[1:]:
            name, _, value = param.strip().partition("=")
            if name.strip() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if tag and tag != "*" and quality > 0:
            ranked.append((-quality, position, tag))
    return [tag for _, _, tag in sorted(ranked)]


def install(app: FastAPI, settings: WebSettings) -> None:
    """Add the routes of the languages and their catalogues to ``app``."""
    @app.get("/api/i18n", response_model=Languages)
    async def languages(request: Request) -> Languages:
        """The languages offered and the best one for this browser (``lang`` cookie, Accept-Language)."""
        best = preferred(request.headers.get("accept-language"), request.cookies.get(LANG_COOKIE))
        return Languages(languages=list(LANGUAGES), preferred=best)

    @app.get("/api/i18n/{lang}", response_model=Messages, responses={404: {"model": ErrorBody}})
    async def catalogue(lang: str) -> Messages:
        """Every message of one language: ``{msgid: translation}``."""
        try:
            return Messages(lang=lang, messages=messages(settings.locale_dir, lang))
        except ValueError as error:
            raise ServiceError(404, str(error)) from None


