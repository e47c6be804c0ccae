// src/json/offset_set.hpp: a set of block offsets in one flat table, for
// bookkeeping an edit must finish once it has changed the document: after
// reserve(), insert() allocates nothing and cannot throw.
#pragma once

#include <fl/detail/config.hpp>

#include "persist/flat_table.hpp"

#include <cstddef>
#include <cstdint>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail::json {

// Offsets are nonzero (0 marks an empty slot). A flat_table of keys alone
// (src/persist/flat_table.hpp: linear probing at a load of at most one
// half; erase shifts the probe run back, so no tombstones pile up under a
// stream of inserts and erases).
class offset_set {
 public:
  std::size_t size() const noexcept { return table_.size(); }

  // Room for `more` inserts beyond the current size without allocating.
  // Throws std::bad_alloc, leaving the set as it was.
  void reserve(std::size_t more) { table_.reserve(more); }

  // Within the room reserve() made.
  void insert(std::uint64_t x) noexcept { table_.enter_reserved(x); }

  bool contains(std::uint64_t x) const noexcept { return table_.find(x) != nullptr; }

  // Whether `x` was there (and now is not).
  bool erase(std::uint64_t x) noexcept { return table_.erase(x); }

  // Empties the set; a table grown past small_slots by a long run of edits
  // is given back, so that clearing at every commit stays cheap.
  void clear() noexcept { table_.clear(small_slots); }

 private:
  static constexpr std::size_t small_slots = 4096;
  struct slot {
    std::uint64_t key = 0;
  };
  flat_table<slot, 0> table_;
};

}  // namespace detail::json
}  // namespace FL_ABI_NS
}  // namespace fl
