// bench/sqlite_peer.hpp: SQLite (Debian libsqlite3-dev) as a peer of the json/
// rows: a connection and a prepared statement as RAII objects that throw on
// every error, so a failing peer stops its row instead of timing an error
// path. Compiled only with FL_BENCH_HAVE_SQLITE (bench/CMakeLists.txt finds
// the library; without it the sqlite and sqlite_json rows are absent and the
// report lists them among the missing peers).
//
// Every database is opened the way a user who wants json_store's guarantee
// would configure it: journal_mode=WAL and synchronous=FULL, so a commit
// returns once its frames are in the write-ahead log and the log is fsynced,
// and a crash (power loss included) keeps every commit that returned. The
// WAL is checkpointed into the database file by SQLite itself every 1,000
// pages (its default), inside whichever commit crosses that mark; rows that
// commit many times pay that share as a user would.
//
// Statements are prepared once per row with SQLITE_PREPARE_PERSISTENT and
// reset after each use, as a competent user reuses them; binding and
// stepping are the only per-call work.
//
// Threads: one connection per row, used from the benchmark thread only.
#pragma once

#if defined(FL_BENCH_HAVE_SQLITE)

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace fl_bench::sqlite {

// Throws unless rc is one of the codes a successful call returns.
inline void check(int rc, sqlite3* db, const char* what) {
  if (rc == SQLITE_OK || rc == SQLITE_ROW || rc == SQLITE_DONE) return;
  throw std::runtime_error(std::string("sqlite: ") + what + ": " +
                           (db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc)));
}

// An open connection to the database file `file` (created when missing), in
// WAL mode with synchronous=FULL. A connection that only reads skips both
// pragmas (use::read): WAL mode is kept in the file, and synchronous only
// matters to commits.
class db {
 public:
  enum class use { write, read };

  explicit db(const std::filesystem::path& file, use u = use::write) {
    const int rc = sqlite3_open_v2(file.c_str(), &db_,
                                   SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
    if (rc != SQLITE_OK) {
      const std::string msg = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
      sqlite3_close_v2(db_);
      throw std::runtime_error("sqlite: open " + file.string() + ": " + msg);
    }
    if (u == use::write) {
      exec("PRAGMA journal_mode=WAL");
      exec("PRAGMA synchronous=FULL");
    }
  }
  db(const db&) = delete;
  db& operator=(const db&) = delete;
  ~db() { sqlite3_close_v2(db_); }

  sqlite3* get() const noexcept { return db_; }

  // Runs `sql` (one or more statements, results ignored).
  void exec(const char* sql) {
    char* err = nullptr;
    const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &err);
    if (rc != SQLITE_OK) {
      const std::string msg = err != nullptr ? err : sqlite3_errstr(rc);
      sqlite3_free(err);
      throw std::runtime_error(std::string("sqlite: ") + sql + ": " + msg);
    }
  }

 private:
  sqlite3* db_ = nullptr;
};

// A prepared statement. bind() the parameters (1-based, as SQLite numbers
// them), then run() it (no result) or step() through its rows; reset()
// makes it ready for the next call with new bindings.
class stmt {
 public:
  stmt(const db& d, std::string_view sql) : db_(d.get()) {
    check(sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                             SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr),
          db_, "prepare");
  }
  stmt(const stmt&) = delete;
  stmt& operator=(const stmt&) = delete;
  ~stmt() { sqlite3_finalize(stmt_); }

  // The text is bound without a copy (SQLITE_STATIC): it must stay alive
  // until the statement is reset, which every caller here does right after
  // the call.
  stmt& bind(int i, std::string_view text) {
    check(sqlite3_bind_text(stmt_, i, text.data(), static_cast<int>(text.size()),
                            SQLITE_STATIC),
          db_, "bind_text");
    return *this;
  }
  stmt& bind(int i, std::int64_t v) {
    check(sqlite3_bind_int64(stmt_, i, v), db_, "bind_int64");
    return *this;
  }
  // True while a row is there to read.
  bool step() {
    const int rc = sqlite3_step(stmt_);
    check(rc, db_, "step");
    return rc == SQLITE_ROW;
  }
  // Steps to the end and resets: one call of a statement without results.
  void run() {
    while (step()) {
    }
    reset();
  }
  void reset() { sqlite3_reset(stmt_); }
  // Column `i` (0-based) of the current row as text, valid until the next
  // step() or reset().
  std::string_view text(int i) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, i));
    return {p != nullptr ? p : "", static_cast<std::size_t>(sqlite3_column_bytes(stmt_, i))};
  }
  std::int64_t int64(int i) const { return sqlite3_column_int64(stmt_, i); }

 private:
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace fl_bench::sqlite

#endif  // FL_BENCH_HAVE_SQLITE
