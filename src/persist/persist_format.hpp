// src/persist/persist_format.hpp: the on-disk formats of the persistence
// layer, stated once: the fl::persist<T> value file, the fl::mapped_space
// meta page, block header and size classes, deferred batches, fl::pstring,
// its redo log and its reader table. Private: src/persist/*.cpp read and
// write files only through these types (each format's reader and writer live
// in one file: src/persist/space.hpp lists them), src/json/ places its
// blocks with them, and tests and fuzz targets use them to build damaged and
// foreign files. No installed header includes it.
//
// Every format is native (byte order and word size of the writer); each
// header records both, and a reader refuses a file whose marks differ from
// its own rather than misreading it. Every field is checked before use.
//
// Threads: constants and plain structs.
#pragma once

#include "persist/crc32c.hpp"
#include <fl/detail/size_classes.hpp>
#include <fl/pstring.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

// Written as a native u32; reads back as 0x04030201 on a machine of the other
// byte order.
inline constexpr std::uint32_t byte_order_mark = 0x01020304u;
inline constexpr std::uint32_t word_bits = sizeof(void*) * 8;

// The marks every header of these formats starts with: magic, format
// version, byte order.
template <class Header>
void stamp_marks(Header& h, const char (&magic)[8], std::uint32_t version) noexcept {
  std::memcpy(h.magic, magic, sizeof h.magic);
  h.format_version = version;
  h.byte_order = byte_order_mark;
}

// ---- fl::persist<T> value file -------------------------------------------
// [value_header: 40 bytes][the value: value_size bytes]; nothing else, so the
// file size is exactly 40 + value_size.
inline constexpr char value_magic[8] = {'f', 'l', '.', 'p', 'v', 'a', 'l', '\0'};
inline constexpr std::uint32_t value_format_version = 1;

struct value_header {
  char magic[8];
  std::uint32_t format_version;
  std::uint32_t byte_order;
  std::uint64_t value_size;  // sizeof(T)
  std::uint64_t type_tag;    // chosen by the user, 0 by default
  std::uint32_t crc;         // CRC-32C of bytes [0, 32) then of the value
  std::uint32_t reserved;    // 0
};
static_assert(sizeof(value_header) == 40 && std::is_trivially_copyable_v<value_header>);
inline constexpr std::size_t value_crc_span = 32;  // header bytes the CRC covers

// ---- fl::mapped_space data file ------------------------------------------
// Offsets are bytes from the start of the file; the mapping starts at 0, so
// an fptr's offset is its file offset.
//   [0, 4096)       meta slot 0
//   [4096, 8192)    meta slot 1   (each write goes to the slot not holding the
//                   newest meta, and is flushed before the next one)
//   [8192, top)     blocks, carved in order; the first at 8200
//   [top, size)     zeros, not yet carved
// A block starts at an offset = 8 (mod 16) with an 8-byte block_header, so
// payloads are 16-aligned; its size is its class's size (header included).
inline constexpr std::uint64_t space_page = 4096;  // unit of meta slots, CRC table, growth
inline constexpr std::uint64_t space_data_start = 2 * space_page;
inline constexpr std::uint64_t space_first_block = space_data_start + 8;
// Version 2 added the redo log of records and the meta's `state`; version 3
// the meta's `deferred` (blocks waiting for reuse); version 4 log records of
// changed byte ranges (below). Files of versions 1 to 3 (state 0, deferred 0
// before 3) are read and become version 4 on their first commit.
inline constexpr std::uint32_t space_format_version = 4;
inline constexpr std::uint32_t space_oldest_version = 1;
inline constexpr char space_magic[8] = {'f', 'l', '.', 's', 'p', 'a', 'c', 'e'};

// Size classes: the scheme of detail/size_classes.hpp (class_size(c),
// size_class(n)) up to blocks of 2^46 bytes. A request of n bytes (header
// included) takes the smallest class >= n. Block headers store class numbers
// and the meta the count: the classes are part of the format.
inline constexpr std::uint64_t space_max_block = std::uint64_t{1} << 46;
inline constexpr unsigned space_class_count = size_class_count(space_max_block);
static_assert(space_class_count == 8 + 4 * (46 - 7), "a new class count is a new format");

// Block header: word = tag << 16 | class. A live block's tag is block_live,
// a freed one's block_free; a free block keeps the offset of the next free
// block of its class (0 ends the list) in the 8 bytes after its header. An
// allocation aligned above 16 puts a second, live header just before its
// payload whose `back` is the distance to the block's own header (0 there).
inline constexpr std::uint32_t block_live = 0xA11Cu;
inline constexpr std::uint32_t block_free = 0xF4EEu;
struct block_header {
  std::uint32_t word;
  std::uint32_t back;
  std::uint32_t tag() const noexcept { return word >> 16; }
  unsigned cls() const noexcept { return word & 0xFFFFu; }
  static block_header make(std::uint32_t tag, unsigned cls, std::uint32_t back = 0) noexcept {
    return block_header{tag << 16 | cls, back};
  }
};
static_assert(sizeof(block_header) == 8);

// The class of the block that holds a payload of `bytes` bytes right after
// its header (16-aligned, no second header): the smallest class of at least
// bytes + 8, and never below 16. The one rule for allocate_end(),
// allocate() at alignment 16 and builders that lay out runs of blocks
// themselves (lay_live_block).
constexpr unsigned payload_class(std::uint64_t bytes) noexcept {
  return size_class(bytes + 8 < 16 ? 16 : bytes + 8);
}

// Lays out at `block` (a block's start, with room for its class's size) a
// live block for a payload of `bytes` bytes, as mapped_space carves one: its
// header, then zeros from the payload's end to the class's end; the caller
// fills the payload (block + 8, `bytes` bytes) after the call. Returns the block's
// size, where the next block of a run starts. For builders that carve a run
// of blocks at once (mapped_space::allocate_end_run). O(padding): below 128
// bytes a block pads by at most 15 bytes, zeroed by one 16-byte store.
inline std::uint64_t lay_live_block(unsigned char* block, std::uint64_t bytes) noexcept {
  const unsigned c = payload_class(bytes);
  const std::uint64_t cs = class_size(c);
  if (cs <= 128) {
    // The 16-byte classes: the padding lies in the block's last 16 bytes.
    // Zeroed before the header, which it overlaps in a 16-byte block.
    std::memset(block + cs - 16, 0, 16);
  } else {
    std::memset(block + 8 + bytes, 0, static_cast<std::size_t>(cs - 8 - bytes));
  }
  const block_header h = block_header::make(block_live, c);
  std::memcpy(block, &h, sizeof h);
  return cs;
}

// The allocator's state: kept in memory while the space is open, written into
// a meta slot by each commit.
struct space_alloc_state {
  std::uint64_t top;         // first byte not yet carved (= 8 mod 16)
  std::uint64_t root;        // the root fptr's offset, 0 for null
  std::uint64_t used_bytes;  // bytes of live blocks
  std::uint64_t free_bytes;  // bytes of blocks on free lists
  std::uint64_t live_blocks;
  std::uint64_t free_blocks;
  std::uint64_t crc_table;        // payload offset of the page-CRC table (page-aligned), 0: none
  std::uint64_t crc_table_bytes;  // its capacity in bytes (whole pages)
  std::uint64_t free_heads[space_class_count];
};

// A meta slot. Valid when the magic, marks and CRC match and every field
// passes the checks of meta.cpp (check_meta).
struct space_meta {
  char magic[8];
  std::uint32_t format_version;
  std::uint32_t byte_order;
  std::uint32_t word_bits;
  std::uint32_t page_size;    // space_page
  std::uint32_t class_count;  // space_class_count
  std::uint32_t table_crc;    // CRC-32C of the page-CRC table's first file_size/4096 entries
  std::uint64_t uuid;         // random, fixed at creation; ties the log to the file
  std::uint64_t generation;   // commits so far
  std::uint64_t file_size;    // committed data file size (multiple of space_page)
  space_alloc_state alloc;
  std::uint32_t crc;    // CRC-32C of every byte before this field, then of `state`
                        // (and, from version 3, of `deferred`)
  std::uint32_t state;  // meta_log_bit | slot writes << 1 (version 1: 0, outside the CRC)
  // Version 3: payload offset of the newest deferred batch (see below), 0 for
  // none. Earlier versions end before it (their page has zeros there).
  std::uint64_t deferred;
};
static_assert(std::is_trivially_copyable_v<space_meta> && sizeof(space_meta) <= space_page);
inline constexpr std::size_t meta_crc_span = offsetof(space_meta, crc);
// Bytes of a meta image of format `version` (a log record holds one).
constexpr std::size_t meta_image_bytes(std::uint32_t version) noexcept {
  return version >= 3 ? sizeof(space_meta) : offsetof(space_meta, deferred);
}
// state bit 0: the log holds this meta's commit as the first record at offset
// 0, then the commits after it; the newest state is the last valid record.
// Clear: the data file alone is the state and the log is not read.
// Bits 1..31 count the slot writes (mod 2^31): the newest slot's count is the
// other's plus one (a format-1 pair has 0 in both: the higher generation).
inline constexpr std::uint32_t meta_log_bit = 1;
inline constexpr std::uint32_t meta_seq_mask = 0x7FFFFFFFu;
inline std::uint32_t meta_crc(const space_meta& m) noexcept {
  const std::uint32_t c = crc32c(&m, meta_crc_span);
  if (m.format_version == 1) return c;
  const std::uint32_t d = crc32c(&m.state, sizeof m.state, c);
  return m.format_version == 2 ? d : crc32c(&m.deferred, sizeof m.deferred, d);
}

// ---- deferred frees -------------------------------------------------------
// A block freed with mapped_space::retire() stays live until no state that
// may still be read refers to it: the blocks retired while commit g was
// built are reachable from commit g - 1, so they return to the free lists
// once the oldest generation still needed is g or later. Each commit that
// retired blocks writes one batch, a live block whose payload is
//   u64 generation (g), u64 count, u64 next (payload offset of the next
//   older batch, 0 ends), count u64 payload offsets of the retired blocks
// and names the newest batch in its meta (`deferred`): a crash between a
// commit and the reuse of what it retired reopens with the batches and
// releases them then, so nothing leaks and nothing is freed twice.
struct deferred_batch_head {
  std::uint64_t generation;
  std::uint64_t count;
  std::uint64_t next;
};
static_assert(sizeof(deferred_batch_head) == 24);

// ---- fl::pstring ----------------------------------------------------------
// A field of objects in the space, 24 bytes; byte 23 is the tag:
//   inline: bytes 0..22 the text, byte 23 = 23 - size (0..23, top bit clear)
//   heap:   bytes 0..7 the payload offset of the text's block, bytes 8..15
//           the size, byte 23 = pstring_heap_tag; the capacity is the
//           block's size
// The inline constructor in fl/pstring.hpp writes the empty inline state, so
// the tag's place and the inline capacity are stated there
// (detail::pstring_tag_byte, detail::pstring_inline_max).
inline constexpr unsigned char pstring_heap_tag = 0x80;
inline constexpr std::size_t pstring_offset_at = 0;
inline constexpr std::size_t pstring_size_at = 8;
static_assert(pstring_tag_byte == sizeof(pstring) - 1 && pstring_inline_max == pstring_tag_byte &&
              pstring_size_at + 8 <= pstring_tag_byte && (pstring_inline_max & pstring_heap_tag) == 0);

// ---- redo log "<path>-log" -----------------------------------------------
// An append-only run of commit records from offset 0, reused from 0 after each
// checkpoint; every record starts at a multiple of 4096. A record, each part
// starting where the previous ends:
//   log_record (64 bytes), the new meta (meta_image_bytes(version)), n extents
//   (file offset and length, in order, not overlapping), then
//   version 4: the extents' bytes, zeros to a 4096 boundary. An extent is any
//     range of bytes the commit changed (a page's changed bytes, or whole
//     pages the file did not hold before): replayed in order over the file as
//     the last checkpoint left it, the records rewrite every byte that any
//     commit since changed, so a page the power cut mid-write comes out whole.
//   versions 2 and 3: zeros to a 4096 boundary, the extents' bytes (whole
//     pages: offsets and lengths multiples of 4096).
// Records of one run have consecutive generations; the run starts with the
// generation the newest meta slot names (see meta_log_bit), so a record left
// from an earlier run (a smaller generation) is never taken for part of it.
inline constexpr char record_magic[8] = {'f', 'l', '.', 's', 'r', 'e', 'c', '\0'};
struct log_record {
  char magic[8];
  std::uint32_t format_version;
  std::uint32_t byte_order;
  std::uint64_t uuid;        // the data file's
  std::uint64_t generation;  // the commit it holds (= its meta's generation)
  std::uint64_t extent_count;
  std::uint64_t data_bytes;    // sum of extent lengths
  std::uint64_t record_bytes;  // the whole record (record_span), a multiple of 4096
  std::uint32_t data_crc;      // CRC-32C of the extents' bytes (record_data_crc)
  std::uint32_t head_crc;      // CRC-32C of bytes [0, 60), the meta image and the extent table
};
static_assert(sizeof(log_record) == 64 && std::is_trivially_copyable_v<log_record>);
inline constexpr std::size_t record_crc_span = offsetof(log_record, head_crc);
// Bytes of a record of format `version` before its extents' bytes.
constexpr std::uint64_t record_head_bytes(std::uint64_t extents,
                                          std::uint32_t version = space_format_version) noexcept {
  const std::uint64_t head = sizeof(log_record) + meta_image_bytes(version) + extents * 16;
  return version >= 4 ? head : (head + space_page - 1) / space_page * space_page;
}
// Bytes of a whole record: its head, its data, and for version 4 the zeros
// that take the next record to a page boundary.
constexpr std::uint64_t record_span(std::uint64_t extents, std::uint64_t data_bytes,
                                    std::uint32_t version = space_format_version) noexcept {
  const std::uint64_t bytes = record_head_bytes(extents, version) + data_bytes;
  return version >= 4 ? (bytes + space_page - 1) / space_page * space_page : bytes;
}
struct log_extent {
  std::uint64_t offset;
  std::uint64_t length;
};
static_assert(sizeof(log_extent) == 16);
// A record's data_crc: CRC-32C of its extents' bytes in extent order, whether
// they lie one after another (the images as the log holds them; `so_far`
// continues a checksum over earlier bytes of the same images) or each at its
// place in a mapping `base` of the data file. Both give the same value for
// the same bytes. Every writer and reader of data_crc calls these.
inline std::uint32_t record_data_crc(const std::byte* images, std::size_t bytes,
                                     std::uint32_t so_far = 0) noexcept {
  return crc32c(images, bytes, so_far);
}
template <class Extents>
std::uint32_t record_data_crc(const std::byte* base, const Extents& extents) noexcept {
  std::uint32_t crc = 0;
  for (const log_extent& e : extents)
    crc = crc32c(base + e.offset, static_cast<std::size_t>(e.length), crc);
  return crc;
}
// A commit that ends its record at or past this offset of the log makes the
// next commit start with a checkpoint (the data file flushed, the log reused
// from 0): it bounds the log and the replay after a crash.
inline constexpr std::uint64_t log_bound = std::uint64_t{4} << 20;

// Format 1 kept one commit in the log, behind this header (the old log's
// first bytes); a format-1 file is read, and refused only while such a log
// holds a commit it never finished (log generation = meta generation + 1).
inline constexpr char log_magic_v1[8] = {'f', 'l', '.', 's', 'l', 'o', 'g', '\0'};
struct log_header_v1 {
  char magic[8];
  std::uint32_t format_version;
  std::uint32_t byte_order;
  std::uint64_t uuid;
  std::uint64_t generation;
};

// ---- reader table "<path>-readers" ----------------------------------------
// Shared memory (MAP_SHARED) between the one writer of a space and its
// read-only openers; never flushed, rebuilt by each writer's open, so it
// holds nothing a crash could lose. Three pages:
//   [0, 4096)      reader_file_head: the newest commit (generation and meta,
//                  under a sequence counter), the generation the data file
//                  holds in place, and the writer's intent to advance it
//   [4096, 8192)   a ring of reader_ring_size (generation, log offset) pairs:
//                  where the record of each recent commit starts in the log
//   [8192, 12288)  reader_slot_count slots of 32 bytes; slot i is owned by
//                  whoever holds an OFD write lock on byte 8192 + 32 i (the
//                  kernel drops it when the owner dies, even by SIGKILL)
// Every field is a native u64 read and written with atomic operations; a
// reader checks every value it takes from here against the log's CRCs.
inline constexpr char reader_magic[8] = {'f', 'l', '.', 'r', 'e', 'a', 'd', 'r'};
inline constexpr std::uint32_t reader_format_version = 1;
inline constexpr std::uint64_t reader_ring_at = space_page;
inline constexpr std::uint64_t reader_ring_size = space_page / 16;
inline constexpr std::uint64_t reader_slots_at = 2 * space_page;
inline constexpr std::uint64_t reader_slot_bytes = 32;
inline constexpr std::uint64_t reader_slot_count = space_page / reader_slot_bytes;
inline constexpr std::uint64_t reader_file_bytes = 3 * space_page;
struct reader_file_head {
  char magic[8];
  std::uint32_t format_version;
  std::uint32_t byte_order;
  std::uint64_t uuid;          // the data file's
  std::uint64_t seq;           // odd while the writer changes `newest` and `meta`
  std::uint64_t newest;        // the newest commit whose record is durable
  std::uint64_t file_gen;      // the commit the data file holds in place
  std::uint64_t file_intent;   // >= file_gen: the commit in-place writes may be heading to
  std::uint64_t slot_high;     // slots at or past it were never used
  std::uint64_t reserved[9];   // 0
  space_meta meta;             // the meta of `newest`
};
static_assert(sizeof(reader_file_head) <= space_page &&
              offsetof(reader_file_head, meta) % 8 == 0 && sizeof(space_meta) % 8 == 0);
// A slot: the generation its reader pins (0: none) and the reader's pid (for
// people reading the file; liveness is the lock).
struct reader_slot {
  std::uint64_t pin;
  std::uint64_t pid;
  std::uint64_t reserved[2];
};
static_assert(sizeof(reader_slot) == reader_slot_bytes);

constexpr std::uint64_t round_up(std::uint64_t n, std::uint64_t a) noexcept {
  return (n + a - 1) / a * a;
}

// A file offset as the errors of every layer over the format name it: "0x1f40".
inline std::string hex(std::uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
