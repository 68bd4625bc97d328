// Agents' own instruction files, beside Ambry's trust anchors: the user-wide CLAUDE.md and a
// project's CLAUDE.md, .claude/CLAUDE.md, CLAUDE.local.md and AGENTS.md. Agents load these by
// themselves at the start of a session; Ambry never repeats them in its block. View, edit in
// place (the prior text is archived under AMBRY_HOME, secrets are refused), open in the editor.
//
// data-testid:
//   instructions-view      the view              instructions-project   project picker
//   instruction-row        a file in the list (data-kind, data-exists)
//   instruction-title      the open file's name  instruction-path       where it is on disk
//   instruction-loaded-by  which agent loads it  instruction-link       "a link to …" note
//   instruction-body       rendered markdown     instruction-missing    "does not exist" state
//   instruction-create     start a new file      instruction-edit       edit button
//   instruction-open-editor  open in the person's editor
//   instruction-editor     the textarea          instruction-save       save
//   instruction-cancel     cancel                instruction-error      inline error (data-code)
//   instruction-archived   "N earlier versions archived" note

import { call } from './api.js';
import { h, clear, setSafeHtml, formatBytes } from './dom.js';
import { toast, errorToast, editorErrorToast } from './dialog.js';
import { confirmDiscard } from './anchors.js';
import { bindEditorKeys, showSaveError } from './text-editor.js';

const AGENT_NAMES = { claude: 'Claude Code', codex: 'Codex' };

// The person's own files, read in every project (not one repository's).
const isUserFile = (f) => f.kind === 'user_claude' || f.kind === 'user_agents';

// Each file by its role: what a person calls it and why it exists.
export const INSTRUCTION_FILES = {
  user_claude: { name: 'CLAUDE.md', place: 'all projects', about: 'Your own instructions for every project.' },
  user_agents: { name: 'AGENTS.md', place: 'all projects', about: 'Your own instructions Codex reads in every project (in CODEX_HOME).' },
  project_claude: { name: 'CLAUDE.md', place: 'repository', about: 'The repository’s instructions, usually committed and shared with the team.' },
  project_dot_claude: { name: '.claude/CLAUDE.md', place: 'repository', about: 'The repository’s instructions, kept in its .claude folder.' },
  project_local_claude: { name: 'CLAUDE.local.md', place: 'repository', about: 'Your personal notes for this repository, usually kept out of git.' },
  project_agents: { name: 'AGENTS.md', place: 'repository', about: 'Instructions for Codex and the other agents that read AGENTS.md.' },
};

export function loadedByLabel(agents) {
  return agents.map((a) => AGENT_NAMES[a] || a).join(' and ');
}

export function createInstructionsView(app) {
  let project = null;
  let files = [];
  let kind = null;
  let page = null;
  let editing = false;
  let isDirty = () => false;
  let seq = 0;

  const picker = h('select', { class: 'select', testid: 'instructions-project', 'aria-label': 'Project' });
  const list = h('nav', { class: 'instruction-list', 'aria-label': 'Instruction files' });
  const pane = h('div', { class: 'detail-pane instruction-pane' });
  const el = h('section', { class: 'view instructions-view', testid: 'instructions-view' },
    h('header', { class: 'view-header' },
      h('div', { class: 'view-titles' }, h('h1', {}, 'Agents’ instruction files'),
        h('span', { class: 'subtitle' }, 'What Claude Code and Codex load by themselves at the start of a session. Ambry does not repeat them in its block.')),
      h('div', { class: 'view-actions' }, picker)),
    h('div', { class: 'split' }, h('div', { class: 'list-pane' }, list), pane));

  picker.addEventListener('change', async () => {
    const wanted = picker.value || null;
    if (isDirty() && !await confirmDiscard()) { picker.value = project || ''; return; }
    project = wanted;
    kind = null;
    // The sidebar and "this project" elsewhere follow the person's choice.
    if (app.route.view === 'instructions') app.route = { view: 'instructions', project, kind: null };
    load();
  });

  function fillPicker() {
    const withRoots = app.projects.filter((p) => p.roots && p.roots.length);
    clear(picker, h('option', { value: '' }, 'No project (user-wide file only)'),
      withRoots.map((p) => h('option', { value: p.slug }, p.name)));
    if (!withRoots.some((p) => p.slug === project)) project = null;
    picker.value = project || '';
  }

  function label(file) {
    const info = INSTRUCTION_FILES[file.kind] || { name: file.kind, place: '', about: '' };
    return info.place === 'all projects' ? `${info.name} · all projects` : info.name;
  }

  async function load() {
    const mine = ++seq;
    editing = false;
    isDirty = () => false;
    try {
      const listed = await call('instruction_files', { project });
      if (mine !== seq) return;
      files = listed;
      if (!files.some((f) => f.kind === kind)) {
        const firstInRepo = files.find((f) => !isUserFile(f) && f.exists);
        kind = (firstInRepo || files.find((f) => f.exists) || files[0] || {}).kind || null;
      }
      renderList();
      await openFile(kind, mine);
    } catch (e) {
      if (mine !== seq) return;
      clear(list);
      clear(pane, h('div', { class: 'error-box', testid: 'instruction-error', dataset: { code: e.code } }, e.message));
    }
  }

  function renderList() {
    const row = (f) => h('button', {
      class: `instruction-row${f.kind === kind ? ' selected' : ''}${f.exists ? '' : ' missing'}`, type: 'button',
      testid: 'instruction-row', dataset: { kind: f.kind, exists: f.exists ? 'true' : 'false' },
      'aria-current': f.kind === kind ? 'true' : null,
      onClick: () => choose(f.kind),
    },
      h('span', { class: 'row-top' }, h('span', { class: 'row-name mono' }, label(f)),
        h('span', { class: 'row-time' }, f.exists ? formatBytes(f.bytes) : 'not created')),
      h('span', { class: 'row-description' }, `Loaded by ${loadedByLabel(f.loaded_by)}`));
    const user = files.filter(isUserFile);
    const repo = files.filter((f) => !isUserFile(f));
    clear(list,
      h('div', { class: 'list-group-title' }, 'Everywhere'), user.map(row),
      repo.length
        ? [h('div', { class: 'list-group-title' }, `In ${app.projectName(project)}`), repo.map(row)]
        : h('p', { class: 'list-hint muted small' }, 'Pick a project above to see its repository’s files.'));
  }

  async function choose(next) {
    if (next === kind && !editing) return;
    if (isDirty() && !await confirmDiscard()) return;
    kind = next;
    editing = false;
    isDirty = () => false;
    renderList();
    await openFile(kind, seq);
  }

  async function openFile(which, mine) {
    if (!which) { clear(pane); return; }
    try {
      const loaded = await call('get_instruction', { project, kind: which });
      if (mine !== seq || which !== kind) return;
      page = loaded;
      render();
    } catch (e) {
      if (mine !== seq) return;
      page = null;
      clear(pane, h('div', { class: 'error-box', testid: 'instruction-error', dataset: { code: e.code } }, e.message));
    }
  }

  function head(actions) {
    const info = INSTRUCTION_FILES[page.kind] || { about: '' };
    return h('div', { class: 'detail-head' },
      h('div', { class: 'detail-badges' },
        page.loaded_by.map((a) => h('span', { class: `badge badge-source source-${a}`, testid: 'instruction-loaded-by', dataset: { agent: a } }, `Loaded by ${AGENT_NAMES[a] || a}`))),
      h('h2', { class: 'detail-name mono', testid: 'instruction-title' }, label(page)),
      h('p', { class: 'detail-description' }, info.about),
      h('div', { class: 'anchor-path mono', testid: 'instruction-path' }, page.path),
      page.link_target ? h('p', { class: 'muted small', testid: 'instruction-link' }, `A link to ${page.link_target}: saving writes that file.`) : null,
      actions ? h('div', { class: 'detail-actions' }, actions) : null);
  }

  function render() {
    editing = false;
    isDirty = () => false;
    if (!page.exists) {
      const info = INSTRUCTION_FILES[page.kind] || { name: page.kind };
      clear(pane, head(null),
        h('div', { class: 'empty-state', testid: 'instruction-missing' },
          h('div', { class: 'empty-title' }, `${info.name} does not exist ${isUserFile(page) ? 'yet' : 'in this repository'}`),
          h('p', {}, `${loadedByLabel(page.loaded_by)} would load it by itself. Write one here if you want it.`),
          h('button', { class: 'btn btn-primary', testid: 'instruction-create', onClick: edit }, `Create ${info.name}`)));
      return;
    }
    const body = h('article', { class: 'markdown anchor-body', testid: 'instruction-body' });
    setSafeHtml(body, page.html);
    clear(pane,
      head([h('button', { class: 'btn btn-primary', testid: 'instruction-edit', onClick: edit }, 'Edit'),
        h('button', { class: 'btn', testid: 'instruction-open-editor', onClick: openInEditor }, 'Open in editor')]),
      page.text.trim() ? body : h('p', { class: 'muted' }, 'The file is empty.'),
      page.archived_versions
        ? h('p', { class: 'detail-path', testid: 'instruction-archived' },
          `${page.archived_versions} earlier version${page.archived_versions === 1 ? '' : 's'} kept in Ambry’s instructions archive`)
        : null);
  }

  async function openInEditor() {
    try {
      const what = await call('open_instruction_in_editor', { project, kind: page.kind });
      toast(`Opened in ${what}`, 'info', 2500);
    } catch (e) {
      editorErrorToast('Could not open the editor', e);
    }
  }

  function edit() {
    editing = true;
    const info = INSTRUCTION_FILES[page.kind] || { name: page.kind };
    const base = page.exists ? page.text : null;
    const text = h('textarea', { class: 'input mono anchor-editor', testid: 'instruction-editor', spellcheck: 'false', 'aria-label': `${info.name} text` });
    text.value = page.text;
    const error = h('div', { class: 'form-error', testid: 'instruction-error', hidden: true, role: 'alert' });
    isDirty = () => editing && text.value !== (base || '');
    const save = async () => {
      try {
        const archivedBefore = page.archived_versions;
        page = await call('save_instruction', { project, kind: page.kind, text: text.value, base });
        editing = false;
        isDirty = () => false;
        toast(page.archived_versions > archivedBefore ? 'Saved · the earlier text is archived' : 'Saved', 'success', 2500);
        await refreshList();
        render();
        const again = pane.querySelector('[data-testid="instruction-edit"]');
        if (again) again.focus();
      } catch (e) {
        showSaveError(error, e, text);
      }
    };
    const cancel = async () => {
      if (isDirty() && !await confirmDiscard()) { text.focus(); return; }
      editing = false;
      isDirty = () => false;
      render();
      const again = pane.querySelector('[data-testid="instruction-edit"], [data-testid="instruction-create"]');
      if (again) again.focus();
    };
    bindEditorKeys(text, { save, cancel });
    clear(pane,
      head([h('button', { class: 'btn', testid: 'instruction-cancel', onClick: cancel }, 'Cancel'),
        h('button', { class: 'btn btn-primary', testid: 'instruction-save', onClick: save }, 'Save')]),
      h('div', { class: 'anchor-edit' }, error, text));
    text.focus();
  }

  async function refreshList() {
    try {
      files = await call('instruction_files', { project });
      renderList();
    } catch { /* the list keeps what it showed */ }
  }

  // An agent or an editor may change these files at any time; coming back to the window shows
  // what is on disk now (never while the person is typing).
  window.addEventListener('focus', () => {
    if (el.isConnected && !editing) load();
  });

  return {
    el,
    show: (slug, which = null) => {
      // Shown again while the person types (its own sidebar entry): keep the editor as it is.
      if (editing && (slug || null) === project && (!which || which === kind)) return Promise.resolve();
      project = slug || null;
      fillPicker();
      if (which) kind = which;
      return load();
    },
    // The project chosen here last (null: the user-wide files only).
    get project() { return project; },
    focusMain: () => {
      const first = list.querySelector('.instruction-row.selected') || list.querySelector('button');
      if (first) first.focus();
    },
    hasUnsavedEdits: () => isDirty(),
    left: () => { editing = false; isDirty = () => false; },
    refresh: () => { if (el.isConnected) fillPicker(); },
  };
}
