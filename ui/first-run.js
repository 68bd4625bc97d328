// First run: an empty home shows how memories get in — connect an agent (one click, showing
// what changes), add a project, index past sessions (and from which folders).
//
// data-testid:
//   first-run          the panel        first-run-add-project   Add a project
//   first-run-reindex  Index past sessions                first-run-folders  folders read

import { call } from './api.js';
import { h } from './dom.js';
import { agentsCard } from './agents.js';

export function firstRunPanel(app) {
  const folders = h('p', { class: 'muted mono', testid: 'first-run-folders' });
  call('agent_connections').then((agents) => {
    const known = agents.filter((a) => a.transcripts_dir);
    if (known.length) folders.textContent = `Reads ${known.map((a) => `${a.name} transcripts from ${a.transcripts_dir}`).join(', and ')}.`;
  }).catch(() => {});
  return h('div', { class: 'first-run', testid: 'first-run' },
    h('h2', {}, 'Getting started'),
    h('p', {}, 'Memories come from your agents. Connect one and it gets the memories relevant to each prompt, and tools to save and search them.'),
    agentsCard().el,
    h('div', { class: 'card' },
      h('h2', {}, 'Projects'),
      h('p', {}, 'Add a repository to keep memories that only make sense inside it.'),
      h('button', { class: 'btn', testid: 'first-run-add-project', onClick: () => app.addProject() }, 'Add a project…')),
    h('div', { class: 'card' },
      h('h2', {}, 'Past sessions'),
      h('p', {}, 'Index the transcripts your agents already wrote, so you can search them.'),
      folders,
      h('button', { class: 'btn', testid: 'first-run-reindex', onClick: () => app.reindex() }, 'Index past sessions')));
}
