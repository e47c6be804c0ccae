// src/replica/primary.cpp: fl::replica::primary (fl/replica.hpp): a commit
// is the store's sync() and then the publish of its record, fenced by the
// stream's last sequence as this primary knows it (docs/replication.md,
// "Protocol"); and copy_store, the snapshot a follower starts from.
#include <fl/replica.hpp>

#include "replica/link.hpp"
#include "replica/record.hpp"

#include <system_error>

namespace fl {
inline namespace FL_ABI_NS {
namespace replica {

namespace {

std::filesystem::path log_of(const std::filesystem::path& p) {
  auto log = p;
  log += "-log";
  return log;
}

// A space's files: the data file and its redo log (when there is one).
void copy_space_files(const std::filesystem::path& from, const std::filesystem::path& to) {
  namespace fs = std::filesystem;
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
  std::error_code ec;
  fs::remove(log_of(to), ec);
  if (fs::exists(log_of(from))) fs::copy_file(log_of(from), log_of(to));
}

}  // namespace

// Between commits the file and its log hold what a crash at that moment
// would leave, which a store opens as its last commit.
void copy_store(const json_store& store, const std::filesystem::path& to) {
  copy_space_files(store.path(), to);
}

json_store follower::from_snapshot(const std::filesystem::path& snapshot,
                                   const std::filesystem::path& file) {
  copy_space_files(snapshot, file);
  return json_store::open(file);
}

primary::primary(json_store store, const options& opts, durability mode)
    : store_(std::move(store)), link_(std::make_unique<detail::link>(opts)), mode_(mode) {
  link_->ensure_stream(opts.replicas);
  reconcile();
}

primary::primary(primary&&) noexcept = default;
primary& primary::operator=(primary&&) noexcept = default;
primary::~primary() = default;

void primary::reconcile() {
  if (mode_ == durability::local) wait_acknowledged();
  const auto last = link_->last_record();
  const std::uint64_t n = store_.sequence();
  unsure_ = false;
  if (!last) {
    expected_ = 0;
    return;
  }
  const detail::record& r = last->rec;
  const std::string where = " (stream " + std::to_string(r.sequence) + ", store " + std::to_string(n) + ")";
  if (r.history != store_.history()) {
    throw replica_error(fault::diverged, "fl::replica: the stream holds another history than the store");
  }
  if (r.sequence > n) {
    throw replica_error(fault::behind, "fl::replica: the stream holds records the store lacks" + where +
                                           ": run it as a follower, then promote it");
  }
  // The record both hold must be the same one: a deposed primary's last
  // commit and its successor's share a sequence, not a patch.
  if (r.sequence >= 1 && r.sequence - 1 >= store_.oldest_change() &&
      store_.changes(r.sequence - 1, 1).front().patch != std::string_view(r.patch)) {
    throw replica_error(fault::diverged, "fl::replica: the store's record differs from the stream's" + where);
  }
  expected_ = last->stream_sequence;
  if (r.sequence == n) return;
  // Commits synced whose publish never finished (a crash, a lost
  // acknowledgement): published now, in order, each fenced.
  if (store_.oldest_change() > r.sequence) {
    throw replica_error(fault::gap, "fl::replica: the store no longer keeps the records after the stream's" + where);
  }
  for (const json_change& c : store_.changes(r.sequence)) {
    expected_ = link_->publish(detail::encode(store_.history(), c.sequence, c.patch), expected_);
  }
}

void primary::wait_acknowledged() {
  try {
    link_->wait_async();
  } catch (const replica_error& e) {
    (e.kind() == fault::fenced ? deposed_ : unsure_) = true;
    throw;
  }
}

std::uint64_t primary::commit() {
  if (deposed_) {
    throw replica_error(fault::fenced, "fl::replica: this primary is deposed: another one publishes");
  }
  if (mode_ == durability::local) {
    try {
      link_->check_async();
    } catch (const replica_error& e) {
      (e.kind() == fault::fenced ? deposed_ : unsure_) = true;
      throw;
    }
  }
  if (unsure_) reconcile();
  const std::uint64_t before = store_.sequence();
  store_.sync();
  const std::uint64_t n = store_.sequence();
  if (n == before) return n;
  const std::string body = detail::encode(store_.history(), n, store_.changes(before, 1).front().patch);
  try {
    if (mode_ == durability::replicated) {
      expected_ = link_->publish(body, expected_);
    } else {
      link_->publish_async(body, expected_);
      ++expected_;
    }
  } catch (const replica_error& e) {
    (e.kind() == fault::fenced ? deposed_ : unsure_) = true;
    throw;
  }
  ++records_published_;
  bytes_published_ += body.size();
  return n;
}

void primary::snapshot(const std::filesystem::path& to) {
  store_.compact();
  commit();
  copy_store(store_, to);
}

}  // namespace replica
}  // namespace FL_ABI_NS
}  // namespace fl
