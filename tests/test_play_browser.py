"""The play page in a real headless Chromium, by clicks and keys only: the runs it records equal the same commands
through the Python API, hostile text stays text, forms refuse bad input before sending, a third-party world plays."""

from __future__ import annotations

import json

import pytest
from bizsim.runs.live import Episode
from bizsim.runs.observation import metric_of
from bizsim.runs.verify import verify_run_dir
from bizsim.surfaces.play import PlaySession, PlayServer

from ._browser import browser_fixture

# One worker runs this module: its browser is launched once.
pytestmark = pytest.mark.xdist_group("play_browser")


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium for the module."""
    yield from browser_fixture()


@pytest.fixture(scope="module")
def tab(browser):
    """One tab at 1280x800 that every test's page is opened in (a new tab costs more than a navigation)."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    yield page
    page.close()


class Player:
    """A served session's page, opened in the module's tab and played by clicks and keys."""

    def __init__(self, tab, session):
        self.server = PlayServer(session).start()
        self.page = tab
        self.errors = tab.errors
        self.reload(goto=True)

    def reload(self, goto: bool = False) -> None:
        """Open the page afresh (its count of calls starts again)."""
        self.page.goto(self.server.url) if goto else self.page.reload()
        self.page.wait_for_selector("body[data-ready='1']")
        self.calls = 0

    def act(self, do) -> None:
        """Do one thing that sends a call, and wait until the page has drawn its answer."""
        do()
        self.calls += 1
        self.page.wait_for_selector(f"body[data-calls='{self.calls}']")

    def submit(self, tool: str, **fields: str) -> None:
        """Type into ``tool``'s form and press Enter in its last field (Ctrl+Enter in a text area)."""
        for name, value in fields.items():
            self.page.fill(f"#f-{tool}-{name}", value)
        last = f"#f-{tool}-{list(fields)[-1]}"
        key = "Control+Enter" if self.page.locator(last).evaluate("e => e.tagName") == "TEXTAREA" else "Enter"
        self.act(lambda: self.page.press(last, key))

    def click(self, tool: str) -> None:
        self.act(lambda: self.page.click(f"button.cmd[data-tool={tool}]"))

    def advance(self, key: bool) -> None:
        """The advance command: its button, or Escape (leave the field being typed in) then the n key."""
        if key:
            self.page.keyboard.press("Escape")
        self.act(lambda: self.page.keyboard.press("n") if key else self.page.click("#advance"))

    def close(self) -> None:
        self.server.close()
        assert [] == self.errors


def _replayed(world, seed, lines, **options):
    """The same command lines through the Python API."""
    api = Episode(world, "default", seed, **options)
    for line in lines:
        api.call_line(line)
    return api


def _lines(root):
    return [json.loads(x)["line"] for x in (root / "commands.jsonl").read_text().splitlines()]


def test_a_whole_operation_episode_by_clicks_and_keys(tab, tmp_path):
    """Three days of interventions and advances (buttons and the n key) end as the same commands through the API."""
    out = tmp_path / "run"
    player = Player(tab, PlaySession("operation", "default", 2, out=out, player="ann",
                                         overrides={"horizon_days": 3}))
    sent = []
    for day, tool in enumerate(["acquisition_boost", "engagement_tune", "moderation_tighten"]):
        player.click(tool)
        player.advance(key=day % 2 == 0)
        sent += [tool, "task_done"]
    player.page.wait_for_selector("body[data-done='1']")
    assert "horizon" in player.page.inner_text("#ended")
    metric_text, metric_exact = player.page.inner_text("#metric"), player.page.get_attribute("#metric", "title")
    player.close()
    api = _replayed("operation", 2, sent, overrides={"horizon_days": 3})
    assert api.done and verify_run_dir(out).ok
    assert sent == _lines(out)
    assert api.world.trajectory.to_jsonl() == (out / "trajectory.jsonl").read_text()
    # The header reads to a tenth (four significant digits); its title holds the exact value.
    assert (f"{round(metric_of(api.world), 1):,}", str(metric_of(api.world))) == (metric_text, metric_exact)


BAD = '<img src=x onerror="document.title=1">'


@pytest.fixture(scope="module")
def startup(tab, tmp_path_factory):
    """A startup page played through January by its forms and keys (player and notes hold markup)."""
    out = tmp_path_factory.mktemp("play") / "run"
    player = Player(tab, PlaySession("startup", "default", 1, out=out, player=f"bo{BAD}"))
    page = player.page
    player.click("employee_list")
    team = ",".join(page.locator("#dl-employees option").evaluate_all("os => os.map(o => o.value)"))
    for _ in range(60):
        if page.inner_text("#now") >= "2025-02-01":
            break
        if "0" == page.inner_text("#state tr[data-key=active_tasks] td"):
            player.submit("market_browse", limit="3")
            task = page.inner_text("#last table.rows tbody tr:first-child td:first-child")
            player.submit("task_accept", task_id=task)
            player.submit("task_assign", task_id=task, employees=team)
            player.submit("task_dispatch", task_id=task)
        player.advance(key=True)
    player.january = _lines(out)
    yield player
    player.close()


def test_the_first_month_of_a_startup_year_by_clicks_and_keys(startup):
    """Browse, accept, assign, dispatch and resume through the forms until February: the API's run, byte for byte."""
    out = startup.server.session.episode.root
    api = _replayed("startup", 1, startup.january)
    assert "2025-02" <= api.world.now_iso and verify_run_dir(out).ok
    assert api.world.trajectory.to_jsonl() == (out / "trajectory.jsonl").read_text()
    assert sum(1 for x in startup.january if x.startswith("task dispatch")) >= 2


def test_forms_refuse_bad_input_before_sending(startup):
    """A word for a number, a value out of range, an id the world never showed and oversized text never leave the
    page; the form says why, as the world would."""
    page = startup.page
    calls = page.get_attribute("body", "data-calls")
    cases = [("market_browse", "limit", "ten", "--limit of 'market browse' expects an integer, got 'ten'."),
             ("market_browse", "limit", "0", "--limit of 'market browse' must be >= 1; got 0."),
             ("task_accept", "task_id", "Task-999999", "'Task-999999' is not an id the world has shown"),
             ("scratchpad_write", "content", "x" * 100_001, "is 100001 characters long; the limit is 100000."),
             ("task_accept", "task_id", "", "--task-id of 'task accept' is required.")]
    for tool, field, value, words in cases:
        page.fill(f"#f-{tool}-{field}", value)
        page.locator(f"form[data-tool={tool}] button[type=submit]").click()
        assert words in page.inner_text(f"form[data-tool={tool}] .formerror")
    assert calls == page.get_attribute("body", "data-calls")
    assert startup.january == _lines(startup.server.session.episode.root)


def test_hostile_text_is_shown_as_text(startup, tab, tmp_path):
    """Markup in a task id, the world's scratchpad, the player's notes and name, and a product name is drawn as the
    characters typed."""
    page = startup.page
    page.fill("#f-task_inspect-task_id", BAD)
    page.press("#f-task_inspect-task_id", "Enter")  # refused on the page: an id the world never showed
    assert BAD in page.inner_text("form[data-tool=task_inspect] .formerror")
    startup.submit("scratchpad_write", content=f"plan{BAD}")
    assert f"plan{BAD}" == page.inner_text("#scratchpad")
    page.fill("#mynotes", f"note{BAD}")
    page.click("#save-notes")
    page.wait_for_selector("#notes-status:text('saved')")
    startup.reload()
    assert BAD in page.inner_text("header") and f"plan{BAD}" == page.inner_text("#scratchpad")
    assert f"note{BAD}" == page.input_value("#mynotes")
    assert 0 == page.locator("img").count() and "1" != page.title()
    vending = Player(tab, PlaySession("vending", "default", 1, out=tmp_path / "run"))
    vending.submit("price_query", product_name=f"cola{BAD}")
    assert f"cola{BAD}" in vending.page.inner_text("#last") and 0 == vending.page.locator("img").count()
    vending.close()


def test_hostile_text_from_a_file_is_shown_as_text(tab, tmp_path):
    """A freelance task bank whose categories and questions hold markup: the task table and the task, as text."""
    bank = tmp_path / "tasks.jsonl"
    row = {"question": f"6*7?{BAD}", "answer": "42", "category": f"Math{BAD}", "init_payment": 20, "init_effort": 2}
    bank.write_text((json.dumps(row) + "\n") * 4, encoding="utf-8")
    player = Player(tab, PlaySession("freelance", "default", 1, out=tmp_path / "run",
                                     overrides={"tasks_path": str(bank)}))
    page = player.page
    player.act(lambda: page.click("form[data-tool=tasks_discover] button[type=submit]"))
    player.click("tasks_browse")
    assert f"Math{BAD}" == page.inner_text("#last table.rows tbody tr:first-child td:nth-child(2)")
    player.submit("task_inspect", task_id=page.inner_text("#last table.rows tbody tr:first-child td:first-child"))
    assert f"6*7?{BAD}" == page.inner_text("#last tr[data-key=question] td")
    assert 0 == page.locator("img").count() and "1" != page.title()
    player.close()


def test_a_third_party_world_plays_with_no_play_code_of_its_own(tab, tmp_path):
    """examples/lemonade (registered by conftest) plays through its declared forms and fits 1280x800."""
    out = tmp_path / "run"
    player = Player(tab, PlaySession("lemonade", "default", 1, out=out))
    page = player.page
    player.submit("price", cents="150")
    player.submit("order", lemons="60")
    player.click("status")
    player.advance(key=True)
    player.act(lambda: page.click("details[data-command=status] button.again"))  # the status table, refreshed
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 1280
    assert "$1.50" == page.inner_text("#state tr[data-key=price_cents] td")
    player.close()
    api = _replayed("lemonade", 1, ["price --cents 150", "order --lemons 60", "status", "run_day", "status"])
    assert verify_run_dir(out).ok
    assert api.world.trajectory.to_jsonl() == (out / "trajectory.jsonl").read_text()
