//! Finding and waiting for things in the window by their `data-testid`.
//!
//! Every check polls with a timeout (explicit waits): the UI updates asynchronously after IPC
//! calls and file-system events, and a fixed sleep would be either flaky or slow.
//! Deliberately does not: know the flows of any one view; the test modules do.

use std::future::Future;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use thirtyfour::prelude::*;

use crate::harness::TestResult;

/// How long anything the user waits for may take before the test says what it saw instead.
pub const PATIENCE: Duration = Duration::from_secs(10);
const POLL: Duration = Duration::from_millis(50);

/// The CSS selector of a `data-testid`.
pub fn tid(id: &str) -> By {
    By::Css(format!("[data-testid=\"{id}\"]"))
}

/// The CSS selector of a `data-testid`, followed by more CSS (e.g. `"] [data-name=x"`).
pub fn css(selector: &str) -> By {
    By::Css(selector.to_string())
}

/// Polls `probe` until it yields `Some`, or fails after `PATIENCE` naming `what` and the last
/// thing `probe` saw (its error, if any).
pub async fn eventually<T, F, Fut>(what: &str, mut probe: F) -> TestResult<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = TestResult<Option<T>>>,
{
    let deadline = Instant::now() + PATIENCE;
    let mut last_error = String::new();
    loop {
        match probe().await {
            Ok(Some(value)) => return Ok(value),
            Ok(None) => last_error.clear(),
            Err(e) => last_error = e.to_string(),
        }
        if Instant::now() >= deadline {
            let detail = if last_error.is_empty() {
                String::new()
            } else {
                format!(" (last error: {last_error})")
            };
            return Err(format!("timed out after {PATIENCE:?} waiting for {what}{detail}").into());
        }
        tokio::time::sleep(POLL).await;
    }
}

/// The first displayed element matching `by`, once there is one.
pub async fn shown(driver: &WebDriver, by: By, what: &str) -> TestResult<WebElement> {
    eventually(what, || {
        let by = by.clone();
        async move {
            for element in driver.find_all(by).await? {
                if element.is_displayed().await.unwrap_or(false) {
                    return Ok(Some(element));
                }
            }
            Ok(None)
        }
    })
    .await
}

/// The displayed element with this `data-testid`.
pub async fn testid(driver: &WebDriver, id: &str) -> TestResult<WebElement> {
    shown(driver, tid(id), &format!("[data-testid={id}] to be shown")).await
}

/// Clicks the displayed element with this `data-testid`.
pub async fn click(driver: &WebDriver, id: &str) -> TestResult {
    click_on(
        driver,
        tid(id),
        &format!("[data-testid={id}] to be clickable"),
    )
    .await
}

/// Clicks the first displayed element matching `by`, retrying while the UI re-renders it (a
/// list repaint replaces nodes, so a found element can go stale before the click lands).
pub async fn click_on(driver: &WebDriver, by: By, what: &str) -> TestResult {
    eventually(what, || {
        let by = by.clone();
        async move {
            for element in driver.find_all(by).await? {
                if element.is_displayed().await.unwrap_or(false) {
                    element.click().await?;
                    return Ok(Some(()));
                }
            }
            Ok(None)
        }
    })
    .await
}

/// The visible texts of every displayed element matching `by`, in document order.
pub async fn texts(driver: &WebDriver, by: By) -> TestResult<Vec<String>> {
    let mut out = Vec::new();
    for element in driver.find_all(by).await? {
        if element.is_displayed().await.unwrap_or(false) {
            out.push(element.text().await?);
        }
    }
    Ok(out)
}

/// Waits until the texts of the elements matching `by` satisfy `ok`; returns them.
pub async fn texts_until(
    driver: &WebDriver,
    by: By,
    what: &str,
    ok: impl Fn(&[String]) -> bool,
) -> TestResult<Vec<String>> {
    let seen = Mutex::new(Vec::new());
    let outcome = eventually(what, || {
        let by = by.clone();
        let (seen, ok) = (&seen, &ok);
        async move {
            let now = texts(driver, by).await?;
            *seen.lock().unwrap() = now.clone();
            Ok(ok(&now).then_some(now))
        }
    })
    .await;
    outcome.map_err(|e| format!("{e}; saw {:?}", seen.lock().unwrap()).into())
}

/// Waits until the element with this `data-testid` shows text containing `needle`.
pub async fn text_contains(driver: &WebDriver, id: &str, needle: &str) -> TestResult<String> {
    let seen = Mutex::new(String::new());
    let outcome = eventually(&format!("[data-testid={id}] to contain {needle:?}"), || {
        let seen = &seen;
        async move {
            let element = driver.find(tid(id)).await?;
            let mut text = element.text().await?;
            if !text.contains(needle) {
                // A clipped one-line status renders no text for WebKitWebDriver; read the DOM's.
                text = element.prop("textContent").await?.unwrap_or_default();
            }
            let found = text.contains(needle);
            *seen.lock().unwrap() = text.clone();
            Ok(found.then_some(text))
        }
    })
    .await;
    outcome.map_err(|e| format!("{e}; it shows {:?}", seen.lock().unwrap()).into())
}

/// Waits until nothing displayed matches `by`.
pub async fn gone(driver: &WebDriver, by: By, what: &str) -> TestResult {
    eventually(what, || {
        let by = by.clone();
        async move { Ok(texts(driver, by).await?.is_empty().then_some(())) }
    })
    .await
}

/// Replaces the content of a text field and fires the input events a person's typing would.
pub async fn fill(element: &WebElement, text: &str) -> TestResult {
    element.clear().await?;
    element.send_keys(text).await?;
    Ok(())
}

/// The current value of an input or textarea.
pub async fn value_of(element: &WebElement) -> TestResult<String> {
    Ok(element.prop("value").await?.unwrap_or_default())
}

/// The names of the memory rows the list shows, top to bottom.
pub async fn row_names(driver: &WebDriver) -> TestResult<Vec<String>> {
    let mut out = Vec::new();
    for row in driver.find_all(tid("memory-row")).await? {
        if row.is_displayed().await.unwrap_or(false) {
            out.push(row.attr("data-name").await?.unwrap_or_default());
        }
    }
    Ok(out)
}

/// Waits until the list's memory names satisfy `ok`; returns them.
pub async fn rows_until(
    driver: &WebDriver,
    what: &str,
    ok: impl Fn(&[String]) -> bool,
) -> TestResult<Vec<String>> {
    let seen = Mutex::new(Vec::new());
    let outcome = eventually(what, || {
        let (seen, ok) = (&seen, &ok);
        async move {
            let now = row_names(driver).await?;
            *seen.lock().unwrap() = now.clone();
            Ok(ok(&now).then_some(now))
        }
    })
    .await;
    outcome.map_err(|e| format!("{e}; the list shows {:?}", seen.lock().unwrap()).into())
}

/// Clicks the memory `name` in the list and waits for the detail pane to show it.
pub async fn open_memory(driver: &WebDriver, name: &str) -> TestResult {
    click_on(
        driver,
        css(&format!(
            "[data-testid=\"memory-row\"][data-name=\"{name}\"]"
        )),
        &format!("a row for {name}"),
    )
    .await?;
    eventually(&format!("the detail pane to show {name}"), || async move {
        let heading = driver.find(tid("detail-name")).await?.text().await?;
        Ok((heading.trim() == name).then_some(()))
    })
    .await
}

/// Waits for the UI to finish its first render (`body[data-ready=true]`).
pub async fn ready(driver: &WebDriver) -> TestResult {
    shown(
        driver,
        css("body[data-ready=\"true\"]"),
        "the UI to finish its first render",
    )
    .await?;
    Ok(())
}

/// Clicks a sidebar entry and waits until it is the active one.
async fn navigate(driver: &WebDriver, selector: &str, what: &str) -> TestResult {
    ready(driver).await?;
    click_on(driver, css(selector), what).await?;
    let active = format!("{selector}[data-active=\"true\"]");
    shown(
        driver,
        css(&active),
        &format!("{what} to become the active view"),
    )
    .await?;
    Ok(())
}

/// Shows the user-scope memory list.
pub async fn open_user_memories(driver: &WebDriver) -> TestResult {
    navigate(
        driver,
        "[data-testid=\"nav-user\"]",
        "User memories in the sidebar",
    )
    .await?;
    text_contains(driver, "memories-title", "User memories").await?;
    Ok(())
}

/// Shows the memory list of the project with this slug.
pub async fn open_project(driver: &WebDriver, slug: &str) -> TestResult {
    navigate(
        driver,
        &format!("[data-testid=\"nav-project\"][data-project=\"{slug}\"]"),
        &format!("project {slug} in the sidebar"),
    )
    .await
}

pub async fn open_archive(driver: &WebDriver) -> TestResult {
    navigate(
        driver,
        "[data-testid=\"nav-archive\"]",
        "Archive in the sidebar",
    )
    .await?;
    testid(driver, "archive-view").await?;
    Ok(())
}

pub async fn open_compose(driver: &WebDriver) -> TestResult {
    navigate(
        driver,
        "[data-testid=\"nav-compose\"]",
        "Compose preview in the sidebar",
    )
    .await?;
    testid(driver, "compose-view").await?;
    Ok(())
}

/// Waits for a reindex to report its result in the sidebar; returns the result line.
pub async fn reindex_result(driver: &WebDriver) -> TestResult<String> {
    let seen = Mutex::new(String::new());
    let outcome = eventually("the reindex result in the sidebar", || {
        let seen = &seen;
        async move {
            let status = driver.find(tid("reindex-status")).await?;
            let text = status.text().await?;
            *seen.lock().unwrap() = text.clone();
            let running = driver
                .find(tid("reindex-progress"))
                .await?
                .is_displayed()
                .await?;
            let finished =
                text.starts_with("Memories:") || text.starts_with("Search by meaning unavailable");
            Ok((finished && !running).then_some(text))
        }
    })
    .await;
    outcome.map_err(|e| format!("{e}; the status line says {:?}", seen.lock().unwrap()).into())
}

/// The palette's highlighted row: `(testid, key or name)`.
pub async fn palette_active(driver: &WebDriver) -> TestResult<(String, String)> {
    let v = driver
        .execute(
            r#"const a = document.querySelector('[data-testid="search-results"] [role="option"].active');
               return a ? [a.dataset.testid || '', a.dataset.key || a.dataset.name || ''] : ['', ''];"#,
            vec![],
        )
        .await?;
    Ok(serde_json::from_value(v.json().clone())?)
}

/// Sessions, the session `id` opened, and its transcript showing `title`.
pub async fn open_session(driver: &WebDriver, id: &str, title: &str) -> TestResult {
    click(driver, "nav-sessions").await?;
    testid(driver, "sessions-view").await?;
    click_on(
        driver,
        css(&format!(
            "[data-testid=\"session-row\"][data-session-id=\"{id}\"]"
        )),
        "the session row",
    )
    .await?;
    text_contains(driver, "transcript-title", title).await?;
    Ok(())
}
