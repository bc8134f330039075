#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""validate.py SCHEMA FILE: FILE is KCIDB I/O data of SCHEMA's version.

As kcidb-io validates (jsonschema's Draft 7 validator, its format
checker), plus what the schema cannot say (README.md).  Prints one line
of counts, or every fault found (at most 20) and exits 1."""
import datetime
import json
import sys

import jsonschema

checker = jsonschema.Draft7Validator.FORMAT_CHECKER


@checker.checks("date-time", raises=ValueError)
def date_time(text):
    """RFC 3339: a date, 'T', a time and its offset"""
    if not isinstance(text, str):
        return True
    if len(text) < 20 or text[10] not in "Tt":
        raise ValueError("not RFC 3339: " + text)
    when = datetime.datetime.fromisoformat(text.replace("z", "Z"))
    if when.tzinfo is None:
        raise ValueError("no time offset: " + text)
    return True


def links(data):
    """the ids repeated, and the references to no object of the file"""
    faults = []
    ids = {}
    for kind in ("checkouts", "builds", "tests", "issues", "incidents"):
        ids[kind] = set()
        for i, obj in enumerate(data.get(kind, [])):
            if obj["id"] in ids[kind]:
                faults.append("%s[%d]: id %r twice" % (kind, i, obj["id"]))
            ids[kind].add(obj["id"])
    refs = (("builds", "checkout_id", "checkouts"), ("tests", "build_id", "builds"),
            ("incidents", "issue_id", "issues"), ("incidents", "test_id", "tests"))
    for kind, key, target in refs:
        for i, obj in enumerate(data.get(kind, [])):
            if key in obj and obj[key] not in ids[target]:
                faults.append("%s[%d]: %s %r names none of %s" % (kind, i, key, obj[key], target))
    return faults


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: validate.py SCHEMA FILE")
    with open(sys.argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    try:
        with open(sys.argv[2], encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit("kcidb: %s: not JSON: %s" % (sys.argv[2], e))
    validator = jsonschema.Draft7Validator(schema, format_checker=checker)
    faults = ["%s: %s" % ("/".join(str(p) for p in e.absolute_path) or "(top)", e.message)
              for e in validator.iter_errors(data)]
    if not faults:
        faults = links(data)
    if faults:
        for fault in faults[:20]:
            print("kcidb: %s: %s" % (sys.argv[2], fault), file=sys.stderr)
        sys.exit("kcidb: %s: %d fault(s): not valid KCIDB %d.%d" %
                 (sys.argv[2], len(faults), schema["properties"]["version"]["properties"]["major"]["const"],
                  schema["properties"]["version"]["properties"]["minor"]["maximum"]))
    status = {}
    for test in data.get("tests", []):
        status[test.get("status", "none")] = status.get(test.get("status", "none"), 0) + 1
    print("kcidb: %s: valid KCIDB %d.%d: %d checkouts, %d builds, %d tests (%s), %d issues" %
          (sys.argv[2], data["version"]["major"], data["version"].get("minor", 0),
           len(data.get("checkouts", [])), len(data.get("builds", [])), len(data.get("tests", [])),
           ", ".join("%s %d" % kv for kv in sorted(status.items())) or "none",
           len(data.get("issues", []))))


main()
