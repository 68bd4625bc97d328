// Trust anchors: USER.md (your standing instructions) and a project's .ambry/AMBRY.md. Agents
// read them in full every turn; only you write them.
//
// data-testid:
//   anchor-view       the view            anchor-title     heading       anchor-path   file location
//   anchor-body       rendered markdown   anchor-missing   "does not exist yet" state
//   anchor-create     create from skeleton                anchor-edit   edit button
//   anchor-editor     the textarea        anchor-save      save          anchor-cancel  cancel
//   anchor-error      inline error (data-code)             anchor-skeleton  "still the skeleton" note
//   anchor-agent-files  the agents' own instruction files for the same scope

import { call } from './api.js';
import { h, clear, setSafeHtml } from './dom.js';
import { confirmDialog, toast, errorToast } from './dialog.js';
import { bindEditorKeys, showSaveError } from './text-editor.js';

// The one question asked before typed text is thrown away (the memory form asks it too).
export function confirmDiscard(message = 'Your edits are not saved and will be lost.') {
  return confirmDialog({ title: 'Discard changes?', message, confirmLabel: 'Discard', danger: true });
}

export function createAnchorView(app) {
  let project = null;
  let anchor = null;
  let editing = false;
  let isDirty = () => false; // true while the editor holds text that differs from the file
  // The load in flight, if any. Until it lands the view still shows what it showed before: an
  // Edit pressed meanwhile is kept for it (and opens on the file as loaded), not opened on the
  // old text and then replaced by the load's render.
  let loading = null;

  const el = h('section', { class: 'view anchor-view', testid: 'anchor-view' });

  function heading() {
    return project ? `${app.projectName(project)} · AMBRY.md` : 'USER.md';
  }

  function explanation() {
    return project
      ? 'Project context every agent reads in this repository. It lives in the repo, so the team shares it through git.'
      : 'Your own standing instructions for every coding agent. Agents read it every turn and never write it.';
  }

  async function load() {
    editing = false;
    isDirty = () => false;
    const mine = { edit: false };
    loading = mine;
    try {
      const loaded = await call('get_anchor', { project });
      if (loading !== mine) return; // a later load (another anchor, a change on disk) owns the view
      loading = null;
      anchor = loaded;
      render();
      if (mine.edit) edit();
    } catch (e) {
      if (loading !== mine) return;
      loading = null;
      anchor = null;
      clear(el, header(), h('div', { class: 'view-body' }, h('div', { class: 'error-box', testid: 'anchor-error', dataset: { code: e.code } }, e.message)));
    }
  }

  function header(actions = null) {
    return h('header', { class: 'view-header' },
      h('div', { class: 'view-titles' }, h('h1', { testid: 'anchor-title' }, heading()),
        h('span', { class: 'subtitle' }, explanation())),
      h('div', { class: 'view-actions' }, actions));
  }

  function render() {
    isDirty = () => false;
    if (!anchor.exists) {
      clear(el, header(), h('div', { class: 'view-body' },
        h('div', { class: 'empty-state', testid: 'anchor-missing' },
          h('div', { class: 'empty-title' }, `${project ? 'AMBRY.md' : 'USER.md'} does not exist yet`),
          h('p', {}, 'Create it from a short skeleton, then fill in what every agent should know.'),
          h('p', { class: 'mono muted small' }, anchor.path),
          h('button', { class: 'btn btn-primary', testid: 'anchor-create', onClick: create }, 'Create from skeleton'))));
      return;
    }
    const body = h('article', { class: 'markdown anchor-body', testid: 'anchor-body' });
    setSafeHtml(body, anchor.html);
    clear(el,
      header([h('button', { class: 'btn', testid: 'anchor-agent-files', title: 'CLAUDE.md, AGENTS.md and the other files agents load by themselves', onClick: () => app.showInstructions(project) }, 'Agents’ files'),
        h('button', { class: 'btn btn-primary', testid: 'anchor-edit', onClick: edit }, 'Edit')]),
      h('div', { class: 'view-body scroll' },
        anchor.untouched ? h('div', { class: 'banner', testid: 'anchor-skeleton' }, 'Still the untouched skeleton, so agents do not get it yet. Edit it to say something.') : null,
        h('div', { class: 'anchor-path mono', testid: 'anchor-path' }, anchor.path),
        body));
  }

  async function create() {
    try {
      anchor = await call('init_anchor', { project });
      toast('Created from the skeleton', 'success');
      if (project) app.reloadProjects();
      edit();
    } catch (e) {
      errorToast('Could not create the file', e);
    }
  }

  function edit() {
    if (loading) { loading.edit = true; return; }
    editing = true;
    const text = h('textarea', { class: 'input mono anchor-editor', testid: 'anchor-editor', spellcheck: 'false', 'aria-label': `${heading()} text` });
    text.value = anchor.text;
    const error = h('div', { class: 'form-error', testid: 'anchor-error', hidden: true, role: 'alert' });
    const original = anchor.text;
    isDirty = () => editing && text.value !== original;
    const save = async () => {
      try {
        anchor = await call('save_anchor', { project, text: text.value });
        editing = false;
        isDirty = () => false;
        toast('Saved', 'success', 2000);
        render();
      } catch (e) {
        showSaveError(error, e, text);
      }
    };
    const cancel = async () => {
      if (isDirty() && !await confirmDiscard()) { text.focus(); return; }
      editing = false;
      isDirty = () => false;
      render();
      const again = el.querySelector('[data-testid="anchor-edit"]');
      if (again) again.focus();
    };
    bindEditorKeys(text, { save, cancel });
    clear(el,
      header([h('button', { class: 'btn', testid: 'anchor-cancel', onClick: cancel }, 'Cancel'),
        h('button', { class: 'btn btn-primary', testid: 'anchor-save', onClick: save }, 'Save')]),
      h('div', { class: 'view-body anchor-edit' }, error, text));
    text.focus();
  }

  return {
    el,
    show: (slug) => { project = slug || null; return load(); },
    focusMain: () => {
      const first = el.querySelector('[data-testid="anchor-edit"], [data-testid="anchor-create"], button');
      if (first) first.focus();
    },
    hasUnsavedEdits: () => isDirty(),
    onChange: (change) => {
      if (change.kind === 'user_anchor_changed' && !project && !editing && el.isConnected) load();
    },
  };
}
