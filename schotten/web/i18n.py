"""The page's languages: gettext catalogues read with Babel, and the browser's preferred language.

Catalogues live in ``locale/{lang}/LC_MESSAGES/messages.po``; msgids are the English
texts. A message with an empty translation (or a fuzzy one) reads as its msgid; a
missing catalogue gives no messages at all, so the page shows its English texts.
"""

from __future__ import annotations

from pathlib import Path

from babel.messages.pofile import read_po

LANGUAGES: tuple[str, ...] = ("en", "pt", "ca")
"""The languages offered, English first (the fallback)."""
DEFAULT_LANGUAGE = "en"
LANG_COOKIE = "lang"

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
    table: dict[str, str] = {}
    for message in catalog:
        if not message.id or message.fuzzy:
            continue
        key = message.id if isinstance(message.id, str) else message.id[0]
        forms = message.string
        text = forms if isinstance(forms, str) else (forms[0] if forms else "")
        table[key] = text or key
    _cache[path] = (stamp, table)
    return dict(table)


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
