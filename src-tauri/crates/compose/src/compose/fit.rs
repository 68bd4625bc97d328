//! Making each source fit the memory block (DESIGN §5: every byte is for the agent).
//!
//! Owns: nesting a source's markdown headings under the block's own `##` section (an anchor's
//! leading heading that repeats the section's is dropped), stripping an index's generated
//! comment, bounding a line, and cutting text at a line
//! boundary to a byte budget with a line that says what was cut.
//! Deliberately does not: decide budgets or order sections (`compose` does), or read files.

/// A trust anchor as block content: its leading heading dropped when it only repeats the
/// section's (`# User preferences` under `## User preferences`), other headings nested two
/// levels down so they sit under the section.
pub fn anchor(text: &str, section_heading: &str) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    if let Some(first) = lines.iter().position(|l| !l.trim().is_empty()) {
        if heading_text(lines[first]).is_some_and(|h| h.eq_ignore_ascii_case(section_heading)) {
            lines.drain(..=first);
        }
    }
    let nested = nest_headings(&lines, 2);
    nested.trim_matches('\n').to_string()
}

/// `text` cut at a line boundary so that it and the closing note fit in `budget` bytes; the
/// note says how many lines were left out. `None` when not even the note fits.
pub fn cut_to(text: &str, budget: usize, what: &str) -> Option<String> {
    if text.len() <= budget {
        return Some(text.to_string());
    }
    let total_lines = text.lines().count();
    let mut kept = String::new();
    let mut kept_lines = 0;
    for line in text.lines() {
        let note = cut_note(total_lines - kept_lines, what);
        if kept.len() + line.len() + 1 + note.len() > budget {
            break;
        }
        kept.push_str(line);
        kept.push('\n');
        kept_lines += 1;
    }
    let note = cut_note(total_lines - kept_lines, what);
    (kept.len() + note.len() <= budget).then(|| format!("{kept}{note}"))
}

fn cut_note(lines: usize, what: &str) -> String {
    format!(
        "[… {lines} more line{} of {what} cut to fit]",
        if lines == 1 { "" } else { "s" }
    )
}

pub fn bound_line(line: &str, max: usize) -> String {
    if line.len() <= max {
        return line.to_string();
    }
    let end = line.floor_char_boundary(max.saturating_sub('…'.len_utf8()));
    format!("{}…", line[..end].trim_end())
}

fn heading_level(line: &str) -> Option<usize> {
    let hashes = line.bytes().take_while(|b| *b == b'#').count();
    (1..=6)
        .contains(&hashes)
        .then_some(hashes)
        .filter(|_| line[hashes..].starts_with(' ') || line.len() == hashes)
}

fn heading_text(line: &str) -> Option<&str> {
    heading_level(line).map(|n| line[n..].trim())
}

/// Pushes ATX headings `by` levels down (at most `######`), leaving fenced code alone.
fn nest_headings(lines: &[&str], by: usize) -> String {
    let mut out = String::new();
    let mut fence: Option<&str> = None;
    for line in lines {
        let trimmed = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(open), Some(m)) if open == m => fence = None,
            _ => {}
        }
        match heading_level(line) {
            Some(level) if fence.is_none() && marker.is_none() => {
                let deeper = (level + by).min(6);
                out.push_str(&"#".repeat(deeper));
                out.push_str(&line[level..]);
            }
            _ => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_anchor_loses_a_repeated_title_and_nests_the_rest() {
        let text = "# User preferences\n\n## Style\nShort answers.\n\n```sh\n# a comment, not a heading\n```\n";
        let out = anchor(text, "User preferences");
        assert_eq!(
            out,
            "#### Style\nShort answers.\n\n```sh\n# a comment, not a heading\n```"
        );
        let other = anchor("# Team rules\nNo force pushes.\n", "Project context");
        assert_eq!(other, "### Team rules\nNo force pushes.");
    }

    #[test]
    fn cutting_keeps_whole_lines_and_says_what_went() {
        let text = "one\ntwo\nthree\nfour\n".repeat(10);
        assert_eq!(cut_to(&text, 1000, "x").unwrap(), text);
        let out = cut_to(&text, 80, "the user index").unwrap();
        assert!(out.len() <= 80, "{out}");
        assert!(out.starts_with("one\n"), "{out}");
        assert!(out.contains("more lines of the user index cut"), "{out}");
        assert_eq!(cut_to(&text, 5, "x"), None);
    }
}
