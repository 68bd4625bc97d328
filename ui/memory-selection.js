// Several memories selected at once in the memory list (Ctrl/Cmd+click, Shift+click,
// Shift+↑/↓, Ctrl/Cmd+A) and what can be done to all of them: the detail pane's bulk panel with
// the count, and a delete that archives them all (all or none) with one Undo that restores all.
// Deliberately does not: draw the list or move its cursor (memories.js), or decide what a delete
// is (core's forget_many / restore_many).
//
// data-testid:
//   memory-bulk          the bulk panel        memory-selection-count  "N memories selected"
//   memory-bulk-name     one selected name     bulk-delete             Move N to the archive
//   bulk-clear           Clear selection (Esc)

import { call } from './api.js';
import { h } from './dom.js';
import { confirmDialog, toast, errorToast } from './dialog.js';

// The picked names, kept in the list's order. `order()` gives the visible memory names in order.
export function createSelection(order) {
  let picked = new Set();
  let anchor = null;
  const inOrder = () => order().filter((n) => picked.has(n));
  return {
    get size() { return picked.size; },
    has: (name) => picked.has(name),
    names: inOrder,
    clear() { picked = new Set(); anchor = null; },
    // Ctrl/Cmd+click: `current` (the memory shown) joins the selection the first time.
    toggle(name, current) {
      if (!picked.size && current && current !== name) picked.add(current);
      if (picked.has(name)) picked.delete(name); else picked.add(name);
      anchor = name;
    },
    // Shift+click or Shift+↑/↓: everything between the anchor (the first memory picked, else
    // the one shown) and `to`.
    extend(from, to) {
      const names = order();
      if (!anchor || !names.includes(anchor)) anchor = from || to;
      const a = names.indexOf(anchor);
      const b = names.indexOf(to);
      if (a === -1 || b === -1) return;
      picked = new Set(names.slice(Math.min(a, b), Math.max(a, b) + 1));
    },
    all() { picked = new Set(order()); anchor = order()[0] || null; },
    // Drops what the list no longer shows (a filter, a delete on disk).
    retain() {
      const shown = new Set(order());
      picked = new Set([...picked].filter((n) => shown.has(n)));
    },
  };
}

// The detail pane while several memories are selected.
export function bulkPanel(names, { onDelete, onClear }) {
  const count = names.length;
  return h('div', { class: 'bulk-panel', testid: 'memory-bulk' },
    h('h2', { class: 'detail-name', testid: 'memory-selection-count' }, `${count} memories selected`),
    h('p', { class: 'muted' }, 'Shift or Ctrl click (or Shift+↑/↓, Ctrl+A) changes the selection; Esc clears it.'),
    h('div', { class: 'detail-actions' },
      h('button', { class: 'btn btn-ghost-danger', testid: 'bulk-delete', onClick: onDelete }, `Move ${count} to the archive`),
      h('button', { class: 'btn', testid: 'bulk-clear', onClick: onClear }, 'Clear selection')),
    h('ul', { class: 'bulk-names' }, names.map((n) => h('li', { class: 'mono', testid: 'memory-bulk-name' }, n))));
}

// Asks, archives all of `names` (or none), and offers one Undo for all of them. Resolves with
// the names archived, or null when nothing was.
export async function deleteMany(location, names, { onUndone }) {
  const ok = await confirmDialog({
    title: `Delete ${names.length} memories?`,
    message: 'They move to the archive, so one Undo (or the Archive view) brings them back. Agents stop seeing them right away.',
    confirmLabel: `Move ${names.length} to the archive`, danger: true,
  });
  if (!ok) return null;
  let forgotten;
  try {
    forgotten = await call('forget_memories', { location, names });
  } catch (e) {
    errorToast('Could not delete them (none was deleted)', e);
    return null;
  }
  const versions = forgotten.map((f) => ({ name: f.name, version: f.version }));
  const where = { ...location };
  toast(`${versions.length} memories moved to the archive`, 'success', 10000, {
    action: {
      label: 'Undo',
      run: async () => {
        try {
          await call('restore_memories', { location: where, versions });
          toast(`Restored ${versions.length} memories`, 'success', 3000);
          onUndone(where, versions.map((v) => v.name));
        } catch (e) {
          errorToast('Could not restore all of them', e);
          onUndone(where, []);
        }
      },
    },
  });
  return versions.map((v) => v.name);
}
