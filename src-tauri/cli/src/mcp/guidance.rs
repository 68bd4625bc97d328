//! What the MCP server teaches the agent: the server's instructions and each tool's
//! description. Agents decide for themselves when to remember something; these texts are
//! what they decide by, so they say what is worth saving, what never is, which scope to use,
//! and to search before saving.
//!
//! Owns: the words. Deliberately does not: enforce anything (the store refuses secrets, bad
//! names and symlinks whatever the agent was told).

pub const INSTRUCTIONS: &str = "\
Ambry is this person's long-term memory for coding agents: markdown memories that outlive the session, \
plus a searchable index of past agent sessions.
- Before relying on your own assumptions about the person or this repository, `memory_search` for them.
- Save what will still be true and useful in a later session: preferences and corrections the person gave \
you, decisions and their reasons, non-obvious facts about a repository. Search first and update the \
existing memory (same name) instead of adding a near-duplicate.
- Never save secrets (keys, tokens, passwords), ephemeral state (what you are doing right now), or what \
`git log`, the code or a grep already tells.
- User scope (default) is for what holds across repositories; project scope for facts that mean nothing \
outside this repository.
- `session_recall` finds what was said in earlier sessions (Claude Code, Codex, Ambry) when the memory \
has nothing.";

pub const SAVE: &str = "\
Save a memory for later sessions, or update one: saving an existing name replaces it (the prior version \
is archived, so nothing is lost). Search first and reuse the name of a memory on the same subject rather \
than creating a near-duplicate. Worth saving: the person's preferences and corrections ('always use pnpm', \
'do not mock the database in tests'), decisions with their reasons, non-obvious facts about a repository \
(how to run its tests, a trap in its build). Never save: secrets (keys, tokens, passwords; they are \
refused), ephemeral task state, or anything git history, the code or a grep already tells. \
scope 'user' (default) for what applies everywhere; 'project' for facts about the current repository \
only. name: lowercase letters, digits and hyphens (e.g. 'testing-preferences'). type: user (about the \
person), feedback (a correction or preference about how to work), project (a fact about a repository), \
reference (where to find something). description: one line saying what the memory is for; it is what \
agents see in the memory index. body: the memory itself in markdown, short and specific. \
when: 2-5 short phrases saying in which situations or prompts the memory is needed, in the words the \
person would type when they need it rather than the memory's own ('bumping the DB pool size', 'a 429 \
from the payments API', 'setting up CI for a new service'); it is what brings the memory back on the \
right turn. \
enforce (optional): when the person corrected a command you ran ('never npm install here, use pnpm'), \
propose a rule that catches the mistake at the tool call: {tool: [\"Bash\"], match: a regex over the \
command line, action: deny or remind}. It is stored OFF and waits in Ambry's review inbox until the \
person turns it on; you cannot turn it on or change a rule the person set.";

pub const SEARCH: &str = "\
Search the person's memories with the same ranker that picks memories for each turn (keywords, word \
forms, synonyms and meaning). Use it before assuming a preference or a repository fact, and before \
saving, to update an existing memory instead of duplicating it. scope: 'all' (default: the user's \
memories and the current project's, as an agent here sees them), 'user' or 'project'. Each hit says \
whether it passes the relevance gate (`gated`, `relevance` strong | good | weak): a weak hit is \
probably not about the query.";

pub const GET: &str = "\
Read one memory in full (frontmatter and body) by name. Without scope, the project's memory of that name \
wins over the user's, as it does for the agent.";

pub const LIST: &str = "\
List the memories (name, type, description) of the user scope, the current project, or both. Cheap; use \
it to see what exists before saving something new.";

pub const FORGET: &str = "\
Forget a memory that is wrong or no longer true. It is archived, not destroyed, so the person can \
restore it. Prefer updating (memory_save with the same name) when the memory is only partly out of date.";

pub const RENAME: &str = "\
Rename a memory when its name no longer says what it holds. Its archived history, the [[links]] in \
other memories and the person's retrieval tests follow the new name; use this instead of saving a \
copy and forgetting the original.";

pub const REVIEW: &str = "\
Read-only: the person's review inbox — memories that duplicate or contradict each other, project \
memories naming files the repository no longer has (with the commit that removed them), and expired \
ones, each with its evidence, and the proposals `ambry memory distill` drew from past sessions \
(`kind: \"proposal\"`, with their source turns). Use it when asked to help tidy memory; propose \
changes, never make them unasked. Accepting or rejecting a proposal is the person's decision, made \
in the app or with `ambry memory review accept|reject ID`; there is no tool for it.";

pub const RECALL: &str = "\
Search past agent sessions (Claude Code, Codex and Ambry transcripts) for what was said or decided, \
ranked by session, with the best matching turns as snippets. Plain words find sessions that mention \
most of them; FTS5 syntax works too (\"exact phrase\", OR, prefix*). Use it when the memory has nothing \
on a subject that an earlier session may have covered.";
