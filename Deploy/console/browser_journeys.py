#!/usr/bin/env python3
"""The console's journeys in a real browser: headless Chromium (Debian's `chromium`) driven by
Playwright. Run by `./Deploy/dev console-test` (and by `./Deploy/dev test`) against a running
`receiptq support serve` on a seeded database. Prints one line per journey, PASS or FAIL, and
exits 1 if any failed. With --screenshots DIR, saves the main pages there (docs/console/), and the
overview at a phone's width.

Seeded data (Deploy/console/seed.sql): customer `cust-1001` with a purchase (`tx-paid-1`, its story
kept for the timeline), a failed job of `cust-2002` (transaction `tx-failed-1`), 60 older failures
and 60 audit rows (two pages of each), an operator `alice` (admin) and `victor` (read-only)."""
import argparse
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
args = parser.parse_args()

results = []


def journey(name):
    """Runs `body` on a fresh page (the overview refreshes its figures in place: a page left on
    it keeps fetching while the next journey runs), records PASS or FAIL."""
    def wrap(body):
        global page
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
                            ("/console/customers/cust-1001", "Customer cust-1001")]:
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

    @journey("on a phone the overview fits the screen: wide tables scroll in their own box, not the page")
    def phone():
        phone = browser.new_context(http_credentials=credentials(args.admin), viewport={"width": 390, "height": 844},
                                    device_scale_factor=2, is_mobile=True, has_touch=True)
        try:
            view = phone.new_page()
            for path in ["/console", "/console/failures", "/console/customers/cust-1001"]:
                view.goto(args.url + path)
                overflow = view.evaluate("document.documentElement.scrollWidth - window.innerWidth")
                assert overflow <= 1, f"{path}: the page is {overflow} px wider than the phone"
            view.goto(args.url + "/console")
            shot(view, "overview-phone")
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
