// fl/detail/json_format.hpp: the layout of an fl::json_store inside its
// fl::mapped_space, in one place. Every read and write of the store goes
// through these structs; the store code never restates an offset or a field
// width.
//
// The store is a mapped_space file (src/persist/persist_format.hpp: meta slots,
// redo log, page CRC-32C table); its root object is a json_head, which holds
// the document's root value. Format 3: every value with bytes (a non-empty
// string or number text, a non-empty container's table) is a block of the
// space of its own, so an edit can free exactly what it replaces. Import
// lays the blocks out in memory as the space carves them at its end and
// writes them as one run; an edit builds its new value and new copies of the
// containers on its path (path copying) as blocks at offsets from the
// space's end, then moves each into a block of the space (a freed block of
// its class, or the end), translating those offsets, switches
// json_head::root and retires (mapped_space::retire) the blocks it replaced:
// they are reused once no committed state and no reader can reach them.
// Empty strings and containers have no block (x = 0). Format 2 (values
// packed into a few blocks, each container above everything it refers to)
// is read and edited without reclaiming; compact() rewrites it as format 3.
//
// Values (json_ref, 16 bytes) refer to their bytes by offset in the space:
//   string, number_text   x = offset of the UTF-8 bytes, n = byte count
//   array                 x = offset of n json_ref elements
//   object                x = offset of n json_member records, followed, when
//                         n >= index_min_members, by n uint32 member positions
//                         sorted by key_order (length, then bytes, then
//                         position), so a lookup in a big object is a binary
//                         search, then the members' keys (in the same block)
//   int64, uint64, real   x = the value (uint64 only above INT64_MAX; real is
//                         the bit pattern of a finite double)
//   null, false, true     no payload
// Invariants for a crafted file whose checksums match (blocks are reused, so
// nothing orders a container against what it refers to, and a crafted file
// may make a container contain itself or share a value): every reference
// lies inside the carved blocks (checked on every read), and every walk is
// bounded: a lookup takes one step per pointer token; dump() and compact()
// stop past max_depth levels and when their output passes 8 bytes per
// stored byte; an edit's walk of the value it replaces stops past max_depth
// levels or the space's count of live blocks, and checks that each block is
// live and holds the value's bytes before the edit changes anything. Each
// limit raises persist_error. Every byte is read through
// mapped_space::checked, which verifies each committed page against its CRC
// the first time it is touched: opening costs O(1), reading a value costs
// the pages under it once.
#pragma once

#include <fl/detail/config.hpp>  // FL_ABI_NS

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
namespace json {

// "flJSONst" read as a little-endian uint64.
inline constexpr std::uint64_t file_magic = 0x74734e4f534a6c66ULL;
// Version 3: every value with bytes has a block of its own (reused once
// freed); version 2 (blocks of many values, ordered below their containers)
// is read and edited without reclaiming space until compacted.
inline constexpr std::uint32_t format_version = 3;
inline constexpr std::uint32_t oldest_format_version = 2;

// Containers nested deeper than this are rejected by the parser and treated as
// damage by the reader (which recurses once per level when dumping). The same
// limit as simdjson's default, so both parsers accept the same texts.
inline constexpr std::uint32_t max_depth = 1024;

// Objects with at least this many members carry the sorted member index; below
// it, a scan of the member table (length compare first) is as fast.
inline constexpr std::uint32_t index_min_members = 16;

enum class kind : std::uint8_t {
  // 0 is not a kind, so zeroed bytes never read as a value.
  null_v = 1,
  false_v = 2,
  true_v = 3,
  int64 = 4,
  uint64 = 5,
  real = 6,
  number_text = 7,  // a number outside the range of uint64/int64/double, kept as its text
  string = 8,
  array = 9,
  object = 10,
};

struct json_ref {
  std::uint8_t k = 0;  // a kind
  std::uint8_t pad[3] = {};
  std::uint32_t n = 0;
  std::uint64_t x = 0;
};
static_assert(sizeof(json_ref) == 16 && alignof(json_ref) == 8 &&
              std::is_trivially_copyable_v<json_ref>);

struct json_member {
  std::uint64_t key = 0;  // offset of the key's UTF-8 bytes
  std::uint32_t key_len = 0;
  std::uint32_t pad = 0;
  json_ref value;
};
static_assert(sizeof(json_member) == 32 && alignof(json_member) == 8);

// The order of the member index: only equality lookups use it, so keys are
// ordered by length first (one integer compare settles most pairs), then by
// bytes. Returns <0, 0, >0.
inline int key_order(const char* a, std::uint32_t an, const char* b, std::uint32_t bn) noexcept {
  if (an != bn) return an < bn ? -1 : 1;
  return an ? __builtin_memcmp(a, b, an) : 0;
}

// The space's root object.
struct json_head {
  std::uint64_t magic = 0;    // file_magic
  std::uint32_t version = 0;  // format_version
  std::uint32_t reserved = 0;
  json_ref root;
};
static_assert(sizeof(json_head) == 32 && std::is_trivially_copyable_v<json_head>);

}  // namespace json
}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
