//! One YAML scalar of frontmatter: reading a value as written (plain, single- or double-quoted)
//! and writing one back so it reads the same.
//!
//! Owns: the quoting rules every frontmatter key shares (the fields, the lifecycle keys, a rule).
//! Deliberately does not: know any key, or split a document into lines.

pub fn unquote(value: &str) -> Result<String, String> {
    let v = value.trim();
    if let Some(inner) = v.strip_prefix('"') {
        let inner = inner.strip_suffix('"').ok_or("unterminated double quote")?;
        let mut out = String::with_capacity(inner.len());
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c == '\\' {
                match chars.next() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some(other) => out.push(other),
                    None => return Err("dangling backslash".into()),
                }
            } else {
                out.push(c);
            }
        }
        Ok(out)
    } else if let Some(inner) = v.strip_prefix('\'') {
        let inner = inner
            .strip_suffix('\'')
            .ok_or("unterminated single quote")?;
        Ok(inner.replace("''", "'"))
    } else {
        // Plain scalars end at a ` #` comment, as in YAML.
        Ok(v.split(" #").next().unwrap_or("").trim_end().to_string())
    }
}

pub fn quote_if_needed(value: &str) -> String {
    let needs = value.is_empty()
        || value != value.trim()
        || value.contains(": ")
        || value.contains(" #")
        || value.ends_with(':')
        || value.contains(['\n', '\r', '\t', '"', ','])
        || value.starts_with([
            '[', ']', '{', '}', '\'', '#', '&', '*', '!', '|', '>', '%', '@', '`', '-', '?',
        ]);
    if !needs {
        return value.to_string();
    }
    let escaped = value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
        .replace('\t', "\\t");
    format!("\"{escaped}\"")
}
