// What a person does with an open transcript: copy it (or the selected passage), keep a passage
// as a memory (whose `source:` names the session), prune a transcript whose file was deleted,
// and see what Ambry gave the session (the injection ledger).
// Deliberately does not: render turns or search (see sessions.js); the rules live in core.
//
// data-testid:
//   transcript-actions   the action bar            transcript-copy     Copy (selection, else the whole transcript)
//   transcript-save      Save as memory…           transcript-prune    Remove from index (deleted transcripts only)
//   passage-dialog       the save dialog           passage-name  passage-type  passage-description  passage-scope  passage-body
//   passage-save         its Save                  passage-cancel      its Cancel       passage-error   why it was refused
//   transcript-injections  what Ambry gave this session (data-count); injection-row one memory given

import { call } from './api.js';
import { h, relativeTime, absoluteTime } from './dom.js';
import { toast, errorToast, confirmDialog, trapFocus } from './dialog.js';

const TYPES = ['user', 'feedback', 'project', 'reference'];

// The transcript as plain text: what each side said, tool calls and agent context included,
// each turn under its role, in order.
function transcriptText(t) {
  const head = `# ${t.meta.title || '(untitled session)'}\n${t.meta.source} session ${t.meta.session_id}${t.meta.cwd ? ` in ${t.meta.cwd}` : ''}\n`;
  return head + t.turns.map((turn) => `\n## ${turn.label || turn.role}${turn.ts ? ` · ${turn.ts}` : ''}\n\n${turn.text}\n`).join('');
}

// The text selected inside `pane`, if any.
function selectedIn(pane) {
  const sel = window.getSelection();
  if (!sel || sel.isCollapsed || !sel.rangeCount) return '';
  const range = sel.getRangeAt(0);
  return pane.contains(range.commonAncestorContainer) ? sel.toString().trim() : '';
}

// A name from the passage's first words (the person edits it; the store validates it).
function suggestedName(text) {
  const words = (text.toLowerCase().match(/[a-z0-9]+/g) || []).filter((w) => w.length > 2).slice(0, 4);
  return words.join('-');
}

async function copyText(text, what) {
  try {
    await call('plugin:clipboard-manager|write_text', { text });
    toast(`${what} copied to the clipboard`, 'success', 2000);
  } catch (e) {
    errorToast('Could not copy', e);
  }
}

// The dialog that keeps a passage as a new memory. Resolves with the saved memory or null.
function passageDialog(app, t, passage) {
  return new Promise((resolve) => {
    const previous = /** @type {HTMLElement|null} */ (document.activeElement);
    let release = () => {};
    const close = (result) => {
      release();
      overlay.remove();
      document.removeEventListener('keydown', onKey, true);
      if (previous && previous.isConnected && previous.focus) previous.focus();
      resolve(result);
    };
    const onKey = (e) => {
      if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); close(null); }
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's') { e.preventDefault(); e.stopPropagation(); form.requestSubmit(); }
    };
    // Where it goes: the project the session ran in when Ambry knows it, else the user's.
    const inProject = app.projects.find((p) => t.meta.cwd && p.roots.some((r) => t.meta.cwd === r || t.meta.cwd.startsWith(`${r}/`)));
    const scope = h('select', { class: 'select', testid: 'passage-scope', 'aria-label': 'Where' },
      h('option', { value: '' }, 'User memory'),
      app.projects.map((p) => h('option', { value: p.slug }, `Project · ${p.name}`)));
    scope.value = inProject ? inProject.slug : '';
    const name = h('input', { class: 'input mono', testid: 'passage-name', value: suggestedName(passage), spellcheck: 'false', autocomplete: 'off', 'aria-label': 'Name' });
    const type = h('select', { class: 'select', testid: 'passage-type', 'aria-label': 'Type' }, TYPES.map((x) => h('option', { value: x }, x)));
    type.value = inProject ? 'project' : 'reference';
    const description = h('input', { class: 'input', testid: 'passage-description', placeholder: 'One line: what this memory is for', 'aria-label': 'Description' });
    const body = h('textarea', { class: 'input mono passage-body', testid: 'passage-body', 'aria-label': 'Body', spellcheck: 'false' });
    body.value = passage;
    const error = h('div', { class: 'form-error', testid: 'passage-error', role: 'alert', hidden: true });
    const save = h('button', { class: 'btn btn-primary', testid: 'passage-save', type: 'submit' }, 'Save memory');
    const cancel = h('button', { class: 'btn', testid: 'passage-cancel', type: 'button', onClick: () => close(null) }, 'Cancel');
    const field = (label, input) => h('label', { class: 'field' }, h('span', { class: 'field-label' }, label), input);
    // The fields scroll inside the dialog; its title and buttons stay in view in a short window.
    const form = h('form', { class: 'passage-form' },
      h('div', { class: 'passage-fields' },
        h('div', { class: 'form-row' }, field('Name', name), field('Type', type)),
        field('Description', description),
        field('Where', scope),
        h('label', { class: 'field field-grow' }, h('span', { class: 'field-label' }, 'Body (markdown)'), body),
        h('p', { class: 'muted small' }, `Its source is recorded as this ${t.meta.source} session, so you can find where it was said.`),
        error),
      h('div', { class: 'modal-actions' }, cancel, save));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      save.disabled = true;
      for (const input of [name, description, body]) input.classList.remove('invalid');
      /** @type {import('./ipc').Location} */
      const location = scope.value ? { scope: 'project', project: scope.value } : { scope: 'user', project: null };
      const draft = { name: name.value.trim(), type: type.value, description: description.value, body: body.value, tags: [] };
      try {
        const saved = await call('save_passage', { location, sessionId: t.meta.session_id, draft });
        close({ location, name: saved.memory.name });
      } catch (err) {
        error.hidden = false;
        error.dataset.code = err.code;
        error.textContent = err.message;
        const culprit = { invalid_name: name, already_exists: name, secret_detected: body }[err.code]
          || (err.code === 'invalid_field' && /description/.test(err.message) ? description : null);
        if (culprit) { culprit.classList.add('invalid'); culprit.focus(); }
      } finally {
        save.disabled = false;
      }
    });
    const dialog = h('div', { class: 'modal modal-wide modal-passage', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'passage-title', testid: 'passage-dialog' },
      h('h2', { id: 'passage-title', class: 'modal-title' }, 'Save as memory'), form);
    const overlay = h('div', { class: 'modal-backdrop', onMousedown: (e) => { if (e.target === overlay) close(null); } }, dialog);
    document.body.append(overlay);
    document.addEventListener('keydown', onKey, true);
    release = trapFocus(dialog);
    (name.value ? description : name).focus();
  });
}

// The action bar over an open transcript. `passage()` is the text a save starts from (the
// selection, else the turn a search hit pointed at); `onPruned` closes the transcript.
export function transcriptActions(app, t, pane, { passage, onPruned }) {
  const copy = h('button', {
    class: 'btn btn-small', testid: 'transcript-copy', type: 'button', title: 'Copy the selected text, or the whole transcript',
    onClick: () => {
      const sel = selectedIn(pane);
      copyText(sel || transcriptText(t), sel ? 'Selection' : 'Transcript');
    },
  }, 'Copy');
  const save = h('button', {
    class: 'btn btn-small', testid: 'transcript-save', type: 'button', title: 'Keep the selected passage (or the matching turn) as a memory',
    onClick: async () => {
      const saved = await passageDialog(app, t, selectedIn(pane) || passage());
      if (saved) toast(`Saved ${saved.name}`, 'success', 6000, { action: { label: 'Open', run: () => app.showMemory(saved.location, saved.name, { byKeyboard: true }) } });
    },
  }, 'Save as memory…');
  const prune = t.meta.source_removed_at ? h('button', {
    class: 'btn btn-small btn-danger', testid: 'transcript-prune', type: 'button',
    onClick: async () => {
      const ok = await confirmDialog({
        title: 'Remove this session?',
        message: 'Its transcript file was deleted; the index holds the only copy. Removing it cannot be undone.',
        confirmLabel: 'Remove', danger: true,
      });
      if (!ok) return;
      try {
        await call('prune_session', { sessionId: t.meta.session_id });
        toast('Session removed from the index', 'success');
        onPruned();
      } catch (e) {
        errorToast('Could not remove the session', e);
      }
    },
  }, 'Remove from index') : null;
  const bar = h('div', { class: 'transcript-actions', testid: 'transcript-actions' }, copy, save, prune);
  // Tab into the bar from a transcript scrolled down: WebKit brings the focused button just into
  // view, leaving the title (which session this acts on) cut off above it; the head is shown
  // from its top whenever it fits the pane, else the button alone.
  bar.addEventListener('focusin', (e) => requestAnimationFrame(() => {
    const head = bar.closest('.detail-head');
    const fits = head && head.getBoundingClientRect().height <= pane.clientHeight;
    (fits ? head : e.target).scrollIntoView({ block: 'nearest' });
  }));
  return bar;
}

// What Ambry gave this session, as the ledger recorded it: folded, one line per memory.
export async function injectionsSection(sessionId) {
  let given;
  try {
    given = await call('session_injections', { sessionId });
  } catch {
    return null;
  }
  if (!given.length) return null;
  const where = (g) => (g.scope === 'user' ? 'user' : g.project || 'project');
  return h('details', { class: 'transcript-injections', testid: 'transcript-injections', dataset: { count: String(given.length) } },
    h('summary', {}, `Ambry gave this session ${given.length} memor${given.length === 1 ? 'y' : 'ies'}`),
    h('ul', { class: 'injection-list' }, given.map((g) => h('li', { class: 'injection-row', testid: 'injection-row', dataset: { name: g.name } },
      h('span', { class: 'mono' }, g.name), ' ',
      h('span', { class: 'badge' }, where(g)), ' ',
      h('span', { class: 'muted small', title: absoluteTime(g.at) },
        `${g.form === 'line' ? 'as one line' : 'whole body'} · ${relativeTime(g.at)}${g.in_context ? '' : ' · since compacted away'}`)))));
}

// The tool calls of the session that memories' rules acted on (DESIGN §16): each call refused
// or reminded, with the memory whose rule it was. Null when there were none.
export async function ruleChecksSection(sessionId) {
  let checks;
  try {
    checks = await call('session_tool_checks', { sessionId });
  } catch {
    return null;
  }
  if (!checks.length) return null;
  const denied = checks.filter((c) => c.action === 'deny').length;
  return h('details', { class: 'transcript-injections', testid: 'transcript-rule-checks', open: true, dataset: { count: String(checks.length) } },
    h('summary', {}, `Memories' rules acted on ${checks.length} tool call${checks.length === 1 ? '' : 's'}${denied ? ` (${denied} refused)` : ''}`),
    h('ul', { class: 'injection-list' }, checks.map((c) => h('li', { class: 'injection-row', testid: 'rule-check-row', dataset: { action: c.action, name: c.name } },
      h('span', { class: `badge ${c.action === 'deny' ? 'badge-danger' : ''}` }, c.action === 'deny' ? 'Refused' : 'Reminded'), ' ',
      h('code', {}, `${c.tool} $ ${c.input.split('\n')[0]}`), ' ',
      h('span', { class: 'muted small', title: absoluteTime(c.at) }, `by ${c.name} (${c.scope}) · ${relativeTime(c.at)}`)))));
}
