// src/json/store.cpp: a json_store's space: import and create into a new
// space published by the first sync(), open and refresh (readers), sync
// (a commit), and compact (the document rewritten into a fresh space), with
// the file locks that keep one writer per path.
#include "json/store_file.hpp"

#include <fl/mapped_space.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
namespace json {

std::filesystem::path with_suffix(const std::filesystem::path& p, const char* suffix) {
  std::filesystem::path r = p;
  r += suffix;
  return r;
}

store_file::~store_file() {
  // An import never synced: its temporary file is nobody's.
  if (space_ && !published_) space_->discard();
}

// The import's blocks, laid out from the space's end: one run, written to
// the file directly (no private copies, not logged).
void store_file::publish_import() {
  check_tail_page();
  if (!tail_blocks_.empty()) {
    const fptr<void> run = space_->allocate_end_run(tail_.size(), tail_blocks_.size());
    if (run.offset() != tail_base_)
      throw std::logic_error("fl::json_store: the space was allocated from behind its back");
    space_->write_fresh(run, tail_.data(), tail_.size());
    tail_.clear();
    tail_blocks_.clear();
  }
  space_->get(head_)->root = root_;
  space_->wrote(head_, sizeof(json_head));
  start_tail();
}

// Starts a new tail at the space's end (a block's start). The page there
// is checked before the import writes it (check_tail_page), not here: an
// open that only reads never touches it.
void store_file::start_tail() {
  tail_base_ = space_->end_block().offset() - 8;
  tail_page_checked_ = false;
}

// Checks the page the import's first block header goes to, so that
// writing it never hides damage to the committed bytes beside it.
void store_file::check_tail_page() {
  if (tail_page_checked_) return;
  if (tail_base_ < space_->file_bytes()) space_->checked(fptr<const void>(tail_base_), 8);
  tail_page_checked_ = true;
}

// A new, empty space under path_ + `suffix` with its head, for an import
// (".tmp") or a compaction (".compact"); published by the first sync(). An
// unlocked old file there is a leftover of one never synced; a locked one
// is one in progress, which makes this one throw "locked".
mapped_space store_file::new_space(const char* suffix) {
  const std::filesystem::path tmp = with_suffix(path_, suffix);
  if (!mapped_space::remove(tmp))
    throw persist_error(path_, "locked: another import to this path is in progress");
  // Not durable until the first sync(), which publishes it: nothing waits
  // for the disk before then. Its errors name the store, not the
  // temporary file (which the user never named).
  try {
    mapped_space space(tmp, mapped_space_options{.mode = open_mode::create_new,
                                                 .durable = false,
                                                 .readers = false,
                                                 .writes_reported = true});
    const fptr<json_head_v5> head = space.make<json_head_v5>();
    json_head* h = &space.get(head)->head;
    h->magic = file_magic;
    h->version = format_version;
    space.wrote(head, sizeof(json_head_v5));
    space.set_root(head);
    return space;
  } catch (const persist_error& e) { throw persist_error(path_, e.reason()); }
}

void store_file::create() {
  space_.emplace(new_space(".tmp"));
  head_ = space_->root<json_head>();
  rules_ = format_rules::of(format_version);
  // A new history: whatever the file replaces, its feed is not this one's.
  ring_ = new_ring(*space_, nullptr, default_feed_capacity, true);
  space_->get(head_.cast<json_head_v5>())->feed.ring = ring_.offset();
  space_->wrote(head_, sizeof(json_head_v5));
  pending_.clear();
  staged_ = {};
  start_tail();
}

// Every chunk of blocks `b` finishes goes to the end of `space` (whose end
// block starts at `base`), written to the file directly: memory stays
// bounded however big the document (an import's text, a compaction's
// store), and each run lands where the builder's offsets say. An object's
// keys past one run are sorted in a temporary file beside the store, on its
// file system, not in memory (/tmp may be tmpfs).
// The page a run shares with the next one is held back and written with
// the next run's first bytes as one whole page: write_fresh copies a page
// it fills in part into the mapping, and a private page at every 4 MiB
// left a 10-million-member import some 330 page tables that every later
// commit's page-table scan walked (docs/performance.md, "A streamed
// import's shared pages"). The returned call ends the stream, after the
// builder's finish(): it writes the last page held back.
std::function<void()> store_file::stream_to(builder& b, mapped_space& space,
                                            std::uint64_t base) const {
  struct held_page {
    std::uint64_t at = 0;              // where bytes[0] goes
    std::vector<unsigned char> bytes;  // up to, not including, the end of at's page
  };
  auto held = std::make_shared<held_page>();
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  b.stream(
      [&space, held, page, next = base](const unsigned char* p, std::size_t bytes,
                                        std::size_t blocks) mutable {
        const fptr<void> run = space.allocate_end_run(bytes, blocks);
        if (run.offset() != next)
          throw std::logic_error("fl::json_store: the space was allocated from behind its back");
        next += bytes;
        if (!held->bytes.empty()) {
          const std::uint64_t page_end = (held->at / page + 1) * page;
          const std::size_t take = static_cast<std::size_t>(
              std::min<std::uint64_t>(bytes, page_end - held->at - held->bytes.size()));
          held->bytes.insert(held->bytes.end(), p, p + take);
          p += take;
          bytes -= take;
          if (held->at + held->bytes.size() < page_end) return;  // the run ended inside it
          space.write_fresh(fptr<void>(held->at), held->bytes.data(), held->bytes.size());
          held->bytes.clear();
        }
        // p now lands at next - bytes; up to the last page boundary it goes
        // now, the rest waits for the next run.
        const std::uint64_t at = next - bytes, cut = std::max(at, next / page * page);
        if (cut > at) space.write_fresh(fptr<void>(at), p, static_cast<std::size_t>(cut - at));
        held->at = cut;
        held->bytes.assign(p + (cut - at), p + bytes);
      },
      stream_chunk, path_.has_parent_path() ? path_.parent_path() : std::filesystem::path("."));
  return [&space, held] {
    if (!held->bytes.empty())
      space.write_fresh(fptr<void>(held->at), held->bytes.data(), held->bytes.size());
    held->bytes.clear();
  };
}

// Feeds value `r` of this store to `b`, as a parse of its text would.
// Bounded like dump(): max_depth levels, and `b` may write up to offset
// `end_bound` (builder::end(): what it streamed counts too).
void store_file::emit(const json_ref& r, builder& b, std::uint64_t end_bound,
                      std::uint32_t depth) const {
  const std::uint64_t limit = root_limit();
  switch (static_cast<kind>(r.k)) {
    case kind::null_v: b.null_value(); return;
    case kind::false_v: b.boolean(false); return;
    case kind::true_v: b.boolean(true); return;
    case kind::int64: b.int64(static_cast<std::int64_t>(r.x)); return;
    case kind::uint64: b.uint64(r.x); return;
    case kind::real: {
      double d;
      std::memcpy(&d, &r.x, sizeof d);
      b.real(d);
      return;
    }
    case kind::number_text:
      b.number_text({reinterpret_cast<const char*>(bytes(r.x, r.n, limit)), r.n});
      return;
    case kind::string:
      b.string({reinterpret_cast<const char*>(bytes(r.x, r.n, limit)), r.n});
      return;
    case kind::array: {
      if (depth >= max_depth) damaged("nesting deeper than the format allows");
      b.begin_array();
      if (r.tree()) {
        // The budget per node: a crafted tree may share nodes (dump.cpp).
        walk_tree(
            r, limit,
            [&](std::uint64_t, std::uint64_t) {
              if (b.end() > end_bound) damaged("the structure refers to one value twice");
            },
            [&](const json_ref& e) { emit(e, b, end_bound, depth + 1); });
      } else {
        const unsigned char* t = bytes(r.x, std::uint64_t{r.n} * sizeof(json_ref), limit);
        for (std::uint32_t i = 0; i < r.n; ++i)
          emit(read_ref(t + std::size_t{i} * sizeof(json_ref)), b, end_bound, depth + 1);
      }
      b.end_array();
      break;
    }
    case kind::object: {
      if (depth >= max_depth) damaged("nesting deeper than the format allows");
      if (r.tree()) {
        b.begin_object();
        walk_object(
            r, limit, false,
            [&](std::uint64_t, std::uint64_t) {
              if (b.end() > end_bound) damaged("the structure refers to one value twice");
            },
            [&](const member_entry& m) {
              b.key(key_bytes(m.key, m.key_len, limit));
              emit(m.value, b, end_bound, depth + 1);
            });
        b.end_object();
        break;
      }
      const unsigned char* t = bytes(r.x, std::uint64_t{r.n} * sizeof(json_member), limit);
      b.begin_object();
      for (std::uint32_t i = 0; i < r.n; ++i) {
        json_member m;
        std::memcpy(&m, t + std::size_t{i} * sizeof m, sizeof m);
        b.key({reinterpret_cast<const char*>(bytes(m.key, m.key_len, limit)), m.key_len});
        if (!valid_kind(m.value.k)) damaged("a value of unknown kind");
        emit(m.value, b, end_bound, depth + 1);
      }
      b.end_object();
      break;
    }
    default: damaged("a value of unknown kind");
  }
  if (b.end() > end_bound) damaged("the structure refers to one value twice");
}

// Rewrites the document into a new space laid out as an import would
// (the newest format, no free blocks), which replaces the store at the next sync().
void store_file::compact() {
  // Not the name of the space in use (a compaction not yet synced).
  const char* suffix =
      !published_ && space_->path() == with_suffix(path_, ".compact") ? ".tmp" : ".compact";
  mapped_space fresh = new_space(suffix);
  const fptr<json_head> fresh_head = fresh.root<json_head>();
  json_ref root;
  try {
    const std::uint64_t base = fresh.end_block().offset() - 8;
    byte_buffer out;
    std::vector<tail_block> blocks;
    builder b(out, blocks, base, format_rules::of(format_version));
    const std::function<void()> end_stream = stream_to(b, fresh, base);
    emit(root_, b, base + 8 * root_limit() + 64, 0);
    b.finish();
    end_stream();
    root = b.result();
    copy_feed(fresh, fresh_head);
  } catch (...) {
    fresh.discard();
    throw;
  }
  fresh.get(fresh_head)->root = root;
  fresh.wrote(fresh_head, sizeof(json_head));
  // A published store stays open (and locked) until the sync() that
  // replaces it; an unpublished one (an import or a compaction not yet
  // synced) is replaced now.
  ++edition_;  // views of the old space are stale
  if (published_) old_space_ = std::move(space_);
  space_ = std::move(fresh);
  published_ = false;
  head_ = fresh_head;
  root_ = root;
  rules_ = format_rules::of(format_version);
  ring_ = fptr<feed_ring>(space_->get(fresh_head.cast<json_head_v5>())->feed.ring);
  staged_ = {};  // its operations are still in pending_: the next sync() records them
  forget_writable();  // blocks of the old space
  tail_.clear();
  tail_blocks_.clear();
  start_tail();
}

// The first sync publishes an import: the commit is written without
// waiting for the disk, then rename() checkpoints it durably (the file
// alone is the whole document, with no log it needs) and renames it onto
// path_ under the lock of the store there, if any: "locked" if that store
// is open, which leaves both as they were (the sync may be retried).
void store_file::sync() {
  forget_writable();  // this commit may name them
  check_tail_page();
  stage_record();
  start_tail();  // the record took a block, maybe at the end
  if (!published_) {
    try {
      space_->sync();
    } catch (const persist_error& e) {
      throw persist_error(path_, e.reason());  // not the temporary file's name
    }
    // A compaction's old store closes in the rename, which holds its lock
    // until the compacted file has the name: no other process or handle
    // can open or replace the store in between. Without one, the rename
    // replaces only a file nobody holds ("locked" if a store at path_ is
    // open elsewhere; a later sync() tries again).
    space_->set_durable(true);
    try {
      if (old_space_) {
        space_->rename(path_, std::move(*old_space_));  // open still if it threw at once
        old_space_.reset();
      } else {
        space_->rename(path_);
      }
    } catch (...) {
      space_->set_durable(false);
      throw;
    }
    published_ = true;
  } else {
    space_->sync();
  }
  pending_.clear();
  staged_ = {};
  start_tail();  // a commit may carve a bigger page checksum table
}

void store_file::open(open_mode mode) {
  space_.emplace(path_, mapped_space_options{.mode = mode, .writes_reported = true});
  published_ = true;
  read_head();
}

// A reader: the space moves to the newest commit, and the document with it.
// When the writer replaced the file (compact(), a re-import), the newest
// commit is that of the file the path names now: opened in its place.
void store_file::refresh() {
  ++edition_;  // the reader's views are of the commit it leaves
  try {
    space_->refresh();
  } catch (const persist_error&) {
    if (!space_->replaced()) throw;
    mapped_space now(path_, mapped_space_options{.mode = open_mode::read_only});
    space_ = std::move(now);
  }
  read_head();
}

void store_file::refuse_read_only(const char* what) const {
  if (space_->read_only())
    throw persist_error(path_,
                        std::string("json_store::") + what + ": the store is opened read-only");
}

// The head object (the space's root) and the document's root in it.
void store_file::read_head() {
  head_ = space_->root<json_head>();
  if (!head_) damaged("not a json_store file (the space has no root object)");
  json_head h;
  std::memcpy(&h, space_->checked(head_, sizeof h), sizeof h);
  if (h.magic != file_magic) damaged("not a json_store file (bad magic in the root object)");
  if (h.version < oldest_format_version || h.version > format_version)
    damaged("json_store format version " + std::to_string(h.version) + ", this build reads " +
            std::to_string(oldest_format_version) + " to " + std::to_string(format_version));
  rules_ = format_rules::of(h.version);
  ring_ = nullptr;
  if (h.version >= feed_format_version) {
    json_feed_head feed;
    std::memcpy(&feed, space_->checked(fptr<const void>(head_.offset() + sizeof(json_head)), sizeof feed), sizeof feed);
    if (feed.ring == 0) damaged("the store's head names no change feed");
    ring_ = fptr<feed_ring>(feed.ring);
  }
  if (!valid_kind(h.root.k)) damaged("a value of unknown kind at the root");
  root_ = h.root;
  start_tail();
  if (head_.offset() >= tail_base_) damaged("the root object lies past the carved blocks");
}

}  // namespace json
}  // namespace detail


json_store::json_store(std::unique_ptr<detail::json::store_file> f) noexcept
    : file_(std::move(f)) {}
json_store::json_store(json_store&&) noexcept = default;
json_store& json_store::operator=(json_store&&) noexcept = default;
json_store::~json_store() = default;

json_store json_store::import(std::string_view json_text, const std::filesystem::path& file) {
  // Before any work; sync() checks again when it renames onto `file`.
  if (mapped_space::locked(file))
    throw persist_error(
        file, "locked: a store open in another process or handle; import changes nothing");
  auto f = std::make_unique<detail::json::store_file>();
  f->path_ = file;
  // The store is about 1.5x the text for typical documents (16 bytes per
  // value, 32 per member, strings unescaped); reserving 2x spares the
  // doublings' copies (pages never written are never touched), up to the
  // chunk the builder streams to the file in.
  f->tail_.reserve(
      std::min(json_text.size() * 2 + 4096, 2 * detail::json::store_file::stream_chunk));
  detail::json::builder b(f->tail_, f->tail_blocks_, 0,
                          detail::json::format_rules::of(detail::json::format_version));
  // Invalid text throws json_error before the file is created; the builder
  // then writes at the offsets the document's block will have.
  std::function<void()> end_stream;
  detail::json::parse_fast(json_text, b, [&] {
    f->create();
    b.rebase(f->tail_base_);
    f->check_tail_page();
    end_stream = f->stream_to(b, *f->space_, f->tail_base_);
  });
  b.finish();
  if (end_stream) end_stream();
  f->root_ = b.result();
  f->publish_import();
  return json_store(std::move(f));
}

json_store json_store::open(const std::filesystem::path& file, open_mode mode) {
  if (mode != open_mode::read_write && mode != open_mode::read_only)
    throw std::invalid_argument(
        "fl::json_store::open: the mode is open_mode::read_write or open_mode::read_only");
  auto f = std::make_unique<detail::json::store_file>();
  f->path_ = file;
  f->open(mode);
  return json_store(std::move(f));
}

void json_store::refresh() { file_->refresh(); }

void json_store::sync() {
  file_->refuse_read_only("sync");
  file_->sync();
}

void json_store::compact() {
  file_->refuse_read_only("compact");
  file_->compact();
}

const std::filesystem::path& json_store::path() const noexcept { return file_->path_; }

std::uint64_t json_store::file_bytes() const noexcept { return file_->space_->file_bytes(); }

space_stats json_store::stats() const { return file_->space_->stats(); }

json_store json_store::create(const std::filesystem::path& file) {
  std::error_code ec;
  if (std::filesystem::exists(file, ec) || ec)
    throw persist_error(file,
                        ec ? "create: " + ec.message() : std::string("create: the file exists"));
  json_store s = import("{}", file);
  s.sync();
  return s;
}

json_store json_store::open_or_create(const std::filesystem::path& file) {
  std::error_code ec;
  if (std::filesystem::exists(file, ec)) return open(file);
  return create(file);
}

}  // namespace FL_ABI_NS
}  // namespace fl
