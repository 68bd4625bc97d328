#!/usr/bin/env python3
"""Checks the shape of the logic's crates (DESIGN §1):

1. The layers go one way. The crates, lowest first, are LAYERS below; each one's
   `[dependencies]` names only Ambry crates before it, and the front ends (the CLI and the app)
   name only `ambry-core`, the façade. (Cargo refuses a cycle between crates; this refuses a
   layer reaching up or a front end reaching past the façade, which Cargo would allow.)
2. No import cycle between the files of one crate. Every `crate::…`, `super::…`, `self::…` path
   in a file's non-test code is resolved to the file that defines the item (a `pub use`
   re-export in a `mod.rs` or `lib.rs` is followed to its source), and the file graph of each
   crate must be acyclic.
3. No front end imports a core module other than the public surface: in the CLI, the app and
   the CLI's MCP server, every `ambry_core::` path names an item `lib.rs` re-exports
   (`ambry_core::Workspace`, never `ambry_core::workspace::…`), and no layer crate is named.

Usage: scripts/check-core-imports.py [--layers] [--cycles] [--facade]   (all when none is given)
Exit status 1 and a list of the offending dependencies, cycles or paths when a rule is broken.
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
CORE_ROOT = os.path.join(ROOT, "src-tauri", "core", "src")
# The crates of the logic, lowest layer first: (package, source directory).
LAYERS = [
    ("ambry-store", os.path.join(ROOT, "src-tauri", "crates", "store", "src")),
    ("ambry-rank", os.path.join(ROOT, "src-tauri", "crates", "rank", "src")),
    ("ambry-sessions", os.path.join(ROOT, "src-tauri", "crates", "sessions", "src")),
    ("ambry-compose", os.path.join(ROOT, "src-tauri", "crates", "compose", "src")),
    ("ambry-sync", os.path.join(ROOT, "src-tauri", "crates", "sync", "src")),
    ("ambry-lifecycle", os.path.join(ROOT, "src-tauri", "crates", "lifecycle", "src")),
    ("ambry-core", CORE_ROOT),
]
FRONT_END_MANIFESTS = [
    os.path.join(ROOT, "src-tauri", "cli", "Cargo.toml"),
    os.path.join(ROOT, "Cargo.toml"),
]
# The crate whose files the resolution functions below read (set per crate by `main`).
CORE = CORE_ROOT
FRONT_ENDS = [
    os.path.join(ROOT, "src-tauri", "cli", "src"),
    os.path.join(ROOT, "src-tauri", "commands"),
] + [
    os.path.join(ROOT, "src-tauri", f)
    for f in os.listdir(os.path.join(ROOT, "src-tauri"))
    if f.endswith(".rs")
]


def module_file(segs):
    """The file of module `segs` (crate-relative), or None."""
    if not segs:
        return os.path.join(CORE, "lib.rs")
    base = os.path.join(CORE, *segs)
    for f in (base + ".rs", os.path.join(base, "mod.rs")):
        if os.path.isfile(f):
            return f
    return None


def module_of(path):
    rel = os.path.relpath(path, CORE)[:-3].split(os.sep)
    if rel[-1] in ("mod", "lib"):
        rel = rel[:-1]
    return rel


def strip_tests(text):
    """Drops comments and `#[cfg(test)]` items (a test module imports its parent, which
    declares it: that is not a cycle of the product's code)."""
    text = re.sub(r"//[^\n]*", "", text)
    out, i = [], 0
    for m in re.finditer(r"#\[cfg\(test\)\]", text):
        if m.start() < i:
            continue
        out.append(text[i : m.start()])
        j = m.end()
        # skip the item: up to its `;` or its balanced `{ … }`
        depth = 0
        while j < len(text):
            c = text[j]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    j += 1
                    break
            elif c == ";" and depth == 0:
                j += 1
                break
            j += 1
        i = j
    out.append(text[i:])
    return "".join(out)


def expand_use_tree(tree):
    """`a::{b, c::{d, e}}` -> [[a,b],[a,c,d],[a,c,e]]."""
    tree = re.sub(r"\s+as\s+", "@as@", tree)
    tree = re.sub(r"\s+", "", tree)

    def parse(s):
        # returns list of paths for s
        depth, k = 0, None
        for idx, ch in enumerate(s):
            if ch == "{":
                if depth == 0 and k is None:
                    k = idx
                depth += 1
            elif ch == "}":
                depth -= 1
        if k is None:
            return [s]
        prefix = s[:k].rstrip(":")
        inner = s[k + 1 : s.rindex("}")]
        parts, depth, start = [], 0, 0
        for idx, ch in enumerate(inner):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                parts.append(inner[start:idx])
                start = idx + 1
        parts.append(inner[start:])
        paths = []
        for p in parts:
            if not p:
                continue
            for sub in parse(p):
                paths.append(prefix + "::" + sub if prefix else sub)
        return paths

    result = []
    for p in parse(tree):
        result.append([s for s in p.split("::") if s])
    return result


USE_RE = re.compile(r"\b(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);")
INLINE_RE = re.compile(r"\b(?:crate|super|self)(?:::\w+)+")


def strip_alias(seg):
    return seg.split("@as@")[0]


def alias_of(seg):
    return seg.split("@as@")[-1]


def children(mod_segs):
    f = module_file(mod_segs)
    if f is None:
        return set()
    d = os.path.dirname(f) if f.endswith(("mod.rs", "lib.rs")) else f[:-3]
    names = set()
    if os.path.isdir(d):
        for n in os.listdir(d):
            if n.endswith(".rs") and n not in ("mod.rs", "lib.rs"):
                names.add(n[:-3])
            elif os.path.isdir(os.path.join(d, n)):
                names.add(n)
    return names


def absolute(mod_segs, segs):
    """A path written in module `mod_segs`, made crate-relative; None for other crates."""
    segs = list(segs)
    if not segs:
        return None
    if segs[0] == "crate":
        return segs[1:]
    cur = list(mod_segs)
    if segs[0] == "self":
        segs = segs[1:]
    elif segs[0] == "super":
        while segs and segs[0] == "super":
            cur = cur[:-1]
            segs = segs[1:]
    elif segs[0] not in children(mod_segs):
        return None
    return cur + segs


REEXPORTS = {}


def reexports(mod_segs):
    """name -> crate-relative path of the items module `mod_segs` re-exports with `pub use`."""
    key = tuple(mod_segs)
    if key in REEXPORTS:
        return REEXPORTS[key]
    REEXPORTS[key] = {}
    f = module_file(mod_segs)
    table = {}
    if f:
        text = strip_tests(open(f).read())
        for m in USE_RE.finditer(text):
            if not m.group(1):
                continue
            for p in expand_use_tree(m.group(2)):
                name = alias_of(p[-1])
                p = [strip_alias(s) for s in p]
                a = absolute(mod_segs, p)
                if a is None:
                    continue
                table[name if name != "self" else a[-2]] = a if name != "self" else a[:-1]
    REEXPORTS[key] = table
    return table


def defining_file(path, seen=None):
    """The core file that defines the item at crate-relative `path`."""
    seen = seen or set()
    if tuple(path) in seen:
        return None
    seen.add(tuple(path))
    # longest module prefix
    for k in range(len(path), -1, -1):
        f = module_file(path[:k])
        if f is None:
            continue
        rest = path[k:]
        if not rest or rest == ["*"]:
            return f
        target = reexports(path[:k]).get(rest[0])
        if target is not None:
            return defining_file(target + rest[1:], seen) or f
        return f
    return None


def core_graph():
    graph = {}
    for dirpath, _, files in os.walk(CORE):
        for n in files:
            if not n.endswith(".rs"):
                continue
            f = os.path.join(dirpath, n)
            mod = module_of(f)
            text = strip_tests(open(f).read())
            edges = set()
            paths = []
            for m in USE_RE.finditer(text):
                if m.group(1) and f.endswith(("mod.rs", "lib.rs")):
                    # a re-export is followed through, not an edge of its own
                    continue
                paths += expand_use_tree(m.group(2))
            # `pub(in crate::x)` names where an item is visible, not something it uses
            body = re.sub(r"\bpub\s*\(\s*in\s+[^)]*\)", "pub", USE_RE.sub("", text))
            paths += [m.group(0).split("::") for m in INLINE_RE.finditer(body)]
            for p in paths:
                p = [strip_alias(s) for s in p]
                a = absolute(mod, p)
                if a is None:
                    continue
                target = defining_file(a)
                if target and target != f:
                    edges.add(target)
            graph[f] = edges
    return graph


def cycles(graph):
    """Strongly connected components with more than one file (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    for v in list(graph):
        if v not in index:
            visit(v)
    return out


def ambry_dependencies(manifest):
    """The Ambry crates `manifest`'s `[dependencies]` table names (not dev or build ones)."""
    deps, table = [], None
    for line in open(manifest):
        line = line.strip()
        if line.startswith("["):
            table = line.strip("[]")
            continue
        m = re.match(r"(ambry-[a-z]+)\s*=", line)
        if m and table == "dependencies":
            deps.append(m.group(1))
    return deps


def layer_violations():
    bad = []
    order = [name for name, _ in LAYERS]
    for i, (name, src) in enumerate(LAYERS):
        for dep in ambry_dependencies(os.path.join(os.path.dirname(src), "Cargo.toml")):
            if dep not in order[:i]:
                bad.append(f"{name} depends on {dep}, which is not a layer below it")
    for manifest in FRONT_END_MANIFESTS:
        for dep in ambry_dependencies(manifest):
            if dep != "ambry-core":
                bad.append(f"{os.path.relpath(manifest, ROOT)} depends on {dep}: front ends use ambry-core only")
    return bad


def public_surface():
    """Names `lib.rs` offers a front end: its `pub use` items and its `pub mod`s."""
    text = strip_tests(open(os.path.join(CORE_ROOT, "lib.rs")).read())
    names = set(reexports([]).keys())
    # and what it re-exports from the layers below
    for m in USE_RE.finditer(text):
        if m.group(1):
            for path in expand_use_tree(m.group(2)):
                if path[0].startswith("ambry_"):
                    name = alias_of(path[-1])
                    names.add(path[-2] if name == "self" else name)
    names |= set(re.findall(r"^\s*pub mod (\w+)", text, re.M))
    return names, set(re.findall(r"^\s*pub mod (\w+)", text, re.M))


def facade_violations():
    names, pub_mods = public_surface()
    bad = []
    files = []
    for d in FRONT_ENDS:
        if os.path.isfile(d):
            files.append(d)
            continue
        for dirpath, _, fs in os.walk(d):
            files += [os.path.join(dirpath, n) for n in fs if n.endswith(".rs")]
    for f in sorted(files):
        text = re.sub(r"//[^\n]*", "", open(f).read())
        paths = []
        for m in re.finditer(r"\bambry_(store|rank|sessions|compose|sync|lifecycle)::", text):
            bad.append((os.path.relpath(f, ROOT), m.group(0) + "… (a layer below the façade)"))
        for m in re.finditer(r"\buse\s+ambry_core\s*::\s*([^;]+);", text):
            paths += expand_use_tree(m.group(1))
        body = re.sub(r"\buse\s+ambry_core[^;]*;", "", text)
        paths += [m.group(1).split("::") for m in re.finditer(r"\bambry_core::((?:\w+)(?:::\w+)*)", body)]
        for p in paths:
            first = strip_alias(p[0])
            if first not in names:
                bad.append((os.path.relpath(f, ROOT), "ambry_core::" + "::".join(p)))
            elif first in pub_mods and first not in ALLOWED_MODULES:
                bad.append((os.path.relpath(f, ROOT), "ambry_core::" + "::".join(p)))
    return bad


# Cycles tolerated for now: none. Any cycle fails.
KNOWN_CYCLES = []


# Public modules that are part of the surface on purpose (none: everything a front end needs is
# re-exported at the crate root).
ALLOWED_MODULES = set()


def main():
    global CORE
    args = set(sys.argv[1:]) or {"--layers", "--cycles", "--facade"}
    failed = False
    if "--layers" in args:
        bad = layer_violations()
        for line in bad:
            print(line)
        print(f"dependencies reaching up or past the façade: {len(bad)}")
        failed |= bool(bad)
    if "--cycles" in args:
        found = []
        for _, src in LAYERS:
            CORE = src
            REEXPORTS.clear()
            found += [sorted(os.path.relpath(f, ROOT) for f in comp) for comp in cycles(core_graph())]
        CORE = CORE_ROOT
        REEXPORTS.clear()
        new = [comp for comp in found if set(comp) not in KNOWN_CYCLES]
        for comp in found:
            known = "" if comp in new else " (known, listed in KNOWN_CYCLES)"
            print("import cycle:", " ".join(comp) + known)
        print(f"import cycles between the files of a crate: {len(found)}, new: {len(new)}")
        failed |= bool(new)
    if "--facade" in args:
        bad = facade_violations()
        for f, p in bad:
            print(f"{f}: {p} is not core's public surface")
        print(f"front-end paths outside core's public surface: {len(bad)}")
        failed |= bool(bad)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
