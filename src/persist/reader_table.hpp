// src/persist/reader_table.hpp: the words of the reader table
// ("<path>-readers", persist_format.hpp) that both sides of it use: the
// readers' side (reader_table.cpp) and the writer keeping the lagging file
// beside them (lagging_file.cpp). Every word is read and written through
// std::atomic_ref: other processes share the mapping.
#pragma once

#include "persist/persist_format.hpp"
#include "persist/space.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

inline std::atomic_ref<std::uint64_t> word(std::byte* map, std::uint64_t off) noexcept {
  return std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(map + off));
}
inline constexpr std::uint64_t seq_at = offsetof(reader_file_head, seq);
inline constexpr std::uint64_t newest_at = offsetof(reader_file_head, newest);
inline constexpr std::uint64_t file_gen_at = offsetof(reader_file_head, file_gen);
inline constexpr std::uint64_t intent_at = offsetof(reader_file_head, file_intent);
inline constexpr std::uint64_t slot_high_at = offsetof(reader_file_head, slot_high);
inline constexpr std::uint64_t meta_at = offsetof(reader_file_head, meta);
inline constexpr std::uint64_t slot_at(std::uint64_t i) noexcept {
  return reader_slots_at + i * reader_slot_bytes;
}
inline constexpr std::uint64_t ring_at(std::uint64_t gen) noexcept {
  return reader_ring_at + (gen % reader_ring_size) * 16;
}
inline constexpr std::size_t meta_words = sizeof(space_meta) / 8;

// The newest commit and its meta, published under the table's sequence
// counter (readers retry while it is odd).
void write_newest(std::byte* map, std::uint64_t gen, const space_meta& meta);
// Where commit `gen`'s record starts in the log, for a reader's refresh;
// ring_get: where the ring says it starts, or ~0.
void ring_put(std::byte* map, std::uint64_t gen, std::uint64_t at);
std::uint64_t ring_get(std::byte* map, std::uint64_t gen);
void clear_ring(std::byte* map);
// The smallest pin below `upto` that a live reader holds, else `upto`.
std::uint64_t min_pin(const reader_table& t, std::uint64_t upto);

// A reader's mapping (reader_log.cpp). fit_reader_map fits it to a commit of
// `bytes` bytes, both ways, and returns true when it shrank it. overlay
// reads commit `gen`'s changed bytes from the log into it and checks them
// against the record's CRC, adding to `pages` the pages the record held
// whole; `next` is where the record may be, and becomes where the next one
// may be; false if the log no longer holds the record, or (with *wrote set:
// the mapping then holds pages of no commit) if the record's bytes failed
// their CRC.
bool fit_reader_map(space_state& s, std::uint64_t bytes);
bool overlay(space_state& s, std::uint64_t& gen, std::uint64_t newest,
             std::vector<std::uint64_t>* pages, std::uint64_t& next, space_meta* meta = nullptr,
             bool* wrote = nullptr);

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
