// The search overlay (Ctrl/Cmd+K, or the tray's "Search memories…"): ranked in core by the
// same ranker and strategy as `ambry memory search`, as you type, over all memories (user and
// every project), the user's alone, or one project as its agent sees them. Stale responses are
// dropped; reopening shows the last query and its results; a memory changed on disk while the
// overlay is open re-runs the query.
//
// data-testid:
//   search-overlay      the overlay          search-input       the query box
//   search-project      what is searched: all memories (*), user memories only (""), or a project's slug
//   search-results      the result list      search-result      a row (data-name, data-scope, data-project, data-active)
//   search-result-score its relevance (data-relevance, data-gated: whether compose would inject it,
//                       data-score, data-cosine: '' without a vector)
//   search-empty        no query / no match state
//   search-status       strategy, count and core time (data-keystroke-ms: last keystroke → results shown;
//                       data-query: the query the shown results answer; data-shown: how many answers have
//                       been shown; data-busy: "true" while a search runs or waits to run;
//                       data-round-trip-ms: asking → answer; data-render-ms: drawing the answer)
//   search-error        a failed search
//   search-note         why the ranker fell back (e.g. no model), on its own line
//   search-more         "Show more": the next 50 memories (data-shown = how many are shown)
//   search-weak         the heading over memories below the relevance gate (data-count)
// The list's order: places and actions the query names exactly, memories that pass the
// relevance gate, places and actions found by their words, sessions, then the memories below
// the gate under their own heading (never above a place, an action or a session).
//   (places, actions and sessions: see palette.js; a query starting with > lists only those)

import { call } from './api.js';
import { h, clear } from './dom.js';
import { overlayShown, trapFocus } from './dialog.js';
import { openMemoryInEditor } from './open-editor.js';
import { matchingEntries, matchingSessions, paletteRows } from './palette.js';

const RELEVANCE_LABEL = { strong: 'Strong match', good: 'Good match', weak: 'Weak match' };
const RELEVANCE_BARS = { strong: 3, good: 2, weak: 1 };

// Relevance a person can read: a label and three bars from the evidence (query words found,
// similarity), not the normalized score, which is 1.00 at the top of any ranking.
function relevanceTitle(r) {
  const e = r.evidence;
  const words = e.query_terms ? `${e.matched_terms} of ${e.query_terms} word${e.query_terms === 1 ? '' : 's'}` : null;
  const similar = e.cosine === null || e.cosine === undefined ? null : `similarity ${e.cosine.toFixed(2)}`;
  const why = [words, e.synonym_match && !e.matched_terms ? 'a synonym' : null, similar].filter(Boolean).join(' · ');
  return `${RELEVANCE_LABEL[e.relevance]}: ${why}. ${e.gated ? 'Passes the relevance gate: a prompt like this gives it to the agent.' : 'Below the relevance gate: not given to an agent.'} Rank score ${r.score.toFixed(2)} (relative to the top result).`;
}

// Writes that change nothing are skipped: a row kept from the last keystroke mostly shows the
// same memory, and an unchanged row should cost the window no style or layout work.
function setText(node, text) { if (node.textContent !== text) node.textContent = text; }
function setAttr(node, name, value) { if (node.getAttribute(name) !== value) node.setAttribute(name, value); }
function setData(node, values) {
  for (const [key, value] of Object.entries(values)) if (node.dataset[key] !== value) node.dataset[key] = value;
}

// One memory row of the list, made once per position and refilled for each answer (`fill`):
// typing replaces the words in the rows on screen instead of rebuilding 50 rows and their
// relevance widgets per keystroke.
function memoryRow({ projectName, hover, pick }) {
  const name = h('span', { class: 'result-name' });
  const type = h('span', {});
  const scope = h('span', { class: 'badge badge-scope' });
  const description = h('div', { class: 'result-description' });
  const bars = [1, 2, 3].map(() => h('span', {}));
  const label = h('span', { class: 'relevance-label' });
  const score = h('span', { testid: 'search-result-score' }, h('span', { class: 'relevance-bars', 'aria-hidden': 'true' }, bars), label);
  const el = h('div', {
    class: 'search-result', role: 'option', 'aria-selected': 'false', testid: 'search-result',
    onMousemove: () => hover(el.index), onClick: () => pick(el.index),
  },
  h('div', { class: 'result-main' }, h('div', { class: 'result-top' }, name, type, scope), description),
  score);
  el.fill = (r, index) => {
    const e = r.evidence;
    el.index = index;
    setAttr(el, 'id', `search-option-${index}`);
    setData(el, { name: r.name, scope: r.scope, project: r.project || '' });
    setText(name, r.name);
    setAttr(type, 'class', `badge badge-type type-${r.type}`);
    setText(type, r.type);
    setText(scope, r.scope === 'user' ? 'user memory' : `only in ${projectName(r.project)}`);
    setText(description, r.description);
    setAttr(score, 'class', `result-score relevance-${e.relevance}`);
    setData(score, { relevance: e.relevance, gated: String(!!e.gated), score: String(r.score), cosine: e.cosine === null || e.cosine === undefined ? '' : e.cosine.toFixed(3) });
    setAttr(score, 'title', relevanceTitle(r));
    const on = RELEVANCE_BARS[e.relevance] || 0;
    bars.forEach((bar, j) => setAttr(bar, 'class', j < on ? 'on' : ''));
    setText(label, RELEVANCE_LABEL[e.relevance]);
  };
  return el;
}

// Makes `parent`'s children exactly `wanted`, in order, moving as little as possible: nodes
// that stay are neither removed nor re-inserted (which would restyle them).
function placeChildren(parent, wanted) {
  const keep = new Set(wanted);
  for (const child of [...parent.children]) if (!keep.has(child)) child.remove();
  let at = parent.firstChild;
  for (const node of wanted) {
    if (node === at) at = at.nextSibling;
    else parent.insertBefore(node, at);
  }
  while (at) { const next = at.nextSibling; at.remove(); at = next; }
}

export function createSearch(app) {
  let seq = 0;
  let shownSeq = 0;
  let rows = [];
  let active = 0;
  let open = false;
  // Beyond the memories: "Show more" when there are more, sessions, places and actions.
  let entries = [];
  let sessions = [];
  let more = false;
  const PAGE = 50;
  let page = PAGE;
  let pagedQuery = null;
  // What the list shows, in order (see the header): a memory ({kind: 'memory', row}), "Show
  // more" ({kind: 'more'}), or a place, action or session (palette.js). `active` indexes it.
  let items = [];
  const total = () => items.length;
  function arrange() {
    const memory = (row) => ({ kind: 'memory', row });
    const gated = rows.filter((r) => r.evidence.gated).map(memory);
    const weak = rows.filter((r) => !r.evidence.gated).map(memory);
    const moreItem = more ? [{ kind: 'more' }] : [];
    items = [
      ...entries.filter((e) => e.exact), ...gated, ...(weak.length ? [] : moreItem),
      ...entries.filter((e) => !e.exact), ...sessions, ...weak, ...(weak.length ? moreItem : []),
    ];
  }

  const input = h('input', { class: 'search-input', testid: 'search-input', type: 'text', placeholder: 'Search memories…', spellcheck: 'false', autocomplete: 'off', 'aria-label': 'Search memories', role: 'combobox', 'aria-expanded': 'true', 'aria-controls': 'search-results' });
  const project = h('select', { class: 'select search-project', testid: 'search-project', 'aria-label': 'Project whose memories are searched with yours' });
  const results = h('div', { class: 'search-results', id: 'search-results', testid: 'search-results', role: 'listbox' });
  const status = h('div', { class: 'search-status', testid: 'search-status' });
  const note = h('div', { class: 'search-note', testid: 'search-note', hidden: true });
  const panel = h('div', { class: 'search-panel', role: 'dialog', 'aria-modal': 'true', 'aria-label': 'Search memories' },
    h('div', { class: 'search-bar' }, h('span', { class: 'search-glyph', 'aria-hidden': 'true' }, '⌕'), input, project),
    results,
    note,
    h('div', { class: 'search-footer' },
      h('span', { class: 'keys' }, h('kbd', {}, '↑'), h('kbd', {}, '↓'), ' move  ', h('kbd', {}, 'Enter'), ' open in editor  ', h('kbd', {}, 'Ctrl'), h('kbd', {}, 'Enter'), ' show  ', h('kbd', {}, 'Esc'), ' close'),
      status));
  const el = h('div', { class: 'search-overlay', testid: 'search-overlay', hidden: true, onMousedown: (e) => { if (e.target === el) close(); } }, panel);

  input.addEventListener('input', () => schedule());
  project.addEventListener('change', () => { choice = project.value; coalesced(); });
  panel.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); close(); }
    else if (e.target === project) return; // the dropdown's own keys
    else if (e.key === 'ArrowDown') { e.preventDefault(); move(1); }
    else if (e.key === 'ArrowUp') { e.preventDefault(); move(-1); }
    else if (e.key === 'Enter' && active < total() && e.target.tagName !== 'BUTTON') {
      e.preventDefault();
      const item = items[active];
      if (item.kind === 'memory') { if (e.ctrlKey || e.metaKey) showInApp(item.row); else openInEditor(item.row); }
      else choose(active);
    }
  });

  const EVERYTHING = '*';

  let choice = EVERYTHING; // what the person last picked, kept across openings

  function fillProjects() {
    const current = choice;
    clear(project, h('option', { value: EVERYTHING }, 'All memories'), h('option', { value: '' }, 'User memories only'),
      app.projects.map((p) => h('option', { value: p.slug }, `${p.name} + user`)));
    project.value = current === EVERYTHING || current === '' || app.projects.some((p) => p.slug === current) ? current : EVERYTHING;
  }

  /** @returns {import('./ipc').SearchIn} */
  function within() {
    if (project.value === EVERYTHING) return { kind: 'everything' };
    if (project.value === '') return { kind: 'user_only' };
    return { kind: 'project', slug: project.value };
  }

  // No debounce: a search at 10k memories takes a few milliseconds, so each keystroke runs one
  // at once; keystrokes that arrive while one runs collapse into a single follow-up search.
  let inFlight = false;
  let again = false;
  let lastKeyAt = 0;

  function schedule() {
    lastKeyAt = performance.now();
    coalesced();
  }

  // One search at a time: whatever asks while one runs (keystrokes, changes on disk) is served
  // by a single follow-up that reads the box when it starts.
  function coalesced() {
    if (inFlight) { again = true; markBusy(); return; }
    run();
  }

  let shownCount = 0;
  function showAnswered(query) {
    shownCount += 1;
    status.dataset.query = query;
    status.dataset.shown = String(shownCount);
  }
  function markBusy() { status.dataset.busy = inFlight || again ? 'true' : 'false'; }

  async function run() {
    const query = input.value;
    const mine = ++seq;
    // A new query starts again at the first page; "Show more" keeps the query's place.
    if (query !== pagedQuery) { page = PAGE; pagedQuery = query; }
    const keepActive = extending;
    extending = false;
    if (!query.trim() || query.trim().startsWith('>')) {
      rows = [];
      more = false;
      sessions = [];
      entries = matchingEntries(app, query);
      arrange();
      shownSeq = mine;
      active = 0;
      render(query.trim() ? { rows: [], strategy: 'commands', note: null, micros: 0 } : null);
      showAnswered(query);
      return;
    }
    const started = performance.now();
    inFlight = true;
    markBusy();
    try {
      const result = await call('search_memories', { query, within: within(), seq: mine, limit: page });
      if (result.seq < shownSeq || result.seq !== seq) return; // a newer query is shown or on its way
      shownSeq = result.seq;
      rows = result.rows;
      more = result.more;
      entries = matchingEntries(app, query);
      if (pagedQuery !== sessionsQuery) sessions = [];
      arrange();
      if (!keepActive) active = 0;
      lastRoundTrip = performance.now() - started;
      const drawing = performance.now();
      render(result);
      status.dataset.renderMs = (performance.now() - drawing).toFixed(1);
      showAnswered(query);
      // Sessions come after (recall by words, a few milliseconds), without holding memories back.
      matchingSessions(app, query).then((found) => {
        if (mine !== seq || !found.length) return;
        // The highlight stays on what it was on when sessions arrive above it.
        const was = items[active];
        sessions = found;
        sessionsQuery = query;
        arrange();
        if (was) active = Math.max(0, items.findIndex((it) => (was.kind === 'memory' ? it.row === was.row : it.kind === was.kind && it.key === was.key)));
        render(result);
      });
      // Keystroke to results on screen, for the query the box shows now (the next frame is
      // when the person sees it).
      if (query === input.value) {
        const typed = lastKeyAt;
        requestAnimationFrame(() => { status.dataset.keystrokeMs = (performance.now() - typed).toFixed(1); });
      }
    } catch (e) {
      if (mine !== seq) return;
      rows = [];
      clear(results, h('div', { class: 'search-empty error', testid: 'search-error' }, e.message));
    } finally {
      inFlight = false;
      if (again) { again = false; run(); }
      markBusy();
    }
  }
  let lastRoundTrip = 0;
  let sessionsQuery = null;

  // The memory rows made so far, by position (see `memoryRow`).
  const rowEls = [];
  const rowActions = {
    projectName: (slug) => app.projectName(slug),
    hover: (i) => { if (active !== i) { active = i; paintActive(); } },
    pick: (i) => { if (items[i] && items[i].kind === 'memory') showInApp(items[i].row); },
  };

  function render(result) {
    if (!result) {
      input.removeAttribute('aria-activedescendant');
      clear(results, h('div', { class: 'search-empty', testid: 'search-empty' },
        'Type to rank memories the way an agent would get them, find past sessions, places and actions; > lists the actions.'));
      status.textContent = '';
      note.hidden = true;
      return;
    }
    const nodes = [];
    let memoriesShown = 0;
    let weakHeading = false;
    let run = null; // consecutive places, actions and sessions, drawn with their headings
    const flush = () => {
      if (!run) return;
      nodes.push(...paletteRows(run.entries, run.offset, { isActive: (i) => i === active, choose, hover: rowActions.hover }));
      run = null;
    };
    items.forEach((item, i) => {
      if (item.kind === 'memory') {
        flush();
        if (!item.row.evidence.gated && !weakHeading) {
          weakHeading = true;
          const count = rows.filter((r) => !r.evidence.gated).length;
          nodes.push(h('div', { class: 'palette-section palette-weak', testid: 'search-weak', dataset: { count: String(count) } },
            `Weak matches · below the relevance gate, not given to an agent (${count}${more ? '+' : ''})`));
        }
        if (rowEls.length <= memoriesShown) rowEls.push(memoryRow(rowActions));
        const row = rowEls[memoriesShown++];
        row.fill(item.row, i);
        nodes.push(row);
      } else if (item.kind === 'more') {
        flush();
        nodes.push(h('div', {
          class: 'search-result search-more', role: 'option', id: `search-option-${i}`,
          testid: 'search-more', dataset: { shown: String(rows.length) }, onClick: () => choose(i),
          onMousemove: () => rowActions.hover(i),
        }, `Show more memories (${rows.length} shown)`));
      } else {
        if (!run) run = { entries: [], offset: i };
        run.entries.push(item);
      }
    });
    flush();
    const top = rows.length || input.value.trim().startsWith('>') ? null
      : h('div', { class: 'search-empty', testid: 'search-empty' }, `No memory matches “${input.value.trim()}”.`);
    placeChildren(results, [top, ...nodes].filter(Boolean));
    status.textContent = result.strategy === 'commands'
      ? `${entries.length} place${entries.length === 1 ? '' : 's'} and actions`
      : `${rows.length}${more ? '+' : ''} result${rows.length === 1 ? '' : 's'} · ${result.strategy} · ${lastRoundTrip.toFixed(0)} ms`;
    status.title = `Ranked in ${(result.micros / 1000).toFixed(1)} ms; ${lastRoundTrip.toFixed(1)} ms from asking to the answer`;
    note.textContent = result.note || '';
    note.hidden = !result.note;
    status.dataset.roundTripMs = lastRoundTrip.toFixed(1);
    paintActive();
  }

  function paintActive() {
    if (total()) input.setAttribute('aria-activedescendant', `search-option-${active}`); else input.removeAttribute('aria-activedescendant');
    results.querySelectorAll('[role="option"]').forEach((row, i) => {
      const on = i === active;
      row.classList.toggle('active', on);
      setData(row, { active: on ? 'true' : 'false' });
      setAttr(row, 'aria-selected', on ? 'true' : 'false');
      if (on) row.scrollIntoView({ block: 'nearest' });
    });
  }

  function move(delta) {
    if (!total()) return;
    active = Math.min(total() - 1, Math.max(0, active + delta));
    paintActive();
  }

  // "Show more" (the next page of memories, the highlight staying where it was), or a session,
  // place or action.
  let extending = false;
  function choose(i) {
    const item = items[i];
    if (!item) return;
    if (item.kind === 'memory') { showInApp(item.row); return; }
    if (item.kind === 'more') {
      page += PAGE;
      extending = true;
      coalesced();
      return;
    }
    close();
    item.run();
  }

  // With no editor and no desktop application for the file, the memory opens in the app's own
  // editor (the palette closes; a notification says so): see open-editor.js.
  function openInEditor(r) {
    return openMemoryInEditor(app, { scope: r.scope, project: r.project, name: r.name }, {
      opened: (what) => `Opened ${r.name} in ${what}`,
      leaving: () => close(),
    });
  }

  function showInApp(r) {
    close();
    app.showMemory({ scope: r.scope, project: r.project }, r.name, { byKeyboard: true });
  }

  // While open, Tab cycles inside the panel and Esc closes it from wherever focus is.
  let releaseFocus = () => {};
  const onEscape = (e) => {
    if (e.key === 'Escape' && open && !document.querySelector('.modal-backdrop')) { e.preventDefault(); close(); }
  };

  function show() {
    if (!open) {
      fillProjects();
      releaseFocus = trapFocus(panel);
      document.addEventListener('keydown', onEscape);
    }
    open = true;
    el.hidden = false;
    overlayShown(el, true);
    input.focus();
    input.select();
    if (!input.value) render(null);
  }

  function close() {
    if (!open) return;
    releaseFocus();
    document.removeEventListener('keydown', onEscape);
    open = false;
    el.hidden = true;
    overlayShown(el, false);
    app.restoreFocus();
  }

  // A memory saved, changed or removed on disk (or its vector written) while results are on
  // screen. Coalesced like keystrokes: a save arrives as two changes (the file, then its
  // vector); a search already running when one arrives is followed by one that starts after
  // the change reached the caches, instead of a second search competing with it.
  function refresh() {
    if (open && input.value.trim()) coalesced();
  }

  return { el, show, close, refresh, isOpen: () => open, refreshProjects: () => fillProjects() };
}
