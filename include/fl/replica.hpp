// fl/replica.hpp: followers of a json_store over a NATS JetStream stream
// (target fl::replica, optional: built when libnats is found). A primary
// wraps the store its process writes; each commit's change-feed record
// (history, sequence, RFC 6902 patch) goes to the stream, published with the
// stream's expected last sequence, so a primary that another one replaced
// fails to publish and its commit fails. Followers apply the records to
// stores of their own, which readers in other processes open read_only; a
// follower can be promoted. docs/replication.md has the protocol, every
// failure and what it leaves, and how it compares with log shipping. Use a
// json_store alone when one machine holding the file is enough.
//
// Order of a commit: the store's sync() first, then the publish (the patch
// is the record sync() wrote). durability::local returns after the sync and
// publishes in the background; durability::replicated returns after the
// stream acknowledged the record (with an R3 stream: after two of three
// servers hold it), so a commit it returned from survives the primary's
// death and one server's.
//
// Caveats: a commit that throws replica_error after its sync() stays in the
// primary's own file (a reader of that file sees it); when the primary was
// deposed that file has left the stream's history: rebuild it from a
// snapshot (follower::from_snapshot). One stream holds one history: a store
// re-imported (a new history()) needs a new or purged stream.
//
// Threads: primary::commit(edit) may be called from any number of threads at
// once (group commit: the edits waiting when a flush starts share its sync()
// and its publish). Everything else of a primary, and a follower, is used by
// one thread at a time, and not while commit(edit) calls run; each has its
// own connection. Readers of a follower's file are other json_stores
// (open_mode::read_only), in any process.
#pragma once

#include <fl/detail/config.hpp>

#include <fl/json_store.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <type_traits>
#include <utility>
#include <stdexcept>
#include <string>

namespace fl {
inline namespace FL_ABI_NS {
namespace replica {

namespace detail {
class link;
struct group;
}

// What a replica call met, beside its message.
enum class fault {
  connection,  // no server answered in time, or the stream is unavailable
  fenced,      // the stream moved on: another primary publishes (deposed)
  diverged,    // the store and the stream disagree (another history, another record)
  behind,      // the stream holds records this store lacks (run it as a follower)
  gap,         // a record is missing between the store and the stream
  unknown,     // a publish was sent but not acknowledged: it may or may not be in the stream
};

class replica_error : public std::runtime_error {
 public:
  replica_error(fault f, const std::string& what) : std::runtime_error(what), fault_(f) {}
  fault kind() const noexcept { return fault_; }

 private:
  fault fault_;
};

enum class durability { local, replicated };

struct options {
  // Comma-separated server URLs ("nats://10.0.0.1:4222,nats://10.0.0.2:4222").
  std::string servers = "nats://127.0.0.1:4222";
  // The stream's name (letters, digits, '-', '_'); its one subject is
  // "fl.replica." + stream.
  std::string stream = "fl";
  // The stream's replicas when the primary creates it (1, or 3 on a cluster
  // of three); an existing stream is used as it is.
  int replicas = 1;
  // How long a call waits for a server: connect, publish acknowledgement,
  // stream lookups.
  std::chrono::milliseconds timeout{5000};
};

// The store's file and its redo log copied to `to` (and `to`-log): the
// document as of `store`'s last commit, its history and sequence. Call it
// between commits, from the thread that commits.
void copy_store(const json_store& store, const std::filesystem::path& to);

class primary {
 public:
  // Takes over `store` (opened read_write), connects, creates the stream
  // when it does not exist, and checks the stream against the store: an
  // empty stream, or one whose last record is the store's history and
  // sequence (the same patch) continues; a stream behind the store (commits
  // synced whose publish never finished) gets those records republished,
  // fenced; a stream ahead throws fault::behind, another history or record
  // fault::diverged. Throws replica_error (fault::connection) when no server
  // answers within options.timeout.
  primary(json_store store, const options& opts, durability mode);
  primary(primary&&) noexcept;
  primary& operator=(primary&&) noexcept;
  ~primary();

  // Edit through this, then commit().
  json_store& store() noexcept { return store_; }
  const json_store& store() const noexcept { return store_; }

  // sync() and publish. Returns the commit's sequence (no record and no
  // publish when the edits changed nothing). durability::local: returns
  // after the sync; the publish is acknowledged later (wait_acknowledged).
  // durability::replicated: returns after the acknowledgement. Throws
  // replica_error: fault::fenced when another primary published (this one
  // is deposed from then on: every later commit throws before its sync),
  // fault::unknown when the acknowledgement did not come (the next commit
  // first checks the stream and republishes what is missing). Both after the
  // store's sync: the commit is in this store's file.
  std::uint64_t commit();
  // Group commit, for many threads: runs edit(store()) and commits it
  // together with the edits of the other threads waiting meanwhile: one
  // sync(), one record, one publish for all of them. Thread-safe (the only
  // call of a primary that is). Returns when the batch holding this edit is
  // durable (local: after its sync) or acknowledged (replicated), with the
  // batch's sequence, which every caller of that batch gets.
  //   The edit runs on whichever waiting thread leads the batch, one edit at
  // a time, before the batch's sync; it must not call this primary, and it
  // may read the store (store() must not be used outside an edit while
  // commit(edit) calls run). An edit that throws: its caller gets that
  // exception; what the edit changed before it threw stays in the batch
  // (json_store has no undo: make an edit all or nothing, one apply_patch,
  // when that matters). The other edits commit.
  //   A batch that fails throws for every caller in it, each with the same
  // error: before its edits ran (deposed, an earlier background publish
  // failed, the stream cannot be read) the edits are not applied; at its
  // sync (persist_error) the edits stay in the store, uncommitted, and the
  // next batch's sync commits them; at its publish (replica_error, as
  // commit()) the batch is in this store's file, and fault::unknown gets
  // it republished by the next batch. So a caller that got an exception
  // must not assume its edit is absent: it was not acknowledged.
  template <class Edit>
    requires std::is_invocable_v<Edit&, json_store&>
  std::uint64_t commit(Edit&& edit) {
    auto run = [](void* e, json_store& s) { (*static_cast<std::remove_reference_t<Edit>*>(e))(s); };
    return commit_edit(run, static_cast<void*>(std::addressof(edit)));
  }
  // Waits until every publish sent is acknowledged; throws as commit().
  void wait_acknowledged();
  // The stream sequence of the last record acknowledged or sent.
  std::uint64_t stream_sequence() const noexcept { return expected_; }
  bool deposed() const noexcept { return deposed_; }
  // Records this primary published, and their message bodies' bytes (the
  // record's header line and patch; NATS adds its headers and framing).
  std::uint64_t records_published() const noexcept { return records_published_; }
  std::uint64_t bytes_published() const noexcept { return bytes_published_; }
  // compact(), commit() and copy_store(store(), to): a compacted copy from
  // which follower::from_snapshot starts a new follower. Checks first that
  // the stream's last record is the store's last commit: a primary deposed
  // before it knew (no commit of its own met the fence yet) throws
  // fault::fenced rather than hand out a store of another history.
  void snapshot(const std::filesystem::path& to);
  // The same snapshot, published through JetStream instead of a file: to
  // the stream options.stream + "_snapshots" (subjects "fl.snapshot.<stream>.>",
  // options.replicas copies), in chunks of 256 KiB and a manifest naming
  // them; older snapshots are then purged from it. A follower anywhere
  // fetches it with follower::fetch_snapshot and only the servers' address.
  // Returns the snapshot's sequence. Throws replica_error as commit(), and
  // fault::unknown when a chunk's publish is not acknowledged (the stream's
  // previous snapshot stays the newest one).
  std::uint64_t publish_snapshot();

 private:
  friend struct detail::group;
  std::uint64_t commit_edit(void (*run)(void*, json_store&), void* edit);
  // The checks a commit makes before its edits run (deposed, background
  // publish failures, reconcile after an unknown outcome).
  void before_edits();
  // sync() and publish: the sequence committed.
  std::uint64_t flush();
  void reconcile();
  void wait_sent();  // wait_acknowledged() by the thread that leads
  // A snapshot is taken only of the stream's history: the stream's last
  // record must be the store's last commit (else fault::fenced, deposed).
  void check_stream_holds_store();
  json_store store_;
  std::unique_ptr<detail::link> link_;
  std::unique_ptr<detail::group> group_;
  options opts_;
  durability mode_;
  std::uint64_t expected_ = 0;  // the stream's last sequence, as this primary knows it
  bool deposed_ = false;
  bool unsure_ = false;  // a publish's outcome is unknown: reconcile first
  std::uint64_t records_published_ = 0;
  std::uint64_t bytes_published_ = 0;
};

class follower {
 public:
  // Takes over `store` (opened read_write: its own file, a copy of the
  // primary's history) and subscribes to the stream from the record after
  // store.sequence(). Throws replica_error as primary's constructor does.
  follower(json_store store, const options& opts);
  follower(follower&&) noexcept;
  follower& operator=(follower&&) noexcept;
  ~follower();

  // Copies the snapshot (primary::snapshot) to `file` and opens it. Both
  // this and fetch_snapshot write the store beside `file` ("<file>.staged")
  // and name it `file` only once it is whole and durable
  // (mapped_space::rename): a crash leaves at `file` the store that was
  // there or the new one. A store at `file` that any process has open is
  // not replaced: persist_error "locked", and it stays as it was. On any
  // error the staged files are removed.
  static json_store from_snapshot(const std::filesystem::path& snapshot,
                                  const std::filesystem::path& file);
  // Fetches the newest snapshot published (primary::publish_snapshot) from
  // the servers of `opts` as `file` (and its redo log, file + "-log"; staged
  // and named as from_snapshot's) and opens it: a follower on that store
  // continues from the stream. Throws replica_error: fault::connection when
  // no server answers, fault::gap when no snapshot was published or a newer
  // one replaced it while it was read (fetch again), fault::diverged when
  // its chunks do not match its manifest; persist_error as from_snapshot.
  static json_store fetch_snapshot(const options& opts, const std::filesystem::path& file);

  // Applies the records that arrive within `wait` (apply_patch and sync()
  // per record, checking the history and that each sequence is exactly
  // sequence() + 1): returns how many. Throws replica_error (fault::gap,
  // fault::diverged) and leaves the store at its last applied record.
  std::size_t poll(std::chrono::milliseconds wait);
  // Applies records until the store holds the stream's last one.
  void catch_up();
  const json_store& store() const noexcept { return store_; }

  // catch_up(), then hands the store to a primary publishing at the
  // stream's last sequence (this follower is empty afterwards).
  primary promote(durability mode) &&;

 private:
  json_store store_;
  std::unique_ptr<detail::link> link_;
  options opts_;
  std::uint64_t stream_seq_ = 0;  // the stream sequence of the last record applied
};

}  // namespace replica
}  // namespace FL_ABI_NS
}  // namespace fl
