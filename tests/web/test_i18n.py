"""The catalogues' plural forms (schotten/web/routes/i18n.py): gettext's msgstr[i] mapped to the CLDR
categories the page picks with Intl.PluralRules, and what the shipped catalogues say."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel import Locale
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po
from helpers_web import test_settings
from starlette.testclient import TestClient

from schotten.web import create_app
from schotten.web.core.errors import SAYINGS, say
from schotten.web.core.settings import WebSettings
from schotten.web.games.opening import EXPIRED
from schotten.web.routes import i18n

LOCALE_DIR = WebSettings().locale_dir
STATIC = WebSettings().static_dir
TN_CALL = re.compile(r"\btn\(\s*\"((?:[^\"\\]|\\.)*)\"\s*,\s*\"((?:[^\"\\]|\\.)*)\"")
ROUNDS = {
    "en": {0: "0 rounds", 1: "1 round", 2: "2 rounds", 5: "5 rounds"},
    "pt": {0: "0 rodada", 1: "1 rodada", 2: "2 rodadas", 5: "5 rodadas"},
    "ca": {0: "0 rondes", 1: "1 ronda", 2: "2 rondes", 5: "5 rondes"},
}
TACTIC_CARDS = {
    "en": {0: "0 tactic cards", 1: "1 tactic card", 2: "2 tactic cards", 5: "5 tactic cards"},
    "pt": {0: "0 carta tática", 1: "1 carta tática", 2: "2 cartas táticas", 5: "5 cartas táticas"},
    "ca": {0: "0 cartes tàctiques", 1: "1 carta tàctica", 2: "2 cartes tàctiques", 5: "5 cartes tàctiques"},
}


def shipped(lang: str) -> Catalog:
    """A shipped catalogue, read with Babel."""
    with i18n.catalogue_path(LOCALE_DIR, lang).open("rb") as handle:
        return read_po(handle, locale=None if lang == "en" else lang)


def plurals(lang: str) -> dict[tuple[str, str], list[str]]:
    """``{(msgid, msgid_plural): [msgstr[0], ...]}`` of a shipped catalogue."""
    return {(str(m.id[0]), str(m.id[1])): list(m.string) for m in shipped(lang)
            if isinstance(m.id, tuple)}


def page_says(lang: str, singular: str, n: int) -> str:
    """What the page shows for ``n`` of plural message ``singular``: the form the server sends
    for n's CLDR category (what Intl.PluralRules(lang).select(n) gives), {n} filled in."""
    category = Locale.parse(lang).plural_form(n)
    form = i18n.messages(LOCALE_DIR, lang)[i18n.plural_key(singular, category)]
    return form.replace("{n}", str(n))


def tn_calls() -> set[tuple[str, str]]:
    """Every ``tn("singular", "plural", ...)`` of the page's modules."""
    found: set[tuple[str, str]] = set()
    for path in sorted((STATIC / "js").glob("*.js")):
        found.update(TN_CALL.findall(path.read_text(encoding="utf-8")))
    return found


@pytest.mark.parametrize(("lang", "expected"), [
    ("en", {"one": 0, "other": 1}),
    ("pt", {"one": 0, "many": 1, "other": 2}),
    ("ca", {"one": 0, "many": 1, "other": 2}),
])
def test_each_cldr_category_gets_one_msgstr_index(lang: str, expected: dict[str, int]) -> None:
    expr = shipped(lang).plural_expr
    assert i18n.plural_indices(lang, expr) == expected
    assert i18n.plural_disagreements(lang, expr) == [], "Plural-Forms agree with CLDR's rules"


def test_plural_forms_that_disagree_with_cldr_are_found() -> None:
    """CLDR's Portuguese puts 0 with 1 ("one"); an English-style Plural-Forms gives 0 the plural
    form, so 1 disagrees with the index "one" got from 0. Catalan's CLDR rules fit it."""
    assert i18n.plural_disagreements("pt", "(n != 1)") == [(1, "one", 0)]
    assert i18n.plural_disagreements("ca", "(n != 1)") == []


@pytest.mark.parametrize("lang", ["en", "pt", "ca"])
@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_the_form_for_a_count(lang: str, n: int) -> None:
    """pt and ca no longer say "1 táticas", "1 tàctiques"."""
    assert page_says(lang, "{n} round", n) == ROUNDS[lang][n]
    assert page_says(lang, "{n} tactic card", n) == TACTIC_CARDS[lang][n]


def test_a_million_has_its_own_form_in_pt_and_ca() -> None:
    assert page_says("pt", "{n} round", 10**6) == "1000000 de rodadas"
    assert page_says("ca", "{n} round", 10**6) == "1000000 de rondes"
    assert page_says("en", "{n} round", 10**6) == "1000000 rounds"


@pytest.mark.parametrize("lang", ["pt", "ca"])
def test_every_plural_message_is_translated_in_every_form(lang: str) -> None:
    catalog = shipped(lang)
    english = plurals("en")
    assert set(plurals(lang)) == set(english), "the same plural messages in every language"
    for (singular, plural), forms in plurals(lang).items():
        assert len(forms) == catalog.num_plurals and all(forms), f"{lang}: {singular!r} lacks a form"
        wanted = re.findall(r"\{(\w+)\}", singular + plural)
        for form in forms:
            assert sorted(set(re.findall(r"\{(\w+)\}", form))) == sorted(set(wanted)), f"{lang}: {form!r}"


@pytest.mark.parametrize("lang", ["en", "pt", "ca"])
def test_every_tn_call_of_the_page_has_its_plural_message(lang: str) -> None:
    calls = tn_calls()
    assert ("{n} round", "{n} rounds") in calls
    assert ("The deal ({n} move in all)", "The deal ({n} moves in all)") in calls
    missing = sorted(calls - set(plurals(lang)))
    assert not missing, f"{lang} catalogue lacks the plural messages {missing}"


def test_portuguese_names_the_tactics_variant_taticas() -> None:
    pt = {str(m.id): str(m.string) for m in shipped("pt") if isinstance(m.id, str)}
    assert pt["Tactics"] == "Táticas"
    assert not [key for key, text in pt.items() if re.search(r"\bTátic[oa]\b", text)]


def test_the_expert_ai_level_and_the_expert_variant_have_different_names() -> None:
    for lang in ("pt", "ca"):
        table = i18n.messages(LOCALE_DIR, lang)
        assert table["Master"] not in (table["Expert"], "Master")
        assert table["master"] != table["expert"]


def _po(path: Path, header: str, entries: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n{header}\n{entries}',
                    encoding="utf-8")


def test_the_catalogue_route_sends_one_form_per_category(tmp_path: Path) -> None:
    """GET /api/i18n/{lang}: a plural message gives its msgid and one key per CLDR category; an
    empty form reads as the English msgid ("one") or msgid_plural; a fuzzy one is left out."""
    settings = test_settings(tmp_path)
    plural_forms = ('"Plural-Forms: nplurals=3; '
                    'plural=(n == 1 ? 0 : n != 0 && n % 1000000 == 0 ? 1 : 2);\\n"\n')
    _po(i18n.catalogue_path(settings.locale_dir, "ca"), plural_forms, (
        'msgid "{n} stone"\nmsgid_plural "{n} stones"\n'
        'msgstr[0] "{n} pedra"\nmsgstr[1] ""\nmsgstr[2] "{n} pedres"\n\n'
        '#, fuzzy\nmsgid "{n} card"\nmsgid_plural "{n} cards"\n'
        'msgstr[0] "{n} carta"\nmsgstr[1] "{n} de cartes"\nmsgstr[2] "{n} cartes"\n\n'
        'msgid "Claim"\nmsgstr "Reclama"\n'
    ))
    with TestClient(create_app(settings)) as client:
        body = client.get("/api/i18n/ca").json()
    glue = i18n.PLURAL_GLUE
    assert body["messages"] == {
        "Claim": "Reclama",
        "{n} stone": "{n} pedra",
        f"{{n}} stone{glue}one": "{n} pedra",
        f"{{n}} stone{glue}many": "{n} stones",
        f"{{n}} stone{glue}other": "{n} pedres",
    }


@pytest.mark.parametrize("lang", ["en", "pt", "ca"])
def test_no_message_is_in_a_catalogue_twice(lang: str) -> None:
    """Babel keeps one of two entries with the same msgid without a word: each msgid once."""
    text = i18n.catalogue_path(LOCALE_DIR, lang).read_text(encoding="utf-8")
    entries = re.findall(r'^msgid ((?:".*"\n)+)', text, re.M)
    msgids = ["".join(re.findall(r'"(.*)"', entry)) for entry in entries]
    repeated = sorted({m for m in msgids if msgids.count(m) > 1})
    assert not repeated, f"{lang}: {repeated}"


@pytest.mark.parametrize("lang", ["en", "pt", "ca"])
def test_every_refusal_a_page_says_is_in_each_catalogue_with_its_placeholders(lang: str) -> None:
    """The limits' and the 410s' sentences (``core.errors.SAYINGS``) reach the page as a saying: each is
    a msgid of every catalogue, translated (but in English) with the same ``{placeholders}``."""
    assert len(SAYINGS) >= 13
    catalogue = i18n.messages(LOCALE_DIR, lang)
    for text in sorted(SAYINGS):
        assert text in catalogue, f"{lang}: no entry for {text!r}"
        said = catalogue[text] or text
        assert lang == "en" or said != text, f"{lang}: {text!r} is not translated"
        assert set(re.findall(r"{(\w+)}", said)) == set(re.findall(r"{(\w+)}", text)), (lang, text)


def test_an_expired_table_s_410_and_a_limit_carry_what_the_page_says(tmp_path: Path) -> None:
    """Joining an expired table: 410 with the English sentence and its saying (the wait filled in);
    the third table of a "2/minute" address: 429 with its saying."""
    settings = test_settings(tmp_path, open_table_ttl=0.0, tables_rate="2/minute")
    with TestClient(create_app(settings)) as client:
        body = {"variant": "base", "rounds": 1, "mode": "friend", "nickname": "Ann", "seat": 0}
        table = client.post("/api/tables", json=body).json()
        joined = client.post(f"/api/tables/{table['id']}/join", json={"nickname": "Bob"})
        assert joined.status_code == 410 and joined.json()["error"].startswith("this table expired")
        assert joined.json()["say"] == {"text": EXPIRED, "params": {"wait": "1 s"}}
        client.post("/api/tables", json=body)
        refused = client.post("/api/tables", json=body)
        assert refused.status_code == 429, refused.text
        assert refused.json()["say"]["text"] in SAYINGS and refused.json()["say"]["params"]["wait"]
    with pytest.raises(ValueError, match="not a registered saying"):
        say("Something nobody registered.")
