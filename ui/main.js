// Entry point of the Engram UI: the layout, navigation between views, global shortcuts and the
// shell's events (live memory changes, reindex progress, tray actions).
//
// data-testid:
//   app            the root                 main-view       the area that holds the current view
//   (views and the sidebar document their own ids in their modules)
// The body carries data-ready="true" once the first view has rendered, and
// data-first-paint-ms (launch → first view, measured by the shell's clock).

import { call, on, sameLocation } from './api.js';
import { h, clear } from './dom.js';
import { toast } from './dialog.js';
import { createSidebar } from './sidebar.js';
import { createMemoriesView } from './memories.js';
import { createSearch } from './search.js';
import { createComposeView } from './compose.js';
import { createArchiveView } from './archive.js';
import { createAnchorView } from './anchors.js';
import { createSettingsView } from './settings.js';
import { createSessionsView } from './sessions.js';

const app = {
  projects: [],
  route: { view: 'memories', location: { scope: 'user', project: null } },
  lastFocus: null,

  projectName(slug) {
    const p = this.projects.find((x) => x.slug === slug);
    return p ? p.name : slug || 'project';
  },
  isActive(route) {
    const r = this.route;
    if (r.view !== route.view) return false;
    if (r.view === 'memories') return sameLocation(r.location, route.location);
    if (r.view === 'anchor') return (r.project || null) === (route.project || null);
    return true;
  },
  navigate(route, options = {}) {
    if (this.route.view === 'memories' && views.memories.hasUnsavedEdits() && !options.force) {
      toast('Save or cancel your edit first', 'info', 3000);
      return;
    }
    this.route = route;
    sidebar.render();
    show(route, options);
  },
  showMemory(location, name) {
    this.navigate({ view: 'memories', location }, { select: name });
  },
  openSearch() {
    this.lastFocus = document.activeElement;
    search.show();
  },
  restoreFocus() {
    if (this.lastFocus && this.lastFocus.isConnected) this.lastFocus.focus();
  },
  async addProject() {
    try {
      const added = await call('add_project');
      if (!added) return;
      await loadProjects();
      toast(`Added ${added.name}`, 'success');
      this.navigate({ view: 'memories', location: { scope: 'project', project: added.slug } });
    } catch (e) {
      toast(e.message, 'error', 7000);
    }
  },
  async reindex() {
    // Shown before asking: a quick run can finish (and its end event arrive) before the call
    // returns, and showing progress afterwards would leave it spinning.
    sidebar.setProgress({ done: 0, total: 0 });
    let started;
    try {
      started = await call('start_reindex');
    } catch (e) {
      sidebar.setProgress(null);
      toast(e.message, 'error', 7000);
      return;
    }
    // Not started: another run is going, and its own end event clears the progress.
    if (!started) toast('A reindex is already running', 'info');
  },
};

const sidebar = createSidebar(app);
const search = createSearch(app);
const views = {
  memories: createMemoriesView(app),
  compose: createComposeView(app),
  archive: createArchiveView(app),
  anchor: createAnchorView(app),
  settings: createSettingsView(app),
  sessions: createSessionsView(app),
};
const main = h('main', { class: 'main', testid: 'main-view' });

function show(route, options = {}) {
  const view = views[route.view];
  if (main.firstChild !== view.el) clear(main, view.el);
  if (route.view === 'memories') return view.show(route.location, options);
  if (route.view === 'anchor') return view.show(route.project);
  if (route.view === 'archive') return view.show(options.location);
  return view.show();
}

async function loadProjects() {
  try {
    app.projects = await call('list_projects');
  } catch (e) {
    app.projects = [];
    toast(e.message, 'error');
  }
  const r = app.route;
  const gone = (slug) => slug && !app.projects.some((p) => p.slug === slug);
  if ((r.view === 'memories' && r.location.scope === 'project' && gone(r.location.project)) || (r.view === 'anchor' && gone(r.project))) {
    app.route = { view: 'memories', location: { scope: 'user', project: null } };
    show(app.route);
  }
  sidebar.render();
  search.refreshProjects();
  views.compose.refresh();
}

document.addEventListener('keydown', (e) => {
  if ((e.ctrlKey || e.metaKey) && !e.shiftKey && !e.altKey && e.key.toLowerCase() === 'k') {
    e.preventDefault();
    if (search.isOpen()) search.close(); else app.openSearch();
  }
});

on('memory-changed', (change) => {
  search.refresh();
  if (change.kind === 'projects_changed') { loadProjects(); return; }
  if (app.route.view === 'memories') views.memories.onChange(change);
  if (app.route.view === 'archive') views.archive.onChange(change);
  if (app.route.view === 'anchor') views.anchor.onChange(change);
});

on('session-changed', () => { if (app.route.view === 'sessions') views.sessions.onChange(); });
on('reindex-progress', (p) => sidebar.setProgress(p));
on('reindex-finished', (summary) => {
  sidebar.setProgress(null);
  const lines = [];
  let failed = false;
  const e = summary.embeddings;
  if ('Ok' in e) {
    const r = e.Ok;
    failed = failed || r.failed.length > 0;
    lines.push(`Embeddings: ${r.created} new, ${r.updated} updated, ${r.up_to_date} up to date${r.failed.length ? `, ${r.failed.length} failed` : ''}`);
  } else {
    failed = true;
    lines.push(`Embeddings skipped: ${e.Err.message}`);
  }
  const s = summary.sessions;
  if ('Ok' in s) {
    lines.push(`Sessions: ${s.Ok.sessions} sessions, ${s.Ok.messages_indexed} new messages from ${s.Ok.files_indexed} files`);
  } else {
    failed = true;
    lines.push(`Sessions failed: ${s.Err.message}`);
  }
  sidebar.setStatus(lines.join('\n'), failed);
  toast(lines.join(' · '), failed ? 'error' : 'success', 8000);
  if (app.route.view === 'sessions') views.sessions.onChange();
});
on('tray-action', (action) => {
  if (action === 'search') app.openSearch();
});

async function boot() {
  const root = document.getElementById('app');
  clear(root, sidebar.el, main, search.el);
  sidebar.render();
  await loadProjects();
  await show(app.route);
  document.body.dataset.ready = 'true';
  requestAnimationFrame(async () => {
    try {
      const ms = await call('first_paint_done');
      document.body.dataset.firstPaintMs = String(ms);
    } catch { /* measurement only */ }
  });
  if (await call('reindex_running').catch(() => false)) sidebar.setProgress({ done: 0, total: 0 });
}

// The web view's own context menu (Back, Reload, Inspect…) means nothing in a desktop app;
// where text can be typed or selected it stays, for copy and paste.
document.addEventListener('contextmenu', (e) => {
  if (!e.target.closest('input, textarea, pre, code, .markdown, .turn-text, .snippet')) e.preventDefault();
});

boot();
