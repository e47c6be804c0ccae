// fl/detail/json_format.hpp: the file layout of an fl::json_store, in one
// place. Every read and write of the store goes through these structs; the
// store code never restates an offset or a field width.
//
// A store file is a sequence of 4 KiB pages, all integers little-endian:
//
//   page 0, page 1   commit records (json_slot), one per page so that a torn
//                    write of one never touches the other; the valid record
//                    with the higher generation is the current commit
//   pages 2..        data, append-only: strings, numbers kept as text,
//                    container tables; and at the end of every commit the
//                    page checksum table of that commit
//
// Data is never rewritten: an edit appends the new value and new copies of
// the containers on its path (path copying), and the commit record switches
// the root. The pages of a commit start page-aligned at the previous commit's
// end, so a committed page never changes again and its CRC32C, stored in the
// checksum table, holds for the life of the file.
//
// Page checksum table: one CRC32C (uint32) per page [0, table / page_size),
// located at json_slot::table; its own CRC32C is json_slot::table_crc. Pages
// 0 and 1 (the slots) have entry 0 and are never read through the table. A
// page is verified the first time a read touches it, so opening a store costs
// O(1) and reading a value costs the pages under it once.
//
// Values (json_ref, 16 bytes) refer to their bytes by file offset:
//   string, number_text   x = offset of the UTF-8 bytes, n = byte count
//   array                 x = offset of n json_ref elements
//   object                x = offset of n json_member records, followed, when
//                         n >= index_min_members, by n uint32 member positions
//                         sorted by key_order (length, then bytes, then
//                         position), so a lookup in a big object is a binary
//                         search
//   int64, uint64, real   x = the value (uint64 only above INT64_MAX; real is
//                         the bit pattern of a finite double)
//   null, false, true     no payload
// Invariant (checked on every read): all bytes a container refers to lie
// below its table's offset x, and the root lies below the checksum table.
// So the structure is acyclic and every reference is bounded, even in a
// crafted file whose checksums match.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace fl::detail::json {

inline constexpr std::uint64_t page_size = 4096;
inline constexpr std::uint64_t data_start = 2 * page_size;  // after the two slots

// "flJSONst" read as a little-endian uint64.
inline constexpr std::uint64_t file_magic = 0x74734e4f534a6c66ULL;
inline constexpr std::uint32_t format_version = 1;

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

// Commit flags.
// single_sync: the commit was made durable by one fdatasync that covered its
// data and this record together; after a power loss the record may be on disk
// without all its pages, so open verifies the commit's pages (the commit is
// small) and falls back to the previous commit if they do not match.
inline constexpr std::uint32_t slot_single_sync = 1;

// The order of the member index: only equality lookups use it, so keys are
// ordered by length first (one integer compare settles most pairs), then by
// bytes. Returns <0, 0, >0.
inline int key_order(const char* a, std::uint32_t an, const char* b, std::uint32_t bn) noexcept {
  if (an != bn) return an < bn ? -1 : 1;
  return an ? __builtin_memcmp(a, b, an) : 0;
}

struct json_slot {
  std::uint64_t magic = 0;
  std::uint32_t version = 0;
  std::uint32_t flags = 0;
  std::uint64_t generation = 0;  // 1 for the first commit; slot index = generation % 2
  json_ref root;
  std::uint64_t end = 0;           // end of the committed data, page-aligned
  std::uint64_t table = 0;         // offset of the page checksum table, page-aligned
  std::uint64_t commit_start = 0;  // first page of this commit's data
  std::uint32_t table_crc = 0;
  std::uint32_t crc = 0;  // CRC32C of the bytes before this field
};
static_assert(sizeof(json_slot) == 72 && std::is_trivially_copyable_v<json_slot>);

}  // namespace fl::detail::json
