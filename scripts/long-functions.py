#!/usr/bin/env python3
"""List the functions in src/ longer than 80 lines, outside tests.

A function's length counts from its `fn` line to its closing brace, both
included. Test code is left out: `#[cfg(test)]` modules and items, and files
that only a `#[cfg(test)] mod name;` brings in.

Prints `file<TAB>name<TAB>lines` for each function over the limit, longest
first, marking the ones kept whole on purpose. Exits 1 when one of them lacks
a comment on the lines just above it (between it and the item before) that
says "one piece" and why: a long function is split into helpers unless it
must be one piece.

Usage: scripts/long-functions.py [--limit N] [ROOT]   (ROOT defaults to the
repository this script lives in)
"""

import argparse
import re
import sys
from pathlib import Path

FN = re.compile(r"\bfn\s+([A-Za-z_][A-Za-z0-9_]*)")
CFG_TEST = re.compile(r"#\[cfg\((?:all\()?test\b")
MOD_DECL = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+([A-Za-z_][A-Za-z0-9_]*)\s*;")


def blank_out(text):
    """The source with comments, strings and char literals replaced by spaces.

    Newlines are kept, so line numbers still hold; braces in text no longer
    count as code.
    """
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        nxt = text[i + 1] if i + 1 < n else ""
        if c == "/" and nxt == "/":
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c == "/" and nxt == "*":
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:]) and not (i and (text[i - 1].isalnum() or text[i - 1] == "_")):
            hashes = re.match(r"r(#*)\"", text[i:]).group(1)
            end = text.find('"' + hashes, i + 2 + len(hashes))
            end = n if end < 0 else end + 1 + len(hashes)
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(re.sub(r"[^\n]", " ", text[i : j + 1]))
            i = j + 1
        elif c == "'":
            # A char literal ('x', '\n', '\u{..}'), or a lifetime ('a).
            m = re.match(r"'(?:\\(?:u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|.)|[^\\'\n])'", text[i:])
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def matching_brace(code, open_at):
    depth = 0
    for j in range(open_at, len(code)):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(code) - 1


def item_end(code, start):
    """Where the item starting at `start` ends: its closing brace, or its `;`."""
    for j in range(start, len(code)):
        if code[j] == "{":
            return matching_brace(code, j)
        if code[j] == ";":
            return j
    return len(code) - 1


def test_only_files(root):
    """Files under src/ that only a `#[cfg(test)] mod name;` declares."""
    found = set()
    for path in (root / "src").rglob("*.rs"):
        lines = path.read_text().splitlines()
        for k, line in enumerate(lines):
            m = MOD_DECL.match(line)
            if not m or not any(CFG_TEST.search(p) for p in lines[max(0, k - 3) : k]):
                continue
            here = path.parent if path.name in ("mod.rs", "lib.rs", "main.rs") else path.with_suffix("")
            for candidate in (here / f"{m.group(1)}.rs", here / m.group(1) / "mod.rs"):
                if candidate.exists():
                    found.add(candidate.resolve())
    return found


def functions(path):
    """(name, first line, length, text above) for each function outside tests."""
    text = path.read_text()
    code = blank_out(text)
    lines = text.splitlines()
    line_of = lambda at: code.count("\n", 0, at) + 1
    skip = []  # (start, end) offsets of test-only items
    for m in CFG_TEST.finditer(code):
        # The attribute is blanked only if in a comment; find the item after it.
        close = code.find("]", m.end())
        skip.append((m.start(), item_end(code, close + 1)))
    found = []
    for m in FN.finditer(code):
        at = m.start()
        if any(a <= at <= b for a, b in skip):
            continue
        # A body starts at the first `{` before any `;` (trait methods without
        # one end at their `;`).
        body = None
        for j in range(m.end(), len(code)):
            if code[j] == ";":
                break
            if code[j] == "{":
                body = j
                break
        if body is None:
            continue
        first, last = line_of(at), line_of(matching_brace(code, body))
        # The lines above: attributes and comments up to the previous code line.
        k = first - 2
        above = []
        while k >= 0:
            stripped = lines[k].strip()
            if stripped == "" or stripped.startswith(("//", "#[", "#!", "*", "/*")) or stripped.endswith("]"):
                above.append(stripped)
                k -= 1
            else:
                break
        found.append((m.group(1), first, last - first + 1, "\n".join(reversed(above))))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=80)
    parser.add_argument("root", nargs="?", default=Path(__file__).resolve().parent.parent)
    args = parser.parse_args()
    root = Path(args.root)
    tests = test_only_files(root)
    long = []
    for path in sorted((root / "src").rglob("*.rs")):
        if path.resolve() in tests:
            continue
        for name, first, length, above in functions(path):
            if length > args.limit:
                kept = re.search(r"one piece", above, re.IGNORECASE) is not None
                long.append((length, str(path.relative_to(root)), first, name, kept))
    long.sort(key=lambda f: (-f[0], f[1], f[2]))
    for length, file, first, name, kept in long:
        print(f"{file}:{first}\t{name}\t{length}" + ("\tkept as one piece" if kept else ""))
    unexplained = [f for f in long if not f[4]]
    sys.stdout.flush()
    print(
        f"{len(long)} function(s) over {args.limit} lines outside tests, "
        f"{len(unexplained)} without a comment saying why it must be one piece",
        file=sys.stderr,
    )
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
