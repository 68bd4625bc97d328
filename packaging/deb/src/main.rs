//! Builds Ambry's `.deb` with the Tauri bundler's deb target (a library: no tauri-cli, no
//! downloads). The package installs both binaries (`/usr/bin/ambry-app`, `/usr/bin/ambry`),
//! the menu entry (from `packaging/deb/ambry.desktop.hbs`) and the icons.
//!
//! usage: ambry-deb RELEASE_DIR   (the folder holding the release `ambry` and `ambry-app`)
//! The package lands in `RELEASE_DIR/bundle/deb/`; its path is printed on stdout.
//! Deliberately does not: build the binaries (scripts/package-deb.sh does, with the
//! `custom-protocol` feature a release app needs).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use tauri_bundler::{
    bundle_project, AppCategory, BundleBinary, BundleSettings, DebianSettings, PackageSettings, PackageType,
    SettingsBuilder,
};

fn main() -> Result<()> {
    let release = PathBuf::from(std::env::args().nth(1).context("usage: ambry-deb RELEASE_DIR")?);
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize()?;
    for bin in ["ambry-app", "ambry"] {
        if !release.join(bin).is_file() {
            bail!("{} is missing: build the release binaries first", release.join(bin).display());
        }
    }
    let conf: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(repo.join("tauri.conf.json"))?)?;
    let text =
        |key: &str| conf[key].as_str().map(str::to_string).with_context(|| format!("tauri.conf.json has no {key}"));
    let icons = ["icons/32x32.png", "icons/128x128.png", "icons/icon.png"]
        .iter()
        .map(|p| repo.join(p).display().to_string())
        .collect();
    let settings = SettingsBuilder::new()
        .project_out_directory(&release)
        .package_types(vec![PackageType::Deb])
        .package_settings(PackageSettings {
            product_name: text("productName")?,
            version: text("version")?,
            description: "Memory manager for AI coding agents: browse, edit, search and prune their memories".into(),
            homepage: None,
            authors: Some(vec!["Ambry".into()]),
            default_run: Some("ambry-app".into()),
        })
        .bundle_settings(BundleSettings {
            identifier: Some(text("identifier")?),
            icon: Some(icons),
            category: Some(AppCategory::DeveloperTool),
            short_description: Some("Memory manager for AI coding agents".into()),
            long_description: Some(
                "Ambry keeps the long-term memory of coding agents (Claude Code, Codex) as markdown files, \
                 ranks what each turn needs, and indexes past sessions. This package holds the desktop app \
                 (ambry-app) and the command line (ambry)."
                    .into(),
            ),
            deb: DebianSettings {
                // What the binaries link at run time (WebKitGTK 4.1, GTK 3, the tray library).
                depends: Some(vec![
                    "libwebkit2gtk-4.1-0".into(),
                    "libgtk-3-0".into(),
                    "libayatana-appindicator3-1".into(),
                ]),
                desktop_template: Some(repo.join("packaging/deb/ambry.desktop.hbs")),
                section: Some("devel".into()),
                ..Default::default()
            },
            ..Default::default()
        })
        .binaries(vec![BundleBinary::new("ambry-app".into(), true), BundleBinary::new("ambry".into(), false)])
        .build()?;
    for bundle in bundle_project(&settings)? {
        for path in bundle.bundle_paths {
            println!("{}", path.display());
        }
    }
    Ok(())
}
