// The Review view (DESIGN §14): the inbox of one view (the user scope, and one project's with
// it), each finding with its evidence and the actions a person takes on it. Every finding kind
// is one render function in RENDERERS (evidence + actions), so a new kind is one more entry.
// Deliberately does not: judge anything (core does), or edit a memory in a form of its own
// (Edit opens the memory form of the Memories view; Merge's editor is only the merged body and
// description), or compare texts (core marks what differs; this renders it).
//
// Keys on a focused finding: ↑/↓ the previous/next finding, Home/End the first/last, M merge, S supersede, K keep,
// E edit, Delete forget (each also a button, reached with Tab).
//
// data-testid:
//   review-view           the view                 review-location   whose inbox (user / a project)
//   review-count          "N to review"            review-list       the findings
//   review-empty          nothing to review
//   review-finding        a finding (data-kind, data-names = the names joined by a space)
//   review-side           one memory of a pair (data-name, data-scope)
//   review-claim          a highlighted claim or differing word in a text
//   review-only           a sentence of a pair's text the other has no version of
//   review-missing        a missing path of a stale finding (data-path), with its commit
//   review-expired-on     the expiry day           review-last-used  the last use by an agent
//   review-merge  review-supersede  review-keep  review-edit  review-forget   the actions
//   review-rule           a proposed rule (review-rule-match its pattern); review-rule-on (O),
//                         review-rule-off (K) its actions; an ignored memory's calls are
//                         review-ignored-call, its offered rule review-rule, turned on with O
//   review-proposal       a distill proposal's text (data-id, data-session), review-source-turn its
//                         turns; review-accept (A), review-reject (R) its actions; a proposal of
//                         `when` phrases (data-action="when") lists them as review-when-phrase
//   review-side-edit  review-side-forget   edit or forget one memory of a pair
//   review-merge-dialog   the merge editor: review-merge-into (radio, data-name),
//                         review-merge-description, review-merge-body, review-merge-save,
//                         review-merge-cancel; review-merge-sentence a sentence of the other one
//                         the text does not say (its differing words review-claim), taken in
//                         with its review-merge-take
//   review-supersede-dialog  which one stays: review-supersede-option (radio, data-name),
//                         review-supersede-ok, review-supersede-cancel
//   review-ask            "Ask Claude Code / Codex…": the person's agent judges the pairs
//                         marked "duplicate or conflict?" (shown while there is one)
//   review-ask-dialog     its dry run first: review-ask-agent (radio, data-agent),
//                         review-ask-plan (what is sent, its size), review-ask-text (the text),
//                         review-ask-progress, review-ask-error (why a run failed),
//                         review-ask-ok, review-ask-cancel
//   review-agent-verdict  the agent's verdict beside a pair (data-verdict, data-agent)

import { call } from './api.js';
import { h, clear, absoluteTime, relativeTime } from './dom.js';
import { confirmDialog, toast, errorToast, trapFocus } from './dialog.js';
import { annotateMemories } from './distill.js';
import { openAskDialog } from './review-ask.js';

const KIND_TITLES = {
  duplicate: 'Duplicate',
  conflict: 'Conflict',
  same_subject: 'Duplicate or conflict?',
  stale: 'Stale against the code',
  expired: 'Expired',
  unused: 'Unused',
  proposal: 'Proposal',
  rule_proposed: 'Rule proposed',
  ignored: 'Ignored',
  changed_by_team: 'Changed by the team',
  changed_on_two_machines: 'Changed on two machines',
  needs_when: 'Needs when',
};

// The person's agents as the Review names them.
const AGENT_NAMES = { claude: 'Claude Code', codex: 'Codex' };
const agentName = (a) => AGENT_NAMES[a] || a;

// What a distill proposal would do, in words.
const PROPOSAL_ACTIONS = {
  new: (p) => `Save a new memory ${p.name}`,
  update: (p) => `Update ${p.target || p.name}`,
  supersede: (p) => `Replace ${p.target} with ${p.name}`,
  duplicate: (p) => `Merge into ${p.target}`,
  when: (p) => `Say when ${p.target || p.name} is needed`,
};

// `text` with each of `needles` (a conflict's claims) marked.
function marked(text, needles) {
  const wanted = needles.filter((n) => n && n.trim()).map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  if (!wanted.length) return [text];
  const pattern = new RegExp(`(${wanted.sort((a, b) => b.length - a.length).join('|')})`, 'gi');
  return text.split(pattern).map((part, i) => (i % 2 ? h('mark', { testid: 'review-claim' }, part) : part));
}

// A memory file's body: what follows its frontmatter (the whole text when it has none).
function bodyOf(text) {
  const m = /^---\r?\n[\s\S]*?\r?\n---\r?\n/.exec(text || '');
  return m ? text.slice(m[0].length) : (text || '');
}

// A text as core compared it with another: a word the other's version of its sentence lacks is
// marked, a sentence the other has no version of is underlined, the rest is plain.
function piecesOf(pieces) {
  return pieces.map((p) => (p.mark === 'word'
    ? h('mark', { testid: 'review-claim' }, p.text)
    : p.mark === 'sentence' ? h('span', { class: 'review-only', testid: 'review-only' }, p.text) : p.text));
}

// `body` with `sentence` taken in: on a line of its own at the end.
function takeIn(body, sentence) {
  const kept = body.trimEnd();
  return kept ? `${kept}\n${sentence.trim()}\n` : `${sentence.trim()}\n`;
}

export function createReviewView(app) {
  let project = null;        // the project whose memories join the user scope's, or null
  let findings = [];
  let loadSeq = 0;
  // Texts shown plain until core's comparison of them arrives (one call per render).
  let comparing = [];

  const picker = h('select', { class: 'select', testid: 'review-location', 'aria-label': 'Whose memories to review' });
  const count = h('span', { class: 'subtitle', testid: 'review-count' });
  const askButton = h('button', {
    class: 'btn btn-small', testid: 'review-ask', hidden: true, onClick: () => openAsk(),
    title: 'Your own agent judges the pairs marked "duplicate or conflict?"; nothing changes until you choose',
  }, 'Ask Claude Code / Codex…');
  // Where a memory was found missing its `when`: the agent proposes phrases for every memory of
  // the view without them (a dry run first); each waits here as a proposal.
  const whenButton = h('button', {
    class: 'btn btn-small', testid: 'review-annotate', hidden: true,
    onClick: async () => { if (await annotateMemories(project)) await load(focusedIndex()); },
    title: 'Your own agent proposes when each memory without when phrases is needed; you review each',
  }, 'Say when…');
  const list = h('div', { class: 'review-list', testid: 'review-list', role: 'list', 'aria-label': 'Findings' });
  const el = h('section', { class: 'view review-view', testid: 'review-view' },
    h('header', { class: 'view-header' },
      h('div', { class: 'view-titles' }, h('h1', {}, 'Review'), count),
      h('div', { class: 'view-actions' }, whenButton, askButton, picker)),
    h('div', { class: 'view-body scroll' },
      h('p', { class: 'muted review-intro' }, 'Memories that may no longer be true, each with why. Nothing changes until you choose.'),
      list));

  picker.addEventListener('change', () => {
    app.navigate({ view: 'review', project: picker.value || null });
  });

  function fillLocations() {
    clear(picker,
      h('option', { value: '' }, 'User memories'),
      app.projects.map((p) => h('option', { value: p.slug }, `${p.name} (with user memories)`)));
    picker.value = project || '';
  }

  const loc = (m) => ({ scope: m.scope, project: m.scope === 'user' ? null : project });
  const ref = (m) => ({ scope: m.scope, name: m.name });
  const scopeWords = (m) => (m.scope === 'user' ? 'User' : m.scope === 'team' ? `Team · ${app.projectName(project)}` : app.projectName(project));

  // Two texts of a pair, each shown plain at once and marked against the other once compared.
  function compared(a, b) {
    const shown = [h('span', { class: 'review-compared' }, a), h('span', { class: 'review-compared' }, b)];
    comparing.push({ pair: { a, b }, shown });
    return shown;
  }

  async function markCompared(seq) {
    const todo = comparing;
    comparing = [];
    if (!todo.length) return;
    let result;
    try {
      result = await call('compare_texts', { pairs: todo.map((t) => t.pair) });
    } catch {
      return; // the texts stay shown plain
    }
    if (seq !== loadSeq) return;
    todo.forEach((t, i) => {
      clear(t.shown[0], piecesOf(result[i].a));
      clear(t.shown[1], piecesOf(result[i].b));
      t.shown.forEach((el) => { el.dataset.compared = 'true'; });
    });
  }

  function memoryHead(m) {
    return h('div', { class: 'review-memory-head' },
      h('span', { class: 'mono review-name' }, m.name),
      h('span', { class: 'badge' }, scopeWords(m)));
  }

  // One memory of a pair; `body` is its text with what to look at marked. Edit and forget act on
  // one side, so they sit with it (Tab reaches them; the finding's letters are for the pair).
  function side(m, body) {
    return h('div', { class: 'review-side', testid: 'review-side', dataset: { name: m.name, scope: m.scope } },
      memoryHead(m),
      m.description ? h('div', { class: 'muted review-description' }, m.description) : null,
      h('pre', { class: 'review-body' }, body),
      h('div', { class: 'review-side-actions' },
        h('button', { class: 'btn btn-small btn-link', testid: 'review-side-edit', onClick: () => app.editMemory(loc(m), m.name), 'aria-label': `Edit ${m.name}` }, 'Edit'),
        h('button', { testid: 'review-side-forget', class: 'btn btn-small btn-link review-forget-link', onClick: () => forget(m), 'aria-label': `Forget ${m.name}` }, 'Forget…')));
  }

  function single(m, ...evidence) {
    return h('div', { class: 'review-single' }, memoryHead(m),
      m.description ? h('div', { class: 'muted review-description' }, m.description) : null,
      evidence,
      h('pre', { class: 'review-body' }, m.body));
  }

  // One button per action; `key` is its letter on a focused finding.
  const button = (testid, label, key, run, extra = {}) =>
    h('button', { class: `btn btn-small ${extra.class || ''}`, testid, title: `${label} (${key})`, 'aria-keyshortcuts': key, onClick: run, dataset: { key } },
      label, h('kbd', { class: 'review-key', 'aria-hidden': 'true' }, key));

  const pairActions = (f) => {
    const [a, b] = f.memories;
    return [
      button('review-merge', 'Merge…', 'M', () => merge(a, b)),
      button('review-supersede', 'Supersede…', 'S', () => supersede(a, b)),
      button('review-keep', 'Keep both', 'K', () => act(`Kept ${a.name} and ${b.name}`, async () => {
        await call('review_keep', { project, memory: ref(a) });
        await call('review_keep', { project, memory: ref(b) });
      })),
    ];
  };
  const singleActions = (m) => [
    button('review-keep', 'Keep', 'K', () => act(`Kept ${m.name}`, () => call('review_keep', { project, memory: ref(m) }))),
    button('review-edit', 'Edit', 'E', () => app.editMemory(loc(m), m.name)),
    button('review-forget', 'Forget…', 'Delete', () => forget(m), { class: 'btn-ghost-danger' }),
  ];

  // What a pair is about, as the judge read it from their claims (the shared subject).
  const about = (f) => (f.subject && f.subject.length
    ? h('div', { class: 'review-evidence', testid: 'review-subject' }, 'About: ', f.subject.join(', '))
    : null);

  // What the person's agent said of a pair, beside the local evidence: it decides nothing.
  const agentVerdict = (v) => (v
    ? h('div', { class: 'review-evidence review-agent-verdict', testid: 'review-agent-verdict', dataset: { verdict: v.verdict, agent: v.agent } },
      h('strong', {}, `${agentName(v.agent)} says: ${v.verdict}`), ' — ', v.reason)
    : null);

  // A proposal saying when a memory is needed: the memory it is for and the phrases, the only
  // thing an accept writes.
  const whenProposal = (f) => ({
    title: `${PROPOSAL_ACTIONS.when(f)} — proposed by ${agentName(f.agent)}`,
    note: 'Accepting writes these phrases to the memory and changes nothing else of it.',
    evidence: h('div', { class: 'review-single', testid: 'review-proposal', dataset: { id: f.id, action: 'when' } },
      h('div', { class: 'review-side-head' }, h('strong', {}, f.target || f.name), ' ', h('span', { class: 'badge' }, f.scope), ' ', h('span', { class: 'badge' }, f.type)),
      f.description ? h('div', { class: 'muted review-description' }, f.description) : null,
      h('div', { class: 'review-evidence' }, 'When it is needed:'),
      h('ul', { class: 'review-when-proposed' }, (f.when || []).map((w) => h('li', { testid: 'review-when-phrase' }, w)))),
    actions: [
      button('review-accept', 'Accept', 'A', () => act(`${f.target || f.name} now says when it is needed`, () => call('accept_proposal', { project, id: f.id }))),
      button('review-reject', 'Reject', 'R', () => act(`Rejected the phrases for ${f.target || f.name}`, () => call('reject_proposal', { id: f.id })), { class: 'btn-ghost-danger' }),
    ],
  });

  // One render function per finding kind: `{ names, title, evidence, actions }`.
  const RENDERERS = {
    duplicate: (f) => {
      const [a, b] = f.memories;
      const [ta, tb] = compared(a.body, b.body);
      return {
        title: `${a.name} and ${b.name} say the same thing`,
        note: [
          ...(f.agreed || []).map(([x, y]) => `${x} = ${y}`),
          ...(f.meaning != null ? [`meaning ${Math.round(f.meaning * 100)}% alike to the model`] : []),
          `similarity ${Math.round(f.similarity * 100)}%; the words that differ are marked, a sentence only one of them has is underlined`,
        ].join(' · '),
        evidence: h('div', {}, about(f), h('div', { class: 'review-pair' }, side(a, ta), side(b, tb))),
        actions: pairActions(f),
      };
    },
    conflict: (f) => {
      const [a, b] = f.memories;
      const claims = f.claims || [];
      return {
        title: `${a.name} and ${b.name} disagree`,
        note: claims.length ? claims.map(([x, y]) => `${x} ≠ ${y}`).join(' · ') : 'the same subject with different claims',
        evidence: h('div', {}, about(f), h('div', { class: 'review-pair' }, side(a, marked(a.body, claims.map((c) => c[0]))), side(b, marked(b.body, claims.map((c) => c[1]))))),
        actions: pairActions(f),
      };
    },
    // Read as one statement, but something holds them apart (a rival value, one moved away):
    // asked, never offered as "the same thing" — merge and supersede are both there.
    same_subject: (f) => {
      const [a, b] = f.memories;
      const claims = f.claims || [];
      return {
        title: `${a.name} and ${b.name}: the same subject — duplicate or conflict?`,
        note: `they read alike but differ: ${claims.map(([x, y]) => `${x} ≠ ${y}`).join(' · ')}. Merge if they say the same thing; supersede the outdated one if not`,
        evidence: h('div', {}, about(f), agentVerdict(f.agent), h('div', { class: 'review-pair' }, side(a, marked(a.body, claims.map((c) => c[0]))), side(b, marked(b.body, claims.map((c) => c[1]))))),
        actions: pairActions(f),
      };
    },
    stale: (f) => ({
      title: `${f.memory.name} names paths that are gone`,
      evidence: single(f.memory, h('ul', { class: 'review-missing' }, f.missing.map((p) =>
        h('li', { testid: 'review-missing', dataset: { path: p.path } },
          h('code', {}, p.path), ' — removed in ', h('code', {}, p.commit), p.subject ? ` “${p.subject}”` : '')))),
      actions: singleActions(f.memory),
    }),
    expired: (f) => ({
      title: `${f.memory.name} expired`,
      evidence: single(f.memory, h('div', { class: 'review-evidence' }, 'Expires: ', h('time', { testid: 'review-expired-on', datetime: f.on }, f.on))),
      actions: singleActions(f.memory),
    }),
    // Phrases for an existing memory (`memory distill --annotate`): only they are written.
    proposal: (f) => (f.action === 'when' ? whenProposal(f) : {
      title: `${(PROPOSAL_ACTIONS[f.action] || ((p) => p.name))(f)} — proposed by ${f.agent} from a past session`,
      note: f.reason,
      evidence: h('div', { class: 'review-single', testid: 'review-proposal', dataset: { id: f.id, session: f.session_id } },
        h('div', { class: 'review-side-head' }, h('strong', {}, f.name), ' ', h('span', { class: 'badge' }, f.scope), ' ', h('span', { class: 'badge' }, f.type)),
        f.description ? h('div', { class: 'muted review-description' }, f.description) : null,
        h('pre', { class: 'review-body' }, f.body),
        h('div', { class: 'review-evidence' }, `From session ${f.session_id}:`),
        h('ul', { class: 'review-source-turns' }, (f.source_turns || []).map((t) =>
          h('li', { testid: 'review-source-turn' }, h('span', { class: 'muted' }, `turn ${t.turn} (${t.role}) `), t.excerpt)))),
      actions: [
        button('review-accept', 'Accept', 'A', () => act(`Saved ${f.name}`, () => call('accept_proposal', { project, id: f.id }))),
        button('review-reject', 'Reject', 'R', () => act(`Rejected the proposal for ${f.name}`, () => call('reject_proposal', { id: f.id })), { class: 'btn-ghost-danger' }),
      ],
    }),
    // An agent proposed a rule (DESIGN §16): off until the person turns it on here.
    rule_proposed: (f) => ({
      title: `A rule for ${f.memory.name}, proposed by an agent`,
      note: 'It is off until you turn it on. `ambry memory enforce test` shows the past calls it would have caught.',
      evidence: single(f.memory, h('div', { class: 'review-evidence', testid: 'review-rule' },
        `${f.rule.action === 'deny' ? 'Refuse' : 'Remind before'} ${(f.rule.tools || []).join(', ')} calls matching `,
        h('code', { testid: 'review-rule-match' }, f.rule.match))),
      actions: [
        button('review-rule-on', 'Turn on', 'O', () => act(`The rule of ${f.memory.name} is on`, () => call('review_rule', { project, memory: ref(f.memory), on: true }))),
        button('review-rule-off', 'Keep off', 'K', () => act(`The rule of ${f.memory.name} stays off`, () => call('review_rule', { project, memory: ref(f.memory), on: false }))),
        ...singleActions(f.memory).filter((b) => b.dataset.key !== 'K'),
      ],
    }),
    // A session held the memory, then did what it says not to (DESIGN §16): the calls as
    // evidence, and the rule that would have stopped them, turned on with one key.
    ignored: (f) => ({
      title: `${f.memory.name} was ignored`,
      note: `${f.agent} session ${f.session_id} had it in context, then ran what it says not to${f.other_sessions ? ` (and ${f.other_sessions} other session${f.other_sessions === 1 ? '' : 's'})` : ''}.`,
      evidence: single(f.memory,
        h('ul', { class: 'review-missing' }, (f.calls || []).map((c) =>
          h('li', { testid: 'review-ignored-call' }, c.ts ? h('span', { class: 'muted' }, `${absoluteTime(c.ts)} `) : null, h('code', {}, `${c.tool} $ ${c.input.split('\n')[0]}`)))),
        h('div', { class: 'review-evidence', testid: 'review-rule' },
          `Rule: ${f.rule.action === 'deny' ? 'refuse' : 'remind before'} ${(f.rule.tools || []).join(', ')} calls matching `,
          h('code', { testid: 'review-rule-match' }, f.rule.match))),
      actions: [
        button('review-rule-on', 'Turn rule on', 'O', () => act(`The rule of ${f.memory.name} is on`, () => (f.own_rule
          ? call('review_rule', { project, memory: ref(f.memory), on: true })
          : call('review_set_rule', { project, memory: ref(f.memory), rule: f.rule })))),
        ...singleActions(f.memory),
      ],
    }),
    // A team memory that arrived or changed through git (DESIGN §15): agents are given it; the
    // person reads what changed and marks it seen.
    changed_by_team: (f) => ({
      title: f.before ? `${f.memory.name} was changed by the team` : `${f.memory.name} arrived from the team`,
      note: 'It came through git; agents are given it.',
      evidence: f.before
        ? (() => {
          const [before, now] = compared(f.before, f.memory.body);
          return h('div', { class: 'review-pair' }, side({ ...f.memory, body: f.before, description: 'As you last saw it' }, before), side(f.memory, now));
        })()
        : single(f.memory),
      actions: [
        button('review-team-seen', 'Seen', 'K', () => act(`${f.memory.name} seen`, () => call('review_team_seen', { project, name: f.memory.name }))),
        button('review-edit', 'Edit', 'E', () => app.editMemory(loc(f.memory), f.memory.name)),
      ],
    }),
    // Personal sync (DESIGN §15): both machines changed it; the later edit is in the file, the
    // other archived. Keep the file's, take the other, or edit the file to merge them.
    changed_on_two_machines: (f) => {
      const label = (s) => `${s.here ? 'This machine' : 'The other machine'}${s.deleted ? ' deleted it' : ''}${s.updated ? ` · ${absoluteTime(s.updated)}` : ''}`;
      const [keptText, otherText] = f.kept.deleted || f.other.deleted ? [bodyOf(f.kept.text), bodyOf(f.other.text)] : compared(bodyOf(f.kept.text), bodyOf(f.other.text));
      const pane = (s, testid, title, text) => h('div', { class: 'review-side', testid, dataset: { here: String(!!s.here) } },
        h('div', { class: 'review-side-head' }, h('strong', {}, title), ' ', h('span', { class: 'muted' }, label(s))),
        h('pre', { class: 'review-body' }, s.deleted ? '(deleted)' : text));
      const memory = f.name ? { scope: f.scope, name: f.name } : null;
      return {
        title: `${f.name || f.path} was changed on two machines`,
        note: 'The later edit is in the file; the other is archived. Keep the file\'s, use the other, or edit the file to merge them.',
        evidence: h('div', { class: 'review-pair' }, pane(f.kept, 'review-sync-kept', 'In the file', keptText), pane(f.other, 'review-sync-other', 'The other version', otherText)),
        actions: [
          button('review-sync-keep', 'Keep the file\'s', 'K', () => act('Kept the version in the file', async () => { await call('sync_keep', { id: f.id }); app.syncChanged(); })),
          button('review-sync-other', 'Use the other', 'U', () => act('The other version is back in the file', async () => { await call('sync_use_other', { id: f.id }); app.syncChanged(); })),
          memory ? button('review-edit', 'Edit', 'E', () => app.editMemory(loc(memory), memory.name)) : null,
        ].filter(Boolean),
      };
    },
    // An agent had to fetch it: the turn was not given it. The prompts it was fetched for are
    // offered as its first `when` phrases, to edit before saving.
    needs_when: (f) => {
      const prompts = [...new Set(f.fetches.map((x) => x.prompt).filter(Boolean))];
      const phrases = h('textarea', {
        class: 'input review-when', testid: 'review-when-phrases', rows: String(Math.min(5, Math.max(2, prompts.length))),
        'aria-label': `When ${f.memory.name} is needed, one phrase per line`, spellcheck: 'false',
      });
      phrases.value = prompts.join('\n');
      const save = () => act(`${f.memory.name} now says when it is needed`, () => call('review_when', {
        project, memory: ref(f.memory), phrases: phrases.value.split('\n').map((p) => p.trim()).filter(Boolean),
      }));
      phrases.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); save(); }
      });
      const more = f.more ? ` and ${f.more} more time${f.more === 1 ? '' : 's'}` : '';
      return {
        title: `${f.memory.name} had to be fetched`,
        note: `an agent fetched it${more} after a turn that was not given it, and it does not say when it is needed`,
        evidence: single(f.memory,
          h('ul', { class: 'review-evidence review-fetches', testid: 'review-fetches' },
            f.fetches.map((x) => h('li', { testid: 'review-fetch' },
              x.at ? h('span', { class: 'muted', title: absoluteTime(x.at) }, `${relativeTime(x.at)} · ${x.agent}: `) : h('span', { class: 'muted' }, `${x.agent}: `),
              x.prompt ? `“${x.prompt}”` : '(no prompt before it)'))),
          h('label', { class: 'review-when-label' }, 'When it is needed — one phrase per line, in the words you would use then (Ctrl+Enter saves)', phrases)),
        actions: [button('review-when-save', 'Save when', 'W', save), ...singleActions(f.memory)],
      };
    },
    unused: (f) => ({
      title: `${f.memory.name} is not used`,
      evidence: single(f.memory, h('div', { class: 'review-evidence', testid: 'review-last-used' },
        f.last_used ? `Last used by an agent ${relativeTime(f.last_used)} (${absoluteTime(f.last_used)})` : `No agent used it in ${f.days} days`)),
      actions: singleActions(f.memory),
    }),
  };

  const namesOf = (f) => (f.memories || [f.memory || (f.name ? { name: f.name } : null)]).filter(Boolean).map((m) => m.name);

  function card(f, index) {
    const render = RENDERERS[f.kind];
    const shown = render ? render(f) : { title: `${f.kind}: ${namesOf(f).join(', ')}`, evidence: null, actions: [] };
    const titleId = `review-title-${index}`;
    const node = h('article', {
      class: 'review-finding', testid: 'review-finding', tabindex: '0', role: 'listitem', 'aria-labelledby': titleId,
      dataset: { kind: f.kind, names: namesOf(f).join(' '), index: String(index) },
    },
    h('header', { class: 'review-finding-head' },
      h('span', { class: `badge review-kind kind-${f.kind}` }, KIND_TITLES[f.kind] || f.kind),
      h('h2', { id: titleId, class: 'review-title' }, shown.title)),
    shown.note ? h('div', { class: 'muted review-note' }, shown.note) : null,
    shown.evidence,
    h('div', { class: 'review-actions' }, shown.actions));
    node.addEventListener('keydown', (e) => onCardKey(e, node));
    return node;
  }

  function cards() { return [...list.querySelectorAll('[data-testid="review-finding"]')]; }

  function onCardKey(e, node) {
    if (e.ctrlKey || e.metaKey || e.altKey || e.target.closest('input, textarea, select')) return;
    const all = cards();
    const i = all.indexOf(node);
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      const next = all[i + (e.key === 'ArrowDown' ? 1 : -1)];
      if (next) { e.preventDefault(); next.focus(); next.scrollIntoView({ block: 'nearest' }); }
      return;
    }
    if ((e.key === 'Home' || e.key === 'End') && e.target === node) {
      e.preventDefault();
      all[e.key === 'Home' ? 0 : all.length - 1].focus();
      return;
    }
    const key = e.key === 'Delete' ? 'Delete' : e.key.length === 1 ? e.key.toUpperCase() : null;
    const target = key && node.querySelector(`.review-actions [data-key="${key}"]`);
    if (target) { e.preventDefault(); target.click(); }
  }

  function render(focusIndex = null) {
    count.textContent = findings.length === 1 ? '1 to review' : `${findings.length} to review`;
    askButton.hidden = !findings.some((f) => f.kind === 'same_subject');
    whenButton.hidden = !findings.some((f) => f.kind === 'needs_when');
    comparing = [];
    clear(list, findings.length
      ? findings.map((f, i) => card(f, i))
      : h('div', { class: 'empty-state', testid: 'review-empty' },
        h('div', { class: 'empty-title' }, 'Nothing to review'),
        h('p', {}, 'Duplicates, conflicts, stale, expired and unused memories show up here.')));
    if (focusIndex !== null) {
      const all = cards();
      const target = all[Math.min(focusIndex, all.length - 1)];
      if (target) target.focus(); else picker.focus();
    }
    markCompared(loadSeq);
  }

  async function load(focusIndex = null) {
    const seq = ++loadSeq;
    let found;
    try {
      found = await call('review_findings', { project });
    } catch (e) {
      if (seq !== loadSeq) return;
      findings = [];
      render();
      count.textContent = '';
      errorToast('Could not build the review', e);
      return;
    }
    if (seq !== loadSeq) return;
    findings = found;
    app.reviewCounted(project, findings.length);
    render(focusIndex);
  }

  // The index of the finding that has focus, so focus stays at that place after a reload.
  function focusedIndex() {
    const node = /** @type {HTMLElement|null} */ (document.activeElement && document.activeElement.closest && document.activeElement.closest('[data-testid="review-finding"]'));
    return node && list.contains(node) ? Number(node.dataset.index) : null;
  }

  async function act(done, run, index = focusedIndex()) {
    try {
      await run();
      toast(done, 'success', 3000);
    } catch (e) {
      errorToast('Could not do that', e);
    }
    await load(index ?? 0);
  }

  // A supersede or a merge done: its toast offers Undo, which restores every version it
  // replaced (the archive keeps them all), as a delete's does.
  function undoable(message, done, undone) {
    const where = project;
    toast(message, 'success', 8000, {
      action: done.undo && done.undo.length ? { label: 'Undo', run: () => undoAction(where, done.undo, undone) } : null,
    });
  }

  async function undoAction(where, undo, undone) {
    try {
      await call('review_undo', { project: where, undo });
      toast(undone, 'success', 3000);
    } catch (e) {
      errorToast('Could not undo it', e);
    }
    await load(focusedIndex() ?? 0);
  }

  async function forget(m) {
    const index = focusedIndex();
    const ok = await confirmDialog({
      title: `Forget ${m.name}?`,
      message: 'It moves to the archive, so you can restore it from Archive at any time. Agents stop seeing it right away.',
      confirmLabel: 'Move to archive', danger: true,
    });
    if (!ok) return;
    const where = loc(m);
    try {
      const forgotten = await call('forget_memory', { memory: { ...where, name: m.name } });
      toast(`${m.name} moved to the archive`, 'success', 8000, {
        action: { label: 'Undo', run: () => undoForget(where, m.name, forgotten.version) },
      });
    } catch (e) {
      errorToast('Could not forget it', e);
    }
    await load(index ?? 0);
  }

  async function undoForget(where, name, version) {
    try {
      await call('restore_version', { location: where, name, version });
      toast(`Restored ${name}`, 'success', 3000);
    } catch (e) {
      errorToast(`Could not restore ${name}`, e);
    }
    await load();
  }

  // A modal of this view: Esc cancels, focus stays inside, and comes back where it was.
  // `onEscape` replaces closing on Escape (a dialog with a run going stops the run first).
  function modal(testid, title, body, actions, { wide = false, onEscape = null } = {}) {
    const previous = /** @type {HTMLElement|null} */ (document.activeElement);
    const dialog = h('div', { class: `modal${wide ? ' modal-wide' : ''}`, role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': `${testid}-title`, testid },
      h('h2', { id: `${testid}-title`, class: 'modal-title' }, title), body, h('div', { class: 'modal-actions' }, actions));
    const overlay = h('div', { class: 'modal-backdrop' }, dialog);
    let release = () => {};
    const close = () => {
      release();
      overlay.remove();
      document.removeEventListener('keydown', onKey, true);
      if (previous && previous.isConnected) previous.focus();
    };
    const onKey = (e) => {
      if (e.key !== 'Escape') return;
      e.preventDefault();
      e.stopPropagation();
      if (onEscape) onEscape(); else close();
    };
    document.body.append(overlay);
    document.addEventListener('keydown', onKey, true);
    release = trapFocus(dialog);
    return { dialog, close };
  }

  function choice(name, testid, m, checked) {
    return h('label', { class: 'review-choice' },
      h('input', { type: 'radio', name, testid, value: m.name, checked, dataset: { name: m.name } }),
      h('span', { class: 'mono' }, m.name), h('span', { class: 'badge' }, scopeWords(m)));
  }

  // The kept memory's text in one editor, with the other's sentences it does not say beside it
  // (what differs marked) to take in one by one; the chosen name and description stay with the
  // merged text, the other is archived. Nothing is said twice unless the person writes it so.
  function merge(a, b) {
    const index = focusedIndex();
    const into = h('fieldset', { class: 'review-choices' }, h('legend', {}, 'Keep the name'),
      choice('merge-into', 'review-merge-into', a, true), choice('merge-into', 'review-merge-into', b, false));
    const description = h('input', { class: 'input', testid: 'review-merge-description', 'aria-label': 'Description of the merged memory', spellcheck: 'false' });
    const text = h('textarea', { class: 'input mono review-merge-body', testid: 'review-merge-body', 'aria-label': 'Merged text', spellcheck: 'false' });
    const offered = h('div', { class: 'review-merge-offered', testid: 'review-merge-offered' });
    const error = h('div', { class: 'form-error', role: 'alert', hidden: true });
    const save = h('button', { class: 'btn btn-primary', testid: 'review-merge-save', onClick: () => go() }, 'Save merged');
    const cancel = h('button', { class: 'btn', testid: 'review-merge-cancel', onClick: () => m.close() }, 'Cancel');
    const m = modal('review-merge-dialog', `Merge ${a.name} and ${b.name}`,
      [h('p', { class: 'modal-message' }, 'The kept memory\'s text, with what only the other says beside it to add. Both originals stay in the archive. Ctrl+S saves.'),
        into,
        h('label', { class: 'review-merge-field' }, h('span', { class: 'review-merge-label' }, 'Description'), description),
        error, text, offered], [cancel, save], { wide: true });
    // What the person changed stays when they pick the other name; what they did not follows it.
    let bodyEdited = false;
    let descriptionEdited = false;
    text.addEventListener('input', () => { bodyEdited = true; });
    description.addEventListener('input', () => { descriptionEdited = true; });
    const pair = () => (into.querySelector('input:checked').value === a.name ? [a, b] : [b, a]);
    let drafted = 0;

    async function draft() {
      const seq = ++drafted;
      const [kept, gone] = pair();
      let d;
      try {
        d = await call('review_merge_draft', { project, into: ref(kept), from: ref(gone) });
      } catch (e) {
        d = { body: kept.body, description: kept.description, differing: [] };
        error.hidden = false;
        error.textContent = e.message;
      }
      if (seq !== drafted) return;
      if (!bodyEdited) text.value = d.body;
      if (!descriptionEdited) description.value = d.description;
      clear(offered, d.differing.length
        ? [h('div', { class: 'review-merge-label' }, `Only in ${gone.name} — Add puts a sentence at the end of the text`),
          d.differing.map((s) => {
            const add = h('button', { class: 'btn btn-small', testid: 'review-merge-take', 'aria-label': `Add: ${s.text}` }, 'Add');
            const row = h('div', { class: 'review-merge-sentence', testid: 'review-merge-sentence' },
              h('span', { class: 'review-merge-sentence-text' }, piecesOf(s.pieces)), add);
            add.addEventListener('click', () => {
              text.value = takeIn(text.value, s.text);
              bodyEdited = true;
              add.disabled = true;
              add.textContent = 'Added';
              row.dataset.added = 'true';
              // On to the next sentence to consider, or back to the text.
              const next = /** @type {HTMLElement|null} */ (offered.querySelector('[data-testid="review-merge-take"]:not(:disabled)'));
              (next || text).focus();
            });
            return row;
          })]
        : h('div', { class: 'muted', testid: 'review-merge-nothing' }, `Everything ${gone.name} says is in this text.`));
      offered.dataset.ready = 'true';
    }
    into.addEventListener('change', () => { offered.dataset.ready = 'false'; draft(); });
    text.addEventListener('keydown', (e) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's') { e.preventDefault(); go(); }
    });
    description.addEventListener('keydown', (e) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's') { e.preventDefault(); go(); }
    });
    // From the top: the person reads the text before changing it.
    draft().then(() => {
      if (!dialogOpen()) return;
      text.focus();
      text.setSelectionRange(0, 0);
      text.scrollTop = 0;
    });
    function dialogOpen() { return m.dialog.isConnected; }
    async function go() {
      const [kept, gone] = pair();
      let done;
      try {
        done = await call('review_merge', { project, into: ref(kept), from: ref(gone), body: text.value, description: description.value });
      } catch (e) {
        error.hidden = false;
        error.textContent = e.message;
        text.focus();
        return;
      }
      m.close();
      undoable(`Merged ${gone.name} into ${kept.name}`, done, `${kept.name} and ${gone.name} are back as they were`);
      await load(index ?? 0);
    }
  }

  // Which one stays: the other is marked superseded by it (kept, never injected again).
  function supersede(a, b) {
    const index = focusedIndex();
    const options = h('fieldset', { class: 'review-choices' }, h('legend', {}, 'Which one stays?'),
      choice('supersede-keep', 'review-supersede-option', a, true), choice('supersede-keep', 'review-supersede-option', b, false));
    const ok = h('button', { class: 'btn btn-primary', testid: 'review-supersede-ok', onClick: () => go() }, 'Supersede the other');
    const cancel = h('button', { class: 'btn', testid: 'review-supersede-cancel', onClick: () => m.close() }, 'Cancel');
    const m = modal('review-supersede-dialog', `${a.name} or ${b.name}?`,
      [h('p', { class: 'modal-message' }, 'The other one is kept in place, marked as superseded, and no longer given to agents. Enter confirms.'), options], [cancel, ok]);
    options.addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); go(); } });
    options.querySelector('input:checked').focus();
    async function go() {
      const stays = options.querySelector('input:checked').value;
      const [kept, gone] = stays === a.name ? [a, b] : [b, a];
      m.close();
      try {
        const done = await call('review_supersede', { project, memory: ref(gone), by: kept.name });
        undoable(`${gone.name} is superseded by ${kept.name}`, done, `${gone.name} is no longer superseded`);
      } catch (e) {
        errorToast('Could not do that', e);
      }
      await load(index ?? 0);
    }
  }

  // The person's agent judges the uncertain pairs (`review-ask.js`).
  function openAsk() {
    openAskDialog({ project, modal, agentName, onDone: () => load(focusedIndex()) });
  }

  return {
    el,
    async show(p) {
      project = p && app.projects.some((x) => x.slug === p) ? p : null;
      fillLocations();
      await load();
    },
    // Memories changed on disk (here or anywhere): the inbox follows, focus stays in place.
    onChange: () => load(focusedIndex()),
    refreshProjects: () => fillLocations(),
    focusMain: () => { const first = cards()[0]; (first || picker).focus(); },
  };
}
