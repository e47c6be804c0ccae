// src/persist/page_images.hpp: the pages a writer holds an image of, by page
// offset, each with the commit that last changed it: its kept pages
// (space_state::kept) and its lagging pages (reader_table::lagging).
//
// Why not std::map: every commit looks up each page a write reported, and
// releasing freed blocks looks up each header's page, in tables of up to
// 16,384 pages; a tree's lookup there is a dozen nodes apart in memory, and
// the walks took 12-14% of a commit's CPU at a million members. Here a
// lookup is one probe of a flat_table (flat_table.hpp). The price is order:
// iteration visits pages in no particular order, and callers that need the
// offsets in order ask for sorted_offsets().
//
// Threads: as the space's state (the writer's alone).
#pragma once

#include "persist/flat_table.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
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
    std::uint64_t key = vacant;  // the page's offset
    page_image page;
  };

  // Visits the pages, in no particular order. A slot's `key` is not to be
  // changed through it; erasing while iterating is not allowed (use
  // erase_if).
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
      while (at_ != end_ && at_->key == vacant) ++at_;
    }
    Slot* at_;
    Slot* end_;
  };
  using iterator = basic_iterator<slot>;
  using const_iterator = basic_iterator<const slot>;
  iterator begin() noexcept { return {all().data(), all().data() + all().size()}; }
  iterator end() noexcept { return {all().data() + all().size(), all().data() + all().size()}; }
  const_iterator begin() const noexcept { return {all().data(), all().data() + all().size()}; }
  const_iterator end() const noexcept {
    return {all().data() + all().size(), all().data() + all().size()};
  }

  std::size_t size() const noexcept { return table_.size(); }
  bool empty() const noexcept { return table_.empty(); }

  // The page at `off`, or null.
  page_image* find(std::uint64_t off) noexcept {
    slot* e = table_.find(off);
    return e == nullptr ? nullptr : &e->page;
  }
  const page_image* find(std::uint64_t off) const noexcept {
    const slot* e = table_.find(off);
    return e == nullptr ? nullptr : &e->page;
  }
  bool contains(std::uint64_t off) const noexcept { return table_.find(off) != nullptr; }

  // The page at `off`, entered with gen 0 and no image if it was not in.
  // Entering one may move the others (pointers to them go stale).
  page_image& operator[](std::uint64_t off) {
    slot& e = table_.enter(off);
    high_ = std::max(high_, off);
    return e.page;
  }

  // Forgets the page at `off` (its image freed); false if it was not in.
  bool erase(std::uint64_t off) noexcept { return table_.erase(off); }
  // Forgets every page for which pred(off, page) is true; returns how many.
  template <class Pred>
  std::size_t erase_if(Pred pred) {
    std::vector<std::uint64_t> going;
    for (slot& e : all())
      if (e.key != vacant && pred(static_cast<const std::uint64_t&>(e.key), e.page))
        going.push_back(e.key);
    for (const std::uint64_t off : going) table_.erase(off);
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
    for (const slot& e : all())
      if (e.key != vacant) high_ = std::max(high_, e.key);
    return empty() || high_ < limit;
  }
  // Forgets every page. A large table's slots go too: iterating it costs
  // its capacity, not its size.
  void clear() noexcept {
    table_.clear(1024);
    high_ = 0;
  }
  // The offsets of the pages, ascending.
  std::vector<std::uint64_t> sorted_offsets() const {
    std::vector<std::uint64_t> out;
    out.reserve(size());
    for (const slot& e : all())
      if (e.key != vacant) out.push_back(e.key);
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  std::span<slot> all() noexcept { return table_.slots(); }
  std::span<const slot> all() const noexcept { return table_.slots(); }

  flat_table<slot, vacant> table_;
  std::uint64_t high_ = 0;  // no page is past it (a bound; exact after a walk)
};

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
