// The Review's *Ask Claude Code / Codex…* dialog (DESIGN §14): the person's own agent judges
// the pairs marked "duplicate or conflict?". The dry run first (what is sent, its size, the text
// itself), then one run under a name of its own that Cancel/Escape stop; a failure says the
// agent's reason in the dialog, up front. Deliberately does not: list or act on findings (the
// Review view does, and reloads through `onDone`), or keep verdicts (core does).

import { call, agentRunName } from './api.js';
import { h } from './dom.js';
import { toast } from './dialog.js';

// `modal(testid, title, body, actions, options)` is the Review's dialog frame; `agentName`
// names an agent as people read it; `onDone` runs once verdicts were kept.
export function openAskDialog({ project, modal, agentName, onDone }) {
  const plural = (n) => `${n} pair${n === 1 ? '' : 's'}`;
  const agents = h('fieldset', { class: 'review-choices' }, h('legend', {}, 'Which agent judges them?'),
    ['claude', 'codex'].map((a) => h('label', { class: 'review-choice' },
      h('input', { type: 'radio', name: 'review-ask-agent', testid: 'review-ask-agent', value: a, dataset: { agent: a } }),
      h('span', {}, agentName(a)))));
  const plan = h('p', { class: 'modal-message', testid: 'review-ask-plan' }, 'Working out what would be sent…');
  const text = h('pre', { class: 'review-body review-ask-text', testid: 'review-ask-text' });
  const shown = h('details', { class: 'review-ask-details', hidden: true }, h('summary', {}, 'What would be sent'), text);
  const progress = h('p', { class: 'muted', testid: 'review-ask-progress', role: 'status', hidden: true });
  const error = h('div', { class: 'form-error', testid: 'review-ask-error', role: 'alert', hidden: true });
  const ok = h('button', { class: 'btn btn-primary', testid: 'review-ask-ok', disabled: true, onClick: () => go() }, 'Ask');
  // While the agent runs, Cancel (and Escape) stop it: its whole process group ends and
  // nothing it said is kept.
  const cancel = h('button', { class: 'btn', testid: 'review-ask-cancel', onClick: () => cancelOrStop() }, 'Cancel');
  const m = modal('review-ask-dialog', 'Ask your agent: duplicate or conflict?',
    [agents, plan, shown, progress, error], [cancel, ok], { wide: true, onEscape: () => cancelOrStop() });
  let chosen = null;
  let seq = 0;
  let running = false;
  let stopping = false;
  // This dialog's run, by name: its Stop stops it and no other agent run going at the time.
  let run = null;
  function cancelOrStop() {
    if (!running) { m.close(); return; }
    if (stopping) return;
    stopping = true;
    cancel.disabled = true;
    progress.textContent = `Stopping ${agentName(chosen)}…`;
    call('agent_run_stop', { run }).catch(() => {});
  }
  async function dryRun(agent) {
    const mine = ++seq;
    ok.disabled = true;
    error.hidden = true;
    let report;
    try {
      report = await call('review_ask', { project, with: agent, dryRun: true });
    } catch (e) {
      if (mine !== seq) return;
      plan.textContent = 'Nothing can be sent.';
      error.hidden = false;
      error.textContent = e.message || String(e);
      return;
    }
    if (mine !== seq) return;
    chosen = report.agent;
    for (const input of agents.querySelectorAll('input')) input.checked = input.value === chosen;
    if (!report.pairs.length) {
      plan.textContent = report.cached
        ? `Every pair was judged before (${plural(report.cached)}), and none changed since: nothing to send.`
        : 'No pair is waiting for a judgement.';
      shown.hidden = true;
      return;
    }
    const later = report.over_budget.length ? ` ${plural(report.over_budget.length)} left for a later run by the budget.` : '';
    plan.textContent = `${plural(report.pairs.length)} in one call to ${agentName(chosen)}: ${report.prompt_bytes.toLocaleString()} bytes, about ${report.estimated_tokens.toLocaleString()} tokens, billed to your ${agentName(chosen)} account. Both memories of each pair are sent, secrets masked. Nothing changes: you still choose merge, keep both or supersede.${later}`;
    text.textContent = report.prompt || '';
    shown.hidden = false;
    ok.disabled = false;
    ok.focus();
  }
  agents.addEventListener('change', (e) => {
    const input = /** @type {HTMLInputElement} */ (e.target);
    if (!running) dryRun(input.value);
  });
  async function go() {
    if (running || !chosen) return;
    running = true;
    const agent = chosen;
    ok.disabled = true;
    for (const input of agents.querySelectorAll('input')) /** @type {HTMLInputElement} */ (input).disabled = true;
    error.hidden = true;
    progress.hidden = false;
    progress.textContent = `Asking ${agentName(agent)}… it runs without tools, hooks or a saved session. Cancel or Escape stops it.`;
    cancel.textContent = 'Stop';
    let report;
    try {
      run = agentRunName();
      report = await call('review_ask', { project, with: agent, dryRun: false, run });
    } catch (e) {
      running = false;
      cancel.textContent = 'Cancel';
      cancel.disabled = false;
      progress.hidden = true;
      error.hidden = false;
      // The agent's own words ("Invalid API key", "cannot start codex"), not a toast's details.
      error.textContent = e && e.code === 'stopped' && stopping
        ? `${agentName(agent)} was stopped; nothing it said was kept. Ask again, or cancel.`
        : e.message || String(e);
      stopping = false;
      for (const input of agents.querySelectorAll('input')) /** @type {HTMLInputElement} */ (input).disabled = false;
      ok.disabled = false;
      ok.focus();
      return;
    }
    // An answer that came before a stop reached it is kept like any other.
    running = false;
    stopping = false;
    m.close();
    const judged = report.pairs.filter((p) => p.answer).length;
    toast(`${agentName(agent)} judged ${plural(judged)}; its verdicts are beside each pair. No memory was changed.`, 'success');
    await onDone();
  }
  dryRun(null);
}
