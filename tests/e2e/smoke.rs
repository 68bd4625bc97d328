//! The window opens on a temp home and shows the app.

use crate::harness::{with_app, TestResult};

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn the_window_opens_with_the_app_title() -> TestResult {
    let home = tempfile::tempdir()?;
    with_app(home.path(), |driver| async move {
        let title = driver.title().await?;
        assert_eq!(title, "Engram");
        let body = driver.find(thirtyfour::By::Tag("body")).await?.text().await?;
        assert!(body.contains("Engram"), "body text: {body}");
        Ok(())
    })
    .await
}
