// src/json/offset_set.hpp: a set of block offsets in one flat table, for
// bookkeeping an edit must finish once it has changed the document: after
// reserve(), insert() allocates nothing and cannot throw.
#pragma once

#include <fl/detail/config.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail::json {

// Offsets are nonzero (0 marks an empty slot). Linear probing at a load of
// at most one half; erase shifts the probe run back, so no tombstones pile
// up under a stream of inserts and erases.
class offset_set {
 public:
  std::size_t size() const noexcept { return size_; }

  // Room for `more` inserts beyond the current size without allocating.
  // Throws std::bad_alloc, leaving the set as it was.
  void reserve(std::size_t more) {
    std::size_t cap = slots_.empty() ? 16 : slots_.size();
    while (2 * (size_ + more) > cap) cap *= 2;
    if (cap != slots_.size()) rehash(cap);
  }

  // Within the room reserve() made.
  void insert(std::uint64_t x) noexcept {
    std::size_t i = home(x);
    while (slots_[i] != 0) {
      if (slots_[i] == x) return;
      i = (i + 1) & mask();
    }
    slots_[i] = x;
    ++size_;
  }

  bool contains(std::uint64_t x) const noexcept {
    if (size_ == 0) return false;
    for (std::size_t i = home(x);; i = (i + 1) & mask()) {
      if (slots_[i] == x) return true;
      if (slots_[i] == 0) return false;
    }
  }

  // Whether `x` was there (and now is not).
  bool erase(std::uint64_t x) noexcept {
    if (size_ == 0) return false;
    std::size_t i = home(x);
    while (slots_[i] != x) {
      if (slots_[i] == 0) return false;
      i = (i + 1) & mask();
    }
    // Backward shift: a later entry of the run moves into the hole when the
    // hole lies on its way from its home slot to where it sits.
    for (std::size_t j = (i + 1) & mask(); slots_[j] != 0; j = (j + 1) & mask()) {
      const std::size_t h = home(slots_[j]);
      if (((j - h) & mask()) >= ((j - i) & mask())) {
        slots_[i] = slots_[j];
        i = j;
      }
    }
    slots_[i] = 0;
    --size_;
    return true;
  }

  // Empties the set; a table grown past small_slots by a long run of edits
  // is given back, so that clearing at every commit stays cheap.
  void clear() noexcept {
    if (slots_.size() > small_slots) {
      std::vector<std::uint64_t>().swap(slots_);
    } else {
      for (std::uint64_t& s : slots_) s = 0;
    }
    size_ = 0;
  }

 private:
  static constexpr std::size_t small_slots = 4096;
  std::size_t mask() const noexcept { return slots_.size() - 1; }
  // Offsets of blocks are multiples of 8; the multiply spreads their bits.
  std::size_t home(std::uint64_t x) const noexcept {
    return static_cast<std::size_t>(((x >> 3) * 0x9E3779B97F4A7C15ull) >> 32) & mask();
  }
  void rehash(std::size_t cap) {
    std::vector<std::uint64_t> old(cap, 0);
    old.swap(slots_);
    size_ = 0;
    for (std::uint64_t x : old)
      if (x != 0) insert(x);
  }

  std::vector<std::uint64_t> slots_;  // a power of two long, or empty
  std::size_t size_ = 0;
};

}  // namespace detail::json
}  // namespace FL_ABI_NS
}  // namespace fl
