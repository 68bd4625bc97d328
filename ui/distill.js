// Distill: the person's own agent CLI proposes memories from a past session (or a project's
// sessions); the proposals wait in the review inbox. A dry run comes first and says how many
// calls and about how many tokens a run sends, and to which agent; nothing is sent until the
// person confirms. This module owns the Distill button of an open transcript, the project
// action and asking for `when` phrases (`annotateMemories`); it does not list or decide proposals (the Review view does, through
// `review_proposals`, `accept_proposal` and `reject_proposal`).
//
// Test hooks (data-testid):
//   distill-session     the Distill button of an open transcript (data-session-id)

import { call, agentRunName } from './api.js';
import { h } from './dom.js';
import { confirmDialog, toast, errorToast } from './dialog.js';

// Failures whose message is the point — what is missing and how to fix it, what the agent
// itself said ("Invalid API key · Please run /login") — are said whole, up front, never folded
// under Details. The agent's program is checked before the dry run (core refuses with
// `agent_missing` naming the program and the config key), so nothing is offered that cannot run.
const SAID_IN_FULL = new Set(['agent_missing', 'agent_failed', 'agent_timed_out', 'malformed_answer', 'answer_too_large', 'distill_disabled', 'stopped']);

function distillError(what, e) {
  if (e && SAID_IN_FULL.has(e.code)) return toast(`${what}: ${e.message}`, 'error', 15000);
  return errorToast(what, e);
}

function plural(n, one, many) {
  return `${n} ${n === 1 ? one : many}`;
}

// While the person's agent runs: a notification saying so, with Stop (its whole process group
// ends, nothing it said is kept). `start(run)` makes the call under the run's name, which Stop
// names too, so it stops this run and no other; what the call returns or throws is passed on.
async function whileAgentRuns(message, start) {
  let stopped = false;
  const run = agentRunName();
  const note = toast(message, 'info', 24 * 60 * 60 * 1000, {
    action: { label: 'Stop', run: () => { stopped = true; call('agent_run_stop', { run }).catch(() => {}); } },
  });
  note.dataset.running = 'agent';
  try {
    return await start(run);
  } catch (e) {
    if (stopped && e && e.code === 'stopped') {
      toast('Stopped; nothing the agent said was kept.');
      return null;
    }
    throw e;
  } finally {
    note.remove();
  }
}

// Dry run, confirm, run: `command` is `distill_session` or `distill_project` with its `args`.
async function distillWithConfirm(command, args, what) {
  let plan;
  try {
    plan = await call(command, { ...args, dryRun: true });
  } catch (e) {
    distillError(`Cannot distill ${what}`, e);
    return null;
  }
  if (!plan.calls.length) {
    toast(plan.unchanged.length ? `Nothing new in ${what} since it was last distilled.` : `Nothing to distill in ${what}.`);
    return null;
  }
  const ok = await confirmDialog({
    title: 'Distill with your agent?',
    message: `${plural(plan.calls.length, 'call', 'calls')} to ${plan.agent} (about ${plan.estimated_tokens.toLocaleString()} tokens, billed to your ${plan.agent} account). The transcript and your existing memories are sent; proposals wait for your review, nothing is saved until you accept it.`,
    details: plan.over_budget.length ? `Left for a later run by the budget: ${plan.over_budget.join(', ')}` : null,
    confirmLabel: 'Distill',
  });
  if (!ok) return null;
  try {
    const report = await whileAgentRuns(`Distilling ${what} with ${plan.agent}…`,
      (run) => call(command, { ...args, dryRun: false, run }));
    if (!report) return null;
    const refused = report.refused.length ? ` (${plural(report.refused.length, 'proposal', 'proposals')} refused)` : '';
    toast(`${plural(report.proposals.length, 'proposal', 'proposals')} for review${refused}.`, 'success');
    return report;
  } catch (e) {
    distillError(`Distilling ${what} failed`, e);
    return null;
  }
}

export function distillSession(sessionId) {
  return distillWithConfirm('distill_session', { session: sessionId }, 'this session');
}

export function distillProject(project, since = null) {
  return distillWithConfirm('distill_project', { project, since }, 'this project');
}

// The agent proposes `when` phrases for the memories of the user scope and `project`'s (or the
// user scope alone) that do not say when they are needed: a dry run, the person's confirmation,
// one call; each answer waits in the Review as a proposal.
export async function annotateMemories(project) {
  const what = project ? 'this project’s memories' : 'your memories';
  let plan;
  try {
    plan = await call('distill_annotate', { project, dryRun: true });
  } catch (e) {
    distillError(`Cannot ask for when phrases for ${what}`, e);
    return null;
  }
  if (!plan.memories.length) {
    toast(plan.pending.length ? 'Phrases for the memories without them already wait in the Review.' : `Every memory of ${what} says when it is needed.`);
    return null;
  }
  const ok = await confirmDialog({
    title: 'Say when memories are needed?',
    message: `${plural(plan.memories.length, 'memory', 'memories')} in one call to ${plan.agent} (about ${plan.estimated_tokens.toLocaleString()} tokens, billed to your ${plan.agent} account), their text with secrets masked. Each answer waits in the Review; only the phrases you accept are written.`,
    details: plan.over_budget.length ? `Left for a later run by the budget: ${plan.over_budget.join(', ')}` : null,
    confirmLabel: 'Ask',
  });
  if (!ok) return null;
  try {
    const report = await whileAgentRuns(`Asking ${plan.agent} when ${what} are needed…`,
      (run) => call('distill_annotate', { project, dryRun: false, run }));
    if (!report) return null;
    toast(`${plural(report.proposals.length, 'proposal', 'proposals')} for review.`, 'success');
    return report;
  } catch (e) {
    distillError(`Asking for when phrases for ${what} failed`, e);
    return null;
  }
}

// Adds the Distill button to an open transcript's header (`pane` holds one `.detail-head`).
export function attachDistill(pane, meta) {
  const head = pane.querySelector('.detail-head');
  if (!head || head.querySelector('[data-testid="distill-session"]')) return;
  const button = h('button', {
    class: 'btn btn-small', testid: 'distill-session', dataset: { sessionId: meta.session_id },
    title: 'Your own agent proposes memories from this session; you review each one',
    onClick: async () => {
      button.disabled = true;
      try { await distillSession(meta.session_id); } finally { button.disabled = false; }
    },
  }, 'Distill…');
  // Beside Copy and Save as memory…, the transcript's other actions.
  (head.querySelector('[data-testid="transcript-actions"]') || head).append(button);
}
