// Sessions: recall search over past agent transcripts (highlighted snippets), the recent
// sessions, and one transcript as readable turns; filter by source and project.
//
// data-testid:
//   sessions-view       the view                sessions-summary   "N sessions · M messages"
//   sessions-query      recall search box       sessions-source    source filter (all | claude | codex | ambry)
//   sessions-project    project filter          sessions-list      results / recent sessions
//   session-row         a recent session (data-session-id, data-source)
//   recall-hit          a session with matches (data-session-id, data-source, data-matches)
//   recall-snippet      one matching turn in it (data-ts); its <mark>s are the matched words
//   sessions-empty      not indexed yet / no match state       sessions-index-now  start indexing
//   transcript-view     the transcript pane (a Tab stop of its own)
//   transcript-title    its title
//   transcript-turn     one turn (data-role)    transcript-empty   nothing opened yet
//   vault-marker        "transcript deleted" on a row, a hit or the transcript (data-removed-at)
//   transcript-vaulted  the transcript's note that its file is gone and the index kept it
//   recall-run          a matching subagent or compaction run under its session's hit (data-kind)
//   recall-run-of       a run shown for a conversation that did not match itself (data-parent)
//   transcript-context  agent context in a transcript (data-label): reminders, notifications,
//                       command echoes the person did not type; folded, never shown as theirs
//                       (a compacted conversation's summary marks where it was compacted)
//   tool-group          consecutive tool calls and results, folded as one (data-count); each
//                       call and result inside is folded too
//   (actions on a transcript and what Ambry gave it: see session-actions.js)

import { call } from './api.js';
import { h, clear, relativeTime, absoluteTime, debounce } from './dom.js';
import { transcriptActions, injectionsSection, ruleChecksSection } from './session-actions.js';

const SOURCES = [['', 'All sources'], ['claude', 'Claude Code'], ['codex', 'Codex'], ['ambry', 'Ambry']];
const SOURCE_LABEL = { claude: 'Claude Code', codex: 'Codex', ambry: 'Ambry' };

function messagesLabel(n) {
  return `${n} message${n === 1 ? '' : 's'}`;
}

// A session's folder by its last component (the project, usually): a full path is cut at the
// end by the row's width, which hides exactly the part that tells sessions apart. The whole
// path is the tooltip.
function folderLabel(cwd) {
  const name = cwd.replace(/\/+$/, '').split('/').pop() || cwd;
  return h('span', { class: 'session-folder', title: cwd }, ` · ${name}`);
}

// A session whose transcript file was deleted (Claude Code purges old ones) stays in the index:
// marked with when the file was found gone, so the person knows this copy is the only one.
function vaultMarker(removedAt) {
  if (!removedAt) return null;
  return h('span', { class: 'badge vault-marker', testid: 'vault-marker', dataset: { removedAt }, title: `The transcript file was found deleted ${absoluteTime(removedAt)}; Ambry kept what it had indexed` },
    `File deleted ${relativeTime(removedAt)}`);
}

// A tool call is recorded as `name {json arguments}`: shown as the tool's name and its
// arguments one per line (a command or a path reads as itself, not as escaped JSON).
function readableTool(text) {
  const m = /^([\w.:-]+) (\{[\s\S]*\})$/.exec(text);
  if (!m) return null;
  let args;
  try { args = JSON.parse(m[2]); } catch { return null; }
  if (!args || typeof args !== 'object' || Array.isArray(args)) return null;
  const entries = Object.entries(args);
  const show = (v) => (typeof v === 'string' ? v : JSON.stringify(v, null, 2));
  const headline = entries.find(([, v]) => typeof v === 'string' && v.trim());
  return {
    summary: headline ? `${m[1]} · ${headline[1].split('\n')[0]}` : m[1],
    body: entries.map(([k, v]) => `${k}: ${show(v)}`).join('\n'),
  };
}

// A snippet with its matched words marked (never the terminal's [brackets]).
function snippetParts(hit) {
  return (hit.snippet_parts && hit.snippet_parts.length ? hit.snippet_parts : [{ text: hit.snippet, hit: false }])
    .map((part) => (part.hit ? h('mark', {}, part.text) : part.text));
}

// " · 3 tool calls": calls, not their results (a call is recorded as `name {arguments}`; a
// transcript whose tool turns are all free text counts each).
function toolCountLabel(turns) {
  const tools = turns.filter((x) => x.role === 'tool');
  if (!tools.length) return '';
  const calls = tools.filter((x) => /^[\w.:-]+ \{/.test(x.text)).length || tools.length;
  return ` · ${calls} tool call${calls === 1 ? '' : 's'}`;
}

// Consecutive tool turns (calls and their results) as one fold: "4 tool calls · Read, Bash",
// open when the turn a search pointed at is inside. A lone tool turn stays as it is.
function groupToolTurns(turns, nodes, isTarget) {
  const out = [];
  for (let i = 0; i < turns.length;) {
    if (turns[i].role !== 'tool') { out.push(nodes[i]); i += 1; continue; }
    let end = i;
    while (end < turns.length && turns[end].role === 'tool') end += 1;
    if (end - i < 2) { out.push(nodes[i]); i = end; continue; }
    const calls = turns.slice(i, end).map((t) => readableTool(t.text)).filter(Boolean);
    const names = [...new Set(turns.slice(i, end).map((t) => /^([\w.:-]+) \{/.exec(t.text)).filter(Boolean).map((m) => m[1]))];
    const count = calls.length || end - i;
    const results = end - i - calls.length;
    out.push(h('details', { class: 'turn-group', testid: 'tool-group', dataset: { count: String(end - i) }, open: nodes.slice(i, end).some(isTarget) || undefined },
      h('summary', { tabindex: '-1' }, `${count} tool call${count === 1 ? '' : 's'}`,
        results > 0 ? h('span', { class: 'muted small' }, ` and ${results} result${results === 1 ? '' : 's'}`) : null,
        names.length ? h('span', { class: 'muted small' }, ` · ${names.slice(0, 4).join(', ')}${names.length > 4 ? ', …' : ''}`) : null),
      nodes.slice(i, end)));
    i = end;
  }
  return out;
}

// Text with the query's words marked, so the reason a turn matched is visible in it.
function marked(text, words) {
  if (!words.length) return text;
  const pattern = new RegExp(`\\b(${words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})\\w*`, 'gi');
  const out = [];
  let last = 0;
  for (const m of text.matchAll(pattern)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    out.push(h('mark', { class: 'turn-mark' }, m[0]));
    last = m.index + m[0].length;
  }
  out.push(text.slice(last));
  return out;
}

// The words of a recall query (FTS5 syntax stripped: quotes, OR/AND/NOT, a trailing *).
export function queryWords(query) {
  return (query.match(/[\p{L}\p{N}_]+/gu) || []).filter((w) => !['OR', 'AND', 'NOT', 'NEAR'].includes(w) && w.length > 1);
}

// A tool call or its output is context, often long: folded to its first line unless it is the
// turn a search hit points at. Its summary is not a Tab stop of its own: the transcript's tool
// turns are one arrow-key group (see `rovingTools`).
function toolTurnBody(turn, isHit, words) {
  // What an agent injected (a task notification, a system reminder): folded under its name.
  if (turn.role === 'context') {
    // Its gist as the summary line: a notification's own summary, else its first words.
    const gist = /<summary>([\s\S]*?)<\/summary>/.exec(turn.text);
    const first = (gist ? gist[1] : turn.text.replace(/<[^>]*>/g, ' ')).split('\n').map((l) => l.trim()).find(Boolean) || turn.label || '';
    return h('details', { class: 'turn-fold turn-context-fold' },
      h('summary', { tabindex: '-1' }, first.length > 120 ? `${first.slice(0, 120)}…` : first),
      h('div', { class: 'turn-text' }, marked(turn.text, words)));
  }
  if (turn.role !== 'tool') return h('div', { class: 'turn-text' }, marked(turn.text, words));
  const tool = readableTool(turn.text);
  const text = tool ? tool.body : turn.text;
  const lines = text.split('\n');
  const headline = tool ? tool.summary : lines[0];
  const first = headline.length > 120 ? `${headline.slice(0, 120)}…` : headline;
  return h('details', { class: 'turn-fold', open: isHit || undefined },
    h('summary', { tabindex: '-1' }, first, lines.length > 1 ? h('span', { class: 'muted small' }, ` · ${lines.length} lines`) : null),
    h('div', { class: 'turn-text' }, marked(text, words)));
}

// Makes the folded tool calls of a transcript one Tab stop: Tab reaches the first (or the one
// last used), ↑/↓ (and Home/End) move between them, Enter/Space unfold as usual.
function rovingTools(container) {
  // The folds on screen: a call inside a closed group is not reachable until it opens.
  const shown = () => [...container.querySelectorAll('.turn-fold > summary, .turn-group > summary')].filter((s) => s.getClientRects().length);
  const first = shown()[0];
  if (!first) return;
  first.tabIndex = 0;
  container.addEventListener('keydown', (e) => {
    const summaries = shown();
    const at = summaries.indexOf(e.target);
    if (at === -1) return;
    let next = null;
    if (e.key === 'ArrowDown') next = Math.min(summaries.length - 1, at + 1);
    else if (e.key === 'ArrowUp') next = Math.max(0, at - 1);
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = summaries.length - 1;
    if (next === null) return;
    e.preventDefault();
    summaries[at].tabIndex = -1;
    summaries[next].tabIndex = 0;
    summaries[next].focus();
    summaries[next].scrollIntoView({ block: 'nearest' });
  });
}

export function createSessionsView(app) {
  let seq = 0;
  let openId = null;
  let items = [];
  let active = -1;
  let openTs = null; // the turn a recall hit pointed at, for highlighting the query's words

  const summary = h('span', { class: 'subtitle', testid: 'sessions-summary' }, 'Search what you and your agents said in past sessions');
  const query = h('input', { class: 'input filter', type: 'search', testid: 'sessions-query', placeholder: 'Words, "a phrase" or prefix*', title: 'Search transcripts: words (all must match), "an exact phrase", prefix* or OR', 'aria-label': 'Search sessions', spellcheck: 'false' });
  const source = h('select', { class: 'select', testid: 'sessions-source', 'aria-label': 'Source' }, SOURCES.map(([v, l]) => h('option', { value: v }, l)));
  const project = h('select', { class: 'select', testid: 'sessions-project', 'aria-label': 'Project' });
  const list = h('div', { class: 'sessions-list', testid: 'sessions-list', tabindex: '0', role: 'listbox', 'aria-label': 'Sessions' });
  // A Tab stop of its own, so a transcript without tool calls scrolls from the keyboard too.
  const pane = h('div', { class: 'detail-pane transcript', testid: 'transcript-view', tabindex: '0', role: 'region', 'aria-label': 'Transcript' });
  let shownQuery = null; // the query the hits in the list answer

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
    if (e.key === 'ArrowDown') { e.preventDefault(); list.focus(); move(active === -1 ? 1 : 0); }
  });
  list.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown') { e.preventDefault(); move(1); }
    else if (e.key === 'ArrowUp') { e.preventDefault(); move(-1); }
    else if (e.key === 'Enter' && items.length) {
      // The highlighted result (the top hit of a new query), as the search overlay does.
      e.preventDefault();
      move(active === -1 ? 1 : 0);
    }
  });

  // The row ↑/↓ and Enter start from, marked for eyes and screen readers alike.
  function markActive() {
    const rows = [...list.querySelectorAll('[role="option"]')];
    rows.forEach((row, i) => row.classList.toggle('active', i === active));
    if (rows[active]) list.setAttribute('aria-activedescendant', rows[active].id);
    else list.removeAttribute('aria-activedescendant');
  }

  function move(delta) {
    if (!items.length) return;
    active = Math.min(items.length - 1, Math.max(0, active + delta));
    markActive();
    const item = items[active];
    open(item.session_id, item.ts || null);
  }

  // The project filter: Ambry's projects (`p:<slug>`), then every other folder sessions ran
  // in (`d:<path>`; Claude Code and Codex know projects Ambry has never seen).
  let folders = [];
  function fillProjects() {
    const current = project.value;
    const withRoots = app.projects.filter((p) => p.roots.length);
    const inProject = (cwd) => withRoots.some((p) => p.roots.some((r) => cwd === r || cwd.startsWith(`${r}/`)));
    const others = folders.filter((cwd) => !inProject(cwd));
    clear(project, h('option', { value: '' }, 'All projects'),
      withRoots.length ? h('optgroup', { label: 'Ambry projects' }, withRoots.map((p) => h('option', { value: `p:${p.slug}` }, p.name))) : null,
      others.length ? h('optgroup', { label: 'Other folders' }, others.map((cwd) => h('option', { value: `d:${cwd}`, title: cwd }, folderName(cwd)))) : null);
    project.value = [...project.options].some((o) => o.value === current) ? current : '';
  }

  function folderName(cwd) {
    return cwd.replace(/\/+$/, '').split('/').pop() || cwd;
  }

  // What the project filter stands for: a project's roots, or one folder.
  function chosenRoots() {
    const v = project.value;
    if (v.startsWith('p:')) { const p = app.projects.find((x) => x.slug === v.slice(2)); return p ? p.roots : []; }
    if (v.startsWith('d:')) return [v.slice(2)];
    return null;
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
        const v = project.value;
        const args = {
          query: text, source: src, limit: 50,
          project: v.startsWith('p:') ? v.slice(2) : null, folder: v.startsWith('d:') ? v.slice(2) : null,
        };
        const answer = await call('recall_sessions', args);
        if (mine !== seq) return;
        renderHits(answer.hits, text);
        // Answered by words while the model loads: the ranked answer replaces it when ready,
        // unless the person typed on (then that query's answer is what counts).
        if (answer.model_pending) {
          list.dataset.refining = 'true';
          const refined = await call('recall_sessions', { ...args, waitForModel: true });
          if (mine !== seq) return;
          delete list.dataset.refining;
          renderHits(refined.hits, text);
        }
      } else {
        let sessions = await call('list_sessions', { source: src, limit: 300 });
        if (mine !== seq) return;
        const seen = [...new Set(sessions.map((s) => s.cwd).filter(Boolean))].sort((a, b) => folderName(a).localeCompare(folderName(b)));
        if (seen.join('\n') !== folders.join('\n')) { folders = seen; fillProjects(); }
        const roots = chosenRoots();
        if (roots) sessions = sessions.filter((s) => s.cwd && roots.some((r) => s.cwd === r || s.cwd.startsWith(`${r}/`)));
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
    shownQuery = null;
    items = sessions.map((s) => ({ session_id: s.session_id, ts: null }));
    active = items.findIndex((i) => i.session_id === openId);
    if (!sessions.length) {
      clear(list, (source.value || project.value)
        ? emptyState('No sessions', 'No indexed session matches these filters.', false)
        : emptyState('Not indexed yet', 'Transcripts from Claude Code, Codex and Ambry are indexed in the background. Run a reindex to pick up everything now.', true));
      return;
    }
    clear(list, sessions.map((s) => h('div', {
      class: `session-row${s.session_id === openId ? ' selected' : ''}`, role: 'option', testid: 'session-row', id: `session-option-${s.session_id}`,
      dataset: { sessionId: s.session_id, source: s.source }, onClick: () => open(s.session_id),
    },
      h('div', { class: 'row-top' }, h('span', { class: 'row-name' }, s.title || '(untitled session)'),
        h('span', { class: 'row-time', title: absoluteTime(s.last_ts) }, relativeTime(s.last_ts))),
      h('div', { class: 'row-description' },
        h('span', { class: `badge badge-source source-${s.source}` }, SOURCE_LABEL[s.source] || s.source), ' ',
        s.source_removed_at ? [vaultMarker(s.source_removed_at), ' '] : null,
        messagesLabel(s.messages), s.cwd ? folderLabel(s.cwd) : null),
      runsOf(s))));
  }

  // A session's subagent and compaction runs, folded under it: each opens on its own.
  function runsOf(s) {
    if (!s.runs || !s.runs.length) return null;
    return h('div', { class: 'session-runs' }, s.runs.map((r) => h('button', {
      class: 'session-run', testid: 'session-run', type: 'button', tabindex: '-1',
      dataset: { sessionId: r.session_id, kind: r.kind, parent: s.session_id },
      onClick: (e) => { e.stopPropagation(); open(r.session_id); },
    }, h('span', { class: `badge run-${r.kind}` }, r.kind === 'compaction' ? 'compaction' : 'subagent'), ' ',
    h('span', { class: 'run-title' }, r.kind === 'compaction' ? 'Conversation summary' : (r.title || 'Subagent run')),
    h('span', { class: 'muted small' }, ` · ${messagesLabel(r.messages)}`))));
  }

  // One entry per session, best first, with its best turns (up to three): the core ranks
  // sessions as sessions (their best turns and their whole text), so four matching turns in one
  // conversation are one place to look, not four.
  function renderHits(hits, text) {
    delete list.dataset.refining;
    items = hits.map((hit) => ({ session_id: hit.session_id, ts: hit.ts }));
    // A new query starts at its top hit (the session read before is no longer the one Enter
    // opens); the same query refreshed (an agent wrote) keeps the reader's place.
    const same = text === shownQuery;
    shownQuery = text;
    const stay = same ? items.findIndex((i) => i.session_id === openId) : -1;
    active = stay !== -1 ? stay : (hits.length ? 0 : -1);
    if (!hits.length) {
      clear(list, emptyState('No match', `Nothing said in an indexed session matches “${text}”.`, false));
      return;
    }
    const turnsOf = (hit) => (hit.turns && hit.turns.length ? hit.turns : [hit]);
    const snippet = (hit, turn) => h('div', {
      class: 'snippet', testid: 'recall-snippet', dataset: { ts: turn.ts || '' },
      onClick: (e) => { e.stopPropagation(); open(hit.session_id, turn.ts); },
    }, h('span', { class: `role role-${turn.role}` }, turn.role), ' ',
      snippetParts(turn));
    clear(list, hits.map((hit) => {
      const turns = turnsOf(hit);
      const matching = hit.matching_turns ?? turns.length;
      return h('div', {
        class: `recall-hit${hit.session_id === openId && same ? ' selected' : ''}`, role: 'option', testid: 'recall-hit', id: `session-option-${hit.session_id}`,
        dataset: { sessionId: hit.session_id, source: hit.source, matches: String(matching) }, onClick: () => open(hit.session_id, hit.ts),
      },
        h('div', { class: 'row-top' }, h('span', { class: 'row-name' }, hit.title || '(untitled session)'),
          h('span', { class: 'row-time', title: absoluteTime(hit.ts) }, relativeTime(hit.ts))),
        hit.run_of ? h('div', { class: 'muted small', testid: 'recall-run-of', dataset: { parent: hit.run_of.parent } },
          hit.run_of.kind === 'compaction' ? 'A summary of a longer conversation' : 'Work a subagent did in a longer conversation') : null,
        turns.slice(0, 3).map((turn) => snippet(hit, turn)),
        recalledRuns(hit),
        h('div', { class: 'row-description' },
          h('span', { class: `badge badge-source source-${hit.source}` }, SOURCE_LABEL[hit.source] || hit.source), ' ',
          hit.source_removed_at ? [vaultMarker(hit.source_removed_at), ' '] : null,
          matching > 3 ? `${matching} matching turns` : null,
          hit.cwd ? folderLabel(hit.cwd) : null));
    }));
    markActive();
  }

  // A conversation's matching subagent and compaction runs, under it (one result, not one per
  // run); each opens on its own.
  function recalledRuns(hit) {
    if (!hit.runs || !hit.runs.length) return null;
    return h('div', { class: 'session-runs' }, hit.runs.map((r) => h('button', {
      class: 'session-run', testid: 'recall-run', type: 'button', tabindex: '-1',
      dataset: { sessionId: r.session_id, kind: r.kind, parent: hit.session_id },
      onClick: (e) => { e.stopPropagation(); open(r.session_id, r.ts); },
    }, h('span', { class: `badge run-${r.kind}` }, r.kind === 'compaction' ? 'compaction' : 'subagent'), ' ',
    h('span', { class: 'run-title' }, r.kind === 'compaction' ? 'Conversation summary' : (r.title || 'Subagent run')),
    h('span', { class: 'muted small run-snippet' }, ' · ', r.matching_turns > 1 ? `${r.matching_turns} matching turns` : snippetParts(r)))));
  }

  function renderNothingOpen() {
    clear(pane, h('div', { class: 'empty-state', testid: 'transcript-empty' },
      h('div', { class: 'empty-title' }, 'No session open'),
      h('p', {}, 'Search above, or pick a recent session to read it as turns.')));
  }

  // `keepPlace`: a refresh of the open transcript (the agent appended turns) keeps the reader's
  // scroll position, or follows the end if they were reading the end.
  async function open(sessionId, ts = null, { keepPlace = false } = {}) {
    openId = sessionId;
    if (!keepPlace) openTs = ts;
    const atEnd = pane.scrollHeight - pane.scrollTop - pane.clientHeight < 40;
    const scrollTop = pane.scrollTop;
    for (const row of list.querySelectorAll('[data-session-id]')) {
      const on = row.dataset.sessionId === sessionId;
      row.classList.toggle('selected', on);
      row.setAttribute('aria-selected', on ? 'true' : 'false');
      if (on) { row.scrollIntoView({ block: 'nearest' }); list.setAttribute('aria-activedescendant', row.id); }
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
    /** @type {HTMLElement|null} */
    let target = null;
    const words = openTs !== null && query.value.trim() ? queryWords(query.value) : [];
    ts = keepPlace ? null : ts;
    const turns = t.turns.map((turn) => {
      const context = turn.role === 'context';
      const node = h('div', { class: `turn turn-${turn.role}`, testid: context ? 'transcript-context' : 'transcript-turn', dataset: { role: turn.role, label: turn.label || '' } },
        h('div', { class: 'turn-head' }, h('span', { class: `role role-${turn.role}`, title: context ? 'Injected by the agent, not typed by the person' : null }, context ? `${turn.label || 'agent context'}` : turn.role),
          h('span', { class: 'muted small' }, turn.ts ? absoluteTime(turn.ts) : '')),
        toolTurnBody(turn, ts && turn.ts === ts, words));
      if (ts && !target && turn.ts === ts && !context) target = node;
      return node;
    });
    const said = t.turns.filter((x) => x.role === 'user' || x.role === 'assistant');
    // A save starts from the answer: the turn the search pointed at when it is the agent's, else
    // the agent's reply to it (or to the person's first question) — its last words before the
    // person spoke again, where it concludes. What is worth keeping is what was found out, not
    // what was asked; a question without a reply is kept as asked.
    const hitTurn = ts ? t.turns.find((x) => x.ts === ts && x.role !== 'context') : null;
    const passage = () => {
      const asked = hitTurn || said.find((x) => x.role === 'user');
      if (!asked || asked.role !== 'user') return (asked || { text: '' }).text;
      let reply = null;
      for (const x of said.slice(said.indexOf(asked) + 1)) {
        if (x.role === 'user') break;
        if (x.text.trim()) reply = x;
      }
      return (reply || asked).text;
    };
    const given = await injectionsSection(sessionId);
    const checked = await ruleChecksSection(sessionId);
    if (openId !== sessionId) return;
    clear(pane,
      h('div', { class: 'detail-head' },
        h('div', { class: 'detail-badges' }, h('span', { class: `badge badge-source source-${m.source}` }, SOURCE_LABEL[m.source] || m.source),
          m.model ? h('span', { class: 'badge' }, m.model) : null, vaultMarker(m.source_removed_at)),
        h('h2', { class: 'detail-name', testid: 'transcript-title' }, m.title || '(untitled session)'),
        h('div', { class: 'detail-meta' },
          m.cwd ? h('span', { class: 'mono' }, m.cwd) : null,
          m.first_ts ? h('span', {}, `${absoluteTime(m.first_ts)} → ${absoluteTime(m.last_ts)}`) : null,
          // Same unit as the list (messages: what the person and the agent said), tool calls apart.
          h('span', { testid: 'transcript-count' }, messagesLabel(said.length), toolCountLabel(t.turns))),
        transcriptActions(app, t, pane, { passage, onPruned: pruned })),
      given,
      checked,
      m.source_removed_at ? h('div', { class: 'banner transcript-vaulted', testid: 'transcript-vaulted' },
        `The transcript file was deleted (found missing ${absoluteTime(m.source_removed_at)}). These are the turns Ambry had indexed, the only copy left; `,
        h('em', {}, 'Remove from index'), ' deletes them.') : null,
      h('div', { class: 'turns', testid: 'transcript-turns' }, turns.length ? groupToolTurns(t.turns, turns, (node) => node === target) : h('p', { class: 'muted' }, 'This session has no readable turns.')));
    rovingTools(pane);
    import('./distill.js').then((d) => d.attachDistill(pane, m)).catch(() => {});
    pane.dataset.turns = String(t.turns.length);
    if (keepPlace) {
      pane.scrollTop = atEnd ? pane.scrollHeight : scrollTop;
    } else if (target) {
      target.classList.add('turn-hit');
      target.scrollIntoView({ block: 'center' });
    } else pane.scrollTop = 0;
  }

  // The open session was removed from the index: nothing is open, the list no longer has it.
  function pruned() {
    openId = null;
    renderNothingOpen();
    loadOverview();
    run();
  }

  // A transcript written while the view is open refreshes the results in place, search
  // results included: an agent's latest turn is often what the person is looking for.
  const onChange = debounce(async () => {
    if (!el.isConnected) return;
    await loadOverview();
    run();
    if (openId) open(openId, null, { keepPlace: true });
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
    focusMain: () => query.focus(),
    // Opened from elsewhere (the palette): the transcript, focused for reading by keyboard.
    openSession: async (sessionId, ts = null) => {
      await open(sessionId, ts);
      pane.focus();
    },
  };
}
