//! Claims, not string differences (DESIGN §14): what a memory asserts — the tools it names by
//! category, its values normalised, which way it says things, and what it is about — and how
//! two memories' claims compare: about different subjects, rival (a conflict, never a merge),
//! or the same.
//!
//! Owns: reading a memory's claims once (`Claims::of`) and comparing two (`compare`): the
//! subject kept apart first (two services' ports are two facts; two headlines, or two names,
//! qualified otherwise), then rival tools of one category (even when one side never names the other's)
//! or a member one side uses and the other says was left behind, then tools of unrelated kinds
//! as two subjects, then rival values of one kind and anchor, then a word one side does and the other
//! does not ("use anyhow" / "must not depend on anyhow", "moved from X to Y").
//! Deliberately does not: weigh similarity or pick the verdict (`pairs` does), or read files.
//! The vocabulary is data: `lexicon.toml`.

pub mod candidates;
pub mod lexicon;
pub mod polarity;
pub mod shape;
pub mod subject;
pub mod values;

use std::collections::{BTreeMap, BTreeSet};

use lexicon::{lexicon, split, Found};
use polarity::Said;
use subject::Subject;
use values::{Kind, Value};

/// Members of rival categories, by category.
pub type Tools = BTreeMap<usize, BTreeSet<String>>;

/// The members of rival categories `text` names, whichever way it says them: cheap enough to
/// read for every memory of a store, to nominate pairs (`candidates`).
pub fn tools_named(text: &str) -> Tools {
    let lex = lexicon();
    let mut out = Tools::new();
    for f in lex.find(&split(text)) {
        if lex.rivals(f.category) {
            out.entry(f.category).or_default().insert(f.member);
        }
    }
    out
}

/// What one memory asserts.
#[derive(Debug, Clone, Default)]
pub struct Claims {
    /// Members of rival categories it says it uses, by category.
    tools: BTreeMap<usize, BTreeSet<String>>,
    /// Members it names only to say they are not used.
    refused: BTreeSet<String>,
    subject: Subject,
    /// Values it states as so (not those it says were left behind).
    values: Vec<Value>,
    polarity: BTreeMap<String, Said>,
    /// The words with which it says something was left behind ("no longer", "migrated").
    moved_on: Option<String>,
    /// The first negation it says ("not", "never", "avoid").
    negation: Option<String>,
    /// Names it states (capitalised inside a sentence, in backticks), stemmed.
    names: BTreeSet<String>,
    /// Every word of it, stemmed.
    terms: BTreeSet<String>,
    /// The words that may name its subject: those of its first line (a memory's description)
    /// and, anywhere, a word before a subject noun ("the *orders* service"), an environment or
    /// a component.
    described: BTreeSet<String>,
    /// Its sentence shape (`shape::shape_of`), compared with a neighbour's.
    shape: Vec<String>,
    /// Its first line's words (`shape::headline_of`): a memory's description.
    headline: Vec<String>,
    /// The words of the values its first line states ("region *eu-west-1*").
    headline_values: BTreeSet<String>,
    /// Its name's words (`node-exporter-port`): a label for its subject, read as a headline.
    label: Vec<String>,
}

impl Claims {
    /// The same claims, of a memory named `name`.
    pub fn named(mut self, name: &str) -> Claims {
        self.label = shape::headline_of(&name.replace(['-', '_'], " "));
        self
    }

    pub fn of(text: &str) -> Claims {
        let lex = lexicon();
        let words = split(text);
        let found: Vec<Found> = lex.find(&words);
        let described = split(text.lines().next().unwrap_or_default()).len();
        let (negated, polarity) = polarity::read(&words, described);
        let mut tools: BTreeMap<usize, BTreeSet<String>> = BTreeMap::new();
        let mut refused = BTreeSet::new();
        for f in found.iter().filter(|f| lex.rivals(f.category)) {
            // A member that is itself a negation ("mocking the database is *forbidden*") says
            // which way; it is not what is refused.
            if negated[f.at] && !lex.markers.contains(&f.member) {
                refused.insert(f.member.clone());
            } else {
                tools
                    .entry(f.category)
                    .or_default()
                    .insert(f.member.clone());
            }
        }
        let values: Vec<Value> = values::values_in(text, &words, &found)
            .into_iter()
            .filter(|v| {
                // A value said only as what was left ("upgraded from Java 11 to 17") is not a
                // claim of this side.
                let first = v.shown.split_whitespace().next().unwrap_or_default();
                polarity
                    .get(&ambry_rank::rank::tokenize::stem(first))
                    .is_none_or(|s| s.done || !s.not_done)
            })
            .collect();
        let moved_on = (0..words.len()).find_map(|i| {
            let at = |p: &Vec<String>| {
                p.iter().zip(&words[i..]).all(|(x, w)| *x == w.text) && words.len() >= i + p.len()
            };
            lex.negate_clause
                .iter()
                .find(|p| at(p))
                .map(|p| p.join(" "))
                .or_else(|| {
                    lex.moved
                        .iter()
                        .chain(&lex.replaced)
                        .find(|m| **m == words[i].text)
                        .cloned()
                })
        });
        let negation = (0..words.len()).find_map(|i| {
            lex.negate_after
                .iter()
                .find(|p| {
                    words.len() >= i + p.len()
                        && p.iter().zip(&words[i..]).all(|(x, w)| *x == w.text)
                })
                .map(|p| p.join(" "))
        });
        Claims {
            negation,
            names: {
                // Names the lexicon or a value already accounts for ("JavaScript", "MiB") are
                // compared as tools, subjects and values, not as names.
                let stem = ambry_rank::rank::tokenize::stem;
                let known: BTreeSet<String> = found
                    .iter()
                    .flat_map(|f| words[f.at..f.at + f.len].iter().map(|w| stem(&w.text)))
                    .chain(
                        values
                            .iter()
                            .flat_map(|v| split(&v.shown).into_iter().map(|w| stem(&w.text))),
                    )
                    .collect();
                shape::names(text)
                    .into_iter()
                    .filter(|n| !known.contains(n))
                    .collect()
            },
            terms: words
                .iter()
                .map(|w| ambry_rank::rank::tokenize::stem(&w.text))
                .collect(),
            described: split(text.lines().next().unwrap_or_default())
                .into_iter()
                .map(|w| w.text)
                .chain(subject::naming_words(&words, &found))
                .collect(),
            shape: shape::shape_of(text),
            headline: shape::headline_of(text.lines().next().unwrap_or_default()),
            headline_values: {
                let first = text.lines().next().unwrap_or_default().to_lowercase();
                values
                    .iter()
                    .filter(|v| first.contains(&v.shown))
                    .flat_map(|v| split(&v.shown).into_iter().map(|w| w.text))
                    .collect()
            },
            moved_on,
            tools,
            refused,
            subject: Subject::of(
                &words,
                &found,
                split(text.lines().next().unwrap_or_default()).len(),
            ),
            values,
            polarity,
            label: Vec::new(),
        }
    }
}

/// How two memories' claims compare.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Comparison {
    /// What both are about, as evidence ("orders service", "production", "test").
    pub subject: Vec<String>,
    /// Set when they are about different subjects: the words that tell them apart.
    pub apart: Option<(String, String)>,
    /// Claims on which they disagree, as `(first's, second's)`.
    pub rivals: Vec<(String, String)>,
    /// Whether a rival tool is among them (each uses a different member of one category).
    pub tools_rival: bool,
    /// Values that differ where it cannot be told whether they answer one question (a path
    /// beside no shared word): not a merge, not surely a conflict.
    pub unsure: Vec<(String, String)>,
    /// Whether both state the same claims: at least one value, tool or name in common, and
    /// nothing either states that the other never mentions (one says it shortly, the other
    /// at length, and neither adds to it).
    pub same_claims: bool,
    /// Whether both state values and every value of each is one the other states ("15
    /// minutes" / "900 seconds"), with nothing either says apart or unsure.
    pub same_values: bool,
    /// The values both state, written otherwise on each side, as `(first's, second's)`: the
    /// evidence of a duplicate that says one value two ways.
    pub agreed: Vec<(String, String)>,
}

/// Compares the claims of two memories.
pub fn compare(a: &Claims, b: &Claims) -> Comparison {
    let mut out = Comparison {
        subject: a.subject.shared_with(&b.subject),
        ..Comparison::default()
    };
    if let Some(apart) = a.subject.apart_from(&b.subject) {
        out.apart = Some(apart);
        return out;
    }
    // Headlines qualified otherwise name two subjects; a qualifier that is a rival tool, a
    // generic word ("primary", "default") or a negation names none.
    let lex = lexicon();
    let generic = |w: &str| lex.subject_generic.iter().any(|g| g == w);
    let plain = |w: &str| {
        let words = split(w);
        !a.headline_values.contains(w)
            && !b.headline_values.contains(w)
            && !values::names_a_value(w)
            && !generic(w)
            && !lex.markers.contains(w)
            && !lex.find(&words).iter().any(|f| lex.rivals(f.category))
    };
    // Names are headlines too ("node-exporter-port" / "postgres-exporter-port"), but terser:
    // a name's qualifier names another subject only when the other memory never says it
    // ("decimal-rounding" / "bankers-rounding" are one rule when either says both).
    let unsaid = |words: &str, other: &Claims| {
        split(words).iter().all(|w| {
            !other
                .terms
                .contains(&ambry_rank::rank::tokenize::stem(&w.text))
        })
    };
    // In a name a generic qualifier names a subject too when the other's is specific
    // ("sidekiq-default-concurrency" / "sidekiq-mailers-concurrency").
    let label_plain = |w: &str| plain(w) || generic(w);
    let swap = shape::headline_swap(&a.headline, &b.headline, &plain).or_else(|| {
        shape::headline_swap(&a.label, &b.label, &label_plain).filter(|(x, y)| {
            let all_generic = |g: &str| split(g).iter().all(|w| generic(&w.text));
            unsaid(x, b) && unsaid(y, a) && !(all_generic(x) && all_generic(y))
        })
    });
    if let Some(apart) = swap {
        out.apart = Some(apart);
        return out;
    }
    // Rival tools: each side uses a member of one category the other never names.
    let names =
        |c: &Claims, m: &str| c.refused.contains(m) || c.tools.values().any(|set| set.contains(m));
    for (category, mine) in &a.tools {
        let Some(theirs) = b.tools.get(category) else {
            continue;
        };
        let x = mine.iter().find(|m| !names(b, m));
        let y = theirs.iter().find(|m| !names(a, m));
        if let (Some(x), Some(y)) = (x, y) {
            out.rivals.push((x.clone(), y.clone()));
            out.tools_rival = true;
        }
    }
    // A member one side uses and the other says was left behind, however each spells it ("Use
    // moment.js" / "moment has been removed in favour of date-fns"; "Logs go to ELK" / "we
    // retired Elasticsearch"): the other side's own member of that category, if it names one,
    // is what replaced it.
    if out.rivals.is_empty() {
        let left_behind = |uses: &Claims, refuses: &Claims| -> Option<(String, String)> {
            uses.tools.iter().find_map(|(category, mine)| {
                // A side that refuses it too ("the Gradle wrapper, not a system gradle") is
                // not the one that uses it.
                let m = mine
                    .iter()
                    .find(|m| refuses.refused.contains(*m) && !uses.refused.contains(*m))?;
                let instead = refuses
                    .tools
                    .get(category)
                    .and_then(|theirs| theirs.iter().find(|y| !names(uses, y)))
                    .cloned()
                    .unwrap_or_else(|| format!("not {m}"));
                Some((m.clone(), instead))
            })
        };
        if let Some((x, y)) = left_behind(a, b) {
            out.rivals.push((x, y));
        } else if let Some((y, x)) = left_behind(b, a) {
            out.rivals.push((x, y));
        }
    }
    // One sentence shape with one member of a category swapped for another ("The default
    // branch is main" / "… is develop"), even when the other side names both elsewhere.
    if out.rivals.is_empty() {
        let lex = lexicon();
        for (ga, gb) in shape::gaps(&a.shape, &b.shape) {
            let member = |g: &[String]| {
                let words: Vec<lexicon::Word> = g.iter().flat_map(|w| split(w)).collect();
                lex.find(&words)
                    .into_iter()
                    .find(|f| lex.rivals(f.category))
            };
            if let (Some(x), Some(y)) = (member(&ga), member(&gb)) {
                if x.category == y.category && x.member != y.member {
                    out.rivals.push((x.member, y.member));
                    out.tools_rival = true;
                    break;
                }
            }
        }
    }
    if out.rivals.is_empty() {
        // Tools of unrelated kinds on each side (React and TypeScript, Django and Celery):
        // two subjects, not a disagreement.
        let only = |c: &Claims, other: &Claims| -> BTreeMap<usize, String> {
            c.tools
                .iter()
                .flat_map(|(cat, set)| set.iter().map(move |m| (*cat, m)))
                .filter(|(_, m)| !names(other, m))
                .map(|(cat, m)| (cat, m.clone()))
                .collect()
        };
        let (oa, ob) = (only(a, b), only(b, a));
        if !oa.is_empty() && !ob.is_empty() && oa.keys().all(|k| !ob.contains_key(k)) {
            let first =
                |m: &BTreeMap<usize, String>| m.values().next().cloned().unwrap_or_default();
            out.apart = Some((first(&oa), first(&ob)));
            return out;
        }
        // Versions each of a different tool ("Rails 7.1", "Ruby 3.3").
        let anchors = |c: &Claims| -> BTreeSet<String> {
            c.values
                .iter()
                .filter(|v| v.kind == Kind::Version)
                .flat_map(|v| v.anchors.iter().cloned())
                .collect()
        };
        let (va, vb) = (anchors(a), anchors(b));
        let all_anchored = |c: &Claims| {
            c.values
                .iter()
                .filter(|v| v.kind == Kind::Version)
                .all(|v| !v.anchors.is_empty())
        };
        if !va.is_empty()
            && !vb.is_empty()
            && va.is_disjoint(&vb)
            && all_anchored(a)
            && all_anchored(b)
        {
            out.apart = Some((join(&va), join(&vb)));
            return out;
        }
    }
    // A rival value beside a swapped word in one sentence shape belongs to another subject
    // ("the orders service … 8081" / "the inventory service … 8082").
    let mut values = Comparison::default();
    rival_values(a, b, &mut values);
    if !values.rivals.is_empty() && !out.tools_rival {
        let value_words: BTreeSet<String> = [a, b]
            .iter()
            .flat_map(|c| {
                c.values
                    .iter()
                    .flat_map(|v| split(&v.shown).into_iter().map(|w| w.text))
                    .chain(
                        c.tools
                            .values()
                            .flatten()
                            .flat_map(|m| split(m).into_iter().map(|w| w.text)),
                    )
            })
            .collect();
        let is_value = |w: &str| value_words.contains(w) || w.chars().any(|c| c.is_ascii_digit());
        let described = |x: &str, y: &str| a.described.contains(x) || b.described.contains(y);
        if let Some(swap) = shape::swapped_subject(&a.shape, &b.shape, &is_value, &described) {
            out.apart = Some(swap);
            return out;
        }
    }
    out.rivals.extend(values.rivals);
    out.unsure.extend(values.unsure);
    // A word one side says is done and the other refuses: a rule and its negation when the
    // side that does it says nothing negative at all; when both sides negate something, the
    // same rule is often said two ways ("never commit secrets" / "committed files hold no
    // secrets"), so it is asked, not called.
    let plain = |c: &Claims| c.negation.is_none() && c.moved_on.is_none();
    let flip = a.polarity.iter().find_map(|(w, sa)| {
        let sb = b.polarity.get(w)?;
        if w.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        if sa.done && !sa.not_done && sb.refused && !sb.done {
            Some((w.clone(), format!("not {w}"), plain(a)))
        } else if sa.refused && !sa.done && sb.done && !sb.not_done {
            Some((format!("not {w}"), w.clone(), plain(b)))
        } else {
            None
        }
    });
    match flip {
        Some((x, y, true)) => out.rivals.push((x, y)),
        Some((x, y, false)) => out.unsure.push((x, y)),
        None => {}
    }
    // One side says it left something behind and the other does not: no merge, but the words
    // cannot tell what was left.
    if out.rivals.is_empty() {
        const STILL_SO: &str = "still so";
        match (&a.moved_on, &b.moved_on) {
            (Some(x), None) => out.unsure.push((x.clone(), STILL_SO.to_string())),
            (None, Some(y)) => out.unsure.push((STILL_SO.to_string(), y.clone())),
            _ => {}
        }
        // One side negates and the other does not: a rule and its exception, or its opposite.
        match (&a.negation, &b.negation) {
            _ if !out.unsure.is_empty() => {}
            (Some(x), None) => out.unsure.push((x.clone(), STILL_SO.to_string())),
            (None, Some(y)) => out.unsure.push((STILL_SO.to_string(), y.clone())),
            _ => {}
        }
        // Each names something the other never mentions (a tool, a team, a value): perhaps two
        // answers to one question, which the lexicon does not know.
        let (na, nb) = (novel(a, b), novel(b, a));
        let shared = a
            .values
            .iter()
            .any(|v| b.values.iter().any(|w| w.agrees_with(v)))
            || a.tools
                .values()
                .flatten()
                .any(|m| b.tools.values().any(|s| s.contains(m)))
            || a.names.iter().any(|n| b.names.contains(n));
        out.same_claims = shared && na.is_none() && nb.is_none() && out.unsure.is_empty();
        let within = |x: &Claims, y: &Claims| {
            x.values.iter().all(|v| {
                y.values
                    .iter()
                    .any(|w| w.kind == v.kind && w.agrees_with(v))
            })
        };
        out.same_values = !a.values.is_empty()
            && !b.values.is_empty()
            && within(a, b)
            && within(b, a)
            && out.unsure.is_empty();
        out.agreed = a
            .values
            .iter()
            .filter_map(|v| {
                let w = b
                    .values
                    .iter()
                    .find(|w| w.kind == v.kind && w.agrees_with(v))?;
                (w.shown != v.shown).then(|| (v.shown.clone(), w.shown.clone()))
            })
            .collect();
        if let (Some(x), Some(y)) = (na, nb) {
            out.unsure.push((x, y));
        }
    }
    out
}

/// A name, tool or value `a` states that `b` never mentions.
fn novel(a: &Claims, b: &Claims) -> Option<String> {
    let tool = a
        .tools
        .values()
        .flatten()
        .find(|m| !b.refused.contains(*m) && !b.tools.values().any(|s| s.contains(*m)));
    let value = a
        .values
        .iter()
        .find(|v| !b.values.iter().any(|w| w.agrees_with(v)))
        .map(|v| &v.shown);
    let name = a
        .names
        .iter()
        .find(|n| !b.terms.contains(*n) && !b.names.contains(*n));
    tool.or(value).or(name).cloned()
}

fn join(set: &BTreeSet<String>) -> String {
    set.iter().cloned().collect::<Vec<_>>().join(" ")
}

/// Values of one kind each side states and the other does not, anchored alike.
fn rival_values(a: &Claims, b: &Claims, out: &mut Comparison) {
    let has = |c: &Claims, value: &Value| c.values.iter().any(|v| v.agrees_with(value));
    let only = |c: &Claims, other: &Claims| -> Vec<Value> {
        c.values
            .iter()
            .filter(|v| !has(other, v))
            .cloned()
            .collect()
    };
    let (oa, ob) = (only(a, b), only(b, a));
    let mut used: BTreeSet<String> = BTreeSet::new();
    for x in &oa {
        if used.contains(&x.value) {
            continue;
        }
        for y in ob
            .iter()
            .filter(|y| y.kind == x.kind && !used.contains(&y.value))
        {
            let meet = || x.anchors.iter().any(|w| y.anchors.contains(w));
            let either_open = x.anchors.is_empty() || y.anchors.is_empty();
            let verdict = match x.kind {
                Kind::Port
                | Kind::Percent
                | Kind::Duration
                | Kind::Size
                | Kind::TimeZone
                | Kind::Region
                | Kind::Team => Some(true),
                Kind::Version | Kind::Count => (either_open || meet()).then_some(true),
                Kind::Setting | Kind::Number => meet().then_some(true),
                Kind::Place => Some(meet()),
            };
            match verdict {
                Some(true) => out.rivals.push((x.shown.clone(), y.shown.clone())),
                Some(false) => out.unsure.push((x.shown.clone(), y.shown.clone())),
                None => continue,
            }
            used.insert(x.value.clone());
            used.insert(y.value.clone());
            break;
        }
    }
}

#[cfg(test)]
mod tests;
