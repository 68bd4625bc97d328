// Entry point of the Ambry UI: the layout, navigation between views, global shortcuts and the
// shell's events (live memory changes, reindex progress, tray actions).
//
// data-testid:
//   app            the root                 main-view       the area that holds the current view
//   (views and the sidebar document their own ids in their modules)
// The body carries data-ready="true" once the first view has rendered, and
// data-first-paint-ms (launch → first view, measured by the shell's clock).

import { call, on, sameLocation } from './api.js';
import { h, clear, debounce } from './dom.js';
import { toast, errorToast, confirmDialog } from './dialog.js';
import { createSidebar } from './sidebar.js';
import { createMemoriesView } from './memories.js';
import { createSearch } from './search.js';
import { createComposeView } from './compose.js';
import { createArchiveView } from './archive.js';
import { createAnchorView, confirmDiscard } from './anchors.js';
import { createSettingsView } from './settings.js';
import { createSessionsView } from './sessions.js';
import { createInstructionsView } from './instructions.js';
import { createReviewView } from './review.js';
import { firstRunIndexed } from './first-run.js';

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
    if (r.view === 'anchor' || r.view === 'review') return (r.project || null) === (route.project || null);
    return true;
  },
  // The project the person is looking at (a project's memories, its AMBRY.md, its agents'
  // files), so a view about "this project" opens on it; `null` in the user scope.
  currentProject() {
    const r = this.route;
    const slug = r.view === 'memories' ? r.location.project : r.project;
    return slug && this.projects.some((p) => p.slug === slug) ? slug : null;
  },
  // Agents' files open on the project in view; from a view without one (Settings, Sessions…)
  // on the project last chosen there, so a trip elsewhere does not reset its picker.
  instructionsProject() {
    if (this.route.view === 'instructions') return this.route.project || null;
    return this.currentProject() || views.instructions.project;
  },
  showInstructions(project, kind = null) {
    return this.navigate({ view: 'instructions', project: project || null, kind });
  },
  // Leaving a view with unsaved typing asks first (memory form and trust anchors alike).
  // `options.byKeyboard` moves focus into the new view's main control, so a keyboard user
  // continues where they were going instead of starting again from the top of the page.
  async navigate(route, options = {}) {
    const current = views[this.route.view];
    const leaving = !this.isActive(route) || options.select;
    if (leaving && !options.force && current.hasUnsavedEdits && current.hasUnsavedEdits()) {
      if (!await confirmDiscard()) return false;
    }
    const countedFor = this.reviewTarget();
    if (!options.fromHistory) remember(route, options.select || null);
    this.route = route;
    sidebar.render();
    if (this.reviewTarget() !== countedFor && route.view !== 'review') this.refreshReviewCount();
    layout.closeOverlaySidebar();
    await show(route, options);
    if (options.byKeyboard && views[route.view].focusMain) views[route.view].focusMain();
    return true;
  },
  // `byKeyboard`: focus lands in the memory list (Ctrl+Enter from search), not on the page.
  showMemory(location, name, { byKeyboard = false } = {}) {
    this.navigate({ view: 'memories', location }, { select: name, byKeyboard });
  },
  // From the Review view: the memory form of the Memories view, on that memory.
  async editMemory(location, name) {
    if (await this.navigate({ view: 'memories', location }, { select: name })) views.memories.startEdit();
  },
  // The review count in the sidebar is the inbox the Review entry opens: the user scope with
  // the project in view (as the entry's route says).
  reviewTarget() {
    return this.route.view === 'review' ? this.route.project || null : this.currentProject();
  },
  reviewCounted(project, n) {
    if ((project || null) === this.reviewTarget()) sidebar.setReviewCount(n);
  },
  async refreshReviewCount() {
    const project = this.reviewTarget();
    const seq = ++reviewCountSeq;
    try {
      const findings = await call('review_findings', { project });
      if (seq === reviewCountSeq) this.reviewCounted(project, findings.length);
    } catch {
      if (seq === reviewCountSeq) sidebar.setReviewCount(null);
    }
  },
  // From the palette: a new memory's form in `location`, a session's transcript.
  async newMemory(location) {
    if (await this.navigate({ view: 'memories', location })) views.memories.startNew();
  },
  async showSession(sessionId, ts = null) {
    if (await this.navigate({ view: 'sessions' })) views.sessions.openSession(sessionId, ts);
  },
  // From the palette: config.toml in the person's editor (created first when missing), and the
  // archive's prune with its preview (the user scope's, or the project in view's).
  async openConfig() {
    if (await this.navigate({ view: 'settings' })) views.settings.openConfig();
  },
  syncNow() {
    sidebar.syncNow();
  },
  async pruneArchive() {
    const project = this.currentProject();
    const location = project ? { scope: 'project', project } : { scope: 'user', project: null };
    if (await this.navigate({ view: 'archive' }, { location })) views.archive.startPrune();
  },
  // A view chose a memory by the person's hand: a step of the history Alt+← goes back through.
  // `replace` (↑/↓ walking the list) moves the current step instead of adding one.
  selectionChanged(name, { replace = false } = {}) {
    const here = visits.steps[visits.at];
    if (!here || !this.isActive(here.route) || here.select === name) return;
    if (replace || !here.select) here.select = name;
    else remember(this.route, name);
  },
  back: () => stepHistory(-1),
  forward: () => stepHistory(1),
  reloadProjects: () => loadProjects(),
  reviewChanged: () => reviewChanged(),
  // Sync's line counts the conflicts Review settles.
  syncChanged: () => sidebar.refreshSync(),
  // Whether any agent is connected (`null` until known): the first-run panel stays until one is.
  agentsConnected: null,
  async agentsChanged() {
    try {
      const agents = await call('agent_connections');
      this.agentsConnected = agents.some((a) => a.connected);
    } catch {
      this.agentsConnected = null;
    }
    if (this.route.view === 'memories') views.memories.firstRunChanged();
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
      errorToast('Could not add the project', e);
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
      errorToast('Could not start the reindex', e);
      return;
    }
    // Not started: another run is going, and its own end event clears the progress.
    if (!started) toast('A reindex is already running', 'info');
  },
};

let reviewCountSeq = 0;

// Back and forward (Alt+← / Alt+→): the views visited and the memories chosen in them, as a
// browser keeps pages. Going back and then elsewhere drops the steps ahead, as a browser does.
const HISTORY_MAX = 100;
const visits = { steps: [], at: -1 };
function sameStep(a, route, select) {
  return a && JSON.stringify(a.route) === JSON.stringify(route) && (a.select || null) === (select || null);
}
function remember(route, select) {
  if (sameStep(visits.steps[visits.at], route, select)) return;
  visits.steps = visits.steps.slice(0, visits.at + 1);
  visits.steps.push({ route, select });
  if (visits.steps.length > HISTORY_MAX) visits.steps.shift();
  visits.at = visits.steps.length - 1;
}
let stepping = false;
async function stepHistory(delta) {
  const to = visits.at + delta;
  if (stepping || to < 0 || to >= visits.steps.length) return false;
  const step = visits.steps[to];
  stepping = true;
  try {
    // Unsaved typing is asked about as on any other way out; "keep editing" stays put.
    if (!await app.navigate(step.route, { select: step.select || undefined, fromHistory: true, byKeyboard: true })) return false;
    visits.at = to;
    return true;
  } finally {
    stepping = false;
  }
}
const sidebar = createSidebar(app);
const search = createSearch(app);
const views = {
  memories: createMemoriesView(app),
  compose: createComposeView(app),
  archive: createArchiveView(app),
  anchor: createAnchorView(app),
  settings: createSettingsView(app),
  sessions: createSessionsView(app),
  instructions: createInstructionsView(app),
  review: createReviewView(app),
};
const main = h('main', { class: 'main', testid: 'main-view' });
const layout = createLayout();

// The sidebar collapses below a width (and on request): then a button at the top left shows it
// over the view, and choosing a place or Esc hides it again.
function createLayout() {
  const NARROW = '(max-width: 900px)';
  const toggle = h('button', {
    class: 'sidebar-toggle', testid: 'sidebar-toggle', 'aria-label': 'Show navigation', title: 'Show or hide navigation (Ctrl+B)',
    'aria-expanded': 'false', 'aria-controls': 'sidebar', onClick: () => setCollapsed(!document.body.classList.contains('nav-collapsed')),
  }, h('span', { class: 'hamburger', 'aria-hidden': 'true' }));
  const media = window.matchMedia(NARROW);
  function setCollapsed(collapsed) {
    document.body.classList.toggle('nav-collapsed', collapsed);
    // Narrow: the open sidebar floats over the view instead of squeezing it.
    document.body.classList.toggle('nav-overlay', !collapsed && media.matches);
    toggle.setAttribute('aria-expanded', collapsed ? 'false' : 'true');
    toggle.setAttribute('aria-label', collapsed ? 'Show navigation' : 'Hide navigation');
    if (!collapsed && media.matches) {
      const here = sidebar.el.querySelector('.nav-item.active') || sidebar.el.querySelector('.nav-item');
      if (here) here.focus();
    }
  }
  media.addEventListener('change', () => setCollapsed(media.matches));
  setCollapsed(media.matches);
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && document.body.classList.contains('nav-overlay') && !document.querySelector('.modal-backdrop')) {
      setCollapsed(true);
      toggle.focus();
    }
  });
  return {
    toggle,
    setCollapsed,
    closeOverlaySidebar: () => { if (document.body.classList.contains('nav-overlay')) setCollapsed(true); },
  };
}

function show(route, options = {}) {
  const view = views[route.view];
  if (main.firstChild !== view.el) {
    // The view being left forgets an editor the person chose to discard (or never typed in).
    const leaving = Object.values(views).find((v) => v.el === main.firstChild);
    if (leaving && leaving.left) leaving.left();
    clear(main, view.el);
  }
  if (route.view === 'memories') return view.show(route.location, options);
  if (route.view === 'anchor') return view.show(route.project);
  if (route.view === 'instructions') return view.show(route.project, route.kind);
  if (route.view === 'archive') return view.show(options.location);
  if (route.view === 'review') return view.show(route.project);
  return view.show();
}

async function loadProjects() {
  try {
    app.projects = await call('list_projects');
  } catch (e) {
    app.projects = [];
    errorToast('Could not list projects', e);
  }
  const r = app.route;
  const gone = (slug) => slug && !app.projects.some((p) => p.slug === slug);
  if ((r.view === 'memories' && r.location.scope !== 'user' && gone(r.location.project)) || ((r.view === 'anchor' || r.view === 'instructions') && gone(r.project))) {
    app.route = { view: 'memories', location: { scope: 'user', project: null } };
    show(app.route);
  }
  sidebar.render();
  search.refreshProjects();
  views.compose.refresh();
  views.instructions.refresh();
  views.review.refreshProjects();
}

document.addEventListener('keydown', (e) => {
  if (e.altKey && !e.ctrlKey && !e.metaKey && !e.shiftKey && (e.key === 'ArrowLeft' || e.key === 'ArrowRight')) {
    // Not while a dialog or the palette is open: they own the keys until closed.
    if (document.querySelector('.modal-backdrop') || search.isOpen()) return;
    e.preventDefault();
    stepHistory(e.key === 'ArrowLeft' ? -1 : 1);
    return;
  }
  if ((e.ctrlKey || e.metaKey) && !e.shiftKey && !e.altKey && e.key.toLowerCase() === 'k') {
    e.preventDefault();
    if (search.isOpen()) search.close(); else app.openSearch();
  }
  if ((e.ctrlKey || e.metaKey) && !e.shiftKey && !e.altKey && e.key.toLowerCase() === 'b') {
    e.preventDefault();
    layout.setCollapsed(!document.body.classList.contains('nav-collapsed'));
  }
});

on('memory-changed', (change) => {
  if (change.kind === 'config_changed') {
    // Settings and the archive's prune policy show config.toml's values; rankings use them too.
    search.refresh();
    if (app.route.view === 'settings') views.settings.refreshFromDisk();
    if (app.route.view === 'archive') views.archive.onChange(change);
    return;
  }
  search.refresh();
  if (change.kind === 'sidecar_changed') return; // only rankings depend on vectors
  if (change.kind === 'projects_changed') { loadProjects(); return; }
  if (app.route.view === 'memories') views.memories.onChange(change);
  if (app.route.view === 'archive') views.archive.onChange(change);
  if (app.route.view === 'anchor') views.anchor.onChange(change);
  reviewChanged();
});

// A burst of changes (a merge writes one file and archives another) is one new count.
let reviewTimer = null;
function reviewChanged() {
  clearTimeout(reviewTimer);
  reviewTimer = setTimeout(() => {
    if (app.route.view === 'review') views.review.onChange(); else app.refreshReviewCount();
  }, 150);
}

// The health checks say what the session index holds: they follow it while Settings shows.
const healthChanged = debounce(() => { if (app.route.view === 'settings') views.settings.refreshHealth(); }, 300);
on('session-changed', () => {
  if (app.route.view === 'sessions') views.sessions.onChange();
  healthChanged();
});
on('reindex-progress', (p) => sidebar.setProgress(p));
on('reindex-finished', (summary) => {
  sidebar.setProgress(null);
  const lines = [];
  let failed = false;
  const e = summary.embeddings;
  if ('Ok' in e) {
    const r = e.Ok;
    failed = failed || r.failed.length > 0;
    // In words a person uses: what search by meaning covers now, not the sidecar bookkeeping.
    const made = r.created + r.updated;
    const all = made + r.up_to_date;
    lines.push(made
      ? `Memories: ${made} of ${all} newly searchable by meaning${r.failed.length ? `, ${r.failed.length} failed` : ''}`
      : `Memories: all ${all} searchable by meaning${r.failed.length ? `, ${r.failed.length} failed` : ''}`);
  } else if (/^embedding_(runtime|model)_missing$/.test(e.Err.code)) {
    // Not a failure: without the model memories are found by their words.
    lines.push('Search by meaning unavailable: the model is not installed (search by words works; Settings › Health says how to add it)');
  } else {
    failed = true;
    lines.push(`Search by meaning unavailable (search by words still works): ${e.Err.message}`);
  }
  const s = summary.sessions;
  if ('Ok' in s) {
    const o = s.Ok;
    // The background indexer usually read them already: say what is searchable, not "0 new".
    lines.push(o.messages_indexed
      ? `Sessions: ${o.sessions} searchable, ${o.messages_indexed} new messages read`
      : `Sessions: ${o.sessions} searchable, all already read`);
    firstRunIndexed(app, o);
  } else {
    failed = true;
    lines.push(`Sessions failed: ${s.Err.message}`);
  }
  // Without the model sessions are found by their words: a note, not a failure.
  const v = summary.session_vectors;
  if (v && 'Ok' in v && v.Ok.messages) lines.push(`${v.Ok.messages} session messages newly searchable by meaning`);
  else if (v && 'Err' in v) lines.push(`Session vectors skipped: ${v.Err.message}`);
  sidebar.setStatus(lines.join('\n'), failed);
  const toSessions = 'Ok' in s && s.Ok.sessions && app.route.view !== 'sessions'
    ? { label: 'Open Sessions', run: () => app.navigate({ view: 'sessions' }, { byKeyboard: true }) } : null;
  toast(lines.join(' · '), failed ? 'error' : 'success', 8000, { action: toSessions });
  if (app.route.view === 'sessions') views.sessions.onChange();
  healthChanged();
});
on('sync-finished', () => { sidebar.refreshSync(); reviewChanged(); });
on('tray-action', (action) => {
  if (action === 'search') app.openSearch();
  if (action === 'sync') sidebar.syncNow();
});
// Where sync stands is read again when the window comes back (a sync ran in a terminal).
window.addEventListener('focus', () => sidebar.refreshSync());

async function boot() {
  const root = document.getElementById('app');
  clear(root, layout.toggle, sidebar.el, main, sidebar.float, search.el);
  sidebar.render();
  await loadProjects();
  await app.agentsChanged();
  remember(app.route, null);
  await show(app.route);
  app.refreshReviewCount();
  sidebar.refreshSync();
  document.body.dataset.ready = 'true';
  requestAnimationFrame(async () => {
    try {
      const ms = await call('first_paint_done');
      document.body.dataset.firstPaintMs = String(ms);
    } catch { /* measurement only */ }
  });
  if (await call('reindex_running').catch(() => false)) sidebar.setProgress({ done: 0, total: 0 });
}

// A web or mail link in rendered markdown opens in the system browser, after the person sees
// where it goes (a memory is text an agent wrote; its links deserve a look first).
async function openExternal(a) {
  const url = a.dataset.externalHref;
  const ok = await confirmDialog({ title: 'Open this link in your browser?', message: url, confirmLabel: 'Open in browser' });
  if (!ok) return;
  try {
    await call('open_link', { url });
  } catch (e) {
    errorToast('Could not open the link', e);
  }
}
/** The element an event happened on (events here come from elements, never from window). */
const targetOf = (e) => /** @type {HTMLElement} */ (e.target);

document.addEventListener('click', (e) => {
  const a = targetOf(e).closest && targetOf(e).closest('a[data-external-href]');
  if (a) { e.preventDefault(); openExternal(a); }
});
document.addEventListener('keydown', (e) => {
  const a = e.key === 'Enter' && targetOf(e).closest && targetOf(e).closest('a[data-external-href]');
  if (a) { e.preventDefault(); openExternal(a); }
});

// A dropdown shows the same focus ring as every other control. WebKitGTK draws <select> natively
// and does not match :focus-visible on it reliably, so focus is marked on the element itself.
document.addEventListener('focusin', (e) => { if (targetOf(e).tagName === 'SELECT') targetOf(e).dataset.focused = 'true'; });
document.addEventListener('focusout', (e) => { if (targetOf(e).tagName === 'SELECT') delete targetOf(e).dataset.focused; });

// The web view's own context menu (Back, Reload, Inspect…) means nothing in a desktop app;
// where text can be typed or selected it stays, for copy and paste.
document.addEventListener('contextmenu', (e) => {
  if (!targetOf(e).closest('input, textarea, pre, code, .markdown, .turn-text, .snippet')) e.preventDefault();
});

boot();
