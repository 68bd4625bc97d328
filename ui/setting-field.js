// One config.toml key as a form control: its label, what it does, its default, and a value
// that is written back (comments and order kept) as soon as it is changed. A refused value
// stays in the field with the reason under it; nothing in the file changes.
//
// data-testid:
//   setting           one key (data-key = section.key, data-saved = true once written)
//   setting-input     its control (input, select, textarea; for sources: setting-source checkboxes)
//   setting-error     why a value was refused     setting-reset   back to the default
//   setting-default   the default, in words
// A number field is as wide as the longest of its value, default and bounds (never clipped);
// `row.showFromDisk(setting)` shows a value config.toml now has, unless the person is typing in it.

import { call } from './api.js';
import { h } from './dom.js';

function show(value) {
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  if (value === '') return '(empty)';
  if (Array.isArray(value)) return value.length ? value.map((v) => (Array.isArray(v) ? v.join(', ') : v)).join('; ') : '(none)';
  return String(value);
}

const SOURCES = [['claude', 'Claude Code'], ['codex', 'Codex'], ['ambry', 'Ambry']];

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// The widest of `values` in characters, as a CSS variable the number field's width uses.
function fitDigits(control, values) {
  const digits = Math.max(4, ...values.filter((v) => v !== null && v !== undefined).map((v) => String(v).length));
  control.style.setProperty('--digits', String(digits));
}

// `setting` is one entry of get_settings().settings; `onSaved(all)` gets every setting after a
// write. `compact`: label and control only (where the value is used, e.g. the Archive).
export function settingField(setting, { onSaved = (_all) => {}, compact = false } = {}) {
  const key = `${setting.section}.${setting.key}`;
  const id = `setting-${setting.section}-${setting.key}`;
  const error = h('p', { class: 'setting-error', testid: 'setting-error', id: `${id}-error`, role: 'alert', hidden: true });
  const status = h('span', { class: 'setting-status muted', 'aria-live': 'polite' });
  const kind = setting.kind;
  let control;
  let read;

  if (kind.type === 'toggle') {
    control = h('input', { type: 'checkbox', id, testid: 'setting-input' });
    control.checked = !!setting.value;
    read = () => control.checked;
  } else if (kind.type === 'choice') {
    control = h('select', { id, testid: 'setting-input' }, kind.options.map(([v, words]) => h('option', { value: v }, words)));
    control.value = setting.value;
    read = () => control.value;
  } else if (kind.type === 'number') {
    control = h('input', {
      type: 'number', id, testid: 'setting-input', inputmode: kind.integer ? 'numeric' : 'decimal',
      min: String(kind.min), step: kind.integer ? '1' : '0.05', class: 'setting-number',
    });
    if (kind.max != null) control.max = String(kind.max);
    control.value = String(setting.value);
    read = () => control.value;
    fitDigits(control, [setting.default, kind.max, setting.value]);
    control.addEventListener('input', () => fitDigits(control, [setting.default, kind.max, control.value]));
  } else if (kind.type === 'sources') {
    const boxes = SOURCES.map(([v, words]) => {
      const box = h('input', { type: 'checkbox', value: v, testid: 'setting-source' });
      box.checked = setting.value.includes(v);
      return h('label', { class: 'toggle' }, box, h('span', {}, words));
    });
    control = h('div', { class: 'setting-sources', id, testid: 'setting-input', role: 'group', 'aria-label': setting.label }, boxes);
    read = () => [...control.querySelectorAll('input:checked')].map((b) => b.value);
  } else if (kind.type === 'word_groups') {
    control = h('textarea', { id, testid: 'setting-input', rows: '3', class: 'mono', placeholder: 'gql, graphql' });
    control.value = setting.value.map((g) => g.join(', ')).join('\n');
    read = () => control.value.split('\n').map((line) => line.split(',').map((w) => w.trim()).filter(Boolean)).filter((g) => g.length);
  } else {
    control = h('input', { type: 'text', id, testid: 'setting-input', class: 'mono', placeholder: kind.placeholder || '', spellcheck: 'false' });
    control.value = setting.value;
    read = () => control.value;
  }
  control.setAttribute('aria-describedby', `${id}-desc ${id}-error`);

  const reset = h('button', { class: 'btn btn-small btn-link', testid: 'setting-reset', onClick: () => save(null) }, 'Use default');
  reset.hidden = same(setting.value, setting.default);

  const row = h('div', { class: `setting${compact ? ' setting-compact' : ''}`, testid: 'setting', dataset: { key } },
    h('label', { class: 'setting-label', for: id }, setting.label),
    h('div', { class: 'setting-control' }, control, status, reset),
    compact ? null : h('p', { class: 'setting-desc muted', id: `${id}-desc` }, setting.description, ' ',
      h('span', { class: 'setting-default', testid: 'setting-default' }, `Default: ${show(setting.default)}.`)),
    error);

  async function save(value) {
    error.hidden = true;
    control.removeAttribute('aria-invalid');
    status.textContent = 'Saving…';
    try {
      const all = await call('set_setting', { section: setting.section, key: setting.key, value });
      const now = all.find((s) => s.section === setting.section && s.key === setting.key);
      if (now) {
        setting.value = now.value;
        reset.hidden = same(now.value, now.default);
        if (value === null) setValue(now.value);
      }
      status.textContent = 'Saved';
      row.dataset.saved = 'true';
      onSaved(all);
    } catch (e) {
      status.textContent = '';
      error.textContent = e && e.message ? e.message : String(e);
      error.hidden = false;
      control.setAttribute('aria-invalid', 'true');
    }
  }

  // A change on disk (by hand, by the CLI): the field shows it, unless the person is typing a
  // value of their own into it (written when they leave it).
  row.showFromDisk = (now) => {
    const typing = row.contains(document.activeElement) && !same(read(), setting.value) && String(read()) !== String(setting.value);
    if (!now || typing) return;
    setting.value = now.value;
    if (!same(read(), now.value)) setValue(now.value);
    reset.hidden = same(now.value, now.default);
  };

  function setValue(v) {
    if (kind.type === 'toggle') control.checked = !!v;
    else if (kind.type === 'sources') control.querySelectorAll('input').forEach((b) => { b.checked = v.includes(b.value); });
    else if (kind.type === 'word_groups') control.value = v.map((g) => g.join(', ')).join('\n');
    else control.value = String(v);
    if (kind.type === 'number') fitDigits(control, [setting.default, kind.max, control.value]);
  }

  // Numbers and text are written when left or confirmed with Enter; the rest on each change.
  control.addEventListener('change', () => save(read()));
  if (kind.type === 'number' || kind.type === 'text') {
    control.addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); control.blur(); control.focus(); } });
  }
  return row;
}
