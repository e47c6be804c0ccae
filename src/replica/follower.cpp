// src/replica/follower.cpp: fl::replica::follower (fl/replica.hpp): a
// consumer from the record after the store's sequence, each record applied
// as one commit (apply_patch and sync), and promotion.
#include <fl/replica.hpp>

#include "replica/link.hpp"

namespace fl {
inline namespace FL_ABI_NS {
namespace replica {

follower::follower(json_store store, const options& opts)
    : store_(std::move(store)), link_(std::make_unique<detail::link>(opts)), opts_(opts) {
  link_->ensure_stream(opts.replicas);
  // Within one history the stream holds one record per commit, so the
  // record after the store's sequence n sits (s - n) before the last one.
  std::uint64_t start = 1;
  if (const auto last = link_->last_record()) {
    if (last->rec.history != store_.history()) {
      throw replica_error(fault::diverged, "fl::replica: the stream holds another history than the store");
    }
    const std::uint64_t n = store_.sequence();
    const std::uint64_t s = last->rec.sequence;
    if (s <= n) {
      start = last->stream_sequence + 1;
    } else if (s - n < last->stream_sequence) {
      start = last->stream_sequence - (s - n) + 1;
    }  // else: from the first record held; apply() reports the gap
  }
  stream_seq_ = start - 1;
  link_->subscribe(start);
}

follower::follower(follower&&) noexcept = default;
follower& follower::operator=(follower&&) noexcept = default;
follower::~follower() = default;

namespace {

// One record: false when the store already holds it (a redelivery).
bool apply(json_store& store, const detail::record& r) {
  if (r.history != store.history()) {
    throw replica_error(fault::diverged, "fl::replica: a record of another history");
  }
  const std::uint64_t n = store.sequence();
  if (r.sequence <= n) return false;
  if (r.sequence != n + 1) {
    throw replica_error(fault::gap, "fl::replica: record " + std::to_string(r.sequence) + " after store sequence " +
                                        std::to_string(n) + ": start again from a newer snapshot");
  }
  try {
    store.apply_patch(r.patch);
  } catch (const std::exception& e) {
    throw replica_error(fault::diverged, "fl::replica: record " + std::to_string(r.sequence) +
                                             " does not apply: " + e.what());
  }
  store.sync();
  if (store.sequence() != r.sequence) {
    throw replica_error(fault::diverged, "fl::replica: record " + std::to_string(r.sequence) +
                                             " changed nothing in the store");
  }
  return true;
}

}  // namespace

std::size_t follower::poll(std::chrono::milliseconds wait) {
  std::size_t applied = 0;
  std::int64_t wait_ms = wait.count();
  while (auto d = link_->next(wait_ms)) {
    if (apply(store_, d->rec)) ++applied;
    stream_seq_ = d->stream_sequence;
    wait_ms = 0;  // then only what already arrived
  }
  return applied;
}

void follower::catch_up() {
  for (;;) {
    const auto last = link_->last_record();
    if (!last || last->rec.sequence <= store_.sequence()) return;
    if (poll(opts_.timeout) == 0 && store_.sequence() < last->rec.sequence) {
      throw replica_error(fault::connection, "fl::replica: no record arrived within the timeout");
    }
  }
}

primary follower::promote(durability mode) && {
  catch_up();
  link_.reset();
  return primary(std::move(store_), opts_, mode);
}

}  // namespace replica
}  // namespace FL_ABI_NS
}  // namespace fl
