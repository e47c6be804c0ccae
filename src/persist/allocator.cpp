// src/persist/allocator.cpp: fl::mapped_space's allocator (blocks and their
// headers, size classes, free lists, deferred batches, carving at the end,
// growth of the file and the mapping, compact()). Formats in
// persist_format.hpp; the other parts of the space in the files space.hpp
// lists.
#include <fl/mapped_space.hpp>

#include "persist/persist_format.hpp"

#include "persist/space.hpp"
#include "persist/posix.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <sys/mman.h>

namespace fl {
inline namespace FL_ABI_NS {

// ---- allocator ---------------------------------------------------------------

namespace {

// Makes the file and the mapping at least `need` bytes long, in steps of an
// eighth of the file (at least a system page, at most max_growth_step): a
// space whose freed blocks are reused grows slowly, and the step bounds
// what the file holds past its end of blocks (a doubling would leave up to
// half the file unused).
void grow(detail::space_state& s, std::uint64_t need) {
  const std::uint64_t step = std::min(std::max(s.size / detail::growth_divisor, s.sys_page),
                                      detail::max_growth_step);
  std::uint64_t next = std::max(need, s.size + step);
  // Small files grow by system pages (a small store stays tens of KiB),
  // larger ones by the granule.
  next = detail::round_up(next, next < detail::small_file_bytes ? s.sys_page : s.granule);
  if (next > s.reserve) {
    // Move the mapping into a new, larger reserved range: raw pointers change.
    const std::uint64_t res = detail::round_up(2 * next, s.granule);
    void* r = ::mmap(nullptr, res, detail::reserve_prot, detail::reserve_flags, -1, 0);
    if (r == MAP_FAILED) detail::throw_errno(s.path, "mmap (address reservation)", errno);
    if (::mremap(s.base, s.size, s.size, MREMAP_MAYMOVE | MREMAP_FIXED, r) == MAP_FAILED) {
      const int e = errno;
      ::munmap(r, res);
      detail::throw_errno(s.path, "mremap", e);
    }
    ::munmap(s.base + s.size, s.reserve - s.size);
    s.base = static_cast<std::byte*>(r);
    s.reserve = res;
    ++s.remaps;
  }
  // The new range's blocks first (the file grows to `next` if shorter: after
  // compact() it keeps the committed size until the next commit, after a
  // shrink a reader held back its dead end, stale_end): a page the mapping
  // reaches must never lack one (SIGBUS). On failure nothing has changed
  // but the file's length, which the space ignores (only the committed size
  // counts) and the next open cuts.
  if (const int e = detail::reserve_file(s.fd.get(), s.size, next))
    detail::throw_errno(s.path, "fallocate (growth)", e);
  if (next >= s.shrink_from) s.shrink_from = 0;
  if (::mmap(s.base + s.size, next - s.size, detail::file_prot, detail::file_flags | MAP_FIXED,
             s.fd.get(), static_cast<off_t>(s.size)) == MAP_FAILED)
    detail::throw_errno(s.path, "mmap (growth)", errno);
  // New pages read as zeros (their checksums are a zero page's until written):
  // the dead end's old bytes become private zero pages, which the next commit
  // writes like any changed page.
  if (s.stale_end > s.size) {
    std::memset(s.base + s.size, 0, std::min(next, s.stale_end) - s.size);
    detail::note_write(s, s.size, std::min(next, s.stale_end) - s.size);
    s.zeroed_end = std::max(s.zeroed_end, std::min(next, s.stale_end));
    if (next >= s.stale_end) s.stale_end = 0;
  }
  s.size = next;
}

// Takes `cs` bytes at the top of the allocated range (growing the file and the
// mapping when they end below it) and returns their offset. The pages are
// checked first: a block carved over damaged bytes must not hand them out.
// The caller refreshes its copies of base, size and remap count.
std::uint64_t carve_top(detail::space_state& s, std::uint64_t cs) {
  const std::uint64_t b = s.alloc.top;
  if (b + cs > s.size) grow(s, b + cs);
  detail::check_pages_from_file(s, b, cs);
  s.alloc.top = b + cs;
  return b;
}

// The live block whose payload is at `off`: its start and class, or false.
bool find_live_block(const detail::space_state& s, std::uint64_t off, std::uint64_t& block,
                     unsigned& cls) {
  if (off % 16 != 0 || off < space_first_block + 8 || off >= s.alloc.top) return false;
  const block_header h = detail::load_header(s.base, off - 8);
  if (h.tag() != detail::block_live || h.cls() >= space_class_count ||
      h.back > off - 8 - space_first_block)
    return false;
  const std::uint64_t b = off - 8 - h.back;
  if (b < space_first_block || b % 16 != 8 || s.alloc.top - b < class_size(h.cls())) return false;
  if (h.back != 0) {
    const block_header own = detail::load_header(s.base, b);
    if (own.tag() != detail::block_live || own.cls() != h.cls() || own.back != 0 ||
        h.back >= class_size(h.cls()))
      return false;
  }
  block = b;
  cls = h.cls();
  return true;
}

// Pushes the live block at `b` (class `c`) on its free list.
void free_block(detail::space_state& s, std::uint64_t b, unsigned c) {
  const std::uint64_t cs = class_size(c);
  detail::space_alloc_state& a = s.alloc;
  detail::check_pages_to_write(s, b, 16);
  detail::store_header(s.base, b, block_header::make(detail::block_free, c));
  detail::store_u64(s.base, b + 8, a.free_heads[c]);
  detail::note_write(s, b, 16);
  a.free_heads[c] = b;
  a.used_bytes -= cs;
  a.free_bytes += cs;
  --a.live_blocks;
  ++a.free_blocks;
}

// Is a deferred batch ready for release (or the chain not yet loaded)?
bool deferred_due(const detail::space_state& s) noexcept {
  return !s.deferred_loaded || (!s.deferred.empty() && s.deferred.front().generation <=
                                                           detail::oldest_needed_generation(s));
}

}  // namespace

fptr<void> mapped_space::allocate(std::size_t bytes, std::size_t align) {
  detail::space_state& s = *st_;
  detail::refuse_read_only(s, "allocate");
  if (align == 0 || (align & (align - 1)) != 0 || align > space_page)
    throw std::invalid_argument("fl::mapped_space::allocate: align must be a power of two <= 4096");
  if (align < 16) align = 16;
  if (bytes > detail::space_max_block - space_page) throw std::bad_alloc();
  const std::uint64_t need = std::max<std::uint64_t>(16, bytes + 8 + (align - 16));
  unsigned c = detail::size_class(need);
  detail::space_alloc_state& a = s.alloc;
  if (deferred_due(s)) [[unlikely]]
    detail::release_deferred(s);
  // An empty class takes a free block of one of the next classes before
  // carving: freed space serves requests of neighbouring sizes (blocks are
  // never split or merged, so without this each class would keep its own
  // high-water mark of free blocks).
  for (unsigned k = 1; a.free_heads[c] == 0 && k <= detail::space_fit_classes &&
                       c + k < space_class_count;
       ++k) {
    if (a.free_heads[c + k] != 0) c += k;
  }
  const std::uint64_t cs = class_size(c);
  std::uint64_t b = a.free_heads[c];
  if (b != 0) {
    // Pop; the list lives in the file, so check what it says before use.
    if (b % 16 != 8 || b < space_first_block || b > a.top || a.top - b < cs) goto damaged;
    detail::check_pages_to_write(s, b, cs);
    {
      const block_header h = detail::load_header(s.base, b);
      if (h.tag() != detail::block_free || h.cls() != c) goto damaged;
      const std::uint64_t next = detail::load_u64(s.base, b + 8);
      if (next != 0 && (next % 16 != 8 || next < space_first_block || next >= a.top)) goto damaged;
      a.free_heads[c] = next;
      a.free_bytes -= cs;
      --a.free_blocks;
    }
  } else {
    b = carve_top(s, cs);
    base_ = s.base;
    size_ = s.size;
    remaps_ = s.remaps;
    // The page the top was in holds the blocks carved before (touched
    // then); the pages after it are new.
    const std::uint64_t fresh = std::min(detail::round_up(b, s.sys_page), b + cs);
    detail::touch_to_write(s, b, fresh - b);
    detail::populate_to_write(s, fresh, b + cs - fresh);
  }
  {
    detail::store_header(s.base, b, block_header::make(detail::block_live, c));
    detail::note_write(s, b, 8);
    std::uint64_t p = b + 8;
    if (align > 16) {
      p = detail::round_up(b + 8, align);
      if (p != b + 8) {
        detail::store_header(
            s.base, p - 8,
            block_header::make(detail::block_live, c, static_cast<std::uint32_t>(p - 8 - b)));
        detail::note_write(s, p - 8, 8);
      }
    }
    a.used_bytes += cs;
    ++a.live_blocks;
    return fptr<void>(p);
  }
damaged:
  detail::fail(
      s, "free list of size class " + std::to_string(c) + " damaged at offset " + detail::hex(b));
}

namespace {

// std::invalid_argument naming the call: `p` is not a live block.
[[noreturn, gnu::cold, gnu::noinline]] void throw_not_live(fptr<void> p, const char* call,
                                                           const char* hint) {
  throw std::invalid_argument(std::string("fl::mapped_space::") + call + ": " +
                              detail::hex(p.offset()) + " is not a live block of this space" +
                              hint);
}

// The block (header offset and class) whose payload `p` is, or
// std::invalid_argument naming the call. Inline with its check, the throw
// out of line: deallocate pays for the check only, as before the split.
inline std::pair<std::uint64_t, unsigned> live_block_or_throw(const detail::space_state& s,
                                                              fptr<void> p, const char* call,
                                                              const char* hint) {
  std::uint64_t b;
  unsigned c;
  if (!find_live_block(s, p.offset(), b, c)) [[unlikely]]
    throw_not_live(p, call, hint);
  return {b, c};
}

}  // namespace

void mapped_space::deallocate(fptr<void> p) {
  detail::refuse_read_only(*st_, "deallocate");
  if (!p) return;
  const auto [b, c] = live_block_or_throw(*st_, p, "deallocate", " (double free?)");
  free_block(*st_, b, c);
}

void mapped_space::retire(fptr<void> p) {
  if (!p) return;
  detail::space_state& s = *st_;
  const unsigned c = live_block_or_throw(s, p, "retire", "").second;
  if (!s.deferred_loaded) detail::load_deferred(s);
  s.retired_blocks.push_back(p.offset());
  s.deferred_bytes += class_size(c);
}

namespace detail {

namespace {

// Walks the committed chain of deferred batches, newest first, checking each
// (a live block, generations decreasing, counts within the block, every
// offset a live block), and calls on_batch(batch payload, head, its class
// size, the class sizes of its blocks summed, offsets). Reads only.
template <class F>
void walk_deferred(const space_state& s, F on_batch) {
  std::uint64_t prev_gen = s.committed.generation + 1;
  std::uint64_t batches = 0;
  for (std::uint64_t p = s.committed.deferred; p != 0;) {
    std::uint64_t b;
    unsigned c;
    if (++batches > s.alloc.live_blocks || !find_live_block(s, p, b, c))
      fail(s, "deferred batch at " + hex(p) + " is not a live block (damaged)");
    check_pages(s, p, sizeof(deferred_batch_head));
    deferred_batch_head h;
    std::memcpy(&h, s.base + p, sizeof h);
    const std::uint64_t room = b + class_size(c) - p - sizeof h;
    if (h.generation >= prev_gen || h.count == 0 || h.count > room / 8)
      fail(s, "deferred batch at " + hex(p) + " is damaged");
    check_pages(s, p + sizeof h, h.count * 8);
    std::vector<std::uint64_t> offsets(h.count);
    std::memcpy(offsets.data(), s.base + p + sizeof h, h.count * 8);
    std::uint64_t bytes = 0;
    for (std::uint64_t off : offsets) {
      std::uint64_t ob;
      unsigned oc;
      if (!find_live_block(s, off, ob, oc))
        fail(s, "deferred batch at " + hex(p) + " names " + hex(off) +
                    ", which is not a live block (damaged)");
      bytes += class_size(oc);
    }
    on_batch(p, h, class_size(c) + bytes, std::move(offsets));
    prev_gen = h.generation;
    p = h.next;
  }
}

}  // namespace

void load_deferred(space_state& s) {
  s.deferred.clear();
  s.retired_blocks.clear();
  s.deferred_bytes = 0;
  s.deferred_head = s.committed.deferred;
  s.deferred_loaded = true;
  walk_deferred(s, [&](std::uint64_t p, const deferred_batch_head& h, std::uint64_t bytes,
                       std::vector<std::uint64_t> offsets) {
    s.deferred_bytes += bytes;
    s.deferred.push_front({h.generation, p, std::move(offsets)});
  });
}

std::uint64_t deferred_bytes(const space_state& s) {
  if (s.deferred_loaded) return s.deferred_bytes;
  std::uint64_t sum = 0;
  walk_deferred(s, [&](std::uint64_t, const deferred_batch_head&, std::uint64_t bytes,
                       const std::vector<std::uint64_t>&) { sum += bytes; });
  return sum;
}

namespace {
// Frees a block the deferred byte count includes: a retired block of a
// released batch, or a batch's own block. `what` names it in the error a
// damaged chain gets.
void free_deferred_block(space_state& s, std::uint64_t off, const char* what) {
  std::uint64_t b;
  unsigned c;
  if (!find_live_block(s, off, b, c))
    fail(s, std::string(what) + " at " + hex(off) + " is not a live block (damaged)");
  s.deferred_bytes -= class_size(c);
  free_block(s, b, c);
}

// The pages of the block headers that releasing the batches of generations
// up to `oldest` reads and writes (each block's first 16 bytes: its header
// and free-list link), checked from the file and made writable copies in
// one batch (populate_ranges). The blocks were replaced a commit or more
// ago, so in a large file their pages are scattered and no longer mapped:
// freeing them one by one read each header through the mapping (a fault)
// and wrote it (a second fault, with a TLB flush). A batch's own block is
// read and freed too, and the oldest batch left gets a write to its link.
// Pages a commit kept as copies (s.kept), or left lagging as copies (the
// file lacks them), are left out: asking the kernel about a page it has
// copied already costs about what a fault would (a smaller file keeps
// nearly all of them).
void populate_due_headers(space_state& s, std::uint64_t oldest) {
  // (Every commit asks; most have nothing due.)
  if (s.deferred.empty() || s.deferred.front().generation > oldest) return;
  std::vector<std::uint64_t> pages;
  const auto add = [&](std::uint64_t payload) {
    if (payload < space_first_block + 8 || payload - 8 + 16 > s.committed.file_size) return;
    check_pages_from_file(s, payload - 8, 16);
    for (const std::uint64_t p : {sys_pages(s, payload - 8), sys_pages(s, payload + 7)})
      if (!s.kept.contains(p * s.sys_page) &&
          (!s.readers || !s.readers->lagging.contains(p * s.sys_page)))
        pages.push_back(p);
  };
  for (const space_state::deferred_batch& batch : s.deferred) {
    if (batch.generation > oldest) {
      add(batch.block);  // the oldest batch left: its link is cleared
      break;
    }
    for (std::uint64_t off : batch.offsets) add(off);
    add(batch.block);
  }
  std::sort(pages.begin(), pages.end());
  pages.erase(std::unique(pages.begin(), pages.end()), pages.end());
  std::vector<log_extent> runs;
  for (std::uint64_t p : pages) append_run(runs, p * s.sys_page, s.sys_page);
  populate_ranges(s, runs);
  if (!s.writes_reported) return;
  // Each page not yet written since the last commit holds what the file
  // does: kept with its image now, a copy in memory, the commit finds the
  // header's change against it instead of reading the file's page (a pread
  // a commit at a million members, where most freed blocks lie in pages no
  // commit kept). Where writes are not reported a kept page pays rent.
  for (const std::uint64_t p : pages) {
    if (s.written_pages.test(p)) continue;
    std::unique_ptr<std::byte[]> image(new std::byte[s.sys_page]);
    std::memcpy(image.get(), s.base + p * s.sys_page, s.sys_page);
    keep_image(s, p * s.sys_page, s.committed.generation, std::move(image));
  }
}
}  // namespace

void release_deferred(space_state& s) {
  if (!s.deferred_loaded) load_deferred(s);
  const std::uint64_t oldest = oldest_needed_generation(s);
  populate_due_headers(s, oldest);
  bool released = false;
  while (!s.deferred.empty() && s.deferred.front().generation <= oldest) {
    space_state::deferred_batch& batch = s.deferred.front();
    for (std::uint64_t off : batch.offsets) free_deferred_block(s, off, "deferred free");
    free_deferred_block(s, batch.block, "deferred batch");
    s.deferred.pop_front();
    released = true;
  }
  if (!released) return;
  // The oldest batch left ends the chain now.
  if (s.deferred.empty()) {
    s.deferred_head = 0;
  } else {
    const std::uint64_t at = s.deferred.front().block + offsetof(deferred_batch_head, next);
    check_pages_to_write(s, at, 8);
    store_u64(s.base, at, 0);
    note_write(s, at, 8);
  }
}

void write_retired_batch(mapped_space& space, space_state& s, std::uint64_t generation) {
  if (!s.deferred_loaded) load_deferred(s);
  if (s.retired_blocks.empty()) return;
  std::vector<std::uint64_t>& r = s.retired_blocks;
  // A batch of this generation already: a sync() wrote it and then failed
  // (the commit did not happen) and blocks were retired since. One commit
  // has one batch (a chain's generations strictly decrease: a second batch
  // of one generation reads as damage at the next open), so its blocks join
  // this one, and its own block, never committed, is freed now.
  if (!s.deferred.empty() && s.deferred.back().generation == generation) {
    space_state::deferred_batch old = std::move(s.deferred.back());
    s.deferred.pop_back();
    r.insert(r.end(), old.offsets.begin(), old.offsets.end());
    deferred_batch_head oh;
    std::memcpy(&oh, s.base + old.block, sizeof oh);
    s.deferred_head = oh.next;
    free_deferred_block(s, old.block, "deferred batch");
  }
  std::sort(r.begin(), r.end());
  // One block retired twice (a damaged document that names it twice) is
  // freed once.
  const auto dup = std::unique(r.begin(), r.end());
  for (auto it = dup; it != r.end(); ++it) {
    std::uint64_t b;
    unsigned c;
    if (find_live_block(s, *it, b, c)) s.deferred_bytes -= class_size(c);
  }
  r.erase(dup, r.end());
  const std::size_t bytes = sizeof(deferred_batch_head) + r.size() * 8;
  const fptr<void> p = space.allocate(bytes, 16);
  const deferred_batch_head h{generation, r.size(), s.deferred_head};
  std::memcpy(s.base + p.offset(), &h, sizeof h);
  std::memcpy(s.base + p.offset() + sizeof h, r.data(), r.size() * 8);
  note_write(s, p.offset(), sizeof h + r.size() * 8);
  s.deferred_bytes += space.block_size(p) + 8;  // its class size (16-aligned: no `back`)
  s.deferred.push_back({generation, p.offset(), std::move(r)});
  s.deferred_head = p.offset();
  r.clear();
}

}  // namespace detail

std::size_t mapped_space::block_size(fptr<void> p) const {
  std::uint64_t b;
  unsigned c;
  if (!find_live_block(*st_, p.offset(), b, c))
    throw std::invalid_argument("fl::mapped_space::block_size: " + detail::hex(p.offset()) +
                                " is not a live block of this space");
  return static_cast<std::size_t>(b + class_size(c) - p.offset());
}

fptr<void> mapped_space::end_block() const noexcept { return fptr<void>(st_->alloc.top + 8); }

void mapped_space::write_fresh(fptr<void> p, const void* src, std::size_t bytes) {
  detail::refuse_read_only(*st_, "write_fresh");
  detail::space_state& s = *st_;
  const std::uint64_t off = p.offset();
  if (off < space_first_block || off > s.alloc.top || bytes > s.alloc.top - off)
    throw std::invalid_argument("fl::mapped_space::write_fresh: not inside the carved blocks");
  const auto* from = static_cast<const std::byte*>(src);
  // Whole system pages past the committed file, not sharing a page with
  // bytes before the block: straight to the file. The rest through the map,
  // and so are the pages a reader's older commit may still read in the file
  // (readers_end): there the next commit logs them instead.
  const std::uint64_t lo = detail::round_up(
      std::max({off, s.committed.file_size, detail::readers_end(s)}), s.sys_page);
  const std::uint64_t hi = detail::sys_page_floor(s, off + bytes);
  if (lo >= hi) {
    if (bytes) std::memcpy(s.base + off, from, bytes);
    detail::note_write(s, off, bytes);
    return;
  }
  if (const int e = detail::pwrite_all(s.fd.get(), from + (lo - off), hi - lo, lo))
    detail::throw_errno(s.path, "write", e);
  std::memcpy(s.base + off, from, lo - off);
  std::memcpy(s.base + hi, from + (hi - off), off + bytes - hi);
  detail::note_write(s, off, lo - off);
  detail::note_write(s, hi, off + bytes - hi);
  s.fresh.crcs.reserve(s.fresh.crcs.size() + (hi - lo) / space_page);
  for (std::uint64_t at = lo; at < hi; at += space_page)
    s.fresh.crcs.push_back(detail::crc32c(from + (at - off), space_page));
  s.fresh.runs.push_back({lo, hi - lo});
}

fptr<void> mapped_space::allocate_end(std::size_t bytes) {
  detail::refuse_read_only(*st_, "allocate_end");
  detail::space_state& s = *st_;
  if (bytes > detail::space_max_block - space_page) throw std::bad_alloc();
  const unsigned c = detail::payload_class(bytes);
  const std::uint64_t cs = class_size(c);
  detail::space_alloc_state& a = s.alloc;
  const std::uint64_t b = carve_top(s, cs);
  base_ = s.base;
  size_ = s.size;
  remaps_ = s.remaps;
  detail::store_header(s.base, b, block_header::make(detail::block_live, c));
  detail::note_write(s, b, 8);
  a.used_bytes += cs;
  ++a.live_blocks;
  return fptr<void>(b + 8);
}

void mapped_space::compact() {
  detail::space_state& s = *st_;
  detail::release_deferred(s);
  detail::space_alloc_state& a = s.alloc;
  // The free blocks, by offset (the lists are checked as allocate() does).
  std::vector<std::uint64_t> free_blocks;
  for (unsigned c = 0; c < space_class_count; ++c) {
    for (std::uint64_t b = a.free_heads[c]; b != 0;) {
      if (b % 16 != 8 || b < space_first_block || b >= a.top || a.top - b < class_size(c) ||
          free_blocks.size() >= a.free_blocks ||
          detail::load_header(s.base, b).tag() != detail::block_free ||
          detail::load_header(s.base, b).cls() != c)
        detail::fail(s, "free list of size class " + std::to_string(c) + " damaged at offset " +
                            detail::hex(b));
      free_blocks.push_back(b);
      b = detail::load_u64(s.base, b + 8);
    }
  }
  // The page-CRC table is the space's own block: when it lies in the run of
  // free blocks at the end (growth carves a bigger one at the end), it goes
  // too, and the next commit carves a new one and computes every page's CRC.
  std::uint64_t table_block = 0;
  if (a.crc_table != 0) {
    std::uint64_t b;
    unsigned c;
    if (find_live_block(s, a.crc_table, b, c)) table_block = b;
  }
  std::sort(free_blocks.begin(), free_blocks.end());
  std::uint64_t top = a.top;
  bool drop_table = false;
  for (;;) {
    if (!free_blocks.empty() &&
        free_blocks.back() + class_size(detail::load_header(s.base, free_blocks.back()).cls()) ==
            top) {
      top = free_blocks.back();
      free_blocks.pop_back();
    } else if (table_block != 0 && !drop_table &&
               table_block + class_size(detail::load_header(s.base, table_block).cls()) == top) {
      top = table_block;
      drop_table = true;
    } else {
      break;
    }
  }
  if (top == a.top) return;
  if (drop_table) {
    free_block(s, table_block, detail::load_header(s.base, table_block).cls());
    a.crc_table = 0;
    a.crc_table_bytes = 0;
    s.table_rebuild = true;
  }
  // Unlink the blocks at or past the new end from their lists.
  for (unsigned c = 0; c < space_class_count; ++c) {
    std::uint64_t prev = 0;
    for (std::uint64_t b = a.free_heads[c]; b != 0;) {
      const std::uint64_t next = detail::load_u64(s.base, b + 8);
      if (b >= top) {
        if (prev == 0)
          a.free_heads[c] = next;
        else {
          detail::store_u64(s.base, prev + 8, next);
          detail::note_write(s, prev + 8, 8);
        }
        a.free_bytes -= class_size(c);
        --a.free_blocks;
      } else {
        prev = b;
      }
      b = next;
    }
  }
  a.top = top;
  const std::uint64_t size =
      std::max(detail::initial_file_size, detail::round_up(top, std::max(s.sys_page, space_page)));
  if (size < s.size) {
    if (s.shrink_from == 0) s.shrink_from = s.size;
    s.size = size;
    size_ = size;
  }
}

fptr<void> mapped_space::allocate_end_run(std::size_t bytes, std::size_t blocks) {
  detail::space_state& s = *st_;
  if (bytes % 16 != 0 || blocks == 0 || bytes < blocks * 16)
    throw std::invalid_argument("fl::mapped_space::allocate_end_run: not a run of blocks");
  if (bytes > detail::space_max_block) throw std::bad_alloc();
  const std::uint64_t b = carve_top(s, bytes);
  base_ = s.base;
  size_ = s.size;
  remaps_ = s.remaps;
  s.alloc.used_bytes += bytes;
  s.alloc.live_blocks += blocks;
  return fptr<void>(b);
}

}  // namespace FL_ABI_NS
}  // namespace fl
