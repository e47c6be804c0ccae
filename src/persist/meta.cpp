// src/persist/meta.cpp: the meta page of a mapped_space data file
// (persist_format.hpp, "fl::mapped_space data file"): its checks, the choice
// of the newest of the two slots, its making and its one writer. The design
// in docs/design.md ("Persistence", step 5).
#include "persist/persist_format.hpp"

#include "persist/posix.hpp"
#include "persist/space.hpp"

#include <cstring>
#include <string>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

namespace {

// True if the `n` bytes at p are all zero (a word at a time).
bool all_zero(const std::byte* p, std::size_t n) noexcept {
  std::uint64_t any = 0;
  for (; n >= 8; n -= 8, p += 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    any |= w;
  }
  for (; n > 0; --n, ++p) any |= static_cast<std::uint64_t>(*p);
  return any == 0;
}

}  // namespace

// The one check of check_meta that depends on the file's size: empty if the
// file holds the committed size, else the reason.
std::string check_size(const space_meta& m, std::uint64_t file_bytes) {
  if (m.file_size <= file_bytes) return {};
  return "truncated: " + std::to_string(file_bytes) + " bytes, the last commit has " +
         std::to_string(m.file_size);
}

// Checks a meta slot read from a file of `file_bytes` bytes. Empty if valid,
// else the reason. Format marks first, so that a foreign or newer file gets
// its own reason rather than "checksum mismatch".
std::string check_meta(const space_meta& m, std::uint64_t file_bytes) {
  if (std::memcmp(m.magic, space_magic, sizeof m.magic) != 0)
    return "not an fl::mapped_space file (bad magic)";
  if (m.byte_order != byte_order_mark) return "written on a machine of the other byte order";
  if (m.format_version < space_oldest_version || m.format_version > space_format_version)
    return "format version " + std::to_string(m.format_version) +
           (m.format_version > space_format_version ? " is newer than" : " is not") +
           " the supported versions " + std::to_string(space_oldest_version) + " to " +
           std::to_string(space_format_version);
  if (m.word_bits != word_bits)
    return "written with " + std::to_string(m.word_bits) + "-bit words, this build uses " +
           std::to_string(word_bits);
  if (m.page_size != space_page || m.class_count != space_class_count)
    return "page size or class count differs";
  if (meta_crc(m) != m.crc || (m.format_version == 1 && m.state != 0))
    return "meta page checksum mismatch (damaged)";
  const space_alloc_state& a = m.alloc;
  if (m.file_size % space_page != 0 || m.file_size < initial_file_size)
    return "meta page: bad file size";
  if (std::string why = check_size(m, file_bytes); !why.empty()) return why;
  if (a.top % 16 != 8 || a.top < space_first_block || a.top > m.file_size)
    return "meta page: bad allocator end";
  if (a.root != 0 && (a.root % 16 != 0 || a.root < space_first_block + 8 || a.root >= a.top))
    return "meta page: root outside the blocks";
  if (m.deferred != 0 &&
      (m.deferred % 16 != 0 || m.deferred < space_first_block + 8 || m.deferred >= a.top))
    return "meta page: deferred batch outside the blocks";
  if (a.used_bytes + a.free_bytes != a.top - space_first_block || a.used_bytes > a.top ||
      a.free_bytes > a.top)
    return "meta page: block byte counts do not add up";
  if (a.live_blocks > a.used_bytes / 16 || a.free_blocks > a.free_bytes / 16)
    return "meta page: bad block counts";
  for (unsigned c = 0; c < space_class_count; ++c) {
    const std::uint64_t h = a.free_heads[c];
    if (h != 0 && (h % 16 != 8 || h < space_first_block || h > a.top || a.top - h < class_size(c)))
      return "meta page: free list head of class " + std::to_string(c) + " outside the blocks";
    if (h != 0 && a.free_blocks == 0) return "meta page: free list without free blocks";
  }
  if (a.crc_table == 0) {
    if (a.crc_table_bytes != 0 || m.generation > 1) return "meta page: no page checksum table";
  } else {
    if (a.crc_table % space_page != 0 || a.crc_table_bytes % space_page != 0 ||
        a.crc_table < space_first_block || a.crc_table > a.top ||
        a.top - a.crc_table < a.crc_table_bytes || a.crc_table_bytes / 4 < m.file_size / space_page)
      return "meta page: bad page checksum table";
  }
  return {};
}

meta_slots read_slots(const std::byte* two_pages) {
  meta_slots r;
  for (int i = 0; i < 2; ++i) {
    const std::byte* page = two_pages + static_cast<std::size_t>(i) * space_page;
    std::memcpy(&r.meta[i], page, sizeof r.meta[i]);
    r.why[i] = check_meta(r.meta[i], ~std::uint64_t{0});
    // The rest of the page is zeros; nothing else covers it.
    if (r.why[i].empty() && !all_zero(page + sizeof(space_meta), space_page - sizeof(space_meta)))
      r.why[i] = "meta page padding is not zero (damaged)";
  }
  if (!r.why[0].empty() && !r.why[1].empty()) {
    if (r.why[0] != r.why[1])
      r.why[0] = "both meta pages invalid (slot 0: " + r.why[0] + "; slot 1: " + r.why[1] + ")";
    return r;
  }
  if (!r.why[0].empty() || !r.why[1].empty()) {
    r.newest = r.why[0].empty() ? 0 : 1;
    return r;
  }
  // Both valid: the newest was written last, so its count is the other's
  // plus one; equal counts (format 1, or a new file) go by generation.
  const space_meta &a = r.meta[0], &b = r.meta[1];
  const std::uint32_t d = ((a.state >> 1) - (b.state >> 1)) & meta_seq_mask;
  r.newest = d == 1                                   ? 0
             : d == meta_seq_mask                     ? 1
             : d == 0 && a.generation != b.generation ? (a.generation > b.generation ? 0 : 1)
                                                      : -1;
  if (r.newest < 0 || a.uuid != b.uuid ||
      r.meta[r.newest].generation < r.meta[1 - r.newest].generation) {
    r.newest = -1;
    r.why[0] = "meta pages disagree (damaged)";
  }
  return r;
}

meta_slots read_meta_slots(const space_state& s) {
  alignas(8) std::byte pages[2 * space_page];  // both meta pages in one read
  if (!read_kept_file(s.file, pages, sizeof pages) &&
      pread_full(s.fd.get(), pages, sizeof pages, 0) != static_cast<long long>(sizeof pages))
    throw_errno(s.path, "read of the meta pages", errno ? errno : EIO);
  meta_slots slots = read_slots(pages);
  if (slots.newest < 0) fail(s, slots.why[0]);
  return slots;
}

space_meta make_meta(std::uint64_t uuid, std::uint64_t generation, std::uint64_t file_size,
                     const space_alloc_state& a) {
  space_meta m;
  std::memset(&m, 0, sizeof m);
  stamp_marks(m, space_magic, space_format_version);
  m.word_bits = word_bits;
  m.page_size = space_page;
  m.class_count = space_class_count;
  m.uuid = uuid;
  m.generation = generation;
  m.file_size = file_size;
  m.alloc = a;
  return m;
}

int put_slot(space_state& s, space_meta m, bool log_bit, bool* flush_failed) noexcept {
  const int slot = 1 - s.newest_slot;
  const std::uint32_t seq = (s.meta_seq + 1) & meta_seq_mask;
  m.format_version = space_format_version;
  m.state = seq << 1 | (log_bit ? meta_log_bit : 0u);
  m.crc = meta_crc(m);
  if (const int e =
          pwrite_all(s.fd.get(), &m, sizeof m, static_cast<std::uint64_t>(slot) * space_page))
    return e;
  if (s.durable) {
    if (const int e = sync_data(s.fd.get())) {
      s.in_place_failed = true;  // see fail_flush
      if (flush_failed != nullptr) *flush_failed = true;
      return e;
    }
  }
  s.data_unflushed = !s.durable;
  s.slot_unflushed = !s.durable;
  s.newest_slot = slot;
  s.meta_seq = seq;
  return 0;
}

void write_slot(space_state& s, space_meta m, bool log_bit) {
  bool flush_failed = false;
  if (const int e = put_slot(s, m, log_bit, &flush_failed))
    throw_errno(s.path, flush_failed ? "fdatasync" : "write of the meta page", e);
}

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
