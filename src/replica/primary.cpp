// src/replica/primary.cpp: fl::replica::primary (fl/replica.hpp): a commit
// is the store's sync() and then the publish of its record, fenced by the
// stream's last sequence as this primary knows it (docs/replication.md,
// "Protocol"); group commit, where the edits of many threads share one sync
// and one publish; and copy_store, the snapshot a follower starts from.
#include <fl/replica.hpp>

#include "replica/link.hpp"
#include "replica/record.hpp"
#include "replica/snapshot.hpp"

#include <condition_variable>
#include <exception>
#include <mutex>
#include <system_error>
#include <vector>

namespace fl {
inline namespace FL_ABI_NS {
namespace replica {

namespace {

// A space's files: the data file and its redo log (when there is one).
void copy_space_files(const std::filesystem::path& from, const std::filesystem::path& to) {
  namespace fs = std::filesystem;
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
  std::error_code ec;
  fs::remove(detail::log_path(to), ec);
  if (fs::exists(detail::log_path(from)))
    fs::copy_file(detail::log_path(from), detail::log_path(to));
}

}  // namespace

// Between commits the file and its log hold what a crash at that moment
// would leave, which a store opens as its last commit.
void copy_store(const json_store& store, const std::filesystem::path& to) {
  copy_space_files(store.path(), to);
}

json_store follower::from_snapshot(const std::filesystem::path& snapshot,
                                   const std::filesystem::path& file) {
  return detail::install_store(
      file, [&](const std::filesystem::path& staged) { copy_space_files(snapshot, staged); });
}

namespace detail {

// Group commit. Callers queue their edits; one of them, the leader, owns the
// store and the link until its batch is done (`leading`), applies the queued
// edits one at a time (taking the ones that arrive meanwhile too, so a slow
// edit or a slow flush gathers a bigger batch), then syncs and publishes once
// for all of them and hands each its outcome. A caller waits until its
// waiter is done, leading a batch itself whenever no one does. Invariant:
// only the thread that set `leading` touches the primary's store and link;
// the mutex guards the queue, `leading` and the waiters' outcomes.
struct group {
  // A caller's edit and its outcome, on the caller's stack; queues link
  // waiters through `next`, so a batch never allocates.
  struct waiter {
    void (*run)(void*, json_store&);
    void* edit;
    waiter* next = nullptr;
    bool done = false;
    std::uint64_t sequence = 0;
    std::exception_ptr error;
  };
  struct fifo {
    waiter* head = nullptr;
    waiter* tail = nullptr;
    void push(waiter* w) {
      w->next = nullptr;
      (tail ? tail->next : head) = w;
      tail = w;
    }
    waiter* pop() {
      waiter* w = head;
      head = w->next;
      if (!head) tail = nullptr;
      return w;
    }
    bool empty() const { return head == nullptr; }
  };

  std::mutex m;
  std::condition_variable cv;
  bool leading = false;
  fifo queue;

  // Runs fn() as the leader: waits until no batch is under way.
  template <class Fn>
  auto exclusive(Fn&& fn) {
    std::unique_lock lk(m);
    cv.wait(lk, [&] { return !leading; });
    leading = true;
    lk.unlock();
    struct release {
      group* g;
      ~release() {
        {
          std::lock_guard guard(g->m);
          g->leading = false;
        }
        g->cv.notify_all();
      }
    } r{this};
    return fn();
  }

  // One batch, led by the calling thread with `lk` held; returns with it
  // held. Every exception of the primary and of the edits is caught and
  // given to the waiters it concerns.
  void lead(primary& p, std::unique_lock<std::mutex>& lk) {
    fifo batch;
    lk.unlock();
    std::exception_ptr failed;
    try {
      p.before_edits();
    } catch (...) { failed = std::current_exception(); }
    lk.lock();
    if (failed) {
      batch = queue;
      queue = fifo{};
    } else {
      while (!queue.empty()) {
        waiter* w = queue.pop();
        lk.unlock();
        try {
          w->run(w->edit, p.store_);
        } catch (...) { w->error = std::current_exception(); }
        lk.lock();
        batch.push(w);
      }
      // The queue is empty with the lock held: the batch is closed; later
      // arrivals wait for the next one.
      lk.unlock();
      std::uint64_t seq = 0;
      try {
        seq = p.flush();
      } catch (...) { failed = std::current_exception(); }
      lk.lock();
      for (waiter* w = batch.head; w; w = w->next) w->sequence = seq;
    }
    for (waiter* w = batch.head; w; w = w->next) {
      if (failed && !w->error) w->error = failed;
      w->done = true;
    }
  }
};

}  // namespace detail

primary::primary(json_store store, const options& opts, durability mode)
    : store_(std::move(store)),
      link_(std::make_unique<detail::link>(opts)),
      group_(std::make_unique<detail::group>()),
      opts_(opts),
      mode_(mode) {
  link_->ensure_stream(opts.replicas);
  reconcile();
}

primary::primary(primary&&) noexcept = default;
primary& primary::operator=(primary&&) noexcept = default;
primary::~primary() = default;

void primary::reconcile() {
  if (mode_ == durability::local) wait_sent();
  const auto last = link_->last_record();
  const std::uint64_t n = store_.sequence();
  unsure_ = false;
  if (!last) {
    expected_ = 0;
    return;
  }
  const detail::record& r = last->rec;
  const std::string where =
      " (stream " + std::to_string(r.sequence) + ", store " + std::to_string(n) + ")";
  if (r.history != store_.history()) {
    throw replica_error(fault::diverged,
                        "fl::replica: the stream holds another history than the store");
  }
  if (r.sequence > n) {
    throw replica_error(fault::behind, "fl::replica: the stream holds records the store lacks" +
                                           where + ": run it as a follower, then promote it");
  }
  // The record both hold must be the same one: a deposed primary's last
  // commit and its successor's share a sequence, not a patch.
  if (r.sequence >= 1 && r.sequence - 1 >= store_.oldest_change() &&
      store_.changes(r.sequence - 1, 1).front().patch != std::string_view(r.patch)) {
    throw replica_error(fault::diverged,
                        "fl::replica: the store's record differs from the stream's" + where);
  }
  expected_ = last->stream_sequence;
  if (r.sequence == n) return;
  // Commits synced whose publish never finished (a crash, a lost
  // acknowledgement): published now, in order, each fenced.
  if (store_.oldest_change() > r.sequence) {
    throw replica_error(
        fault::gap,
        "fl::replica: the store no longer keeps the records after the stream's" + where);
  }
  for (const json_change& c : store_.changes(r.sequence)) {
    expected_ = link_->publish(detail::encode(store_.history(), c.sequence, c.patch), expected_);
  }
}

void primary::wait_acknowledged() {
  group_->exclusive([&] { wait_sent(); });
}

void primary::wait_sent() {
  try {
    link_->wait_async();
  } catch (const replica_error& e) {
    (e.kind() == fault::fenced ? deposed_ : unsure_) = true;
    throw;
  }
}

void primary::before_edits() {
  if (deposed_) {
    throw replica_error(fault::fenced,
                        "fl::replica: this primary is deposed: another one publishes");
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
}

std::uint64_t primary::flush() {
  const std::uint64_t before = store_.sequence();
  store_.sync();
  const std::uint64_t n = store_.sequence();
  if (n == before) return n;
  const std::string body =
      detail::encode(store_.history(), n, store_.changes(before, 1).front().patch);
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

std::uint64_t primary::commit() {
  return group_->exclusive([&] {
    before_edits();
    return flush();
  });
}

std::uint64_t primary::commit_edit(void (*run)(void*, json_store&), void* edit) {
  detail::group& g = *group_;
  detail::group::waiter w{run, edit, nullptr, false, 0, nullptr};
  std::unique_lock lk(g.m);
  // The queue holds `w` only until a leader takes it into its batch, and
  // this function returns only after that batch set w.done: no queue or
  // batch points to `w` once it is gone (GCC cannot see that).
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdangling-pointer"
#endif
  g.queue.push(&w);
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic pop
#endif
  while (!w.done) {
    if (g.leading) {
      g.cv.wait(lk);
      continue;
    }
    g.leading = true;
    g.lead(*this, lk);
    g.leading = false;
    g.cv.notify_all();
  }
  if (w.error) std::rethrow_exception(w.error);
  return w.sequence;
}

void primary::check_stream_holds_store() {
  if (mode_ == durability::local) wait_sent();
  const auto last = link_->last_record();
  const std::uint64_t n = store_.sequence();
  const bool same =
      last ? last->rec.history == store_.history() && last->rec.sequence == n && n >= 1 &&
                 n - 1 >= store_.oldest_change() &&
                 store_.changes(n - 1, 1).front().patch == std::string_view(last->rec.patch)
           : n == 0;
  if (!same) {
    deposed_ = true;
    throw replica_error(fault::fenced,
                        "fl::replica: the stream's last record is not this store's last commit "
                        "(another primary published): no snapshot");
  }
}

void primary::snapshot(const std::filesystem::path& to) {
  group_->exclusive([&] {
    before_edits();
    store_.compact();
    flush();
    check_stream_holds_store();
    copy_store(store_, to);
  });
}

std::uint64_t primary::publish_snapshot() {
  return group_->exclusive([&] {
    before_edits();
    store_.compact();
    flush();
    check_stream_holds_store();
    // Between commits, and no commit can start meanwhile, the store's files
    // hold its last commit (what copy_store copies).
    detail::publish_snapshot(*link_, opts_, store_.history(), store_.sequence(), store_.path());
    return store_.sequence();
  });
}

json_store follower::fetch_snapshot(const options& opts, const std::filesystem::path& file) {
  return detail::install_store(file, [&](const std::filesystem::path& staged) {
    detail::link l(opts);
    detail::fetch_snapshot(l, opts, staged);
  });
}

}  // namespace replica
}  // namespace FL_ABI_NS
}  // namespace fl
