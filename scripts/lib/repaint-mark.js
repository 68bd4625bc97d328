// Drawn without compositing (a machine without a GPU: src-tauri/rendering.rs), WebKit's
// WebDriver screenshot waits for the window's next drawing, which an idle page never does. Run
// before a screenshot: a one-pixel mark, all but transparent, changes for a moment so there is a
// next drawing. Remove it after with `document.getElementById('e2e-repaint-mark')?.remove()`.
// Shared by tests/e2e/harness.rs and scripts/lib/app_driver.py.
let mark = document.getElementById('e2e-repaint-mark');
if (!mark) {
  mark = document.createElement('div');
  mark.id = 'e2e-repaint-mark';
  mark.style.cssText = 'position:fixed;left:0;top:0;width:1px;height:1px;pointer-events:none;z-index:2147483647;opacity:0.004';
  document.documentElement.appendChild(mark);
}
let n = 0;
const tick = () => {
  mark.style.background = n % 2 ? '#000' : '#fff';
  n += 1;
  if (n < 250 && mark.isConnected) setTimeout(tick, 20);
};
tick();
