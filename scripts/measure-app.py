#!/usr/bin/env python3
"""Measures the desktop app as a person meets it, through the real window (WebDriver).

For each home given: launch → first paint (the shell's clock, `data-first-paint-ms`), the
memory list shown; then, after 5 s idle, the resident memory of the app process and the PSS of
the app plus its WebKit processes; then queries typed one character at a time into the search
overlay, each keystroke timed to its results on screen (`data-keystroke-ms`, which the overlay
records in the frame that shows them) and split into the search call (`data-round-trip-ms`),
drawing the answer (`data-render-ms`) and the rest (mostly waiting for that frame); then the app's memory once the embedding model has been
released for idleness (AMBRY_MODEL_IDLE_SECS, shortened for the run).

Run through scripts/measure-app.sh (Xvfb, a session bus, release build, synthetic homes).
usage: measure-app.py APP_BINARY LABEL=AMBRY_HOME [LABEL=AMBRY_HOME ...]
"""

import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from app_driver import App, until  # noqa: E402

QUERIES = [
    "refresh token cache after a canary deploy",
    "database migration rollback",
    "flaky integration tests",
]


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
# query's results; leaves the keystroke → results times (ms) in `window.__typed`. (Started with a
# plain script and polled: WebKitWebDriver's async scripts sometimes drop the connection.)
TYPE_SCRIPT = """
const [query] = arguments;
window.__typed = null;
const done = (result) => { window.__typed = result; };
const input = document.querySelector('[data-testid="search-input"]');
const status = document.querySelector('[data-testid="search-status"]');
const times = [], trips = [], draws = [], rests = [];
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
    trips.push(Number(status.dataset.roundTripMs));
    draws.push(Number(status.dataset.renderMs));
    rests.push(times[times.length - 1] - trips[trips.length - 1] - draws[draws.length - 1]);
    await new Promise((r) => setTimeout(r, 60)); // a fast typist's gap between keys
  }
  done({ times, trips, draws, rests, status: `${status.textContent} (${status.title})` });
})();
"""


# A character typed without searching (the box changed, no input event): how long the window
# takes to the next frame and to the frame after it. Results that arrive after the first of
# these frames began can show no sooner than the second: the least a keystroke can take here.
FRAME_SCRIPT = """
window.__frames = null;
(async () => {
  const input = document.querySelector('[data-testid="search-input"]');
  const kept = input.value;
  const next = [], after = [];
  for (let i = 0; i < 40; i++) {
    await new Promise((r) => setTimeout(r, 60));
    const t0 = performance.now();
    input.value = kept + 'x'.repeat(i % 3 + 1);
    await new Promise((r) => requestAnimationFrame(() => r()));
    next.push(performance.now() - t0);
    await new Promise((r) => requestAnimationFrame(() => r()));
    after.push(performance.now() - t0);
  }
  input.value = kept;
  window.__frames = { next, after };
})();
"""


def frames(app):
    app.run(FRAME_SCRIPT)
    return until("the frame probe", lambda: app.run("return window.__frames;"), timeout=120)


def type_query(app, query):
    app.run(TYPE_SCRIPT, query)
    return until(f"typing {query!r}", lambda: app.run("return window.__typed;"), timeout=300)


# The model's idle release, shortened from its 10 minutes so the run can see it.
IDLE_SECS = 15


def percentile95(values):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * 0.95))]


def measure(binary, label, home):
    with App(binary, home, {"AMBRY_MODEL_IDLE_SECS": str(IDLE_SECS)}) as app:
        first_paint = int(until("the first paint", lambda: app.run("return document.body.dataset.firstPaintMs || null;")))
        rows = until("the memory list", lambda: app.run(
            "return document.querySelectorAll('[data-testid=\"memory-row\"]').length || null;"))
        time.sleep(5)
        app_pid = int(subprocess.run(["pgrep", "-n", "-x", "ambry-app"], capture_output=True, text=True).stdout.split()[0])
        procs = descendants(app_pid)
        rss_app = kib(app_pid, "status", "VmRSS")
        pss_all = sum(kib(p, "smaps_rollup", "Pss") for p in procs)
        rss_all = sum(kib(p, "status", "VmRSS") for p in procs)

        app.click('[data-testid="open-search"]')
        app.wait_for('[data-testid="search-input"]')
        # The first query loads the model when the strategy uses it: timed on its own.
        warm = type_query(app, "warm up")
        times, trips, draws, rests, statuses = [], [], [], [], []
        for q in QUERIES:
            try:
                r = type_query(app, q)
            except Exception as e:
                alive = subprocess.run(["pgrep", "-x", "ambry-app"], capture_output=True, text=True).stdout.split()
                raise SystemExit(f"typing {q!r} failed: {e!r}; ambry-app processes alive: {alive or 'none'}")
            times.extend(r["times"])
            trips.extend(r["trips"])
            draws.extend(r["draws"])
            rests.extend(r["rests"])
            statuses.append(r["status"])
        frame = frames(app)
        rss_after = kib(app_pid, "status", "VmRSS")
        time.sleep(IDLE_SECS + 5)
        rss_released = kib(app_pid, "status", "VmRSS")
    times.sort()
    p95 = percentile95(times)
    print(f"## {label}")
    print(f"- first paint: {first_paint} ms (launch → first view, the app's clock); memory rows rendered: {rows}")
    print(f"- idle after 5 s: app RSS {rss_app / 1024:.0f} MiB; app + {len(procs) - 1} WebKit processes: "
          f"RSS {rss_all / 1024:.0f} MiB, PSS {pss_all / 1024:.0f} MiB")
    print(f"- keystroke → results shown, {len(times)} keystrokes: p50 {statistics.median(times):.1f} ms, "
          f"p95 {p95:.1f} ms, max {times[-1]:.1f} ms (first keystroke of the session: {warm['times'][0]:.1f} ms)")
    print(f"  of which: asking → answer (the search call) p50 {statistics.median(trips):.1f} ms, "
          f"drawing the answer p50 {statistics.median(draws):.1f} ms / p95 {percentile95(draws):.1f} ms, "
          f"the rest (waiting to ask, then for the frame that shows it) p50 {statistics.median(rests):.1f} ms")
    print(f"- a character typed without searching (results on screen): next frame p50 "
          f"{statistics.median(frame['next']):.1f} ms, the frame after p50 {statistics.median(frame['after']):.1f} ms "
          f"(the least a keystroke takes when its answer misses the first)")
    print(f"- app RSS after searching: {rss_after / 1024:.0f} MiB; {IDLE_SECS + 5} s later (model released after "
          f"{IDLE_SECS} s idle): {rss_released / 1024:.0f} MiB")
    print(f"- last status line: {statuses[-1]}")
    if os.environ.get("MEASURE_VERBOSE"):
        print(f"- every keystroke (ms, sorted): {times}")
    sys.stdout.flush()


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    app = sys.argv[1]
    for spec in sys.argv[2:]:
        label, home = spec.split("=", 1)
        measure(app, label, home)


if __name__ == "__main__":
    main()
