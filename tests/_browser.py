"""A real headless Chromium (the system's) driven by Playwright, one per test module."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from typing import Any

import pytest


def chromium_path() -> str | None:
    """The system's Chromium, or ``None``."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def browser_fixture() -> Iterator[Any]:
    """Yield a launched browser; skip where there is none (CI installs Chromium, so there it fails instead)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    path = chromium_path()
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("no chromium on PATH: .ci/run installs it (apt-get install chromium)")
        pytest.skip("no chromium on PATH (apt-get install chromium)")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, args=["--no-sandbox", "--disable-gpu"])
        try:
            yield browser
        finally:
            browser.close()


def tab_fixture(browser: Any) -> Iterator[Any]:
    """One tab at 1280x800 that a module's tests open their pages in (a new tab costs more than a navigation); the
    page's script errors are gathered in ``page.errors``."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    yield page
    page.close()


def open_page(browser: Any, url: str, width: int = 1400, height: int = 900) -> Any:
    """A fresh page at ``url``, waited for until the viewer says it is drawn; page errors fail the test."""
    page = browser.new_page(viewport={"width": width, "height": height})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']", timeout=15_000)
    return page


def rgb(hex_colour: str) -> str:
    """``#2a9d8f`` as the browser reports a computed colour, ``rgb(42, 157, 143)``."""
    h = hex_colour.lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    return "rgb({}, {}, {})".format(*(int(h[k:k + 2], 16) for k in (0, 2, 4)))


def legend_colours(page: Any) -> dict[str, str]:
    """Each legend entry's kind (its words, without the count) and its swatch's colour as ``rgb(...)``."""
    out = {}
    labels = page.locator(".legend label")
    for k in range(labels.count()):
        label = labels.nth(k)
        name = re.sub(r" \(\d[\d,]*\)$", "", label.inner_text().strip())
        out[name] = label.locator("i").evaluate("e => getComputedStyle(e).backgroundColor")
    return out
