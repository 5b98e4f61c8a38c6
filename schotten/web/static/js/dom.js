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
