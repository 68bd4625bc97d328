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
//                       been shown; data-busy: "true" while a search runs or waits to run)
//   search-error        a failed search
//   search-note         why the ranker fell back (e.g. no model), on its own line
//   search-more         "Show more": the next 50 memories (data-shown = how many are shown)
//   (places, actions and sessions: see palette.js; a query starting with > lists only those)

import { call } from './api.js';
import { h, clear } from './dom.js';
import { toast, editorErrorToast, trapFocus } from './dialog.js';
import { matchingEntries, matchingSessions, paletteRows } from './palette.js';

const RELEVANCE_LABEL = { strong: 'Strong match', good: 'Good match', weak: 'Weak match' };
const RELEVANCE_BARS = { strong: 3, good: 2, weak: 1 };

// Relevance a person can read: a label and three bars from the evidence (query words found,
// similarity), not the normalized score, which is 1.00 at the top of any ranking.
function relevanceOf(r) {
  const e = r.evidence;
  const words = e.query_terms ? `${e.matched_terms} of ${e.query_terms} word${e.query_terms === 1 ? '' : 's'}` : null;
  const similar = e.cosine === null || e.cosine === undefined ? null : `similarity ${e.cosine.toFixed(2)}`;
  const why = [words, e.synonym_match && !e.matched_terms ? 'a synonym' : null, similar].filter(Boolean).join(' · ');
  const bars = RELEVANCE_BARS[e.relevance] || 0;
  return h('span', {
    class: `result-score relevance-${e.relevance}`, testid: 'search-result-score',
    dataset: { relevance: e.relevance, gated: String(!!e.gated), score: String(r.score), cosine: e.cosine === null || e.cosine === undefined ? '' : e.cosine.toFixed(3) },
    title: `${RELEVANCE_LABEL[e.relevance]}: ${why}. ${e.gated ? 'Passes the relevance gate: a prompt like this gives it to the agent.' : 'Below the relevance gate: not given to an agent.'} Rank score ${r.score.toFixed(2)} (relative to the top result).`,
  },
  h('span', { class: 'relevance-bars', 'aria-hidden': 'true' }, [1, 2, 3].map((i) => h('span', { class: i <= bars ? 'on' : '' }))),
  h('span', { class: 'relevance-label' }, RELEVANCE_LABEL[e.relevance]));
}

export function createSearch(app) {
  let seq = 0;
  let shownSeq = 0;
  let rows = [];
  let active = 0;
  let open = false;
  // Beyond the memories: "Show more" when there are more, then sessions, places and actions.
  let extras = [];
  let more = false;
  const PAGE = 50;
  let page = PAGE;
  let pagedQuery = null;
  const total = () => rows.length + (more ? 1 : 0) + extras.length;

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
      if (rows[active]) { if (e.ctrlKey || e.metaKey) showInApp(rows[active]); else openInEditor(rows[active]); }
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
      extras = matchingEntries(app, query);
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
      extras = matchingEntries(app, query);
      if (!keepActive) active = 0;
      lastRoundTrip = performance.now() - started;
      render(result);
      showAnswered(query);
      // Sessions come after (recall by words, a few milliseconds), without holding memories back.
      matchingSessions(app, query).then((sessions) => {
        if (mine !== seq || !sessions.length) return;
        extras = [...sessions, ...matchingEntries(app, query)];
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

  function render(result) {
    if (!result) {
      input.removeAttribute('aria-activedescendant');
      clear(results, h('div', { class: 'search-empty', testid: 'search-empty' },
        'Type to rank memories the way an agent would get them, find past sessions, places and actions; > lists the actions.'));
      status.textContent = '';
      note.hidden = true;
      return;
    }
    const tail = [
      more ? h('div', {
        class: `search-result search-more${active === rows.length ? ' active' : ''}`, role: 'option', id: `search-option-${rows.length}`,
        testid: 'search-more', dataset: { shown: String(rows.length) }, onClick: () => choose(rows.length),
        onMousemove: () => { if (active !== rows.length) { active = rows.length; paintActive(); } },
      }, `Show more memories (${rows.length} shown)`) : null,
      ...paletteRows(extras, rows.length + (more ? 1 : 0), {
        isActive: (i) => i === active,
        choose,
        hover: (i) => { if (active !== i) { active = i; paintActive(); } },
      }),
    ];
    if (!rows.length) {
      clear(results, input.value.trim().startsWith('>') ? null : h('div', { class: 'search-empty', testid: 'search-empty' }, `No memory matches “${input.value.trim()}”.`), tail);
    } else {
      clear(results, rows.map((r, i) => h('div', {
        class: `search-result${i === active ? ' active' : ''}`, role: 'option', 'aria-selected': i === active ? 'true' : 'false', id: `search-option-${i}`,
        testid: 'search-result', dataset: { name: r.name, scope: r.scope, project: r.project || '', active: i === active ? 'true' : 'false' },
        onMousemove: () => { if (active !== i) { active = i; paintActive(); } },
        onClick: () => showInApp(r),
      },
        h('div', { class: 'result-main' },
          h('div', { class: 'result-top' },
            h('span', { class: 'result-name' }, r.name),
            h('span', { class: `badge badge-type type-${r.type}` }, r.type),
            h('span', { class: 'badge badge-scope' }, r.scope === 'user' ? 'user memory' : `only in ${app.projectName(r.project)}`)),
          h('div', { class: 'result-description' }, r.description)),
        relevanceOf(r))), tail);
    }
    status.textContent = result.strategy === 'commands'
      ? `${extras.length} place${extras.length === 1 ? '' : 's'} and actions`
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
      row.dataset.active = on ? 'true' : 'false';
      row.setAttribute('aria-selected', on ? 'true' : 'false');
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
    if (i < rows.length) { showInApp(rows[i]); return; }
    if (more && i === rows.length) {
      page += PAGE;
      extending = true;
      coalesced();
      return;
    }
    const item = extras[i - rows.length - (more ? 1 : 0)];
    if (!item) return;
    close();
    item.run();
  }

  async function openInEditor(r) {
    try {
      const what = await call('open_in_editor', { memory: { scope: r.scope, project: r.project, name: r.name } });
      toast(`Opened ${r.name} in ${what}`, 'info', 2500);
    } catch (e) {
      editorErrorToast('Could not open the editor', e);
    }
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
