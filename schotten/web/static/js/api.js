// HTTP helpers, cookies, saved preferences and the visible message area.

import { t } from "./i18n.js";

/** An HTTP error from the server, with its status and the server's message. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** What to show of a refused request's body: its saying in the reader's language if it has one,
 * else the server's sentence, else `fallback`. */
export function errorText(body, fallback) {
  if (body && body.say && typeof body.say.text === "string") return t(body.say.text, body.say.params || {});
  return body && typeof body.error === "string" ? body.error : fallback;
}

async function request(url, options) {
  let response;
  try {
    response = await fetch(url, { credentials: "same-origin", ...options });
  } catch {
    throw new ApiError(0, t("The server cannot be reached."));
  }
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (!response.ok) {
    throw new ApiError(response.status, errorText(body, `HTTP ${response.status}`));
  }
  return body;
}

/** GET a JSON document. */
export function getJSON(url) {
  return request(url, { headers: { Accept: "application/json" } });
}

/** POST a JSON body and read the JSON answer. */
export function postJSON(url, data) {
  return request(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify(data),
  });
}

/** PUT or DELETE a resource with no body (the answer's body, null for a 204). */
export function sendEmpty(method, url) {
  return request(url, { method, headers: { Accept: "application/json" } });
}

/** The value of a cookie, or null. */
export function getCookie(name) {
  for (const part of document.cookie.split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return decodeURIComponent(rest.join("="));
  }
  return null;
}

/** Set a cookie for the whole site for a year. */
export function setCookie(name, value) {
  document.cookie = `${name}=${encodeURIComponent(value)}; path=/; max-age=31536000; samesite=lax`;
}

/** A value saved in this browser (localStorage may be unavailable: then nothing is kept). */
export function loadPref(key, fallback) {
  try {
    const value = window.localStorage.getItem(`schotten.${key}`);
    return value === null ? fallback : value;
  } catch {
    return fallback;
  }
}

/** Save a value in this browser. */
export function savePref(key, value) {
  try {
    window.localStorage.setItem(`schotten.${key}`, value);
  } catch {
    /* private mode: nothing is kept */
  }
}

let hideTimer = null;

/** Show a message in the page's message area (#message); kind is "error" or "info"; `extra`
 * nodes (a "why?" link) follow the text. */
export function showMessage(text, kind = "error", extra = []) {
  const area = document.getElementById("message");
  if (!area) return;
  area.replaceChildren(text, ...extra);
  area.className = `message ${kind}`;
  area.hidden = false;
  area.setAttribute("role", kind === "error" ? "alert" : "status");
  window.clearTimeout(hideTimer);
  hideTimer = window.setTimeout(() => clearMessage(), kind === "error" ? 12000 : 5000);
}

/** Hide the message area. */
export function clearMessage() {
  const area = document.getElementById("message");
  if (area) area.hidden = true;
}

/** The nickname saved from a previous visit ("" if none). */
export function savedNickname() {
  return loadPref("nickname", "");
}

/** Check a nickname (1-24 characters after trimming); returns the trimmed name or null. */
export function cleanNickname(text) {
  const name = (text || "").trim();
  return name.length >= 1 && name.length <= 24 ? name : null;
}
