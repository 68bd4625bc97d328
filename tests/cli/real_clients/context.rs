//! Context economy as the real clients show it (DESIGN §5): on a home of 100 memories with both
//! anchors, the `SessionStart` block (anchors + memory map, naming every memory) reaches the
//! model whole, each turn
//! adds only what is new and relevant, whole and under the hard limit, a session never carries a
//! memory body twice in one context, a compaction brings the relevant memories back, and the
//! bytes a session costs stay within twice an oracle computed here.
//!
//! Every check is made on the requests the mock recorded (what the model receives), and every
//! broken one is listed before the test fails, so one run says everything that is wrong.

use std::collections::HashMap;

use super::codex::{developer_texts, TRUST};
use super::mock_api::Recorded;
use super::seed::{self, Needed, NEEDED, PROJECT_ANCHOR, USER_ANCHOR};
use super::world::World;

/// DESIGN §5: no hook output exceeds this, whatever the configuration says.
const HARD_LIMIT: usize = 8_000;
/// DESIGN §8 default `compose.map_bytes`: the map the contract gives once per context.
const MAP_BYTES: usize = 3_000;
const OPEN: &str = "<ambry-memory>";
const CLOSE: &str = "</ambry-memory>";

/// Every `<ambry-memory>…</ambry-memory>` span in one text, and whether one opens and never
/// closes (a preview or a cut block).
fn blocks_in(text: &str) -> (Vec<String>, bool) {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        match rest[start..].find(CLOSE) {
            Some(end) => {
                found.push(rest[start..start + end + CLOSE.len()].to_string());
                rest = &rest[start + end + CLOSE.len()..];
            }
            None => return (found, true),
        }
    }
    (found, false)
}

/// The Ambry blocks of a request in the order the model reads them (each string field of the
/// body separately, so a block never spans two messages).
fn request_blocks(request: &Recorded) -> (Vec<String>, bool) {
    let mut all = Vec::new();
    let mut broken = false;
    for text in request.strings() {
        let (found, open) = blocks_in(&text);
        broken |= open;
        all.extend(found);
    }
    (all, broken)
}

/// Blocks of `now` that were not in `before` (multiset difference): what this turn added.
fn added(before: &[String], now: &[String]) -> Vec<String> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for b in before {
        *seen.entry(b.as_str()).or_default() += 1;
    }
    let mut new = Vec::new();
    for b in now {
        match seen.get_mut(b.as_str()) {
            Some(n) if *n > 0 => *n -= 1,
            _ => new.push(b.clone()),
        }
    }
    new
}

/// What one request shows of Ambry's blocks: the closed blocks, and how many were cut short
/// (a preview, a truncation, or a block that opens and never closes).
struct Seen {
    blocks: Vec<String>,
    previews: usize,
    truncations: usize,
    unclosed: usize,
}

fn observe(request: &Recorded) -> Seen {
    let text = request.all_text();
    let (blocks, _) = request_blocks(request);
    let unclosed = request.strings().iter().filter(|s| blocks_in(s).1).count();
    Seen {
        blocks,
        previews: text.matches("<persisted-output>").count(),
        truncations: text.matches("tokens truncated").count(),
        unclosed,
    }
}

fn empty_seen() -> Seen {
    Seen {
        blocks: Vec::new(),
        previews: 0,
        truncations: 0,
        unclosed: 0,
    }
}

/// Problems this turn added (what earlier turns broke is reported once, at its turn): a block
/// previewed or cut, one that opens and never closes, one over the hard limit, a memory body
/// the context already held. Returns the blocks this turn added.
fn check_turn(label: &str, before: &Seen, now: &Seen, problems: &mut Vec<String>) -> Vec<String> {
    if now.previews > before.previews {
        problems.push(format!(
            "{label}: a hook output was replaced by a <persisted-output> preview"
        ));
    }
    if now.truncations > before.truncations {
        problems.push(format!(
            "{label}: a hook output was cut (\"tokens truncated\")"
        ));
    }
    if now.unclosed > before.unclosed {
        problems.push(format!(
            "{label}: an <ambry-memory> block opens and never closes"
        ));
    }
    let new = added(&before.blocks, &now.blocks);
    for b in &new {
        if b.len() > HARD_LIMIT {
            problems.push(format!(
                "{label}: a block of {} bytes, over the {HARD_LIMIT}-byte hard limit",
                b.len()
            ));
        }
    }
    let (was, is) = (body_counts(&before.blocks), body_counts(&now.blocks));
    let mut repeated: Vec<_> = is
        .iter()
        .filter(|(name, n)| **n > 1 && **n > was.get(*name).copied().unwrap_or(0))
        .map(|(name, n)| format!("{name} x{n}"))
        .collect();
    repeated.sort();
    if !repeated.is_empty() {
        problems.push(format!(
            "{label}: a memory body the context already held was injected again: {repeated:?}"
        ));
    }
    new
}

/// The session-start block: both anchors whole and the way to the rest (the map's pointer to
/// the MCP tools), in one closed block.
fn check_session_start(label: &str, blocks: &[String], problems: &mut Vec<String>) {
    let start = blocks
        .iter()
        .find(|b| b.contains("USER-ANCHOR-7d1") || b.contains("PROJECT-ANCHOR-4c2"));
    match start {
        None => problems.push(format!(
            "{label}: no SessionStart block with the trust anchors reached the model"
        )),
        Some(b) => {
            if !b.contains(USER_ANCHOR) || !b.contains(PROJECT_ANCHOR) {
                problems.push(format!(
                    "{label}: the anchors are not whole in the session-start block"
                ));
            }
            if !b.contains("memory_search") || !b.contains("memory_get") {
                problems.push(format!(
                    "{label}: the memory map does not say how to fetch the rest (memory_search / memory_get)"
                ));
            }
            // A home of a hundred memories: the map names every one (described or by name),
            // so the agent knows what it can fetch.
            let said: std::collections::HashSet<&str> = b
                .split(|c: char| c.is_whitespace() || matches!(c, ',' | '(' | ')'))
                .collect();
            let unnamed: Vec<String> = seed::names()
                .into_iter()
                .filter(|n| !said.contains(n.as_str()))
                .collect();
            if !unnamed.is_empty() {
                problems.push(format!(
                    "{label}: the memory map does not name {} of the home's memories: {unnamed:?}",
                    unnamed.len()
                ));
            }
            if b.contains("MARK-") {
                problems.push(format!(
                    "{label}: the session-start block carries memory bodies; the map gives names and descriptions"
                ));
            }
        }
    }
}

/// How many times each memory body appears in one context (one request's blocks).
/// A request holds exactly one session-start block (the one carrying the anchors and the map),
/// however often the session was resumed.
fn check_one_start_block(label: &str, blocks: &[String], problems: &mut Vec<String>) {
    let starts = blocks
        .iter()
        .filter(|b| b.contains("Memory map") || b.contains("USER-ANCHOR-7d1"))
        .count();
    if starts != 1 {
        problems.push(format!(
            "{label}: the request holds {starts} session-start blocks (anchors and map), not 1"
        ));
    }
}

fn body_counts(blocks: &[String]) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for b in blocks {
        for piece in b.split("MARK-").skip(1) {
            let name: String = piece
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            *counts.entry(name).or_default() += 1;
        }
    }
    counts
}

fn fail_with(problems: Vec<String>, summary: String) {
    assert!(
        problems.is_empty(),
        "context economy broken ({} problems):\n- {}\n{summary}",
        problems.len(),
        problems.join("\n- ")
    );
}

fn anchors_bytes() -> usize {
    USER_ANCHOR.len() + 1 + PROJECT_ANCHOR.len() + 1
}

/// One user turn of a session: the prompt and the memory it needs (`None`: small talk).
struct Turn {
    prompt: &'static str,
    needs: Option<&'static Needed>,
}

/// 29 prompts and a compaction after the 14th: every needed memory asked for, some asked again
/// in other words (already held: nothing to add), small talk, then after the compaction all of
/// them again (the context no longer holds them: they must come back).
fn claude_session() -> (Vec<Turn>, Vec<Turn>) {
    let mut before: Vec<Turn> = NEEDED
        .iter()
        .map(|n| Turn {
            prompt: n.prompt,
            needs: Some(n),
        })
        .collect();
    before.extend(NEEDED[..3].iter().map(|n| Turn {
        prompt: n.again,
        needs: Some(n),
    }));
    before.push(Turn {
        prompt: "Thanks, that is all for now.",
        needs: None,
    });
    let mut after: Vec<Turn> = NEEDED
        .iter()
        .map(|n| Turn {
            prompt: n.again,
            needs: Some(n),
        })
        .collect();
    after.extend(NEEDED[5..9].iter().map(|n| Turn {
        prompt: n.prompt,
        needs: Some(n),
    }));
    after.push(Turn {
        prompt: "Great, thank you.",
        needs: None,
    });
    (before, after)
}

fn user_line(text: &str) -> String {
    serde_json::json!({"type": "user", "message": {"role": "user", "content": text}}).to_string()
}

#[test]
fn claude_code_session_gets_each_memory_once_whole_and_again_after_compaction() {
    let world = World::new();
    seed::seed_home(&world);
    world
        .ambry(&["connect", "claude"])
        .ok("ambry connect claude");
    let settings = std::fs::read_to_string(world.claude_dir().join("settings.json")).unwrap();
    let mut problems = Vec::new();
    if !settings.contains("SessionStart") {
        problems.push("connect claude installs no SessionStart hook".to_string());
    }

    let (before, after) = claude_session();
    let cmd = world.session_command(
        "claude",
        &[
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
        ],
    );
    let mut session =
        super::process::Session::start(cmd, &world.logs(), &world.new_label("claude-session"));
    // Each turn: the requests it caused (the last is the one answering the prompt).
    let mut turn_requests: Vec<(String, Recorded)> = Vec::new();
    let ask = |session: &mut super::process::Session, prompt: &str| -> Option<Recorded> {
        let seen = world.api.turns().len();
        session.send_line(&user_line(prompt));
        session.read_until(|l| l.contains("\"type\":\"result\""));
        world
            .api
            .turns()
            .get(seen..)
            .and_then(|r| r.last().cloned())
    };
    for t in &before {
        let r = ask(&mut session, t.prompt).expect("each prompt reaches the model");
        turn_requests.push((t.prompt.to_string(), r));
    }
    let before_compaction = turn_requests.len();
    ask(&mut session, "/compact");
    for t in &after {
        let r = ask(&mut session, t.prompt).expect("each prompt reaches the model");
        turn_requests.push((t.prompt.to_string(), r));
    }
    let status = session.finish();
    assert!(
        status.success(),
        "the Claude Code session ended with {status}"
    );

    let first_after = &turn_requests[before_compaction].1;
    if first_after.all_text().contains(NEEDED[0].prompt) {
        problems.push("/compact did not compact: the first prompt is still in the context".into());
    }

    // Whole, under the limit, added per turn; session start; no repeats per context; recall.
    let mut injected = 0usize;
    let mut previous = empty_seen();
    let turns: Vec<&Turn> = before.iter().chain(after.iter()).collect();
    let mut recalled = 0usize;
    let mut needing = 0usize;
    for (i, ((prompt, request), turn)) in turn_requests.iter().zip(&turns).enumerate() {
        let label = format!("turn {} ({prompt:?})", i + 1);
        if i == before_compaction {
            // A new context: nothing it holds came from before.
            previous = empty_seen();
        }
        let now = observe(request);
        let new = check_turn(&label, &previous, &now, &mut problems);
        if i == 0 || i == before_compaction {
            check_session_start(&label, &now.blocks, &mut problems);
        }
        injected += new.iter().map(String::len).sum::<usize>();
        if let Some(needed) = turn.needs {
            needing += 1;
            if now
                .blocks
                .iter()
                .any(|b| b.contains(&seed::mark(needed.name)))
            {
                recalled += 1;
            } else {
                problems.push(format!(
                    "{label}: the needed memory {} is not in the context",
                    needed.name
                ));
            }
        }
        previous = now;
    }

    // The oracle: per context, the anchors and the map once, and each needed body once.
    let needed_once = |turns: &[Turn]| -> usize {
        let mut names: Vec<&str> = turns
            .iter()
            .filter_map(|t| t.needs.map(|n| n.name))
            .collect();
        names.sort();
        names.dedup();
        names
            .iter()
            .map(|n| seed::body_bytes(NEEDED.iter().find(|x| x.name == *n).unwrap()))
            .sum()
    };
    let oracle = 2 * (anchors_bytes() + MAP_BYTES) + needed_once(&before) + needed_once(&after);
    if injected > 2 * oracle {
        problems.push(format!(
            "the session injected {injected} bytes, over twice the oracle's {oracle}"
        ));
    }
    let summary = format!(
        "session: {} turns + /compact, {injected} bytes injected, oracle {oracle} bytes ({:.1}x), recall {recalled}/{needing}",
        turn_requests.len(),
        injected as f64 / oracle as f64
    );
    eprintln!("{summary}");
    fail_with(problems, summary);
}

/// `claude -p --continue` resumes the session with its earlier hook output in the conversation:
/// the resume adds no second start block, and each prompt still gets its memory.
#[test]
fn claude_code_continued_session_holds_one_start_block() {
    let world = World::new();
    seed::seed_home(&world);
    world
        .ambry(&["connect", "claude"])
        .ok("ambry connect claude");
    let mut problems = Vec::new();
    for (i, needed) in NEEDED.iter().take(3).enumerate() {
        let extra: &[&str] = if i == 0 { &[] } else { &["--continue"] };
        let seen = world.api.turns().len();
        world
            .claude_prompt(needed.prompt, extra)
            .ok("claude -p (--continue)");
        let request = world.api.turns()[seen..]
            .last()
            .cloned()
            .expect("the prompt reached the model");
        let label = format!("claude run {} ({:?})", i + 1, needed.prompt);
        if i > 0 && !request.all_text().contains(NEEDED[0].prompt) {
            problems.push(format!("{label}: the session was not continued"));
        }
        let blocks = observe(&request).blocks;
        if i == 0 {
            check_session_start(&label, &blocks, &mut problems);
        }
        check_one_start_block(&label, &blocks, &mut problems);
        if !blocks.iter().any(|b| b.contains(&seed::mark(needed.name))) {
            problems.push(format!(
                "{label}: the needed memory {} is not in the context",
                needed.name
            ));
        }
    }
    fail_with(problems, "claude -p and two --continue runs".into());
}

#[test]
fn codex_session_gets_each_memory_once_and_whole_across_resumes() {
    let world = World::new();
    seed::seed_home(&world);
    world.ambry(&["connect", "codex"]).ok("ambry connect codex");
    let hooks = std::fs::read_to_string(world.codex_dir().join("hooks.json")).unwrap();
    let mut problems = Vec::new();
    if !hooks.contains("SessionStart") {
        problems.push("connect codex installs no SessionStart hook".to_string());
    }

    let prompts: Vec<(&str, Option<&Needed>)> = vec![
        (NEEDED[0].prompt, Some(&NEEDED[0])),
        (NEEDED[1].prompt, Some(&NEEDED[1])),
        (NEEDED[2].prompt, Some(&NEEDED[2])),
        (NEEDED[0].again, Some(&NEEDED[0])),
        (NEEDED[3].prompt, Some(&NEEDED[3])),
        (NEEDED[1].again, Some(&NEEDED[1])),
        ("Thanks, that is all for now.", None),
    ];
    let mut thread = String::new();
    let mut injected = 0usize;
    let mut previous = empty_seen();
    for (i, (prompt, needs)) in prompts.iter().enumerate() {
        let seen = world.api.turns().len();
        let run = if i == 0 {
            world.codex_exec(prompt, &[TRUST])
        } else {
            world.codex(&[
                "exec",
                "resume",
                "--skip-git-repo-check",
                "--json",
                TRUST,
                &thread,
                prompt,
            ])
        }
        .ok("codex exec");
        if i == 0 {
            thread = super::world::json_lines(&run.stdout)
                .iter()
                .find_map(|e| e["thread_id"].as_str().map(str::to_string))
                .expect("codex exec --json names its thread");
        }
        let request = world.api.turns()[seen..]
            .last()
            .cloned()
            .expect("the prompt reached the model");
        let label = format!("codex turn {} ({prompt:?})", i + 1);
        let now = observe(&request);
        let new = check_turn(&label, &previous, &now, &mut problems);
        if developer_texts(&request)
            .iter()
            .all(|t| !t.contains("<ambry-memory>"))
        {
            problems.push(format!(
                "{label}: no developer message carries an Ambry block"
            ));
        }
        if i == 0 {
            check_session_start(&label, &now.blocks, &mut problems);
        }
        // Codex keeps a resumed thread's earlier hook output: its start block is there already.
        check_one_start_block(&label, &now.blocks, &mut problems);
        injected += new.iter().map(String::len).sum::<usize>();
        if let Some(n) = needs {
            if !now.blocks.iter().any(|b| b.contains(&seed::mark(n.name))) {
                problems.push(format!(
                    "{label}: the needed memory {} is not in the context",
                    n.name
                ));
            }
        }
        previous = now;
    }
    let summary = format!(
        "codex session: {} turns (exec + resumes), {injected} bytes of blocks added",
        prompts.len()
    );
    eprintln!("{summary}");
    fail_with(problems, summary);
}
