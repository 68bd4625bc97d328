//! The memory list's order: grouped by type (the default), by name, by last change, and by last
//! use — a memory a person opened comes first, the ones nobody used after it.

use thirtyfour::components::SelectElement;

use crate::harness::{capture, TestResult};
use crate::keys::resize;
use crate::seed::Sandbox;
use crate::ui::{self, open_memory, rows_until, testid};

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn the_memory_list_sorts_by_name_updated_and_last_used() -> TestResult {
    let sandbox = Sandbox::new()?;
    // Updated an hour apart: birch the newest, cedar the oldest.
    let now = chrono::Utc::now();
    let hours = |h: i64| now - chrono::Duration::hours(h);
    sandbox.save_user_at("cedar", "reference", "Third by name", "c\n", hours(3))?;
    sandbox.save_user_at("alder", "feedback", "First by name", "a\n", hours(2))?;
    sandbox.save_user_at("birch", "project", "Second by name", "b\n", hours(1))?;
    sandbox
        .run(
            "the_memory_list_sorts_by_name_updated_and_last_used",
            |driver| async move {
                ui::open_user_memories(&driver).await?;
                // By type (feedback, project, reference) before any choice.
                rows_until(&driver, "the rows grouped by type", |r| {
                    r == ["alder", "birch", "cedar"]
                })
                .await?;
                let picker = testid(&driver, "memory-sort").await?;
                let sort = SelectElement::new(&picker).await?;
                sort.select_by_value("updated").await?;
                rows_until(&driver, "the newest first", |r| {
                    r == ["birch", "alder", "cedar"]
                })
                .await?;
                sort.select_by_value("name").await?;
                rows_until(&driver, "the rows by name", |r| {
                    r == ["alder", "birch", "cedar"]
                })
                .await?;
                // Opening a memory is a use: it leads the list by last use.
                open_memory(&driver, "cedar").await?;
                sort.select_by_value("last_used").await?;
                rows_until(&driver, "cedar, the one used, first", |r| {
                    r.first().map(String::as_str) == Some("cedar")
                })
                .await?;
                if std::env::var("AMBRY_E2E_SCREENSHOTS").is_ok_and(|v| v == "all") {
                    resize(&driver, 720, 480).await?;
                    capture(&driver, "memory-sort-720x480").await?;
                }
                Ok(())
            },
        )
        .await
}
