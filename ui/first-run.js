// First run: an empty home, or one no agent is connected to, shows what the app is for and how
// memories get in — connect an agent (one click, showing what changes), add a project (until one
// is known), index past sessions (and from which folders), then where to find them.
//
// data-testid:
//   first-run          the panel        first-run-add-project   Add a project
//   first-run-reindex  Index past sessions                first-run-folders  folders read
//   first-run-lead     what the app is for, in one line
//   first-run-sessions-result  what indexing found    first-run-open-sessions  go to Sessions

import { call } from './api.js';
import { h, clear } from './dom.js';
import { agentsCard } from './agents.js';

export function firstRunPanel(app) {
  const folders = h('p', { class: 'muted mono', testid: 'first-run-folders' });
  call('agent_connections').then((agents) => {
    const known = agents.filter((a) => a.transcripts_dir);
    if (known.length) folders.textContent = `Reads ${known.map((a) => `${a.name} transcripts from ${a.transcripts_dir}`).join(', and ')}.`;
  }).catch(() => {});
  return h('div', { class: 'first-run', testid: 'first-run' },
    h('h2', {}, 'Getting started'),
    h('p', { class: 'first-run-lead', testid: 'first-run-lead' }, 'Ambry keeps what your coding agents learn, and gives each prompt the memories it needs.'),
    h('p', {}, 'Memories come from your agents. Connect one and it gets the memories relevant to each prompt, and tools to save and search them.'),
    agentsCard({ onChange: () => app.agentsChanged() }).el,
    // Once a project is known, the sidebar lists it: the step is done, so it is not offered.
    app.projects.length ? null : h('div', { class: 'card' },
      h('h2', {}, 'Projects'),
      h('p', {}, 'Add a repository to keep memories that only make sense inside it.'),
      h('button', { class: 'btn', testid: 'first-run-add-project', onClick: () => app.addProject() }, 'Add a project…')),
    h('div', { class: 'card' },
      h('h2', {}, 'Past sessions'),
      h('p', {}, 'Index the transcripts your agents already wrote, so you can search them.'),
      folders,
      h('button', { class: 'btn', testid: 'first-run-reindex', onClick: () => app.reindex() }, 'Index past sessions'),
      sessionsResult));
}

// What the index holds once a reindex ends: sessions are indexed in the background as agents
// write them, so the truth is how many are searchable now, with the way to them.
const sessionsResult = h('div', { class: 'first-run-result', testid: 'first-run-sessions-result', 'aria-live': 'polite' });

export function firstRunIndexed(app, sessions) {
  if (!sessions) return;
  clear(sessionsResult,
    h('span', {}, sessions.sessions
      ? `${sessions.sessions} past session${sessions.sessions === 1 ? ' is' : 's are'} searchable${sessions.messages_indexed ? '' : ' (the background indexer had already read them)'}. `
      : 'No past sessions were found in these folders. '),
    sessions.sessions ? h('button', { class: 'btn btn-small', testid: 'first-run-open-sessions', onClick: () => app.navigate({ view: 'sessions' }, { byKeyboard: true }) }, 'Open Sessions') : null);
}
