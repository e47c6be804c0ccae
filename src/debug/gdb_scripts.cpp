// src/debug/gdb_scripts.cpp
// libfl's GDB pretty-printers, carried in the library itself: the
// .debug_gdb_scripts section holds fl_printers.py (generated from
// tools/gdb/fl_printers.py.in by cmake/FlGdbPrinters.cmake) as an inline
// Python script (entry kind 4: a name line, then the text, then NUL), and GDB
// runs it for every program that links libfl, static or shared, installed or
// not, when its auto-load safe-path allows that program (docs/debugging.md).
// The section is not loaded at run time (no "a" flag) and `strip` removes it.
// "MS" (mergeable strings) lets the linker fold duplicate copies into one.
//
// FL_GDB_PRINTERS_PATH (set by CMakeLists.txt) is the generated script's path;
// builds without it, or for non-ELF targets, carry no script.
//
// The layout the printers read (fl_gdb_layout below) is computed here by the
// compiler from the headers that define it, so the printers never need debug
// info of fl's internal types: a Release libfl, installed or not, prints the
// same as a -g build.
//
// Threads: nothing here runs.
#include <fl/detail/immutable_rep.hpp>
#include <fl/detail/rope_node.hpp>
#include <fl/detail/string_layout.h>
#include <fl/immutable_string.hpp>
#include <fl/rope.hpp>
#include <fl/string.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace {

// One entry of the layout table: a name the printer looks up, its value.
struct layout_entry {
  char name[24];
  std::uint64_t value;
};

// The rope's first member is its root edge (its line-break mode follows),
// and a standard-layout class starts with its first member, so the edge
// starts at the rope's first byte; the printers read it there without the
// name of the private member.
static_assert(std::is_standard_layout_v<fl::rope> && sizeof(fl::rope) > sizeof(fl::detail::edge));
static_assert(sizeof(fl::immutable_string) == 16);
static_assert(sizeof(fl::string) == FL_STR_BYTES);

// chunk and inner derive from node, so they are not standard-layout and
// offsetof on them is "conditionally supported": GCC and Clang give the
// plain non-virtual layout, which is what the printers walk.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
constexpr std::uint64_t off_node_height = offsetof(fl::detail::node, height);
constexpr std::uint64_t off_node_count = offsetof(fl::detail::node, count);
constexpr std::uint64_t off_chunk_data = offsetof(fl::detail::chunk, data);
constexpr std::uint64_t off_inner_child = offsetof(fl::detail::inner, child);
#pragma GCC diagnostic pop

}  // namespace

// The table, ended by an entry with an empty name. extern "C" and kept with
// the anchor below (same object), so the printers find it by this name in a
// stripped-of-debug-info libfl too (its symbol table is enough).
extern "C" {
extern const layout_entry fl_gdb_layout[];
const layout_entry fl_gdb_layout[] = {
    {"string_bytes", FL_STR_BYTES},
    {"string_tag_byte", FL_STR_TAG_BYTE},
    {"string_tag_heap", FL_STR_TAG_HEAP},
    {"string_inline_capacity", FL_STR_INLINE_CAPACITY},
    {"string_word_ptr", FL_STR_WORD_PTR},
    {"string_word_size", FL_STR_WORD_SIZE},
    {"string_word_cap", FL_STR_WORD_CAP},
    {"immutable_bytes", sizeof(fl::immutable_string)},
    {"immutable_inline_max", fl::detail::immutable_inline_max},
    {"immutable_shared_tag", fl::detail::immutable_shared_tag},
    {"immutable_header", sizeof(fl::detail::immutable_rep)},
    {"edge_bytes", sizeof(fl::detail::edge)},
    {"edge_p", offsetof(fl::detail::edge, p)},
    {"edge_off", offsetof(fl::detail::edge, off)},
    {"edge_len", offsetof(fl::detail::edge, len)},
    {"node_height", off_node_height},
    {"node_height_bytes", sizeof(fl::detail::node::height)},
    {"node_count", off_node_count},
    {"node_count_bytes", sizeof(fl::detail::node::count)},
    {"chunk_data", off_chunk_data},
    {"inner_child", off_inner_child},
    {"", 0},
};
}

#if defined(__ELF__) && defined(FL_GDB_PRINTERS_PATH)

asm(".pushsection .debug_gdb_scripts, \"MS\",@progbits,1\n"
    ".byte 4\n"
    ".ascii \"fl_printers.py\\n\"\n"
    ".incbin \"" FL_GDB_PRINTERS_PATH
    "\"\n"
    ".byte 0\n"
    ".popsection\n");

// A static libfl is linked object by object: the fl target asks the linker
// for this symbol (-u), so this object, and the section and the layout table
// with it, are kept.
extern "C" {
extern const char fl_gdb_printers_anchor;
const char fl_gdb_printers_anchor = 1;
}

#endif
