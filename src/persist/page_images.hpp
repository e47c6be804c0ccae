// src/persist/page_images.hpp: the pages a writer holds an image of, by page
// offset, each with the commit that last changed it: its kept pages
// (space_state::kept) and its lagging pages (reader_table::lagging).
//
// Why not std::map: every commit looks up each page a write reported, and
// releasing freed blocks looks up each header's page, in tables of up to
// 16,384 pages; a tree's lookup there is a dozen nodes apart in memory, and
// the walks took 12-14% of a commit's CPU at a million members. Here a
// lookup is one probe in an open-addressed table (linear probing, at most
// half full, deletion by backward shift: no tombstones). The price is order:
// iteration visits pages in no particular order, and callers that need the
// offsets in order ask for sorted_offsets().
//
// Threads: as the space's state (the writer's alone).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

// A page as commit `gen` left it (sys_page bytes).
struct page_image {
  std::uint64_t gen = 0;
  std::unique_ptr<std::byte[]> image;
};

class page_images {
 public:
  static constexpr std::uint64_t vacant = ~std::uint64_t{0};  // no page is at this offset
  struct slot {
    std::uint64_t off = vacant;
    page_image page;
  };

  // Visits the occupied slots, in no particular order. A slot's `off` is
  // not to be changed through it; erasing while iterating is not allowed
  // (use erase_if).
  template <class Slot>
  class basic_iterator {
   public:
    basic_iterator(Slot* at, Slot* end) noexcept : at_(at), end_(end) { skip(); }
    Slot& operator*() const noexcept { return *at_; }
    Slot* operator->() const noexcept { return at_; }
    basic_iterator& operator++() noexcept {
      ++at_;
      skip();
      return *this;
    }
    bool operator==(const basic_iterator& o) const noexcept { return at_ == o.at_; }

   private:
    void skip() noexcept {
      while (at_ != end_ && at_->off == vacant) ++at_;
    }
    Slot* at_;
    Slot* end_;
  };
  using iterator = basic_iterator<slot>;
  using const_iterator = basic_iterator<const slot>;
  iterator begin() noexcept { return {slots_.data(), slots_.data() + slots_.size()}; }
  iterator end() noexcept { return {slots_.data() + slots_.size(), slots_.data() + slots_.size()}; }
  const_iterator begin() const noexcept { return {slots_.data(), slots_.data() + slots_.size()}; }
  const_iterator end() const noexcept {
    return {slots_.data() + slots_.size(), slots_.data() + slots_.size()};
  }

  std::size_t size() const noexcept { return count_; }
  bool empty() const noexcept { return count_ == 0; }

  // The page at `off`, or null.
  page_image* find(std::uint64_t off) noexcept {
    const std::size_t i = index_of(off);
    return i == npos ? nullptr : &slots_[i].page;
  }
  const page_image* find(std::uint64_t off) const noexcept {
    const std::size_t i = index_of(off);
    return i == npos ? nullptr : &slots_[i].page;
  }
  bool contains(std::uint64_t off) const noexcept { return index_of(off) != npos; }

  // The page at `off`, entered with gen 0 and no image if it was not in.
  // Invalidates pointers to other pages' entries when it enters one.
  page_image& operator[](std::uint64_t off) {
    if (const std::size_t i = index_of(off); i != npos) return slots_[i].page;
    if (2 * (count_ + 1) > slots_.size()) rehash(std::max<std::size_t>(16, 2 * slots_.size()));
    std::size_t i = home(off);
    while (slots_[i].off != vacant) i = (i + 1) & mask();
    slots_[i].off = off;
    ++count_;
    high_ = std::max(high_, off);
    return slots_[i].page;
  }

  // Forgets the page at `off` (its image freed); false if it was not in.
  bool erase(std::uint64_t off) noexcept {
    const std::size_t i = index_of(off);
    if (i == npos) return false;
    vacate(i);
    return true;
  }
  // Forgets every page for which pred(off, page) is true; returns how many.
  template <class Pred>
  std::size_t erase_if(Pred pred) {
    std::vector<std::uint64_t> going;
    for (slot& e : slots_)
      if (e.off != vacant && pred(static_cast<const std::uint64_t&>(e.off), e.page))
        going.push_back(e.off);
    for (const std::uint64_t off : going) erase(off);
    return going.size();
  }
  // Forgets the pages at `limit` and past it (a compaction cut them). O(1)
  // while no page was entered at or past `limit` since the last look.
  void erase_from(std::uint64_t limit) {
    if (below(limit)) return;
    erase_if([limit](std::uint64_t off, const page_image&) { return off >= limit; });
    if (limit != 0) high_ = std::min(high_, limit - 1);
  }
  // Whether every page is below `limit`. O(1) while no page was entered at
  // or past `limit` since the last look; else a walk, which tightens the
  // bound it keeps.
  bool below(std::uint64_t limit) noexcept {
    if (high_ < limit) return true;
    high_ = 0;
    for (const slot& e : slots_)
      if (e.off != vacant) high_ = std::max(high_, e.off);
    return empty() || high_ < limit;
  }
  // Forgets every page. A large table's slots go too: iterating it costs
  // its capacity, not its size.
  void clear() noexcept {
    if (slots_.size() > 1024) {
      std::vector<slot>().swap(slots_);
      shift_ = 64;
    } else {
      for (slot& e : slots_) {
        e.off = vacant;
        e.page = {};
      }
    }
    count_ = 0;
    high_ = 0;
  }
  // The offsets of the pages, ascending.
  std::vector<std::uint64_t> sorted_offsets() const {
    std::vector<std::uint64_t> out;
    out.reserve(count_);
    for (const slot& e : slots_)
      if (e.off != vacant) out.push_back(e.off);
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  static constexpr std::size_t npos = ~std::size_t{0};
  std::size_t mask() const noexcept { return slots_.size() - 1; }
  // Fibonacci hashing: the product's top bits depend on every bit of the
  // offset, whose low bits are all zero.
  std::size_t home(std::uint64_t off) const noexcept {
    return static_cast<std::size_t>((off * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  std::size_t index_of(std::uint64_t off) const noexcept {
    if (count_ == 0) return npos;
    for (std::size_t i = home(off);; i = (i + 1) & mask()) {
      if (slots_[i].off == off) return i;
      if (slots_[i].off == vacant) return npos;
    }
  }
  // Empties slot i, then moves back each later slot of its cluster that may
  // sit in it (its home is not cyclically within (i, j]), so that every
  // lookup's probe still reaches its page before a vacant slot.
  void vacate(std::size_t i) noexcept {
    slots_[i].off = vacant;
    slots_[i].page = {};
    --count_;
    for (std::size_t j = (i + 1) & mask(); slots_[j].off != vacant; j = (j + 1) & mask()) {
      const std::size_t h = home(slots_[j].off);
      const bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
      if (stays) continue;
      slots_[i] = std::move(slots_[j]);
      slots_[j].off = vacant;
      i = j;
    }
  }
  void rehash(std::size_t capacity) {  // a power of two
    std::vector<slot> old = std::exchange(slots_, std::vector<slot>(capacity));
    shift_ = 64 - static_cast<unsigned>(__builtin_ctzll(capacity));
    for (slot& e : old) {
      if (e.off == vacant) continue;
      std::size_t i = home(e.off);
      while (slots_[i].off != vacant) i = (i + 1) & mask();
      slots_[i] = std::move(e);
    }
  }

  std::vector<slot> slots_;  // empty, or a power of two, at most half full
  std::size_t count_ = 0;
  unsigned shift_ = 64;
  std::uint64_t high_ = 0;  // no page is past it (a bound; exact after erase_from)
};

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
