#!/usr/bin/python3
"""Validates what a bleexplr command printed with --json against docs/output.schema.json.

usage: validate_output.py SCHEMA KIND FILE

KIND is the line each command prints (device, service, value, write, message, watch,
region): every non-empty line of FILE must be one JSON object valid as that kind.
Needs Debian's python3-jsonschema (installed by scripts/install-deps).
"""
import json
import sys

import jsonschema

from validate_recording import check_lines


def main() -> int:
    schema_path, kind, path = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    if kind not in schema["$defs"]:
        print(f"no kind {kind!r} in the schema")
        return 2
    sub = dict(schema)
    sub.pop("oneOf")
    sub["$ref"] = "#/$defs/" + kind
    validator = jsonschema.Draft202012Validator(sub)
    with open(path, encoding="utf-8") as f:
        lines = [l for l in f.read().split("\n") if l]
    if not lines:
        print("no lines")
        return 1
    errors = check_lines(validator, lines)
    print(f"{len(lines)} lines, {errors} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
