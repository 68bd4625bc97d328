// Sessions: recall search over past agent transcripts (highlighted snippets), the recent
// sessions, and one transcript as readable turns; filter by source and project.
//
// data-testid:
//   sessions-view       the view                sessions-summary   "N sessions · M messages"
//   sessions-query      recall search box       sessions-source    source filter (all | claude | codex | engram)
//   sessions-project    project filter          sessions-list      results / recent sessions
//   session-row         a recent session (data-session-id, data-source)
//   recall-hit          a session with matches (data-session-id, data-source, data-matches)
//   recall-snippet      one matching turn in it (data-ts); its <mark>s are the matched words
//   sessions-empty      not indexed yet / no match state       sessions-index-now  start indexing
//   transcript-view     the transcript pane     transcript-title   its title
//   transcript-turn     one turn (data-role)    transcript-empty   nothing opened yet

import { call } from './api.js';
import { h, clear, relativeTime, absoluteTime, debounce } from './dom.js';

const SOURCES = [['', 'All sources'], ['claude', 'Claude Code'], ['codex', 'Codex'], ['engram', 'Engram']];
const SOURCE_LABEL = { claude: 'Claude Code', codex: 'Codex', engram: 'Engram' };

// A session's folder by its last component (the project, usually): a full path is cut at the
// end by the row's width, which hides exactly the part that tells sessions apart. The whole
// path is the tooltip.
function folderLabel(cwd) {
  const name = cwd.replace(/\/+$/, '').split('/').pop() || cwd;
  return h('span', { class: 'session-folder', title: cwd }, ` · ${name}`);
}

// A tool call or its output is context, often long: folded to its first line unless it is the
// turn a search hit points at.
function toolTurnBody(turn, isHit) {
  if (turn.role !== 'tool') return h('div', { class: 'turn-text' }, turn.text);
  const lines = turn.text.split('\n');
  const first = lines[0].length > 120 ? `${lines[0].slice(0, 120)}…` : lines[0];
  return h('details', { class: 'turn-fold', open: isHit || undefined },
    h('summary', {}, first, lines.length > 1 ? h('span', { class: 'muted small' }, ` · ${lines.length} lines`) : null),
    h('div', { class: 'turn-text' }, turn.text));
}

export function createSessionsView(app) {
  let seq = 0;
  let openId = null;
  let items = [];
  let active = -1;

  const summary = h('span', { class: 'subtitle', testid: 'sessions-summary' }, 'Search what you and your agents said in past sessions');
  const query = h('input', { class: 'input filter', type: 'search', testid: 'sessions-query', placeholder: 'Words, "a phrase" or prefix*', title: 'Search transcripts: words (all must match), "an exact phrase", prefix* or OR', 'aria-label': 'Search sessions', spellcheck: 'false' });
  const source = h('select', { class: 'select', testid: 'sessions-source', 'aria-label': 'Source' }, SOURCES.map(([v, l]) => h('option', { value: v }, l)));
  const project = h('select', { class: 'select', testid: 'sessions-project', 'aria-label': 'Project' });
  const list = h('div', { class: 'sessions-list', testid: 'sessions-list', tabindex: '0', role: 'listbox', 'aria-label': 'Sessions' });
  const pane = h('div', { class: 'detail-pane transcript', testid: 'transcript-view' });

  const el = h('section', { class: 'view sessions-view', testid: 'sessions-view' },
    h('header', { class: 'view-header' },
      h('div', { class: 'view-titles' }, h('h1', {}, 'Sessions'), summary),
      h('div', { class: 'view-actions' }, source, project)),
    h('div', { class: 'split' },
      h('div', { class: 'list-pane' }, h('div', { class: 'list-tools' }, query), list),
      pane));

  const refresh = debounce(() => run(), 120);
  query.addEventListener('input', refresh);
  source.addEventListener('change', () => run());
  project.addEventListener('change', () => run());
  query.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown') { e.preventDefault(); list.focus(); move(1); }
  });
  list.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown') { e.preventDefault(); move(1); }
    else if (e.key === 'ArrowUp') { e.preventDefault(); move(-1); }
  });

  function move(delta) {
    if (!items.length) return;
    active = Math.min(items.length - 1, Math.max(0, active + delta));
    const item = items[active];
    open(item.session_id, item.ts || null);
  }

  function fillProjects() {
    const current = project.value;
    const withRoots = app.projects.filter((p) => p.roots.length);
    clear(project, h('option', { value: '' }, 'All projects'), withRoots.map((p) => h('option', { value: p.slug }, p.name)));
    project.value = withRoots.some((p) => p.slug === current) ? current : '';
  }

  async function loadOverview() {
    try {
      const o = await call('sessions_overview');
      summary.textContent = o.sessions
        ? `${o.sessions} session${o.sessions === 1 ? '' : 's'} · ${o.messages} messages indexed${o.newest ? ` · newest ${relativeTime(o.newest)}` : ''}`
        : 'Search what you and your agents said in past sessions';
      return o;
    } catch (e) {
      summary.textContent = e.message;
      return null;
    }
  }

  async function run() {
    const mine = ++seq;
    const text = query.value.trim();
    const src = source.value || null;
    try {
      if (text) {
        const hits = await call('recall_sessions', { query: text, source: src, project: project.value || null, limit: 50 });
        if (mine !== seq) return;
        renderHits(hits, text);
      } else {
        let sessions = await call('list_sessions', { source: src, limit: 300 });
        if (mine !== seq) return;
        const p = app.projects.find((x) => x.slug === project.value);
        if (p) sessions = sessions.filter((s) => s.cwd && p.roots.some((r) => s.cwd === r || s.cwd.startsWith(`${r}/`)));
        renderSessions(sessions);
      }
    } catch (e) {
      if (mine !== seq) return;
      items = [];
      clear(list, h('div', { class: 'error-box' }, e.message));
    }
  }

  function emptyState(title, text, offerIndex) {
    return h('div', { class: 'empty-state', testid: 'sessions-empty' },
      h('div', { class: 'empty-title' }, title), h('p', {}, text),
      offerIndex ? h('button', { class: 'btn btn-primary', testid: 'sessions-index-now', onClick: () => app.reindex() }, 'Index now') : null);
  }

  function renderSessions(sessions) {
    items = sessions.map((s) => ({ session_id: s.session_id, ts: null }));
    active = items.findIndex((i) => i.session_id === openId);
    if (!sessions.length) {
      clear(list, (source.value || project.value)
        ? emptyState('No sessions', 'No indexed session matches these filters.', false)
        : emptyState('Not indexed yet', 'Transcripts from Claude Code, Codex and Engram are indexed in the background. Run a reindex to pick up everything now.', true));
      return;
    }
    clear(list, sessions.map((s) => h('div', {
      class: `session-row${s.session_id === openId ? ' selected' : ''}`, role: 'option', testid: 'session-row',
      dataset: { sessionId: s.session_id, source: s.source }, onClick: () => open(s.session_id),
    },
      h('div', { class: 'row-top' }, h('span', { class: 'row-name' }, s.title || '(untitled session)'),
        h('span', { class: 'row-time', title: absoluteTime(s.last_ts) }, relativeTime(s.last_ts))),
      h('div', { class: 'row-description' },
        h('span', { class: `badge badge-source source-${s.source}` }, SOURCE_LABEL[s.source] || s.source), ' ',
        `${s.messages} messages`, s.cwd ? folderLabel(s.cwd) : null))));
  }

  // One entry per session, in the order of its best hit, with up to three of its matching
  // turns: four hits in one conversation are one place to look, not four.
  function renderHits(hits, text) {
    const groups = [];
    const bySession = new Map();
    for (const hit of hits) {
      let group = bySession.get(hit.session_id);
      if (!group) {
        group = { best: hit, hits: [] };
        bySession.set(hit.session_id, group);
        groups.push(group);
      }
      group.hits.push(hit);
    }
    items = groups.map((g) => ({ session_id: g.best.session_id, ts: g.best.ts }));
    active = -1;
    if (!groups.length) {
      clear(list, emptyState('No match', `Nothing said in an indexed session matches “${text}”.`, false));
      return;
    }
    const snippet = (hit) => h('div', {
      class: 'snippet', testid: 'recall-snippet', dataset: { ts: hit.ts || '' },
      onClick: (e) => { e.stopPropagation(); open(hit.session_id, hit.ts); },
    }, h('span', { class: `role role-${hit.role}` }, hit.role), ' ',
      (hit.snippet_parts && hit.snippet_parts.length ? hit.snippet_parts : [{ text: hit.snippet, hit: false }])
        .map((part) => (part.hit ? h('mark', {}, part.text) : part.text)));
    clear(list, groups.map(({ best, hits: mine }) => h('div', {
      class: `recall-hit${best.session_id === openId ? ' selected' : ''}`, role: 'option', testid: 'recall-hit',
      dataset: { sessionId: best.session_id, source: best.source, matches: String(mine.length) }, onClick: () => open(best.session_id, best.ts),
    },
      h('div', { class: 'row-top' }, h('span', { class: 'row-name' }, best.title || '(untitled session)'),
        h('span', { class: 'row-time', title: absoluteTime(best.ts) }, relativeTime(best.ts))),
      mine.slice(0, 3).map(snippet),
      h('div', { class: 'row-description' },
        h('span', { class: `badge badge-source source-${best.source}` }, SOURCE_LABEL[best.source] || best.source), ' ',
        mine.length > 3 ? `${mine.length} matching turns` : null,
        best.cwd ? folderLabel(best.cwd) : null))));
  }

  function renderNothingOpen() {
    clear(pane, h('div', { class: 'empty-state', testid: 'transcript-empty' },
      h('div', { class: 'empty-title' }, 'No session open'),
      h('p', {}, 'Search above, or pick a recent session to read it as turns.')));
  }

  async function open(sessionId, ts = null) {
    openId = sessionId;
    for (const row of list.querySelectorAll('[data-session-id]')) {
      const on = row.dataset.sessionId === sessionId;
      row.classList.toggle('selected', on);
      if (on) row.scrollIntoView({ block: 'nearest' });
    }
    let t;
    try {
      t = await call('session_transcript', { sessionId });
    } catch (e) {
      clear(pane, h('div', { class: 'error-box' }, e.message));
      return;
    }
    if (openId !== sessionId) return;
    const m = t.meta;
    let target = null;
    const turns = t.turns.map((turn) => {
      const node = h('div', { class: `turn turn-${turn.role}`, testid: 'transcript-turn', dataset: { role: turn.role } },
        h('div', { class: 'turn-head' }, h('span', { class: `role role-${turn.role}` }, turn.role),
          h('span', { class: 'muted small' }, turn.ts ? absoluteTime(turn.ts) : '')),
        toolTurnBody(turn, ts && turn.ts === ts));
      if (ts && !target && turn.ts === ts) target = node;
      return node;
    });
    clear(pane,
      h('div', { class: 'detail-head' },
        h('div', { class: 'detail-badges' }, h('span', { class: `badge badge-source source-${m.source}` }, SOURCE_LABEL[m.source] || m.source),
          m.model ? h('span', { class: 'badge' }, m.model) : null),
        h('h2', { class: 'detail-name', testid: 'transcript-title' }, m.title || '(untitled session)'),
        h('div', { class: 'detail-meta' },
          m.cwd ? h('span', { class: 'mono' }, m.cwd) : null,
          m.first_ts ? h('span', {}, `${absoluteTime(m.first_ts)} → ${absoluteTime(m.last_ts)}`) : null,
          h('span', {}, `${t.turns.length} turns`))),
      h('div', { class: 'turns' }, turns.length ? turns : h('p', { class: 'muted' }, 'This session has no readable turns.')));
    if (target) {
      target.classList.add('turn-hit');
      target.scrollIntoView({ block: 'center' });
    } else pane.scrollTop = 0;
  }

  // A transcript written while the view is open refreshes the results in place, search
  // results included: an agent's latest turn is often what the person is looking for.
  const onChange = debounce(async () => {
    if (!el.isConnected) return;
    await loadOverview();
    run();
  }, 500);

  return {
    el,
    show: async () => {
      fillProjects();
      if (!openId) renderNothingOpen();
      await loadOverview();
      await run();
      query.focus();
    },
    onChange,
  };
}
