#!/usr/bin/env python3
"""Every example in Sources/API/openapi.json is valid against its own schema, and every operation
has one: a request example where it takes a body, an example on every response that has a body,
an example for every parameter. Run by ./Deploy/dev fuzz (with schemathesis's Python, which has
jsonschema); exit 1 with the list of what is wrong.

usage: openapi_examples.py [path/to/openapi.json]
"""
import copy
import json
import sys

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

BASE = "urn:receiptq:openapi"


def absolute_refs(node):
    """`#/components/…` → `urn:receiptq:openapi#/components/…`, so the registry resolves them."""
    if isinstance(node, dict):
        return {k: (BASE + v if k == "$ref" and isinstance(v, str) and v.startswith("#") else absolute_refs(v)) for k, v in node.items()}
    if isinstance(node, list):
        return [absolute_refs(v) for v in node]
    return node


def main(path):
    document = json.load(open(path))
    registry = Registry().with_resource(BASE, Resource.from_contents(absolute_refs(document), default_specification=DRAFT202012))
    problems, checked = [], 0

    def check(where, schema, media):
        nonlocal checked
        values = []
        if "example" in media:
            values.append(("example", media["example"]))
        for name, example in media.get("examples", {}).items():
            values.append((name, example.get("value")))
        if not values:
            problems.append(f"{where}: no example")
        for name, value in values:
            validator = Draft202012Validator(absolute_refs(schema), registry=registry)
            for error in validator.iter_errors(value):
                problems.append(f"{where} ({name}): {error.message} at {'/'.join(map(str, error.absolute_path))}")
            checked += 1

    for route, methods in document["paths"].items():
        for method, operation in methods.items():
            where = f"{method.upper()} {route}"
            for parameter in operation.get("parameters", []):
                check(f"{where} parameter {parameter['name']}", parameter["schema"], parameter)
            body = operation.get("requestBody")
            if body:
                for kind, media in body["content"].items():
                    check(f"{where} request {kind}", media["schema"], media)
            for status, response in operation["responses"].items():
                for kind, media in response.get("content", {}).items():
                    check(f"{where} {status} {kind}", media["schema"], media)
                for name, header in response.get("headers", {}).items():
                    if "$ref" in header:
                        header = document["components"]["headers"][header["$ref"].rsplit("/", 1)[1]]
                    check(f"{where} {status} header {name}", header["schema"], header)
    for problem in problems:
        print("openapi examples:", problem)
    print(f"openapi examples: {checked} checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "Sources/API/openapi.json"))
