// Small DOM helpers: build elements without ever parsing HTML from data.

/**
 * Create an element.
 * props: {class, text, title, data: {...}, attrs: {...}, on: {event: handler}}
 * children: nodes or strings (strings become text nodes).
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  if (props.class) node.className = props.class;
  if (props.text !== undefined) node.textContent = String(props.text);
  if (props.title) node.title = props.title;
  for (const [key, value] of Object.entries(props.data || {})) {
    if (value !== undefined && value !== null) node.dataset[key] = String(value);
  }
  for (const [key, value] of Object.entries(props.attrs || {})) {
    if (value !== undefined && value !== null && value !== false) node.setAttribute(key, String(value));
  }
  for (const [event, handler] of Object.entries(props.on || {})) node.addEventListener(event, handler);
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

/** Create an SVG element with attributes. */
export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  for (const child of children) node.append(child);
  return node;
}

/** Replace all children of `node`. */
export function fill(node, ...children) {
  node.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

/** The element with this id (throws a clear error when the page lacks it). */
export function byId(id) {
  const node = document.getElementById(id);
  if (!node) throw new Error(`missing element #${id}`);
  return node;
}

let measure = null;

/** The width of `text` drawn in `font` (a CSS font shorthand), in pixels. */
function textWidth(text, font) {
  if (!measure) measure = document.createElement("canvas").getContext("2d");
  measure.font = font;
  return measure.measureText(text).width;
}

/** The words of `text`; a word wider than `width` is cut after its hyphens ("Shield-", "bearer"). */
function wordsOf(text, width, font) {
  return text.split(/\s+/).filter(Boolean).flatMap((word) => (textWidth(word, font) > width && word.includes("-")
    ? word.split(/(?<=-)/) : [word]));
}

/** Words on lines no wider than `width` (greedy); a word wider than a line stays whole. */
function wrapWords(text, width, font) {
  const lines = [];
  for (const word of wordsOf(text, width, font)) {
    const previous = lines[lines.length - 1] || "";
    const last = previous.endsWith("-") ? `${previous}${word}` : `${previous} ${word}`;
    if (lines.length && textWidth(last, font) <= width) lines[lines.length - 1] = last;
    else lines.push(word);
  }
  return lines;
}

/**
 * Text that always fits its box, never cut and never broken inside a word: an SVG `width`
 * units wide (it scales with the CSS width given to `cls`), the words on as few lines as fit,
 * a line still too wide squeezed to the width. opts: {width, size, weight, cls, label}.
 */
export function fittedText(text, opts = {}) {
  const width = opts.width || 40;
  const size = opts.size || 10;
  const weight = opts.weight || 600;
  const family = window.getComputedStyle(document.documentElement).fontFamily || "sans-serif";
  const font = `${weight} ${size}px ${family}`;
  const lines = wrapWords(text, width, font);
  const step = size * 1.12;
  const node = svg("svg", {
    class: `fitted ${opts.cls || ""}`.trim(),
    viewBox: `0 0 ${width} ${Math.max(1, lines.length) * step + size * 0.25}`,
    role: "img",
    "aria-label": opts.label || text,
  });
  lines.forEach((line, i) => {
    const attrs = {
      x: width / 2, y: (i + 1) * step - size * 0.12, "text-anchor": "middle",
      "font-size": size, "font-weight": weight,
    };
    if (textWidth(line, font) > width) Object.assign(attrs, { textLength: width, lengthAdjust: "spacingAndGlyphs" });
    const row = svg("text", attrs);
    row.textContent = line;
    node.append(row);
  });
  return node;
}
