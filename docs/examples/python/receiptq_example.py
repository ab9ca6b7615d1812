#!/usr/bin/env python3
"""ReceiptQueue from a Python backend, with the standard library only: submit a receipt, wait for
the verdict, and verify the webhook that reports it (Standard Webhooks).

Environment (docs/quickstart.md):
  RECEIPTQ_URL             the API, e.g. http://127.0.0.1:8080
  RECEIPTQ_TOKEN           a bearer token the API accepts
  RECEIPTQ_WEBHOOK_SECRET  the endpoint's secret (whsec_…), as given to `receiptq webhooks add`
  WEBHOOK_PORT             where this script receives webhooks (default 9400; the endpoint's URL
                           is http://127.0.0.1:$WEBHOOK_PORT/webhook)
  FAKE_APPSTORE_URL        a receiptq-fake-appstore to mint a test receipt (your app sends real ones)
"""
import base64
import hashlib
import hmac
import json
import os
import queue
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

API = os.environ["RECEIPTQ_URL"].rstrip("/")
TOKEN = os.environ["RECEIPTQ_TOKEN"]
SECRET = os.environ["RECEIPTQ_WEBHOOK_SECRET"]
PORT = int(os.environ.get("WEBHOOK_PORT", "9400"))
FAKE = os.environ.get("FAKE_APPSTORE_URL", "http://127.0.0.1:8787").rstrip("/")


def call(method, url, body=None, token=TOKEN):
    """One JSON request; returns (status, headers, parsed body). Problems are JSON too."""
    request = urllib.request.Request(url, method=method, data=None if body is None else json.dumps(body).encode())
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=40) as response:
            return response.status, response.headers, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, error.headers, json.loads(error.read() or b"null")


# --- Verifying a webhook: what your endpoint does with every POST -----------------------------
def verify_webhook(secret: str, headers, body: bytes, tolerance: int = 300) -> dict:
    """The Standard Webhooks check (or use the `standardwebhooks` package: Webhook(secret).verify).
    `body` must be the raw bytes received, before any JSON parsing. Raises ValueError if forged."""
    msg_id, timestamp, signatures = headers.get("webhook-id"), headers.get("webhook-timestamp"), headers.get("webhook-signature")
    if not (msg_id and timestamp and signatures):
        raise ValueError("missing webhook-id, webhook-timestamp or webhook-signature")
    if abs(time.time() - int(timestamp)) > tolerance:
        raise ValueError("timestamp outside the tolerance (a replay?)")
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{msg_id}.{timestamp}.".encode() + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    # Space-separated: two signatures while the endpoint's secret is being rotated.
    if not any(hmac.compare_digest(expected, entry[3:]) for entry in signatures.split(" ") if entry.startswith("v1,")):
        raise ValueError("no signature matches")
    return json.loads(body)


received = queue.Queue()


class WebhookHandler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        try:
            event = verify_webhook(SECRET, self.headers, body)
        except ValueError as error:
            print(f"webhook refused: {error}", file=sys.stderr)
            self.send_response(401)
            self.end_headers()
            return
        # Deduplicate by event["id"] (= webhook-id) in the same transaction as the work it causes,
        # then answer 2xx quickly: anything else is retried.
        received.put(event)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


def main():
    server = ThreadingHTTPServer(("127.0.0.1", PORT), WebhookHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()

    # A test receipt from the fake App Store (in production, the app sends its receipt to you).
    transaction_id = os.environ.get("TRANSACTION_ID", str(uuid.uuid4().int % 10**15))
    status, _, minted = call("POST", f"{FAKE}/fake/admin/receipts", {
        "bundle_id": "com.example.app", "environment": "Production",
        "in_app": [{"transaction_id": transaction_id, "original_transaction_id": transaction_id, "product_id": "coins100",
                    "quantity": 1, "purchase_date_ms": int(time.time() * 1000)}]}, token=None)
    assert status == 201, f"the fake App Store answered {status}: {minted}"

    # 1. Submit: 202 means the receipt is committed; Location is where its verdict will be.
    status, headers, job = call("POST", f"{API}/v1/receipts", {
        "receipt_data": minted["receipt_data"], "transaction_id": transaction_id,
        "user_id": "python-example-user", "product_id": "coins100"})
    assert status in (200, 202), f"submit answered {status}: {job}"
    print(f"submitted: HTTP {status}, job {job['id']}, {headers['Location']}")

    # 2. Wait for the verdict: a long-poll answers as soon as it is final (or after 30 s: ask again).
    while not job["final"]:
        status, _, job = call("GET", f"{API}{headers['Location']}?wait=30")
        assert status == 200, f"status answered {status}: {job}"
    print(f"verdict: {job['verdict']} (state {job['state']})")
    assert job["verdict"] == "delivered", job

    # 3. The same verdict, pushed: a webhook whose signature we checked above.
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            event = received.get(timeout=max(0.1, deadline - time.time()))
        except queue.Empty:
            break
        if event["data"].get("job_id") == job["id"]:
            print(f"webhook verified: {event['type']} for job {event['data']['job_id']} (event {event['id']})")
            server.shutdown()
            return 0
    print("no webhook for this job within 30 s", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
