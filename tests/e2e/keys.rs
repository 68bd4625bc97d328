//! The keyboard as a person uses it: pressing keys where focus is, and asking what has focus
//! and whether it shows (a focus ring a person can see).
//! Deliberately does not: know any view's flow; the test modules do.

use thirtyfour::prelude::*;

use crate::harness::TestResult;

/// Presses `key` wherever focus is (as a person would; no element is targeted).
pub async fn press(driver: &WebDriver, key: Key) -> TestResult {
    driver.action_chain().send_keys(key).perform().await?;
    Ok(())
}

/// Presses Shift+`key` wherever focus is.
pub async fn press_shift(driver: &WebDriver, key: Key) -> TestResult {
    driver
        .action_chain()
        .key_down(Key::Shift)
        .send_keys(key)
        .key_up(Key::Shift)
        .perform()
        .await?;
    Ok(())
}

/// Presses Ctrl+`key` wherever focus is.
pub async fn press_ctrl(driver: &WebDriver, key: &str) -> TestResult {
    driver
        .action_chain()
        .key_down(Key::Control)
        .send_keys(key)
        .key_up(Key::Control)
        .perform()
        .await?;
    Ok(())
}

/// What has focus: `{testid, id, tag, inside: [testids of its ancestors], ring}` where `ring`
/// says whether it draws a visible focus indicator (box-shadow or outline).
pub async fn focused(driver: &WebDriver) -> TestResult<Focus> {
    let v = driver
        .execute(
            r#"const el = document.activeElement;
               if (!el || el === document.body) return { testid: '', id: '', tag: 'BODY', inside: [], ring: false };
               const inside = [];
               for (let p = el.parentElement; p; p = p.parentElement) if (p.dataset && p.dataset.testid) inside.push(p.dataset.testid);
               const style = getComputedStyle(el);
               const ring = (style.boxShadow && style.boxShadow !== 'none') || (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0);
               return { testid: el.dataset.testid || '', id: el.id || '', tag: el.tagName, inside, ring: !!ring,
                        activedescendant: el.getAttribute('aria-activedescendant') || '' };"#,
            vec![],
        )
        .await?;
    Ok(serde_json::from_value(v.json().clone())?)
}

#[derive(Debug, serde::Deserialize)]
pub struct Focus {
    pub testid: String,
    pub tag: String,
    pub inside: Vec<String>,
    pub ring: bool,
    #[serde(default)]
    pub activedescendant: String,
}

impl Focus {
    /// Whether focus is on the element with `testid` or inside it.
    pub fn within(&self, testid: &str) -> bool {
        self.testid == testid || self.inside.iter().any(|t| t == testid)
    }
}

/// Moves focus to the element with `testid` the way a script would; used only to start a
/// keyboard journey at a known place.
pub async fn focus_on(driver: &WebDriver, testid: &str) -> TestResult {
    driver
        .execute(
            "const el = document.querySelector(`[data-testid=\"${arguments[0]}\"]`); if (!el) throw new Error('no ' + arguments[0]); el.focus();",
            vec![serde_json::json!(testid)],
        )
        .await?;
    Ok(())
}

/// The bounding box `(left, top, right, bottom)` of the first displayed element matching
/// `selector`, in CSS pixels, and the window's inner size.
pub async fn rect(driver: &WebDriver, selector: &str) -> TestResult<Rect> {
    let v = driver
        .execute(
            r#"const el = [...document.querySelectorAll(arguments[0])].find((e) => e.getClientRects().length);
               if (!el) return null;
               const r = el.getBoundingClientRect();
               return { left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height,
                        vw: window.innerWidth, vh: window.innerHeight };"#,
            vec![serde_json::json!(selector)],
        )
        .await?;
    let value = v.json().clone();
    ensure!(!value.is_null(), "nothing displayed matches {selector}");
    Ok(serde_json::from_value(value)?)
}

#[derive(Debug, Clone, Copy, serde::Deserialize)]
pub struct Rect {
    pub left: f64,
    pub top: f64,
    pub right: f64,
    pub bottom: f64,
    pub width: f64,
    pub height: f64,
    /// The window's inner width and height.
    pub vw: f64,
    pub vh: f64,
}

impl Rect {
    pub fn overlaps(&self, other: &Rect) -> bool {
        self.left < other.right
            && other.left < self.right
            && self.top < other.bottom
            && other.top < self.bottom
    }
}

/// Resizes the window to an inner size of `width`×`height` CSS pixels and waits until the page
/// sees it.
pub async fn resize(driver: &WebDriver, width: u32, height: u32) -> TestResult {
    // The outer rect includes decorations (none under Xvfb without a window manager, but measure).
    driver.set_window_rect(0, 0, width, height).await?;
    crate::ui::eventually(
        &format!("the window to be {width}×{height}"),
        || async move {
            let v = driver
                .execute("return [window.innerWidth, window.innerHeight];", vec![])
                .await?;
            let (w, h): (u32, u32) = serde_json::from_value(v.json().clone())?;
            Ok((w == width && h == height).then_some(()))
        },
    )
    .await
}
