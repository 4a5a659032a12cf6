"""Counts, from the JSON-Schema-Test-Suite's files alone (not from the gate),
what tests/it/json_schema_suite.rs expects of them (its EXPECTED table):

    python3 tests/corpus/count_json_schema_suite.py target/corpora/jsonschema-4.26.0/json

Per draft: the required cases (tests/<draft>/*.json), those the gate refuses as
documented (a $ref that resolves to http://localhost:1234/ where no $id of the
schema defines it, and a $schema that names no draft the gate knows), and the
optional/format cases whose schema is a `format` alone. Run it after a new pin,
and read what changed before updating the table (docs/testing.md)."""
import json
import os
import sys
from urllib.parse import urljoin, urldefrag
suite = sys.argv[1]
DRAFTS = {"draft4": "http://json-schema.org/draft-04/schema#", "draft6": "http://json-schema.org/draft-06/schema#",
          "draft7": "http://json-schema.org/draft-07/schema#", "draft2019-09": "https://json-schema.org/draft/2019-09/schema",
          "draft2020-12": "https://json-schema.org/draft/2020-12/schema"}
KNOWN = {u.rstrip('#').replace('https://', 'http://') for u in DRAFTS.values()}
REMOTE = "http://localhost:1234/"
NOT_SCHEMAS = {"enum", "const", "examples", "default"}

def walk(v, base, draft, ids, refs):
    if isinstance(v, dict):
        idkey = "id" if draft == "draft4" else "$id"
        has_ref = "$ref" in v
        # Before 2019-09, $ref's siblings are ignored, $id among them.
        if isinstance(v.get(idkey), str) and not (has_ref and draft in ("draft4", "draft6", "draft7")):
            base = urljoin(base, v[idkey])
            ids.add(urldefrag(base)[0])
        for k in ("$anchor", "$dynamicAnchor"):
            if isinstance(v.get(k), str):
                ids.add(urldefrag(base)[0])
        for k in ("$ref", "$dynamicRef", "$recursiveRef"):
            if isinstance(v.get(k), str):
                refs.add(urldefrag(urljoin(base, v[k]))[0])
        for k, x in v.items():
            if k in NOT_SCHEMAS:
                continue
            if k in ("properties", "patternProperties", "definitions", "$defs", "dependentSchemas", "dependencies"):
                if isinstance(x, dict):
                    for y in x.values():
                        walk(y, base, draft, ids, refs)
                continue
            walk(x, base, draft, ids, refs)
    elif isinstance(v, list):
        for x in v:
            walk(x, base, draft, ids, refs)

def refused(schema, draft):
    if isinstance(schema, dict):
        s = schema.get("$schema", DRAFTS[draft])
        if s.rstrip('#').replace('https://', 'http://') not in KNOWN:
            return "meta"
    ids, refs = set(), set()
    walk(schema, "file:///ws/schema.json", draft, ids, refs)
    remote = [r for r in refs if r.startswith(REMOTE) and r not in ids]
    return "remote" if remote else None

for draft in DRAFTS:
    d = os.path.join(suite, "tests", draft)
    cases = ref = meta = 0
    for f in sorted(os.listdir(d)):
        if not f.endswith(".json"):
            continue
        for g in json.load(open(os.path.join(d, f))):
            n = len(g["tests"])
            cases += n
            r = refused(g["schema"], draft)
            if r == "remote":
                ref += n
            if r == "meta":
                meta += n
            if r and os.environ.get("V"):
                print("  ", draft, f, g["description"], r, n)
    fmt = 0
    fd = os.path.join(d, "optional", "format")
    for f in sorted(os.listdir(fd)) if os.path.isdir(fd) else []:
        for g in json.load(open(os.path.join(fd, f))):
            s = g["schema"]
            if isinstance(s, dict) and all(k in ("format", "$schema", "$id", "description") for k in s):
                fmt += len(g["tests"])
    print(f"{draft}: {cases} required cases, {ref + meta} refused ({ref} remote $ref, {meta} custom meta-schema), optional/format alone: {fmt}")
