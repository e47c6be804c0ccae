// fl/detail/rope_iterators.hpp: the definitions of fl::rope's nested
// iterator and range classes (const_iterator, chunk_range, line_range,
// char_range) and the inline accessors that make them. Included by
// <fl/rope.hpp> after the class rope; do not include it directly. What each
// call costs is said in rope.hpp, where it is declared.
#pragma once

#include <fl/rope.hpp>  // the class these belong to (already defined here)

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
inline namespace FL_ROPE_NS {

// What rope's three ranges (chunk_range, line_range, char_range) share: the
// rope walked, the range's one datum (`State`: its first byte, or whether
// lines come without their breaks), and begin()/end()/rbegin()/rend(), each
// made by the range's static make(rope, state, at_end). Nothrow: whether
// making an iterator can throw (a line's iterator finds where lines start).
template <class Range, class State, bool Nothrow>
class rope_range {
 public:
  auto begin() const noexcept(Nothrow) { return Range::make(rope_, state_, false); }
  auto end() const noexcept(Nothrow) { return Range::make(rope_, state_, true); }
  auto rbegin() const noexcept(Nothrow) { return std::reverse_iterator(end()); }
  auto rend() const noexcept(Nothrow) { return std::reverse_iterator(begin()); }

 private:
  friend class fl::rope;  // the only maker of ranges
  rope_range(const rope* r, State s) noexcept : rope_(r), state_(s) {}
  const rope* rope_;
  State state_;
};

// What rope's iterators share: the standard's member types (* returns a
// value, so `reference` is the value type and there is no `pointer`) and
// the postfix steps, each a copy and the iterator's own prefix step.
// Bidirectional for the older requirements too, although * returns a
// value: std::prev and std::reverse_iterator then step back instead of
// treating the iterator as an input iterator.
template <class It, class Value, class Tag = std::bidirectional_iterator_tag>
struct rope_iterator_base {
  using iterator_concept = Tag;
  using iterator_category = Tag;
  using value_type = Value;
  using difference_type = std::ptrdiff_t;
  using reference = Value;
  using pointer = void;

  friend It operator++(It& it, int) noexcept(noexcept(++it)) {
    It t = it;
    ++it;
    return t;
  }
  friend It operator--(It& it, int) noexcept(noexcept(--it)) {
    It t = it;
    --it;
    return t;
  }
};

}  // namespace FL_ROPE_NS
}  // namespace detail

inline namespace FL_ROPE_NS {

// Holds a pointer pair over the leaf of the byte it points at, so that * is
// one load and ++ one increment plus a compare with the leaf's end (one
// predictable branch, taken once per leaf); crossing into the next leaf
// costs one tree descent (O(log n)), out of line, once per leaf.
// Canonical state (what == relies on): an iterator at index i < size()
// points into the leaf holding byte i (base_ <= cur_ < lim_); at size() its
// three pointers are null and lo_ == size(), so end() is built without a
// descent and only an iterator at the end has cur_ == lim_. A comparison
// with end() is therefore `cur_ == lim_`, the very test ++ has just made:
// `for (char c : r)` compiles to one compare-and-branch per byte (GCC 12
// -O3: load, add, increment, compare, branch). It is not vectorized (the
// refill is control flow inside the loop), so bulk work should go through
// chunks() or fl::for_each_chunk, whose per-chunk loops are. Two iterators
// are equal iff they point at the same byte of the same leaf (a chunk may
// back several leaves, so the leaf's index is compared too).
class rope::const_iterator : public detail::rope_iterator_base<rope::const_iterator, char,
                                                               std::random_access_iterator_tag> {
 public:
  const_iterator() noexcept = default;

  char operator*() const noexcept { return *cur_; }
  char operator[](difference_type n) const noexcept { return *(*this + n); }

  const_iterator& operator++() noexcept {
    if (++cur_ == lim_) [[unlikely]]
      next_leaf();
    return *this;
  }
  const_iterator& operator--() noexcept {
    if (cur_ == base_) [[unlikely]] {
      go(lo_ - 1);
      return *this;
    }
    --cur_;
    return *this;
  }
  const_iterator& operator+=(difference_type n) noexcept {
    go(index() + static_cast<size_type>(n));
    return *this;
  }
  const_iterator& operator-=(difference_type n) noexcept {
    go(index() - static_cast<size_type>(n));
    return *this;
  }
  friend const_iterator operator+(const_iterator it, difference_type n) noexcept { return it += n; }
  friend const_iterator operator+(difference_type n, const_iterator it) noexcept { return it += n; }
  friend const_iterator operator-(const_iterator it, difference_type n) noexcept { return it -= n; }
  friend difference_type operator-(const const_iterator& a, const const_iterator& b) noexcept {
    return static_cast<difference_type>(a.index() - b.index());
  }
  friend bool operator==(const const_iterator& a, const const_iterator& b) noexcept {
    // Only an end iterator has cur_ == lim_ (both null). Against end(),
    // whose pointers are known at compile time, this folds to one test.
    if (b.cur_ == b.lim_) return a.cur_ == a.lim_;
    return a.cur_ == b.cur_ && a.lo_ == b.lo_;
  }
  friend std::strong_ordering operator<=>(const const_iterator& a,
                                          const const_iterator& b) noexcept {
    return a.index() <=> b.index();
  }

  // Index of the byte this iterator points at.
  size_type index() const noexcept { return lo_ + static_cast<size_type>(cur_ - base_); }

 private:
  friend class rope;
  struct end_tag {};
  const_iterator(const rope* r, size_type pos) noexcept : rope_(r) { go(pos); }
  const_iterator(const rope* r, end_tag) noexcept : rope_(r), lo_(r->size()) {}
  // Moves to index pos (0 <= pos <= size()), staying in the current leaf
  // when it holds pos.
  void go(size_type pos) noexcept {
    if (pos - lo_ < static_cast<size_type>(lim_ - base_)) {
      cur_ = base_ + (pos - lo_);
      return;
    }
    load(pos);
  }
  void next_leaf() noexcept { load(lo_ + static_cast<size_type>(lim_ - base_)); }
  // One descent to the leaf holding pos, or the end state for pos ==
  // size(). The members are written here, from the returned view, and not
  // by an out-of-line function, so a loop keeps the iterator in registers.
  void load(size_type pos) noexcept {
    const detail::leaf_view v = detail::seek_or_end(rope_->root_, pos);
    base_ = v.data;
    lim_ = v.data + v.len;
    lo_ = v.lo;
    cur_ = base_ + (pos - lo_);
  }

  const rope* rope_ = nullptr;
  const char* cur_ = nullptr;   // the byte pointed at (null at the end)
  const char* base_ = nullptr;  // the current leaf: bytes [base_, lim_) are
  const char* lim_ = nullptr;   // the rope's bytes [lo_, lo_ + (lim_ - base_))
  size_type lo_ = 0;            // size() at the end
};

// A range of std::string_view, one per leaf, in order (from a start byte:
// see chunks_at). Its iterators are bidirectional, so the chunks can be
// walked backwards too (rbegin()/rend(), or --end()): each step is one
// descent, O(log n). Valid while the rope is alive and unchanged.
class rope::chunk_range : public detail::rope_range<chunk_range, size_type, true> {
 public:
  class iterator : public detail::rope_iterator_base<iterator, std::string_view> {
   public:
    iterator() noexcept = default;
    std::string_view operator*() const noexcept { return cur_; }
    iterator& operator++() noexcept {
      pos_ += cur_.size();
      load();
      return *this;
    }
    // To the chunk before: the leaf holding byte pos - 1, up to pos (a whole
    // leaf, unless the range started inside it). Not before begin().
    iterator& operator--() noexcept {
      const detail::leaf_view v = detail::seek(rope_->root_, pos_ - 1);
      const size_type from = v.lo > first_ ? v.lo : first_;
      cur_ = std::string_view(v.data + (from - v.lo), pos_ - from);
      pos_ = from;
      return *this;
    }
    friend bool operator==(const iterator& a, const iterator& b) noexcept {
      return a.pos_ == b.pos_;
    }
    // Index in the rope of the first byte of *it.
    size_type index() const noexcept { return pos_; }

   private:
    friend class chunk_range;
    iterator(const rope* r, size_type first, size_type pos) noexcept
        : rope_(r), first_(first), pos_(pos) {
      load();
    }
    // The chunk from pos_ to the end of its leaf (empty at the end).
    void load() noexcept {
      if (pos_ >= rope_->size()) {
        cur_ = {};
        return;
      }
      const detail::leaf_view v = detail::seek(rope_->root_, pos_);
      cur_ = std::string_view(v.data + (pos_ - v.lo), v.len - (pos_ - v.lo));
    }
    const rope* rope_ = nullptr;
    size_type first_ = 0;  // the range's first byte: -- stops there
    size_type pos_ = 0;
    std::string_view cur_;
  };
  using reverse_iterator = std::reverse_iterator<iterator>;

 private:
  friend rope_range;
  using rope_range::rope_range;
  // From byte `first` (the state) to the end.
  static iterator make(const rope* r, size_type first, bool at_end) noexcept {
    return iterator(r, first, at_end ? r->size() : first);
  }
};

// The lines of a rope (rope::lines()): a bidirectional range of fl::rope,
// each line(i) for i = 0 .. line_count() - 1 (rope::line_texts(): each
// line_text(i), the text without its break), walked forward or backward
// (rbegin()/rend(), --end(), std::views::reverse): each step O(log n), one
// line_to_byte, and * one substr, O(log n). The lines are made as they are
// read, so * returns a rope by value. Valid while the rope is alive and
// unchanged.
class rope::line_range : public detail::rope_range<line_range, bool, false> {
 public:
  class iterator : public detail::rope_iterator_base<iterator, rope> {
   public:
    iterator() noexcept = default;
    rope operator*() const {
      return rope_->substr(from_, (text_ ? rope_->line_end(line_) : next_) - from_);
    }
    iterator& operator++() {
      ++line_;
      from_ = next_;
      if (line_ < rope_->line_count()) next_ = rope_->line_to_byte(line_ + 1);
      return *this;
    }
    // To the line before; not before begin().
    iterator& operator--() {
      --line_;
      next_ = from_;
      from_ = rope_->line_to_byte(line_);
      return *this;
    }
    friend bool operator==(const iterator& a, const iterator& b) noexcept {
      return a.line_ == b.line_;
    }

   private:
    friend class line_range;
    // Invariant: from_ is where line line_ starts (size() at the end), and
    // next_ where line line_ + 1 starts while line_ < line_count().
    iterator(const rope* r, size_type line, bool text) : rope_(r), line_(line), text_(text) {
      from_ = rope_->line_to_byte(line_);
      if (line_ < rope_->line_count()) next_ = rope_->line_to_byte(line_ + 1);
    }
    const rope* rope_ = nullptr;
    size_type line_ = 0;
    size_type from_ = 0;
    size_type next_ = 0;
    bool text_ = false;  // line_text(i) rather than line(i)
  };
  using reverse_iterator = std::reverse_iterator<iterator>;

 private:
  friend rope_range;
  using rope_range::rope_range;
  // Lines 0 .. line_count() - 1; the state: line_text(i) rather than line(i).
  static iterator make(const rope* r, bool text, bool at_end) {
    return iterator(r, at_end ? r->line_count() : 0, text);
  }
};

// The chars of a rope (rope::chars(), rope::chars_at(i)): a bidirectional
// range of char32_t, one value per char (see "code points" in rope: U+FFFD
// for a char that is not well-formed). An iterator holds a byte iterator at
// its char's first byte, the char's length and its value, so * is a load;
// ++ and -- read the next char's bytes: O(1) amortized per step (per byte
// of the char, plus one descent, O(log n), when a step crosses into
// another leaf). An iterator may step back before the range's begin(), to
// the rope's first char. index() is the byte where the char starts. Valid
// while the rope is alive and unchanged.
class rope::char_range : public detail::rope_range<char_range, size_type, true> {
 public:
  class iterator : public detail::rope_iterator_base<iterator, char32_t> {
   public:
    iterator() noexcept = default;
    char32_t operator*() const noexcept { return cp_; }
    iterator& operator++() noexcept {
      at_ += static_cast<difference_type>(len_);
      read();
      return *this;
    }
    // To the char before: back over continuation bytes to the byte that
    // leads them. Not before the rope's first char.
    iterator& operator--() noexcept {
      do {
        --at_;
      } while (at_.index() != 0 && detail::utf8_continuation(static_cast<unsigned char>(*at_)));
      read();
      return *this;
    }
    friend bool operator==(const iterator& a, const iterator& b) noexcept {
      return a.at_.index() == b.at_.index();
    }
    // Index in the rope of the char's first byte (size() at the end).
    size_type index() const noexcept { return at_.index(); }

   private:
    friend class char_range;
    // At the char that starts at pos, or (from byte 0) at the first char:
    // continuation bytes before it start no char. The end is made without
    // a descent (const_iterator's end state), so `it != chars.end()` in a
    // loop costs no more than a compare.
    iterator(const rope* r, size_type pos) noexcept
        : rope_(r), at_(pos < r->size() ? r->iterator_at(pos) : r->end()) {
      while (at_.index() < r->size() && detail::utf8_continuation(static_cast<unsigned char>(*at_)))
        ++at_;
      read();
    }
    // Reads the char at at_ (src/rope/chars.cpp): its length, to the next
    // byte that is not a continuation byte, and its value; len_ = 0 at the
    // end.
    void read() noexcept;
    const rope* rope_ = nullptr;
    const_iterator at_;  // the char's first byte
    size_type len_ = 0;  // its bytes
    char32_t cp_ = 0;    // its value
  };
  using reverse_iterator = std::reverse_iterator<iterator>;

 private:
  friend rope_range;
  using rope_range::rope_range;
  // From the char that starts at byte `first` (the state) to the end.
  static iterator make(const rope* r, size_type first, bool at_end) noexcept {
    return iterator(r, at_end ? r->size() : first);
  }
};

inline rope::line_range rope::lines() const noexcept { return line_range(this, false); }
inline rope::char_range rope::chars() const noexcept { return char_range(this, 0); }
inline rope::line_range rope::line_texts() const noexcept { return line_range(this, true); }
inline rope::chunk_range rope::chunks() const noexcept { return chunk_range(this, 0); }
inline rope::const_iterator rope::begin() const noexcept { return const_iterator(this, 0); }
inline rope::const_iterator rope::end() const noexcept {
  return const_iterator(this, const_iterator::end_tag{});
}
inline rope::const_iterator rope::cbegin() const noexcept { return begin(); }
inline rope::const_iterator rope::insert(const_iterator it, char ch) {
  return insert(it, std::string_view(&ch, 1));
}
inline rope::const_iterator rope::cend() const noexcept { return end(); }
inline rope::const_iterator rope::iterator_at(size_type pos) const noexcept {
  return const_iterator(this, pos);
}

}  // namespace FL_ROPE_NS
}  // namespace FL_ABI_NS
}  // namespace fl
