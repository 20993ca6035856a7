"""The play page in a real headless Chromium, by clicks and keys only: the runs it records equal the same commands
through the Python API, hostile text stays text, forms refuse bad input before sending, a third-party world plays."""

from __future__ import annotations

import json

import pytest
from bizsim.runs.live import Episode
from bizsim.runs.observation import metric_of
from bizsim.runs.verify import verify_run_dir
from bizsim.surfaces.play import PlaySession, PlayServer

from ._browser import browser_fixture, tab_fixture

# One worker runs this module: its browser is launched once.
pytestmark = pytest.mark.xdist_group("play_browser")


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium for the module."""
    yield from browser_fixture()


@pytest.fixture(scope="module")
def tab(browser):
    """One tab at 1280x800 for the module."""
    yield from tab_fixture(browser)


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
    player.submit("price", cents="1.50")  # a money field (money_fields): asked in dollars, sent as 150 cents
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


# -- issue 45: the page for a person ------------------------------------------------------------------------------


def _headers_reachable(page, table):
    """Each column header of ``table``: its text, and whether scrolling its box brings it wholly into the viewport
    (1280 px wide) where it is the element drawn at its centre."""
    out = []
    heads = page.locator(f"{table} thead th")
    for k in range(heads.count()):
        th = heads.nth(k)
        th.scroll_into_view_if_needed()
        seen = th.evaluate("""e => { const r = e.getBoundingClientRect();
            const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
            return r.x >= 0 && r.right <= innerWidth && r.y >= 0 && r.bottom <= innerHeight && e.contains(hit); }""")
        out.append((th.inner_text(), seen))
    return out


def _startup_player(tab, out, **options):
    """A startup page whose player has browsed the market, taken the best task with the whole team, and resumed."""
    player = Player(tab, PlaySession("startup", "default", 1, out=out, **options))
    page = player.page
    player.click("employee_list")
    team = ",".join(page.locator("#dl-employees option").evaluate_all("os => os.map(o => o.value)"))
    player.submit("market_browse", limit="5")
    task = page.inner_text("#last table.rows tbody tr:first-child td:first-child")
    player.submit("task_accept", task_id=task)
    player.submit("task_assign", task_id=task, employees=team)
    player.submit("task_dispatch", task_id=task)
    player.advance(key=False)
    return player


def test_every_column_of_an_answer_is_readable_at_1280(tab, tmp_path):
    """The market's eight columns (requirements and skill boost pct included) and the resume's wake-event columns
    (success included) are each brought wholly into view, by the table's own sideways scroll where needed; the page
    itself never scrolls sideways."""
    player = _startup_player(tab, tmp_path / "run")
    page, session = player.page, player.server.session
    resumed = session.answers["sim resume"]["result"]
    assert [] != resumed["wake_events"]
    wake = [k.removesuffix("_cents").replace("_", " ") for k in resumed["wake_events"][0]]
    assert [(name, True) for name in wake] == _headers_reachable(page, "#last tr[data-key=wake_events]")
    player.submit("market_browse", limit="5")
    row = session.answers["market browse"]["result"]["tasks"][0]
    market = [k.removesuffix("_cents").replace("_", " ") for k in row]
    assert {"requirements", "skill boost pct", "reward funds"} <= set(market)
    assert [(name, True) for name in market] == _headers_reachable(page, "#last tr[data-key=tasks]")
    assert 1280 >= page.evaluate("() => document.documentElement.scrollWidth")
    # The amounts in dollars, the times readable (the exact instant in the title), the requirements in words.
    first = page.locator("#last tr[data-key=tasks] tbody tr:first-child td")
    cells = dict(zip(market, first.all_inner_texts()))
    cents = row["reward_funds_cents"]
    assert f"${cents // 100:,}.{cents % 100:02d}" == cells["reward funds"]
    assert " ".join(f"{r['domain']} {r['required_qty']:g}" for r in row["requirements"]) == cells["requirements"]
    now = page.inner_text("#now")
    iso = session.episode.world.now_iso
    assert (iso, f"{iso[:10]} {iso[11:16]}") == (page.get_attribute("#now", "data-iso"), now)
    player.close()


def test_a_dollars_field_sends_the_exact_cents(tab, tmp_path):
    """``--reward-min-cents`` is asked for in dollars and sent as the exact integer cents (163.29 is 16329 cents,
    though 163.29 * 100 is not 16329 in floating point); a third decimal is refused on the page."""
    out = tmp_path / "run"
    player = Player(tab, PlaySession("startup", "default", 1, out=out))
    page = player.page
    assert "reward min ($)" == page.inner_text("label[for=f-market_browse-reward_min_cents] span")
    player.submit("market_browse", reward_min_cents="163.29")
    player.submit("market_browse", reward_min_cents="$1,234.5")
    page.fill("#f-market_browse-reward_min_cents", "0.125")
    page.locator("form[data-tool=market_browse] button[type=submit]").click()
    assert "expects an amount in dollars" in page.inner_text("form[data-tool=market_browse] .formerror")
    player.close()
    assert ["market browse --reward-min-cents 16329", "market browse --reward-min-cents 123450"] == _lines(out)


def test_forms_only_for_commands_that_can_run(tab, tmp_path):
    """The disabled ``task assign-all`` has no form; a day-based world's counted commands leave the page once the
    day's actions are spent (and are named as not now) and come back the next day; an ended episode offers none."""
    startup = Player(tab, PlaySession("startup", "default", 1, out=tmp_path / "startup"))
    assert 0 == startup.page.locator("[data-tool=task_assign_all]").count()
    assert startup.page.locator("form[data-tool=task_assign]").is_visible()
    startup.close()
    player = Player(tab, PlaySession("operation", "default", 1, out=tmp_path / "op", overrides={"horizon_days": 2}))
    page = player.page
    buttons = ["acquisition_boost", "engagement_tune", "creator_incentive", "moderation_tighten"]
    assert all(page.locator(f"button.cmd[data-tool={b}]").is_visible() for b in buttons)
    player.click("engagement_tune")  # the day's one action
    assert not any(page.locator(f"button.cmd[data-tool={b}]").is_visible() for b in buttons)
    assert page.locator("#advance").is_visible() and page.locator("form[data-tool=help]").is_visible()
    assert all(b in page.inner_text("#notnow") for b in buttons)
    player.advance(key=False)
    assert all(page.locator(f"button.cmd[data-tool={b}]").is_visible() for b in buttons)
    assert not page.locator("#notnow").is_visible()
    player.advance(key=True)
    page.wait_for_selector("body[data-done='1']")
    assert 0 == page.locator(".actions button:visible, .actions form:visible").count()
    assert "ended" in page.inner_text("#notnow")
    player.close()


def test_the_action_list_shows_the_newest_with_its_real_number(tab, tmp_path):
    """After 46 actions the newest is in view numbered 46 and the first is still listed as 1; a resumed run numbers
    on from its earlier calls."""
    out = tmp_path / "run"
    session = PlaySession("operation", "default", 1, out=out, overrides={"horizon_days": 40})
    for day in range(22):
        session.call("acquisition_boost" if day % 2 else "engagement_tune", {})
        session.call("task_done", {})
    session.call("help", {})
    player = Player(tab, session)
    page = player.page
    assert "1" == page.inner_text("#log li[data-n]:first-child .n")
    player.click("creator_incentive")
    last = page.locator("#log li").last
    assert ("46", True) == (last.locator(".n").inner_text(), _in_view(last))
    assert "creator_incentive" in last.inner_text()
    player.close()
    player = Player(tab, PlaySession.resume(out))
    player.advance(key=True)
    last = player.page.locator("#log li").last
    assert ("47", True) == (last.locator(".n").inner_text(), _in_view(last))
    assert "actions 1 to 46" in player.page.inner_text("#log li.earlier")
    player.close()


def _in_view(locator) -> bool:
    """Whether the element is drawn wholly inside the viewport, on top at its centre."""
    return locator.evaluate("""e => { const r = e.getBoundingClientRect();
        const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
        return r.y >= 0 && r.bottom <= innerHeight && r.x >= 0 && r.right <= innerWidth && e.contains(hit); }""")


def test_a_vending_order_is_made_from_a_form(tab, tmp_path):
    """Product and quantity go in a row of the order form, which writes the JSON ``order_place`` takes (one row: no
    second is offered); a quantity of 0 is refused on the page. A price is typed and shown in dollars."""
    out = tmp_path / "run"
    player = Player(tab, PlaySession("vending", "default", 1, out=out))
    page = player.page
    player.submit("products_research", query="soda")
    name = page.inner_text("#last table.rows tbody tr:first-child td:first-child")
    assert not page.locator("form[data-tool=order_place] button.addrow").is_visible()
    page.fill("#f-order_place-items-name-0", name)
    page.fill("#f-order_place-items-quantity-0", "0")
    page.locator("form[data-tool=order_place] button[type=submit]").click()
    assert "quantity of row 1 must be >= 1" in page.inner_text("form[data-tool=order_place] .formerror")
    page.fill("#f-order_place-items-quantity-0", "12")
    player.act(lambda: page.press("#f-order_place-items-quantity-0", "Enter"))
    assert "ran" in page.inner_text("#last h3")
    player.submit("price_set", product_name=name, price="2.35")  # a dollars argument, sent as dollars
    assert f"{name}: $2.35" == page.inner_text("#state tr[data-key=prices] td")
    player.close()
    assert f"price_set --product-name '{name}' --price 2.35" == _lines(out)[-1]
    line = json.loads((out / "commands.jsonl").read_text().splitlines()[-2])["line"]
    from bizsim.simcore.commands import split_line

    tokens = split_line(line)
    assert ["order_place", "--items"] == tokens[:2]
    assert [{"name": name, "quantity": 12}] == json.loads(tokens[2])


def test_the_chart_has_axes_and_the_header_names_the_player(tab, tmp_path):
    """The metric's chart is labelled on both axes (dollars for money, the first and last dates); the header names
    the player as the run records them, and the metric to four significant digits."""
    from bizsim.runs.rundir import read_record

    out = tmp_path / "run"
    session = PlaySession("freelance", "default", 1, out=out, player="Dana Q")
    for _ in range(3):
        session.call("task_done", {})
    player = Player(tab, session)
    page = player.page
    ticks = page.locator("#chart text.ytick").all_text_contents()
    assert 3 == len(ticks) and all(t.startswith("$") for t in ticks)
    assert ["2025-01-01", session.episode.world.now_iso[:10]] == page.locator("#chart text.xtick").all_text_contents()
    assert "Dana Q" == page.inner_text("#player")
    player.close()
    assert "Dana Q" == read_record(out).live["metadata"]["player"]


def _every_world():
    from bizsim.simcore.registry import world_names

    return world_names()  # conftest registers examples/lemonade beside the built-in worlds


@pytest.mark.parametrize("world", _every_world())
def test_every_world_reads_at_1280(tab, tmp_path, world):
    """On every registered world, after each of its argument-free commands and a few advances: the header names the
    player, the chart has both axes, the newest action is in view with its number, every column of every listing
    shown can be brought into view, no form is offered for a command the world refuses now, and the page itself
    does not scroll sideways."""
    session = PlaySession(world, "default", 1, out=tmp_path / "run", player=f"p-{world}")
    world_ = session.episode.world
    for spec in world_.commands.visible():
        if not spec.params and not spec.advances:
            session.call(spec.tool_name, {})
    for _ in range(3):
        session.call(world_.advance_command.replace(" ", "_").replace("-", "_"), {})
    for spec in world_.commands.visible():  # the listings again, as the player would refresh them
        if not spec.params and not spec.advances:
            session.call(spec.tool_name, {})
    player = Player(tab, session)
    page = player.page
    assert f"p-{world}" == page.inner_text("#player")
    assert (3, 2) == (page.locator("#chart text.ytick").count(), page.locator("#chart text.xtick").count())
    last = page.locator("#log li").last
    assert (str(session.episode.calls), True) == (last.locator(".n").inner_text(), _in_view(last))
    for k in range(page.locator("#answers details[open] table.rows, #last table.rows").count()):
        table = page.locator("#answers details[open] table.rows, #last table.rows").nth(k)
        table.evaluate("t => t.id = 'checked'")
        assert all(seen for _, seen in _headers_reachable(page, "#checked")), world
        table.evaluate("t => t.removeAttribute('id')")
    refused = {c["tool"] for c in session.state()["commands"] if not c["runs"]}
    shown = set(page.locator(".actions [data-tool]:visible").evaluate_all("es => es.map(e => e.dataset.tool)"))
    assert set() == refused & shown
    assert 1280 >= page.evaluate("() => document.documentElement.scrollWidth")
    page.screenshot(path=str(tmp_path / f"{world}.png"))
    player.close()
