# tools/gdb/fl_printers.py: GDB pretty-printers for fl's strings.
#
#   fl::string (any fl::basic_string)  "text"             inline or heap
#   fl::immutable_string               "text"             inline or shared
#   fl::rope                           fl::rope of N bytes: "first 200 bytes"...
#   fl_str (the C API)                 "text"
#
# Programs linked with libfl load this file by themselves: libfl carries it in
# its .debug_gdb_scripts section (src/gdb_scripts.cpp), so GDB runs it when
# its auto-load safe-path allows the program (add-auto-load-safe-path, see
# docs/debugging.md). By hand: (gdb) source tools/gdb/fl_printers.py
#
# Layouts: read from the program, not from debug info. libfl exports the
# table fl_gdb_layout (src/gdb_scripts.cpp), every offset and size these
# printers use, computed by the compiler from the headers that define them
# (detail/string_layout.h, detail/immutable_rep.hpp, detail/rope_node.hpp).
# So a Release libfl, installed, with no debug info for its internal types,
# prints like a -g build; the program needs debug info only for the type of
# the variable printed. The string encoding alone is also written below
# (STRING_LAYOUT, from detail/string_layout.h), so that fl::string and fl_str
# print even where the table cannot be found (a program whose symbol table
# was stripped, the script sourced by hand); the gdb_printers test checks it
# against the table.
import struct

import gdb
import gdb.printing

# How many bytes of a rope are shown; the rest is counted, not read.
ROPE_PREVIEW = 200


def _read(addr, n):
    if n == 0:
        return b""
    return gdb.selected_inferior().read_memory(int(addr), n).tobytes()


def _quote(data, more=False):
    """A C string literal of `data` (bytes), with escapes for what is not
    printable UTF-8 text."""
    out = ['"']
    text = data.decode("utf-8", errors="surrogateescape")
    for ch in text:
        o = ord(ch)
        if ch == '"' or ch == "\\":
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif 0xDC80 <= o <= 0xDCFF:  # a byte that is not valid UTF-8
            out.append("\\%03o" % (o - 0xDC00))
        elif o < 0x20 or o == 0x7F:
            out.append("\\%03o" % o)
        else:
            out.append(ch)
    out.append('"')
    if more:
        out.append("...")
    return "".join(out)


def _limit():
    """GDB's `print elements` (0 or unlimited: None)."""
    try:
        n = gdb.parameter("print elements")
    except RuntimeError:
        return 200
    return n if n else None


# The string encoding of detail/string_layout.h (FL_STR_*), for programs
# without the table; the table's values win where it exists.
STRING_LAYOUT = {
    "string_bytes": 24,
    "string_tag_byte": 23,
    "string_tag_heap": 0x80,
    "string_inline_capacity": 23,
    "string_word_ptr": 0,
    "string_word_size": 1,
    "string_word_cap": 2,
}

# Bytes of one fl_gdb_layout entry: a 24-byte name, then a 64-bit value.
_ENTRY_NAME = 24
_ENTRY_BYTES = 32
_ENTRY_MAX = 128


def layout_table():
    """libfl's fl_gdb_layout as a dict, or None when the program has no such
    symbol. Found through the symbol table, which a Release libfl keeps."""
    try:
        addr = int(gdb.parse_and_eval("(unsigned long)&fl_gdb_layout"))
    except gdb.error:
        return None
    table = {}
    for i in range(_ENTRY_MAX):
        raw = _read(addr + i * _ENTRY_BYTES, _ENTRY_BYTES)
        name = raw[:_ENTRY_NAME].split(b"\0", 1)[0].decode("ascii", errors="replace")
        if not name:
            return table
        table[name] = struct.unpack_from("<Q", raw, _ENTRY_NAME)[0]
    raise gdb.GdbError("fl printers: fl_gdb_layout has no end (not fl's table?)")


def _layout(*needed):
    """The table, with STRING_LAYOUT for what it lacks; an error naming the
    first of `needed` that neither has."""
    table = dict(STRING_LAYOUT)
    found = layout_table()
    if found:
        table.update(found)
    for name in needed:
        if name not in table:
            raise gdb.GdbError(
                "fl printers: no '%s' in this program's fl_gdb_layout (libfl's symbol table "
                "stripped, or a libfl older than these printers)" % name)
    return table


def check_string_layout():
    """The names whose STRING_LAYOUT value differs from the program's table
    (empty when they agree); None without a table. For the gdb_printers test."""
    found = layout_table()
    if found is None:
        return None
    return sorted(k for k, v in STRING_LAYOUT.items() if found.get(k) != v)


def _object_bytes(val, n):
    """The first n bytes of the object `val`, read from memory (or from the
    value itself when it has no address)."""
    if val.address is not None:
        return _read(int(val.address), n)
    if hasattr(val, "bytes"):
        return bytes(val.bytes[:n])
    raise gdb.GdbError("fl printers: the value has no address to read")


def _u(raw, at, size=8):
    return int.from_bytes(raw[at:at + size], "little")


def _string_text(raw, lay, what):
    """(bytes shown, more) of the 24-byte string encoding in raw."""
    tag = raw[lay["string_tag_byte"]]
    limit = _limit()
    if tag & lay["string_tag_heap"]:
        ptr = _u(raw, 8 * lay["string_word_ptr"])
        size = _u(raw, 8 * lay["string_word_size"])
        shown = size if limit is None else min(size, limit)
        return _read(ptr, shown), shown < size
    n = lay["string_inline_capacity"] - tag
    if n < 0:
        raise gdb.GdbError("%s: corrupt inline size byte %d (not initialized?)" % (what, tag))
    shown = n if limit is None else min(n, limit)
    return raw[:shown], shown < n


class StringPrinter:
    """fl::basic_string<A> (and fl_str): the 24-byte encoding of
    detail/string_layout.h, inline or heap."""

    what = "fl::string"

    def __init__(self, val):
        self.val = val

    def to_string(self):
        lay = _layout()
        raw = _object_bytes(self.val, lay["string_bytes"])
        data, more = _string_text(raw, lay, self.what)
        return _quote(data, more)


class CStrPrinter(StringPrinter):
    """fl_str: the same 24 bytes as fl::string."""

    what = "fl_str"


class ImmutablePrinter:
    """fl::immutable_string: a 16-byte handle, inline or shared."""

    def __init__(self, val):
        self.val = val

    def to_string(self):
        lay = _layout("immutable_bytes", "immutable_inline_max", "immutable_shared_tag",
                      "immutable_header")
        raw = _object_bytes(self.val, lay["immutable_bytes"])
        word1 = _u(raw, 8)
        tag = lay["immutable_shared_tag"]
        limit = _limit()
        if word1 & tag:
            size = word1 & ~tag
            shown = size if limit is None else min(size, limit)
            return _quote(_read(_u(raw, 0) + lay["immutable_header"], shown), shown < size)
        n = lay["immutable_inline_max"] - raw[lay["immutable_bytes"] - 1]
        if n < 0:
            raise gdb.GdbError("fl::immutable_string: corrupt inline size byte %d" % raw[-1])
        return _quote(raw[:n])


class RopePrinter:
    """fl::rope: the size, and the first ROPE_PREVIEW bytes read leaf by leaf
    (only the leaves that hold them are visited)."""

    NEEDED = ("edge_bytes", "edge_p", "edge_off", "edge_len", "node_height", "node_height_bytes",
              "node_count", "node_count_bytes", "chunk_data", "inner_child")

    def __init__(self, val):
        self.val = val

    def collect(self, lay, edge, want, out, depth=0):
        """Appends up to `want` bytes of the edge (raw bytes) to out; returns
        the bytes added."""
        p = _u(edge, lay["edge_p"])
        off = _u(edge, lay["edge_off"])
        length = _u(edge, lay["edge_len"])
        if p == 0 or length == 0 or want == 0:
            return 0
        if depth > 64:
            raise gdb.GdbError("fl::rope: deeper than any rope (corrupt?)")
        height = _u(_read(p + lay["node_height"], lay["node_height_bytes"]), 0,
                    lay["node_height_bytes"])
        if height == 0:
            data = _u(_read(p + lay["chunk_data"], 8), 0)
            n = min(length, want)
            out.append(_read(data + off, n))
            return n
        count = _u(_read(p + lay["node_count"], lay["node_count_bytes"]), 0,
                   lay["node_count_bytes"])
        got = 0
        step = lay["edge_bytes"]
        for i in range(count):
            if got >= want:
                break
            child = _read(p + lay["inner_child"] + i * step, step)
            got += self.collect(lay, child, want - got, out, depth + 1)
        return got

    def to_string(self):
        lay = _layout(*self.NEEDED)
        root = _object_bytes(self.val, lay["edge_bytes"])  # the rope is its root edge
        size = _u(root, lay["edge_len"])
        want = min(size, ROPE_PREVIEW)
        parts = []
        self.collect(lay, root, want, parts)
        data = b"".join(parts)
        return "fl::rope of %d bytes: %s" % (size, _quote(data, len(data) < size))


def build_printer():
    pp = gdb.printing.RegexpCollectionPrettyPrinter("fl")
    pp.add_printer("fl::basic_string", r"^fl::basic_string<.*>$", StringPrinter)
    pp.add_printer("fl::immutable_string", r"^fl::immutable_string$", ImmutablePrinter)
    pp.add_printer("fl::rope", r"^fl::rope_leaf\d+::rope$", RopePrinter)
    pp.add_printer("fl_str", r"^fl_str$", CStrPrinter)
    return pp


# Once per GDB session, however many objfiles carry this script.
if not getattr(gdb, "_fl_printers_registered", False):
    gdb.printing.register_pretty_printer(None, build_printer(), replace=True)
    gdb._fl_printers_registered = True
