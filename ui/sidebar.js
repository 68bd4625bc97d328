// The sidebar: trust anchors, user and project memories, tools, and the reindex control.
//
// data-testid:
//   sidebar              the navigation        open-search          the search button (Ctrl/Cmd+K)
//   nav-anchor-user      USER.md               nav-anchor-project   a project's AMBRY.md (data-project)
//   nav-instructions     the agents' own instruction files (CLAUDE.md, AGENTS.md…) of the current project
//   nav-user             User memories         nav-project          a project's memories (data-project)
//   nav-team             a project's team memories (data-project, data-trusted), when it has any
//   nav-add-project      add a project by picking its folder
//   nav-review           Review (data-project: whose inbox), with nav-review-count (data-count)
//   nav-compose  nav-sessions  nav-archive  nav-settings            the tools
//   (every nav item carries data-active="true" when its view is shown)
//   reindex-button       reindex embeddings (and sessions)
//   reindex-progress     progress bar (data-done, data-total)       reindex-status   result line
//   reindex-float        the same progress where it shows while the sidebar is folded away (below
//                        900 px, or Ctrl+B): bottom left over the view, with reindex-float-text
//   sync-status          personal sync's line and Sync now (see sync-status.js), once sync is set up

import { h, clear } from './dom.js';
import { createSyncStatus } from './sync-status.js';

export function createSidebar(app) {
  const anchors = h('div', { class: 'nav-group' });
  const memories = h('div', { class: 'nav-group' });
  const tools = h('div', { class: 'nav-group' });
  const progressBar = h('div', { class: 'progress-bar' });
  const progress = h('div', { class: 'progress', testid: 'reindex-progress', hidden: true, role: 'progressbar', 'aria-label': 'Reindex progress' }, progressBar);
  const status = h('div', { class: 'reindex-status', testid: 'reindex-status', 'aria-live': 'polite' });
  const sync = createSyncStatus(app);
  const reindex = h('button', { class: 'btn btn-block', testid: 'reindex-button', onClick: () => app.reindex(), title: 'Bring embedding vectors and the session index up to date' }, '↻ Reindex');
  // A reindex started where the sidebar is not shown (the tray, the palette) still shows its
  // progress: with the sidebar folded away, this copy of it does (styles.css shows it then).
  const floatBar = h('div', { class: 'progress-bar' });
  const floatProgress = h('div', { class: 'progress', role: 'progressbar', 'aria-label': 'Reindex progress' }, floatBar);
  const floatText = h('div', { class: 'reindex-float-text', testid: 'reindex-float-text' });
  const float = h('div', { class: 'reindex-float', testid: 'reindex-float', hidden: true, role: 'status' }, floatText, floatProgress);

  // How many findings the Review entry's inbox has (hidden while unknown or zero).
  const reviewCount = h('span', { class: 'nav-count', testid: 'nav-review-count', hidden: true, 'aria-hidden': 'true' });
  const isMac = navigator.platform.toUpperCase().includes('MAC');
  const el = h('nav', { class: 'sidebar', id: 'sidebar', testid: 'sidebar', 'aria-label': 'Ambry' },
    h('div', { class: 'brand' }, h('span', { class: 'brand-mark', 'aria-hidden': 'true' }), h('span', { class: 'brand-name' }, 'Ambry')),
    h('button', { class: 'search-trigger', testid: 'open-search', onClick: () => app.openSearch() },
      h('span', {}, 'Search memories…'), h('span', { class: 'keys' }, h('kbd', {}, isMac ? '⌘' : 'Ctrl'), h('kbd', {}, 'K'))),
    h('div', { class: 'nav-scroll' },
      h('div', { class: 'nav-section' }, 'Trust anchors'), anchors,
      h('div', { class: 'nav-section' }, h('span', {}, 'Memories'),
        h('button', { class: 'icon-btn add-project', testid: 'nav-add-project', title: 'Add a project by picking its folder', 'aria-label': 'Add a project', onClick: () => app.addProject() }, h('span', { 'aria-hidden': 'true' }, '+'), h('span', { class: 'add-label' }, 'Add project'))),
      memories,
      h('div', { class: 'nav-section' }, 'Tools'), tools),
    h('div', { class: 'sidebar-footer' }, sync.el, reindex, progress, status));

  function item(testid, label, route, extra = {}, trailing = null) {
    const active = app.isActive(route);
    return h('button', {
      class: `nav-item${active ? ' active' : ''}`, testid, dataset: { active: active ? 'true' : 'false', ...extra },
      // A click from the keyboard (Enter, Space) has no pointer detail: focus follows into the view.
      'aria-current': active ? 'page' : null, onClick: (e) => app.navigate(route, { byKeyboard: e.detail === 0 }), title: label,
    }, h('span', { class: 'nav-label' }, label), trailing);
  }

  function render() {
    clear(anchors,
      item('nav-anchor-user', 'USER.md', { view: 'anchor', project: null }),
      app.projects.filter((p) => p.has_anchor).map((p) =>
        item('nav-anchor-project', `${p.name} · AMBRY.md`, { view: 'anchor', project: p.slug }, { project: p.slug })),
      item('nav-instructions', 'Agents’ files', { view: 'instructions', project: app.instructionsProject() }));
    clear(memories,
      item('nav-user', 'User memories', { view: 'memories', location: { scope: 'user', project: null } }),
      app.projects.map((p) => [
        item('nav-project', p.name, { view: 'memories', location: { scope: 'project', project: p.slug } }, { project: p.slug }),
        // The repository's shared memory (DESIGN §15), when it has any.
        p.team_memories ? item('nav-team', `${p.name} · team`, { view: 'memories', location: { scope: 'team', project: p.slug } }, { project: p.slug, trusted: p.team_trusted ? 'true' : 'false' }) : null,
      ]),
      app.projects.length ? null : h('div', { class: 'nav-hint' }, 'Projects appear when an agent saves project memory, or add one with +.'));
    const reviewProject = app.reviewTarget();
    clear(tools,
      item('nav-review', 'Review', { view: 'review', project: reviewProject }, { project: reviewProject || '' }, reviewCount),
      item('nav-compose', 'Compose preview', { view: 'compose' }),
      item('nav-sessions', 'Sessions', { view: 'sessions' }),
      item('nav-archive', 'Archive', { view: 'archive' }),
      item('nav-settings', 'Settings', { view: 'settings' }));
    labelReview();
  }

  // The entry says its count in words too (the number beside it is hidden from screen readers).
  function labelReview() {
    const entry = tools.querySelector('[data-testid="nav-review"]');
    const n = Number(reviewCount.dataset.count || 0);
    if (!entry) return;
    entry.title = n ? `Review: ${n} to review` : 'Review';
    entry.setAttribute('aria-label', entry.title);
  }

  function setProgress(p) {
    if (!p) {
      progress.hidden = true;
      float.hidden = true;
      reindex.disabled = false;
      return;
    }
    progress.hidden = false;
    float.hidden = false;
    reindex.disabled = true;
    progress.dataset.done = p.done;
    progress.dataset.total = p.total;
    const ratio = p.total ? p.done / p.total : 0;
    for (const bar of [progressBar, floatBar]) bar.style.width = `${Math.round(ratio * 100)}%`;
    progress.classList.toggle('indeterminate', !p.total);
    floatProgress.classList.toggle('indeterminate', !p.total);
    const what = {
      sessions: 'Indexing sessions',
      session_vectors: 'Embedding sessions',
      waiting_for_indexer: 'Waiting for another session indexer to finish',
    }[p.phase] || 'Embedding memories';
    status.textContent = p.total ? `${what}: ${p.done} of ${p.total}…` : `${what}…`;
    floatText.textContent = status.textContent;
    status.classList.remove('error');
  }

  function setStatus(text, isError = false) {
    status.textContent = text;
    status.classList.toggle('error', isError);
    status.title = text;
  }

  function setReviewCount(n) {
    reviewCount.dataset.count = n === null ? '' : String(n);
    reviewCount.textContent = n ? String(n) : '';
    reviewCount.hidden = !n;
    labelReview();
  }

  return { el, float, render, setProgress, setStatus, setReviewCount, refreshSync: () => sync.refresh(), syncNow: () => sync.syncNow() };
}
