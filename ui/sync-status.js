// Personal sync in the sidebar (DESIGN §15): one line saying where sync stands — the last sync,
// what waits to be sent, the last error in words, conflicts waiting in Review — and Sync now.
// Hidden until sync is set up (`ambry sync init REMOTE`).
// Deliberately does not: merge or decide anything (core does), or sync on a timer.
//
// data-testid:
//   sync-status     the section (data-state = ok | error | syncing)
//   sync-line       what the line says         sync-now    the button

import { call } from './api.js';
import { h, relativeTime, absoluteTime } from './dom.js';
import { toast, errorToast } from './dialog.js';

export function createSyncStatus(app) {
  const line = h('div', { class: 'sync-line', testid: 'sync-line', 'aria-live': 'polite' });
  const now = h('button', { class: 'btn btn-small', testid: 'sync-now', onClick: () => syncNow() }, 'Sync now');
  const el = h('div', { class: 'sync-status', testid: 'sync-status', hidden: true }, line, now);
  let busy = false;

  function say(status) {
    el.hidden = !status.initialized;
    if (!status.initialized) return;
    const parts = [];
    if (status.last_error) {
      el.dataset.state = 'error';
      parts.push(`Sync failed ${relativeTime(status.last_error.at)}: ${status.last_error.message}`);
    } else {
      el.dataset.state = 'ok';
      parts.push(status.last_sync ? `Synced ${relativeTime(status.last_sync)}` : 'Not synced yet');
    }
    if (status.unsent) parts.push(`${status.unsent} to send`);
    if (status.conflicts && status.conflicts.length) {
      parts.push(`${status.conflicts.length} changed on two machines (Review)`);
    }
    line.textContent = parts.join(' · ');
    line.title = status.last_sync ? `Last sync ${absoluteTime(status.last_sync)} with ${status.remote || 'the remote'}` : (status.remote || '');
  }

  async function refresh() {
    try {
      say(await call('sync_status'));
    } catch {
      el.hidden = true;
    }
  }

  // Busy, not disabled: a disabled button drops keyboard focus to the page.
  async function syncNow() {
    if (busy) return;
    busy = true;
    el.dataset.state = 'syncing';
    line.textContent = 'Syncing…';
    now.setAttribute('aria-busy', 'true');
    try {
      const report = await call('sync_now');
      const got = report.received.length;
      const sent = report.sent.length;
      const conflicts = report.conflicts.length;
      toast(`Synced: ${sent} sent, ${got} received${conflicts ? `, ${conflicts} changed on two machines — see Review` : ''}`, 'success', 4000);
    } catch (e) {
      errorToast('Sync failed', e);
    } finally {
      busy = false;
      now.removeAttribute('aria-busy');
      await refresh();
      // A conflict that kept this machine's version writes no file: Review is told directly.
      app.reviewChanged();
    }
  }

  return { el, refresh, syncNow };
}
