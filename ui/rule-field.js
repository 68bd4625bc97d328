// The memory form's rule (DESIGN §16): a memory may carry a rule Ambry checks at the agent's
// tool calls — refuse a matching call with the memory as the reason, or remind before it runs.
// A live test says at once whether a sample command is caught (core's regex, not the page's),
// and "Past calls" runs the rule over the indexed sessions before it blocks anything.
// Deliberately does not: save (the form does, with the rest of the memory).
//
// data-testid:
//   form-rule            the section (data-open; open when the memory has a rule), form-rule-toggle folds it
//   form-rule-action     none | deny | remind      form-rule-tool   the tools, comma-separated
//   form-rule-match      the regex                 form-rule-sample a command to try
//   form-rule-result     what the live test says (data-state = match | no-match | error)
//   form-rule-backtest   the past-calls button     form-rule-caught the calls found (one li each)

import { call } from './api.js';
import { h, clear, debounce } from './dom.js';

export function ruleField(existing, whereAndName) {
  const had = existing || null;
  const action = h('select', { class: 'select', testid: 'form-rule-action', 'aria-label': 'Rule action' },
    h('option', { value: '' }, 'No rule'),
    h('option', { value: 'deny' }, 'Refuse matching calls'),
    h('option', { value: 'remind' }, 'Remind before matching calls'));
  action.value = had ? had.action : '';
  const tool = h('input', { class: 'input mono', testid: 'form-rule-tool', value: had ? had.tools.join(', ') : 'Bash', 'aria-label': 'Tools the rule covers', spellcheck: 'false', autocomplete: 'off' });
  const match = h('input', { class: 'input mono', testid: 'form-rule-match', value: had ? had.match : '', placeholder: '\\bnpm (i|install)\\b', 'aria-label': 'Rule pattern (a regex over the command)', spellcheck: 'false', autocomplete: 'off' });
  const sample = h('input', { class: 'input mono', testid: 'form-rule-sample', placeholder: 'npm install left-pad', 'aria-label': 'A command to test the rule against', spellcheck: 'false', autocomplete: 'off' });
  const result = h('div', { class: 'rule-result', testid: 'form-rule-result', role: 'status', 'aria-live': 'polite' });
  const caught = h('ul', { class: 'rule-caught', 'aria-label': 'Past calls the rule would have caught' });
  const backtest = h('button', { class: 'btn btn-small', type: 'button', testid: 'form-rule-backtest', onClick: () => runBacktest() }, 'Past calls it would catch');
  const status = had && had.status !== 'on'
    ? h('div', { class: 'rule-result', testid: 'form-rule-status' }, had.status === 'proposed' ? 'Proposed by an agent and off: saving turns it on.' : 'Turned off: saving turns it on.')
    : null;

  const tools = () => tool.value.split(',').map((t) => t.trim()).filter(Boolean);
  /** @returns {import('./ipc').Enforce} */
  const rule = () => ({ tools: tools(), match: match.value, action: action.value, status: 'on' });
  const on = () => action.value !== '';

  let seq = 0;
  const liveTest = debounce(async () => {
    const mine = ++seq;
    if (!on() || !match.value || !sample.value) {
      clear(result);
      result.dataset.state = '';
      return;
    }
    try {
      const hit = await call('test_rule', { rule: rule(), tool: tools()[0] || 'Bash', sample: sample.value });
      if (mine !== seq) return;
      result.dataset.state = hit ? 'match' : 'no-match';
      result.textContent = hit
        ? (action.value === 'deny' ? 'Caught: this call would be refused.' : 'Caught: the memory would be shown before it runs.')
        : 'Not caught: this call would run untouched.';
      // In a short window the fields scroll: the answer stays in sight of what was typed.
      result.scrollIntoView({ block: 'nearest' });
    } catch (e) {
      if (mine !== seq) return;
      result.dataset.state = 'error';
      result.textContent = e.message;
    }
  }, 150);
  for (const input of [action, tool, match, sample]) input.addEventListener('input', liveTest);

  async function runBacktest() {
    const where = whereAndName();
    clear(caught);
    if (!on() || !match.value) {
      caught.append(h('li', { class: 'muted' }, 'Choose an action and a pattern first.'));
      return;
    }
    // Busy, not disabled: a disabled button drops focus to the page, and Ctrl+S with it.
    if (backtest.getAttribute('aria-busy') === 'true') return;
    backtest.setAttribute('aria-busy', 'true');
    try {
      const report = await call('backtest_rule', { memory: { ...where.location, name: where.name }, rule: rule() });
      caught.append(h('li', { class: 'muted', testid: 'form-rule-summary' },
        `${report.caught.length} of ${report.calls} past tool calls in ${report.sessions} sessions`));
      for (const c of report.caught.slice(0, 50)) {
        caught.append(h('li', { testid: 'form-rule-caught' }, h('code', {}, `${c.tool} $ ${c.input.split('\n')[0]}`),
          h('span', { class: 'muted' }, ` ${c.ts || ''} · ${c.title || c.session_id}`)));
      }
    } catch (e) {
      caught.append(h('li', { class: 'form-error' }, e.message));
    } finally {
      caught.scrollIntoView({ block: 'nearest' });
      backtest.removeAttribute('aria-busy');
    }
  }

  const label = (text, input) => h('label', { class: 'field' }, h('span', { class: 'field-label' }, text), input);
  // Folded unless the memory has a rule: its fields are not laid out at all while folded.
  const body = h('div', { class: 'rule-body', id: 'form-rule-body', hidden: !had },
    status,
    h('div', { class: 'form-row' }, label('Action', action), label('Tools', tool)),
    label('Pattern (regex over the command)', match),
    h('div', { class: 'form-row' }, label('Try a command', sample), h('div', { class: 'field' }, h('span', { class: 'field-label' }, '\u00a0'), backtest)),
    result,
    caught);
  const toggle = h('button', {
    type: 'button', class: 'rule-toggle field-label', testid: 'form-rule-toggle',
    'aria-expanded': had ? 'true' : 'false', 'aria-controls': 'form-rule-body',
    onClick: () => setOpen(body.hidden),
  }, 'Rule — checked at the agent\'s tool calls');
  const el = h('div', { class: 'field rule-field', testid: 'form-rule', dataset: { open: had ? 'true' : 'false' } }, toggle, body);
  function setOpen(open) {
    body.hidden = !open;
    toggle.setAttribute('aria-expanded', open ? 'true' : 'false');
    el.dataset.open = open ? 'true' : 'false';
  }

  return {
    el,
    // What the save does to the rule: set it (on), remove it, or leave it as the file has it.
    /** @returns {import('./ipc').RuleEdit} */
    edit() {
      if (on()) return { op: 'set', rule: rule() };
      return had ? { op: 'remove' } : { op: 'keep' };
    },
    isDirty() {
      if (!had) return on();
      return !on() || tool.value !== had.tools.join(', ') || match.value !== had.match || action.value !== had.action;
    },
    // The field to point at when a save is refused for the rule.
    culprit(message) {
      if (/enforce\.match/.test(message)) return match;
      if (/enforce\.tool/.test(message)) return tool;
      if (/enforce\.action|enforce\b/.test(message)) return action;
      return null;
    },
    open() { setOpen(true); },
  };
}
