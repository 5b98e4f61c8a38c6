// Keyboard play a sighted keyboard user can follow: the hand (a listbox) and the board (a grid of
// one row, a cell per stone) are one Tab stop each with a roving focus, as WAI-ARIA's listbox and
// grid patterns describe: in the hand the arrow keys move from card to card; on the board ← →
// move from stone to stone and ↑ ↓ among one stone's controls (the stone, its Claim button, the
// cards one may pick on it); Home and End go to the first and the last. The keys 1-9 go to a
// stone straight away. The focused stone wears its own ring (style.css), so one can see which
// stone Enter will use.

const AREAS = {
  hand: { selector: "#hand .card[tabindex]", kept: null },
  board: { selector: "#board [data-action]", kept: null },
};
const focus = { area: null };
const NEXT = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
const ACROSS = { ArrowRight: 1, ArrowLeft: -1 };
const ALONG = { ArrowDown: 1, ArrowUp: -1 };

function itemKey(node) {
  return node.dataset.action || node.dataset.card || "";
}

function items(area) {
  return [...document.querySelectorAll(area.selector)];
}

/** Give each area one Tab stop: the item focused last if it is still there, else the first. The
 * focus lost when its area was drawn again goes back to that area's Tab stop. */
export function rove() {
  const stops = new Map();
  for (const area of Object.values(AREAS)) {
    const list = items(area);
    const kept = list.find((node) => itemKey(node) === area.kept) || list[0];
    for (const node of list) node.tabIndex = node === kept ? 0 : -1;
    stops.set(area, kept);
  }
  const lost = !document.activeElement || document.activeElement === document.body;
  const back = focus.area && (stops.get(focus.area) || stops.get(AREAS.hand) || stops.get(AREAS.board));
  if (lost && back) back.focus({ preventScroll: true });
}

function onFocusIn(event) {
  const area = event.target instanceof Element ? areaOf(event.target) : null;
  if (!area) return;
  focus.area = area;
  area.kept = itemKey(event.target);
}

function moveTo(area, node) {
  area.kept = itemKey(node);
  for (const other of items(area)) other.tabIndex = other === node ? 0 : -1;
  node.focus();
}

function areaOf(node) {
  return Object.values(AREAS).find((area) => node.matches(area.selector));
}

function columnOf(node) {
  return node.closest("#board .col");
}

/** The item of the hand a key goes to from `at` (null: none; the focus stays). */
function handTarget(key, list, at) {
  if (key in NEXT) return list[at + NEXT[key]] || null;
  if (key === "Home") return list[0];
  if (key === "End") return list[list.length - 1];
  return null;
}

/** The control of the board a key goes to from `node`: ← → the next stone's first control, ↑ ↓
 * the stone's next control, Home and End the first and the last stone's (null: the focus stays). */
function boardTarget(key, list, node) {
  const columns = [...new Set(list.map(columnOf))];
  const first = (col) => (col ? list.find((item) => columnOf(item) === col) : null);
  const at = columns.indexOf(columnOf(node));
  if (key in ACROSS) return first(columns[at + ACROSS[key]]);
  if (key in ALONG) {
    const here = list.filter((item) => columnOf(item) === columns[at]);
    return here[here.indexOf(node) + ALONG[key]] || null;
  }
  if (key === "Home") return first(columns[0]);
  if (key === "End") return first(columns[columns.length - 1]);
  return null;
}

/** Move the focus inside the hand or the board; whether the key was one of theirs. */
function onArrow(event, node) {
  const area = areaOf(node);
  if (!area || !(event.key in NEXT || event.key === "Home" || event.key === "End")) return false;
  const list = items(area);
  const target = area === AREAS.board ? boardTarget(event.key, list, node)
    : handTarget(event.key, list, list.indexOf(node));
  if (target) moveTo(area, target);
  return true;
}

/** The control of stone `n` a key goes to: the stone itself when a card can go there, else its
 * claim button, else a card one may pick on it. */
function stoneControl(n) {
  const col = document.querySelector(`#board .col[data-stone="${n}"]`);
  if (!col) return null;
  if (col.dataset.action) return col;
  return col.querySelector("button.claim[data-action]") || col.querySelector(".card[data-action]");
}

function typing(node) {
  return node instanceof Element && Boolean(node.closest("input, textarea, select, [contenteditable]"));
}

function onKey(event) {
  if (event.altKey || event.ctrlKey || event.metaKey || typing(event.target)) return;
  const node = event.target instanceof HTMLElement ? event.target : null;
  if (node && onArrow(event, node)) {
    event.preventDefault();
    return;
  }
  if (!/^[1-9]$/.test(event.key)) return;
  const control = stoneControl(Number(event.key));
  if (!control) return;
  event.preventDefault();
  moveTo(AREAS.board, control);
}

/** Listen to the keys of the table. */
export function wireKeyboard() {
  document.addEventListener("keydown", onKey);
  document.addEventListener("focusin", onFocusIn);
}
