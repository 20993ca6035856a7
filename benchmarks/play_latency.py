"""How long from a click on the play page until the page shows the answer? Operation and startup.

Run: ``python benchmarks/play_latency.py [--clicks 120] [--repeats 3]``.

In the system's headless Chromium, a page of ``bizsim play`` (served in this process, recording into a temporary
run directory) is played by clicks and keys: Operation alternates an intervention button and the advance button;
startup browses the market, accepts, assigns and dispatches a task through the forms and resumes with the n key.
For every call it reads what the page measured itself (``performance.now()`` from the click handler): until the
page's DOM holds the answer (``data-last-ms``) and until the frame after it was painted (``data-paint-ms``); and,
from outside, the time Playwright took from sending the click to seeing the page updated (its own round trips
included). It prints the median and the 95th percentile of each. Target: under 100 ms median click to page.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' browser helper

from bizsim.surfaces.play import PlaySession, PlayServer  # noqa: E402
from calibration import machine_line  # noqa: E402 -- benchmarks/calibration.py
from tests._browser import chromium_path  # noqa: E402


class Clicker:
    """A served page and the times of each call it was made to send."""

    def __init__(self, browser, session):
        self.server = PlayServer(session).start()
        self.page = browser.new_page(viewport={"width": 1280, "height": 800})
        self.page.goto(self.server.url)
        self.page.wait_for_selector("body[data-ready='1']")
        self.calls = 0
        self.inside: list[float] = []
        self.painted: list[float] = []
        self.outside: list[float] = []

    def act(self, do) -> None:
        start = time.perf_counter()
        do()
        self.calls += 1
        self.page.wait_for_selector(f"body[data-calls='{self.calls}']")
        self.outside.append(1000 * (time.perf_counter() - start))
        self.inside.append(float(self.page.get_attribute("body", "data-last-ms")))
        self.page.wait_for_selector("body[data-paint-ms]")
        self.painted.append(float(self.page.get_attribute("body", "data-paint-ms")))
        self.page.evaluate("() => { delete document.body.dataset.paintMs; }")

    def submit(self, tool: str, **fields: str) -> None:
        for name, value in fields.items():
            self.page.fill(f"#f-{tool}-{name}", value)
        self.act(lambda: self.page.press(f"#f-{tool}-{list(fields)[-1]}", "Enter"))

    def close(self) -> None:
        self.page.close()
        self.server.close()


def operation(browser, root: Path, clicks: int) -> Clicker:
    """Interventions and advances by button, alternately (``clicks`` calls, a year at most)."""
    c = Clicker(browser, PlaySession("operation", "default", 1, out=root / "operation"))
    tools = ["acquisition_boost", "creator_incentive", "engagement_tune", "moderation_tighten"]
    for k in range(clicks // 2):
        c.act(lambda: c.page.click(f"button.cmd[data-tool={tools[k % 4]}]"))
        c.act(lambda: c.page.click("#advance"))
    c.close()
    return c


def startup(browser, root: Path, clicks: int) -> Clicker:
    """Market, accept, assign, dispatch through the forms, resumes with the n key (about ``clicks`` calls)."""
    c = Clicker(browser, PlaySession("startup", "default", 1, out=root / "startup"))
    page = c.page
    c.act(lambda: page.click("button.cmd[data-tool=employee_list]"))
    team = ",".join(page.locator("#dl-employees option").evaluate_all("os => os.map(o => o.value)"))
    while c.calls < clicks and not page.get_attribute("body", "data-done") == "1":
        if "0" == page.inner_text("#state tr[data-key=active_tasks] td"):
            c.submit("market_browse", limit="3")
            task = page.inner_text("#last table.rows tbody tr:first-child td:first-child")
            c.submit("task_accept", task_id=task)
            c.submit("task_assign", task_id=task, employees=team)
            c.submit("task_dispatch", task_id=task)
        page.keyboard.press("Escape")
        c.act(lambda: page.keyboard.press("n"))
    c.close()
    return c


def _quantiles(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"median {statistics.median(ordered):6.1f} ms   p95 {p95:6.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clicks", type=int, default=120, help="calls per world and repeat")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    path = chromium_path()
    if path is None:
        sys.exit("no chromium on PATH (apt-get install chromium)")
    with sync_playwright() as p, tempfile.TemporaryDirectory() as tmp:
        browser = p.chromium.launch(executable_path=path, args=["--no-sandbox", "--disable-gpu"])
        for name, play in (("operation", operation), ("startup", startup)):
            runs = [play(browser, Path(tmp) / f"{name}{r}", args.clicks) for r in range(args.repeats)]
            inside = [x for r in runs for x in r.inside]
            painted = [x for r in runs for x in r.painted]
            outside = [x for r in runs for x in r.outside]
            print(f"{name:9s} {len(inside):4d} calls  click to page updated: {_quantiles(inside)}")
            print(f"{'':9s} {'':10s} click to frame painted: {_quantiles(painted)}")
            print(f"{'':9s} {'':10s} as Playwright sees it:  {_quantiles(outside)}")
        browser.close()
    print(machine_line())


if __name__ == "__main__":
    main()
