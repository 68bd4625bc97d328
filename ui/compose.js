// Compose preview (DESIGN §5): the exact block `ambry compose` gives an agent in a project, at
// either moment — a new context (anchors, the memory map and a first prompt's bodies) or a later
// turn of a chosen session (only what it would add) — with the bytes and approximate tokens of
// each section, the relevance gate and the budgets, and why each memory went in or not.
// Previewing records nothing in the injection ledger.
//
// data-testid:
//   compose-view        the view              compose-prompt    the prompt box
//   compose-project     the project picker    compose-output    the block (monospace, exact)
//   compose-moment      new context | turn    compose-session   the session id (turn only)
//   compose-sections    section sizes table   compose-section   a row (data-kind)
//   compose-selected    memories given        compose-cut       a memory not given (data-reason,
//                                                               data-listed, data-name)
//   compose-gate        gate and budgets      compose-session-info  the session previewed
//   compose-total       total bytes line      compose-notes     notes (left-out sources, cuts)
//   compose-conditions  what holds for the whole context, beside the block (a config.toml that
//                       does not load: the block is composed with the defaults, as a hook does)
//   compose-condition   one of them           (compose-session's list: data-ledger, data-indexed)
//   compose-empty       nothing to show yet   compose-copy      copy the block
//   compose-agent-files the instruction files the agent loads by itself (not in the block)
//   compose-agent-file  one of them (data-kind, data-agents)
//   compose-tests       the person's retrieval cases   compose-test-case  one (data-passed)
//   compose-tests-run   run them    compose-test-save  keep this prompt as a case
//   compose-tests-summary  passed/failed line          compose-tests-empty  none yet
//   compose-test-edit      Edit… on a case     compose-test-delete  Delete on a case
//   (the case editor: see retrieval-case.js)

import { call } from './api.js';
import { h, clear, formatBytes, debounce } from './dom.js';
import { toast, errorToast, confirmDialog } from './dialog.js';
import { INSTRUCTION_FILES, loadedByLabel } from './instructions.js';
import { caseDialog } from './retrieval-case.js';

const CUT_REASONS = {
  below_gate: 'below the gate',
  already_in_context: 'already in context',
  budget: 'over budget',
};

function cutLabel(m) {
  return m.reason === 'budget' && m.listed ? 'over budget · listed as one line' : (CUT_REASONS[m.reason] || m.reason);
}

// Agents count tokens, not bytes; four bytes a token is the usual rough measure for English text.
function tokens(bytes) {
  return `~${Math.ceil(bytes / 4).toLocaleString('en')} tok`;
}

function sizeOf(bytes) {
  return `${formatBytes(bytes)} · ${tokens(bytes)}`;
}

export function createComposeView(app) {
  let seq = 0;
  let lastText = '';
  const prompt = h('textarea', { class: 'input compose-prompt', testid: 'compose-prompt', rows: 3, placeholder: 'What the agent is about to do, e.g. “fix the token refresh race in the auth middleware”', 'aria-label': 'Prompt' });
  const project = h('select', { class: 'select', testid: 'compose-project', 'aria-label': 'Project (the agent’s working directory)' });
  const moment = h('select', { class: 'select', testid: 'compose-moment', 'aria-label': 'Moment' },
    h('option', { value: 'new' }, 'New context'),
    h('option', { value: 'turn' }, 'Later turn of a session'));
  const sessionList = h('datalist', { id: 'compose-session-list' });
  const session = h('input', { class: 'input mono', testid: 'compose-session', list: 'compose-session-list', placeholder: 'agent session id', 'aria-label': 'Agent session id' });
  const sessionField = h('label', { class: 'field compose-project-field compose-session-field', hidden: true }, h('span', { class: 'field-label' }, 'Session'), session, sessionList);
  const gate = h('div', { class: 'compose-gate small muted', testid: 'compose-gate' });
  const sessionInfo = h('div', { class: 'small muted', testid: 'compose-session-info' });
  const total = h('div', { class: 'compose-total', testid: 'compose-total' });
  const notes = h('div', { class: 'compose-notes', testid: 'compose-notes' });
  // What holds for the whole context (a config.toml that does not load, no model), beside the
  // block composed despite it — as an agent's hook composes it. First in the side column, so it
  // never takes the block's room in a small window.
  const conditionsBox = h('div', { class: 'compose-side compose-conditions', testid: 'compose-conditions', role: 'status', hidden: true });
  const sections = h('div', { class: 'compose-side' });
  const agentFiles = h('div', { class: 'compose-side', testid: 'compose-agent-files' });
  const output = h('pre', { class: 'compose-output mono', testid: 'compose-output', tabindex: '0' });
  const copy = h('button', { class: 'btn', testid: 'compose-copy', onClick: copyBlock }, 'Copy block');
  const tests = h('div', { class: 'compose-side compose-tests', testid: 'compose-tests' });
  let lastComposition = null;
  let testSeq = 0;

  const el = h('section', { class: 'view compose-view', testid: 'compose-view' },
    h('header', { class: 'view-header' },
      h('div', { class: 'view-titles' }, h('h1', {}, 'Compose preview'),
        h('span', { class: 'subtitle' }, 'Exactly what an agent receives at the start of a context or on a later turn (ambry compose)'))),
    h('div', { class: 'compose-inputs' },
      h('label', { class: 'field field-grow' }, h('span', { class: 'field-label' }, 'Prompt'), prompt),
      h('label', { class: 'field compose-project-field' }, h('span', { class: 'field-label' }, 'Working in'), project),
      h('label', { class: 'field compose-project-field' }, h('span', { class: 'field-label' }, 'Moment'), moment),
      sessionField),
    h('div', { class: 'compose-body' },
      h('div', { class: 'compose-block' }, h('div', { class: 'block-head' }, total, copy), gate, sessionInfo, output),
      h('aside', { class: 'compose-aside' }, conditionsBox, agentFiles, sections, notes, tests)));

  const refresh = debounce(run, 150);
  prompt.addEventListener('input', refresh);
  project.addEventListener('change', () => { run(); runTests(); });
  session.addEventListener('input', refresh);
  moment.addEventListener('change', () => {
    sessionField.hidden = moment.value !== 'turn';
    if (moment.value === 'turn') { fillSessions(); session.focus(); }
    run();
  });

  // Sessions to pick from: the ones the injection ledger has composed for (a later turn
  // continues what it holds; its transcript may not be indexed at all), then recent indexed
  // ones. Any id can be typed (the ledger keys by the agent's id).
  async function fillSessions() {
    const [ledger, groups] = await Promise.all([
      call('ledger_sessions', { limit: 50 }).catch(() => []),
      call('list_sessions', { source: null, limit: 50 }).catch(() => []),
    ]);
    const indexed = new Map(groups.map((g) => [g.session_id, g]));
    const composed = new Set(ledger.map((l) => l.session_id));
    clear(sessionList,
      ledger.map((l) => {
        const g = indexed.get(l.session_id);
        const label = g ? `${g.source} · ${g.title || ''}` : `${l.agent} · composed for, transcript not indexed`;
        return h('option', { value: l.session_id, dataset: { ledger: 'true', indexed: String(!!g) } }, label.slice(0, 90));
      }),
      groups.filter((g) => !composed.has(g.session_id))
        .map((g) => h('option', { value: g.session_id, dataset: { ledger: 'false', indexed: 'true' } }, `${g.source} · ${g.title || ''}`.slice(0, 90))));
  }

  // A later turn belongs to a session: with none chosen there is nothing to continue, so no
  // figures are shown (a new context's would answer a different question).
  function renderNoSession() {
    lastText = '';
    lastComposition = null;
    clear(output, h('span', { class: 'muted', testid: 'compose-empty' }, 'No session to continue: a later turn adds to a session’s context. Pick a session above (or type its id), or choose New context.'));
    output.classList.add('is-empty');
    total.textContent = 'Later turn · no session chosen';
    gate.textContent = '';
    sessionInfo.textContent = '';
    conditionsBox.hidden = true;
    clear(sections);
    clear(notes);
  }

  function fillProjects() {
    const current = project.value;
    clear(project, h('option', { value: '' }, 'No project (user scope only)'),
      app.projects.map((p) => h('option', { value: p.slug }, p.name)));
    if (app.projects.some((p) => p.slug === current)) project.value = current;
  }

  async function run() {
    const mine = ++seq;
    loadAgentFiles(project.value || null, mine);
    try {
      const id = moment.value === 'turn' ? session.value.trim() : '';
      if (moment.value === 'turn' && !id) {
        renderNoSession();
        return;
      }
      const c = await call('compose_preview', { prompt: prompt.value, project: project.value || null, session: id || null });
      if (mine !== seq) return;
      render(c);
    } catch (e) {
      if (mine !== seq) return;
      conditionsBox.hidden = true;
      clear(output, h('span', { class: 'error' }, e.message));
    }
  }

  function render(c) {
    lastText = c.text;
    lastComposition = c;
    const fresh = c.moment === 'new_context';
    if (c.text.trim()) {
      output.textContent = c.text;
      output.classList.remove('is-empty');
    } else {
      clear(output, h('span', { class: 'muted', testid: 'compose-empty' }, fresh
        ? 'The block is empty: no anchors and no memories yet. Agents get nothing extra this turn.'
        : 'Nothing to add this turn: no memory passes the gate that this context does not already hold.'));
      output.classList.add('is-empty');
    }
    const n = c.selected.length;
    total.textContent = `${sizeOf(c.bytes)} · ${n} memor${n === 1 ? 'y' : 'ies'} · ${fresh ? 'new context' : 'turn'} · ${c.strategy}${c.project ? ` · ${app.projectName(c.project)}` : ''}`;
    const b = c.budgets;
    gate.textContent = `Gate: evidence floor ${c.gate.floor.toFixed(2)}, score within ${c.gate.margin.toFixed(2)} of the best · Budgets: turn ${b.turn_bytes.toLocaleString('en')} B, map ${b.map_bytes.toLocaleString('en')} B, hard limit ${b.hard_limit.toLocaleString('en')} B`;
    sessionInfo.textContent = !c.session ? ''
      : fresh ? `The ledger holds no context for session ${c.session.id}: its next turn opens one (preview only, nothing recorded)`
        : `Session ${c.session.id}, context ${c.session.generation}: only what this turn adds (preview only, nothing recorded)`;
    clear(sections,
      h('h3', {}, 'Sections'),
      h('table', { class: 'table', testid: 'compose-sections' },
        h('tbody', {}, c.sections.length ? c.sections.map((s) => h('tr', { testid: 'compose-section', dataset: { kind: s.kind } },
          h('td', {}, s.heading), h('td', { class: 'num' }, formatBytes(s.bytes)), h('td', { class: 'num muted' }, tokens(s.bytes))))
          : h('tr', {}, h('td', { class: 'muted' }, 'No sections')))),
      h('h3', {}, 'Given (passed the gate)'),
      h('ul', { class: 'compose-list compose-decisions', testid: 'compose-selected' },
        n ? c.selected.map((m) => h('li', {},
          h('button', {
            class: 'link-button mono', testid: 'compose-selected-memory', dataset: { name: m.name, scope: m.scope },
            title: `Open ${m.name}`, onClick: () => app.showMemory({ scope: m.scope, project: m.scope === 'project' ? c.project : null }, m.name),
          }, m.name), h('span', { class: 'badge badge-ok' }, 'selected'),
          h('span', { class: 'num muted' }, `score ${m.score.toFixed(2)} · evidence ${m.strength.toFixed(2)} · ${sizeOf(m.bytes)}`))) : h('li', { class: 'muted' }, c.cut.some((m) => m.reason === 'already_in_context') ? 'None new: what passes the gate is already in this context' : 'No memory passes the gate for this prompt')),
      h('h3', {}, 'Not given, and why'),
      h('ul', { class: 'compose-list compose-decisions' },
        c.cut.length ? c.cut.map((m) => h('li', { testid: 'compose-cut', dataset: { reason: m.reason, listed: String(!!m.listed), name: m.name } },
          h('span', { class: 'mono', title: m.name }, m.name),
          h('span', { class: m.reason === 'below_gate' ? 'badge' : 'badge badge-warn' }, cutLabel(m)),
          h('span', { class: 'num muted' }, `score ${m.score.toFixed(2)} · evidence ${m.strength.toFixed(2)} · ${sizeOf(m.bytes)}`))) : h('li', { class: 'muted' }, 'Nothing was left out'),
        c.below_gate_more ? h('li', { class: 'muted' }, `and ${c.below_gate_more} more below the gate`) : null));
    const conditions = c.conditions || [];
    conditionsBox.hidden = !conditions.length;
    clear(conditionsBox, h('h3', {}, 'Composed despite'), conditions.map((t) => h('p', { class: 'note', testid: 'compose-condition' }, t)));
    clear(notes, c.notes.map((t) => h('p', { class: 'note' }, t)));
  }

  // The whole context an agent starts with: its own instruction files come first, loaded by
  // the agent itself; the block above comes on top of them (Ambry never repeats them).
  async function loadAgentFiles(slug, mine) {
    let files;
    try {
      files = (await call('instruction_files', { project: slug })).filter((f) => f.exists);
    } catch (e) {
      if (mine === seq) clear(agentFiles, h('h3', {}, 'Loaded by the agents themselves'), h('p', { class: 'muted small' }, e.message));
      return;
    }
    if (mine !== seq) return;
    clear(agentFiles,
      h('h3', {}, 'Loaded by the agents themselves'),
      h('ul', { class: 'compose-list' },
        files.length ? files.map((f) => {
          const info = INSTRUCTION_FILES[f.kind] || { name: f.kind, place: '' };
          return h('li', { class: 'agent-file', testid: 'compose-agent-file', dataset: { kind: f.kind, agents: f.loaded_by.join(' ') } },
            h('button', {
              class: 'link-button mono', title: `${f.path}: open it`, onClick: () => app.showInstructions(slug, f.kind),
            }, info.place === 'all projects' ? `${info.name} (all projects)` : info.name),
            h('span', { class: 'badge' }, loadedByLabel(f.loaded_by)),
            h('span', { class: 'num muted' }, formatBytes(f.bytes)));
        }) : h('li', { class: 'muted' }, slug ? 'No CLAUDE.md or AGENTS.md in this repository or for all projects' : 'No user-wide CLAUDE.md')),
      h('p', { class: 'muted small' }, 'Added to the agent’s context by the agent itself, before this block. Ambry does not repeat them.'));
  }

  // The person's own retrieval cases (memory/tests.toml of each scope, `ambry memory test`):
  // each prompt composed as an agent turn, with the rank each expected memory got.
  async function runTests() {
    const mine = ++testSeq;
    const head = [h('h3', {}, 'Your retrieval tests'),
      h('div', { class: 'compose-tests-actions' },
        h('button', { class: 'btn btn-small', testid: 'compose-tests-run', onClick: runTests }, 'Run tests'),
        h('button', { class: 'btn btn-small', testid: 'compose-test-save', onClick: saveAsTest }, 'Save prompt as test…'))];
    let report;
    try {
      report = await call('memory_tests', { project: project.value || null });
    } catch (e) {
      if (mine === testSeq) clear(tests, head, h('p', { class: 'error small' }, e.message));
      return;
    }
    if (mine !== testSeq) return;
    if (!report) {
      clear(tests, head, h('p', { class: 'muted small', testid: 'compose-tests-empty' },
        'No tests yet. Type a prompt, then “Save prompt as test…” to keep the memories it must bring in. ',
        h('span', { class: 'mono' }, 'ambry memory test'), ' runs the same cases.'));
      return;
    }
    clear(tests, head,
      h('p', { class: report.failed ? 'small tests-failed' : 'small tests-passed', testid: 'compose-tests-summary' },
        `${report.passed} passed · ${report.failed} failed · ${report.strategy}`),
      h('ul', { class: 'compose-list compose-test-list' }, report.cases.map(renderCase)),
      // The fallback the block above already explains is not said twice.
      report.notes.filter((n) => !(lastComposition && [...lastComposition.notes, ...(lastComposition.conditions || [])].includes(n))).map((n) => h('p', { class: 'note' }, n)));
  }

  function renderCase(c) {
    const line = (e, must) => {
      const ok = must ? e.injected && (!c.within || (e.rank && e.rank <= c.within)) : !e.injected;
      const where = `${e.rank ? `rank ${e.rank}, ${e.injected ? 'injected' : 'not injected'}` : 'not ranked'}`;
      return h('li', { class: 'small', dataset: { must: must ? 'inject' : 'not-inject' } },
        h('span', { class: 'mono' }, e.name),
        h('span', { class: ok ? 'muted' : 'tests-failed' },
          must ? ` ${where}${c.within ? ` · must rank within ${c.within}` : ''}` : ` must not be injected · ${where}`));
    };
    return h('li', { class: 'compose-test', testid: 'compose-test-case', dataset: { passed: String(c.passed), index: String(c.index), scope: c.scope } },
      h('span', { class: c.passed ? 'badge badge-ok' : 'badge badge-danger' }, c.passed ? 'pass' : 'fail'),
      h('button', {
        class: 'link-button compose-test-prompt', title: 'Compose this prompt',
        onClick: () => { prompt.value = c.prompt; run(); prompt.focus(); },
      }, c.prompt),
      h('span', { class: 'muted small' }, c.scope === 'project' ? 'project' : 'user'),
      h('span', { class: 'compose-test-actions' },
        h('button', { class: 'btn btn-small', testid: 'compose-test-edit', 'aria-label': `Edit the test “${c.prompt}”`, onClick: () => editTest(c) }, 'Edit…'),
        h('button', { class: 'btn btn-small btn-ghost-danger', testid: 'compose-test-delete', 'aria-label': `Delete the test “${c.prompt}”`, onClick: () => deleteTest(c) }, 'Delete')),
      h('ul', { class: 'compose-test-expected' }, c.expected.map((e) => line(e, true)), (c.rejected || []).map((e) => line(e, false))));
  }

  // The names this prompt ranks, best first (the case editor lists them first).
  async function rankedFor(text) {
    if (!text) return [];
    try {
      const c = await call('compose_preview', { prompt: text, project: project.value || null });
      const names = [];
      for (const m of [...c.selected, ...c.cut]) if (!names.includes(m.name)) names.push(m.name);
      return names;
    } catch {
      return [];
    }
  }

  async function saveAsTest() {
    const text = prompt.value.trim();
    if (!text) {
      toast('Type the prompt first: a test is a prompt and the memories it must (or must not) bring in', 'info');
      prompt.focus();
      return;
    }
    // Composed again for exactly this prompt: the preview may still show an older one.
    const ranked = await rankedFor(text);
    const slug = project.value || null;
    const file = await caseDialog({
      title: 'Save as a retrieval test', project: slug, prompt: text, ranked, expect: ranked.slice(0, 1),
      save: (spec) => call('save_memory_test', { project: slug, prompt: spec.prompt, expect: spec.expect, reject: spec.reject, within: spec.within }),
    });
    if (!file) return;
    toast(`Test saved to ${file}`, 'success', 3000);
    runTests();
  }

  async function editTest(c) {
    const slug = project.value || null;
    const file = await caseDialog({
      title: 'Edit the retrieval test', project: slug, prompt: c.prompt, ranked: await rankedFor(c.prompt),
      expect: c.expected.map((e) => e.name), reject: (c.rejected || []).map((e) => e.name), within: c.within,
      save: (spec) => call('edit_memory_test', { project: slug, case: { scope: c.scope, index: c.index, prompt: c.prompt }, spec }),
    });
    if (!file) return;
    toast('Test saved', 'success', 3000);
    runTests();
  }

  async function deleteTest(c) {
    const ok = await confirmDialog({ title: 'Delete this retrieval test?', message: `“${c.prompt}”`, confirmLabel: 'Delete test', danger: true });
    if (!ok) return;
    try {
      await call('delete_memory_test', { project: project.value || null, case: { scope: c.scope, index: c.index, prompt: c.prompt } });
      toast('Test deleted', 'success', 3000);
    } catch (e) {
      errorToast('Could not delete the test', e);
    }
    runTests();
  }

  // Through the clipboard plugin (the window may write text, never read): the web clipboard API
  // is not granted to the page.
  async function copyBlock() {
    try {
      await call('plugin:clipboard-manager|write_text', { text: lastText });
      copy.dataset.copiedBytes = String(new TextEncoder().encode(lastText).length);
      toast('Block copied to the clipboard', 'success', 2000);
    } catch (e) {
      errorToast('Could not copy the block', e);
    }
  }

  return {
    el,
    show: () => { fillProjects(); run(); runTests(); prompt.focus(); },
    focusMain: () => prompt.focus(),
    refresh: () => { fillProjects(); },
  };
}
