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
# Layouts read here (the C++ headers own them; keep this file in step):
#   detail/string_core.hpp    ptr | size | cap; the top bit of cap (byte 23) set
#                             means heap, else byte 23 = 23 - size, text inline
#   detail/immutable_rep.hpp  16 bytes; top bit of byte 15 set: bytes 0..7 point
#                             at an immutable_rep header (its size read from
#                             the debug info) followed by the text, bytes
#                             8..15 = size | 0x80 << 56; else byte 15 = 15 - size
#   detail/rope_node.hpp      edge {p, off, len}; node {refs, height, kind,
#                             count}; chunk (height 0) {used, cap, data};
#                             inner {child[count]}, edges of height - 1
import re
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


def _words(val, n):
    return [int(val[i]) & 0xFFFFFFFFFFFFFFFF for i in range(n)]


class StringPrinter:
    """fl::basic_string<A>: 24 bytes of fl::detail::string_core."""

    def __init__(self, val):
        self.val = val

    def text(self):
        rep = self.val["core_"]
        ptr = int(rep["ptr"]) & 0xFFFFFFFFFFFFFFFF
        size = int(rep["size"]) & 0xFFFFFFFFFFFFFFFF
        cap = int(rep["cap"]) & 0xFFFFFFFFFFFFFFFF
        if cap >> 63:
            return ptr, size, True
        raw = struct.pack("<QQQ", ptr, size, cap)
        n = 23 - (cap >> 56)
        if n < 0 or n > 23:
            raise gdb.GdbError("fl::string: corrupt inline size byte %d" % (cap >> 56))
        return raw[:n], n, False

    def to_string(self):
        where, size, heap = self.text()
        limit = _limit()
        shown = size if limit is None else min(size, limit)
        data = _read(where, shown) if heap else where[:shown]
        return _quote(data, shown < size)


class ImmutablePrinter:
    """fl::immutable_string: a 16-byte handle, inline or shared."""

    def __init__(self, val):
        self.val = val

    def to_string(self):
        raw = bytes(int(self.val["raw_"][i]) & 0xFF for i in range(16))
        limit = _limit()
        if raw[15] & 0x80:
            rep, word1 = struct.unpack("<QQ", raw)
            size = word1 & ((1 << 56) - 1)
            shown = size if limit is None else min(size, limit)
            return _quote(_read(rep + _immutable_header_bytes(), shown), shown < size)
        n = 15 - raw[15]
        if n < 0:
            raise gdb.GdbError("fl::immutable_string: corrupt inline size byte %d" % raw[15])
        return _quote(raw[:n])


def _immutable_header_bytes():
    """The size of the block header before an immutable_string's text: from
    the program's debug info, so the printer follows the layout the program
    was built with (48 bytes in this version: owner, local and shared
    counts, hash, size, merge-queue link)."""
    try:
        return gdb.lookup_type("fl::detail::immutable_rep").sizeof
    except gdb.error:
        return 48


class CStrPrinter:
    """fl_str: the same 24 bytes as fl::string, as a union of words."""

    def __init__(self, val):
        self.val = val

    def to_string(self):
        ptr, size, cap = _words(self.val["fl_w_"], 3)
        limit = _limit()
        if cap >> 63:
            shown = size if limit is None else min(size, limit)
            return _quote(_read(ptr, shown), shown < size)
        n = 23 - (cap >> 56)
        if n < 0 or n > 23:
            raise gdb.GdbError("fl_str: corrupt inline size byte %d (not initialized?)" % (cap >> 56))
        return _quote(struct.pack("<QQQ", ptr, size, cap)[:n])


class RopePrinter:
    """fl::rope: the size, and the first ROPE_PREVIEW bytes read leaf by leaf
    (only the leaves that hold them are visited)."""

    def __init__(self, val):
        self.val = val
        # fl::rope_leaf4096::rope -> fl::detail::rope_leaf4096::{chunk,inner}
        name = str(val.type.strip_typedefs().unqualified())
        m = re.match(r"^fl::(rope_leaf\d+)::rope$", name)
        ns = m.group(1) if m else "rope_leaf4096"
        self.chunk_t = gdb.lookup_type("fl::detail::%s::chunk" % ns).pointer()
        self.inner_t = gdb.lookup_type("fl::detail::%s::inner" % ns).pointer()

    def collect(self, edge, want, out):
        """Appends up to `want` bytes of `edge` to out; returns bytes added."""
        p = edge["p"]
        off = int(edge["off"])
        length = int(edge["len"])
        if int(p) == 0 or length == 0 or want == 0:
            return 0
        if int(p["height"]) == 0:
            c = p.cast(self.chunk_t)
            n = min(length, want)
            out.append(_read(int(c["data"]) + off, n))
            return n
        node = p.cast(self.inner_t)
        got = 0
        for i in range(int(node["count"])):
            if got >= want:
                break
            got += self.collect(node["child"][i], want - got, out)
        return got

    def to_string(self):
        root = self.val["root_"]
        size = int(root["len"])
        want = min(size, ROPE_PREVIEW)
        parts = []
        self.collect(root, want, parts)
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
