// src/rope/chunk_index.cpp: the block index of a big chunk (a flat rope's
// text, or the chunk that the leaves an edit cut from it still view;
// detail/rope_node.hpp: chunk_index): built lazily by the first query that
// needs it, in one pass at memory bandwidth, and shared by every rope that
// views the chunk; and what it answers: the metrics of a range (two block
// lookups and a scan of at most half a block at each end) and the position
// of a range's item k (a search of the blocks guessed from the range's item
// density, then a scan of at most half a block). Leaf-sized chunks carry
// the leaf index instead (metrics.cpp).
//
// Threads: queries are const and may run on many threads over ropes sharing
// a chunk; the only shared write is the publication of a chunk's index (a
// CAS from the pointer the builder read; the loser frees its copy). Indexes
// replaced by a rebuild stay alive (linked through prev) until the chunk
// dies, since a reader may still hold them.
#include <fl/pool.hpp>

#include "rope/metrics.hpp"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
inline namespace FL_ROPE_NS {
namespace {

constexpr std::size_t B = index_block;

// A rebuild is due when this many bytes past the indexed ones would have to
// be scanned (bytes appended to a chunk after its index was built).
constexpr std::size_t index_max_tail = 64 * B;

std::size_t* cum(const chunk_index* ix) noexcept {
  return reinterpret_cast<std::size_t*>(const_cast<chunk_index*>(ix) + 1);
}
std::size_t index_bytes(std::size_t cap_blocks) noexcept {
  return sizeof(chunk_index) + sizeof(std::size_t) * 3 * (cap_blocks + 1);
}

// An index of c good for reading bytes below `upto` (with at most
// index_max_tail of them past its blocks), building or rebuilding it if
// needed; null when none could be allocated (callers then scan).
const chunk_index* usable_index(const chunk* c, std::size_t upto) noexcept {
  auto& slot = const_cast<std::atomic<chunk_index*>&>(c->index);
  chunk_index* ix = slot.load(std::memory_order_acquire);
  const std::size_t covered = ix ? ix->blocks * B : 0;
  if (upto <= covered + (ix ? index_max_tail : 0)) return ix;
  const std::size_t want = c->used / B;
  chunk_index* nx = nullptr;
  try {
    nx = static_cast<chunk_index*>(pool_allocate(index_bytes(want)));
  } catch (...) { return ix; }
  nx->cap_blocks = want;
  nx->prev = ix;
  std::size_t* out = cum(nx);
  std::size_t from = 0;
  if (ix) {
    from = std::min(ix->blocks, want);
    std::copy(cum(ix), cum(ix) + 3 * (from + 1), out);
  } else {
    out[0] = out[1] = out[2] = 0;
  }
  for (std::size_t j = from; j < want; ++j) {
    const text_counts t = count_text(c->data + j * B, B);
    out[3 * (j + 1)] = out[3 * j] + t.chars;
    out[3 * (j + 1) + 1] = out[3 * j + 1] + t.newlines;
    out[3 * (j + 1) + 2] = out[3 * j + 2] + t.astral;
  }
  nx->blocks = want;
  if (slot.compare_exchange_strong(ix, nx, std::memory_order_acq_rel, std::memory_order_acquire))
    return nx;
  // Another reader published first (ix is now its index): use that one.
  pool_deallocate(nx, index_bytes(want));
  return ix;
}

// Metrics of c's bytes [0, x), with the index ix (which may be null): the
// entry of the block boundary nearest x, corrected by a scan of the bytes
// between (at most half a block inside the indexed part).
// Inline, so that a range starting at the chunk's start (a flat rope's
// every query) costs its callers no call for that end.
[[gnu::always_inline]] inline text_counts prefix(const chunk* c, const chunk_index* ix,
                                                 std::size_t x) noexcept {
  if (x == 0) return {};
  if (!ix) return count_text(c->data, x);
  const std::size_t j = std::min(x / B, ix->blocks);
  const std::size_t* q = cum(ix) + 3 * j;
  if (j < ix->blocks && x - j * B > B / 2) {
    const text_counts over = count_text(c->data + x, (j + 1) * B - x);
    return text_counts{q[3], q[4], q[5]} - over;
  }
  text_counts r{q[0], q[1], q[2]};
  if (x > j * B) add(r, count_text(c->data + j * B, x - j * B));
  return r;
}

// The largest j in [lo, hi] with at(j) <= k, given at(lo) <= k and at
// nondecreasing, looked for from the guess g in [lo, hi]: galloping away
// from g toward the answer, then halving the bracket. With a good guess
// (counts per block vary little) that is a few probes where a plain binary
// search over a big chunk's index takes one dependent load per halving.
template <class At>
std::size_t search_from(const At& at, std::size_t lo, std::size_t hi, std::size_t g,
                        std::size_t k) noexcept {
  if (at(g) <= k) {
    lo = g;
    for (std::size_t step = 1; lo < hi; step *= 2) {
      const std::size_t j = hi - lo > step ? lo + step : hi;
      if (at(j) > k) {
        hi = j - 1;
        break;
      }
      lo = j;
    }
  } else {
    hi = g - 1;  // g > lo, since at(lo) <= k
    for (std::size_t step = 1; lo < hi; step *= 2) {
      const std::size_t j = hi - lo > step ? hi - step : lo;
      if (at(j) <= k) {
        lo = j;
        break;
      }
      hi = j - 1;
    }
  }
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo + 1) / 2;
    if (at(mid) <= k) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

// chunk_nth for one metric, known at compile time. The item lies in the
// stretch between two neighbouring block boundaries of the range (or the
// range's own ends), found by a search guessed from the range's item density;
// the stretch is then scanned from whichever end has fewer items to pass.
template <text_metric M>
std::size_t chunk_nth_by(const chunk* c, const chunk_index* ix, std::size_t off, std::size_t len,
                         std::size_t k) noexcept {
  const std::size_t* q = cum(ix);
  const std::size_t base = weight(prefix(c, ix, off), M);
  // Boundaries j in [first, last] lie inside the range; at(j) is the
  // range's items before boundary j.
  const std::size_t first = off / B + 1, last = std::min(ix->blocks, (off + len) / B);
  const auto at = [&](std::size_t j) {
    return weight(text_counts{q[3 * j], q[3 * j + 1], q[3 * j + 2]}, M) - base;
  };
  std::size_t from = off, to = off + len, seen = 0;
  std::size_t seen_to = static_cast<std::size_t>(-1);  // items before `to`: unknown
  if (first <= last) {
    if (at(first) <= k) {
      const std::size_t total = at(last);
      std::size_t j = last;
      if (total > k) {
        // Where item k would be if the items were spread evenly.
        const auto g =
            first + static_cast<std::size_t>(static_cast<double>(last - first) *
                                             static_cast<double>(k) / static_cast<double>(total));
        j = search_from(at, first, last, std::min(g, last), k);
      }
      from = j * B;
      seen = at(j);
      if (j < last) {
        to = (j + 1) * B;
        seen_to = at(j + 1);
      }
    } else {
      to = first * B;
      seen_to = at(first);
    }
  }
  const char* p = c->data + from;
  // Item k is among [seen, seen_to) when seen_to is known: from the end,
  // it is item seen_to - 1 - k counted back.
  if (seen_to != static_cast<std::size_t>(-1) && 2 * (k - seen) >= seen_to - seen)
    return from + nth_item_back(p, to - from, M, seen_to - 1 - k) - off;
  std::size_t skipped = 0;
  return from + nth_item(p, off + len - from, M, k - seen, skipped) - off;
}

}  // namespace

std::size_t chunk_nth(const chunk* c, std::size_t off, std::size_t len, text_metric m,
                      std::size_t k) noexcept {
  const chunk_index* ix = len >= index_min_range ? usable_index(c, off + len) : nullptr;
  if (!ix) {
    std::size_t skipped = 0;
    return nth_item(c->data + off, len, m, k, skipped);
  }
  switch (m) {
    case text_metric::chars: return chunk_nth_by<text_metric::chars>(c, ix, off, len, k);
    case text_metric::newlines: return chunk_nth_by<text_metric::newlines>(c, ix, off, len, k);
    case text_metric::utf16: break;
  }
  return chunk_nth_by<text_metric::utf16>(c, ix, off, len, k);
}

void free_index(chunk* c) noexcept {
  chunk_index* ix = c->index.load(std::memory_order_acquire);
  while (ix) {
    chunk_index* prev = ix->prev;
    pool_deallocate(ix, index_bytes(ix->cap_blocks));
    ix = prev;
  }
}

bool index_ok(const chunk* c, std::size_t off, std::size_t len) noexcept {
  const chunk_index* ix = c->index.load(std::memory_order_acquire);
  if (!ix) return true;
  if (ix->blocks > ix->cap_blocks || ix->blocks * B > c->used) return false;
  const std::size_t* q = cum(ix);
  if (q[0] != 0 || q[1] != 0 || q[2] != 0) return false;
  // The entries of the blocks that overlap [off, off + len): O(len), so a
  // check of every leaf viewing a big chunk stays linear in the text.
  const std::size_t last = std::min(ix->blocks, (off + len + B - 1) / B);
  for (std::size_t j = off / B; j < last; ++j) {
    const text_counts t = count_text(c->data + j * B, B);
    const std::size_t* e = q + 3 * j;
    if (e[3] - e[0] != t.chars || e[4] - e[1] != t.newlines || e[5] - e[2] != t.astral)
      return false;
  }
  return true;
}

text_counts chunk_counts(const chunk* c, std::size_t off, std::size_t len) noexcept {
  if (len < index_min_range) return count_text(c->data + off, len);
  const chunk_index* ix = usable_index(c, off + len);
  if (!ix) return count_text(c->data + off, len);
  return prefix(c, ix, off + len) - prefix(c, ix, off);
}

chunk_cut chunk_cut_counts(const chunk* c, std::size_t off, std::size_t len,
                           const text_counts* whole, std::size_t a, std::size_t b) noexcept {
  chunk_cut r;
  const chunk_index* ix = len < index_min_range ? nullptr : usable_index(c, off + len);
  // A lookup scans at most half a block (none at a block boundary, where
  // edits cut: see edit_window), so it wins over a scan of a part longer.
  const bool look_a = ix && a > B / 2, look_b = ix && b > B / 2;
  if (!look_a && !look_b) {
    r.whole = whole ? *whole : chunk_counts(c, off, len);
    if (a) r.head = count_text(c->data + off, a);
    if (b) r.tail = count_text(c->data + off + len - b, b);
    return r;
  }
  // Boundaries p0 = off, p1 = off + a, p2 = off + len - b, p3 = off + len:
  // the prefix metrics of each that is needed, once.
  const text_counts p0 = prefix(c, ix, off);
  const text_counts p3 = whole ? p0 + *whole : prefix(c, ix, off + len);
  r.whole = p3 - p0;
  if (a) r.head = look_a ? prefix(c, ix, off + a) - p0 : count_text(c->data + off, a);
  if (b)
    r.tail = look_b ? p3 - prefix(c, ix, off + len - b) : count_text(c->data + off + len - b, b);
  return r;
}

}  // namespace FL_ROPE_NS
}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
