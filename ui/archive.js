// Archive: every prior version per memory (kept on each overwrite and delete), a diff against
// the current file, restore, prune by the configured policy with an exact preview, and the
// doctor's secret finding: each file holding what looks like a secret, with a purge (after a
// confirmation naming exactly the file that goes) for each archived copy.
//
// data-testid:
//   archive-view          the view                 archive-location    scope/project picker
//   archive-filter        filter by memory name    archive-list        versions grouped by memory
//   archive-memory        a memory group (data-name, data-deleted)
//   archive-version       a version row (data-name, data-version, data-selected)
//   archive-empty         no versions              archive-diff        the diff pane
//   archive-diff-line     a diff line (data-kind = equal | insert | delete)
//   archive-diff-summary  "+N −M against the current file"
//   archive-restore       restore the selected version
//   archive-prune         "Prune…" (opens the preview)  prune-preview  list of what goes (in the dialog)
//   archive-leaks         the secret finding (hidden when there is none)
//   archive-leak          one file holding a secret (data-name, data-version; data-current="true" for a memory itself)
//   archive-leak-purge    "Purge…" for one leaked archived copy   archive-purge  the same, in the diff pane
//   purge-preview         what a purge removes and what stays (in the dialog)
//   archive-policy        the prune policy by its values, each editable in place (setting-field.js)

import { call, sameLocation } from './api.js';
import { h, clear, absoluteTime, relativeTime, formatBytes, debounce } from './dom.js';
import { confirmDialog, toast, errorToast } from './dialog.js';
import { settingField } from './setting-field.js';

export function createArchiveView(app) {
  /** @type {import('./ipc').Location} */
  let location = { scope: 'user', project: null };
  let versions = [];
  let selected = null; // { name, version }
  let leaks = []; // the doctor's secret finding for this scope (files and archived versions)

  const picker = h('select', { class: 'select', testid: 'archive-location', 'aria-label': 'Whose archive' });
  const filter = h('input', { class: 'input filter', type: 'search', testid: 'archive-filter', placeholder: 'Filter by memory name', 'aria-label': 'Filter archived memories' });
  const prune = h('button', { class: 'btn', testid: 'archive-prune', onClick: () => startPrune() }, 'Prune…');
  const listEl = h('div', { class: 'archive-list', testid: 'archive-list', tabindex: '0', role: 'listbox', 'aria-label': 'Archived versions' });
  const diffPane = h('div', { class: 'detail-pane archive-diff', testid: 'archive-diff' });
  const subtitle = h('span', { class: 'subtitle' });
  const leakBanner = h('div', { class: 'banner leak-banner', testid: 'archive-leaks', role: 'alert', hidden: true });
  // The prune policy as numbers a person can change right here (written to config.toml).
  const policyBar = h('div', { class: 'archive-policy', testid: 'archive-policy' });
  let policy = null; // { keep_versions, max_age_days }

  const el = h('section', { class: 'view archive-view', testid: 'archive-view' },
    h('header', { class: 'view-header' },
      h('div', { class: 'view-titles' }, h('h1', {}, 'Archive'), subtitle),
      h('div', { class: 'view-actions' }, picker, prune)),
    policyBar,
    leakBanner,
    h('div', { class: 'split' },
      h('div', { class: 'list-pane' }, h('div', { class: 'list-tools' }, filter), listEl),
      diffPane));

  picker.addEventListener('change', () => {
    const v = picker.value;
    location = v ? { scope: 'project', project: v } : { scope: 'user', project: null };
    selected = null;
    load();
  });
  filter.addEventListener('input', debounce(() => renderList(), 60));
  listEl.addEventListener('keydown', (e) => {
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    e.preventDefault();
    const flat = inDisplayOrder(visible());
    if (!flat.length) return;
    let i = flat.findIndex((v) => selected && v.name === selected.name && v.version === selected.version);
    i = i === -1 ? 0 : Math.min(flat.length - 1, Math.max(0, i + (e.key === 'ArrowDown' ? 1 : -1)));
    choose(flat[i]);
  });

  function fillLocations() {
    const current = location.scope === 'project' ? location.project : '';
    clear(picker, h('option', { value: '' }, 'User memories'), app.projects.map((p) => h('option', { value: p.slug }, p.name)));
    picker.value = app.projects.some((p) => p.slug === current) ? current : '';
    if (!picker.value) location = { scope: 'user', project: null };
  }

  // The rows as the list shows them (grouped by name, each group newest first), which is the
  // order ↑/↓ must follow.
  function inDisplayOrder(shown) {
    const groups = new Map();
    for (const v of shown) {
      if (!groups.has(v.name)) groups.set(v.name, []);
      groups.get(v.name).push(v);
    }
    return [...groups.entries()].sort((a, b) => a[0].localeCompare(b[0])).flatMap(([, vs]) => vs);
  }

  function visible() {
    const needle = filter.value.trim().toLowerCase();
    return needle ? versions.filter((v) => v.name.includes(needle)) : versions;
  }

  function policyWords() {
    if (!policy) return 'the archive policy';
    const age = policy.max_age_days === 0 ? 'no age limit' : `versions older than ${policy.max_age_days} days go`;
    return `keep the newest ${policy.keep_versions} per memory, ${age}`;
  }

  async function loadPolicy() {
    let settings;
    try {
      settings = await call('list_settings');
    } catch {
      settings = [];
    }
    const wanted = settings.filter((s) => s.section === 'archive');
    policy = Object.fromEntries(wanted.map((s) => [s.key, s.value]));
    const onSaved = (all) => {
      for (const s of all) if (s.section === 'archive') policy[s.key] = s.value;
    };
    clear(policyBar, wanted.length ? [h('span', { class: 'muted' }, 'Prune policy:'), wanted.map((s) => settingField(s, { compact: true, onSaved }))] : null);
  }

  async function load() {
    loadPolicy();
    try {
      versions = await call('list_versions', { location, name: null });
    } catch (e) {
      versions = [];
      errorToast('Could not list the archive', e);
    }
    try {
      leaks = await call('leaked_secrets', { location });
    } catch (e) {
      leaks = [];
      errorToast('Could not check the archive for secrets', e);
    }
    renderLeaks();
    const names = new Set(versions.map((v) => v.name));
    subtitle.textContent = `${versions.length} version${versions.length === 1 ? '' : 's'} of ${names.size} memor${names.size === 1 ? 'y' : 'ies'} · restorable`;
    renderList();
    if (selected && !versions.some((v) => v.name === selected.name && v.version === selected.version)) selected = null;
    if (!selected) renderDiffEmpty(); else showDiff();
  }

  const leakOf = (v) => leaks.find((l) => l.version && l.name === v.name && l.version === v.version);

  function renderLeaks() {
    leakBanner.hidden = !leaks.length;
    if (!leaks.length) { clear(leakBanner); return; }
    const archived = leaks.filter((l) => l.version).length;
    clear(leakBanner,
      h('div', { class: 'leak-title' }, `${leaks.length} file${leaks.length === 1 ? '' : 's'} here hold${leaks.length === 1 ? 's' : ''} what looks like a secret`,
        archived ? h('span', { class: 'muted' }, ' · purging an archived copy deletes that file for good') : null),
      h('ul', { class: 'leak-list' }, leaks.map((l) => {
        const v = l.version ? versions.find((x) => x.name === l.name && x.version === l.version) : null;
        return h('li', { class: 'leak', testid: 'archive-leak', dataset: { name: l.name, version: l.version || '', current: l.version ? 'false' : 'true' } },
          h('span', { class: 'mono' }, l.name),
          h('span', { class: 'muted' }, l.version ? ` archived ${v ? absoluteTime(v.archived_at) : l.version}` : ' (the memory itself)'),
          h('span', {}, ` · ${l.kind}: `), h('code', { class: 'mono' }, l.excerpt),
          l.version
            ? h('button', { class: 'btn btn-small btn-ghost-danger', testid: 'archive-leak-purge', dataset: { name: l.name, version: l.version }, onClick: () => purge(l) }, 'Purge…')
            : h('button', { class: 'btn btn-small', onClick: () => app.showMemory(location, l.name) }, 'Open to edit it out'));
      })));
  }

  function renderList() {
    const shown = visible();
    if (!shown.length) {
      clear(listEl, h('div', { class: 'empty-state', testid: 'archive-empty' },
        h('div', { class: 'empty-title' }, versions.length ? 'No match' : 'The archive is empty'),
        h('p', {}, versions.length ? 'No archived memory matches the filter.' : 'Every overwrite and delete keeps the prior version here, so nothing is lost.')));
      return;
    }
    const groups = new Map();
    for (const v of shown) {
      if (!groups.has(v.name)) groups.set(v.name, []);
      groups.get(v.name).push(v);
    }
    clear(listEl, [...groups.entries()].sort((a, b) => a[0].localeCompare(b[0])).map(([name, vs]) => {
      const deleted = !vs[0].current_exists;
      return h('div', { class: 'archive-memory', testid: 'archive-memory', dataset: { name, deleted: deleted ? 'true' : 'false' } },
        h('div', { class: 'group-header' }, h('span', { class: 'group-name mono' }, name),
          deleted ? h('span', { class: 'badge badge-warn' }, 'deleted') : null,
          h('span', { class: 'group-count' }, String(vs.length))),
        vs.map((v) => {
          const isSel = selected && selected.name === v.name && selected.version === v.version;
          return h('div', {
            class: `version-row${isSel ? ' selected' : ''}`, role: 'option', 'aria-selected': isSel ? 'true' : 'false', id: `archive-option-${v.name}-${v.version}`,
            testid: 'archive-version', dataset: { name: v.name, version: v.version, selected: isSel ? 'true' : 'false' },
            onClick: () => choose(v),
          },
            h('span', { title: absoluteTime(v.archived_at) }, absoluteTime(v.archived_at)),
            h('span', { class: 'muted' }, `${relativeTime(v.archived_at)} · ${formatBytes(v.size)}`),
            leakOf(v) ? h('span', { class: 'badge badge-danger', title: 'Holds what looks like a secret' }, 'secret') : null);
        }));
    }));
  }

  function choose(v) {
    selected = { name: v.name, version: v.version };
    renderList();
    const row = listEl.querySelector('[data-selected="true"]');
    if (row) { row.scrollIntoView({ block: 'nearest' }); listEl.setAttribute('aria-activedescendant', row.id); }
    showDiff();
  }

  function renderDiffEmpty() {
    clear(diffPane, h('div', { class: 'empty-state', testid: 'detail-empty' },
      h('div', { class: 'empty-title' }, 'Pick a version'),
      h('p', {}, 'See how it differs from the current file, and restore it if you want it back.')));
  }

  async function showDiff() {
    const want = selected;
    let d;
    try {
      d = await call('version_diff', { location, name: want.name, version: want.version });
    } catch (e) {
      clear(diffPane, h('div', { class: 'error-box' }, e.message));
      return;
    }
    if (selected !== want) return;
    const v = versions.find((x) => x.name === want.name && x.version === want.version);
    const summary = d.current_exists
      ? `+${d.diff.inserted} −${d.diff.deleted} lines, from this version to the current file`
      : 'The memory is deleted; restoring brings this version back';
    const lines = d.diff.hunks.length
      ? d.diff.hunks.map((hunk, i) => h('div', { class: 'hunk' },
          i > 0 ? h('div', { class: 'hunk-gap' }, '⋯') : null,
          hunk.map((l) => h('div', { class: `diff-line diff-${l.kind}`, testid: 'archive-diff-line', dataset: { kind: l.kind } },
            h('span', { class: 'ln' }, l.old_line ?? ''), h('span', { class: 'ln' }, l.new_line ?? ''),
            h('span', { class: 'sign' }, l.kind === 'insert' ? '+' : l.kind === 'delete' ? '−' : ' '),
            h('span', { class: 'code' }, l.text || ' ')))))
      : [h('p', { class: 'muted' }, 'Identical to the current file.')];
    const leak = v ? leakOf(v) : null;
    clear(diffPane,
      h('div', { class: 'detail-head' },
        h('div', { class: 'detail-badges' }, h('span', { class: 'badge badge-scope' }, location.scope === 'user' ? 'user scope' : app.projectName(location.project))),
        h('h2', { class: 'detail-name' }, want.name),
        h('p', { class: 'detail-description' }, `Archived ${v ? absoluteTime(v.archived_at) : ''}`),
        h('div', { class: 'detail-meta', testid: 'archive-diff-summary' }, summary),
        h('div', { class: 'detail-actions' },
          h('button', { class: 'btn btn-primary', testid: 'archive-restore', onClick: () => restore(want) }, d.current_exists ? 'Restore this version' : 'Restore memory'),
          leak ? h('button', { class: 'btn btn-ghost-danger', testid: 'archive-purge', onClick: () => purge(leak) }, 'Purge this version…') : null),
        leak ? h('p', { class: 'note' }, `This version holds what looks like a secret (${leak.kind}: ${leak.excerpt}).`) : null),
      h('div', { class: 'diff mono' }, lines));
  }

  async function restore(v) {
    const ok = await confirmDialog({
      title: `Restore ${v.name}?`,
      message: 'This version becomes the current file. The current file, if any, is archived first, so this is undoable too.',
      confirmLabel: 'Restore',
    });
    if (!ok) return;
    try {
      await call('restore_version', { location, name: v.name, version: v.version });
      toast(`Restored ${v.name}`, 'success');
      // The restored version stays in the archive and stays selected (now identical to the
      // current file), with focus back in the list: the person is where they were.
      selected = { name: v.name, version: v.version };
      await load();
      const row = listEl.querySelector('[data-selected="true"]');
      if (row) { row.scrollIntoView({ block: 'nearest' }); listEl.setAttribute('aria-activedescendant', row.id); }
      listEl.focus({ focusVisible: false });
    } catch (e) {
      errorToast('Could not restore', e);
    }
  }

  // Deletes one archived copy holding a secret, after a confirmation that names the file that
  // goes, what it holds, and what stays.
  async function purge(leak) {
    const v = versions.find((x) => x.name === leak.name && x.version === leak.version);
    const when = v ? absoluteTime(v.archived_at) : leak.version;
    const others = versions.filter((x) => x.name === leak.name && x.version !== leak.version).length;
    const stays = [
      v && v.current_exists ? `the current ${leak.name} memory` : null,
      others ? `its ${others} other archived version${others === 1 ? '' : 's'}` : null,
    ].filter(Boolean);
    const details = h('dl', { class: 'kv purge-preview', testid: 'purge-preview' },
      h('dt', {}, 'Deleted'), h('dd', { class: 'mono' }, leak.path),
      h('dt', {}, 'It holds'), h('dd', {}, `${leak.kind}: `, h('code', { class: 'mono' }, leak.excerpt)),
      h('dt', {}, 'Stays'), h('dd', {}, stays.length ? stays.join(' and ') : 'nothing else: this is the last copy of this memory'));
    const ok = await confirmDialog({
      title: `Purge the ${when} version of ${leak.name}?`,
      message: `Only this archived copy of ${leak.name} is deleted, for good: it cannot be restored afterwards. Nothing else is removed.`,
      details, confirmLabel: 'Purge', danger: true,
    });
    if (!ok) return;
    try {
      await call('purge_version', { location, name: leak.name, version: leak.version });
      toast(`Purged the ${when} version of ${leak.name}`, 'success');
      if (selected && selected.name === leak.name && selected.version === leak.version) selected = null;
      await load();
    } catch (e) {
      errorToast('Could not purge', e);
    }
  }

  async function startPrune() {
    let report;
    try {
      report = await call('prune_archive', { location, dryRun: true });
    } catch (e) {
      errorToast('Could not preview the prune', e);
      return;
    }
    if (!report.removed.length) {
      toast(`Nothing to prune: all ${report.kept} versions are within the policy (${policyWords()}).`, 'info', 6000);
      return;
    }
    const details = h('div', { class: 'prune-preview', testid: 'prune-preview' },
      h('ul', {}, report.removed.map((v) => h('li', {}, h('span', { class: 'mono' }, v.name), h('span', { class: 'muted' }, ` ${absoluteTime(v.archived_at)} · ${formatBytes(v.size)}`)))));
    const ok = await confirmDialog({
      title: `Prune ${report.removed.length} archived version${report.removed.length === 1 ? '' : 's'}?`,
      message: `These go for good; ${report.kept} stay. Policy: ${policyWords()}.`,
      details, confirmLabel: 'Prune', danger: true,
    });
    if (!ok) return;
    try {
      const done = await call('prune_archive', { location, dryRun: false, asOf: report.as_of });
      toast(`Pruned ${done.removed.length} version${done.removed.length === 1 ? '' : 's'}`, 'success');
      await load();
    } catch (e) {
      errorToast('Could not prune', e);
    }
  }

  return {
    el,
    show: (loc) => {
      if (loc && !sameLocation(loc, location)) location = loc;
      fillLocations();
      load();
    },
    onChange: (_change) => { if (el.isConnected) load(); },
    startPrune,
    focusMain: () => listEl.focus(),
  };
}
