// src/persist/page_crc.cpp: the page checksums of a mapped_space data file
// (persist_format.hpp: space_alloc_state::crc_table, space_meta::table_crc):
// one CRC-32C per 4 KiB page in a table that is a block of the space, whose
// own pages are covered by the meta's table_crc. Every checksum of a page or
// of the table is computed here (page_crc, table_crc), set by commits
// (update_page_crcs), and checked by reads (check_pages) and verify()
// (check_page_crcs).
#include "persist/persist_format.hpp"

#include "persist/posix.hpp"
#include "persist/space.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

std::uint32_t page_crc(const std::byte* base, std::uint64_t page) noexcept {
  return crc32c(base + page * space_page, space_page);
}

std::uint32_t table_crc(const std::byte* base, const space_alloc_state& a) noexcept {
  return crc32c(base + a.crc_table, a.crc_table_bytes);
}

namespace {

// The table's own pages, [first, end): their entries stay 0.
struct table_pages {
  std::uint64_t first, end;
  explicit table_pages(const space_alloc_state& a) noexcept
      : first(a.crc_table / space_page), end((a.crc_table + a.crc_table_bytes) / space_page) {}
  bool holds(std::uint64_t p) const noexcept { return p >= first && p < end; }
};

std::uint32_t zero_page_crc() {
  static const std::uint32_t crc = [] {
    static const std::byte zeros[space_page] = {};
    return crc32c(zeros, space_page);
  }();
  return crc;
}

// The pages check_pages looks at under [off, off + len): committed ones
// (pages at or past the committed file size are this process's own and need
// no check) past the meta pages, and the table that holds their entries.
// Empty (first == end) when there are none or no table yet.
struct pages_to_check {
  std::uint64_t first = 0, end = 0;
  const std::uint32_t* table = nullptr;
  table_pages own{space_alloc_state{}};
  pages_to_check(const space_state& s, std::uint64_t off, std::uint64_t len) noexcept {
    const space_alloc_state& a = s.committed.alloc;
    if (len == 0 || a.crc_table == 0) return;
    first = std::max<std::uint64_t>(off / space_page, 2);
    end = std::min((off + len - 1) / space_page + 1, s.committed.file_size / space_page);
    if (first >= end) {
      first = end = 0;
      return;
    }
    table = reinterpret_cast<const std::uint32_t*>(s.base + a.crc_table);
    own = table_pages(a);
  }
  bool needs(const space_state& s, std::uint64_t p) const noexcept {
    return !s.verified.test(p) && !own.holds(p);
  }
};

}  // namespace

// Checks the committed pages under [off, off + len) against the page CRC
// table, once each (see mapped_space::checked). Pages at or past the
// committed file size are this process's own and need no check.
// The table's own CRC (in the meta page) is not checked first: that would
// read the whole table, 1 KiB per MiB of file, on every open, and it adds no
// protection to a read, since a damaged entry no longer matches its page
// (a damaged page that matches a damaged entry: one chance in 2^32). It is
// read when a page does not match, to say whether the page or its entry is
// the damaged one; verify() checks it whole.
void check_pages_slow(const space_state& s, std::uint64_t off, std::uint64_t len) {
  check_not_retired(s);
  const pages_to_check c(s, off, len);
  for (std::uint64_t p = c.first; p < c.end; ++p) {
    if (!c.needs(s, p)) continue;
    if (page_crc(s.base, p) != c.table[p] && !changed_here(s, p)) {
      // The table as this process left it: a sync() that failed after it
      // set entries changed it from the commit's (the followed CRC knows).
      const space_alloc_state& a = s.committed.alloc;
      const space_state::followed_crc& f = s.mapped_table_crc;
      const bool followed = f.known && f.at == a.crc_table && f.bytes == a.crc_table_bytes;
      if (table_crc(s.base, a) != (followed ? f.crc : s.committed.table_crc))
        fail(s, "the page checksum table is damaged (its checksum does not match the meta page)");
      fail(s, "page " + std::to_string(p) + " (offset " + hex(p * space_page) +
                  ") does not match its checksum (damaged)");
    }
    s.verified.mark(p);
  }
}

// Runs of up to 16 pages in one pread each (a block of many pages is read
// in a few calls, not one a page).
void check_pages_from_file_slow(const space_state& s, std::uint64_t off, std::uint64_t len) {
  check_not_retired(s);
  const pages_to_check c(s, off, len);
  constexpr std::uint64_t run_max = 16;
  std::vector<std::byte> buf;
  for (std::uint64_t p = c.first; p < c.end;) {
    if (!c.needs(s, p)) {
      ++p;
      continue;
    }
    std::uint64_t q = p + 1;
    while (q < c.end && q - p < run_max && c.needs(s, q)) ++q;
    buf.resize((q - p) * space_page);
    const bool read = pread_full(s.fd.get(), buf.data(), buf.size(), p * space_page) ==
                      static_cast<long long>(buf.size());
    for (std::uint64_t k = p; k < q; ++k) {
      if (read && crc32c(buf.data() + (k - p) * space_page, space_page) == c.table[k])
        s.verified.mark(k);
      else
        check_pages_slow(s, k * space_page, space_page);
    }
    p = q;
  }
}

// After a commit: every page of the file holds what that commit wrote or
// what was checked before; pages past the previous commit's size and the
// pages just written are marked checked.
void mark_committed(space_state& s, std::uint64_t old_pages, const std::vector<log_extent>& runs) {
  const std::uint64_t pages = s.committed.file_size / space_page;
  s.verified.resize(pages);
  auto set = [&](std::uint64_t p) { s.verified.set(p); };
  for (std::uint64_t p = old_pages; p < pages; ++p) set(p);
  for (const log_extent& r : runs) {
    for (std::uint64_t p = r.offset / space_page; p < (r.offset + r.length) / space_page; ++p)
      if (p < pages) set(p);
  }
}

// Makes the page-CRC table cover every page of the file; returns the old
// table's page run if it was replaced (its pages now need checksums).
std::vector<log_extent> ensure_table(mapped_space& space, space_state& s, bool zeroed) {
  std::vector<log_extent> old;
  for (;;) {
    const std::uint64_t pages = s.size / space_page;
    if (s.alloc.crc_table != 0 && s.alloc.crc_table_bytes / 4 >= pages) return old;
    // Room for 25% more pages, whole pages, page-aligned: the table's pages
    // hold nothing else.
    const std::uint64_t bytes = round_up((pages + pages / 4 + 16) * 4, space_page);
    const fptr<void> t = space.allocate(static_cast<std::size_t>(bytes), space_page);
    auto* entries = reinterpret_cast<std::uint32_t*>(s.base + t.offset());
    if (!zeroed || s.alloc.crc_table != 0) {
      std::memset(entries, 0, bytes);
      note_write(s, t.offset(), bytes);
    }
    if (s.alloc.crc_table != 0) {
      std::memcpy(entries, s.base + s.alloc.crc_table, std::min(bytes, s.alloc.crc_table_bytes));
      old.push_back({s.alloc.crc_table, s.alloc.crc_table_bytes});
      space.deallocate(fptr<void>(s.alloc.crc_table));
    }
    s.alloc.crc_table = t.offset();
    s.alloc.crc_table_bytes = bytes;
  }
}

namespace {
// Carries s.mapped_table_crc through the entries update_page_crcs changed
// (each with its value before; an entry may appear more than once, its
// first value the one the CRC knew), or forgets it when it was of another
// table or every entry was recomputed.
void follow_table_crc(space_state& s, std::vector<std::pair<std::uint64_t, std::uint32_t>>& changed,
                      bool rebuild) {
  space_state::followed_crc& f = s.mapped_table_crc;
  if (!f.known || rebuild || f.at != s.alloc.crc_table || f.bytes != s.alloc.crc_table_bytes) {
    f.known = false;
    return;
  }
  std::stable_sort(changed.begin(), changed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  changed.erase(std::unique(changed.begin(), changed.end(),
                            [](const auto& a, const auto& b) { return a.first == b.first; }),
                changed.end());
  const auto* table = reinterpret_cast<const std::uint32_t*>(s.base + s.alloc.crc_table);
  crc32c_patch patch(f.bytes);
  for (const auto& [i, before] : changed) patch.change(i * 4, before, table[i]);
  f.crc = patch.apply(f.crc);
}
}  // namespace

std::vector<log_extent> update_page_crcs(space_state& s, std::uint64_t old_pages,
                                         const std::vector<log_extent>& runs, bool rebuild) {
  const std::uint64_t pages = s.size / space_page;
  auto* table = reinterpret_cast<std::uint32_t*>(s.base + s.alloc.crc_table);
  const table_pages own(s.alloc);
  // The table's pages this commit writes: those of the entries set here (the
  // ones the dirty-page scan found are in `runs` already), so that no second
  // pagemap read is needed.
  std::vector<log_extent> table_runs;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> changed;  // an entry, its value before
  auto set_entry = [&](std::uint64_t i, std::uint32_t v) {
    if (own.holds(i)) v = 0;
    if (table[i] == v) return;  // untouched entries leave their page clean
    changed.emplace_back(i, table[i]);
    table[i] = v;
    // Reported too: a sync() that fails after this point leaves the entry
    // set, and its retry finds it equal and adds no run for it.
    note_write(s, s.alloc.crc_table + i * 4, 4);
    const std::uint64_t at = sys_page_floor(s, s.alloc.crc_table + i * 4);
    if (table_runs.empty() || table_runs.back().offset != at) table_runs.push_back({at, s.sys_page});
  };
  // New pages are zeros unless written; written pages are recomputed.
  if (rebuild) {
    for (std::uint64_t i = 2; i < pages; ++i) set_entry(i, page_crc(s.base, i));
  } else {
    for (std::uint64_t i = std::max<std::uint64_t>(old_pages, 2); i < pages; ++i)
      set_entry(i, zero_page_crc());
  }
  // Pages write_fresh() put in the file, by the CRCs it took of the bytes
  // (a later write_fresh of a page comes later and wins); then the pages
  // written through the mapping, from what they hold now, which is what
  // the file will hold (a fresh page written again through the mapping is
  // among them).
  std::size_t next_crc = 0;
  for (const log_extent& r : s.fresh.runs) {
    for (std::uint64_t i = r.offset / space_page; i < (r.offset + r.length) / space_page;
         ++i, ++next_crc) {
      if (i < pages) set_entry(i, s.fresh.crcs[next_crc]);
    }
  }
  for (const log_extent& r : runs) {
    for (std::uint64_t i = r.offset / space_page;
         i < (r.offset + r.length) / space_page && i < pages; ++i)
      set_entry(i, page_crc(s.base, i));
  }
  follow_table_crc(s, changed, rebuild);
  return table_runs;
}

std::uint32_t mapped_table_crc(space_state& s) noexcept {
  space_state::followed_crc& f = s.mapped_table_crc;
  if (!f.known || f.at != s.alloc.crc_table || f.bytes != s.alloc.crc_table_bytes)
    f = {true, s.alloc.crc_table, s.alloc.crc_table_bytes, table_crc(s.base, s.alloc)};
  return f.crc;
}

void table_crc_is_committed(space_state& s) noexcept {
  const space_alloc_state& a = s.committed.alloc;
  s.mapped_table_crc = {true, a.crc_table, a.crc_table_bytes, s.committed.table_crc};
}

std::string check_page_crcs(const std::byte* file, const space_meta& m) {
  const space_alloc_state& a = m.alloc;
  if (a.crc_table == 0) return {};
  const auto* table = reinterpret_cast<const std::uint32_t*>(file + a.crc_table);
  if (table_crc(file, a) != m.table_crc) return "page checksum table damaged";
  const table_pages own(a);
  const std::uint64_t pages = m.file_size / space_page;
  for (std::uint64_t i = 2; i < pages; ++i) {
    if (!own.holds(i) && page_crc(file, i) != table[i])
      return "checksum mismatch in page " + std::to_string(i) + " (offset " +
             hex(i * space_page) + ")";
  }
  return {};
}

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
