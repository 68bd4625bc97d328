//! How the window draws on Linux. WebKitGTK composites the page through OpenGL. On a machine
//! without a GPU (a virtual machine, a remote desktop, Xvfb) that OpenGL is Mesa's software
//! rasterizer, and there it costs more than it saves. Measured at ten thousand memories on two
//! cores, composited frames came every 25–45 ms and the rasterizer took half of both cores;
//! typing in the search overlay showed its results at p50 30–39 / p95 113–118 ms. Drawn
//! without compositing, frames come every 17 ms and the same typing shows at p50 23 / p95 29 ms.
//!
//! Owns: choosing, before the window exists, to turn compositing off when OpenGL can only be
//! software: no GPU render node, or software GL asked for.
//! Deliberately does not: override a choice the person made (`WEBKIT_DISABLE_COMPOSITING_MODE`
//! set either way is left alone), or probe OpenGL itself (that would need a GL context before
//! GTK has one).

use std::path::Path;

/// WebKitGTK's own switch, read when the first web view is made.
const COMPOSITING_SWITCH: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";

/// What the choice looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Display {
    /// `WEBKIT_DISABLE_COMPOSITING_MODE` is set (to anything): the person chose.
    pub switch_set: bool,
    /// `LIBGL_ALWAYS_SOFTWARE` asks Mesa for software rendering.
    pub software_gl_asked: bool,
    /// A GPU render node (`/dev/dri/renderD*`) exists.
    pub render_node: bool,
}

/// Whether to turn compositing off for `display`.
pub fn compositing_off(display: Display) -> bool {
    !display.switch_set && (display.software_gl_asked || !display.render_node)
}

/// Turns compositing off when [`compositing_off`] says so. Call first thing in `main`, before
/// any thread starts (it sets an environment variable) and before the window is made.
pub fn choose_for_this_machine() {
    if !cfg!(target_os = "linux") {
        return;
    }
    let display = Display {
        switch_set: std::env::var_os(COMPOSITING_SWITCH).is_some(),
        software_gl_asked: std::env::var_os("LIBGL_ALWAYS_SOFTWARE")
            .is_some_and(|v| !v.is_empty() && v != "0"),
        render_node: has_render_node(Path::new("/dev/dri")),
    };
    if compositing_off(display) {
        tracing::info!("no GPU for OpenGL: the window draws without compositing");
        std::env::set_var(COMPOSITING_SWITCH, "1");
    }
}

/// Whether `dri` holds a render node (`renderD128`, …): what Mesa opens for a hardware driver.
fn has_render_node(dri: &Path) -> bool {
    std::fs::read_dir(dri).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compositing_goes_off_only_when_gl_can_only_be_software_and_nobody_chose() {
        let gpu = Display {
            switch_set: false,
            software_gl_asked: false,
            render_node: true,
        };
        assert!(!compositing_off(gpu));
        assert!(compositing_off(Display {
            render_node: false,
            ..gpu
        }));
        assert!(compositing_off(Display {
            software_gl_asked: true,
            ..gpu
        }));
        // The person's own setting wins either way.
        assert!(!compositing_off(Display {
            switch_set: true,
            render_node: false,
            ..gpu
        }));
    }

    #[test]
    fn a_render_node_is_found_among_the_dri_devices() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!has_render_node(&dir.path().join("missing")));
        std::fs::write(dir.path().join("card0"), "").unwrap();
        assert!(!has_render_node(dir.path()));
        std::fs::write(dir.path().join("renderD128"), "").unwrap();
        assert!(has_render_node(dir.path()));
    }
}
