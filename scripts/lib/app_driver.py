"""The app's window driven over WebDriver (tauri-driver + WebKitWebDriver), for the scripts
that measure it and photograph it. WebDriver is plain HTTP + JSON: only the standard library.

Owns: starting tauri-driver on free ports with the app's environment, a session on the app
binary, running scripts in the page, screenshots, and stopping everything.
Does not: know any view (the callers do).
"""

import base64
import http.client
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, deadline):
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"nothing listens on port {port}: is tauri-driver installed?")


# A screenshot first makes the page draw once more (see the file).
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "repaint-mark.js")) as _f:
    REPAINT_MARK_START = _f.read()


class Driver:
    def __init__(self, port):
        self.base = f"http://127.0.0.1:{port}"
        self.session = None

    def _call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method, headers={"Content-Type": "application/json"})
        # tauri-driver now and then drops a connection without answering (seen under load);
        # every call made here is safe to repeat.
        for attempt in range(3):
            try:
                with urllib.request.urlopen(req, timeout=120) as resp:
                    return json.loads(resp.read() or b"{}").get("value")
            except (http.client.RemoteDisconnected, ConnectionResetError):
                if attempt == 2:
                    raise
                time.sleep(0.3)

    def start(self, app):
        caps = {"capabilities": {"alwaysMatch": {"browserName": "wry", "tauri:options": {"application": app}}}}
        self.session = self._call("POST", "/session", caps)["sessionId"]

    def run(self, script, *args):
        return self._call("POST", f"/session/{self.session}/execute/sync", {"script": script, "args": list(args)})

    def set_size(self, width, height):
        self._call("POST", f"/session/{self.session}/window/rect", {"x": 0, "y": 0, "width": width, "height": height})

    def screenshot_png(self):
        # Drawn without compositing (no GPU: src-tauri/rendering.rs), WebKit's WebDriver
        # screenshot waits for the window's next drawing, which an idle page never does: a
        # one-pixel mark, all but transparent, changes for a moment (as tests/e2e/harness.rs).
        self.run(REPAINT_MARK_START)
        try:
            return base64.b64decode(self._call("GET", f"/session/{self.session}/screenshot"))
        finally:
            self.run("document.getElementById('e2e-repaint-mark')?.remove();")

    def quit(self):
        if self.session:
            try:
                self._call("DELETE", f"/session/{self.session}")
            except Exception:
                pass


def until(what, probe, timeout=60):
    """Polls `probe` until it returns something truthy; fails naming `what`."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = probe()
        if value:
            return value
        time.sleep(0.05)
    raise SystemExit(f"timed out waiting for {what}")


class App:
    """The app binary launched on AMBRY_HOME=`home` (with a throwaway $HOME, so the machine's own
    agent transcripts stay out), driven through a WebDriver session. Use as a context manager."""

    def __init__(self, binary, home, extra_env=None):
        self.binary, self.home, self.extra_env = binary, home, extra_env or {}

    def __enter__(self):
        port, native = free_port(), free_port()
        self.user_home = tempfile.mkdtemp(prefix="ambry-driver-user-")
        env = dict(os.environ, AMBRY_HOME=self.home, HOME=self.user_home, NO_AT_BRIDGE="1", **self.extra_env)
        for k in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "AMBRY_MODELS_DIR"):
            if k not in self.extra_env:
                env.pop(k, None)
        driver_bin = shutil.which("tauri-driver") or os.path.expanduser("~/.cargo/bin/tauri-driver")
        self.process = subprocess.Popen([driver_bin, "--port", str(port), "--native-port", str(native)], env=env,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 20
        wait_port(port, deadline)
        wait_port(native, deadline)
        self.driver = Driver(port)
        self.driver.start(self.binary)
        until("the first render", lambda: self.driver.run("return document.body.dataset.ready === 'true';"))
        return self

    def __exit__(self, *exc):
        self.driver.quit()
        # SIGTERM, not SIGKILL: tauri-driver stops its WebKitWebDriver child on the way out.
        self.process.terminate()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.user_home, ignore_errors=True)

    def run(self, script, *args):
        return self.driver.run(script, *args)

    def click(self, selector):
        """Clicks the first element matching the CSS `selector`, once there is one."""
        # A pointer click (detail 1), as a person's: the app moves focus into a view only after
        # a keyboard activation (detail 0, what element.click() would look like).
        until(selector, lambda: self.run(
            "const e = document.querySelector(arguments[0]); if (!e) return false;"
            "e.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, detail: 1 })); return true;", selector))

    def type_into(self, selector, text):
        """Sets a text field's value as typing would (input events fire)."""
        until(selector, lambda: self.run(
            "const e = document.querySelector(arguments[0]); if (!e) return false; e.focus(); e.value = arguments[1];"
            "e.dispatchEvent(new Event('input', { bubbles: true })); return true;", selector, text))

    def wait_for(self, selector, timeout=20):
        until(selector, lambda: self.run("const e = document.querySelector(arguments[0]); return !!e && e.offsetParent !== null;", selector), timeout)

    def resize(self, width, height):
        """Sets the window's size and waits until the page has it."""
        self.driver.set_size(width, height)
        until(f"a {width}x{height} window", lambda: self.run("return [innerWidth, innerHeight];") == [width, height])

    def screenshot(self, path):
        with open(path, "wb") as f:
            f.write(self.driver.screenshot_png())
