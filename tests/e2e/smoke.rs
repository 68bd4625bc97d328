//! The window opens on a temp home and shows the app.

use crate::harness::TestResult;
use crate::seed::Sandbox;

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn the_window_opens_with_the_app_title() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox
        .run("the_window_opens_with_the_app_title", |driver| async move {
            // The body is written by the UI's scripts: read it once their first render is done.
            crate::ui::ready(&driver).await?;
            let title = driver.title().await?;
            ensure!(title == "Ambry", "window title is {title:?}");
            let body = driver
                .find(thirtyfour::By::Tag("body"))
                .await?
                .text()
                .await?;
            ensure!(body.contains("Ambry"), "body text: {body}");
            Ok(())
        })
        .await
}
