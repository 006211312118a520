// Small DOM helpers: elements from data (never from HTML strings, so no markup injection), toasts, confirm.

/**
 * Creates an element. `attrs`: `class`, `text`, `on<Event>` handlers, `data-*`, aria and plain attributes;
 * `hidden`/`disabled`/`checked`/`value` set as properties. Children: nodes, strings, arrays, null.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'text') el.textContent = value;
    else if (key.startsWith('on')) el.addEventListener(key.slice(2).toLowerCase(), value);
    else if (key === 'value' || key === 'checked' || key === 'hidden' || key === 'disabled') el[key] = value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

/**
 * A table in a scrolling wrapper. `heads`: column titles; `rows`: arrays of cells, each a string, a node, or
 * `{ code }` for monospace text; `attrs` go on the table.
 */
export function table(heads, rows, attrs = {}) {
  const cell = (c) => h('td', {},
    c !== null && typeof c === 'object' && 'code' in c ? h('code', { text: c.code ?? '' }) : c);
  return h('div', { class: 'table-wrap' }, h('table', attrs,
    h('thead', {}, h('tr', {}, heads.map((t) => h('th', { scope: 'col', text: t })))),
    h('tbody', {}, rows.map((r) => h('tr', {}, r.map(cell))))));
}

/** "3 files" / "1 file". */
export const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Replaces everything inside `el`. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** "3 min ago" for Unix seconds; "never" for null. */
export function ago(seconds) {
  if (seconds === null || seconds === undefined) return 'never';
  const diff = Math.max(0, Date.now() / 1000 - seconds);
  if (diff < 60) return 'just now';
  if (diff < 3600) return `${Math.floor(diff / 60)} min ago`;
  if (diff < 86400) return `${Math.floor(diff / 3600)} h ago`;
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}

/** A short message in the corner; errors are announced assertively. */
export function toast(message, kind = 'info') {
  const box = document.getElementById('toasts');
  const item = h('div', {
    class: `toast ${kind}`, role: kind === 'error' ? 'alert' : 'status', text: message,
  });
  box.append(item);
  // the newest three; a scan of all says one line
  while (box.children.length > 3) box.firstElementChild.remove();
  setTimeout(() => item.remove(), kind === 'error' ? 8000 : 4000);
}

let answer = null; // settles the confirmation on screen

/**
 * Asks for confirmation in a modal dialog; resolves true when confirmed. Answers come from the button
 * that submitted the form or from Escape, both synchronous: the dialog's `close` event is dispatched
 * later, and the previous confirmation's could arrive while the next one is open.
 */
export function confirmDialog(text, okLabel = 'Delete') {
  const dialog = document.getElementById('confirm-dialog');
  if (!dialog.dataset.wired) {
    dialog.dataset.wired = 'yes';
    dialog.querySelector('form').addEventListener('submit', (e) => answer?.(e.submitter?.value === 'ok'));
    dialog.addEventListener('cancel', () => answer?.(false));
  }
  answer?.(false);
  document.getElementById('confirm-text').textContent = text;
  document.getElementById('confirm-ok').textContent = okLabel;
  dialog.showModal();
  document.getElementById('confirm-cancel').focus();
  return new Promise((resolve) => {
    answer = (value) => {
      answer = null;
      resolve(value);
    };
  });
}

/** Splits "a, b ,c" into ['a', 'b', 'c'], without empties or duplicates. */
export function splitTags(text) {
  return [...new Set(text.split(',').map((t) => t.trim()).filter(Boolean))];
}
