// dom.js: building DOM nodes without innerHTML (API data is never parsed as markup) and
// without style attributes (the CSP forbids them; classes carry every look).

// h('td', {class: 'num', 'aria-label': 'x'}, child, ...): an element. Attributes named on*
// take a function (an event listener); children are nodes, strings or arrays; null is skipped.
export function h(tag, attrs = {}, ...children) {
  const el = tag.startsWith('svg:')
    ? document.createElementNS('http://www.w3.org/2000/svg', tag.slice(4))
    : document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (name === 'dataset') Object.assign(el.dataset, value);
    else el.setAttribute(name, value === true ? '' : String(value));
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

// Replaces everything in `el` with `children`.
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

export function errorBox(message) {
  return h('div', { class: 'error-box', role: 'alert' }, message);
}

// A table with a header row; `columns` are [label, className?] pairs.
export function table(caption, columns, rows) {
  return h('div', { class: 'table-wrap' },
    h('table', {},
      caption ? h('caption', { class: 'muted' }, caption) : null,
      h('thead', {}, h('tr', {}, columns.map(([label, cls]) => h('th', { class: cls || null, scope: 'col' }, label)))),
      h('tbody', {}, rows)));
}

// <dl> of [term, value] pairs; values may be nodes.
export function kv(pairs) {
  return h('dl', { class: 'kv' }, pairs.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v ?? '—')]));
}
