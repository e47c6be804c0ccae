#!/usr/bin/env python3
# tests/layering/check_layers.py: checks that no layer of fl includes a layer it
# may not use. The map is the table of src/README.md (one row per layer: its
# folder under src/, its public headers under include/fl/, the layers it may
# include); this program only reads it, so the table is the one owner of the
# layering.
#
#   check_layers.py MAP ROOT
#       MAP   the src/README.md whose table to read
#       ROOT  a tree with src/<layer>/ and include/fl/ (the source tree, or a
#             planted tree for the test of this checker)
#
# A file's layer is its folder under src/, or the row that lists it as a public
# header. Every #include "..." in src/ must be rooted at src/ ("text/x.hpp");
# every #include <fl/...> must name a header of the table. A file may include
# its own layer, the layers its row allows, and the rows marked "everyone"
# (config). Prints each include that breaks a rule, sorted, then a count;
# exits 1 if there is any. Reads text only: no compiler, no timing.
import os
import re
import sys

SOURCE_EXT = (".cpp", ".hpp", ".h", ".c", ".def", ".inc")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def read_map(path):
    # Rows: | `folder/` or `name` | `a.hpp`, `detail/b.hpp` or - | `x`, `y`, nothing or everyone | why |
    layers, header_layer, allowed, folders = [], {}, {}, set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not line.startswith("| `") or len(cells) < 3:
                continue
            name = cells[0].strip("`")
            if name.endswith("/"):
                name = name[:-1]
                folders.add(name)
            layers.append(name)
            for h in re.findall(r"`([^`]+)`", cells[1]):
                if h in header_layer:
                    raise SystemExit(f"{path}: fl/{h} is listed twice")
                header_layer[h] = name
            allowed[name] = set(re.findall(r"`([^`]+)`", cells[2]))
            allowed[name] |= {w for w in ("everyone", "all") if re.search(r"\b%s\b" % w, cells[2])}
    if not layers:
        raise SystemExit(f"{path}: no layer table found")
    everyone = {l for l in layers if "everyone" in allowed[l]}
    for l in layers:
        allowed[l].discard("everyone")
        unknown = allowed[l] - set(layers) - {"all"}
        if unknown:
            raise SystemExit(f"{path}: layer {l} may include unknown layers {sorted(unknown)}")
    return layers, header_layer, allowed, folders, everyone


def main(argv):
    if len(argv) != 3:
        print("usage: check_layers.py MAP ROOT")
        return 2
    map_path, root = argv[1], argv[2]
    layers, header_layer, allowed, folders, everyone = read_map(map_path)
    src, inc = os.path.join(root, "src"), os.path.join(root, "include", "fl")
    files = []  # (relative path, layer or None)
    wrong = []
    for dirpath, _, names in os.walk(src):
        for name in sorted(names):
            if not name.endswith(SOURCE_EXT):
                continue
            rel = os.path.relpath(os.path.join(dirpath, name), src)
            folder = rel.split(os.sep)[0] if os.sep in rel else None
            if folder not in folders:
                wrong.append(f"src/{rel}: not in a folder of the map ({map_path})")
                continue
            files.append(("src/" + rel.replace(os.sep, "/"), folder))
    for dirpath, _, names in os.walk(inc):
        for name in sorted(names):
            if not name.endswith(SOURCE_EXT):
                continue
            rel = os.path.relpath(os.path.join(dirpath, name), inc).replace(os.sep, "/")
            if rel not in header_layer:
                wrong.append(f"include/fl/{rel}: public header missing from the map ({map_path})")
                continue
            files.append(("include/fl/" + rel, header_layer[rel]))
    checked = 0
    for rel, layer in files:
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            lines = f.readlines()
        for number, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            kind, name = m.groups()
            where = f"{rel}:{number}"
            if kind == "<":
                if not name.startswith("fl/"):
                    continue  # the standard library, the OS, simdjson
                target = header_layer.get(name[3:])
                if target is None:
                    wrong.append(f"{where}: <{name}> is not a header of the map")
                    continue
            else:
                first = name.split("/")[0]
                if not rel.startswith("src/") or "/" not in name or first not in folders \
                        or not os.path.isfile(os.path.join(src, name)):
                    wrong.append(f'{where}: "{name}" is not a file rooted at src/ '
                                 f'(write "<layer>/<file>")')
                    continue
                target = first
            checked += 1
            if target == layer or target in everyone or "all" in allowed[layer] \
                    or target in allowed[layer]:
                continue
            wrong.append(f"{where}: {layer} may not include {target} ({name})")
    for w in sorted(wrong):
        print(w)
    print(f"{len(files)} files, {checked} includes of fl checked; "
          f"{len(wrong)} break the layering of {map_path}")
    return 1 if wrong or not files else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
