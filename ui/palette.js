// What Ctrl+K reaches besides memories: places (trust anchors, agents' files, each project,
// the tools) and actions (reindex, connect an agent, new memory, add a project, distill a
// project's sessions), matched by
// their words; and past sessions, by recall. Each entry runs when chosen.
// Deliberately does not: rank memories or draw the overlay (see search.js).
//
// data-testid:
//   palette-item     a place, an action or a session (data-kind = action | place | session, data-key)
//   palette-section  a section's heading (data-kind)

import { call } from './api.js';
import { h } from './dom.js';

// Every place and action, for `app` as it is now (its projects).
function entries(app) {
  const go = (route, options) => () => app.navigate(route, { byKeyboard: true, ...options });
  const out = [
    { kind: 'action', key: 'reindex', label: 'Reindex', hint: 'bring vectors and the session index up to date', run: () => app.reindex() },
    { kind: 'action', key: 'new-memory', label: 'New memory', hint: 'in your user memories', run: () => app.newMemory({ scope: 'user', project: null }) },
    { kind: 'action', key: 'connect', label: 'Connect an agent', hint: 'Claude Code or Codex, in Settings', run: async () => {
      if (!await app.navigate({ view: 'settings' })) return;
      const card = document.querySelector('[data-testid="agents-card"]');
      if (!card) return;
      card.scrollIntoView({ block: 'start' });
      // The card lists the agents once it has asked the shell: focus its first button then.
      const focusFirst = () => { const b = card.querySelector('button'); if (b) b.focus(); return !!b; };
      if (focusFirst()) return;
      const watch = new MutationObserver(() => { if (focusFirst()) watch.disconnect(); });
      watch.observe(card, { childList: true, subtree: true });
      setTimeout(() => watch.disconnect(), 5000);
    } },
    { kind: 'action', key: 'add-project', label: 'Add a project…', hint: 'pick its folder', run: () => app.addProject() },
    { kind: 'place', key: 'user-md', label: 'USER.md', hint: 'trust anchor', run: go({ view: 'anchor', project: null }) },
    { kind: 'place', key: 'agents-files', label: 'Agents’ files', hint: 'CLAUDE.md, AGENTS.md', run: go({ view: 'instructions', project: app.instructionsProject(), kind: null }) },
    { kind: 'place', key: 'user-memories', label: 'User memories', hint: 'memories', run: go({ view: 'memories', location: { scope: 'user', project: null } }) },
    { kind: 'place', key: 'sessions', label: 'Sessions', hint: 'search past transcripts', run: go({ view: 'sessions' }) },
    { kind: 'place', key: 'compose', label: 'Compose preview', hint: 'what an agent would get', run: go({ view: 'compose' }) },
    { kind: 'place', key: 'archive', label: 'Archive', hint: 'prior versions', run: go({ view: 'archive' }) },
    { kind: 'place', key: 'settings', label: 'Settings', hint: 'configuration, health', run: go({ view: 'settings' }) },
  ];
  for (const p of app.projects) {
    out.push({ kind: 'place', key: `project:${p.slug}`, label: p.name, hint: 'project memories', run: go({ view: 'memories', location: { scope: 'project', project: p.slug } }) });
    out.push({ kind: 'place', key: `anchor:${p.slug}`, label: `${p.name} · AMBRY.md`, hint: 'trust anchor', run: go({ view: 'anchor', project: p.slug }) });
    out.push({ kind: 'place', key: `agents-files:${p.slug}`, label: `${p.name} · agents’ files`, hint: 'CLAUDE.md, AGENTS.md', run: go({ view: 'instructions', project: p.slug, kind: null }) });
    out.push({ kind: 'action', key: `new-memory:${p.slug}`, label: `New memory in ${p.name}`, hint: 'project memory', run: () => app.newMemory({ scope: 'project', project: p.slug }) });
    // A dry run first (calls, tokens, which agent); nothing is sent before the person confirms.
    out.push({ kind: 'action', key: `distill:${p.slug}`, label: `Distill ${p.name}’s sessions…`, hint: 'your agent proposes memories; you review each', run: () => import('./distill.js').then((d) => d.distillProject(p.slug)) });
  }
  return out;
}

// Places and actions whose words all start words of the query, in their order of importance;
// `>` alone (as in VS Code) lists them all.
export function matchingEntries(app, query) {
  const q = query.trim().replace(/^>\s*/, '').toLowerCase();
  const all = entries(app);
  if (!q) return query.trim().startsWith('>') ? all : [];
  const words = q.split(/\s+/);
  return all.filter((e) => {
    const text = `${e.label} ${e.hint}`.toLowerCase();
    const have = text.match(/[\p{L}\p{N}]+/gu) || [];
    return words.every((w) => have.some((x) => x.startsWith(w)));
  });
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

const SECTION = { action: 'Actions', place: 'Go to', session: 'Sessions' };

// The rows for `items`, with a heading before each kind; `isActive(i)` marks the highlighted
// one, `choose(i)` runs it.
export function paletteRows(items, offset, { isActive, choose, hover }) {
  const out = [];
  let kind = null;
  items.forEach((item, j) => {
    const i = offset + j;
    if (item.kind !== kind) {
      kind = item.kind;
      out.push(h('div', { class: 'palette-section', testid: 'palette-section', dataset: { kind } }, SECTION[kind]));
    }
    out.push(h('div', {
      class: `search-result palette-item${isActive(i) ? ' active' : ''}`, role: 'option', id: `search-option-${i}`,
      testid: 'palette-item', dataset: { kind: item.kind, key: item.key, active: isActive(i) ? 'true' : 'false' },
      'aria-selected': isActive(i) ? 'true' : 'false',
      onMousemove: () => hover(i), onClick: () => choose(i),
    },
    h('div', { class: 'result-main' },
      h('div', { class: 'result-top' }, h('span', { class: 'result-name' }, item.label)),
      h('div', { class: 'result-description' }, item.hint))));
  });
  return out;
}
