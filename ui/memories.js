// The memory list (grouped by type, filterable, windowed) and the detail pane (safe rendered
// markdown, in-place editing saved through the store, editor/folder/delete actions).
//
// data-testid:
//   memories-view          the view            memories-title      its heading
//   memories-count         "N memories"        memory-new          New memory button
//   memory-filter          filter box          memory-list         the scrolling list
//   memory-sort            the order: type (grouped, the default), name, updated, last used
//   memory-group           a type header (data-type, contains memory-group-count)
//   memory-row             a memory (data-name, data-scope, data-selected; several with Ctrl/Shift, see memory-selection.js)
//   memory-list-empty      empty / no-match state
//   memory-detail          the detail pane     detail-empty        nothing selected
//   detail-no-match        the filter matches nothing (data-filter); detail-clear-filter clears it
//   detail-name  detail-type  detail-scope  detail-description  detail-updated  detail-body
//   detail-edit  detail-open-editor  detail-reveal  detail-delete  detail-error  detail-stale
//   memory-form            the edit form       form-name  form-type  form-description  form-body
//   form-save  form-cancel  form-error (data-code = the shell's error code)

import { call, sameLocation } from './api.js';
import { firstRunPanel } from './first-run.js';
import { h, clear, setSafeHtml, relativeTime, absoluteTime, debounce, focusShown } from './dom.js';
import { confirmDialog, toast, errorToast } from './dialog.js';
import { openMemoryInEditor } from './open-editor.js';
import { VirtualList } from './virtual-list.js';
import { renameMemory } from './rename.js';
import { typePicker } from './type-picker.js';
import { ruleField } from './rule-field.js';
import { createSelection, bulkPanel, deleteMany } from './memory-selection.js';

const TYPE_ORDER = ['user', 'feedback', 'project', 'reference'];
const UNREADABLE = '\u0000unreadable';
const HEADER_HEIGHT = 34;
const ROW_HEIGHT = 58;

function typeRank(type) {
  const i = TYPE_ORDER.indexOf(type);
  return i === -1 ? TYPE_ORDER.length : i;
}

function compareTypes(a, b) {
  if (a === UNREADABLE) return 1;
  if (b === UNREADABLE) return -1;
  return typeRank(a) - typeRank(b) || a.localeCompare(b);
}

// What a team memory's git state means (DESIGN §15: the person commits team memory).
const GIT_STATES = {
  new: 'Not committed yet: commit it to share it with the team',
  modified: 'Changed since the last commit',
  committed: 'As committed',
};

export function createMemoriesView(app) {
  let location = null;
  let rows = [];
  let listed = false;          // rows hold this location's listing (not a load in progress)
  let selected = null;        // name of the selected memory
  let detail = null;          // the loaded MemoryDetail
  let editing = null;         // { original, isNew } while the form is open
  let loadSeq = 0;

  const title = h('h1', { testid: 'memories-title' });
  const count = h('span', { class: 'subtitle', testid: 'memories-count' });
  // The sidebar lists only AMBRY.md files that exist; a project without one offers it here.
  const anchorButton = h('button', {
    class: 'btn', testid: 'memory-project-anchor', hidden: true, title: 'Create the project trust anchor (.ambry/AMBRY.md) every agent reads in this repository',
    onClick: () => app.navigate({ view: 'anchor', project: location.project }),
  }, 'Add AMBRY.md');
  const newButton = h('button', { class: 'btn btn-primary', testid: 'memory-new', onClick: () => startNew() }, '+ New memory');
  // Team memory (DESIGN §15): agents are given it only once the person trusts the repository.
  const trustButton = h('button', { class: 'btn btn-primary btn-small', testid: 'team-trust-button', onClick: () => trustTeam() }, 'Trust');
  const trustBanner = h('div', { class: 'banner', testid: 'team-trust', hidden: true },
    h('span', {}, 'Shared through the repository (.ambry/memory/): commit them with your code. Agents are not given them until you trust this repository. '),
    trustButton);
  const filter = h('input', {
    class: 'input filter', type: 'search', testid: 'memory-filter', placeholder: 'Filter by name, type or description',
    'aria-label': 'Filter memories', spellcheck: 'false',
  });
  // The order of the list: grouped by type (by name within a type), or one flat list by name,
  // by last change, or by last use (a person's or an agent's; never used last).
  const sort = h('select', { class: 'select memory-sort', testid: 'memory-sort', 'aria-label': 'Sort memories' },
    h('option', { value: 'type' }, 'By type'), h('option', { value: 'name' }, 'By name'),
    h('option', { value: 'updated' }, 'By update'), h('option', { value: 'last_used' }, 'By last use'));
  const list = new VirtualList({
    className: 'memory-list', testid: 'memory-list',
    heightOf: (item) => (item.header ? HEADER_HEIGHT : ROW_HEIGHT),
    render: renderItem,
  });
  list.el.tabIndex = 0;
  list.el.setAttribute('role', 'listbox');
  list.el.setAttribute('aria-label', 'Memories');
  list.el.setAttribute('aria-multiselectable', 'true');
  const empty = h('div', { class: 'empty-state list-empty', testid: 'memory-list-empty', hidden: true });
  const pane = h('div', { class: 'detail-pane', testid: 'memory-detail' });

  const el = h('section', { class: 'view memories-view', testid: 'memories-view' },
    h('header', { class: 'view-header' },
      h('div', { class: 'view-titles' }, title, count),
      h('div', { class: 'view-actions' }, anchorButton, newButton)),
    trustBanner,
    h('div', { class: 'split' },
      // The frame draws the list's focus ring over its rows and group headers (styles.css).
      h('div', { class: 'list-pane' }, h('div', { class: 'list-tools' }, filter, sort), h('div', { class: 'vlist-frame' }, list.el), empty),
      pane));

  filter.addEventListener('input', debounce(() => refreshList(), 60));
  // Usage changes without a file changing: a new order by use asks for fresh counts.
  sort.addEventListener('change', () => (sort.value === 'last_used' ? reload() : refreshList()));
  filter.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown') { e.preventDefault(); list.el.focus(); moveSelection(selected ? 0 : 1); }
  });
  list.el.addEventListener('keydown', (e) => {
    const mod = e.ctrlKey || e.metaKey;
    if ((e.key === 'ArrowDown' || e.key === 'ArrowUp') && e.shiftKey) { e.preventDefault(); extendSelection(e.key === 'ArrowDown' ? 1 : -1); }
    else if (e.key === 'ArrowDown') { e.preventDefault(); moveSelection(1); }
    else if (e.key === 'ArrowUp') { e.preventDefault(); moveSelection(-1); }
    else if (mod && e.key.toLowerCase() === 'a') { e.preventDefault(); pickAll(); }
    else if (e.key === 'Escape' && picked.size > 1) { e.preventDefault(); e.stopPropagation(); clearPicked(); }
    else if (e.key === 'Enter' && (selected || picked.size > 1)) { e.preventDefault(); const first = pane.querySelector('button'); if (first) first.focus(); }
    else if (e.key === 'Delete' && picked.size > 1) { e.preventDefault(); deletePicked(); }
    else if (e.key === 'Delete' && selected && detail) { e.preventDefault(); deleteSelected(); }
  });
  // Esc in the bulk panel clears the selection too (focus goes back to the list).
  pane.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && picked.size > 1 && !editing) { e.preventDefault(); e.stopPropagation(); clearPicked(); list.el.focus(); }
  });

  function visibleItems() {
    const needle = filter.value.trim().toLowerCase();
    const matching = needle
      ? rows.filter((r) => r.name.includes(needle) || (r.type || '').includes(needle) || (r.description || '').toLowerCase().includes(needle))
      : rows;
    if (sort.value !== 'type') {
      const time = (t) => (t ? Date.parse(t) : 0);
      const by = {
        name: (a, b) => a.name.localeCompare(b.name),
        updated: (a, b) => time(b.updated || b.created) - time(a.updated || a.created) || a.name.localeCompare(b.name),
        last_used: (a, b) => time(b.last_used) - time(a.last_used) || (b.uses_30d || 0) - (a.uses_30d || 0) || a.name.localeCompare(b.name),
      }[sort.value];
      return { items: [...matching].sort(by).map((r, i) => ({ row: r, pos: i + 1 })), matching: matching.length };
    }
    const groups = new Map();
    for (const r of matching) {
      const key = r.error ? UNREADABLE : r.type;
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(r);
    }
    const items = [];
    let pos = 0;
    for (const type of [...groups.keys()].sort(compareTypes)) {
      const members = groups.get(type);
      items.push({ header: true, type, count: members.length });
      for (const r of members) items.push({ row: r, pos: ++pos });
    }
    return { items, matching: matching.length };
  }

  let items = [];
  // Rows in the list, for screen readers: only the rows in view exist in the page, so each says
  // where it stands (aria-posinset) among how many (aria-setsize).
  let setSize = 0;
  const picked = createSelection(() => items.filter((it) => it.row).map((it) => it.row.name));
  function refreshList() {
    const visible = visibleItems();
    items = visible.items;
    setSize = visible.matching;
    list.setItems(items);
    const total = rows.length;
    count.textContent = filter.value.trim()
      ? `${visible.matching} of ${total} ${total === 1 ? 'memory' : 'memories'}`
      : `${total} ${total === 1 ? 'memory' : 'memories'}`;
    // A selection of several keeps only what the list still shows.
    if (picked.size > 1) {
      picked.retain();
      if (picked.size > 1) showPicked(); else { const one = picked.names()[0]; picked.clear(); if (one) select(one, { force: true }); }
    }
    if (picked.size > 1) count.textContent += ` · ${picked.size} selected`;
    // A selection the filter hides is no longer what the pane should show.
    if (selected && !editing && picked.size <= 1 && !items.some((it) => it.row && it.row.name === selected)) {
      selected = null;
      list.el.removeAttribute('aria-activedescendant');
      renderNothingSelected();
    }
    if (total === 0) {
      showEmpty('No memories here yet', location && location.scope === 'project'
        ? 'Agents working in this project save memories here. You can also create one.'
        : 'Memories saved by your agents for every project appear here. You can also create one.', true);
    } else if (visible.matching === 0) {
      showEmpty('No match', `Nothing in this list matches “${filter.value.trim()}”.`, false);
    } else {
      empty.hidden = true;
      list.el.hidden = false;
    }
    // With nothing selected the pane says why: the first-run panel while the user scope is
    // empty (or no agent is connected), that the filter matches nothing, or how to pick one.
    // Rendered only when that changes, so focus inside it survives refreshes.
    if (!selected && !editing && picked.size <= 1 && paneShows() !== nothingSelectedKind()) renderNothingSelected();
  }

  // Which "nothing selected" panel the pane should show, and which it shows.
  function nothingSelectedKind() {
    if (rows.length && filter.value.trim() && !items.some((it) => it.row)) return `no-match:${filter.value.trim()}`;
    return firstRunHere() ? 'first-run' : 'none';
  }
  function paneShows() {
    if (pane.querySelector('[data-testid="first-run"]')) return 'first-run';
    const noMatch = /** @type {HTMLElement|null} */ (pane.querySelector('[data-testid="detail-no-match"]'));
    if (noMatch) return `no-match:${noMatch.dataset.filter}`;
    return pane.querySelector('[data-testid="detail-empty"]') ? 'none' : '';
  }

  function clearFilter() {
    filter.value = '';
    refreshList();
    filter.focus();
  }

  // An empty user scope is a new home, and one no agent is connected to has not started: the
  // detail pane shows how memories get in (until a memory is picked).
  function firstRunHere() {
    return listed && (rows.length === 0 || app.agentsConnected === false) && !(location && location.scope === 'project');
  }

  function showEmpty(heading, text, offerNew) {
    list.el.hidden = true;
    empty.hidden = false;
    clear(empty, h('div', { class: 'empty-title' }, heading), h('p', {}, text),
      offerNew ? h('button', { class: 'btn', onClick: () => startNew() }, 'New memory') : null);
  }

  function optionId(name) {
    return `memory-option-${name}`;
  }

  // The listbox names its selected row for assistive tech (focus stays on the list itself).
  function paintList() {
    list.paint();
    if (selected && document.getElementById(optionId(selected))) list.el.setAttribute('aria-activedescendant', optionId(selected));
    else list.el.removeAttribute('aria-activedescendant');
  }

  function renderItem(item) {
    if (item.header) {
      const label = item.type === UNREADABLE ? 'unreadable' : item.type;
      return h('div', { class: 'group-header', testid: 'memory-group', dataset: { type: label } },
        h('span', { class: 'group-name' }, label),
        h('span', { class: 'group-count', testid: 'memory-group-count' }, String(item.count)));
    }
    const r = item.row;
    const isSelected = picked.size > 1 ? picked.has(r.name) : r.name === selected;
    return h('div', {
      class: `memory-row${isSelected ? ' selected' : ''}${r.error ? ' broken' : ''}`,
      role: 'option', 'aria-selected': isSelected ? 'true' : 'false', id: optionId(r.name),
      'aria-setsize': String(setSize), 'aria-posinset': String(item.pos),
      testid: 'memory-row', dataset: { name: r.name, scope: r.scope, selected: isSelected ? 'true' : 'false' },
      // Focus stays on the list for the arrow keys; a mouse click draws no ring around it.
      // Ctrl/Cmd+click adds or removes one, Shift+click takes the range.
      onClick: (e) => {
        if (e.shiftKey) pickRange(r.name);
        else if (e.ctrlKey || e.metaKey) pickOne(r.name);
        else { picked.clear(); select(r.name, { record: 'push' }); }
        list.el.focus({ focusVisible: false });
      },
    },
      h('div', { class: 'row-top' },
        h('span', { class: 'row-name', title: r.name }, r.name),
        r.git ? h('span', { class: `badge row-git git-${r.git}`, testid: 'row-git', dataset: { state: r.git }, title: GIT_STATES[r.git] }, r.git) : null,
        sort.value === 'last_used'
          ? h('span', { class: 'row-time', title: 'Last used' }, r.last_used ? `used ${relativeTime(r.last_used)}` : 'never used')
          : h('span', { class: 'row-time' }, (r.updated || r.created) ? relativeTime(r.updated || r.created) : '')),
      h('div', { class: 'row-description' }, r.error ? `Does not parse: ${r.error}` : r.description));
  }

  // Several memories: the pane shows what can be done to all of them. Unsaved edits are asked
  // about first, as moving to another memory would.
  async function showPicked() {
    if (editing && editing.isDirty && editing.isDirty()) {
      const leave = await confirmDialog({ title: 'Discard changes?', message: 'Your edits to this memory are not saved.', confirmLabel: 'Discard', danger: true });
      if (!leave) { picked.clear(); paintList(); return; }
    }
    editing = null;
    detail = null;
    paintList();
    const total = rows.length;
    count.textContent = `${total} ${total === 1 ? 'memory' : 'memories'} · ${picked.size} selected`;
    clear(pane, bulkPanel(picked.names(), { onDelete: () => deletePicked(), onClear: () => { clearPicked(); list.el.focus(); } }));
  }

  function afterPick() {
    if (picked.size > 1) { showPicked(); return; }
    const one = picked.names()[0];
    picked.clear();
    if (one) select(one); else paintList();
  }

  function pickOne(name) {
    picked.toggle(name, selected);
    selected = name;
    afterPick();
  }

  function pickRange(name) {
    picked.extend(selected, name);
    selected = name;
    afterPick();
  }

  function pickAll() {
    picked.all();
    if (!selected) selected = picked.names()[0] || null;
    afterPick();
  }

  // Shift+↑/↓: the cursor moves and the selection runs from where it started to the cursor.
  function extendSelection(delta) {
    const names = items.filter((it) => it.row).map((it) => it.row.name);
    if (!names.length) return;
    const at = names.indexOf(selected);
    const to = names[Math.min(names.length - 1, Math.max(0, at === -1 ? 0 : at + delta))];
    pickRange(to);
    list.scrollToIndex(items.findIndex((it) => it.row && it.row.name === to));
  }

  // Back to the one memory under the cursor.
  function clearPicked() {
    picked.clear();
    refreshList();
    if (selected) select(selected, { force: true }); else { paintList(); renderNothingSelected(); }
  }

  async function deletePicked() {
    const names = picked.names();
    const gone = await deleteMany({ ...location }, names, {
      onUndone: async (where, restored) => {
        if (!sameLocation(where, location)) return;
        await reload();
        if (!editing && restored.length) {
          for (const n of restored) picked.toggle(n, null);
          selected = restored[0];
          afterPick();
        }
      },
    });
    if (!gone) return;
    const index = items.findIndex((it) => it.row && gone.includes(it.row.name));
    for (const n of gone) removeRow(n);
    picked.clear();
    refreshList();
    const next = items.slice(Math.max(0, index)).find((it) => it.row) || [...items].reverse().find((it) => it.row);
    selected = next ? next.row.name : null;
    paintList();
    await loadDetail();
    list.el.focus();
  }

  function moveSelection(delta) {
    if (picked.size) { picked.clear(); }
    const memoryIndexes = [];
    items.forEach((it, i) => { if (it.row) memoryIndexes.push(i); });
    if (!memoryIndexes.length) return;
    let at = memoryIndexes.findIndex((i) => items[i].row.name === selected);
    at = at === -1 ? (delta > 0 ? 0 : memoryIndexes.length - 1) : Math.min(memoryIndexes.length - 1, Math.max(0, at + delta));
    const index = memoryIndexes[at];
    select(items[index].row.name, { record: 'replace' });
    list.scrollToIndex(index);
  }

  // `record`: the person chose it (a click: a step of back/forward; ↑/↓: the current step moves).
  async function select(name, { force = false, record = null } = {}) {
    if (editing && editing.isDirty && editing.isDirty() && !force) {
      const leave = await confirmDialog({ title: 'Discard changes?', message: 'Your edits to this memory are not saved.', confirmLabel: 'Discard', danger: true });
      if (!leave) return;
    }
    editing = null;
    picked.clear();
    selected = name;
    if (record) app.selectionChanged(name, { replace: record === 'replace' });
    paintList();
    await loadDetail();
  }

  async function loadDetail() {
    const seq = ++loadSeq;
    if (!selected) { renderNothingSelected(); return; }
    const row = rows.find((r) => r.name === selected);
    try {
      const d = await call('get_memory', { memory: { ...location, name: selected } });
      if (seq !== loadSeq) return;
      detail = d;
      renderDetail();
    } catch (e) {
      if (seq !== loadSeq) return;
      detail = null;
      renderDetailError(row, e);
    }
  }

  function renderNothingSelected() {
    detail = null;
    const needle = filter.value.trim();
    if (rows.length && needle && !items.some((it) => it.row)) {
      clear(pane, h('div', { class: 'empty-state', testid: 'detail-no-match', dataset: { filter: needle } },
        h('div', { class: 'empty-title' }, 'Nothing matches the filter'),
        h('p', {}, `No memory here has “${needle}” in its name, type or description.`),
        h('button', { class: 'btn', testid: 'detail-clear-filter', onClick: clearFilter }, 'Clear the filter')));
      return;
    }
    if (firstRunHere()) {
      clear(pane, firstRunPanel(app));
      return;
    }
    clear(pane, h('div', { class: 'empty-state', testid: 'detail-empty' },
      h('div', { class: 'empty-title' }, 'No memory selected'),
      h('p', {}, 'Pick a memory on the left, or press ', h('kbd', {}, 'Ctrl'), ' ', h('kbd', {}, 'K'), ' to search all of them.')));
  }

  function ref() {
    return { ...location, name: selected };
  }

  function actions() {
    return h('div', { class: 'detail-actions' },
      h('button', { class: 'btn btn-primary', testid: 'detail-edit', onClick: () => startEdit() }, 'Edit'),
      h('button', { class: 'btn', testid: 'detail-open-editor', onClick: () => openInEditor(ref()) }, 'Open in editor'),
      h('button', { class: 'btn', testid: 'detail-reveal', onClick: () => reveal(ref()) }, 'Reveal in folder'),
      h('button', { class: 'btn', testid: 'detail-rename', onClick: () => renameSelected() }, 'Rename'),
      h('button', { class: 'btn btn-ghost-danger', testid: 'detail-delete', onClick: () => deleteSelected() }, 'Delete'));
  }

  function renderDetail(stale = false) {
    const d = detail;
    const body = h('article', { class: 'markdown', testid: 'detail-body' });
    setSafeHtml(body, d.html || '');
    if (!d.body.trim()) clear(body, h('p', { class: 'muted' }, 'This memory has no body.'));
    clear(pane,
      stale ? h('div', { class: 'banner', testid: 'detail-stale' }, 'This memory changed on disk while you were editing.') : null,
      h('div', { class: 'detail-head' },
        h('div', { class: 'detail-badges' },
          h('span', { class: `badge badge-type type-${d.type}`, testid: 'detail-type', title: 'Type' }, d.type),
          // Where it applies, in words that do not repeat the type (a `project` memory of a
          // project read "project · project scope" before).
          h('span', { class: 'badge badge-scope', testid: 'detail-scope', title: 'Where agents get it' },
            d.scope === 'user' ? 'user memory · every project'
              : d.scope === 'team' ? `team memory · everyone on ${app.projectName(location.project)}` : `only in ${app.projectName(location.project)}`)),
        h('h2', { class: 'detail-name', testid: 'detail-name' }, d.name),
        h('p', { class: 'detail-description', testid: 'detail-description' }, d.description),
        d.lifecycle && d.lifecycle.enforce ? ruleLine(d.lifecycle.enforce) : null,
        // When it is needed (DESIGN §5): the situations whoever saved it said it is for.
        d.lifecycle && d.lifecycle.when && d.lifecycle.when.length
          ? h('p', { class: 'detail-when muted', testid: 'detail-when' }, `Needed when: ${d.lifecycle.when.join(' · ')}`) : null,
        h('div', { class: 'detail-meta' },
          d.created ? h('span', { title: absoluteTime(d.created) }, `Created ${relativeTime(d.created)}`) : null,
          d.updated ? h('span', { testid: 'detail-updated', title: absoluteTime(d.updated) }, `Updated ${relativeTime(d.updated)}`) : null,
          d.tags && d.tags.length ? h('span', {}, d.tags.map((t) => `#${t}`).join(' ')) : null),
        actions()),
      body,
      h('div', { class: 'detail-path', title: d.path }, d.path));
  }

  // The memory's rule in one line: what it does to which calls, and whether it is on.
  function ruleLine(r) {
    const verb = r.action === 'deny' ? 'Refuses' : r.action === 'remind' ? 'Reminds before' : `${r.action}:`;
    const state = r.status === 'on' ? '' : r.status === 'proposed' ? ' — proposed by an agent, off until you turn it on (Review)' : ' — off';
    return h('p', { class: 'detail-rule', testid: 'detail-rule', dataset: { status: r.status } },
      `${verb} ${r.tools.join(', ')} calls matching `, h('code', {}, r.match), state);
  }

  function renderDetailError(row, e) {
    clear(pane, h('div', { class: 'detail-head' },
      h('h2', { class: 'detail-name', testid: 'detail-name' }, selected),
      h('div', { class: 'error-box', testid: 'detail-error', dataset: { code: e.code } },
        e.code === 'not_found' ? 'This memory no longer exists on disk. It may have been deleted or renamed; deleted memories can be restored from Archive.' : e.message),
      e.code === 'not_found' ? null : h('div', { class: 'detail-actions' },
        h('button', { class: 'btn', testid: 'detail-open-editor', onClick: () => openInEditor(ref()) }, 'Open in editor'),
        h('button', { class: 'btn', testid: 'detail-reveal', onClick: () => reveal(ref()) }, 'Reveal in folder'))));
  }

  // The conventional types, then the ones used here, alphabetically (the index's order).
  function knownTypes() {
    const types = new Set(TYPE_ORDER);
    for (const r of rows) if (r.type && !r.error) types.add(r.type);
    return [...types].sort(compareTypes);
  }

  function startNew() {
    if (!location) return;
    const go = () => {
      editing = { original: null, isNew: true };
      selected = null;
      paintList();
      renderForm({ name: '', type: location.scope === 'user' ? 'user' : 'project', description: '', body: '' });
    };
    if (editing && editing.isDirty && editing.isDirty()) {
      confirmDialog({ title: 'Discard changes?', message: 'Your edits are not saved.', confirmLabel: 'Discard', danger: true }).then((ok) => ok && go());
    } else go();
  }

  function startEdit() {
    if (!detail) return;
    editing = { original: detail.name, isNew: false };
    renderForm({ name: detail.name, type: detail.type, description: detail.description, body: detail.body, tags: detail.tags, rule: detail.lifecycle && detail.lifecycle.enforce, when: (detail.lifecycle && detail.lifecycle.when) || [] });
  }

  function renderForm(values) {
    const name = h('input', { class: 'input mono', testid: 'form-name', value: values.name, placeholder: 'kebab-case-name', spellcheck: 'false', 'aria-label': 'Name', autocomplete: 'off' });
    const typeField = typePicker(values.type, knownTypes());
    const type = typeField.input;
    const description = h('input', { class: 'input', testid: 'form-description', value: values.description, placeholder: 'One line: what this memory is for', 'aria-label': 'Description' });
    const body = h('textarea', { class: 'input mono body-input', testid: 'form-body', 'aria-label': 'Body', spellcheck: 'false' });
    body.value = values.body;
    const ruleInput = ruleField(values.rule, () => ({ location, name: name.value.trim() || values.name }));
    // One situation per line: what a person would be doing or typing when the memory is needed.
    const whenText = (values.when || []).join('\n');
    const when = h('textarea', { class: 'input when-input', testid: 'form-when', 'aria-label': 'When is it needed', rows: 3, spellcheck: 'true',
      placeholder: 'bumping the DB pool size\na 429 from the payments API' });
    when.value = whenText;
    const whenPhrases = () => when.value.split('\n').map((l) => l.trim()).filter((l) => l);
    editing.isDirty = () => name.value !== values.name || type.value !== values.type
      || description.value !== values.description || body.value !== values.body || ruleInput.isDirty()
      || when.value !== whenText;
    const error = h('div', { class: 'form-error', testid: 'form-error', role: 'alert', hidden: true });
    const save = h('button', { class: 'btn btn-primary', testid: 'form-save', type: 'submit' }, editing.isNew ? 'Create memory' : 'Save');
    const cancel = h('button', { class: 'btn', testid: 'form-cancel', type: 'button', onClick: () => cancelEdit() }, 'Cancel');
    const field = (label, input, hint) => h('label', { class: 'field' }, h('span', { class: 'field-label' }, label), input, hint ? h('span', { class: 'field-hint' }, hint) : null);
    const form = h('form', { class: 'memory-form', testid: 'memory-form' },
      h('div', { class: 'form-head' }, h('h2', {}, editing.isNew ? 'New memory' : `Edit ${values.name}`),
        h('span', { class: 'muted' }, location.scope === 'user' ? 'User scope'
          : location.scope === 'team' ? `Team scope · ${app.projectName(location.project)} (in the repository; you commit it)` : `Project scope · ${app.projectName(location.project)}`)),
      // The fields scroll between a title and a Save bar that both stay: in a small window the
      // bar never lies over the body and the person still sees what they are editing.
      h('div', { class: 'form-fields', testid: 'form-fields' },
        h('div', { class: 'form-row' },
          field('Name', name, 'Lowercase letters, digits and hyphens; it is the file name.'),
          field('Type', typeField.el, 'Pick one (↓ lists them) or type your own label.')),
        field('Description', description),
        h('label', { class: 'field field-grow' }, h('span', { class: 'field-label' }, 'Body (markdown)'), body),
        // After the body: what the memory says comes first, by eye and by Tab.
        field('When is it needed', when, 'A few short situations or prompts, one per line, in the words you would use then.'),
        ruleInput.el,
        error),
      h('div', { class: 'form-actions' }, h('span', { class: 'muted hint' }, h('kbd', {}, 'Ctrl'), ' ', h('kbd', {}, 'S'), ' to save · ', h('kbd', {}, 'Esc'), ' to cancel'), cancel, save));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      save.disabled = true;
      for (const input of [name, type, description, body, when]) input.classList.remove('invalid');
      const draft = { name: name.value.trim(), type: type.value, description: description.value, body: body.value, tags: values.tags || [] };
      try {
        const result = await call('save_memory', { location, original: editing.original, draft, rule: ruleInput.edit(),
          // Sent only when edited, so a save never writes an empty `when:` into a memory without one.
          when: when.value !== whenText ? whenPhrases() : null });
        const vector = result.vector;
        const note = vector.status === 'skipped' ? ' (semantic vector skipped; bm25 still finds it)' : '';
        toast(`Saved ${result.memory.name}${note}`, 'success');
        editing = null;
        upsertRow(result.memory);
        if (draft.name !== values.name && values.name) removeRow(values.name);
        selected = result.memory.name;
        refreshList();
        await loadDetail();
        // The form is gone: focus goes to the saved memory's Edit (Enter edits again), never
        // to the page.
        const again = pane.querySelector('[data-testid="detail-edit"]');
        if (again) focusShown(again); else list.el.focus();
      } catch (err) {
        error.hidden = false;
        error.dataset.code = err.code;
        error.textContent = err.message;
        const culprit = { invalid_name: name, already_exists: name, invalid_type: type, secret_detected: body }[err.code]
          || (err.code === 'invalid_field' && /^invalid when\b/.test(err.message) ? when : null)
          || (err.code === 'invalid_field' && /description/.test(err.message) ? description : null)
          || (err.code === 'invalid_field' ? ruleInput.culprit(err.message) : null);
        if (culprit && ruleInput.el.contains(culprit)) ruleInput.open();
        if (culprit) { culprit.classList.add('invalid'); culprit.focus(); }
        // The reason stays in sight in a short window, where the fields scroll.
        error.scrollIntoView({ block: 'nearest' });
      } finally {
        save.disabled = false;
      }
    });
    form.addEventListener('keydown', (e) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's') { e.preventDefault(); form.requestSubmit(); }
      if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); cancelEdit(); }
    });
    clear(pane, form);
    (editing.isNew ? name : body).focus();
  }

  async function trustTeam() {
    try {
      await call('trust_team', { project: location.project, trusted: true });
      toast('Trusted: agents are given this repository\'s team memory from their next turn', 'success', 4000);
      await app.reloadProjects();
      trustBanner.hidden = true;
    } catch (e) {
      errorToast('Could not trust it', e);
    }
  }

  async function cancelEdit() {
    const ok = !editing.isDirty() || await confirmDialog({ title: 'Discard changes?', message: 'Anything you typed in this form will be lost.', confirmLabel: 'Discard', danger: true });
    if (!ok) return;
    editing = null;
    if (selected) await loadDetail(); else renderNothingSelected();
  }

  async function renameSelected() {
    if (!selected) return;
    const renamed = await renameMemory({ ...location }, selected);
    if (!renamed) return;
    await reload();
    if (!editing) { selected = renamed; paintList(); await loadDetail(); }
  }

  async function deleteSelected() {
    if (!selected) return;
    const name = selected;
    const ok = await confirmDialog({
      title: `Delete ${name}?`,
      message: 'It moves to the archive, so you can restore it from Archive at any time. Agents stop seeing it right away.',
      confirmLabel: 'Move to archive', danger: true,
    });
    if (!ok) return;
    try {
      const forgotten = await call('forget_memory', { memory: { ...location, name } });
      const where = { ...location };
      toast(`${name} moved to the archive`, 'success', 8000, {
        action: { label: 'Undo', run: () => undoDelete(where, name, forgotten.version) },
      });
      const index = items.findIndex((it) => it.row && it.row.name === name);
      removeRow(name);
      refreshList();
      const next = items.slice(index).find((it) => it.row) || [...items].reverse().find((it) => it.row);
      selected = next ? next.row.name : null;
      paintList();
      await loadDetail();
    } catch (e) {
      errorToast('Could not delete', e);
    }
  }

  // Undo of a delete: the archived version comes back through the archive's restore (with its
  // vector), exactly as restoring it from the Archive view would.
  async function undoDelete(where, name, version) {
    try {
      await call('restore_version', { location: where, name, version });
      toast(`Restored ${name}`, 'success', 3000);
      if (sameLocation(where, location)) {
        await reload();
        if (!editing) { selected = name; paintList(); await loadDetail(); }
      }
    } catch (e) {
      errorToast(`Could not restore ${name}`, e);
    }
  }

  function rowOf(memory) {
    return { scope: memory.scope, project: location.project || null, name: memory.name, type: memory.type, description: memory.description, updated: memory.updated || memory.created, error: null };
  }

  function upsertRow(memory) {
    const row = rowOf(memory);
    const i = rows.findIndex((r) => r.name === row.name);
    // The usage a list call brought stays with the row (a file change does not reset it).
    if (i === -1) { rows.push(row); rows.sort((a, b) => a.name.localeCompare(b.name)); } else rows[i] = { ...row, last_used: rows[i].last_used, uses_30d: rows[i].uses_30d };
  }

  function removeRow(name) {
    rows = rows.filter((r) => r.name !== name);
  }

  async function show(loc, { select: name = null } = {}) {
    const changed = !sameLocation(loc, location);
    location = { scope: loc.scope, project: loc.scope === 'user' ? null : loc.project };
    title.textContent = location.scope === 'user' ? 'User memories'
      : location.scope === 'team' ? `${app.projectName(location.project)} · team` : app.projectName(location.project);
    const team = location.scope === 'team' ? app.projects.find((p) => p.slug === location.project) : null;
    trustBanner.hidden = !team || team.team_trusted;
    const known = location.scope === 'project' ? app.projects.find((p) => p.slug === location.project) : null;
    anchorButton.hidden = !known || !known.roots.length || known.has_anchor;
    if (changed) {
      filter.value = '';
      editing = null;
      selected = null;
      rows = [];
      listed = false;
      list.setItems([]);
      count.textContent = 'Loading…';
      empty.hidden = true;
      renderNothingSelected();
    }
    await reload();
    if (name) {
      editing = null; // the caller asked about unsaved edits before coming here
      filter.value = '';
      refreshList();
      selected = name;
      const index = items.findIndex((it) => it.row && it.row.name === name);
      list.scrollToIndex(index);
      paintList();
      await loadDetail();
    }
  }

  async function reload() {
    const loc = location;
    try {
      const fresh = await call('list_memories', { location: loc });
      if (!sameLocation(loc, location)) return;
      rows = fresh;
      listed = true;
      refreshList();
    } catch (e) {
      rows = [];
      listed = false;
      refreshList();
      showEmpty('Cannot list these memories', e.message, false);
    }
  }

  // Live updates from the core watcher (see src-tauri/events.rs).
  async function onChange(change) {
    if (!location) return;
    if (change.kind === 'rescan') { await reload(); return; }
    if (change.kind !== 'saved' && change.kind !== 'removed') return;
    const changeLocation = { scope: change.scope, project: change.project };
    if (!sameLocation(changeLocation, location)) return;
    if (change.kind === 'removed') {
      removeRow(change.name);
      refreshList();
      if (change.name === selected && !editing) {
        selected = null;
        paintList();
        renderNothingSelected();
        toast(`${change.name} was deleted on disk; it can be restored from Archive`, 'info', 5000);
      }
      return;
    }
    try {
      const d = await call('get_memory', { memory: { ...location, name: change.name } });
      upsertRow(d);
      refreshList();
      if (change.name === selected) {
        if (editing && !editing.isNew) {
          const form = pane.querySelector('[data-testid="memory-form"]');
          // Inside the form, above the fields: the form shrinks its body box, so Save stays in view.
          if (form && !pane.querySelector('[data-testid="detail-stale"]')) form.prepend(h('div', { class: 'banner', testid: 'detail-stale' }, 'This memory changed on disk while you were editing. Saving will keep your version; the other one goes to the archive.'));
        } else if (!editing) {
          // Re-rendered (the save's own echo from the watcher, or an agent's change): focus
          // stays on the same control rather than falling to the page.
          const had = pane.contains(document.activeElement) ? /** @type {HTMLElement} */ (document.activeElement).dataset.testid : null;
          detail = d;
          renderDetail();
          const again = had ? pane.querySelector(`[data-testid="${had}"]`) : null;
          if (again) focusShown(again);
        }
      }
    } catch {
      await reload();
    }
  }

  function openInEditor(memoryRef) {
    return openMemoryInEditor(app, memoryRef, { opened: (what) => `Opened in ${what}` });
  }

  async function reveal(memoryRef) {
    try {
      await call('reveal_in_folder', { memory: memoryRef });
    } catch (e) {
      errorToast('Could not open the folder', e, { launch_failed: 'no file manager opened it.' });
    }
  }

  return {
    el, show, onChange, openInEditor, startNew, startEdit,
    // An agent was connected or disconnected: the first-run panel follows.
    firstRunChanged: () => {
      if (!selected && !editing && paneShows() !== nothingSelectedKind()) renderNothingSelected();
    },
    get location() { return location; },
    hasUnsavedEdits: () => !!editing && !!editing.isDirty && editing.isDirty(),
    focusMain: () => (rows.length ? list.el : filter).focus(),
    focusFilter: () => filter.focus(),
  };
}
