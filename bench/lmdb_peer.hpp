// bench/lmdb_peer.hpp: LMDB (liblmdb, Debian liblmdb-dev) as a peer of the
// persist/ and json/ rows: an environment and a transaction as RAII objects
// that throw on every error, so a failing peer stops its row instead of
// timing an error path. Compiled only with FL_BENCH_HAVE_LMDB (bench/
// CMakeLists.txt finds the library; without it the lmdb rows are absent and
// the report lists lmdb among the missing peers).
//
// Every environment is one data file (MDB_NOSUBDIR; LMDB adds "<file>-lock")
// opened with LMDB's default durability: a write transaction's commit returns
// once its pages and then its meta page are on disk (two syncs), and a crash
// leaves the previous or the new commit, whole.
//
// Threads: LMDB allows one environment per file per process; each row opens
// its own file.
#pragma once

#if defined(FL_BENCH_HAVE_LMDB)

#include <lmdb.h>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace fl_bench::lmdb {

inline void check(int rc, const char* what) {
  if (rc != MDB_SUCCESS) throw std::runtime_error(std::string("lmdb: ") + what + ": " + mdb_strerror(rc));
}

inline MDB_val val(std::string_view s) {
  return MDB_val{s.size(), const_cast<char*>(s.data())};
}

inline std::string_view view(const MDB_val& v) {
  return {static_cast<const char*>(v.mv_data), v.mv_size};
}

// An open environment: the data file `file`, mapped with room for
// `map_bytes` (the map size is also stored in the file).
class env {
 public:
  env(const std::filesystem::path& file, std::size_t map_bytes, unsigned flags = 0) {
    check(mdb_env_create(&env_), "mdb_env_create");
    int rc = mdb_env_set_mapsize(env_, map_bytes);
    if (rc == MDB_SUCCESS) rc = mdb_env_open(env_, file.c_str(), flags | MDB_NOSUBDIR, 0644);
    if (rc != MDB_SUCCESS) {
      mdb_env_close(env_);
      check(rc, ("open " + file.string()).c_str());
    }
  }
  env(const env&) = delete;
  env& operator=(const env&) = delete;
  ~env() { mdb_env_close(env_); }

  MDB_env* get() const noexcept { return env_; }

 private:
  MDB_env* env_ = nullptr;
};

// A transaction on the environment's main database; aborted when it goes
// out of scope uncommitted.
class txn {
 public:
  txn(const env& e, unsigned flags) {
    check(mdb_txn_begin(e.get(), nullptr, flags, &txn_), "mdb_txn_begin");
    const int rc = mdb_dbi_open(txn_, nullptr, 0, &dbi_);
    if (rc != MDB_SUCCESS) {
      mdb_txn_abort(txn_);
      check(rc, "mdb_dbi_open");
    }
  }
  txn(const txn&) = delete;
  txn& operator=(const txn&) = delete;
  ~txn() {
    if (txn_ != nullptr) mdb_txn_abort(txn_);
  }

  // The value of `key`, pointing into the map (valid until the transaction
  // ends); throws when the key is absent.
  std::string_view get(std::string_view key) const {
    MDB_val k = val(key), v{};
    check(mdb_get(txn_, dbi_, &k, &v), "mdb_get");
    return view(v);
  }
  // `flags` as mdb_put's: MDB_APPEND loads keys that arrive in sorted order
  // without a descent per key.
  void put(std::string_view key, std::string_view value, unsigned flags = 0) {
    MDB_val k = val(key), v = val(value);
    check(mdb_put(txn_, dbi_, &k, &v, flags), "mdb_put");
  }
  // Removes `key`; false when it is absent.
  bool del(std::string_view key) {
    MDB_val k = val(key);
    const int rc = mdb_del(txn_, dbi_, &k, nullptr);
    if (rc == MDB_NOTFOUND) return false;
    check(rc, "mdb_del");
    return true;
  }
  // The least key >= `key`, or the greatest key of the database (last_key),
  // pointing into the map; nullopt when there is none. One B-tree descent each.
  std::optional<std::string_view> first_key_from(std::string_view key) const {
    return cursor_key(key, MDB_SET_RANGE);
  }
  std::optional<std::string_view> last_key() const { return cursor_key({}, MDB_LAST); }
  // A read-only transaction kept for reuse, as LMDB advises for frequent
  // short reads: reset() releases its snapshot, renew() takes the newest one
  // (no allocation, no reopening of the database handle).
  void reset() noexcept { mdb_txn_reset(txn_); }
  void renew() { check(mdb_txn_renew(txn_), "mdb_txn_renew"); }
  // Room for a value of `n` bytes under `key`, to be written before commit
  // (MDB_RESERVE: no copy through a buffer of the caller's).
  char* reserve(std::string_view key, std::size_t n) {
    MDB_val k = val(key), v{n, nullptr};
    check(mdb_put(txn_, dbi_, &k, &v, MDB_RESERVE), "mdb_put");
    return static_cast<char*>(v.mv_data);
  }
  void commit() {
    const int rc = mdb_txn_commit(txn_);
    txn_ = nullptr;
    check(rc, "mdb_txn_commit");
  }

 private:
  std::optional<std::string_view> cursor_key(std::string_view key, MDB_cursor_op op) const {
    MDB_cursor* c = nullptr;
    check(mdb_cursor_open(txn_, dbi_, &c), "mdb_cursor_open");
    MDB_val k = val(key), v{};
    const int rc = mdb_cursor_get(c, &k, &v, op);
    mdb_cursor_close(c);
    if (rc == MDB_NOTFOUND) return std::nullopt;
    check(rc, "mdb_cursor_get");
    return view(k);
  }

  MDB_txn* txn_ = nullptr;
  MDB_dbi dbi_ = 0;
};

}  // namespace fl_bench::lmdb

#endif  // FL_BENCH_HAVE_LMDB
