// The editor of one retrieval case (a prompt, the memories it must bring in, the ones it must
// not, and how high they must rank): any memory of the user scope or the project can be named,
// the ones this prompt ranks first. Used to keep a new case and to edit one; all by keyboard
// (Tab between fields, a choice per memory, Ctrl+S saves, Esc cancels).
// Deliberately does not: judge or write cases (core's tests.toml rules, through the shell).
//
// data-testid:
//   case-dialog      the dialog             case-prompt    the prompt
//   case-filter      finds memories by name or description
//   case-memory      one memory (data-name, data-choice = "" | expect | reject)
//   case-choice      its choice (data-choice), cycled by Enter/Space: no expectation, must be
//                    injected, must not be injected
//   case-within      optional: rank at most     case-save  Save    case-cancel  Cancel
//   case-error       why core refused it

import { call } from './api.js';
import { h, clear } from './dom.js';
import { trapFocus } from './dialog.js';

const CHOICES = [['', 'No expectation'], ['expect', 'Must be injected'], ['reject', 'Must not be injected']];
// Rows drawn at once before a filter narrows them (the chosen ones always show).
const SHOWN = 40;

// Every memory a case in this project can name: the user scope's and the project's (the
// project's copy shadowing a same-named user memory, as compose sees them).
async function memoriesFor(project) {
  const user = await call('list_memories', { location: { scope: 'user', project: null } });
  const mine = project ? await call('list_memories', { location: { scope: 'project', project } }) : [];
  const byName = new Map();
  for (const r of [...user, ...mine]) if (!r.error) byName.set(r.name, r);
  return [...byName.values()];
}

// Resolves with the saved result of `save(spec)`, or null when cancelled. `ranked`: the names
// this prompt ranks, best first (listed first).
export async function caseDialog({ title, project, prompt = '', expect = [], reject = [], within = null, ranked = [], save }) {
  let memories;
  try {
    memories = await memoriesFor(project);
  } catch {
    memories = [];
  }
  const rank = (name) => { const i = ranked.indexOf(name); return i === -1 ? Infinity : i; };
  memories.sort((a, b) => rank(a.name) - rank(b.name) || a.name.localeCompare(b.name));
  const choice = new Map();
  for (const n of expect) choice.set(n, 'expect');
  for (const n of reject) choice.set(n, 'reject');
  // A case may name a memory that is gone: it stays listed so it can be dropped.
  for (const n of choice.keys()) if (!memories.some((m) => m.name === n)) memories.push({ name: n, scope: '?', description: 'not found' });

  return new Promise((resolve) => {
    const previous = /** @type {HTMLElement|null} */ (document.activeElement);
    let release = () => {};
    const promptBox = h('textarea', { class: 'input case-prompt', testid: 'case-prompt', rows: '2', 'aria-label': 'Prompt', spellcheck: 'false' });
    promptBox.value = prompt;
    const filter = h('input', { class: 'input', type: 'search', testid: 'case-filter', placeholder: 'Find a memory by name or description', 'aria-label': 'Find a memory', spellcheck: 'false' });
    const rows = h('div', { class: 'case-memories', role: 'group', 'aria-label': 'What this prompt must and must not bring in' });
    const withinBox = h('input', { class: 'input case-within', type: 'number', min: '1', testid: 'case-within', 'aria-label': 'Must rank at most', placeholder: 'any' });
    if (within) withinBox.value = String(within);
    const error = h('div', { class: 'form-error', testid: 'case-error', role: 'alert', hidden: true });
    const saveButton = h('button', { class: 'btn btn-primary', testid: 'case-save', type: 'submit' }, 'Save test');
    const cancel = h('button', { class: 'btn', testid: 'case-cancel', type: 'button', onClick: () => close(null) }, 'Cancel');

    function renderRows() {
      const needle = filter.value.trim().toLowerCase();
      const fits = (m) => !needle || m.name.includes(needle) || (m.description || '').toLowerCase().includes(needle);
      const shown = memories.filter((m) => choice.get(m.name) || fits(m));
      const chosen = shown.filter((m) => choice.get(m.name));
      const others = shown.filter((m) => !choice.get(m.name) && fits(m));
      const list = [...chosen, ...others.slice(0, SHOWN)];
      clear(rows, list.map((m) => {
        // One button per memory: Enter or Space (or a click) moves it to the next choice.
        const select = h('button', { class: 'btn btn-small case-choice', type: 'button', testid: 'case-choice' });
        const paint = () => {
          const value = choice.get(m.name) || '';
          const label = CHOICES.find(([v]) => v === value)[1];
          select.textContent = label;
          select.setAttribute('aria-label', `${m.name}: ${label.toLowerCase()} (Enter changes it)`);
          select.dataset.choice = value;
          row.dataset.choice = value;
        };
        select.addEventListener('click', () => {
          const at = CHOICES.findIndex(([v]) => v === (choice.get(m.name) || ''));
          const next = CHOICES[(at + 1) % CHOICES.length][0];
          if (next) choice.set(m.name, next); else choice.delete(m.name);
          paint();
        });
        const row = h('div', { class: 'case-memory', testid: 'case-memory', dataset: { name: m.name, choice: choice.get(m.name) || '' } },
          h('div', { class: 'case-memory-text' },
            h('span', { class: 'mono' }, m.name), ' ',
            ranked.includes(m.name) ? h('span', { class: 'badge', title: 'This prompt ranks it' }, `#${ranked.indexOf(m.name) + 1}`) : null, ' ',
            h('span', { class: 'badge badge-scope' }, m.scope),
            h('div', { class: 'muted small' }, m.description || '')),
          select);
        paint();
        return row;
      }), others.length > SHOWN ? h('p', { class: 'muted small' }, `${others.length - SHOWN} more: type to find them.`) : null);
    }
    filter.addEventListener('input', renderRows);
    renderRows();

    const field = (label, input) => h('label', { class: 'field' }, h('span', { class: 'field-label' }, label), input);
    const form = h('form', { class: 'passage-form' },
      field('Prompt', promptBox),
      h('div', { class: 'field' }, h('span', { class: 'field-label' }, 'Memories'), filter, rows),
      field('Expected memories must rank at most (optional)', withinBox),
      error,
      h('div', { class: 'modal-actions' }, cancel, saveButton));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const spec = {
        prompt: promptBox.value.trim(),
        expect: [...choice].filter(([, c]) => c === 'expect').map(([n]) => n),
        reject: [...choice].filter(([, c]) => c === 'reject').map(([n]) => n),
        within: withinBox.value ? Number(withinBox.value) : null,
      };
      if (!spec.prompt || (!spec.expect.length && !spec.reject.length)) {
        error.hidden = false;
        error.textContent = !spec.prompt ? 'Type the prompt the case composes.' : 'Choose at least one memory this prompt must, or must not, bring in.';
        (spec.prompt ? filter : promptBox).focus();
        return;
      }
      saveButton.disabled = true;
      try {
        close(await save(spec));
      } catch (err) {
        error.hidden = false;
        error.dataset.code = err.code || '';
        error.textContent = err.message || String(err);
      } finally {
        saveButton.disabled = false;
      }
    });
    const onKey = (e) => {
      if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); close(null); }
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's') { e.preventDefault(); e.stopPropagation(); form.requestSubmit(); }
    };
    const dialog = h('div', { class: 'modal modal-wide', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'case-title', testid: 'case-dialog' },
      h('h2', { id: 'case-title', class: 'modal-title' }, title), form);
    const overlay = h('div', { class: 'modal-backdrop', onMousedown: (e) => { if (e.target === overlay) close(null); } }, dialog);
    function close(result) {
      release();
      overlay.remove();
      document.removeEventListener('keydown', onKey, true);
      if (previous && previous.isConnected && previous.focus) previous.focus();
      resolve(result);
    }
    document.body.append(overlay);
    document.addEventListener('keydown', onKey, true);
    release = trapFocus(dialog);
    (prompt ? filter : promptBox).focus();
  });
}
