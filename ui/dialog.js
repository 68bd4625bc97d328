// In-window confirmation dialogs, the focus trap every overlay uses, and toasts (drivable by
// keyboard and by the E2E tests). Deliberately does not: decide what a message says about an
// error (callers pass human text; the raw error goes in `details`).
//
// data-testid:
//   confirm-dialog      the modal        confirm-message   its text
//   confirm-ok          confirm button   confirm-cancel    cancel button
//   toasts              the toast area, over the window: bottom right, or where it hides fewer
//                       controls and never the focused one (data-place = bottom | top | bottom-left)
//   toast               a notification (data-kind = info | success | error)
//   toast-dismiss       its × button     toast-action      its action (e.g. Undo)
//   toast-details       "Details" toggle toast-details-text  the raw text it reveals

import { h } from './dom.js';

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

function focusables(container) {
  return [...container.querySelectorAll(FOCUSABLE)].filter((el) => !el.closest('[hidden]') && el.getClientRects().length > 0);
}

// Keeps Tab and Shift+Tab inside `container` while it is open, and brings focus back into it if
// something (a click on the backdrop, a script) moved it out. Returns the function that releases it.
export function trapFocus(container) {
  const onKey = (e) => {
    if (e.key !== 'Tab') return;
    const items = focusables(container);
    if (!items.length) { e.preventDefault(); return; }
    const first = items[0];
    const last = items[items.length - 1];
    const inside = container.contains(document.activeElement);
    if (e.shiftKey && (document.activeElement === first || !inside)) { e.preventDefault(); last.focus(); }
    else if (!e.shiftKey && (document.activeElement === last || !inside)) { e.preventDefault(); first.focus(); }
  };
  const onFocusIn = (e) => {
    if (!container.contains(e.target)) {
      const items = focusables(container);
      if (items.length) items[0].focus();
    }
  };
  document.addEventListener('keydown', onKey, true);
  document.addEventListener('focusin', onFocusIn, true);
  return () => {
    document.removeEventListener('keydown', onKey, true);
    document.removeEventListener('focusin', onFocusIn, true);
  };
}

export function confirmDialog({ title, message, details = null, confirmLabel = 'Confirm', danger = false }) {
  return new Promise((resolve) => {
    const previous = /** @type {HTMLElement|null} */ (document.activeElement);
    let release = () => {};
    const close = (answer) => {
      release();
      overlay.remove();
      document.removeEventListener('keydown', onKey, true);
      if (previous && previous.isConnected && previous.focus) previous.focus();
      resolve(answer);
    };
    const onKey = (e) => {
      if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); close(false); }
    };
    const ok = h('button', { class: danger ? 'btn btn-danger' : 'btn btn-primary', testid: 'confirm-ok', onClick: () => close(true) }, confirmLabel);
    const cancel = h('button', { class: 'btn', testid: 'confirm-cancel', onClick: () => close(false) }, 'Cancel');
    const dialog = h('div', { class: 'modal', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'confirm-title', 'aria-describedby': 'confirm-message', testid: 'confirm-dialog' },
      h('h2', { id: 'confirm-title', class: 'modal-title' }, title),
      h('p', { class: 'modal-message', id: 'confirm-message', testid: 'confirm-message' }, message),
      details,
      h('div', { class: 'modal-actions' }, cancel, ok));
    const overlay = h('div', { class: 'modal-backdrop', onMousedown: (e) => { if (e.target === overlay) close(false); } }, dialog);
    document.body.append(overlay);
    document.addEventListener('keydown', onKey, true);
    (danger ? cancel : ok).focus();
    release = trapFocus(dialog);
  });
}

// Overlays that are not dialogs (the search palette), while they are shown.
const shownOverlays = new Set();

/** An overlay inside the window (the search palette) says when it shows and hides, so the
 * scrolling boxes under it hide their scrollbars as under a dialog.
 * @param {HTMLElement} overlay
 * @param {boolean} shown */
export function overlayShown(overlay, shown) {
  if (shown) shownOverlays.add(overlay); else shownOverlays.delete(overlay);
  hideScrollbarsUnderDialogs();
}

// While a dialog or an overlay is open, the scrolling boxes of the window under it show no
// scrollbar: WebKitGTK draws overlay scrollbars after the rest of the page, so one would lie
// over the dialog (styles.css: [data-under-modal]). The overlay's own boxes keep scrolling.
function hideScrollbarsUnderDialogs() {
  const open = shownOverlays.size > 0 || !!document.querySelector('body > .modal-backdrop');
  const app = document.getElementById('app');
  if (!app) return;
  if (!open) {
    for (const e of app.querySelectorAll('[data-under-modal]')) delete /** @type {HTMLElement} */ (e).dataset.underModal;
    return;
  }
  for (const e of app.querySelectorAll('*')) {
    const el = /** @type {HTMLElement} */ (e);
    if ([...shownOverlays].some((o) => o.contains(el))) continue;
    if (el.scrollHeight <= el.clientHeight && el.scrollWidth <= el.clientWidth) continue;
    const s = getComputedStyle(el);
    if (/(auto|scroll)/.test(s.overflowY + s.overflowX)) el.dataset.underModal = 'true';
  }
}
new MutationObserver(hideScrollbarsUnderDialogs).observe(document.body, { childList: true });

// At most this many toasts at once: an older one makes room for a newer one.
const MAX_TOASTS = 2;
// Below this window height, one at a time.
const SHORT_WINDOW = 600;
// The space between the window's edge and the toasts (styles.css: .toasts).
const TOAST_MARGIN = 8;
const TOAST_RIGHT = 16;
let toastHost = null;

// Where the toasts may lie over the window, in order of preference (styles.css: .toasts[data-place]).
const TOAST_PLACES = ['bottom', 'top', 'bottom-left'];
const CONTROLS = 'input, select, textarea, button, a[href], summary, [tabindex]:not([tabindex="-1"])';

// The rectangle the toasts take at `place`.
function toastRect(place) {
  const width = toastHost.offsetWidth;
  const height = toastHost.offsetHeight;
  const left = place === 'bottom-left' ? TOAST_RIGHT : window.innerWidth - TOAST_RIGHT - width;
  const top = place === 'top' ? TOAST_MARGIN : window.innerHeight - TOAST_MARGIN - height;
  return { left, top, right: left + width, bottom: top + height };
}

const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

// Notifications lie over the window and never move it. Of their places, they take the one that
// hides the fewest controls, and never the one over the control that has focus (a field being
// written in, the button about to be pressed).
function placeToasts() {
  if (!toastHost || !toastHost.children.length) return;
  const focused = document.activeElement;
  // Focus on a toast's own button (Undo): they stay where the person found them.
  if (focused && toastHost.contains(focused)) return;
  const controls = [...document.querySelectorAll(CONTROLS)]
    .filter((e) => !toastHost.contains(e) && e.getClientRects().length)
    .map((e) => ({ e, r: e.getBoundingClientRect() }))
    .filter(({ r }) => r.width && r.height);
  const cost = (place) => {
    const t = toastRect(place);
    let n = 0;
    for (const { e, r } of controls) {
      if (!overlaps(t, r)) continue;
      n += e === focused || e.contains(focused) ? 1000 : 1;
    }
    return n;
  };
  let best = TOAST_PLACES[0];
  let least = cost(best);
  for (const place of TOAST_PLACES.slice(1)) {
    if (least === 0) break;
    const c = cost(place);
    if (c < least) { best = place; least = c; }
  }
  toastHost.dataset.place = best;
}

// `message` is what a person reads; `details` (e.g. the raw error) stays folded until asked
// for; `action` is `{ label, run }` (e.g. Undo) and dismisses the toast when taken.
export function toast(message, kind = 'info', timeout = 4500, { details = null, action = null } = {}) {
  if (!toastHost) {
    toastHost = h('div', { class: 'toasts', testid: 'toasts', role: 'status', 'aria-live': 'polite', dataset: { place: 'bottom' } });
    document.body.append(toastHost);
    new ResizeObserver(placeToasts).observe(toastHost);
    new MutationObserver(placeToasts).observe(toastHost, { childList: true });
    document.addEventListener('focusin', placeToasts);
    window.addEventListener('resize', placeToasts);
  }
  let timer = null;
  const dismiss = () => {
    clearTimeout(timer);
    el.classList.add('leaving');
    setTimeout(() => el.remove(), 250);
  };
  const detailText = details ? h('pre', { class: 'toast-details', testid: 'toast-details-text', hidden: true }, details) : null;
  const el = h('div', { class: `toast toast-${kind}`, testid: 'toast', dataset: { kind } },
    h('div', { class: 'toast-row' },
      h('span', { class: 'toast-message' }, message),
      action ? h('button', { class: 'btn btn-small', testid: 'toast-action', onClick: () => { dismiss(); action.run(); } }, action.label) : null,
      details ? h('button', {
        class: 'btn btn-small btn-link', testid: 'toast-details', 'aria-expanded': 'false',
        onClick: (e) => {
          detailText.hidden = !detailText.hidden;
          e.currentTarget.setAttribute('aria-expanded', detailText.hidden ? 'false' : 'true');
          // Someone reading the details keeps the toast until they dismiss it.
          clearTimeout(timer);
        },
      }, 'Details') : null,
      h('button', { class: 'toast-dismiss', testid: 'toast-dismiss', 'aria-label': 'Dismiss notification', title: 'Dismiss', onClick: dismiss }, '×')),
    detailText);
  // A newer toast replaces the oldest at once, and a short window keeps one: they lie over it.
  const most = window.innerHeight < SHORT_WINDOW ? 1 : MAX_TOASTS;
  for (const gone of toastHost.querySelectorAll('.toast.leaving')) gone.remove();
  toastHost.append(el);
  const live = [...toastHost.children];
  for (const old of live.slice(0, Math.max(0, live.length - most))) old.remove();
  placeToasts();
  // Hovering or focusing a toast keeps it (a person about to click Undo must not lose it).
  const arm = () => { clearTimeout(timer); timer = setTimeout(dismiss, timeout); };
  el.addEventListener('mouseenter', () => clearTimeout(timer));
  el.addEventListener('mouseleave', arm);
  el.addEventListener('focusin', () => clearTimeout(timer));
  arm();
  return el;
}

// A failed operation as a person reads it: what failed in words, the shell's message as the
// details (it names paths and exit statuses a person may want, but should not have to parse).
// `hints` overrides the words for some codes (a folder that will not open is no editor's fault).
export function errorToast(what, error, hints = {}) {
  const message = error && error.message ? error.message : String(error);
  const code = error && error.code;
  const friendly = code in hints ? hints[code] : HUMAN_ERRORS[code];
  return toast(friendly ? `${what}: ${friendly}` : `${what}.`, 'error', 8000, { details: message });
}

// Starting an editor: a terminal editor with no terminal to run in is said in full (which
// editor, what was looked for, what to install); one that did not start points at where the
// editor is chosen, with what it said under Details.
export function editorErrorToast(what, error) {
  const message = error && error.message ? error.message : String(error);
  if (error && error.code === 'editor_needs_terminal') return toast(`${what}: ${message}`, 'error', 15000);
  return errorToast(what, error, {
    launch_failed: 'it did not start (Details say why). Choose the editor in Settings, or set $VISUAL.',
    no_default_application: 'no editor is set up and no application here opens it. Choose your editor in Settings → Editor command.',
  });
}

const HUMAN_ERRORS = {
  launch_failed: 'no program could open it.',
  not_found: 'it no longer exists on disk.',
  no_shell: 'the Ambry shell is not available.',
};
