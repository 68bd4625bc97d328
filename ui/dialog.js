// In-window confirmation dialogs and toasts (drivable by keyboard and by the E2E tests).
//
// data-testid:
//   confirm-dialog      the modal        confirm-message   its text
//   confirm-ok          confirm button   confirm-cancel    cancel button
//   toast               a notification (data-kind = info | success | error)

import { h } from './dom.js';

export function confirmDialog({ title, message, details = null, confirmLabel = 'Confirm', danger = false }) {
  return new Promise((resolve) => {
    const previous = document.activeElement;
    const close = (answer) => {
      overlay.remove();
      document.removeEventListener('keydown', onKey, true);
      if (previous && previous.focus) previous.focus();
      resolve(answer);
    };
    const onKey = (e) => {
      if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); close(false); }
    };
    const ok = h('button', { class: danger ? 'btn btn-danger' : 'btn btn-primary', testid: 'confirm-ok', onClick: () => close(true) }, confirmLabel);
    const cancel = h('button', { class: 'btn', testid: 'confirm-cancel', onClick: () => close(false) }, 'Cancel');
    const overlay = h('div', { class: 'modal-backdrop', onMousedown: (e) => { if (e.target === overlay) close(false); } },
      h('div', { class: 'modal', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'confirm-title', testid: 'confirm-dialog' },
        h('h2', { id: 'confirm-title', class: 'modal-title' }, title),
        h('p', { class: 'modal-message', testid: 'confirm-message' }, message),
        details,
        h('div', { class: 'modal-actions' }, cancel, ok)));
    document.body.append(overlay);
    document.addEventListener('keydown', onKey, true);
    (danger ? cancel : ok).focus();
  });
}

let toastHost = null;

export function toast(message, kind = 'info', timeout = 4500) {
  if (!toastHost) {
    toastHost = h('div', { class: 'toasts', role: 'status', 'aria-live': 'polite' });
    document.body.append(toastHost);
  }
  const el = h('div', { class: `toast toast-${kind}`, testid: 'toast', dataset: { kind } }, message);
  toastHost.append(el);
  setTimeout(() => el.classList.add('leaving'), timeout);
  setTimeout(() => el.remove(), timeout + 300);
  return el;
}
