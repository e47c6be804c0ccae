// src/persist/flat_table.hpp: a table of slots by a 64-bit key in one flat
// array, for the bookkeeping a commit or an edit does per page or block:
// the writer's kept and lagging pages (page_images.hpp) and the blocks an
// edit made since the last commit (src/json/offset_set.hpp).
//
// Linear probing at a load of at most one half, Fibonacci hashing (the
// product's top bits depend on every bit of the key, whose low bits are
// often all zero: page offsets, block offsets), and erase by backward shift,
// so no tombstones pile up under a stream of enters and erases. A lookup is
// one probe, most often; iteration visits the slots in no particular order.
//
// Threads: none of its own; as its owner's state.
#pragma once

#include <fl/detail/config.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

// Slot: default-constructible and movable, with a `std::uint64_t key` member
// that is `Vacant` in an empty slot (and in a default-constructed one).
template <class Slot, std::uint64_t Vacant>
class flat_table {
 public:
  static constexpr std::uint64_t vacant = Vacant;

  std::size_t size() const noexcept { return count_; }
  bool empty() const noexcept { return count_ == 0; }

  Slot* find(std::uint64_t key) noexcept {
    const std::size_t i = index_of(key);
    return i == npos ? nullptr : &slots_[i];
  }
  const Slot* find(std::uint64_t key) const noexcept {
    const std::size_t i = index_of(key);
    return i == npos ? nullptr : &slots_[i];
  }

  // Room for `more` keys beyond size() without a rehash. Throws
  // std::bad_alloc, leaving the table as it was.
  void reserve(std::size_t more) {
    std::size_t cap = slots_.empty() ? 16 : slots_.size();
    while (2 * (count_ + more) > cap) cap *= 2;
    if (cap != slots_.size()) rehash(cap);
  }
  // The slot of `key`, entered (default-constructed, with its key) if it
  // was not in, within the room reserve() made. Entering one moves no other
  // slot, so pointers to them stay valid.
  Slot& enter_reserved(std::uint64_t key) noexcept {
    std::size_t i = home(key);
    for (; slots_[i].key != Vacant; i = (i + 1) & mask())
      if (slots_[i].key == key) return slots_[i];
    slots_[i].key = key;
    ++count_;
    return slots_[i];
  }
  // As enter_reserved, making room first (a rehash moves every slot).
  Slot& enter(std::uint64_t key) {
    if (Slot* s = find(key)) return *s;
    reserve(1);
    return enter_reserved(key);
  }

  // Whether `key` was in (and now is not; its slot is reset).
  bool erase(std::uint64_t key) noexcept {
    std::size_t i = index_of(key);
    if (i == npos) return false;
    // Backward shift: each later slot of the run whose home is not
    // cyclically within (i, j] moves into the hole, so that every lookup's
    // probe still reaches its key before a vacant slot.
    for (std::size_t j = (i + 1) & mask(); slots_[j].key != Vacant; j = (j + 1) & mask()) {
      const std::size_t h = home(slots_[j].key);
      if (((j - h) & mask()) >= ((j - i) & mask())) {
        slots_[i] = std::move(slots_[j]);
        i = j;
      }
    }
    slots_[i] = Slot{};
    --count_;
    return true;
  }

  // Empties the table; past `keep_slots` slots its array goes too, so that
  // a table a burst grew costs its owner's walks and clears no more after.
  void clear(std::size_t keep_slots) noexcept {
    if (slots_.size() > keep_slots) {
      std::vector<Slot>().swap(slots_);
    } else {
      for (Slot& s : slots_) s = Slot{};
    }
    count_ = 0;
  }

  // Every slot, vacant ones included (key == vacant).
  std::span<Slot> slots() noexcept { return slots_; }
  std::span<const Slot> slots() const noexcept { return slots_; }

 private:
  static constexpr std::size_t npos = ~std::size_t{0};
  std::size_t mask() const noexcept { return slots_.size() - 1; }
  // The slot a key's probe starts at in a table of 2^(64 - shift) slots.
  static std::size_t home_in(std::uint64_t key, unsigned shift) noexcept {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> shift);
  }
  std::size_t home(std::uint64_t key) const noexcept { return home_in(key, shift_); }
  std::size_t index_of(std::uint64_t key) const noexcept {
    if (count_ == 0) return npos;
    for (std::size_t i = home(key);; i = (i + 1) & mask()) {
      if (slots_[i].key == key) return i;
      if (slots_[i].key == Vacant) return npos;
    }
  }
  void rehash(std::size_t capacity) {  // a power of two, at least 2
    std::vector<Slot> grown(capacity);
    const unsigned shift = 64 - static_cast<unsigned>(__builtin_ctzll(capacity));
    for (Slot& s : slots_) {
      if (s.key == Vacant) continue;
      std::size_t i = home_in(s.key, shift);
      while (grown[i].key != Vacant) i = (i + 1) & (capacity - 1);
      grown[i] = std::move(s);
    }
    slots_ = std::move(grown);
    shift_ = shift;
  }

  std::vector<Slot> slots_;  // empty, or a power of two long, at most half full
  std::size_t count_ = 0;
  unsigned shift_ = 64;  // 64 - log2(slots_.size()); home() is used only when slots exist
};

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
