#!/usr/bin/env python3
"""The console's journeys in a real browser: headless Chromium (Debian's `chromium`) driven by
Playwright. Run by `./Deploy/dev console-test` (and by `./Deploy/dev test`) against a running
`receiptq support serve` on a seeded database. Prints one line per journey, PASS or FAIL, and
exits 1 if any failed. With --screenshots DIR, saves the main pages there (docs/console/), and the
every page again at a phone's width (docs/console/phone/). One journey runs axe-core (bundled by axe-playwright-python) over
every page and fails on a serious or critical violation (--no-axe skips it: the package is not
installed); another is done by keyboard alone.

Seeded data (Deploy/console/seed.sql): customer `cust-1001` with a purchase (`tx-paid-1`, its story
kept for the timeline), a failed job of `cust-2002` (transaction `tx-failed-1`), 60 older failures
and 60 audit rows (two pages of each), an operator `alice` (admin) and `victor` (read-only)."""
import argparse
import os
import re
import sys
import traceback

from playwright.sync_api import sync_playwright

parser = argparse.ArgumentParser()
parser.add_argument("--url", required=True)
parser.add_argument("--admin", required=True, help="name:token")
parser.add_argument("--viewer", required=True, help="name:token")
parser.add_argument("--chromium", default="/usr/bin/chromium")
parser.add_argument("--screenshots")
parser.add_argument("--no-axe", action="store_true", help="skip the accessibility pass (axe-playwright-python not installed)")
args = parser.parse_args()

results = []


def journey(name, skip=False):
    """Runs `body` on a fresh page (the overview refreshes its figures in place: a page left on
    it keeps fetching while the next journey runs), records PASS or FAIL (or neither, skipped)."""
    def wrap(body):
        global page
        if skip:
            print(f"SKIP  {name}")
            return body
        page = admin.new_page()
        try:
            body()
            results.append((name, None))
        except Exception as error:  # noqa: BLE001 — every failure is reported, none stops the others
            results.append((name, f"{type(error).__name__}: {error}"))
            traceback.print_exc(file=sys.stderr)
        finally:
            page.close()
        return body
    return wrap


def shot(page, name):
    if args.screenshots:
        os.makedirs(os.path.dirname(f"{args.screenshots}/{name}.png"), exist_ok=True)
        page.screenshot(path=f"{args.screenshots}/{name}.png", full_page=True)


# Text that wraps is a layout bug in a table's heading or in a cell of figures, times, ids or
# badges (they are nowrap): measured, not assumed — the lines a cell's text takes in the page.
WRAPPED = """() => Array.from(document.querySelectorAll('thead th, td.k-number, td.k-time, td.k-id, td.k-state')).filter(cell => {
    const range = document.createRange(); range.selectNodeContents(cell);
    const rects = Array.from(range.getClientRects()).filter(r => r.width > 0);
    if (!rects.length) return false;
    const top = Math.min(...rects.map(r => r.top)), bottom = Math.max(...rects.map(r => r.bottom));
    return bottom - top > 1.8 * parseFloat(getComputedStyle(cell).fontSize) * 1.45;
}).map(cell => cell.textContent)"""

EXACT_UTC = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC")
RELATIVE = re.compile(r"just now|\d[\d,]* (s|min|h|d) ago|in \d[\d,]* (s|min|h|d)")


def wait_until(page, expression, seconds):
    """Polls `expression` from Python: Playwright's wait_for_function evaluates a string in the
    page, which the console's CSP (no unsafe-eval) refuses, as it should."""
    for _ in range(int(seconds * 4)):
        if page.evaluate(expression):
            return
        page.wait_for_timeout(250)
    raise AssertionError(f"not true after {seconds} s: {expression}")


# axe-core as axe-playwright-python bundles it (no CDN): injected by Playwright's evaluate, which
# the page's CSP does not govern.
AXE = AXE_VERSION = None
if not args.no_axe:
    from axe_playwright_python.sync_playwright import Axe
    AXE = Axe()
    AXE_VERSION = re.search(r"axe v([\d.]+)", AXE.axe_script[:200]).group(1)

# The focused element, and whether it shows it: an outline or a box-shadow, as computed.
FOCUSED = """() => {
    const e = document.activeElement;
    if (!e || e === document.body) return null;
    const s = getComputedStyle(e);
    const outline = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0;
    const shadow = s.boxShadow && s.boxShadow !== 'none';
    const row = e.closest('tr');
    return {tag: e.tagName, href: e.getAttribute('href'), name: e.getAttribute('name'),
            label: (e.innerText || e.getAttribute('aria-label') || e.value || '').trim().slice(0, 60),
            formAction: e.form ? e.form.getAttribute('action') : null, inMain: !!e.closest('main'),
            row: row ? Array.from(row.cells).map(c => c.innerText.trim()) : [], visible: !!(outline || shadow)};
}"""


def credentials(pair):
    name, token = pair.split(":", 1)
    return {"username": name, "password": token}


with sync_playwright() as p:
    browser = p.chromium.launch(executable_path=args.chromium, args=["--no-sandbox", "--disable-gpu"])
    admin = browser.new_context(http_credentials=credentials(args.admin), viewport={"width": 1280, "height": 900})
    viewer = browser.new_context(http_credentials=credentials(args.viewer), viewport={"width": 1280, "height": 900})
    page = None

    @journey("every page loads (overview, failures, workers, webhooks, notifications, rate budget, audit log), nothing wraps at 1280 px")
    def pages_load():
        for path, title in [("/console", "Overview"), ("/console/failures", "Failures"), ("/console/workers", "Workers"),
                            ("/console/webhooks", "Webhooks"), ("/console/notifications", "Notifications"),
                            ("/console/rate-budget", "App Store Server API rate budget"), ("/console/audit", "Audit log"),
                            ("/console/customers/cust-1001", "Customer cust-1001"), ("/console/revenue", "Revenue")]:
            response = page.goto(args.url + path)
            assert response.status == 200, f"{path}: HTTP {response.status}"
            assert page.locator("h1").inner_text() == title, f"{path}: heading {page.locator('h1').inner_text()!r}"
            wrapped = page.evaluate(WRAPPED)
            assert not wrapped, f"{path}: text wrapped in {wrapped}"
        page.goto(args.url + "/console")
        assert page.locator("#queue-depth").count() == 1, "no queue depth table"
        labels = page.locator("#queue-health dt").all_inner_texts()
        assert "Oldest ready" in labels and "Failed (1 h)" in labels, f"queue health labels {labels}"
        assert page.locator("meta[http-equiv]").count() == 0, "the overview still reloads itself whole"
        shot(page, "overview")

    @journey("the overview's charts draw the numbers of their own tables, and the waiting chart ends at the queue depth table's figure")
    def charts_match_tables():
        page.goto(args.url + "/console")
        for chart in ("verdicts-hour", "queue-depth-hour", "apple-calls-hour", "breakers-hour", "webhooks-hour"):
            figure = page.locator(f"#chart-{chart}")
            assert figure.locator("svg[role=img] > title").count() == 1, f"{chart}: no accessible title"
            table = page.locator(f"#chart-{chart}-table")
            # Read as textContent: behind a closed <details> the table is not rendered, so it has no innerText.
            names = table.evaluate("t => Array.from(t.tHead.rows[0].cells).map(c => c.textContent)")[1:-1]
            rows = [[cell.strip() for cell in row] for row in
                    table.evaluate("t => Array.from(t.tBodies[0].rows).map(r => Array.from(r.cells).map(c => c.textContent))")]
            assert len(rows) == 60, f"{chart}: {len(rows)} rows, not one a minute"
            for index, name in enumerate(names):
                listed = [int(row[1 + index]) for row in rows if int(row[1 + index]) > 0]
                drawn = [int(v) for v in figure.locator("rect").evaluate_all(
                    f"rs => rs.filter(r => r.dataset.series === {name!r}).map(r => r.dataset.value)")]
                assert drawn == listed, f"{chart} {name}: drawn {drawn}, table {listed}"
        # Apple's latency: lines through points, one per minute with calls; a minute without is "–".
        latency = page.locator("#chart-apple-latency-hour-table")
        names = [n.removesuffix(" (ms)") for n in latency.evaluate("t => Array.from(t.tHead.rows[0].cells).map(c => c.textContent)")[1:]]
        rows = latency.evaluate("t => Array.from(t.tBodies[0].rows).map(r => Array.from(r.cells).map(c => c.textContent.trim()))")
        assert len(rows) == 60 and names == ["verifyReceipt p50", "verifyReceipt p99", "Server API p50", "Server API p99"], names
        for index, name in enumerate(names):
            listed = [int(row[1 + index]) for row in rows if row[1 + index] != "–"]
            drawn = [int(v) for v in page.locator("#chart-apple-latency-hour circle").evaluate_all(
                f"cs => cs.filter(c => c.dataset.series === {name!r}).map(c => c.dataset.value)")]
            assert drawn == listed and listed, f"latency {name}: drawn {drawn}, table {listed}"
        assert page.locator("#chart-apple-latency-hour polyline").count() >= 2, "no latency line"
        waiting = int(page.locator("#chart-queue-depth-hour-table").evaluate("t => t.tBodies[0].rows[t.tBodies[0].rows.length - 1].cells[1].textContent"))
        depth = {row[0].strip(): int(row[1].replace(",", "")) for row in page.locator("#queue-depth").evaluate(
            "t => Array.from(t.tBodies[0].rows).map(r => Array.from(r.cells).slice(0, 2).map(c => c.textContent))")}
        expected = sum(depth.get(state, 0) for state in ("queued", "verifying", "timed_out"))
        assert waiting == expected, f"waiting now {waiting}, queue depth table {depth}"
        assert sum(int(v) for v in page.locator("#chart-verdicts-hour rect").evaluate_all("rs => rs.map(r => r.dataset.value)")) >= 1
        page.goto(args.url + "/console?window=day")
        assert page.locator("#chart-verdicts-day-table tbody tr").count() == 96, "the day is not 96 quarters of an hour"
        shot(page, "overview-day")

    @journey("the revenue page's figures are the seeded ledger's, with its caveats")
    def revenue():
        page.goto(args.url + "/console")
        page.click("header nav a:has-text('Revenue')")
        assert page.locator("h1").inner_text() == "Revenue"
        figures = dict(zip(page.locator("#revenue-states dt").all_inner_texts(), page.locator("#revenue-states dd").all_inner_texts()))
        assert figures["Active"] == "3", figures
        rows = page.locator("#revenue-mrr").evaluate(
            "t => Array.from(t.tBodies[0].rows).map(r => Array.from(r.cells).map(c => c.textContent.trim()))")
        assert rows == [["com.example.yearly", "EUR", "1", "0", "4.17"], ["com.example.monthly", "USD", "1", "0", "4.99"],
                        ["com.example.monthly", "price unknown", "1", "0", ""]], rows
        days = page.locator("#revenue-days").evaluate(
            "t => Array.from(t.tBodies[0].rows).map(r => Array.from(r.cells).map(c => c.textContent.trim()))")
        assert len(days) == 30 and sum(int(d[1]) for d in days) == 2 and sum(int(d[2]) for d in days) == 1, days
        text = page.locator("main").inner_text()
        assert "no exchange rates" in text and "price unknown" in text, "the caveats are not on the page"
        shot(page, "revenue")

    @journey("axe-core finds no serious or critical accessibility violation on any page", skip=args.no_axe)
    def accessibility():
        # Every page an operator opens: the navigation's own links (so a page added to it is
        # checked too), the second page of a list, search with and without a match, the story
        # pages, and a 400 page. There is no login page: logins are HTTP Basic.
        page.goto(args.url + "/console")
        paths = [page.locator("header nav a").nth(i).get_attribute("href") for i in range(page.locator("header nav a").count())]
        page.goto(args.url + "/console/failures")
        page.click("#failures-pages a:has-text('Older')")
        paths.append(page.url.removeprefix(args.url))
        page.goto(args.url + "/console/search?q=tx-failed-1")
        paths.append(page.locator("#jobs a").first.get_attribute("href"))
        paths += ["/console/search?q=tx-paid-1", "/console/search?q=nobody-at-all", "/console/customers/cust-1001",
                  "/console/purchases/tx-paid-1", "/console/failures?before=not-a-cursor"]
        order = page.locator("a[href^='/console/orders/']")
        page.goto(args.url + "/console/purchases/tx-paid-1")
        if order.count():
            paths.append(order.first.get_attribute("href"))
        # axe-core is the script the package bundles: nothing is fetched but the console's pages.
        outside = []
        page.on("request", lambda request: None if request.url.startswith(args.url) else outside.append(request.url))
        serious, listed, broken, checked = [], [], [], 0
        by_impact, rules = {}, {}
        for path in dict.fromkeys(paths):
            response = page.goto(args.url + path)
            if response.status not in (200, 400):   # reported below; the other pages are still checked
                broken.append(f"{path}: HTTP {response.status}")
                continue
            checked += 1
            for violation in AXE.run(page).response["violations"]:
                impact = violation.get("impact") or "minor"
                nodes = len(violation["nodes"])
                by_impact[impact] = by_impact.get(impact, 0) + nodes
                rules.setdefault((impact, violation["id"]), set()).add(path)
                line = f"{impact:8} {violation['id']} on {path} ({nodes} element(s)): " \
                       + "; ".join(n["target"][0] if isinstance(n["target"][0], str) else str(n["target"][0]) for n in violation["nodes"][:3])
                (serious if impact in ("serious", "critical") else listed).append(line)
        print(f"axe-core {AXE_VERSION}: {checked} pages checked" + (f" ({len(broken)} did not load: {', '.join(broken)})" if broken else "")
              + "; violations (elements) by impact: "
              + (", ".join(f"{k} {v}" for k, v in sorted(by_impact.items())) or "none"))
        for (impact, rule), where in sorted(rules.items()):
            print(f"  {impact:8} {rule}: {len(where)} page(s)")
        for line in listed:
            print(f"  listed, not failed: {line}")
        assert not outside, f"the pass fetched from outside the console: {outside[:3]}"
        assert not serious and not broken, "serious or critical violations (or pages that did not load):\n      " \
            + "\n      ".join(serious + broken)

    @journey("on a phone every page fits the screen: wide tables scroll in their own box, not the page")
    def phone():
        phone = browser.new_context(http_credentials=credentials(args.admin), viewport={"width": 390, "height": 844},
                                    device_scale_factor=2, is_mobile=True, has_touch=True)
        try:
            view = phone.new_page()
            view.goto(args.url + "/console/search?q=tx-failed-1")
            job = view.locator("#jobs a").first.get_attribute("href")
            pages = [("overview", "/console"), ("failures", "/console/failures"), ("workers", "/console/workers"),
                     ("webhooks", "/console/webhooks"), ("notifications", "/console/notifications"),
                     ("rate-budget", "/console/rate-budget"), ("audit", "/console/audit"), ("revenue", "/console/revenue"),
                     ("search", "/console/search?q=tx-paid-1"), ("customer", "/console/customers/cust-1001"),
                     ("purchase", "/console/purchases/tx-paid-1"), ("job", job)]
            for name, path in pages:
                response = view.goto(args.url + path)
                assert response.status == 200, f"{path}: HTTP {response.status}"
                overflow = view.evaluate("document.documentElement.scrollWidth - window.innerWidth")
                assert overflow <= 1, f"{path}: the page is {overflow} px wider than the phone"
                shot(view, f"phone/{name}")
        finally:
            phone.close()

    @journey("a reason typed to pause the fleet survives the live refresh; the figures refresh again once it is cleared")
    def live_refresh_keeps_input():
        page.goto(args.url + "/console")
        wait_until(page, "Number(document.body.dataset.liveRefreshes || 0) >= 1", 15)
        assert page.locator("#queue-depth").count() == 1, "the queue depth table was lost in a refresh"
        reason = page.locator("form.action input[name=why]")
        reason.fill("rotating the shared secret")
        page.locator("h1").click()   # away from the field: its content alone holds the refresh
        before = page.evaluate("Number(document.body.dataset.liveRefreshes)")
        page.wait_for_timeout(6500)
        assert reason.input_value() == "rotating the shared secret", f"the reason was wiped: {reason.input_value()!r}"
        assert "paused while you type" in page.locator("[data-live-status]").inner_text()
        assert page.evaluate("Number(document.body.dataset.liveRefreshes)") == before, "a refresh ran over a form being filled in"
        reason.fill("")
        page.locator("h1").click()
        wait_until(page, f"Number(document.body.dataset.liveRefreshes) > {before}", 15)
        assert page.locator("form.action button", has_text="Pause the fleet").count() == 1

    @journey("a chart's numbers opened by keyboard stay open, and focused, through the live refresh")
    def opened_numbers_survive_refresh():
        page.goto(args.url + "/console")
        numbers = page.locator("#chart-apple-latency-hour-numbers")
        numbers.locator("summary").focus()
        page.keyboard.press("Enter")
        assert numbers.get_attribute("open") is not None, "Enter did not open the numbers"
        before = page.evaluate("Number(document.body.dataset.liveRefreshes || 0)")
        wait_until(page, f"Number(document.body.dataset.liveRefreshes || 0) > {before}", 15)
        assert page.locator("#chart-apple-latency-hour-numbers").get_attribute("open") is not None, "a refresh closed the numbers"
        assert page.evaluate("document.activeElement.parentElement.id") == "chart-apple-latency-hour-numbers", "a refresh took the focus"
        assert page.locator("#chart-verdicts-hour-numbers").get_attribute("open") is None, "a refresh opened what was closed"

    @journey("a relative time carries its exact UTC time as its title")
    def exact_time_on_hover():
        page.goto(args.url + "/console")
        when = page.locator("#failure-summary time").first
        text, title, machine = when.inner_text(), when.get_attribute("title"), when.get_attribute("datetime")
        assert RELATIVE.fullmatch(text), f"not a relative time: {text!r}"
        assert EXACT_UTC.fullmatch(title or ""), f"not an exact UTC time: {title!r}"
        assert title == f"{machine[:10]} {machine[11:19]} UTC", f"title {title!r} is not the moment {machine!r}"
        when.hover()

    @journey("search finds a customer by user id and by transaction id, and opens their page")
    def search():
        page.goto(args.url + "/console")
        page.fill("input[name=q]", "tx-paid-1")
        page.click("form.search button")
        assert "Matched transaction id tx-paid-1" in page.locator("#matched").inner_text()
        assert page.locator("#customers a", has_text="cust-1001").count() == 1, "transaction search did not find cust-1001"
        shot(page, "search")
        page.click("#customers a >> text=cust-1001")
        assert page.locator("h1").inner_text() == "Customer cust-1001"
        assert page.locator("#grants td", has_text="com.example.pro").count() >= 1, "the customer's grant is not shown"
        shot(page, "customer")

    @journey("the failures page pages Older and Newer by keyset, the last page has no Older, a bad cursor is a 400 page")
    def paging():
        page.goto(args.url + "/console/failures")
        # Rows by their job id (the first column): a row's relative time moves between two loads.
        first = page.locator("#failures tbody td:first-child").all_inner_texts()
        assert len(first) == 50, f"page one shows {len(first)} rows, not 50"
        assert page.locator("#failures-pages a", has_text="Newer").count() == 0, "the newest page offers Newer"
        page.click("#failures-pages a:has-text('Older')")
        second = page.locator("#failures tbody td:first-child").all_inner_texts()
        assert second and not set(second) & set(first), "page two repeats a row of page one"
        assert page.locator("#failures-pages a", has_text="Older").count() == 0, "the last page offers Older"
        shot(page, "failures-page-2")
        page.click("#failures-pages a:has-text('Newer')")
        assert page.locator("#failures tbody td:first-child").all_inner_texts() == first, "Newer from page two is not page one"
        page.click("#failures-pages a:has-text('100')")
        assert page.locator("#failures tbody tr").count() == len(first) + len(second), "100 a page does not show both pages"
        page.goto(args.url + "/console/failures?state=rejected")
        states = page.locator("#failures td.k-state").all_inner_texts()
        assert states and set(states) == {"rejected"}, f"the state filter shows {set(states)}"
        response = page.goto(args.url + "/console/failures?before=not-a-cursor")
        assert response.status == 400 and "before" in page.locator("p.error").inner_text(), f"a bad cursor answered {response.status}"
        page.goto(args.url + "/console/audit")
        assert page.locator("#audit tbody tr").count() == 50 and page.locator("#audit-pages a", has_text="Older").count() == 1

    @journey("a purchase's timeline tells its story in time order, each entry with its time and a link")
    def timeline():
        page.goto(args.url + "/console/search?q=tx-paid-1")
        assert "Matched transaction id tx-paid-1" in page.locator("#matched").inner_text(), page.locator("#matched").inner_text()
        page.click("#matched a:has-text('purchase tx-paid-1')")
        assert page.locator("h1").inner_text() == "Purchase tx-paid-1"
        entries = page.locator("#timeline li").all_inner_texts()
        story = ["Submitted (receipt) by cust-1001", "Verdict: granted", "Granted com.example.pro to cust-1001", "Event verdict.granted",
                 "Queued webhook to backend", "Delivered to backend", "Apple sent CONSUMPTION_REQUEST", "Applied CONSUMPTION_REQUEST"]
        found = [next((i for i, entry in enumerate(entries) if what in entry), -1) for what in story]
        assert -1 not in found and found == sorted(found), f"the timeline is not the story in order: {entries}"
        times = page.locator("#timeline li time")
        assert times.count() == len(entries) and all(RELATIVE.fullmatch(t) for t in times.all_inner_texts()), "an entry without its time"
        assert page.evaluate(WRAPPED) == [], "text wrapped on the purchase page"
        shot(page, "purchase")
        page.locator("#timeline li", has_text="Verdict: granted").locator("a").click()
        assert page.locator("h1").inner_text().startswith("Job "), "the verdict's link does not open its job"
        page.goto(args.url + "/console/search?q=nobody-at-all")
        assert "No match for nobody-at-all" in page.locator("#matched").inner_text()

    @journey("a failed job is re-driven from the failures page and lands in the audit log")
    def redrive():
        page.goto(args.url + "/console/failures")
        row = page.locator("#failures tr", has_text="tx-failed-1")
        assert row.count() == 1, "the failed job is not listed"
        shot(page, "failures")
        row.locator("input[type=checkbox]").check()
        page.fill("#bulk input[name=why]", "Apple outage is over")
        page.click("#bulk button")
        assert "re-drove 1 job(s)" in page.locator(".flash").inner_text(), page.content()[:500]
        page.goto(args.url + "/console/audit")
        audit = page.locator("#audit tr", has_text="jobs.redrive")
        assert audit.count() >= 1 and "Apple outage is over" in audit.first.inner_text(), "no audit row for the re-drive"

    @journey("by keyboard alone: skip link, navigation to the failures page, a job opened and re-driven, focus always visible")
    def keyboard_only():
        # Tab, Shift+Tab and Enter only: no click, no fill. Every element Tab reaches must show
        # that it has focus (an outline or a box-shadow, measured on the element).
        def tab(until, limit=400, back=False):
            for _ in range(limit):
                page.keyboard.press("Shift+Tab" if back else "Tab")
                info = page.evaluate(FOCUSED)
                assert info is not None, "Tab left the page"
                assert info["visible"], f"focus is not visible on {info['tag']} {info['label']!r}"
                if until(info):
                    return info
            raise AssertionError(f"not reached in {limit} Tab presses")

        def enter():
            with page.expect_navigation():
                page.keyboard.press("Enter")

        page.goto(args.url + "/console")
        first = tab(lambda info: True, limit=1)
        assert first["tag"] == "A" and first["href"] == "#main", f"the first Tab reaches {first}, not the skip link"
        tab(lambda info: info["href"] == "/console/failures")
        enter()
        assert page.locator("h1").inner_text() == "Failures"
        tab(lambda info: info["href"] == "#main", limit=1)
        page.keyboard.press("Enter")   # the skip link: the next Tab is inside the main content
        inside = tab(lambda info: True, limit=1)
        assert inside["inMain"], f"after the skip link, Tab reaches {inside} outside the main content"
        target = tab(lambda info: (info["href"] or "").startswith("/console/jobs/") and "failed" in info["row"]
                     and not any(cell == "tx-failed-1" for cell in info["row"]))
        # One step back and forth with Shift+Tab: focus returns where it was.
        tab(lambda info: True, limit=1, back=True)
        again = tab(lambda info: True, limit=1)
        assert again["href"] == target["href"], f"Shift+Tab then Tab moved focus to {again}"
        enter()
        assert page.locator("h1").inner_text() == "Job " + target["label"], page.locator("h1").inner_text()
        tab(lambda info: info["tag"] == "INPUT" and info["name"] == "why" and info["formAction"] == "/console/actions/redrive-jobs")
        page.keyboard.type("re-driven by keyboard")
        button = tab(lambda info: True, limit=1)
        assert button["tag"] == "BUTTON" and button["label"] == "Re-drive", f"after the reason, Tab reaches {button}"
        enter()
        assert "re-drove 1 job(s)" in page.locator(".flash").inner_text(), page.locator(".flash").inner_text()
        assert page.locator("#job td", has_text="queued").count() >= 1, "the job is not queued after its re-drive"
        page.goto(args.url + "/console/audit")
        assert page.locator("#audit tr", has_text="re-driven by keyboard").count() == 1, "no audit row for the keyboard re-drive"

    @journey("a manual grant from the customer page works and lands in the audit log")
    def manual_grant():
        page.goto(args.url + "/console/customers/cust-1001")
        form = page.locator("form.action", has=page.locator("button", has_text="Grant by hand"))
        form.locator("input[name=product_id]").fill("com.example.gems")
        form.locator("input[name=reference]").fill("TICKET-77")
        form.locator("select[name=product_type]").select_option("non_consumable")
        form.locator("input[name=why]").fill("goodwill after support call")
        form.locator("button").click()
        assert "granted com.example.gems by hand" in page.locator(".flash").inner_text()
        assert page.locator("#grants td", has_text="manual:TICKET-77").count() >= 1, "the manual grant is not on the page"
        page.goto(args.url + "/console/audit?q=user:cust-1001")
        assert page.locator("#audit tr", has_text="grant.manual").count() == 1, "no audit row for the grant"
        shot(page, "audit")

    @journey("one job's story shows the job, its events and its audit rows")
    def job_story():
        page.goto(args.url + "/console/search?q=tx-failed-1")
        page.locator("#jobs a").first.click()
        assert page.locator("h1").inner_text().startswith("Job ")
        assert page.locator("#job td", has_text="queued").count() >= 1, "the re-driven job is not queued"
        shot(page, "job")

    @journey("a read-only login sees no actions and cannot act")
    def read_only():
        view = viewer.new_page()
        view.goto(args.url + "/console/customers/cust-1001")
        assert view.locator("h1").inner_text() == "Customer cust-1001"
        assert view.locator("form.action").count() == 0, "a read-only operator was shown an action"
        response = view.request.post(args.url + "/console/actions/grant",
                                     form={"csrf": "0" * 64, "user_id": "cust-1001", "product_id": "x", "reference": "RO-1",
                                           "product_type": "consumable", "why": "try"})
        assert response.status == 403, f"a read-only post answered {response.status}"
        page.goto(args.url + "/console/audit")
        assert page.locator("#audit td", has_text="RO-1").count() == 0

    browser.close()

failed = 0
for name, error in results:
    print(f"{'PASS' if error is None else 'FAIL'}  {name}" + ("" if error is None else f"\n      {error}"))
    failed += error is not None
print(f"{len(results) - failed}/{len(results)} console journeys passed")
sys.exit(1 if failed else 0)
