// Building DOM without innerHTML: text always goes through textContent. The only HTML the UI
// inserts is what core rendered and sanitized (see `setSafeHtml`).

export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'testid') el.dataset.testid = value;
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key.startsWith('on')) el.addEventListener(key.slice(2).toLowerCase(), value);
    else if (key === 'value') el.value = value;
    else if (key === 'text') el.textContent = value;
    else if (value === true) el.setAttribute(key, '');
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function clear(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

// HTML produced by core's markdown renderer (pulldown-cmark + ammonia): no script, no remote
// loads. Links never navigate the window: a web or mail link carries its target as
// data-external-href, and main.js asks before handing it to the browser.
export function setSafeHtml(el, html) {
  el.innerHTML = html;
  for (const a of el.querySelectorAll('a')) {
    a.addEventListener('click', (e) => e.preventDefault());
    if (a.dataset.externalHref) {
      a.tabIndex = 0;
      a.setAttribute('role', 'link');
      a.title = a.dataset.externalHref;
    }
  }
  return el;
}

export function icon(name) {
  const span = h('span', { class: `icon icon-${name}`, 'aria-hidden': 'true' });
  return span;
}

export function relativeTime(iso) {
  if (!iso) return '';
  const then = new Date(iso);
  const seconds = Math.round((Date.now() - then.getTime()) / 1000);
  if (seconds < 45) return 'just now';
  /** @type {Array<[number, string]>} */
  const units = [[60, 'minute'], [3600, 'hour'], [86400, 'day'], [2592000, 'month'], [31536000, 'year']];
  let label = `${Math.round(seconds / 60)} min ago`;
  for (let i = units.length - 1; i >= 0; i--) {
    const [size, unit] = units[i];
    if (seconds >= size) {
      const n = Math.floor(seconds / size);
      label = unit === 'minute' ? `${n} min ago` : `${n} ${unit}${n === 1 ? '' : 's'} ago`;
      break;
    }
  }
  return label;
}

export function absoluteTime(iso) {
  if (!iso) return '';
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function formatBytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function debounce(fn, ms) {
  let timer = null;
  const debounced = (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
  debounced.cancel = () => clearTimeout(timer);
  return debounced;
}

// Focus moved by the app after a key (Ctrl+S saved and the form went away): WebKit does not
// always count a script's focus() as keyboard focus, so the ring is drawn by a class until the
// element loses focus.
export function focusShown(el) {
  el.classList.add('focus-shown');
  el.addEventListener('blur', () => el.classList.remove('focus-shown'), { once: true });
  el.focus();
}
