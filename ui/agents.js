// Agents (Claude Code, Codex): each one's connection, and Connect / Disconnect that first shows
// exactly what will change in the agent's own files (a dry run) and asks.
//
// data-testid:
//   agents-card        the card          agent-row         one agent (data-agent, data-connected)
//   agent-state        its state text    agent-toggle      Connect / Disconnect button
//   agent-state-word   the state in words (Connected, Not connected, Configured; claude not found on PATH…)
//   agent-warning      what stops it working   agent-note  what is worth knowing
//   agent-change       the planned change shown in the confirm dialog
//   agent-trust        Codex's verdict on one of Ambry's hooks (data-event, data-trust)
//   agent-trust-button "Trust in Codex…": writes the entry Codex's /hooks review writes, after
//                      showing it

import { call } from './api.js';
import { h, clear } from './dom.js';
import { confirmDialog, toast } from './dialog.js';

function partText(part) {
  switch (part.state) {
    case 'installed': return 'installed';
    case 'missing': return 'not installed';
    case 'incomplete': return `incomplete (${part.missing.join(' and ')} missing)`;
    case 'broken_binary': return `points at ${part.program}, which does not exist`;
    default: return `unreadable: ${part.reason}`;
  }
}

const TRUST_TEXT = {
  trusted: 'trusted',
  untrusted: 'not trusted yet: Codex skips it',
  changed: 'changed since you trusted it: Codex skips it',
  disabled: 'switched off in Codex',
};

function changeText(report) {
  return report.files.filter((f) => f.changed)
    .map((f) => `${f.path}:\n${f.summary.map((s) => `  ${s}`).join('\n')}\n${f.diff}`).join('\n');
}

// An agent's state: connected, not connected (a choice, not a fault), half there (a part
// missing or broken: a problem to fix), or configured while nothing here runs the agent (core
// says whether its program is found). Said in words beside the dot, never by colour alone.
function agentState(a) {
  if (a.connected && a.program_found === false) return { status: 'warn', text: `Configured; ${a.program} not found on PATH` };
  if (a.connected) return { status: 'ok', text: 'Connected' };
  if (a.hook.state === 'missing' && a.mcp.state === 'missing') return { status: 'off', text: 'Not connected' };
  return { status: 'warn', text: 'Partly connected' };
}

export function agentsCard({ onChange = () => {} } = {}) {
  const el = h('div', { class: 'card', testid: 'agents-card' }, h('h2', {}, 'Agents'));

  async function trust(agent) {
    try {
      const plan = await call('change_agent_connection', { agent: agent.agent, connect: true, dryRun: true, trust: true });
      if (!plan.changed) {
        toast(`Codex already trusts Ambry's hooks`, 'info');
        return load();
      }
      const ok = await confirmDialog({
        title: 'Trust Ambry\'s hooks in Codex?',
        message: 'Codex runs a hook only after you trust it. Ambry can write the same entry Codex\'s own /hooks review writes; this is the change to Codex\'s config.toml. You can also do it in Codex: type /hooks.',
        details: h('pre', { class: 'mono diff-block', testid: 'agent-change' }, changeText(plan)),
        confirmLabel: 'Trust',
      });
      if (!ok) return;
      await call('change_agent_connection', { agent: agent.agent, connect: true, dryRun: false, trust: true });
      toast('Codex now trusts Ambry\'s hooks; restart its sessions to pick them up', 'success');
    } catch (e) {
      toast(e.message, 'error', 9000);
    }
    await load();
  }

  async function toggle(agent) {
    const connect = !agent.connected;
    const verb = connect ? 'Connect' : 'Disconnect';
    try {
      const plan = await call('change_agent_connection', { agent: agent.agent, connect, dryRun: true });
      if (!plan.changed) {
        toast(`${agent.name} is already ${connect ? 'connected' : 'disconnected'}`, 'info');
        return load();
      }
      const ok = await confirmDialog({
        title: `${verb} ${agent.name}?`,
        message: connect
          ? `Ambry adds its prompt hook and MCP server to ${agent.name}'s own files. A backup of each file is kept beside it.`
          : `Ambry removes exactly what it added to ${agent.name}'s files. A backup of each file is kept beside it.`,
        details: h('pre', { class: 'mono diff-block', testid: 'agent-change' }, changeText(plan)),
        confirmLabel: verb,
      });
      if (!ok) return;
      await call('change_agent_connection', { agent: agent.agent, connect, dryRun: false });
      toast(`${agent.name} ${connect ? 'connected' : 'disconnected'}; restart its sessions to pick it up`, 'success');
      onChange();
    } catch (e) {
      toast(e.message, 'error', 9000);
    }
    await load();
  }

  // The agent whose row holds the focus, so a re-render gives it back (a keyboard user who just
  // connected an agent stays on its button, now Disconnect).
  function focusedAgent() {
    const active = document.activeElement;
    const row = /** @type {HTMLElement|null} */ (active && el.contains(active) ? active.closest('[data-testid="agent-row"]') : null);
    return row ? row.dataset.agent : null;
  }

  async function load() {
    let agents;
    try {
      agents = await call('agent_connections');
    } catch (e) {
      clear(el, h('h2', {}, 'Agents'), h('div', { class: 'error-box' }, e.message));
      return [];
    }
    const keepFocus = focusedAgent();
    clear(el, h('h2', {}, 'Agents'),
      h('ul', { class: 'checks' }, agents.map((a) => { const state = agentState(a); return h('li', { class: `check agent-check check-${state.status}`, testid: 'agent-row', dataset: { agent: a.agent, connected: String(a.connected), status: state.status } },
        h('span', { class: 'check-dot', testid: 'check-dot', role: 'img', 'aria-label': state.text, title: state.text }),
        h('span', { class: 'check-area' }, a.name),
        h('span', { class: 'check-detail', testid: 'agent-state' },
          h('span', { class: 'check-word', testid: 'agent-state-word' }, state.text), ` · hook ${partText(a.hook)} · MCP server ${partText(a.mcp)}`,
          (a.warnings || []).length ? h('span', { class: 'warn-text', testid: 'agent-warning' }, ` — ${a.warnings.join('; ')}`) : null,
          a.notes.length ? h('span', { class: 'muted', testid: 'agent-note' }, ` — ${a.notes.join('; ')}`) : null,
          (a.hooks_trust || []).length
            ? h('ul', { class: 'trust-list' }, a.hooks_trust.map((t) => h('li', { testid: 'agent-trust', dataset: { event: t.event, trust: t.trust }, class: t.trust === 'trusted' ? 'muted' : 'warn-text' },
              `${t.event} hook: ${TRUST_TEXT[t.trust] || t.trust}`)))
            : null),
        // The row's buttons share one cell: a second one (Trust in Codex…) never spills into
        // the dot's narrow column.
        h('span', { class: 'agent-actions' },
          (a.hooks_trust || []).some((t) => t.trust !== 'trusted')
            ? h('button', { class: 'btn', testid: 'agent-trust-button', onClick: () => trust(a) }, 'Trust in Codex…')
            : null,
          h('button', { class: a.connected ? 'btn' : 'btn btn-primary', testid: 'agent-toggle', onClick: () => toggle(a) },
            a.connected ? 'Disconnect' : `Connect ${a.name}`))); })));
    if (keepFocus) {
      const button = el.querySelector(`[data-testid="agent-row"][data-agent="${keepFocus}"] [data-testid="agent-toggle"]`);
      if (button) button.focus();
    }
    return agents;
  }

  load();
  return { el, load };
}
