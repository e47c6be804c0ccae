// src/json/key_sort.cpp: key_sorter (json_internal.hpp), the order of an
// object's key tree made from its keys in member order. An import meets
// objects of millions of members; holding every key and sorting them at
// the end took memory several times their text (24 bytes a member beside
// its key, and the order), so past one run the keys are sorted run by run
// and merged from an unnamed file beside the store, as an external sort.
#include "json/json_internal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
namespace json {

namespace {

// A run in the file: records of {block, len, hash, seq} (20 bytes) then
// the key's bytes, in the key tree's order.
constexpr std::size_t rec_head = 20;
// Writes of a run, and each run's read buffer in the merge, go in pieces
// of this size: the merge's memory is a piece per run.
constexpr std::size_t piece = std::size_t{64} << 10;
// Entries handed to emit at once.
constexpr std::size_t batch_max = 256;

// Key entries handed to emit a batch at a time.
class entry_batches {
 public:
  explicit entry_batches(const std::function<void(const key_entry*, std::size_t)>& emit) noexcept
      : emit_(emit) {}
  void add(std::uint64_t block, std::uint32_t len, std::uint32_t hash, std::uint32_t seq) {
    batch_[n_++] = {block, len, hash, seq};
    if (n_ == batch_max) flush();
  }
  void flush() {
    if (n_) emit_(batch_, n_);
    n_ = 0;
  }

 private:
  const std::function<void(const key_entry*, std::size_t)>& emit_;
  key_entry batch_[batch_max];
  std::size_t n_ = 0;
};

unique_fd open_scratch(const std::filesystem::path& dir) {
  // Unnamed where the file system allows it, so that nothing is left
  // behind by a crash; else named, and unlinked at once.
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
    std::string name = (dir / ".fl-key-sort-XXXXXX").string();
    fd = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd >= 0) ::unlink(name.c_str());
  }
  if (fd < 0)
    throw_errno(dir, "a temporary file to sort an object's keys in (an import of an object past "
                     "one run of keys)", errno);
  return unique_fd(fd);
}

// One spilled run read in pieces: its current record, then the next.
class run_cursor {
 public:
  run_cursor(int fd, std::uint64_t begin, std::uint64_t end, const std::filesystem::path& dir)
      : fd_(fd), off_(begin), end_(end), dir_(&dir) {}
  // Moves to the next record; false past the run's last.
  bool next() {
    pos_ += cur_;
    cur_ = 0;
    if (pos_ == len_ && off_ == end_) return false;
    have(rec_head);
    std::memcpy(&block, buf_.data() + pos_, 8);
    std::memcpy(&len, buf_.data() + pos_ + 8, 4);
    std::memcpy(&hash, buf_.data() + pos_ + 12, 4);
    std::memcpy(&seq, buf_.data() + pos_ + 16, 4);
    have(rec_head + len);
    key = buf_.data() + pos_ + rec_head;
    cur_ = rec_head + len;
    return true;
  }
  std::uint64_t block = 0;
  std::uint32_t len = 0;
  std::uint32_t hash = 0;
  std::uint32_t seq = 0;
  const char* key = nullptr;

 private:
  // At least n bytes buffered from pos_ (the current record, whole).
  void have(std::size_t n) {
    if (len_ - pos_ >= n) return;
    if (len_ != pos_) std::memmove(buf_.data(), buf_.data() + pos_, len_ - pos_);
    len_ -= pos_;
    pos_ = 0;
    if (buf_.size() < n) buf_.resize(std::max(n, piece));
    const std::size_t want =
        static_cast<std::size_t>(std::min<std::uint64_t>(buf_.size() - len_, end_ - off_));
    const long long got = pread_full(fd_, buf_.data() + len_, want, off_);
    if (got < 0) throw_errno(*dir_, "read of the temporary file sorting an object's keys",
                             static_cast<int>(-got));
    len_ += static_cast<std::size_t>(got);
    off_ += static_cast<std::uint64_t>(got);
    if (len_ < n)
      throw persist_error(*dir_, "the temporary file sorting an object's keys was cut short");
  }
  int fd_;
  std::uint64_t off_, end_;
  const std::filesystem::path* dir_;
  std::vector<char> buf_;
  std::size_t pos_ = 0, len_ = 0, cur_ = 0;
};

}  // namespace

void key_sorter::add(std::uint64_t block, std::string_view key, std::uint32_t seq) {
  recs_.push_back(
      {block, keys_.size(), static_cast<std::uint32_t>(key.size()), rules_.key_hash(key), seq});
  keys_.append(key);
  if (dir_ && recs_.size() * sizeof(rec) + keys_.size() >= run_bytes_) spill();
}

std::vector<std::uint32_t> key_sorter::sorted() const {
  // Each record's key_tree_prefix beside its index, so that the sort reads
  // the keys' bytes only for a tie; within a run seqs ascend with the index,
  // so ties by index are by seq.
  struct entry {
    std::uint64_t prefix;
    std::uint32_t i;
  };
  std::vector<entry> e(recs_.size());
  for (std::uint32_t i = 0; i < e.size(); ++i)
    e[i] = {key_tree_prefix(recs_[i].len, recs_[i].hash), i};
  std::sort(e.begin(), e.end(), [&](const entry& a, const entry& b) {
    if (a.prefix != b.prefix) return a.prefix < b.prefix;
    const rec &x = recs_[a.i], &y = recs_[b.i];
    const int c = key_tree_order({keys_.data() + x.at, x.len}, x.hash, {keys_.data() + y.at, y.len},
                                 y.hash);
    return c != 0 ? c < 0 : a.i < b.i;
  });
  std::vector<std::uint32_t> order(e.size());
  for (std::size_t i = 0; i < e.size(); ++i) order[i] = e[i].i;
  return order;
}

void key_sorter::spill() {
  if (!file_) file_ = open_scratch(*dir_);
  std::vector<char> out;
  out.reserve(piece);
  const auto flush = [&] {
    if (const int e = pwrite_all(file_.get(), out.data(), out.size(), file_end_))
      throw_errno(*dir_, "write of the temporary file sorting an object's keys", e);
    file_end_ += out.size();
    out.clear();
  };
  for (const std::uint32_t i : sorted()) {
    const rec& r = recs_[i];
    char head[rec_head];
    std::memcpy(head, &r.block, 8);
    std::memcpy(head + 8, &r.len, 4);
    std::memcpy(head + 12, &r.hash, 4);
    std::memcpy(head + 16, &r.seq, 4);
    if (out.size() + rec_head + r.len > piece && !out.empty()) flush();
    out.insert(out.end(), head, head + rec_head);
    out.insert(out.end(), keys_.data() + r.at, keys_.data() + r.at + r.len);
  }
  if (!out.empty()) flush();
  run_ends_.push_back(file_end_);
  recs_.clear();
  keys_.clear();
}

void key_sorter::finish(const std::function<void(const key_entry*, std::size_t)>& emit) {
  if (file_) {
    if (!recs_.empty()) spill();
    merge(emit);
    file_.reset();
    run_ends_.clear();
    file_end_ = 0;
    return;
  }
  entry_batches out(emit);
  for (const std::uint32_t i : sorted())
    out.add(recs_[i].block, recs_[i].len, recs_[i].hash, recs_[i].seq);
  out.flush();
  recs_.clear();
  keys_.clear();
}

void key_sorter::merge(const std::function<void(const key_entry*, std::size_t)>& emit) {
  std::vector<run_cursor> runs;
  runs.reserve(run_ends_.size());
  std::uint64_t begin = 0;
  for (const std::uint64_t end : run_ends_) {
    runs.emplace_back(file_.get(), begin, end, *dir_);
    begin = end;
  }
  // A min-heap of the runs by their current record (every run has one), in
  // the key tree's order, then seq.
  const auto greater = [&](std::size_t a, std::size_t b) {
    const run_cursor& x = runs[a];
    const run_cursor& y = runs[b];
    const int c = key_tree_order({x.key, x.len}, x.hash, {y.key, y.len}, y.hash);
    return c > 0 || (c == 0 && x.seq > y.seq);
  };
  std::vector<std::size_t> heap;
  for (std::size_t i = 0; i < runs.size(); ++i)
    if (runs[i].next()) heap.push_back(i);
  std::make_heap(heap.begin(), heap.end(), greater);
  entry_batches out(emit);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), greater);
    run_cursor& c = runs[heap.back()];
    out.add(c.block, c.len, c.hash, c.seq);
    if (c.next())
      std::push_heap(heap.begin(), heap.end(), greater);
    else
      heap.pop_back();
  }
  out.flush();
}

}  // namespace json
}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
