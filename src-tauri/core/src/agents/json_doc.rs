//! Agents' JSON files, read and written back in their own layout.
//!
//! Owns: parsing with key order kept (serde_json `preserve_order`), detecting the file's
//! indentation and final newline, and rendering an edited value in that same style, so keys
//! Ambry did not touch come back byte for byte when the file was in the usual
//! `JSON.stringify(value, null, indent)` layout.
//! Deliberately does not: know which keys mean what (see `hooks_json` and `claude_config`).

use serde::Serialize;
use serde_json::{Map, Value};

use super::AgentError;

/// A parsed JSON object file and the layout to write it back in.
#[derive(Debug, Clone)]
pub struct JsonDoc {
    pub root: Map<String, Value>,
    /// `None`: the file was on one line (written back compact).
    indent: Option<String>,
    final_newline: bool,
}

impl JsonDoc {
    /// An absent file is an empty object in the usual two-space layout.
    pub fn parse(path: &std::path::Path, text: Option<&str>) -> Result<JsonDoc, AgentError> {
        let Some(text) = text else {
            return Ok(JsonDoc {
                root: Map::new(),
                indent: Some("  ".into()),
                final_newline: true,
            });
        };
        let unparseable = |reason: String| AgentError::Unparseable {
            path: path.display().to_string(),
            reason,
        };
        if text.trim().is_empty() {
            return Ok(JsonDoc {
                root: Map::new(),
                indent: Some("  ".into()),
                final_newline: true,
            });
        }
        let value: Value = serde_json::from_str(text).map_err(|e| unparseable(e.to_string()))?;
        let Value::Object(root) = value else {
            return Err(unparseable("the top level is not a JSON object".into()));
        };
        Ok(JsonDoc {
            root,
            indent: detect_indent(text),
            final_newline: text.ends_with('\n'),
        })
    }

    pub fn render(&self) -> String {
        let mut out = match &self.indent {
            None => serde_json::to_string(&self.root).expect("a JSON map always serializes"),
            Some(indent) => {
                let mut buf = Vec::new();
                let formatter = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
                let mut ser = serde_json::Serializer::with_formatter(&mut buf, formatter);
                self.root
                    .serialize(&mut ser)
                    .expect("a JSON map always serializes");
                String::from_utf8(buf).expect("serde_json writes UTF-8")
            }
        };
        if self.final_newline {
            out.push('\n');
        }
        out
    }
}

/// The leading whitespace of the first indented line; `None` for a one-line file.
fn detect_indent(text: &str) -> Option<String> {
    let body = text.trim();
    if !body.contains('\n') {
        return None;
    }
    body.lines()
        .skip(1)
        .map(|line| &line[..line.len() - line.trim_start().len()])
        .find(|ws| !ws.is_empty())
        .map(str::to_string)
        .or(Some("  ".into()))
}

/// Describes a JSON value's kind for an error message.
pub fn kind_of(value: &Value) -> String {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn round_trips_the_usual_layouts() {
        for text in [
            "{\n  \"b\": 1,\n  \"a\": [\n    \"x\",\n    {}\n  ],\n  \"c\": {\n    \"z\": null\n  }\n}\n",
            "{\n    \"z\": true,\n    \"a\": \"é\"\n}",
            "{\n\t\"k\": []\n}\n",
            "{\"z\":1,\"a\":2}",
        ] {
            let doc = JsonDoc::parse(Path::new("f.json"), Some(text)).unwrap();
            assert_eq!(doc.render(), text);
        }
    }

    #[test]
    fn refuses_what_is_not_an_object() {
        for text in ["[1]", "{\"a\": ", "// comment\n{}"] {
            let err = JsonDoc::parse(Path::new("f.json"), Some(text)).unwrap_err();
            assert!(
                matches!(err, AgentError::Unparseable { .. }),
                "{text}: {err}"
            );
        }
    }
}
