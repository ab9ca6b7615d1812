#!/usr/bin/env python3
"""A backend's webhook endpoint that verifies every delivery with the Standard Webhooks Python
library (`pip install standardwebhooks`), the way a backend that never heard of ReceiptQueue
would. Used by the Swift test StandardWebhooksLibraryTests (WorkerIntegrationTests), which
./Deploy/dev test runs with this library installed from PyPI.

usage: standard_webhooks_receiver.py SECRETS_FILE [LOG_FILE]

SECRETS_FILE is JSON: [{"name": "new", "secret": "whsec_…", "raw": false}, …]. "raw": true hands
the secret's UTF-8 bytes to the library as the key (how a receiver verifies with a secret that is
not whsec_ base64, see docs/quickstart.md). Listens on 127.0.0.1 (a free port, printed first), and
verifies each POST with every secret separately: 204 when all of them verify, else 401. Prints one
JSON line per delivery: {"webhook_id", "event_id", "type", "verified": [names], "refused": {name: error}},
to LOG_FILE when given (appended and flushed before the answer), else to stdout.
"""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks.webhooks import Webhook

secrets = json.load(open(sys.argv[1]))
lock = threading.Lock()
log = open(sys.argv[2], "a", buffering=1) if len(sys.argv) > 2 else sys.stdout
hooks = [(s["name"], Webhook(s["secret"].encode() if s.get("raw") else s["secret"])) for s in secrets]


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        headers = {name: value for name, value in self.headers.items()}
        verified, refused, event = [], {}, {}
        for name, hook in hooks:
            try:
                event = hook.verify(body, headers)
                verified.append(name)
            except Exception as error:  # WebhookVerificationError, or a malformed header
                refused[name] = str(error)
        line = json.dumps({"webhook_id": headers.get("webhook-id"), "event_id": event.get("id"), "type": event.get("type"),
                           "verified": verified, "refused": refused})
        with lock:  # deliveries arrive concurrently: one whole line each, never interleaved
            log.write(line + "\n")
            log.flush()
        self.send_response(401 if refused else 204)
        self.end_headers()

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
