// What Ctrl+K reaches besides memories: places (trust anchors, agents' files, each project,
// the tools) and actions (reindex, connect Claude Code or Codex, open config.toml, sync now,
// prune the archive, new memory, add a project, distill a project's sessions, say when memories are
// needed), matched by their words;
// and past sessions, by recall. Each entry runs when chosen. A query that names a place or
// action exactly (`USER.md`, `CLAUDE.md`, `Settings`, `Sessions`, `config.toml`) marks it
// `exact`, so the overlay lists it first.
// Deliberately does not: rank memories or draw the overlay (see search.js).
//
// data-testid:
//   palette-item     a place, an action or a session (data-kind = action | place | session, data-key,
//                    data-exact = "true" when the query is its name)
//   palette-section  a section's heading (data-kind; "exact" over what the query names exactly)

import { call } from './api.js';
import { h } from './dom.js';

// Every place and action, for `app` as it is now (its projects).
function entries(app) {
  const go = (route, options) => () => app.navigate(route, { byKeyboard: true, ...options });
  const out = [
    { kind: 'action', key: 'reindex', label: 'Reindex', hint: 'bring vectors and the session index up to date', run: () => app.reindex() },
    { kind: 'action', key: 'new-memory', label: 'New memory', hint: 'in your user memories', run: () => app.newMemory({ scope: 'user', project: null }) },
    { kind: 'action', key: 'connect', label: 'Connect an agent', hint: 'Claude Code or Codex, in Settings', run: () => focusInAgents(app, 'button') },
    { kind: 'action', key: 'connect-claude', label: 'Connect Claude Code', hint: 'its hook and MCP server; shows what changes first', names: ['claude', 'claude code'], run: () => focusInAgents(app, '[data-agent="claude"] [data-testid="agent-toggle"]') },
    { kind: 'action', key: 'connect-codex', label: 'Connect Codex', hint: 'its hook and MCP server; shows what changes first', names: ['codex'], run: () => focusInAgents(app, '[data-agent="codex"] [data-testid="agent-toggle"]') },
    { kind: 'action', key: 'open-config', label: 'Open config.toml', hint: 'in your editor; created with every default when missing', names: ['config.toml', 'config'], run: () => app.openConfig() },
    { kind: 'action', key: 'sync-now', label: 'Sync now', hint: 'send and pull your memories through personal sync (git)', names: ['sync'], run: () => app.syncNow() },
    { kind: 'action', key: 'prune-archive', label: 'Prune archive…', hint: 'old versions by the policy, with a preview of what goes', names: ['prune'], run: () => app.pruneArchive() },
    { kind: 'action', key: 'add-project', label: 'Add a project…', hint: 'pick its folder', run: () => app.addProject() },
    { kind: 'place', key: 'user-md', label: 'USER.md', hint: 'trust anchor', names: ['user.md'], run: go({ view: 'anchor', project: null }) },
    { kind: 'place', key: 'agents-files', label: 'Agents’ files', hint: 'CLAUDE.md, AGENTS.md', names: ['claude.md', 'agents.md', 'agents files'], run: go({ view: 'instructions', project: app.instructionsProject(), kind: null }) },
    { kind: 'place', key: 'user-memories', label: 'User memories', hint: 'memories', run: go({ view: 'memories', location: { scope: 'user', project: null } }) },
    { kind: 'place', key: 'sessions', label: 'Sessions', hint: 'search past transcripts', run: go({ view: 'sessions' }) },
    { kind: 'place', key: 'compose', label: 'Compose preview', hint: 'what an agent would get', run: go({ view: 'compose' }) },
    { kind: 'place', key: 'archive', label: 'Archive', hint: 'prior versions', run: go({ view: 'archive' }) },
    { kind: 'place', key: 'settings', label: 'Settings', hint: 'configuration, health', run: go({ view: 'settings' }) },
  ];
  for (const p of app.projects) {
    out.push({ kind: 'place', key: `project:${p.slug}`, label: p.name, hint: 'project memories', run: go({ view: 'memories', location: { scope: 'project', project: p.slug } }) });
    out.push({ kind: 'place', key: `anchor:${p.slug}`, label: `${p.name} · AMBRY.md`, hint: 'trust anchor', names: ['ambry.md'], run: go({ view: 'anchor', project: p.slug }) });
    out.push({ kind: 'place', key: `agents-files:${p.slug}`, label: `${p.name} · agents’ files`, hint: 'CLAUDE.md, AGENTS.md', run: go({ view: 'instructions', project: p.slug, kind: null }) });
    out.push({ kind: 'action', key: `new-memory:${p.slug}`, label: `New memory in ${p.name}`, hint: 'project memory', run: () => app.newMemory({ scope: 'project', project: p.slug }) });
    // A dry run first (calls, tokens, which agent); nothing is sent before the person confirms.
    out.push({ kind: 'action', key: `distill:${p.slug}`, label: `Distill ${p.name}’s sessions…`, hint: 'your agent proposes memories; you review each', run: () => import('./distill.js').then((d) => d.distillProject(p.slug)) });
    out.push({ kind: 'action', key: `annotate:${p.slug}`, label: `Say when ${p.name}’s memories are needed…`, hint: 'your agent proposes when phrases; you review each', names: ['annotate', 'when'], run: () => import('./distill.js').then((d) => d.annotateMemories(p.slug)) });
  }
  out.push({ kind: 'action', key: 'annotate:user', label: 'Say when your memories are needed…', hint: 'your agent proposes when phrases; you review each', names: ['annotate', 'when'], run: () => import('./distill.js').then((d) => d.annotateMemories(null)) });
  return out;
}

// The agents card in Settings, with focus on `selector` inside it (the card lists the agents
// once it has asked the shell: focus it then).
async function focusInAgents(app, selector) {
  if (!await app.navigate({ view: 'settings' })) return;
  const card = document.querySelector('[data-testid="agents-card"]');
  if (!card) return;
  card.scrollIntoView({ block: 'start' });
  const focusIt = () => { const b = card.querySelector(selector); if (b) b.focus(); return !!b; };
  if (focusIt()) return;
  const watch = new MutationObserver(() => { if (focusIt()) watch.disconnect(); });
  watch.observe(card, { childList: true, subtree: true });
  setTimeout(() => watch.disconnect(), 5000);
}

// How a name compares: case, curly apostrophes and the spaces around a `·` do not matter.
function plain(text) {
  return text.toLowerCase().replace(/[’']/g, '').replace(/\s+/g, ' ').trim();
}

// Places and actions whose words all start words of the query, in their order of importance,
// those the query names exactly first (marked `exact`); `>` alone (as in VS Code) lists them all.
export function matchingEntries(app, query) {
  const q = query.trim().replace(/^>\s*/, '').toLowerCase();
  const all = entries(app);
  if (!q) return query.trim().startsWith('>') ? all : [];
  const words = q.split(/\s+/);
  const wanted = plain(q);
  const found = all.filter((e) => {
    const text = `${e.label} ${e.hint}`.toLowerCase();
    const have = text.match(/[\p{L}\p{N}]+/gu) || [];
    return words.every((w) => have.some((x) => x.startsWith(w))) || (e.names || []).includes(wanted);
  }).map((e) => ({ ...e, exact: plain(e.label) === wanted || (e.names || []).includes(wanted) }));
  return [...found.filter((e) => e.exact), ...found.filter((e) => !e.exact)];
}

// Past sessions matching `query` (recall by words, at once: it never waits for the model).
export async function matchingSessions(app, query, limit = 5) {
  if (query.trim().startsWith('>') || query.trim().length < 2) return [];
  try {
    // By words only: the model stays free for the memory search of the next keystroke.
    const answer = await call('recall_sessions', { query, source: null, project: null, folder: null, limit, byWords: true });
    return answer.hits.map((hit) => ({
      kind: 'session', key: hit.session_id, label: hit.title || '(untitled session)',
      hint: (hit.snippet_parts || []).map((p) => p.text).join('') || hit.snippet,
      run: () => app.showSession(hit.session_id, hit.ts),
    }));
  } catch {
    return [];
  }
}

const SECTION = { exact: 'Best match', action: 'Actions', place: 'Go to', session: 'Sessions' };

// The rows for `items`, with a heading before each kind; `isActive(i)` marks the highlighted
// one, `choose(i)` runs it.
export function paletteRows(items, offset, { isActive, choose, hover }) {
  const out = [];
  let kind = null;
  items.forEach((item, j) => {
    const i = offset + j;
    // What the query names exactly is headed as such, whatever its kind.
    if ((item.exact ? 'exact' : item.kind) !== kind) {
      kind = item.exact ? 'exact' : item.kind;
      out.push(h('div', { class: 'palette-section', testid: 'palette-section', dataset: { kind } }, SECTION[kind]));
    }
    out.push(h('div', {
      class: `search-result palette-item${isActive(i) ? ' active' : ''}`, role: 'option', id: `search-option-${i}`,
      testid: 'palette-item', dataset: { kind: item.kind, key: item.key, exact: item.exact ? 'true' : 'false', active: isActive(i) ? 'true' : 'false' },
      'aria-selected': isActive(i) ? 'true' : 'false',
      onMousemove: () => hover(i), onClick: () => choose(i),
    },
    h('div', { class: 'result-main' },
      h('div', { class: 'result-top' }, h('span', { class: 'result-name' }, item.label)),
      h('div', { class: 'result-description' }, item.hint))));
  });
  return out;
}
