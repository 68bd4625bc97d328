//! The values a memory states, normalised so that two ways of writing one value compare equal:
//! numbers as words or digits ("twenty-one", "21"), durations in any unit ("two weeks",
//! "14 days", "once a day", "24 hours"), sizes ("0.5 GiB", "512 MiB"), percentages ("eighty
//! percent", "80%"), versions, ports (also inside a URL or `host:port`), cloud regions, time
//! zones, `KEY=value` settings, paths and hosts, and owning teams.
//!
//! Owns: recognising a value, its kind, its normal form, and what it is anchored to (the tool
//! a version follows, the noun a count counts, the key of a setting, the words around a path).
//! Deliberately does not: decide when two values disagree (`claims` does, from kinds and
//! anchors) or read tools and subjects.

use ambry_rank::rank::tokenize::{is_stop_word, stem};

#[cfg(test)]
use super::lexicon::split;
use super::lexicon::{lexicon, Found, Word};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Port,
    Percent,
    /// In seconds.
    Duration,
    /// In bytes (MB and MiB read alike: people write one for the other).
    Size,
    /// Dotted (`3.12`, `9.x`) or a bare number after a tool or language (`Node 20`).
    Version,
    /// A number and the noun it counts (`3 replicas`, `two approving reviews`).
    Count,
    /// Any other number; anchored to the word before it.
    Number,
    TimeZone,
    Region,
    /// A path, file name, host or URL; anchored to its neighbouring words.
    Place,
    /// `KEY=value`; anchored to the key.
    Setting,
    /// The team that owns or carries something.
    Team,
}

/// One value as stated: its kind, normal form, how it was written, and its anchors (empty: it
/// may stand for anything of its kind).
#[derive(Debug, Clone, PartialEq)]
pub struct Value {
    pub kind: Kind,
    pub value: String,
    pub shown: String,
    pub anchors: Vec<String>,
}

impl Value {
    /// Whether `other` states this value, however written. Sizes agree within the gap between
    /// decimal and binary units ("500 MB" / "0.5 GB", "1 GB" / "1000 MB"): people write one for
    /// the other.
    pub fn agrees_with(&self, other: &Value) -> bool {
        if self.value == other.value {
            return true;
        }
        match (self.kind, other.kind) {
            (Kind::Size, Kind::Size) => {
                let (Ok(x), Ok(y)) = (self.value.parse::<f64>(), other.value.parse::<f64>()) else {
                    return false;
                };
                (x - y).abs() <= SIZE_UNITS_GAP * x.max(y)
            }
            _ => false,
        }
    }
}

/// How far apart a size written in decimal and in binary units can be (1000 / 1024 ≈ 2.4 %,
/// and 1000² / 1024² ≈ 4.6 % for the larger units: "1 GB" / "1000 MB" in one writer's MiB).
const SIZE_UNITS_GAP: f64 = 0.05;

const SMALL: &[&str] = &[
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];
const TENS: &[&str] = &[
    "", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
];

/// Whether a lowercase word says a value on its own: a number word, a day or a month
/// ("Releases go out every *Tuesday*").
pub fn names_a_value(w: &str) -> bool {
    const DAYS_AND_MONTHS: &[&str] = &[
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "january",
        "february",
        "march",
        "april",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "weekday",
        "weekdays",
        "weekend",
        "weekends",
    ];
    word_number(w).is_some()
        || matches!(w, "hundred" | "thousand" | "once" | "twice")
        || DAYS_AND_MONTHS.contains(&w)
        || seconds_in(w).is_some()
        || bytes_in(w).is_some()
}

fn word_number(w: &str) -> Option<f64> {
    if let Some(i) = SMALL.iter().position(|s| *s == w) {
        return Some(i as f64);
    }
    TENS.iter()
        .position(|s| !s.is_empty() && *s == w)
        .map(|i| (i * 10) as f64)
}

/// Seconds in a unit of time.
fn seconds_in(unit: &str) -> Option<f64> {
    Some(match unit {
        "ms" | "millisecond" | "milliseconds" => 0.001,
        "s" | "sec" | "secs" | "second" | "seconds" => 1.0,
        "m" | "min" | "mins" | "minute" | "minutes" => 60.0,
        "h" | "hr" | "hrs" | "hour" | "hours" => 3_600.0,
        "d" | "day" | "days" => 86_400.0,
        "w" | "wk" | "week" | "weeks" => 604_800.0,
        "month" | "months" => 2_592_000.0,
        "y" | "yr" | "year" | "years" => 31_536_000.0,
        _ => return None,
    })
}

/// Bytes in a unit of size.
fn bytes_in(unit: &str) -> Option<f64> {
    const K: f64 = 1024.0;
    Some(match unit {
        "b" | "bytes" => 1.0,
        "k" | "kb" | "kib" | "ki" | "kilobytes" => K,
        "mb" | "mib" | "mi" | "megabytes" | "megabyte" => K * K,
        "g" | "gb" | "gib" | "gi" | "gigabytes" | "gigabyte" => K * K * K,
        "tb" | "tib" | "ti" | "terabytes" => K * K * K * K,
        _ => return None,
    })
}

/// Periods written as words: "daily" is every 86 400 seconds.
fn period_word(w: &str) -> Option<f64> {
    Some(match w {
        "hourly" => 3_600.0,
        "daily" | "nightly" => 86_400.0,
        "weekly" => 604_800.0,
        "monthly" => 2_592_000.0,
        _ => return None,
    })
}

fn number_text(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

/// A token as whitespace gives it, with surrounding punctuation and backticks trimmed.
fn raw_tokens(text: &str) -> Vec<String> {
    let edge = |c: char| {
        matches!(
            c,
            '`' | '"' | '\'' | '(' | ')' | '[' | ']' | '{' | '}' | ',' | ';' | '!' | '?'
        )
    };
    text.split_whitespace()
        .map(|w| {
            w.trim_start_matches(edge)
                .trim_end_matches(|c: char| edge(c) || c == ':' || c == '.')
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

fn is_region(t: &str) -> bool {
    let parts: Vec<&str> = t.split('-').collect();
    let area = ["us", "eu", "ap", "sa", "ca", "me", "af", "il", "mx"];
    let direction = [
        "east",
        "west",
        "north",
        "south",
        "central",
        "northeast",
        "northwest",
        "southeast",
        "southwest",
    ];
    match parts.as_slice() {
        [a, d, n] => {
            area.contains(a) && direction.contains(d) && n.bytes().all(|b| b.is_ascii_digit())
        }
        // Google Cloud: `europe-west1`, `us-central1`.
        [a, dn] => {
            [
                "us",
                "europe",
                "asia",
                "australia",
                "northamerica",
                "southamerica",
            ]
            .contains(a)
                && direction
                    .iter()
                    .any(|d| dn.strip_prefix(d).is_some_and(|n| n.parse::<u8>().is_ok()))
        }
        _ => false,
    }
}

fn time_zone(t: &str) -> Option<String> {
    if matches!(t, "utc" | "gmt" | "etc/utc") {
        return Some("utc".to_string());
    }
    let (area, city) = t.split_once('/')?;
    let areas = [
        "america",
        "europe",
        "asia",
        "africa",
        "australia",
        "pacific",
        "atlantic",
        "indian",
    ];
    (areas.contains(&area)
        && !city.is_empty()
        && city.chars().all(|c| c.is_alphabetic() || c == '_'))
    .then(|| t.to_string())
}

fn is_place(t: &str) -> bool {
    if t.starts_with('#') || t.starts_with('@') && !t.contains('/') {
        return false;
    }
    let letters = t.chars().any(|c| c.is_alphabetic());
    let path = t.contains('/') && letters && !t.contains("://") && time_zone(t).is_none();
    let file_or_host = t.split_once('.').is_some_and(|(head, tail)| {
        !head.is_empty()
            && !tail.is_empty()
            && tail
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
            && tail.chars().any(|c| c.is_ascii_alphabetic())
            && !head.chars().all(|c| c.is_ascii_digit())
    });
    path || file_or_host
}

/// Every value of `text`, in order.
#[cfg(test)]
pub fn values(text: &str) -> Vec<Value> {
    let words = split(text);
    values_in(text, &words, &lexicon().find(&words))
}

/// Every value of `text`, whose words (as `split` gives them) and lexicon members are known.
pub fn values_in(text: &str, words: &[Word], found: &[Found]) -> Vec<Value> {
    let mut out = Vec::new();
    let toks = raw_tokens(text);
    // A name the lexicon knows (`node.js`, `fly.io`) is a tool, not a file or host.
    let named: std::collections::HashSet<&str> = found
        .iter()
        .flat_map(|f| words[f.at..f.at + f.len].iter().map(|w| w.text.as_str()))
        .collect();
    for (i, t) in toks.iter().enumerate() {
        let around: Vec<String> = [i.checked_sub(1), Some(i + 1)]
            .into_iter()
            .flatten()
            .filter_map(|k| toks.get(k))
            .filter(|w| w.chars().all(|c| c.is_alphabetic() || c == '-') && w.len() > 1)
            .cloned()
            .collect();
        let push = |out: &mut Vec<Value>, kind, value: String, anchors: Vec<String>| {
            out.push(Value {
                kind,
                value,
                shown: t.clone(),
                anchors,
            })
        };
        if is_region(t) {
            push(&mut out, Kind::Region, t.clone(), vec![]);
        } else if let Some(zone) = time_zone(t) {
            push(&mut out, Kind::TimeZone, zone, vec![]);
        } else if let Some((_, rest)) = t.split_once("://") {
            let host_port = rest.split('/').next().unwrap_or_default();
            let (host, port) = host_port.split_once(':').unwrap_or((host_port, ""));
            if port.parse::<u16>().is_ok() {
                push(&mut out, Kind::Port, port.to_string(), vec![]);
            }
            push(&mut out, Kind::Place, host.to_string(), around);
        } else if let Some((key, value)) = t.split_once('=').filter(|(k, v)| {
            !k.is_empty() && !v.is_empty() && k.chars().all(|c| c.is_alphanumeric() || c == '_')
        }) {
            push(
                &mut out,
                Kind::Setting,
                value.to_string(),
                vec![key.to_string()],
            );
        } else if let Some(port) = t
            .strip_prefix(':')
            .filter(|p| p.parse::<u16>().is_ok_and(|n| n > 0))
        {
            // ":3000", as people write a local port.
            push(&mut out, Kind::Port, port.to_string(), vec![]);
        } else if let Some((host, port)) = t
            .rsplit_once(':')
            .filter(|(h, p)| !h.is_empty() && p.parse::<u16>().is_ok() && !h.contains('/'))
        {
            push(&mut out, Kind::Port, port.to_string(), vec![]);
            push(&mut out, Kind::Place, host.to_string(), around);
        } else if is_place(t)
            && !t.chars().next().is_some_and(|c| c.is_ascii_digit())
            && !named.contains(t.as_str())
        {
            push(
                &mut out,
                Kind::Place,
                t.trim_end_matches('/').to_string(),
                around,
            );
        }
        if t == "team" {
            let owner = toks[..i]
                .iter()
                .rev()
                .take_while(|w| !is_stop_word(w) && w.chars().all(char::is_alphabetic))
                .take(2)
                .cloned()
                .collect::<Vec<_>>();
            if !owner.is_empty() {
                let name: Vec<String> = owner.into_iter().rev().collect();
                out.push(Value {
                    kind: Kind::Team,
                    value: name.join(" "),
                    shown: format!("{} team", name.join(" ")),
                    anchors: vec![],
                });
            }
        }
    }
    out.extend(numbers(words, found));
    out
}

/// Numbers, with their units or what they count.
fn numbers(said: &[Word], found: &[Found]) -> Vec<Value> {
    let lex = lexicon();
    let words: Vec<String> = said.iter().map(|w| w.text.clone()).collect();
    // The words that name a tool or language (`node.js` names node), and the name each gives.
    let mut tool_names: std::collections::HashMap<String, String> = found
        .iter()
        .filter(|f| {
            let c = &lex.categories[f.category].name;
            !matches!(c.as_str(), "environment" | "component" | "task")
        })
        .flat_map(|f| {
            said[f.at..f.at + f.len]
                .iter()
                .map(move |w| (w.text.clone(), f.member.clone()))
                .collect::<Vec<_>>()
        })
        .collect();
    for w in ["version", "edition"] {
        tool_names.insert(w.to_string(), String::new());
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        // "once a day", "twice a minute": a period.
        if let (Some(times), Some(unit)) = (
            match w.as_str() {
                "once" => Some(1.0),
                "twice" => Some(2.0),
                _ => None,
            },
            words
                .get(i + 1)
                .filter(|a| matches!(a.as_str(), "a" | "an" | "per" | "every"))
                .and_then(|_| words.get(i + 2))
                .and_then(|u| seconds_in(u)),
        ) {
            out.push(duration(unit / times, w));
            i += 3;
            continue;
        }
        // "half an hour", "half a day"; "an hour", "a week" after a word that takes a span
        // ("after an hour", "within a day").
        let half = w == "half";
        let span_article = matches!(w.as_str(), "a" | "an")
            && i.checked_sub(1).is_some_and(|k| {
                matches!(
                    words[k].as_str(),
                    "after" | "for" | "within" | "every" | "than" | "under" | "over" | "about"
                )
            });
        if half || span_article {
            let at = if half { i + 1 } else { i };
            let unit_at = at + 1;
            let article = words
                .get(at)
                .is_some_and(|a| matches!(a.as_str(), "a" | "an"));
            if let (true, Some(seconds)) = (article, words.get(unit_at).and_then(|u| seconds_in(u)))
            {
                let shown = words[i..=unit_at].join(" ");
                out.push(duration(if half { seconds / 2.0 } else { seconds }, &shown));
                i = unit_at + 1;
                continue;
            }
        }
        if let Some(period) = period_word(w) {
            out.push(duration(period, w));
            i += 1;
            continue;
        }
        let Some((n, glued, used)) = parse_number(&words, i) else {
            i += 1;
            continue;
        };
        let shown = words[i..i + used].join(" ");
        let next = words.get(i + used).map(String::as_str).unwrap_or("");
        let unit = glued.as_deref().unwrap_or(next);
        let unit_used = usize::from(glued.is_none() && !unit.is_empty());
        let before = i.checked_sub(1).map(|k| words[k].as_str()).unwrap_or("");
        // A bare number set on a key that names its unit: `retention_in_days = 7`,
        // `retention-days: 7`, `timeout_ms=5000`.
        let bare = (glued.is_none() && (next.is_empty() || is_stop_word(next)))
            || said[i + used - 1].ends_clause;
        let key_unit = i
            .checked_sub(1)
            .map(|k| &said[k])
            .filter(|w| bare && (w.ends_clause || w.text.contains('_')))
            .and_then(|w| w.text.rsplit('_').next());
        if let Some(s) = key_unit.and_then(seconds_in) {
            out.push(duration(n * s, &format!("{before} {shown}")));
            i += used;
            continue;
        }
        if let Some(s) = seconds_in(unit) {
            out.push(duration(n * s, &format!("{shown} {unit}")));
            i += used + unit_used;
            continue;
        }
        if let Some(b) = bytes_in(unit) {
            out.push(Value {
                kind: Kind::Size,
                value: number_text(n * b),
                shown: format!("{shown} {unit}"),
                anchors: vec![],
            });
            i += used + unit_used;
            continue;
        }
        if unit == "percent" {
            out.push(Value {
                kind: Kind::Percent,
                value: number_text(n),
                shown: format!("{}%", number_text(n)),
                anchors: vec![],
            });
            i += used + unit_used;
            continue;
        }
        if matches!(before, "port" | "ports") {
            out.push(Value {
                kind: Kind::Port,
                value: number_text(n),
                shown,
                anchors: vec![],
            });
            i += used;
            continue;
        }
        let dotted = words[i].contains('.') && words[i].chars().any(|c| c.is_ascii_digit());
        // The tool or language a version follows, within three words ("Node.js version 20").
        let tool = (i.saturating_sub(3)..i)
            .rev()
            .filter_map(|k| tool_names.get(&words[k]))
            .find(|name| !name.is_empty());
        let after_tool = (i.saturating_sub(3)..i).any(|k| tool_names.contains_key(&words[k]));
        // A fraction no tool or version word comes before is a share: "a ratio of 0.85" is
        // 85%, as "0.999" is the 99.9% an SLO states.
        if dotted && !after_tool && glued.is_none() && n > 0.0 && n < 1.0 {
            out.push(Value {
                kind: Kind::Percent,
                value: number_text((n * 100_000.0).round() / 1000.0),
                shown,
                anchors: vec![],
            });
            i += used;
            continue;
        }
        if dotted || (after_tool && glued.is_none()) {
            out.push(Value {
                kind: Kind::Version,
                value: if dotted {
                    // "16.0" and "16", "3.12.0" and "3.12": one version.
                    let mut v = words[i].trim_end_matches(".x");
                    while let Some(shorter) = v.strip_suffix(".0") {
                        v = shorter;
                    }
                    v.to_string()
                } else {
                    number_text(n)
                },
                shown,
                anchors: tool.map(|t| vec![t.clone()]).unwrap_or_default(),
            });
            i += used;
            continue;
        }
        // What it counts: the nouns right after it ("8 worker replicas", "4 spaces").
        let counted: Vec<String> = words[i + used..]
            .iter()
            .take(2)
            .take_while(|w| w.chars().all(char::is_alphabetic) && !is_stop_word(w))
            .map(|w| stem(w))
            .collect();
        if !counted.is_empty() && glued.is_none() {
            out.push(Value {
                kind: Kind::Count,
                value: number_text(n),
                shown: format!(
                    "{shown} {}",
                    words[i + used..i + used + counted.len()].join(" ")
                ),
                anchors: counted,
            });
        } else {
            let anchor = words[..i]
                .iter()
                .rev()
                .find(|w| w.chars().any(char::is_alphabetic) && !is_stop_word(w))
                .map(|w| stem(w));
            out.push(Value {
                kind: Kind::Number,
                value: format!("{}{}", number_text(n), glued.unwrap_or_default()),
                shown,
                anchors: anchor.into_iter().collect(),
            });
        }
        i += used;
    }
    out
}

fn duration(seconds: f64, shown: &str) -> Value {
    Value {
        kind: Kind::Duration,
        value: number_text((seconds * 1000.0).round() / 1000.0),
        shown: shown.to_string(),
        anchors: vec![],
    }
}

/// A number at `words[i]`: digits (with a unit glued on: `30s`, `1gi`), a version (`3.12`,
/// `9.x`) or number words ("twenty one", "one hundred"); its value, glued unit, and how many
/// words it took.
fn parse_number(words: &[String], i: usize) -> Option<(f64, Option<String>, usize)> {
    if let Some((n, used)) = parse_word_number(words, i) {
        return Some((n, None, used));
    }
    let w = words[i].as_str();
    let digits = w
        .char_indices()
        .take_while(|(_, c)| c.is_ascii_digit() || *c == '.')
        .last()
        .map(|(k, c)| k + c.len_utf8())?;
    let (num, rest) = w.split_at(digits);
    if let (Ok(n), false) = (num.trim_end_matches('.').parse::<f64>(), num.is_empty()) {
        if rest.is_empty() {
            return Some((n, None, 1));
        }
        if rest == "x" && num.ends_with('.') {
            return Some((n, None, 1));
        }
        if rest.chars().all(char::is_alphabetic) && rest.len() <= 3 {
            return Some((n, Some(rest.to_string()), 1));
        }
        return None;
    }
    None
}

/// Number words from `words[i]`: "twenty one", "one hundred", "ten".
fn parse_word_number(words: &[String], i: usize) -> Option<(f64, usize)> {
    let first = word_number(&words[i])?;
    let mut n = first;
    let mut used = 1;
    if first >= 20.0 {
        if let Some(unit) = words
            .get(i + 1)
            .and_then(|w| word_number(w))
            .filter(|u| *u < 10.0)
        {
            n += unit;
            used += 1;
        }
    }
    if words.get(i + used).is_some_and(|w| w == "hundred") {
        n *= 100.0;
        used += 1;
    } else if words.get(i + used).is_some_and(|w| w == "thousand") {
        n *= 1000.0;
        used += 1;
    }
    Some((n, used))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(text: &str, kind: Kind) -> Vec<String> {
        values(text)
            .into_iter()
            .filter(|v| v.kind == kind)
            .map(|v| v.value)
            .collect()
    }

    #[test]
    fn durations_in_any_unit_are_one_value() {
        assert_eq!(
            of("jobs are killed after half an hour", Kind::Duration),
            of("a timeout of 30 minutes", Kind::Duration)
        );
        assert_eq!(
            of("tokens expire after an hour", Kind::Duration),
            of("tokens expire after 60 minutes", Kind::Duration)
        );
        assert!(of("600 requests a minute", Kind::Duration).is_empty());
        assert_eq!(
            of("the alert fires at a usage ratio of 0.85", Kind::Percent),
            of("alert when disk usage passes 85%", Kind::Percent)
        );
        assert_eq!(of("Python 0.9 is old", Kind::Percent), Vec::<String>::new());
        assert_eq!(of("the API binds to :3000 locally", Kind::Port), ["3000"]);
        assert_eq!(
            of("kept for 14 days", Kind::Duration),
            of("kept two weeks", Kind::Duration)
        );
        assert_eq!(
            of("after 1 hour", Kind::Duration),
            of("TTL of 3600 seconds", Kind::Duration)
        );
        assert_eq!(
            of("after 30 seconds", Kind::Duration),
            of("is 30000 ms", Kind::Duration)
        );
        assert_eq!(
            of("every 24 hours", Kind::Duration),
            of("once a day", Kind::Duration)
        );
        assert_eq!(
            of("every 30 seconds", Kind::Duration),
            of("twice a minute", Kind::Duration)
        );
        assert_eq!(of("timeout is 5s", Kind::Duration), ["5"]);
    }

    #[test]
    fn numbers_as_words_sizes_and_percentages_are_normalised() {
        assert_eq!(of("at least eighty percent", Kind::Percent), ["80"]);
        assert_eq!(of("must be >= 80%", Kind::Percent), ["80"]);
        assert_eq!(
            of("capped at 10 MB", Kind::Size),
            of("ten megabytes", Kind::Size)
        );
        assert_eq!(
            of("a limit of 512 MiB", Kind::Size),
            of("a 0.5 GiB limit", Kind::Size)
        );
        assert_eq!(of("runs on JDK twenty-one", Kind::Version), ["21"]);
        assert_eq!(
            of("targets iOS 16.0", Kind::Version),
            of("targets iOS 16", Kind::Version)
        );
        assert_eq!(
            of("`retention_in_days = 7` on all log groups", Kind::Duration),
            of("kept for one week", Kind::Duration)
        );
        assert_eq!(
            of("uploads use `retention-days: 7`.", Kind::Duration),
            of("kept for 7 days", Kind::Duration)
        );
        assert!(of("every 2 days: 7 jobs run", Kind::Duration).len() == 1);
        assert_eq!(of("retried three times", Kind::Count), ["3"]);
        assert_eq!(of("up to one hundred columns", Kind::Count), ["100"]);
    }

    #[test]
    fn versions_follow_their_tool_and_counts_their_noun() {
        let v = values("`.nvmrc` pins Node.js 22 as the runtime");
        let version = v.iter().find(|v| v.kind == Kind::Version).unwrap();
        assert_eq!(
            (version.value.as_str(), version.anchors.as_slice()),
            ("22", &["node".to_string()][..])
        );
        let v = values("a fixed count of 8 worker replicas");
        let count = v.iter().find(|v| v.kind == Kind::Count).unwrap();
        assert_eq!(count.value, "8");
        assert!(count.anchors.contains(&"replica".to_string()));
    }

    #[test]
    fn ports_regions_zones_places_and_teams_are_values() {
        assert_eq!(of("runs on port 3000", Kind::Port), ["3000"]);
        assert_eq!(
            of("Open http://localhost:5173 to reach it", Kind::Port),
            ["5173"]
        );
        assert_eq!(
            of("Production runs in us-east-1.", Kind::Region),
            ["us-east-1"]
        );
        assert_eq!(
            of("uses America/New_York, so", Kind::TimeZone),
            ["america/new_york"]
        );
        assert_eq!(of("interpreted in UTC.", Kind::TimeZone), ["utc"]);
        assert_eq!(
            of("reads `~/.config/acme/config.toml`.", Kind::Place),
            ["~/.config/acme/config.toml"]
        );
        assert_eq!(of("owned by the Identity team.", Kind::Team), ["identity"]);
        assert_eq!(of("Set LOG_FORMAT=json", Kind::Setting), ["json"]);
    }
}
