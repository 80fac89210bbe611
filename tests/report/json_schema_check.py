# SPDX-License-Identifier: GPL-3.0-or-later
#
# json_schema_check.py -- the checker behind test_json_schemas.sh: validates
# emlat's JSON outputs against the schemas of docs/schema (python3-jsonschema,
# draft 2020-12) and checks that the schemas and the docs agree.
#
#   python3 json_schema_check.py SRCDIR MANIFEST
#
# MANIFEST has one line per output: "SCHEMA MODE FILE", MODE being "doc"
# (FILE is one JSON document), "lines" (FILE is JSON lines, each checked;
# an empty FILE is an error) or "chrome" (FILE is a Chrome Trace Event
# document, checked for the Trace Event Format's required fields).
# Besides validating, it
#   - counts the "record" kinds of dump and export lines and fails unless
#     every kind of record.schema.json and dump-line.schema.json was seen
#     (so every branch of the schemas was exercised);
#   - checks that the validator rejects an undocumented key and a
#     mistyped value (negative controls: a schema that accepted anything
#     would pass every output);
#   - checks that every key a schema defines is named in the docs: the
#     record, dump, export and check keys as `key` in docs/JSON.md, the
#     report and compare keys in docs/REPORT.md.
# Exit 0 when all passed, 1 otherwise; every failure is printed.

import copy
import json
import os
import re
import sys
import warnings

import jsonschema
from jsonschema import Draft202012Validator

failures = []
# A key no schema may accept: not a documented name, and not of the form of
# a SESSION key either (session_meta is keyed by any [a-z0-9_.] name).
BOGUS = "Undocumented-Key"


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def load_schemas(d):
    out = {}
    for name in sorted(os.listdir(d)):
        if name.endswith(".schema.json"):
            with open(os.path.join(d, name)) as f:
                out[name] = json.load(f)
    return out


def make_validator(schemas, name):
    """A validator for schemas[name] that resolves the relative $refs
    ("common.schema.json#/$defs/uint") among the files of docs/schema."""
    schema = schemas[name]
    Draft202012Validator.check_schema(schema)
    try:
        from referencing import Registry, Resource  # jsonschema >= 4.18
        from referencing.jsonschema import DRAFT202012
        registry = Registry().with_resources(
            (n, Resource.from_contents(s, default_specification=DRAFT202012))
            for n, s in schemas.items())
        return Draft202012Validator({"$ref": name}, registry=registry)
    except ImportError:  # Debian 12: jsonschema 4.10
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            resolver = jsonschema.RefResolver(base_uri=name, referrer=schema,
                                              store=dict(schemas))
        return Draft202012Validator(schema, resolver=resolver)


def explain(e):
    """The errors worth showing for E: when a oneOf of record kinds failed,
    those of the branch whose "record" matched, not "valid under none"."""
    if e.validator == "oneOf" and e.context:
        branches = {}
        for sub in e.context:
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        for subs in branches.values():
            if not any(list(x.absolute_path)[-1:] == ["record"] or
                       x.validator == "const" for x in subs):
                return [x for sub in subs for x in explain(sub)]
    return [e]


def errors_of(validator, doc, limit=3):
    out = []
    for top in validator.iter_errors(doc):
        for e in explain(top):
            where = "/".join(str(p) for p in e.absolute_path) or "(top)"
            out.append("%s: %s" % (where, e.message[:300]))
            if len(out) >= limit:
                return out
    return out


def check_chrome(path, doc):
    """The Trace Event Format's required fields (JSON Object Format)."""
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        fail("%s: no traceEvents array" % path)
        return 0
    n = 0
    for i, e in enumerate(doc["traceEvents"]):
        why = None
        if not isinstance(e, dict):
            why = "not an object"
        elif not isinstance(e.get("ph"), str) or not isinstance(e.get("name"), str):
            why = "no ph or name"
        elif not all(isinstance(e.get(k), int) for k in ("pid", "tid")):
            why = "pid and tid must be integers"
        elif e["ph"] != "M" and not isinstance(e.get("ts"), (int, float)):
            why = "no numeric ts"
        elif e["ph"] == "X" and not isinstance(e.get("dur"), (int, float)):
            why = "complete event without numeric dur"
        elif e["ph"] in ("b", "e") and ("id" not in e or "cat" not in e):
            why = "async event without id or cat"
        elif "args" in e and not isinstance(e["args"], dict):
            why = "args not an object"
        if why:
            fail("%s: event %d: %s: %s" % (path, i, why, json.dumps(e)[:200]))
            return n
        n += 1
    return n


def validate(schemas, validators, schema, mode, path, kinds):
    with open(path, "rb") as f:
        data = f.read().decode("utf-8")  # the writer promises UTF-8
    if mode == "chrome":
        return check_chrome(path, json.loads(data))
    v = validators.setdefault(schema, make_validator(schemas, schema))
    docs = []
    if mode == "doc":
        docs.append((1, json.loads(data)))
    else:
        lines = data.split("\n")
        if lines[-1] != "":
            fail("%s: last line not terminated" % path)
        for no, line in enumerate(lines[:-1], 1):
            try:
                docs.append((no, json.loads(line)))
            except ValueError as e:
                fail("%s:%d: not JSON: %s" % (path, no, e))
        if not docs:
            fail("%s: no lines" % path)
    bad = 0
    for no, doc in docs:
        errs = errors_of(v, doc)
        if errs:
            bad += 1
            if bad <= 5:
                fail("%s:%d: against %s: %s" % (path, no, schema, "; ".join(errs)))
        if isinstance(doc, dict) and "record" in doc:
            kinds.setdefault(schema, set()).add(doc["record"])
    if bad > 5:
        fail("%s: %d invalid documents in all" % (path, bad))
    return len(docs)


def kinds_of(schemas, name):
    return {d["properties"]["record"]["const"]
            for d in schemas[name]["$defs"].values()
            if "properties" in d and "record" in d["properties"]}


def negative_controls(schemas, validators, samples):
    """Each schema must reject an undocumented key and a mistyped value."""
    for schema, doc in samples.items():
        v = validators[schema]
        extra = copy.deepcopy(doc)
        extra[BOGUS] = 1
        if not list(v.iter_errors(extra)):
            fail("%s accepts an undocumented key" % schema)
        # A value of the wrong type: a number as a string, or a string as
        # a number, at the first key of either type.
        mistyped = copy.deepcopy(doc)
        for k, x in mistyped.items():
            if isinstance(x, bool) or x is None:
                continue
            if isinstance(x, int):
                mistyped[k] = str(x)
                break
            if isinstance(x, str):
                mistyped[k] = 1
                break
        if not list(v.iter_errors(mistyped)):
            fail("%s accepts a mistyped value (%s)" % (schema, json.dumps(mistyped)[:120]))
        # A nested key too, where there is a nested object.
        for k, x in doc.items():
            if isinstance(x, dict):
                nested = copy.deepcopy(doc)
                nested[k][BOGUS] = 1
                if not list(v.iter_errors(nested)):
                    fail("%s accepts an undocumented key inside %s" % (schema, k))
                break


def property_names(node, out):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "properties" and isinstance(v, dict):
                out.update(v.keys())
            property_names(v, out)
    elif isinstance(node, list):
        for v in node:
            property_names(v, out)
    return out


def docs_name_every_key(srcdir, schemas):
    def text(name):
        with open(os.path.join(srcdir, "docs", name)) as f:
            return f.read()
    json_md, report_md = text("JSON.md"), text("REPORT.md")
    for schema in ("record.schema.json", "dump-line.schema.json",
                   "export-line.schema.json", "check.schema.json", "common.schema.json"):
        for key in sorted(property_names(schemas[schema], set())):
            if "`%s`" % key not in json_md:
                fail("docs/JSON.md does not name key `%s` of %s" % (key, schema))
    # Keys that are names of an enumeration (by_status, by_root_kind,
    # missing) are documented by the enumeration (FORMAT.md section 7).
    enum_names = set()
    for d in schemas["common.schema.json"]["$defs"].values():
        enum_names.update(x for x in d.get("enum", []) if isinstance(x, str))
    for schema in ("report.schema.json", "compare.schema.json"):
        for key in sorted(property_names(schemas[schema], set()) - enum_names):
            if not re.search(r"(?<![A-Za-z0-9_.])%s(?![A-Za-z0-9_])" % re.escape(key), report_md):
                fail("docs/REPORT.md does not name key %s of %s" % (key, schema))
    for name in schemas:
        if name not in json_md and name not in report_md:
            fail("docs/schema/%s is referenced from neither JSON.md nor REPORT.md" % name)


def main():
    srcdir, manifest = sys.argv[1], sys.argv[2]
    schemas = load_schemas(os.path.join(srcdir, "docs", "schema"))
    validators, kinds, samples = {}, {}, {}
    total = 0
    with open(manifest) as f:
        for line in f:
            schema, mode, path = line.rstrip("\n").split(" ", 2)
            try:
                n = validate(schemas, validators, schema, mode, path, kinds)
            except (OSError, ValueError) as e:
                fail("%s: %s" % (path, e))
                continue
            total += n
            print("ok %5d %-24s %s" % (n, schema, os.path.basename(path)))
            if mode == "doc" and schema not in samples:
                with open(path) as g:
                    samples[schema] = json.load(g)
            elif mode == "lines" and schema not in samples:
                with open(path) as g:
                    samples[schema] = json.loads(g.readline())
    for schema, want in (("dump-line.schema.json",
                          kinds_of(schemas, "record.schema.json")
                          | kinds_of(schemas, "dump-line.schema.json")),
                         ("export-line.schema.json", kinds_of(schemas, "record.schema.json"))):
        missing = want - kinds.get(schema, set())
        if missing:
            fail("no %s output had a line of kind %s" % (schema, ", ".join(sorted(missing))))
    negative_controls(schemas, validators, samples)
    docs_name_every_key(srcdir, schemas)
    print("%d documents and lines checked, %d failures" % (total, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
