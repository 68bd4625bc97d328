// The memory type field: a text box with a list of the types to pick from (the conventional four
// of DESIGN §3, then the types already used here), filtered by what is typed and driven from the
// keyboard like any combobox. A new type can still be typed: DESIGN §3 makes a type a free
// label, and the store normalizes and validates it on save.
// Deliberately does not: validate or normalize the type (core does, the form shows its refusal).
//
// data-testid:
//   form-type            the text box (role combobox)
//   type-options         the list of types (role listbox)
//   type-option          one type (data-type, data-active="true" when highlighted)

import { h, clear } from './dom.js';

const CONVENTIONAL = {
  user: 'about you: role, preferences, how you work',
  feedback: 'corrections and confirmations of how to work',
  project: 'about the work: decisions, people, deadlines',
  reference: 'where to find things outside the repository',
};

let pickers = 0;

// `value`: the type now; `known`: every type to offer, conventional first.
export function typePicker(value, known) {
  const listId = `type-options-${++pickers}`;
  const input = h('input', {
    class: 'input', testid: 'form-type', value, spellcheck: 'false', autocomplete: 'off',
    role: 'combobox', 'aria-label': 'Type', 'aria-autocomplete': 'list', 'aria-expanded': 'false', 'aria-controls': listId,
  });
  const list = h('ul', { class: 'type-options', id: listId, role: 'listbox', 'aria-label': 'Types', testid: 'type-options', hidden: true });
  let shown = [];
  let active = -1;

  function matching() {
    const needle = input.value.trim().toLowerCase();
    // The whole list when the box holds a type already (a person opening it wants to change it).
    if (!needle || known.includes(needle)) return known;
    return known.filter((t) => t.includes(needle));
  }

  function paint() {
    clear(list, shown.map((t, i) => h('li', {
      class: `type-option${i === active ? ' active' : ''}`, role: 'option', id: `${listId}-${i}`,
      'aria-selected': i === active ? 'true' : 'false', testid: 'type-option', dataset: { type: t, active: String(i === active) },
      // Before the box loses focus: a click picks and keeps the typing where it was.
      onMousedown: (e) => { e.preventDefault(); pick(t); },
    }, h('span', { class: 'type-option-name' }, t),
    CONVENTIONAL[t] ? h('span', { class: 'type-option-hint' }, CONVENTIONAL[t]) : null)));
    if (active >= 0) {
      input.setAttribute('aria-activedescendant', `${listId}-${active}`);
      list.children[active].scrollIntoView({ block: 'nearest' });
    } else input.removeAttribute('aria-activedescendant');
  }

  function open() {
    shown = matching();
    if (!shown.length) { close(); return; }
    active = Math.max(0, shown.indexOf(input.value.trim().toLowerCase()));
    list.hidden = false;
    input.setAttribute('aria-expanded', 'true');
    paint();
  }

  function close() {
    list.hidden = true;
    active = -1;
    input.setAttribute('aria-expanded', 'false');
    input.removeAttribute('aria-activedescendant');
  }

  function pick(type) {
    input.value = type;
    input.dispatchEvent(new Event('input', { bubbles: true }));
    close();
  }

  input.addEventListener('input', (e) => {
    if (!e.isTrusted) return;
    shown = matching();
    active = shown.length ? 0 : -1;
    if (!shown.length) { close(); return; }
    list.hidden = false;
    input.setAttribute('aria-expanded', 'true');
    paint();
  });
  input.addEventListener('keydown', (e) => {
    const isOpen = !list.hidden;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      if (!isOpen) { open(); return; }
      active = (active + (e.key === 'ArrowDown' ? 1 : -1) + shown.length) % shown.length;
      paint();
    } else if (e.key === 'Enter' && isOpen && active >= 0) {
      // Picks the type; Enter never submits the form from an open list.
      e.preventDefault();
      pick(shown[active]);
    } else if (e.key === 'Escape' && isOpen) {
      // Closes the list only; a second Esc cancels the form as usual.
      e.preventDefault();
      e.stopPropagation();
      close();
    } else if (e.key === 'Tab') close();
  });
  input.addEventListener('blur', close);
  input.addEventListener('click', () => (list.hidden ? open() : close()));

  return { input, el: h('div', { class: 'type-picker' }, input, list) };
}
