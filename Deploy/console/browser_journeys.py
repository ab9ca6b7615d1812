#!/usr/bin/env python3
"""The console's journeys in a real browser: headless Chromium (Debian's `chromium`) driven by
Playwright. Run by `./Deploy/dev console-test` (and by `./Deploy/dev test`) against a running
`receiptq support serve` on a seeded database. Prints one line per journey, PASS or FAIL, and
exits 1 if any failed. With --screenshots DIR, saves the main pages there (docs/console/).

Seeded data (Deploy/console/seed.sql): customer `cust-1001` with a purchase, a failed job of
`cust-2002` (transaction `tx-failed-1`), an operator `alice` (admin) and `victor` (read-only)."""
import argparse
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
    """Runs `body` on a fresh page (the overview refreshes itself: a page left on it could
    navigate under the next journey), records PASS or FAIL."""
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


def credentials(pair):
    name, token = pair.split(":", 1)
    return {"username": name, "password": token}


with sync_playwright() as p:
    browser = p.chromium.launch(executable_path=args.chromium, args=["--no-sandbox", "--disable-gpu"])
    admin = browser.new_context(http_credentials=credentials(args.admin), viewport={"width": 1280, "height": 900})
    viewer = browser.new_context(http_credentials=credentials(args.viewer), viewport={"width": 1280, "height": 900})
    page = None

    @journey("every page loads (overview, failures, workers, webhooks, notifications, rate budget, audit log)")
    def pages_load():
        for path, title in [("/console", "Overview"), ("/console/failures", "Failures"), ("/console/workers", "Workers"),
                            ("/console/webhooks", "Webhooks"), ("/console/notifications", "Notifications"),
                            ("/console/rate-budget", "App Store Server API rate budget"), ("/console/audit", "Audit log")]:
            response = page.goto(args.url + path)
            assert response.status == 200, f"{path}: HTTP {response.status}"
            assert page.locator("h1").inner_text() == title, f"{path}: heading {page.locator('h1').inner_text()!r}"
        page.goto(args.url + "/console")
        assert page.locator("#queue-depth").count() == 1, "no queue depth table"
        shot(page, "overview")

    @journey("search finds a customer by user id and by transaction id, and opens their page")
    def search():
        page.goto(args.url + "/console")
        page.fill("input[name=q]", "tx-paid-1")
        page.click("form.search button")
        assert page.locator("#customers a", has_text="cust-1001").count() == 1, "transaction search did not find cust-1001"
        shot(page, "search")
        page.click("#customers a >> text=cust-1001")
        assert page.locator("h1").inner_text() == "Customer cust-1001"
        assert page.locator("#grants td", has_text="com.example.pro").count() >= 1, "the customer's grant is not shown"
        shot(page, "customer")

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
