// src/persist/page_bits.hpp: a set of page numbers as one bit per page
// (space_state::verified: the pages known to hold what the last commit
// wrote).
//
// Why not std::vector<uint64_t>: a space opens with every bit clear, and a
// vector writes every word, so an open of a 4.8 GB store wrote and faulted
// 147 KiB before reading a byte. Here the words come from calloc, whose large
// blocks are fresh zero pages from the kernel, not written: clearing costs
// O(1) and a page of bits is faulted in when a page it covers is first read.
//
// Threads: as the space's state; const readers test and mark bits with
// std::atomic_ref (test(), mark()).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

class page_bits {
 public:
  // `pages` bits, all clear.
  void clear(std::uint64_t pages) {
    words_.reset();
    count_ = 0;
    grow(pages);
  }
  // `pages` bits: those kept keep their value, new ones are clear.
  void resize(std::uint64_t pages) {
    const std::uint64_t n = words_for(pages);
    if (n > count_) {
      grow(pages);
      return;
    }
    count_ = n;
    if (pages % 64 != 0 && n != 0) words_[n - 1] &= (std::uint64_t{1} << (pages % 64)) - 1;
  }
  std::uint64_t words() const noexcept { return count_; }
  void set(std::uint64_t page) noexcept { words_[page / 64] |= std::uint64_t{1} << (page % 64); }
  void reset(std::uint64_t page) noexcept {
    words_[page / 64] &= ~(std::uint64_t{1} << (page % 64));
  }
  // The same for const readers, which may test and mark pages of one space
  // on several threads at once: atomic, relaxed (a bit only ever goes from
  // clear to set while they read). test() is false past the bits.
  bool test(std::uint64_t page) const noexcept {
    if (page / 64 >= count_) return false;
    const std::uint64_t w =
        std::atomic_ref<std::uint64_t>(words_[page / 64]).load(std::memory_order_relaxed);
    return ((w >> (page % 64)) & 1) != 0;
  }
  void mark(std::uint64_t page) const noexcept {
    std::atomic_ref<std::uint64_t>(words_[page / 64])
        .fetch_or(std::uint64_t{1} << (page % 64), std::memory_order_relaxed);
  }

 private:
  struct free_words {
    void operator()(std::uint64_t* p) const noexcept { std::free(p); }
  };
  static std::uint64_t words_for(std::uint64_t pages) { return (pages + 63) / 64; }
  // To words_for(pages) words, the new ones clear: the first block from
  // calloc (not written), a bigger one from realloc with its tail cleared.
  void grow(std::uint64_t pages) {
    const std::uint64_t n = words_for(pages);
    const bool fresh = !words_;
    void* p = fresh ? std::calloc(std::max<std::uint64_t>(n, 1), 8)
                    : std::realloc(words_.get(), n * 8);
    if (p == nullptr) throw std::bad_alloc();
    (void)words_.release();  // realloc freed or kept it; p owns the words now
    words_.reset(static_cast<std::uint64_t*>(p));
    if (!fresh) std::memset(words_.get() + count_, 0, (n - count_) * 8);
    count_ = n;
  }

  std::unique_ptr<std::uint64_t[], free_words> words_;
  std::uint64_t count_ = 0;
};

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
