//! The contract between the shell and the UI: `ui/ipc.d.ts`, generated from Rust.
//!
//! Owns: reading every command `lib.rs` registers (its Rust signature, parsed with `syn`),
//! turning each argument into the name and TypeScript type the UI must send (Tauri's camelCase
//! names; the Rust types through `ts-rs`), and the test that fails while `ui/ipc.d.ts` differs
//! from what the Rust says (`AMBRY_WRITE_IPC=1` rewrites it). `tsc --checkJs` then checks every
//! `call(…)` in `ui/` against it (scripts/check-ui.sh), so a renamed or retyped argument fails
//! the suite instead of a click.
//! Deliberately does not: type what commands return (the UI reads results loosely), or run at
//! build time (the file is checked in, so the UI needs no build step).

use std::collections::BTreeMap;
use std::path::PathBuf;

use syn::{FnArg, GenericArgument, Item, Pat, PathArguments, Type};
use ts_rs::{Config, TS};

/// Commands of the plugins the shell registers that the UI calls, with the arguments their
/// documentation gives (they have no Rust signature in this repository to read).
const PLUGIN_COMMANDS: &[(&str, &str)] =
    &[("plugin:clipboard-manager|write_text", "{ text: string }")];

/// Arguments Tauri fills in itself: never sent by the UI.
const INJECTED: &[&str] = &["AppHandle", "State", "Window", "WebviewWindow", "Webview"];

/// Every type a command takes, by the name its signature uses (an alias such as `SourceKind`
/// included), as its TypeScript name and declaration.
fn declarations(cfg: &Config) -> BTreeMap<String, (String, String)> {
    macro_rules! decls {
        ($($ty:ty),* $(,)?) => {
            BTreeMap::from([$((
                stringify!($ty).rsplit("::").next().unwrap().trim().to_string(),
                (<$ty as TS>::name(cfg), <$ty as TS>::decl(cfg)),
            )),*])
        };
    }
    decls![
        ambry_core::Scope,
        ambry_core::MemoryDraft,
        ambry_core::Enforce,
        ambry_core::RuleStatus,
        ambry_core::RuleEdit,
        ambry_core::SourceKind,
        ambry_core::CaseSpec,
        ambry_core::InstructionKind,
        ambry_core::Edits,
        ambry_core::ForgottenVersion,
        ambry_core::Replaced,
        crate::commands::Location,
        crate::commands::MemoryRef,
        crate::commands::review::ReviewRef,
        crate::commands::review::TextPair,
        crate::commands::compose::CaseRef,
        crate::commands::search::SearchIn,
    ]
}

/// The repository: where cargo runs the test from (a shared build cache may hold a binary
/// built in another checkout), else where it was built.
fn repository() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| env!("CARGO_MANIFEST_DIR").into(), Into::into)
}

fn src_tauri() -> PathBuf {
    repository().join("src-tauri")
}

/// The commands `lib.rs` registers, as `module::name` paths, in order.
fn registered() -> Vec<(String, String)> {
    let lib = std::fs::read_to_string(src_tauri().join("lib.rs")).unwrap();
    let start = lib
        .find("generate_handler![")
        .expect("lib.rs registers commands");
    let list = &lib[start + "generate_handler![".len()..];
    let list = &list[..list.find(']').unwrap()];
    list.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|path| {
            let parts: Vec<&str> = path.split("::").collect();
            let name = parts.last().unwrap().to_string();
            // commands::memories::x → src-tauri/commands/memories.rs; tray::x → src-tauri/tray.rs
            let module = parts[..parts.len() - 1].join("/");
            (module, name)
        })
        .collect()
}

/// The parsed functions of one module file.
fn functions(module: &str) -> Vec<syn::ItemFn> {
    let file = src_tauri().join(format!("{module}.rs"));
    let file = if file.is_file() {
        file
    } else {
        src_tauri().join(module).join("mod.rs")
    };
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let parsed = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    parsed
        .items
        .into_iter()
        .filter_map(|item| match item {
            Item::Fn(f) => Some(f),
            _ => None,
        })
        .collect()
}

/// Tauri's name for an argument: `dry_run` is sent as `dryRun`.
fn camel(name: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn generic_args(segment: &syn::PathSegment) -> Vec<&Type> {
    match &segment.arguments {
        PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter_map(|g| match g {
                GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The TypeScript type of a Rust argument type; named types must be declared (`known`).
fn ts_type(ty: &Type, known: &BTreeMap<String, (String, String)>) -> Result<String, String> {
    let Type::Path(path) = ty else {
        return Err(format!(
            "an argument of type {} (only named types are sent)",
            quote(ty)
        ));
    };
    let segment = path.path.segments.last().unwrap();
    let name = segment.ident.to_string();
    let args = generic_args(segment);
    Ok(match name.as_str() {
        "String" | "PathBuf" | "NaiveDate" | "DateTime" => "string".into(),
        "bool" => "boolean".into(),
        "u8" | "u16" | "u32" | "u64" | "usize" | "i32" | "i64" | "f32" | "f64" => "number".into(),
        "Value" => "unknown".into(),
        "Vec" => format!("Array<{}>", ts_type(args[0], known)?),
        "Option" => format!("{} | null", ts_type(args[0], known)?),
        other if known.contains_key(other) => known[other].0.clone(),
        other => {
            return Err(format!(
                "type {other} is not declared: derive ts_rs::TS on it and list it in `declarations`"
            ))
        }
    })
}

fn quote(ty: &Type) -> String {
    use quote::ToTokens;
    ty.to_token_stream().to_string()
}

fn is_option(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Option"))
}

fn injected(ty: &Type) -> bool {
    match ty {
        Type::Path(p) => p
            .path
            .segments
            .last()
            .is_some_and(|s| INJECTED.contains(&s.ident.to_string().as_str())),
        Type::Reference(r) => injected(&r.elem),
        _ => false,
    }
}

/// `ui/ipc.d.ts` as the Rust says it should read.
fn generate() -> String {
    let cfg = Config::new();
    let known = declarations(&cfg);
    let mut commands = String::new();
    let mut problems = Vec::new();
    for (module, name) in registered() {
        let functions = functions(&module);
        let Some(f) = functions.iter().find(|f| f.sig.ident == name) else {
            problems.push(format!("{module}::{name} is registered but not found"));
            continue;
        };
        let mut fields = Vec::new();
        for input in &f.sig.inputs {
            let FnArg::Typed(arg) = input else { continue };
            if injected(&arg.ty) {
                continue;
            }
            let Pat::Ident(ident) = &*arg.pat else {
                problems.push(format!("{name}: an argument that is not a plain name"));
                continue;
            };
            let field = camel(ident.ident.to_string().trim_start_matches("r#"));
            match ts_type(&arg.ty, &known) {
                // An absent Option is `None`: the UI may leave it out.
                Ok(ts) if is_option(&arg.ty) => fields.push(format!("{field}?: {ts}")),
                Ok(ts) => fields.push(format!("{field}: {ts}")),
                Err(why) => problems.push(format!("{name}.{field}: {why}")),
            }
        }
        let args = if fields.is_empty() {
            "Record<string, never>".to_string()
        } else {
            format!("{{ {} }}", fields.join("; "))
        };
        commands.push_str(&format!("  {name}: {args};\n"));
    }
    for (name, args) in PLUGIN_COMMANDS {
        commands.push_str(&format!("  \"{name}\": {args};\n"));
    }
    assert!(
        problems.is_empty(),
        "the IPC contract cannot be written:\n{}",
        problems.join("\n")
    );
    let mut out = String::from(
        "// The arguments of every command the shell registers, generated from their Rust\n\
         // signatures and types (src-tauri/ipc_contract.rs; `AMBRY_WRITE_IPC=1 cargo test -p\n\
         // ambry-app ipc_contract` rewrites it). `tsc` checks every `call(…)` in ui/ against it.\n\
         // Do not edit: change the Rust side.\n\n",
    );
    let decls: BTreeMap<&String, &String> = known.values().map(|(n, d)| (n, d)).collect();
    for decl in decls.values() {
        out.push_str(&format!("export {decl}\n"));
    }
    out.push_str("\nexport interface CommandArgs {\n");
    out.push_str(&commands);
    out.push_str("}\n");
    out
}

#[test]
fn the_ui_contract_is_what_the_rust_says() {
    let path = repository().join("ui/ipc.d.ts");
    let want = generate();
    if std::env::var_os("AMBRY_WRITE_IPC").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "ui/ipc.d.ts is not what the commands take; rewrite it with \
         `AMBRY_WRITE_IPC=1 cargo test -p ambry-app ipc_contract` and check the UI with \
         scripts/check-ui.sh"
    );
}

#[test]
fn argument_names_are_sent_as_tauri_names_them() {
    assert_eq!(camel("dry_run"), "dryRun");
    assert_eq!(camel("session_id"), "sessionId");
    assert_eq!(camel("limit"), "limit");
}
