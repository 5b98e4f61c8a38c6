// Translations: the catalogue comes from the server (/api/i18n/{lang}, read from the .po files).
// Every visible string is looked up with t(...) and its English text, which is the key; a text
// with a count is looked up with tn(singular, plural, n): the server sends each plural message's
// forms keyed by CLDR plural category, and Intl.PluralRules picks the category of n.
// Static page text is marked with data-i18n (the element's own text is the key), and
// data-i18n-title / data-i18n-placeholder / data-i18n-aria-label for attributes.

export const LANGUAGES = ["en", "pt", "ca"];

// Each language is named in itself in the switch (these names are not translated).
const ENDONYMS = { en: "English", pt: "Português", ca: "Català" };

let messages = {};
let current = "en";

// Joins a plural message's msgid and a CLDR category in the catalogue's keys (schotten/web/routes/i18n.py).
const PLURAL_GLUE = "\u0004";
const pluralRules = new Map();

function fillIn(text, params) {
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

/** Translate `key` (the English text) and fill in {name} placeholders from `params`. */
export function t(key, params = {}) {
  return fillIn(messages[key] || key, params);
}

/** The CLDR plural category ("one", "many", "other" ...) of `n` in language `lang`. */
export function pluralCategory(n, lang = current) {
  if (!pluralRules.has(lang)) pluralRules.set(lang, new Intl.PluralRules(lang));
  return pluralRules.get(lang).select(n);
}

/**
 * Translate a text with a count: `singular` and `plural` are the English texts (the msgid and
 * msgid_plural of the catalogue), `n` the count, also filled in as {n} unless `params` has one.
 * The form is the one of n's plural category in the page's language; a language's missing form
 * falls back to its "other" form, then to English.
 */
export function tn(singular, plural, n, params = {}) {
  const form = (category) => messages[`${singular}${PLURAL_GLUE}${category}`];
  const english = pluralCategory(n, "en") === "one" ? singular : plural;
  return fillIn(form(pluralCategory(n)) || form("other") || english, { n, ...params });
}

/** Mark a string as a catalogue key without translating it yet (it is passed to t() later). */
export function N_(key) {
  return key;
}

/** The language in use ("en", "pt" or "ca"). */
export function language() {
  return current;
}

function cookieLang() {
  const found = document.cookie.split(";").map((p) => p.trim()).find((p) => p.startsWith("lang="));
  const value = found ? decodeURIComponent(found.slice(5)) : null;
  return LANGUAGES.includes(value) ? value : null;
}

async function fetchJSON(url) {
  const response = await fetch(url, { credentials: "same-origin" });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return response.json();
}

async function preferredLanguage() {
  const saved = cookieLang();
  if (saved) return saved;
  try {
    const info = await fetchJSON("/api/i18n");
    if (LANGUAGES.includes(info.preferred)) return info.preferred;
  } catch {
    /* fall back to English */
  }
  return "en";
}

/** The key of a data-i18n element: its attribute value, or its own text with spaces folded. */
function keyOf(node) {
  if (!node.dataset.i18nKey) {
    node.dataset.i18nKey = node.dataset.i18n || node.textContent.trim().replace(/\s+/g, " ");
  }
  return node.dataset.i18nKey;
}

/** Translate the static text of the page (data-i18n elements and attributes). */
export function translatePage(root = document) {
  for (const node of root.querySelectorAll("[data-i18n]")) node.textContent = t(keyOf(node));
  for (const attr of ["title", "placeholder", "aria-label"]) {
    const data = `data-i18n-${attr}`;
    for (const node of root.querySelectorAll(`[${data}]`)) node.setAttribute(attr, t(node.getAttribute(data)));
  }
}

/** Switch language: remember it in the `lang` cookie and reload the page. */
export function setLanguage(lang) {
  if (!LANGUAGES.includes(lang)) return;
  document.cookie = `lang=${lang}; path=/; max-age=31536000; samesite=lax`;
  window.location.reload();
}

function setUpSwitch() {
  const select = document.getElementById("lang");
  if (!select) return;
  select.replaceChildren(
    ...LANGUAGES.map((lang) => {
      const option = document.createElement("option");
      option.value = lang;
      option.textContent = ENDONYMS[lang];
      option.lang = lang;
      return option;
    }),
  );
  select.value = current;
  select.addEventListener("change", () => setLanguage(select.value));
}

let loading = null;

/** Load the catalogue of the preferred language, translate the page and set up the switch (once: a
 * second call, from another module of the page, waits for the first). */
export function initI18n() {
  loading ??= loadLanguage();
  return loading;
}

async function loadLanguage() {
  current = await preferredLanguage();
  messages = {};
  if (current !== "en") {
    try {
      const data = await fetchJSON(`/api/i18n/${current}`);
      messages = data.messages || {};
    } catch {
      current = "en";
    }
  }
  document.documentElement.lang = current;
  translatePage();
  setUpSwitch();
  return current;
}
