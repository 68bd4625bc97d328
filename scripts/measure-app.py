#!/usr/bin/env python3
"""Measures the desktop app as a person meets it, through the real window (WebDriver).

For each home given: launch → first paint (the shell's clock, `data-first-paint-ms`), the
memory list shown; then, after 5 s idle, the resident memory of the app process and the PSS of
the app plus its WebKit processes; then queries typed one character at a time into the search
overlay, each keystroke timed to its results on screen (`data-keystroke-ms`, which the overlay
records in the frame that shows them).

Run through scripts/measure-app.sh (Xvfb, a session bus, release build, synthetic homes).
usage: measure-app.py APP_BINARY LABEL=ENGRAM_HOME [LABEL=ENGRAM_HOME ...]
Only the standard library: WebDriver is plain HTTP + JSON.
"""

import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

QUERIES = [
    "refresh token cache after a canary deploy",
    "database migration rollback",
    "flaky integration tests",
]


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


class Driver:
    def __init__(self, port):
        self.base = f"http://127.0.0.1:{port}"
        self.session = None

    def _call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=120) as resp:
            return json.loads(resp.read() or b"{}").get("value")

    def start(self, app):
        caps = {"capabilities": {"alwaysMatch": {"browserName": "wry", "tauri:options": {"application": app}}}}
        self.session = self._call("POST", "/session", caps)["sessionId"]

    def run(self, script, *args):
        return self._call("POST", f"/session/{self.session}/execute/sync", {"script": script, "args": list(args)})

    def run_async(self, script, *args):
        return self._call("POST", f"/session/{self.session}/execute/async", {"script": script, "args": list(args)})

    def quit(self):
        if self.session:
            try:
                self._call("DELETE", f"/session/{self.session}")
            except Exception:
                pass


def until(what, probe, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = probe()
        if value:
            return value
        time.sleep(0.05)
    raise SystemExit(f"timed out waiting for {what}")


def descendants(pid):
    out = [pid]
    for child in subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split():
        out.extend(descendants(int(child)))
    return out


def kib(pid, path, field):
    try:
        with open(f"/proc/{pid}/{path}") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


# Types `query` one character at a time; after each, waits for the overlay to show that exact
# query's results and returns the keystroke → results times (ms).
TYPE_SCRIPT = """
const [query, done] = arguments;
const input = document.querySelector('[data-testid="search-input"]');
const status = document.querySelector('[data-testid="search-status"]');
const times = [];
input.value = '';
input.dispatchEvent(new Event('input', { bubbles: true }));
(async () => {
  for (let i = 1; i <= query.length; i++) {
    const prefix = query.slice(0, i);
    if (!prefix.trim()) continue;
    delete status.dataset.keystrokeMs;
    input.value = prefix;
    input.dispatchEvent(new Event('input', { bubbles: true }));
    const t0 = performance.now();
    while (status.dataset.keystrokeMs === undefined && performance.now() - t0 < 10000) {
      await new Promise((r) => setTimeout(r, 1));
    }
    times.push(Number(status.dataset.keystrokeMs));
    await new Promise((r) => setTimeout(r, 60)); // a fast typist's gap between keys
  }
  done({ times, status: status.textContent });
})();
"""


def measure(app, label, home):
    port, native = free_port(), free_port()
    user_home = tempfile.mkdtemp(prefix="engram-measure-user-")
    env = dict(os.environ, ENGRAM_HOME=home, HOME=user_home, NO_AT_BRIDGE="1")
    for k in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "ENGRAM_MODELS_DIR"):
        env.pop(k, None)
    driver_bin = shutil.which("tauri-driver") or os.path.expanduser("~/.cargo/bin/tauri-driver")
    td = subprocess.Popen([driver_bin, "--port", str(port), "--native-port", str(native)], env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    driver = Driver(port)
    try:
        deadline = time.time() + 20
        wait_port(port, deadline)
        wait_port(native, deadline)
        driver.start(app)
        first_paint = int(until("the first paint", lambda: driver.run("return document.body.dataset.firstPaintMs || null;")))
        rows = until("the memory list", lambda: driver.run(
            "return document.querySelectorAll('[data-testid=\"memory-row\"]').length || null;"))
        time.sleep(5)
        app_pid = int(subprocess.run(["pgrep", "-n", "-x", "engram-app"], capture_output=True, text=True).stdout.split()[0])
        procs = descendants(app_pid)
        rss_app = kib(app_pid, "status", "VmRSS")
        pss_all = sum(kib(p, "smaps_rollup", "Pss") for p in procs)
        rss_all = sum(kib(p, "status", "VmRSS") for p in procs)

        driver.run("document.querySelector('[data-testid=\"open-search\"]').click();")
        until("the search overlay", lambda: driver.run(
            "const o = document.querySelector('[data-testid=\"search-overlay\"]'); return o && !o.hidden;"))
        # The first query loads the model when the strategy uses it: time it on its own.
        warm = driver.run_async(TYPE_SCRIPT, "warm up")
        times, statuses = [], []
        for q in QUERIES:
            r = driver.run_async(TYPE_SCRIPT, q)
            times.extend(r["times"])
            statuses.append(r["status"])
        rss_after = kib(app_pid, "status", "VmRSS")
        times.sort()
        p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
        print(f"## {label}")
        print(f"- first paint: {first_paint} ms (launch → first view, shell clock); memory rows rendered: {rows}")
        print(f"- idle after 5 s: app RSS {rss_app / 1024:.0f} MiB; app + {len(procs) - 1} WebKit processes: "
              f"RSS {rss_all / 1024:.0f} MiB, PSS {pss_all / 1024:.0f} MiB")
        print(f"- keystroke → results shown, {len(times)} keystrokes: p50 {statistics.median(times):.1f} ms, "
              f"p95 {p95:.1f} ms, max {times[-1]:.1f} ms (first keystroke of the session: {warm['times'][0]:.1f} ms)")
        print(f"- app RSS after searching: {rss_after / 1024:.0f} MiB")
        print(f"- last status line: {statuses[-1]}")
        sys.stdout.flush()
    finally:
        driver.quit()
        td.terminate()
        try:
            td.wait(timeout=5)
        except subprocess.TimeoutExpired:
            td.kill()
        shutil.rmtree(user_home, ignore_errors=True)


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    app = sys.argv[1]
    for spec in sys.argv[2:]:
        label, home = spec.split("=", 1)
        measure(app, label, home)


if __name__ == "__main__":
    main()
