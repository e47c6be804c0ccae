// src/rope/read.cpp: reading a rope without changing it: the descent to a
// byte (seek), search across chunk boundaries, comparison, the chunking-
// independent hash, flatten, copy and stream output.
#include "rope/rope_impl.hpp"

#include "rope/metrics.hpp"

#include <fl/detail/string_access.hpp>
#include <fl/find.hpp>

#include <cstdio>
#include <ostream>
#include <stdexcept>
#include <string>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
inline namespace FL_ROPE_NS {

leaf_view seek(const edge& root, std::size_t pos) noexcept {
  const auto [e, lo] = descend(root, pos);
  return leaf_view{static_cast<const chunk*>(e->p)->data + e->off, lo, e->len};
}

leaf_view seek_or_end(const edge& root, std::size_t pos) noexcept {
  if (pos >= root.len) return leaf_view{nullptr, root.len, 0};
  return seek(root, pos);
}

namespace {

// Calls f(string_view) for each leaf slice of e from byte `from` on, in
// order, until f returns false. Returns false if stopped.
template <class F>
bool for_each_leaf(const edge& e, std::size_t from, F& f) {
  if (e.p->height == 0) {
    const chunk* c = static_cast<const chunk*>(e.p);
    return f(std::string_view(c->data + e.off + from, e.len - from));
  }
  const inner* n = static_cast<const inner*>(e.p);
  for (unsigned i = 0; i < n->count; ++i) {
    const edge& ch = n->child[i];
    if (from >= ch.len) {
      from -= ch.len;
      continue;
    }
    if (!for_each_leaf(ch, from, f)) return false;
    from = 0;
  }
  return true;
}

// A streaming, chunking-independent 64-bit hash: 8-byte words through a
// multiply-xorshift mix, the tail and the length folded in at the end.
class stream_hash {
 public:
  void feed(std::string_view s) noexcept {
    total_ += s.size();
    const char* p = s.data();
    std::size_t n = s.size();
    while (n > 0 && fill_ > 0 && fill_ < 8) {
      buf_[fill_++] = *p++;
      --n;
    }
    if (fill_ == 8) {
      word(load(buf_));
      fill_ = 0;
    }
    while (n >= 8) {
      word(load(p));
      p += 8;
      n -= 8;
    }
    while (n > 0) {
      buf_[fill_++] = *p++;
      --n;
    }
  }
  std::size_t finish() noexcept {
    std::uint64_t last = 0;
    std::memcpy(&last, buf_, fill_);
    word(last ^ (static_cast<std::uint64_t>(fill_) << 56));
    std::uint64_t h = h_ ^ total_;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return static_cast<std::size_t>(h);
  }

 private:
  static std::uint64_t load(const char* p) noexcept {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    return w;
  }
  void word(std::uint64_t w) noexcept {
    w *= 0x9e3779b97f4a7c15ULL;
    w ^= w >> 29;
    h_ = (h_ ^ w) * 0xbf58476d1ce4e5b9ULL;
    h_ ^= h_ >> 31;
  }
  std::uint64_t h_ = 0x243f6a8885a308d3ULL;
  std::uint64_t total_ = 0;
  char buf_[8] = {};
  std::size_t fill_ = 0;
};

}  // namespace

// Compares bytes [pos, pos + s.size()) (all present) with s.
int rope_engine::substr_compare(const rope& r, size_type pos, std::string_view s) noexcept {
  if (s.empty()) return 0;
  int result = 0;
  size_type done = 0;
  auto visit = [&](std::string_view c) {
    const size_type k = std::min(c.size(), s.size() - done);
    result = std::memcmp(c.data(), s.data() + done, k);
    done += k;
    return result == 0 && done < s.size();
  };
  for_each_leaf(r.root_, pos, visit);
  return result;
}

}  // namespace FL_ROPE_NS
}  // namespace detail

inline namespace FL_ROPE_NS {

char rope::at(size_type pos) const {
  if (pos >= size()) detail::throw_out_of_range("fl::rope::at", "pos", pos, ">=", "size()", size());
  return (*this)[pos];
}

// Linear search over the chunk stream. Matches inside a chunk of at least
// m bytes are found by fl::find on the chunk itself. Matches that cross
// boundaries are found in a small buffer `win` holding the stream's bytes
// since the last position that could still start a match: when a big chunk
// arrives, win gets its first m-1 bytes and is searched (O(m) work paid by
// a chunk of >= m bytes), then restarts as the chunk's last m-1 bytes; small
// chunks are appended to win, which is searched and cut back to its last m-1
// bytes once it reaches 2m + 64 bytes (each search covers >= m + 64 new
// bytes). So every byte is searched O(1) times: O(n + m) overall, however
// many chunks a match spans.
rope::size_type rope::find(std::string_view needle, size_type pos) const noexcept {
  const size_type n = size(), m = needle.size();
  if (pos > n || m > n - pos) return npos;
  if (m == 0) return pos;
  if (root_.p->height == 0) {
    const size_type r = fl::find(detail::leaf_text(root_), needle, pos);
    return r;
  }
  const size_type keep = m - 1;
  const size_type limit = 2 * m + 64;
  std::string win;  // bytes [win_lo, win_lo + win.size()) of the rope
  size_type win_lo = pos;
  size_type at = pos;  // rope offset of the next chunk
  size_type found = npos;
  auto search_win = [&]() {
    const size_type r = fl::find(std::string_view(win), needle);
    if (r != npos) found = win_lo + r;
    return r == npos;
  };
  auto trim_win = [&]() {
    if (win.size() > keep) {
      win_lo += win.size() - keep;
      win.erase(0, win.size() - keep);
    }
  };
  try {
    auto visit = [&](std::string_view c) {
      if (c.size() >= m) {
        if (!win.empty()) {
          win.append(c.substr(0, keep));
          if (!search_win()) return false;
        }
        const size_type r = fl::find(c, needle);
        if (r != npos) {
          found = at + r;
          return false;
        }
        win.assign(c.substr(c.size() - keep));
        win_lo = at + c.size() - keep;
      } else {
        if (win.empty()) win_lo = at;
        win.append(c);
        if (win.size() >= limit) {
          if (!search_win()) return false;
          trim_win();
        }
      }
      at += c.size();
      return true;
    };
    if (detail::for_each_leaf(root_, pos, visit) && !win.empty()) search_win();
  } catch (...) {
    // Only the window's allocation can throw (a few m bytes): fall back to a
    // byte-by-byte comparison, still correct, without extra memory.
    for (size_type i = pos; i + m <= n; ++i) {
      size_type k = 0;
      while (k < m && (*this)[i + k] == needle[k]) ++k;
      if (k == m) return i;
    }
    return npos;
  }
  return found;
}

bool rope::starts_with(std::string_view prefix) const noexcept {
  if (prefix.size() > size()) return false;
  return detail::rope_engine::substr_compare(*this, 0, prefix) == 0;
}

bool rope::ends_with(std::string_view suffix) const noexcept {
  if (suffix.size() > size()) return false;
  return detail::rope_engine::substr_compare(*this, size() - suffix.size(), suffix) == 0;
}

int rope::compare(std::string_view other) const noexcept {
  const size_type k = std::min(size(), other.size());
  const int r = detail::rope_engine::substr_compare(*this, 0, other.substr(0, k));
  if (r != 0) return r < 0 ? -1 : 1;
  return size() < other.size() ? -1 : size() > other.size() ? 1 : 0;
}

int rope::compare(const rope& other) const noexcept {
  if (other.root_.p && other.root_.p->height == 0) return compare(detail::leaf_text(other.root_));
  const size_type k = std::min(size(), other.size());
  size_type pos = 0;
  while (pos < k) {
    const detail::leaf_view a = detail::seek(root_, pos);
    const detail::leaf_view b = detail::seek(other.root_, pos);
    const size_type ea = a.lo + a.len, eb = b.lo + b.len;
    const size_type stop = std::min({ea, eb, k});
    const int r = std::memcmp(a.data + (pos - a.lo), b.data + (pos - b.lo), stop - pos);
    if (r != 0) return r < 0 ? -1 : 1;
    pos = stop;
  }
  return size() < other.size() ? -1 : size() > other.size() ? 1 : 0;
}

fl::string rope::flatten() && {
  if (root_.p && root_.p->height == 0 && root_.off == 0 &&
      root_.p->kind == detail::node_kind::chunk_adopted && detail::unique(root_.p)) {
    // The chunk's bytes are a pool block of cap + 1 bytes: the string's own
    // heap layout. Hand it over and free the chunk header.
    auto* c = static_cast<detail::chunk*>(root_.p);
    const ::fl::detail::heap_block b{c->data, root_.len, c->cap};
    detail::free_index(c);
    detail::rope_deallocate(c, sizeof(detail::chunk));
    detail::count_blocks(-1);
    root_ = {};
    return ::fl::detail::string_access::adopt(b);
  }
  fl::string out = static_cast<const rope&>(*this).flatten();
  clear();
  return out;
}

fl::string rope::flatten() const& {
  fl::string out;
  if (empty()) return out;
  out.resize_and_overwrite(size(), [this](char* p, std::size_t count) {
    auto visit = [&p](std::string_view c) {
      std::memcpy(p, c.data(), c.size());
      p += c.size();
      return true;
    };
    detail::for_each_leaf(root_, 0, visit);
    return count;
  });
  return out;
}

std::string rope::to_std() const {
  std::string out;
  out.reserve(size());
  for (std::string_view c : chunks()) out.append(c);
  return out;
}

// Backwards over windows of the text: each window [lo, hi) is copied out
// (whole chunks: string_view::rfind runs on contiguous bytes) and searched
// for a match starting at or before `last`; the next window ends m - 1 bytes
// into this one, so a match across the cut is seen once. A window is at
// least 64 KiB (or the rest of the text), so the copies and searches cost
// O(1) per byte scanned plus O(m) per window.
rope::size_type rope::rfind(std::string_view needle, size_type pos) const {
  const size_type n = size(), m = needle.size();
  if (m > n) return npos;
  const size_type last = std::min(pos, n - m);  // the last start allowed
  if (m == 0) return last;
  if (root_.p->height == 0) return detail::leaf_text(root_).substr(0, last + m).rfind(needle);
  constexpr size_type window = size_type{64} << 10;
  const size_type span = std::max(window, 2 * m);
  std::string buf;
  size_type hi = last + m;  // the window's end: a match ends at or before it
  for (;;) {
    const size_type lo = hi > span ? hi - span : 0;
    buf.resize(hi - lo);
    copy(buf.data(), hi - lo, lo);
    const size_type r = std::string_view(buf).rfind(needle);
    if (r != std::string_view::npos) return lo + r;
    if (lo == 0) return npos;
    hi = lo + m - 1;
  }
}

rope::chunk_range rope::chunks_at(size_type pos) const {
  if (pos > size())
    detail::throw_out_of_range("fl::rope::chunks_at", "pos", pos, ">", "size()", size());
  return chunk_range(this, pos);
}

rope::size_type rope::copy(char* dest, size_type n, size_type pos) const {
  if (pos > size()) detail::throw_out_of_range("fl::rope::copy", "pos", pos, ">", "size()", size());
  n = std::min(n, size() - pos);
  if (n == 0) return 0;
  size_type done = 0;
  auto visit = [&](std::string_view c) {
    const size_type k = std::min(c.size(), n - done);
    std::memcpy(dest + done, c.data(), k);
    done += k;
    return done < n;
  };
  detail::for_each_leaf(root_, pos, visit);
  return n;
}

std::size_t rope::hash() const noexcept {
  detail::stream_hash h;
  if (!empty()) {
    auto visit = [&h](std::string_view c) {
      h.feed(c);
      return true;
    };
    detail::for_each_leaf(root_, 0, visit);
  }
  return h.finish();
}

std::ostream& operator<<(std::ostream& os, const rope& r) {
  if (os.width() > 0 && static_cast<std::size_t>(os.width()) > r.size()) {
    os << std::string_view(r.flatten());
    return os;
  }
  for (std::string_view c : r.chunks()) os.write(c.data(), static_cast<std::streamsize>(c.size()));
  os.width(0);
  return os;
}
}  // namespace FL_ROPE_NS
}  // namespace FL_ABI_NS
}  // namespace fl
