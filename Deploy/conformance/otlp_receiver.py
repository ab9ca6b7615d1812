#!/usr/bin/env python3
"""A small OpenTelemetry collector for the test command (issue 48): it takes OTLP/HTTP JSON exports
the way a collector does, and checks one purchase's whole trace.

  otlp_receiver.py serve --port-file F --spans S   answers POST /v1/traces; every export is parsed
      by opentelemetry-proto's own ExportTraceServiceRequest (unknown fields and wrong types are
      refused with a 400, as a collector would), its ids checked as OTLP's JSON encoding wants them
      (hex, 32 and 16 digits), and each span appended to S as one JSON line.
  otlp_receiver.py check --spans S [--require NAME ...]   finds a trace that holds every required
      span, joined into one tree (each parent in the trace), from both processes; prints it and
      exits 1 if there is none.
"""
import argparse
import json
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

HEX32 = re.compile(r"^[0-9a-f]{32}$")
HEX16 = re.compile(r"^[0-9a-f]{16}$")
LOCK = threading.Lock()


def attribute_value(value):
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in value:
            return value[key]
    if "intValue" in value:
        return int(value["intValue"])
    return value


def flatten(export):
    """The spans of one export, each with its service's name."""
    spans = []
    for resource_spans in export.get("resourceSpans", []):
        resource = {a["key"]: attribute_value(a["value"]) for a in resource_spans.get("resource", {}).get("attributes", [])}
        for scope_spans in resource_spans.get("scopeSpans", []):
            for span in scope_spans.get("spans", []):
                for field, pattern in (("traceId", HEX32), ("spanId", HEX16)):
                    if not pattern.match(span.get(field, "")):
                        raise ValueError(f"{field} {span.get(field)!r} is not OTLP JSON's lowercase hex")
                if "parentSpanId" in span and not HEX16.match(span["parentSpanId"]):
                    raise ValueError(f"parentSpanId {span['parentSpanId']!r} is not 16 hex digits")
                if int(span["endTimeUnixNano"]) < int(span["startTimeUnixNano"]):
                    raise ValueError(f"span {span['name']} ends before it starts")
                spans.append({
                    "service": resource.get("service.name"), "name": span["name"], "kind": span.get("kind"),
                    "trace": span["traceId"], "span": span["spanId"], "parent": span.get("parentSpanId"),
                    "start": int(span["startTimeUnixNano"]), "end": int(span["endTimeUnixNano"]),
                    "attributes": {a["key"]: attribute_value(a["value"]) for a in span.get("attributes", [])},
                    "status": span.get("status", {}).get("code", 0),
                })
    return spans


def serve(args):
    out = open(args.spans, "a", encoding="utf-8")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            try:
                if self.path != "/v1/traces":
                    raise ValueError(f"unexpected path {self.path}")
                if not self.headers.get("Content-Type", "").startswith("application/json"):
                    raise ValueError("Content-Type must be application/json")
                text = body.decode("utf-8")
                json_format.Parse(text, ExportTraceServiceRequest())   # the schema, strictly
                spans = flatten(json.loads(text))
            except Exception as error:   # a collector answers 400 to what it cannot parse
                print(f"otlp_receiver: refused an export: {error}", file=sys.stderr, flush=True)
                self.send_response(400)
                self.end_headers()
                return
            with LOCK:
                for span in spans:
                    out.write(json.dumps(span) + "\n")
                out.flush()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *_):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(args.port_file, "w", encoding="utf-8") as file:
        file.write(str(server.server_address[1]))
    server.serve_forever()


def trees(spans):
    by_trace = {}
    for span in spans:
        by_trace.setdefault(span["trace"], []).append(span)
    return by_trace


def print_tree(spans, out=sys.stdout):
    ids = {s["span"] for s in spans}
    children = {}
    for span in spans:
        children.setdefault(span["parent"] if span["parent"] in ids else None, []).append(span)
    origin = min(s["start"] for s in spans)

    def walk(parent, depth):
        for span in sorted(children.get(parent, []), key=lambda s: s["start"]):
            keys = ("http.route", "http.response.status_code", "apple.environment", "apple.status", "receiptq.outcome")
            shown = ", ".join(f"{k}={span['attributes'][k]}" for k in keys if k in span["attributes"])
            print(f"  {'  ' * depth}{span['name']}  [{span['service']}]  +{(span['start'] - origin) / 1e6:.1f} ms, "
                  f"{(span['end'] - span['start']) / 1e6:.1f} ms{'  ' + shown if shown else ''}", file=out)
            walk(span["span"], depth + 1)

    walk(None, 0)


def check(args):
    deadline = time.time() + args.wait
    while True:
        spans = []
        try:
            with open(args.spans, encoding="utf-8") as file:
                spans = [json.loads(line) for line in file if line.strip()]
        except FileNotFoundError:
            pass
        complete = []
        for trace, members in trees(spans).items():
            names = {s["name"] for s in members}
            ids = {s["span"] for s in members}
            roots = [s for s in members if s["parent"] not in ids]
            services = {s["service"] for s in members}
            if set(args.require) <= names and len(roots) == 1 and {"receiptq-api", "receiptq-worker"} <= services:
                complete.append(trace)
        if complete or time.time() > deadline:
            break
        time.sleep(0.5)
    traces = trees(spans)
    print(f"otlp: {len(spans)} spans in {len(traces)} traces; {len(complete)} hold a whole purchase "
          f"({', '.join(args.require)}) in one tree")
    if not complete:
        for trace, members in list(traces.items())[:3]:
            print(f"  an incomplete trace {trace}:")
            print_tree(members)
        return 1
    print(f"  trace {complete[0]}:")
    print_tree(traces[complete[0]])
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as file:
            json.dump(sorted(traces[complete[0]], key=lambda s: s["start"]), file, indent=2)
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    serve_parser = commands.add_parser("serve")
    serve_parser.add_argument("--port-file", required=True)
    serve_parser.add_argument("--spans", required=True)
    check_parser = commands.add_parser("check")
    check_parser.add_argument("--spans", required=True)
    check_parser.add_argument("--require", nargs="+", required=True)
    check_parser.add_argument("--wait", type=float, default=10)
    check_parser.add_argument("--json-out")
    args = parser.parse_args()
    if args.command == "serve":
        serve(args)
        return 0
    return check(args)


if __name__ == "__main__":
    sys.exit(main())
