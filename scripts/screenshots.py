#!/usr/bin/env python3
"""Photographs the app's main views on a seeded home into docs/screenshots/, through its real
window. Run through scripts/screenshots.sh (seeds the home, Xvfb, a session bus).
usage: screenshots.py APP_BINARY AMBRY_HOME OUT_DIR
"""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from app_driver import App  # noqa: E402


def settle():
    # Lets transitions and the next frame finish before the picture.
    time.sleep(0.6)


# (name suffix, window size, GTK theme): light and dark, at the default size and at 720×480, the
# smallest window the app is laid out for.
VARIANTS = [
    ("", (1280, 800), None),
    ("-dark", (1280, 800), "Adwaita:dark"),
    ("-720", (720, 480), None),
    ("-720-dark", (720, 480), "Adwaita:dark"),
]


def photograph(app, out, suffix, size):
    shot = lambda name: app.screenshot(os.path.join(out, f"{name}{suffix}.png"))  # noqa: E731
    app.resize(*size)
    app.click('[data-testid="nav-user"]')
    app.click('[data-testid="memory-row"][data-name="prefer-small-commits"]')
    app.wait_for('[data-testid="detail-body"]')
    settle()
    shot("memories")

    app.click('[data-testid="open-search"]')
    app.type_into('[data-testid="search-input"]', "token refresh race")
    app.wait_for('[data-testid="search-result"]')
    settle()
    shot("search")
    app.run("document.querySelector('[data-testid=\"search-input\"]').dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));")

    app.click('[data-testid="nav-compose"]')
    app.run("const s = document.querySelector('[data-testid=\"compose-project\"]');"
            "s.value = [...s.options].find((o) => o.textContent.includes('ledger')).value;"
            "s.dispatchEvent(new Event('change', { bubbles: true }));")
    app.type_into('[data-testid="compose-prompt"]', "fix the token refresh race in the auth middleware")
    app.wait_for('[data-testid="compose-selected"]')
    settle()
    shot("compose")

    app.click('[data-testid="nav-sessions"]')
    app.type_into('[data-testid="sessions-query"]', "refresh token")
    app.click('[data-testid="recall-hit"]')
    app.wait_for('[data-testid="transcript-turn"]')
    settle()
    shot("sessions")

    app.click('[data-testid="nav-archive"]')
    app.click('[data-testid="archive-version"]')
    app.wait_for('[data-testid="archive-diff-line"]')
    settle()
    shot("archive")

    app.click('[data-testid="nav-review"]')
    app.wait_for('[data-testid="review-view"]')
    settle()
    shot("review")

    app.click('[data-testid="nav-settings"]')
    app.wait_for('[data-testid="doctor-check"]')
    settle()
    shot("settings")


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    binary, home, out = sys.argv[1:]
    os.makedirs(out, exist_ok=True)
    for suffix, size, theme in VARIANTS:
        # The theme is the desktop's (GTK); the page follows it through prefers-color-scheme.
        with App(binary, home, {"GTK_THEME": theme} if theme else {}) as app:
            photograph(app, out, suffix, size)
    print(f"screenshots in {out}: memories, search, compose, sessions, archive, review, settings × light/dark × 1280x800/720x480")


if __name__ == "__main__":
    main()
