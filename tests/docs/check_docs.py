#!/usr/bin/env python3
# tests/docs/check_docs.py: checks that the docs tell the truth about the code.
#
#   check_docs.py constants DOC_CONSTANTS_PROGRAM FILE_OR_DIR...
#       Every value a doc marks as a library constant equals that constant
#       (the program, tests/docs/doc_constants.cpp, prints them).
#   check_docs.py headers SPEC_MD INCLUDE_DIR
#       docs/spec.md names every installed public header (<fl/x.hpp>, <fl/fl.h>).
#   check_docs.py paths ROOT DIR...
#       Every source file under ROOT/DIR opens with a comment naming its path.
#   check_docs.py links DOCS_DIR
#       Every link from one page of DOCS_DIR to another (page.md, page.md#anchor,
#       #anchor) names a page and a heading that exist: the docs point to
#       performance.md's sections instead of repeating figures.
#
# Marking a quoted constant: an HTML comment right after the value, which no
# renderer shows:
#     about 1.6 MiB<!--fl:pool_thread_cache_max_bytes--> per thread
#     leaves of 4,096 bytes<!--fl:rope_leaf_max_bytes-->
#     32<!--fl:pool_keep_min_bytes:MiB-->-256 MiB<!--fl:pool_keep_max_bytes-->
# The value is the number just before the marker, optionally followed by one
# unit word or joined to it (a 40-byte header): KiB, MiB, GiB (powers of
# 1024), bytes, or a count word (blocks, classes, ms, ...; see COUNT_WORDS).
# A marker may not sit inside a code span, where it would show. A unit after
# a colon in the marker
# applies when the text gives none (the first number of a range). The names
# are the lines tests/docs/doc_constants.cpp prints, taken from the library's
# constexpr values. A value is exact unless the words just before it say
# "about" or "~": then it must be the constant rounded to the digits shown
# (1.6 MiB: the constant is 1.55-1.65 MiB).
import decimal
import os
import re
import subprocess
import sys

UNITS = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "bytes": 1, "byte": 1, "B": 1}
COUNT_WORDS = {"ms", "blocks", "block", "classes", "class", "chars", "levels", "members",
               "children", "edges", "entries", "pages"}
MARKER = re.compile(r"<!--\s*fl:([A-Za-z0-9_\[\]]+)(?::([A-Za-z]+))?\s*-->")
# The number and its unit word at the end of the text before a marker, after
# any closing code or emphasis marks.
VALUE = re.compile(r"(~|\babout\s+|\baround\s+)?"        # an approximation
                   r"(\d[\d,]*(?:\.\d+)?)(?:\s*-|\s*)"      # the number
                   r"([A-Za-z]+)?[`*_]*\s*$")                # its unit word


def markdown_files(paths):
    for p in paths:
        if os.path.isdir(p):
            for name in sorted(os.listdir(p)):
                if name.endswith(".md"):
                    yield os.path.join(p, name)
        else:
            yield p


def read_constants(program):
    out = subprocess.run([program], check=True, capture_output=True, text=True).stdout
    values = {}
    for line in out.splitlines():
        name, value = line.split()
        values[name] = int(value)
    return values


def check_value(stated_text, about, unit_word, marker_unit, true_value):
    """None when the stated value matches the constant, else a reason."""
    unit = unit_word if unit_word else marker_unit
    if unit is None or unit in COUNT_WORDS:
        scale = 1
    elif unit in UNITS:
        scale = UNITS[unit]
    else:
        return f"unknown unit {unit!r} after the value"
    stated = decimal.Decimal(stated_text.replace(",", ""))
    exact = decimal.Decimal(true_value) / decimal.Decimal(scale)
    if about:
        step = decimal.Decimal(1).scaleb(stated.as_tuple().exponent)
        shown = exact.quantize(step, rounding=decimal.ROUND_HALF_UP)
        if shown != stated:
            return f"states about {stated_text} {unit or ''}, the code has {true_value} ({shown})"
    elif exact != stated:
        shown = f"{exact.normalize()} {unit or ''}"
        return f"states {stated_text} {unit or ''}, the code has {true_value} ({shown})"
    return None


def check_constants(program, paths):
    constants = read_constants(program)
    errors, checked = [], 0
    for path in markdown_files(paths):
        with open(path, encoding="utf-8") as f:
            lines = f.readlines()
        for number, line in enumerate(lines, 1):
            for m in MARKER.finditer(line):
                name, marker_unit = m.group(1), m.group(2)
                where = f"{path}:{number}: {name}"
                if line[: m.start()].count("`") % 2:
                    # Inside a code span the comment shows: the syntax itself may
                    # be shown so, a constant's marker may not.
                    if name in constants:
                        errors.append(f"{where}: marker inside a code span, where it shows")
                    continue
                if name not in constants:
                    errors.append(f"{where}: no such constant (doc_constants.cpp prints them)")
                    continue
                before = MARKER.sub("", line[: m.start()])
                v = VALUE.search(before)
                if not v:
                    errors.append(f"{where}: no value right before the marker")
                    continue
                reason = check_value(v.group(2), v.group(1), v.group(3), marker_unit,
                                     constants[name])
                checked += 1
                if reason:
                    errors.append(f"{where}: {reason}")
    for e in errors:
        print(e)
    if checked == 0 and not errors:
        print("no marked constants found: the markers or this checker are broken")
        return 1
    print(f"{checked} quoted constants checked, {len(errors)} wrong")
    return 1 if errors else 0


def check_headers(spec_md, include_dir):
    with open(spec_md, encoding="utf-8") as f:
        spec = f.read()
    missing = []
    for name in sorted(os.listdir(include_dir)):
        if name.endswith((".hpp", ".h")) and f"<fl/{name}>" not in spec:
            missing.append(name)
    for name in missing:
        print(f"{spec_md}: does not name the public header <fl/{name}>")
    print(f"{len(missing)} public headers missing from {spec_md}")
    return 1 if missing else 0


SOURCE_EXT = (".cpp", ".hpp", ".h", ".c", ".py")


def check_paths(root, dirs):
    wrong, seen = [], 0
    for d in dirs:
        for dirpath, _, names in os.walk(os.path.join(root, d)):
            for name in sorted(names):
                if not name.endswith(SOURCE_EXT):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                # Public headers name themselves as they are included: fl/x.hpp.
                shown = rel[len("include/"):] if rel.startswith("include/") else rel
                with open(path, encoding="utf-8") as f:
                    first = f.readline()
                seen += 1
                if not re.match(r"(//|#|/\*)\s*" + re.escape(shown) + r"\b", first):
                    wrong.append(f"{rel}: first line does not name {shown}: {first.strip()}")
    for w in wrong:
        print(w)
    print(f"{seen} source files, {len(wrong)} not opening with their path")
    return 1 if wrong or seen == 0 else 0


def slug(heading):
    # GitHub's anchors: lower case, punctuation dropped, spaces to hyphens.
    text = re.sub(r"<!--.*?-->", "", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    found, seen = set(), {}
    in_code = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                in_code = not in_code
            if in_code or not line.startswith("#"):
                continue
            base = slug(line.lstrip("#"))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
    return found


LINK = re.compile(r"\]\(([A-Za-z0-9_\-]*\.md)?(?:#([^)\s]+))?\)")


def check_links(docs_dir):
    bad, seen = [], 0
    for path in markdown_files([docs_dir]):
        with open(path, encoding="utf-8") as f:
            lines = f.readlines()
        for number, line in enumerate(lines, 1):
            for m in LINK.finditer(line):
                page, anchor = m.group(1), m.group(2)
                if not page and not anchor:
                    continue
                target = os.path.join(docs_dir, page) if page else path
                seen += 1
                if not os.path.exists(target):
                    bad.append(f"{path}:{number}: links to {page}, which does not exist")
                elif anchor and anchor not in anchors(target):
                    bad.append(f"{path}:{number}: {page or ''}#{anchor} names no heading")
    for b in bad:
        print(b)
    print(f"{seen} links between pages checked, {len(bad)} broken")
    return 1 if bad else 0


def main(argv):
    if len(argv) >= 4 and argv[1] == "constants":
        return check_constants(argv[2], argv[3:])
    if len(argv) == 4 and argv[1] == "headers":
        return check_headers(argv[2], argv[3])
    if len(argv) >= 4 and argv[1] == "paths":
        return check_paths(argv[2], argv[3:])
    if len(argv) == 3 and argv[1] == "links":
        return check_links(argv[2])
    print("usage: check_docs.py constants|headers|paths|links ... (see the comment at its top)")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
