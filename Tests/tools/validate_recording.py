#!/usr/bin/python3
"""Validates a bleexplr recording (JSON Lines) against docs/recording.schema.json.

usage: validate_recording.py SCHEMA RECORDING

The first line must be a header; every other complete line an event. A last line
without its newline (a recording cut by kill -9) is ignored, as the format allows.
Needs Debian's python3-jsonschema (installed by scripts/install-deps).
"""
import json
import sys

import jsonschema


def check_lines(validator, lines, extra=lambda number, obj: []) -> int:
    """Prints each line's errors (not JSON, `extra`'s, the schema's); returns how many."""
    errors = 0
    for number, line in enumerate(lines, 1):
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            print(f"line {number}: not JSON: {e}")
            errors += 1
            continue
        for message in extra(number, obj):
            print(f"line {number}: {message}")
            errors += 1
        for err in validator.iter_errors(obj):
            print(f"line {number}: {err.json_path}: {err.message}")
            errors += 1
    return errors


def main() -> int:
    schema_path, recording_path = sys.argv[1], sys.argv[2]
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    validator = jsonschema.Draft202012Validator(schema)
    with open(recording_path, encoding="utf-8") as f:
        text = f.read()
    lines = text.split("\n")
    if not text.endswith("\n"):
        lines = lines[:-1]  # an unfinished last line
    lines = [l for l in lines if l]
    if not lines:
        print("empty recording")
        return 1
    def header_first(number, obj):
        if number == 1 and obj.get("type") != "header":
            return ["the first line must be the header"]
        return []
    errors = check_lines(validator, lines, header_first)
    print(f"{len(lines)} lines, {errors} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
