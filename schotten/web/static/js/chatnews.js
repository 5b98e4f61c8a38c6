// The sign that chat messages came while the chat was out of sight (below the fold on a phone):
// a button beside the hand, "New message from Carol" or "3 new messages", that scrolls to the
// chat; it goes once the chat's messages are in view. One's own messages give no sign.

import { byId } from "./dom.js";
import { t, tn } from "./i18n.js";
import { reveal } from "./moments.js";

/** How much of the chat's messages must be in view for them to count as seen. */
const SEEN_RATIO = 0.5;
const news = { unread: 0, from: "", inView: false };

function show() {
  const button = byId("chat-news");
  button.hidden = !news.unread;
  button.dataset.unread = String(news.unread);
  button.textContent = news.unread === 1 ? t("New message from {name}", { name: news.from })
    : tn("{n} new message", "{n} new messages", news.unread);
}

/** Count the other people's `lines` just written, unless the chat's messages are in view. */
export function announceLines(lines) {
  if (news.inView || !lines.length) return;
  news.unread += lines.length;
  news.from = lines[lines.length - 1].name;
  show();
}

function seen(entries) {
  news.inView = entries[entries.length - 1].intersectionRatio >= SEEN_RATIO;
  byId("chat-news").dataset.chatInView = news.inView ? "1" : "0";
  if (!news.inView || !news.unread) return;
  news.unread = 0;
  show();
}

/** Watch whether the chat's messages are in view; the button scrolls to them. */
export function wireChatNews() {
  const rooms = byId("chat-rooms");
  new IntersectionObserver(seen, { threshold: [0, SEEN_RATIO, 1] }).observe(rooms);
  byId("chat-news").addEventListener("click", () => reveal(byId("chat")));
  show();
}
