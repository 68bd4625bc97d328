//! Two texts compared sentence by sentence, then word by word: what a pair's comparison in the
//! review marks, and what a merge of two memories takes in from the one that goes.
//!
//! Owns: cutting a text into sentences (lines, and sentences within a line) and words; when a
//! sentence of one text is said by the other (the same words in the same order, perhaps within a
//! longer sentence there); which sentence of the other is its counterpart; the words of a
//! sentence its counterpart lacks (a word-level alignment, so only those words are marked, never
//! the whole line); the merge's opening text (the kept memory's body as it is) with the other's
//! sentences the kept one does not say, and the body with all of them taken in.
//! Deliberately does not: judge whether two memories say the same thing (`pairs` does), read
//! files, or decide where a person puts a sentence they take in (the merge editor is theirs).

use std::collections::BTreeSet;

use serde::Serialize;

/// A counterpart shares at least this share of its words (Dice over the two sentences' words):
/// below it, the sentence has none and is marked whole rather than word by word.
const COUNTERPART_AT: f64 = 0.5;
/// Past this many words a sentence is not aligned word by word (the table grows as the product
/// of both lengths): it is marked whole when the other text does not say it.
const ALIGN_MAX_WORDS: usize = 400;

/// How a piece of a text compares with the other text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mark {
    /// Said in the other text too (or only spaces and punctuation).
    Same,
    /// A word the other text's version of this sentence does not have.
    Word,
    /// A sentence the other text has no version of.
    Sentence,
}

/// A run of a text. The pieces of a text, in order, give it back exactly.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Piece {
    pub text: String,
    pub mark: Mark,
}

/// Two texts, each marked against the other.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Comparison {
    pub a: Vec<Piece>,
    pub b: Vec<Piece>,
}

/// A sentence of the memory that goes which the kept one does not say.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Differing {
    /// The sentence as written.
    pub text: String,
    /// The sentence with the words its counterpart in the kept body lacks marked (or whole,
    /// when it has none).
    pub pieces: Vec<Piece>,
}

/// What a merge opens with: the kept memory's body as it is, and the other's sentences it does
/// not say, for the person to take in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MergeDraft {
    pub body: String,
    pub description: String,
    pub differing: Vec<Differing>,
}

/// A sentence: its byte range in the text and its words (byte ranges and compared forms).
struct Sentence {
    start: usize,
    end: usize,
    words: Vec<Word>,
}

struct Word {
    start: usize,
    end: usize,
    /// Lower-cased, without the punctuation around it.
    key: String,
}

impl Sentence {
    fn keys(&self) -> Vec<&str> {
        self.words.iter().map(|w| w.key.as_str()).collect()
    }
}

/// The sentences of `text`: each line, cut after a `.`, `!` or `?` that a space follows.
fn sentences(text: &str) -> Vec<Sentence> {
    let mut out = Vec::new();
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        let mut start = line_start;
        let bytes = line.as_bytes();
        for (i, c) in line.char_indices() {
            let ends = matches!(c, '.' | '!' | '?')
                && bytes.get(i + 1).is_some_and(|b| *b == b' ' || *b == b'\t');
            if ends {
                push_sentence(text, start, line_start + i + 1, &mut out);
                start = line_start + i + 1;
            }
        }
        push_sentence(text, start, line_start + line.len(), &mut out);
        line_start += line.len();
    }
    out
}

/// `text[start..end]` without the spaces around it, when it has a word.
fn push_sentence(text: &str, start: usize, end: usize, out: &mut Vec<Sentence>) {
    let slice = &text[start..end];
    let lead = slice.len() - slice.trim_start().len();
    let trimmed = slice.trim();
    let (start, end) = (start + lead, start + lead + trimmed.len());
    let words = words(text, start, end);
    if !words.is_empty() {
        out.push(Sentence { start, end, words });
    }
}

/// The words of `text[start..end]`: runs without spaces, less the punctuation around them (a
/// list's `-` or a lone `|` is no word).
fn words(text: &str, start: usize, end: usize) -> Vec<Word> {
    let mut out = Vec::new();
    let slice = &text[start..end];
    let mut offset = 0;
    for run in slice.split_inclusive(char::is_whitespace) {
        let token = run.trim_end();
        let lead = token.len()
            - token
                .trim_start_matches(|c: char| !c.is_alphanumeric())
                .len();
        let core = token
            .trim_start_matches(|c: char| !c.is_alphanumeric())
            .trim_end_matches(|c: char| !c.is_alphanumeric());
        if !core.is_empty() {
            let s = start + offset + lead;
            out.push(Word {
                start: s,
                end: s + core.len(),
                key: core.to_lowercase(),
            });
        }
        offset += run.len();
    }
    out
}

/// Whether `needle` is `hay` with words left out (the same words in the same order).
fn within(needle: &[&str], hay: &[&str]) -> bool {
    let mut hay = hay.iter();
    needle.iter().all(|w| hay.any(|h| h == w))
}

/// Dice over the two sentences' sets of words.
fn overlap(a: &[&str], b: &[&str]) -> f64 {
    let a: BTreeSet<&str> = a.iter().copied().collect();
    let b: BTreeSet<&str> = b.iter().copied().collect();
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    2.0 * a.intersection(&b).count() as f64 / (a.len() + b.len()) as f64
}

/// Which words of `a` a longest common subsequence with `b` leaves out.
fn unaligned(a: &[&str], b: &[&str]) -> Vec<bool> {
    let (n, m) = (a.len(), b.len());
    // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
    let mut lcs = vec![vec![0u16; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut out = vec![true; n];
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if a[i] == b[j] {
            out[i] = false;
            i += 1;
            j += 1;
        } else if lcs[i + 1][j] >= lcs[i][j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// How one sentence of a text stands against the other text.
enum Standing {
    /// The other says it.
    Said,
    /// The other has a version of it; these of its words (by index) are not in that version.
    Differs(Vec<bool>),
    /// The other has nothing like it.
    Alone,
}

fn standing(s: &Sentence, other: &[Sentence]) -> Standing {
    let keys = s.keys();
    let others: Vec<Vec<&str>> = other.iter().map(Sentence::keys).collect();
    if others.iter().any(|o| within(&keys, o)) {
        return Standing::Said;
    }
    let best = others
        .iter()
        .map(|o| (overlap(&keys, o), o))
        .filter(|(score, _)| *score >= COUNTERPART_AT)
        .max_by(|x, y| x.0.total_cmp(&y.0));
    match best {
        Some((_, o)) if keys.len() <= ALIGN_MAX_WORDS && o.len() <= ALIGN_MAX_WORDS => {
            Standing::Differs(unaligned(&keys, o))
        }
        _ => Standing::Alone,
    }
}

/// Appends `text[from..to]` as a piece marked `mark`, joined to the last piece when it has the
/// same mark and is not a word (each marked word stays a piece of its own).
fn push(pieces: &mut Vec<Piece>, text: &str, mark: Mark) {
    if text.is_empty() {
        return;
    }
    match pieces.last_mut() {
        Some(last) if last.mark == mark && mark != Mark::Word => last.text.push_str(text),
        _ => pieces.push(Piece {
            text: text.to_string(),
            mark,
        }),
    }
}

/// One sentence of `text` as pieces, marked against `other`.
fn sentence_pieces(text: &str, s: &Sentence, other: &[Sentence], pieces: &mut Vec<Piece>) {
    match standing(s, other) {
        Standing::Said => push(pieces, &text[s.start..s.end], Mark::Same),
        Standing::Alone => push(pieces, &text[s.start..s.end], Mark::Sentence),
        Standing::Differs(lacking) => {
            let mut from = s.start;
            for (w, lacks) in s.words.iter().zip(lacking) {
                if lacks {
                    push(pieces, &text[from..w.start], Mark::Same);
                    push(pieces, &text[w.start..w.end], Mark::Word);
                    from = w.end;
                }
            }
            push(pieces, &text[from..s.end], Mark::Same);
        }
    }
}

/// `text` in pieces, marked against `other`.
fn pieces_against(text: &str, mine: &[Sentence], other: &[Sentence]) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let mut at = 0;
    for s in mine {
        push(&mut pieces, &text[at..s.start], Mark::Same);
        sentence_pieces(text, s, other, &mut pieces);
        at = s.end;
    }
    push(&mut pieces, &text[at..], Mark::Same);
    pieces
}

/// `a` and `b`, each with what the other does not say marked: a sentence the other says is not
/// marked; one the other has a version of has only the words that version lacks marked; one with
/// no version there is marked whole.
pub fn compare(a: &str, b: &str) -> Comparison {
    let (sa, sb) = (sentences(a), sentences(b));
    Comparison {
        a: pieces_against(a, &sa, &sb),
        b: pieces_against(b, &sb, &sa),
    }
}

/// The sentences of `other` that `kept` does not say, in their order, each marked against
/// `kept`; a sentence said twice in `other` is offered once.
pub fn differing(kept: &str, other: &str) -> Vec<Differing> {
    let mine = sentences(kept);
    let theirs = sentences(other);
    let mut seen: Vec<Vec<&str>> = Vec::new();
    let mut out = Vec::new();
    for s in &theirs {
        let keys = s.keys();
        if seen.contains(&keys) {
            continue;
        }
        seen.push(keys);
        if matches!(standing(s, &mine), Standing::Said) {
            continue;
        }
        let mut pieces = Vec::new();
        sentence_pieces(other, s, &mine, &mut pieces);
        out.push(Differing {
            text: other[s.start..s.end].to_string(),
            pieces,
        });
    }
    out
}

/// `body` with `sentence` taken in: on a line of its own at the end, unless `body` says it.
pub fn take_in(body: &str, sentence: &str) -> String {
    let mine = sentences(body);
    let said = sentences(sentence)
        .iter()
        .all(|s| matches!(standing(s, &mine), Standing::Said));
    if said {
        return body.to_string();
    }
    let kept = body.trim_end();
    if kept.is_empty() {
        format!("{}\n", sentence.trim())
    } else {
        format!("{kept}\n{}\n", sentence.trim())
    }
}

/// `kept` with every sentence of `other` it does not say taken in: the merge of two bodies that
/// never repeats a sentence both have.
pub fn merged_body(kept: &str, other: &str) -> String {
    differing(kept, other)
        .iter()
        .fold(kept.to_string(), |body, d| take_in(&body, &d.text))
}

/// What a merge of `other` into `kept` opens with (the kept body and description as they are).
pub fn merge_draft(kept_body: &str, kept_description: &str, other_body: &str) -> MergeDraft {
    MergeDraft {
        body: kept_body.to_string(),
        description: kept_description.to_string(),
        differing: differing(kept_body, other_body),
    }
}

#[cfg(test)]
#[path = "sentences_tests.rs"]
mod tests;
