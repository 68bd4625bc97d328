// The Rename action of a memory's detail view: asks for the new name and renames through core,
// which moves the memory's archived history, its [[links]] and retrieval cases with it.
// Deliberately does not: check names (core refuses invalid, reserved and taken ones).
//
// data-testid:  rename-input  the new name field inside the confirm dialog

import { call } from './api.js';
import { h } from './dom.js';
import { confirmDialog, toast, errorToast } from './dialog.js';

// Resolves to the new name, or null when the person cancelled or core refused.
export async function renameMemory(location, name) {
  const input = h('input', { class: 'input', type: 'text', value: name, testid: 'rename-input', 'aria-label': 'New name', spellcheck: 'false' });
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      const ok = /** @type {HTMLElement|null} */ (document.querySelector('[data-testid="confirm-ok"]'));
      if (ok) ok.click();
    }
  });
  const pending = confirmDialog({
    title: `Rename ${name}`,
    message: 'Its archived versions, the [[links]] to it in other memories and your retrieval tests follow the new name.',
    details: input,
    confirmLabel: 'Rename',
  });
  input.focus();
  input.select();
  if (!(await pending)) return null;
  const next = input.value.trim();
  if (!next || next === name) return null;
  try {
    const done = await call('rename_memory', { memory: { ...location, name }, new: next });
    const relinked = done.relinked.length;
    toast(`Renamed ${name} to ${next}` + (relinked ? ` and updated ${relinked} link${relinked === 1 ? '' : 's'}` : ''), 'success', 5000);
    return next;
  } catch (e) {
    errorToast(`Could not rename ${name}`, e);
    return null;
  }
}
