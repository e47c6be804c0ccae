// bench/json_scale_bench.cpp: section json/, cases scale/<op>/<n> and
// scale/<op>_durable/<n>: one edit (or lookup) in a container of n children,
// for fl::json_store and the stores a user would otherwise pick, at sizes
// from a thousand to ten million (issue 36).
//
// The document, generated per size (no randomness in it):
//   {"obj":{"m00000000":0,"m00000001":1,...},"arr":[0,1,...]}
// an object of n members (key "m" + 8 decimal digits, value its index) and an
// array of n numbers.
//
// Ops (one call each, the call a user writes):
//   add_member    a member that is not there, keyed right after a random
//                 existing key ("m00004711_n"), so sorted peers insert at a
//                 random place, not always at one end
//   append        a number at the array's end
//   insert_front  a number before the array's first element
//   set           a random existing member gets a new number
//   erase         a random existing member is removed
//   find          a random existing member is looked up and its number read
//                 (edit form only: a lookup commits nothing)
// Forms:
//   scale/<op>/<n>/<lib>          the edit alone: the change is made in the
//                                 library's working state (fl: set() without
//                                 sync(); SQLite and LMDB: the statement or
//                                 put inside a transaction opened before it);
//                                 the commit is not timed
//   scale/<op>_durable/<n>/<lib>  the edit and its durable commit: after it
//                                 returns, a power cut keeps the edit
// The size stays n: after each timed edit, untimed, the edit is undone (the
// added member or element erased, the erased member put back), so every
// iteration edits the same-sized container; set changes a value and needs no
// undo; find changes nothing. Each iteration times its call with the clock
// (UseManualTime, rows named .../manual_time; find rows .../real_time).
// In the edit form, edits and undos are committed (untimed) every 1,024 edits
// or 5 ms of timed work, whichever comes first, so most timed edits are not
// the first after a commit; an edit that takes 5 ms or more (fl's container
// edits at 100k and above) is committed after each, and is always the first.
// In the durable form the undo is committed too, untimed, before the next
// edit. find runs outside any transaction: SQLite's SELECT takes a read
// transaction of its own (autocommit), LMDB's a renewed read transaction.
//
// Libraries:
//   fl           fl::json_store: the pointer API (set, insert, erase, find);
//                durable: + sync()
//   sqlite       SQLite rows (bench/sqlite_peer.hpp: WAL, synchronous=FULL):
//                obj(k TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID, one row per
//                member (WITHOUT ROWID: one B-tree keyed by k, where a rowid
//                table with a text key keeps a table and an index); arr(pos
//                INTEGER PRIMARY KEY, v TEXT), one row per element, in the
//                order of pos. Positions need only be ordered, not dense:
//                an append takes max(pos)+1, an insert at the front
//                min(pos)-1 (both one descent of the rowid B-tree; pos may
//                go negative). An insert between two elements would take a
//                position between theirs (a REAL midpoint, or a renumbering
//                when none is left); these rows insert only at the ends.
//                v holds the value's JSON text. Durable: the statement
//                alone, in autocommit (one transaction, one WAL fsync).
//   sqlite_json  SQLite, the whole document as one JSON text column of one
//                row, edited with json_insert / json_set / json_remove and
//                read with json_extract; an insert at the array's front has
//                no JSON path in SQLite, so it is written as a user would:
//                the array rebuilt with json_group_array over json_each.
//   nlohmann     nlohmann::json in memory (std::map objects: keys sorted,
//                member order not kept, which favours it); durable: the whole
//                document dumped and written to a temporary file, fsync,
//                rename over the old file, fsync of the directory
//                (json_data::write_durably, the same crash guarantee).
//   lmdb         LMDB (bench/lmdb_peer.hpp, default durability), a key per
//                member ("o" + key) and per element ("z" + 8-byte big-endian
//                position, ordered as SQLite's pos); durable: the put in its
//                own write transaction, committed. find reuses one read
//                transaction (reset and renewed per lookup, as LMDB advises).
//
// Counter cpu_us (edit rows): the process's CPU time per timed call, in
// microseconds; the wall time of a durable row is mostly the disk's, and on
// a shared disk this is the steadier figure.
// Counter bytes_written (durable rows): per commit, the growth of the
// process's write_bytes in /proc/self/io across the timed edit and commit:
// the bytes of page cache the process made dirty, counted by the kernel per
// 4 KiB page when a clean page becomes dirty, through write() or a store
// into a shared mapping alike (so fl's mapped pages and the peers' write()
// calls are counted by one rule). It is what the commit asks the disk to
// write, at page granularity; it leaves out the file system's journal and
// SQLite's checkpoints that fall in the untimed undo, and includes those that
// fall in the timed commit.
//
// Sizes: 1k and 100k by default (about 4 minutes of `make bench` at 5
// repetitions on a loaded 2-vCPU machine; FL_BENCH_SCALE_MAX=1k keeps only
// 1k); 1m and 10m when FL_BENCH_SCALE_MAX is 1m or 10m, since building a
// million-member document for every peer and editing it in fl today (an edit
// copies its whole container) take minutes, more than `make bench` allows.
// For example:
//   FL_BENCH_SCALE_MAX=1m build-bench/bench/fl_bench --benchmark_filter='json/scale/'
// (with --benchmark_repetitions=3 this took about 7 minutes on the 2-vCPU
// machine of docs/performance.md; 10m without sqlite_json, one repetition,
// another 7, with 5 GB resident).
// Rows are registered size by size, so one size's documents are built once
// (in a scratch directory under $TMPDIR or /tmp, removed at exit), used by
// every row of that size, and freed before the next size's are built.
// Beside the durable add_member rows, fdatasync: the disk's floor for any
// durable commit (bench/flush_floor.hpp), no store, for reference.
// "Faster" is less time per call.
#if defined(FL_BENCH_HAVE_JSON)

#include "common.hpp"
#include "flush_floor.hpp"
#include "json_data.hpp"
#include "lmdb_peer.hpp"
#include "sqlite_peer.hpp"

#include <fl/json_store.hpp>

#include <nlohmann/json.hpp>

#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

// ---- sizes ----

struct scale_size {
  const char* name;
  std::size_t n;
};
constexpr scale_size all_sizes[] = {
    {"1k", 1'000}, {"100k", 100'000}, {"1m", 1'000'000}, {"10m", 10'000'000}};
// The largest size `make bench` runs without FL_BENCH_SCALE_MAX.
constexpr std::size_t default_max = 100'000;

// The largest n to register: FL_BENCH_SCALE_MAX when it names a size above,
// else default_max (an unknown name is reported on stderr, not guessed at).
std::size_t scale_max() {
  const char* e = std::getenv("FL_BENCH_SCALE_MAX");
  if (e == nullptr || *e == '\0') return default_max;
  for (const auto& s : all_sizes)
    if (std::string_view(e) == s.name) return s.n;
  std::fprintf(stderr, "fl_bench: FL_BENCH_SCALE_MAX=%s is not one of 1k 100k 1m 10m; using 100k\n",
               e);
  return default_max;
}

// ---- the document ----

// Member i's key: "m" and i in 8 digits, so keys sort as their indexes do.
std::string member_key(std::size_t i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "m%08zu", i);
  return buf;
}

std::string document_text(std::size_t n) {
  std::string t;
  t.reserve(n * 26 + 32);
  t += "{\"obj\":{";
  char num[24];
  for (std::size_t i = 0; i < n; ++i) {
    if (i) t += ',';
    t += '"';
    t += member_key(i);
    t += "\":";
    t.append(num, std::to_chars(num, num + sizeof num, i).ptr);
  }
  t += "},\"arr\":[";
  for (std::size_t i = 0; i < n; ++i) {
    if (i) t += ',';
    t.append(num, std::to_chars(num, num + sizeof num, i).ptr);
  }
  t += "]}";
  return t;
}

// ---- ops ----

enum class op { add_member, append, insert_front, set, erase, find };

const char* op_name(op o) {
  switch (o) {
    case op::add_member: return "add_member";
    case op::append: return "append";
    case op::insert_front: return "insert_front";
    case op::set: return "set";
    case op::erase: return "erase";
    case op::find: return "find";
  }
  return "?";
}

// The members one row works on: `ring` random indexes below n, taken in
// turn, seeded by the row's name (the same for every library of a case).
constexpr std::size_t ring = 1024;

std::vector<std::size_t> picks(const std::string& label, std::size_t n) {
  fl_bench::rng r(fl_bench::salt(label));
  std::vector<std::size_t> idx(ring);
  for (auto& i : idx) i = static_cast<std::size_t>(r.below(n));
  return idx;
}

// The key of the member add_member puts right after member i.
std::string added_key(std::size_t i) { return member_key(i) + "_n"; }

// The process's write_bytes (/proc/self/io, above); nullopt where the
// kernel does not keep it (no /proc, or task I/O accounting compiled out).
std::optional<std::uint64_t> write_bytes() {
  const int fd = ::open("/proc/self/io", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  char buf[512];
  const ssize_t got = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (got <= 0) return std::nullopt;
  buf[got] = '\0';
  const char* p = std::strstr(buf, "\nwrite_bytes: ");
  if (p == nullptr) return std::nullopt;
  return std::strtoull(p + 14, nullptr, 10);
}

// ---- the peers ----
//
// Each peer is built from the document once per size (its constructor: the
// setup, never timed) and then serves every row of that size:
//   prepare(idx)   the row's member indexes, turned into the peer's own keys
//                  or pointers before the timed loop
//   edit(o, k, v)  op `o` on slot k of the ring, with the number v where it
//                  writes one: the timed call
//   undo(o, k)     puts the size back after edit(o, k, v)
//   find(k)        the number of member k
//   begin()/end()  the edit form's batch: end() commits edit and undo
//                  together (fl must sync to reuse the space an edit frees;
//                  SQLite and LMDB end their transaction)
//   commit()       the durable form's commit, after an edit or undo made
//                  outside a batch

class fl_peer {
 public:
  static constexpr const char* name = "fl";

  fl_peer(const fs::path& dir, std::size_t n, const std::string& text)
      : store_(fl::json_store::import(text, dir / "doc.fljson")),
        last_("/arr/" + std::to_string(n)) {
    store_.sync();
  }

  void prepare(const std::vector<std::size_t>& idx) {
    idx_ = idx;
    at_.clear();
    added_.clear();
    for (std::size_t i : idx) {
      at_.push_back("/obj/" + member_key(i));
      added_.push_back("/obj/" + added_key(i));
    }
  }

  void edit(op o, std::size_t k, std::uint64_t v) {
    const std::string text = std::to_string(v);
    switch (o) {
      case op::add_member: store_.set(added_[k], text); break;
      case op::append: store_.set("/arr/-", text); break;
      case op::insert_front: store_.insert("/arr/0", text); break;
      case op::set: store_.set(at_[k], text); break;
      case op::erase: benchmark::DoNotOptimize(store_.erase(at_[k])); break;
      case op::find: break;
    }
  }

  void undo(op o, std::size_t k) {
    switch (o) {
      case op::add_member: store_.erase(added_[k]); break;
      case op::append: store_.erase(last_); break;
      case op::insert_front: store_.erase("/arr/0"); break;
      case op::erase: store_.set(at_[k], std::to_string(idx_[k])); break;
      case op::set:
      case op::find: break;
    }
  }

  std::int64_t find(std::size_t k) const {
    const auto v = store_.find(at_[k]);
    if (!v) throw std::runtime_error("json/scale: fl: member not found");
    return v->as_int64();
  }

  void begin() {}
  void end() { store_.sync(); }
  void commit() { store_.sync(); }

 private:
  fl::json_store store_;
  std::string last_;  // the appended element's pointer: index n
  std::vector<std::size_t> idx_;
  std::vector<std::string> at_, added_;
};

class nlohmann_peer {
 public:
  static constexpr const char* name = "nlohmann";

  nlohmann_peer(const fs::path& dir, std::size_t, const std::string& text)
      : doc_(nlohmann::json::parse(text)), file_(dir / "doc.json") {
    fl_bench::json_data::write_durably(file_, text);
  }

  void prepare(const std::vector<std::size_t>& idx) {
    idx_ = idx;
    at_.clear();
    added_.clear();
    for (std::size_t i : idx) {
      at_.push_back(member_key(i));
      added_.push_back(added_key(i));
    }
  }

  void edit(op o, std::size_t k, std::uint64_t v) {
    switch (o) {
      case op::add_member: doc_["obj"][added_[k]] = v; break;
      case op::append: doc_["arr"].push_back(v); break;
      case op::insert_front: {
        auto& a = doc_["arr"];
        a.insert(a.begin(), v);
        break;
      }
      case op::set: doc_["obj"].at(at_[k]) = v; break;
      case op::erase: benchmark::DoNotOptimize(doc_["obj"].erase(at_[k])); break;
      case op::find: break;
    }
  }

  void undo(op o, std::size_t k) {
    switch (o) {
      case op::add_member: doc_["obj"].erase(added_[k]); break;
      case op::append: doc_["arr"].erase(doc_["arr"].size() - 1); break;
      case op::insert_front: doc_["arr"].erase(0); break;
      case op::erase: doc_["obj"][at_[k]] = idx_[k]; break;
      case op::set:
      case op::find: break;
    }
  }

  std::int64_t find(std::size_t k) const {
    const auto& obj = doc_["obj"];
    const auto it = obj.find(at_[k]);
    if (it == obj.end()) throw std::runtime_error("json/scale: nlohmann: member not found");
    return it->get<std::int64_t>();
  }

  void begin() {}
  void end() {}
  void commit() { fl_bench::json_data::write_durably(file_, doc_.dump()); }

 private:
  nlohmann::json doc_;
  fs::path file_;
  std::vector<std::size_t> idx_;
  std::vector<std::string> at_, added_;
};

#if defined(FL_BENCH_HAVE_SQLITE)
namespace sq = fl_bench::sqlite;

// Holds a file's database open and ends the batch transaction it may be in.
// The schema is created here, before the derived peer's statements (its
// members) are prepared against it.
class sqlite_base {
 protected:
  sqlite_base(const fs::path& file, const char* schema) : db_(file) { db_.exec(schema); }

  // After a bulk load: the WAL emptied into the database file, so the timed
  // commits start from an empty log.
  void checkpoint() { db_.exec("PRAGMA wal_checkpoint(TRUNCATE)"); }

 public:
  void begin() {
    db_.exec("BEGIN");
    in_batch_ = true;
  }
  void end() {
    db_.exec("COMMIT");
    in_batch_ = false;
  }
  // Outside a batch every statement committed itself (autocommit).
  void commit() {}

 protected:
  sq::db db_;
  bool in_batch_ = false;
};

class sqlite_rows_peer : public sqlite_base {
 public:
  static constexpr const char* name = "sqlite";

  sqlite_rows_peer(const fs::path& dir, std::size_t n, const std::string&)
      : sqlite_base(dir / "rows.sqlite",
                    "CREATE TABLE obj(k TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID;"
                    "CREATE TABLE arr(pos INTEGER PRIMARY KEY, v TEXT)") {
    // The same document as the text the others import: members then
    // elements, each row's v the value's JSON text.
    db_.exec("BEGIN");
    {
      sq::stmt put_member(db_, "INSERT INTO obj(k, v) VALUES(?1, ?2)");
      sq::stmt put_element(db_, "INSERT INTO arr(pos, v) VALUES(?1, ?2)");
      for (std::size_t i = 0; i < n; ++i) {
        const std::string key = member_key(i), v = std::to_string(i);
        put_member.bind(1, key).bind(2, v).run();
        put_element.bind(1, static_cast<std::int64_t>(i)).bind(2, v).run();
      }
    }
    db_.exec("COMMIT");
    checkpoint();
  }

  void prepare(const std::vector<std::size_t>& idx) {
    idx_ = idx;
    at_.clear();
    added_.clear();
    for (std::size_t i : idx) {
      at_.push_back(member_key(i));
      added_.push_back(added_key(i));
    }
  }

  void edit(op o, std::size_t k, std::uint64_t v) {
    const std::string text = std::to_string(v);
    switch (o) {
      case op::add_member: insert_member_.bind(1, added_[k]).bind(2, text).run(); break;
      case op::append: push_back_.bind(1, text).run(); break;
      case op::insert_front: push_front_.bind(1, text).run(); break;
      case op::set: update_member_.bind(1, at_[k]).bind(2, text).run(); break;
      case op::erase: delete_member_.bind(1, at_[k]).run(); break;
      case op::find: break;
    }
  }

  void undo(op o, std::size_t k) {
    switch (o) {
      case op::add_member: delete_member_.bind(1, added_[k]).run(); break;
      case op::append: pop_back_.run(); break;
      case op::insert_front: pop_front_.run(); break;
      case op::erase: {
        const std::string text = std::to_string(idx_[k]);
        insert_member_.bind(1, at_[k]).bind(2, text).run();
        break;
      }
      case op::set:
      case op::find: break;
    }
  }

  std::int64_t find(std::size_t k) {
    find_member_.bind(1, at_[k]);
    if (!find_member_.step()) throw std::runtime_error("json/scale: sqlite: member not found");
    const std::string_view text = find_member_.text(0);
    std::int64_t v = 0;
    std::from_chars(text.data(), text.data() + text.size(), v);
    find_member_.reset();
    return v;
  }

 private:
  std::vector<std::size_t> idx_;
  std::vector<std::string> at_, added_;
  sq::stmt insert_member_{db_, "INSERT INTO obj(k, v) VALUES(?1, ?2)"};
  sq::stmt update_member_{db_, "UPDATE obj SET v = ?2 WHERE k = ?1"};
  sq::stmt delete_member_{db_, "DELETE FROM obj WHERE k = ?1"};
  sq::stmt find_member_{db_, "SELECT v FROM obj WHERE k = ?1"};
  sq::stmt push_back_{db_, "INSERT INTO arr(pos, v) SELECT ifnull(max(pos), -1) + 1, ?1 FROM arr"};
  sq::stmt push_front_{db_, "INSERT INTO arr(pos, v) SELECT ifnull(min(pos), 1) - 1, ?1 FROM arr"};
  sq::stmt pop_back_{db_, "DELETE FROM arr WHERE pos = (SELECT max(pos) FROM arr)"};
  sq::stmt pop_front_{db_, "DELETE FROM arr WHERE pos = (SELECT min(pos) FROM arr)"};
};

class sqlite_json_peer : public sqlite_base {
 public:
  static constexpr const char* name = "sqlite_json";

  sqlite_json_peer(const fs::path& dir, std::size_t, const std::string& text)
      : sqlite_base(dir / "json.sqlite", "CREATE TABLE doc(id INTEGER PRIMARY KEY, body TEXT)") {
    sq::stmt put(db_, "INSERT INTO doc(id, body) VALUES(1, ?1)");
    put.bind(1, text).run();
    checkpoint();
  }

  void prepare(const std::vector<std::size_t>& idx) {
    idx_ = idx;
    at_.clear();
    added_.clear();
    for (std::size_t i : idx) {
      at_.push_back("$.obj." + member_key(i));
      added_.push_back("$.obj." + added_key(i));
    }
  }

  void edit(op o, std::size_t k, std::uint64_t v) {
    const auto num = static_cast<std::int64_t>(v);
    switch (o) {
      case op::add_member: insert_.bind(1, added_[k]).bind(2, num).run(); break;
      case op::append: push_back_.bind(1, num).run(); break;
      case op::insert_front: push_front_.bind(1, num).run(); break;
      case op::set: set_.bind(1, at_[k]).bind(2, num).run(); break;
      case op::erase: remove_.bind(1, at_[k]).run(); break;
      case op::find: break;
    }
  }

  void undo(op o, std::size_t k) {
    switch (o) {
      case op::add_member: remove_.bind(1, added_[k]).run(); break;
      case op::append: remove_.bind(1, "$.arr[#-1]").run(); break;
      case op::insert_front: remove_.bind(1, "$.arr[0]").run(); break;
      case op::erase:
        insert_.bind(1, at_[k]).bind(2, static_cast<std::int64_t>(idx_[k])).run();
        break;
      case op::set:
      case op::find: break;
    }
  }

  std::int64_t find(std::size_t k) {
    extract_.bind(1, at_[k]);
    if (!extract_.step()) throw std::runtime_error("json/scale: sqlite_json: no document row");
    const std::int64_t v = extract_.int64(0);
    extract_.reset();
    return v;
  }

 private:
  std::vector<std::size_t> idx_;
  std::vector<std::string> at_, added_;
  sq::stmt insert_{db_, "UPDATE doc SET body = json_insert(body, ?1, ?2) WHERE id = 1"};
  sq::stmt set_{db_, "UPDATE doc SET body = json_set(body, ?1, ?2) WHERE id = 1"};
  sq::stmt remove_{db_, "UPDATE doc SET body = json_remove(body, ?1) WHERE id = 1"};
  sq::stmt push_back_{db_, "UPDATE doc SET body = json_insert(body, '$.arr[#]', ?1) WHERE id = 1"};
  // SQLite's JSON paths address an insert only at the end ([#]); the front
  // takes the array rebuilt from json_each with the new value ordered first.
  sq::stmt push_front_{db_,
                       "UPDATE doc SET body = json_set(body, '$.arr', "
                       "(SELECT json_group_array(v) FROM "
                       "(SELECT ?1 AS v, -1 AS o UNION ALL "
                       "SELECT value, key FROM json_each(doc.body, '$.arr') ORDER BY o))) "
                       "WHERE id = 1"};
  sq::stmt extract_{db_, "SELECT json_extract(body, ?1) FROM doc WHERE id = 1"};
};
#endif  // FL_BENCH_HAVE_SQLITE

#if defined(FL_BENCH_HAVE_LMDB)
class lmdb_scale_peer {
 public:
  static constexpr const char* name = "lmdb";

  lmdb_scale_peer(const fs::path& dir, std::size_t n, const std::string&)
      // Room for the keys, values and B-tree pages of n members and n
      // elements (about 100 bytes each with page slack) with headroom for
      // the copies a write transaction makes.
      : env_(dir / "doc.mdb", (std::size_t{64} << 20) + n * 256) {
    fl_bench::lmdb::txn t(env_, 0);
    // Both key ranges arrive in ascending order ("o..." below "z..."), so
    // MDB_APPEND loads them without a descent per key.
    for (std::size_t i = 0; i < n; ++i) t.put("o" + member_key(i), std::to_string(i), MDB_APPEND);
    for (std::size_t i = 0; i < n; ++i)
      t.put(element_key(static_cast<std::int64_t>(i)), std::to_string(i), MDB_APPEND);
    t.commit();
  }

  void prepare(const std::vector<std::size_t>& idx) {
    idx_ = idx;
    at_.clear();
    added_.clear();
    for (std::size_t i : idx) {
      at_.push_back("o" + member_key(i));
      added_.push_back("o" + added_key(i));
    }
  }

  void edit(op o, std::size_t k, std::uint64_t v) {
    in_txn([&](fl_bench::lmdb::txn& t) {
      const std::string text = std::to_string(v);
      switch (o) {
        case op::add_member: t.put(added_[k], text); break;
        case op::append: t.put(element_key(end_position(t, false) + 1), text); break;
        case op::insert_front: t.put(element_key(end_position(t, true) - 1), text); break;
        case op::set: t.put(at_[k], text); break;
        case op::erase: benchmark::DoNotOptimize(t.del(at_[k])); break;
        case op::find: break;
      }
    });
  }

  void undo(op o, std::size_t k) {
    in_txn([&](fl_bench::lmdb::txn& t) {
      switch (o) {
        case op::add_member: t.del(added_[k]); break;
        case op::append: t.del(element_key(end_position(t, false))); break;
        case op::insert_front: t.del(element_key(end_position(t, true))); break;
        case op::erase: t.put(at_[k], std::to_string(idx_[k])); break;
        case op::set:
        case op::find: break;
      }
    });
  }

  std::int64_t find(std::size_t k) {
    if (!reader_) {
      reader_.emplace(env_, MDB_RDONLY);
    } else {
      reader_->renew();
    }
    const std::string_view text = reader_->get(at_[k]);
    std::int64_t v = 0;
    std::from_chars(text.data(), text.data() + text.size(), v);
    reader_->reset();
    return v;
  }

  void begin() { batch_.emplace(env_, 0); }
  void end() {
    batch_->commit();
    batch_.reset();
  }
  // Outside a batch every edit committed its own transaction.
  void commit() {}

 private:
  // Element keys: "z" and the position plus 2^63 in big-endian order, so
  // keys sort as signed positions do and positions below 0 (inserts at the
  // front) stay below the others.
  static std::string element_key(std::int64_t pos) {
    const std::uint64_t u = static_cast<std::uint64_t>(pos) ^ (std::uint64_t{1} << 63);
    std::string k(9, 'z');
    for (int b = 0; b < 8; ++b) k[1 + b] = static_cast<char>(u >> (56 - 8 * b));
    return k;
  }
  static std::int64_t position(std::string_view key) {
    std::uint64_t u = 0;
    for (int b = 0; b < 8; ++b) u = u << 8 | static_cast<unsigned char>(key[1 + b]);
    return static_cast<std::int64_t>(u ^ (std::uint64_t{1} << 63));
  }
  // The first or last element's position: element keys are the greatest of
  // the database ("z" after every "o" key).
  static std::int64_t end_position(const fl_bench::lmdb::txn& t, bool first) {
    const auto key = first ? t.first_key_from("z") : t.last_key();
    if (!key || key->size() != 9 || key->front() != 'z')
      throw std::runtime_error("json/scale: lmdb: the array is empty");
    return position(*key);
  }

  // Runs fn in the batch's transaction when one is open, else in a
  // transaction of its own, committed (durable) before returning.
  template <class Fn>
  void in_txn(const Fn& fn) {
    if (batch_) {
      fn(*batch_);
      return;
    }
    fl_bench::lmdb::txn t(env_, 0);
    fn(t);
    t.commit();
  }

  fl_bench::lmdb::env env_;
  std::optional<fl_bench::lmdb::txn> batch_;
  std::optional<fl_bench::lmdb::txn> reader_;
  std::vector<std::size_t> idx_;
  std::vector<std::string> at_, added_;
};
#endif  // FL_BENCH_HAVE_LMDB

// ---- one size's documents ----

const fs::path& scratch() {
  static const fl_bench::scratch_dir dir("fl_json_scale");
  return dir.path();
}

// The peers of one size, each built on first use in a directory of its own
// and kept for every later row of that size.
class size_fixture {
 public:
  explicit size_fixture(std::size_t n) : n_(n), dir_(scratch() / ("n" + std::to_string(n))) {
    fs::create_directories(dir_);
  }
  size_fixture(const size_fixture&) = delete;
  size_fixture& operator=(const size_fixture&) = delete;
  ~size_fixture() {
    peers_.clear();  // closes every store before its files go
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  std::size_t n() const noexcept { return n_; }

  template <class Peer>
  Peer& get() {
    auto& slot = peers_[Peer::name];
    if (!slot) {
      if (text_.empty()) text_ = document_text(n_);
      const fs::path dir = dir_ / Peer::name;
      fs::create_directories(dir);
      slot = std::make_shared<Peer>(dir, n_, text_);
    }
    return *static_cast<Peer*>(slot.get());
  }

 private:
  std::size_t n_;
  fs::path dir_;
  std::string text_;
  std::map<std::string, std::shared_ptr<void>> peers_;
};

// The fixture of size n; the previous size's is destroyed first, so at most
// one size's documents are in memory and on disk.
size_fixture& fixture(std::size_t n) {
  static std::unique_ptr<size_fixture> current;
  if (!current || current->n() != n) {
    current.reset();
    current = std::make_unique<size_fixture>(n);
  }
  return *current;
}

// ---- the rows ----

// The edit form commits (untimed) once its batch holds this many edits or
// this much timed work: often enough that fl, whose edits copy their
// container, frees the copies, and seldom enough that the commits of the
// fast peers do not make up the row's wall time.
constexpr int batch_edits = 1024;
constexpr std::chrono::microseconds batch_work{5000};

using timer = std::chrono::steady_clock;

double seconds(timer::duration d) { return std::chrono::duration<double>(d).count(); }

// The process's CPU time in seconds (every thread: the kernel's work in
// msync/fsync on the caller's behalf included, the wait for the disk not).
double cpu_seconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Counter cpu_us: CPU microseconds per timed call. Google Benchmark's own CPU
// column of a manual-time row covers the whole iteration (undo and untimed
// commits too); this one covers the timed call only, and on a shared disk it
// is steadier than the wall time.
void set_cpu_counter(benchmark::State& st, double cpu_s) {
  st.counters["cpu_us"] = benchmark::Counter(cpu_s * 1e6, benchmark::Counter::kAvgIterations);
}

// The numbers the edits write, counted on across rows and repetitions: a
// repetition replays the same members in the same order, and were it to write
// the same numbers too, a set would store the value already there, which
// SQLite notices (it leaves a cell whose bytes are unchanged untouched, so
// its commit writes and flushes nothing).
std::uint64_t& values() {
  static std::uint64_t v = fl_bench::seed() % 1000;
  return v;
}

template <class Peer>
void bm_scale(benchmark::State& st, op o, bool durable, std::size_t n, std::string label) {
  Peer& p = fixture(n).template get<Peer>();
  p.prepare(picks(label, n));
  std::uint64_t& v = values();
  std::size_t k = 0;

  if (o == op::find) {
    for (auto _ : st) {
      benchmark::DoNotOptimize(p.find(k));
      k = (k + 1) % ring;
    }
    return;
  }

  // Each iteration times its one call with the clock (UseManualTime): the
  // undo and commits around it are left out without Google Benchmark's
  // PauseTiming, whose own timer reads would land in the sub-microsecond rows.
  if (!durable) {
    int edits = 0;
    timer::duration work{};
    double cpu = 0;
    p.begin();
    for (auto _ : st) {
      const double c0 = cpu_seconds();
      const auto t0 = timer::now();
      p.edit(o, k, ++v);
      const auto t1 = timer::now();
      cpu += cpu_seconds() - c0;
      st.SetIterationTime(seconds(t1 - t0));
      p.undo(o, k);
      k = (k + 1) % ring;
      work += t1 - t0;
      if (++edits == batch_edits || work >= batch_work) {
        p.end();
        p.begin();
        edits = 0;
        work = {};
      }
    }
    p.end();
    set_cpu_counter(st, cpu);
    return;
  }

  std::uint64_t written = 0;
  bool counted = true;
  double cpu = 0;
  for (auto _ : st) {
    const auto before = write_bytes();
    const double c0 = cpu_seconds();
    const auto t0 = timer::now();
    p.edit(o, k, ++v);
    p.commit();
    const auto t1 = timer::now();
    cpu += cpu_seconds() - c0;
    const auto after = write_bytes();
    st.SetIterationTime(seconds(t1 - t0));
    if (before && after)
      written += *after - *before;
    else
      counted = false;
    p.undo(o, k);
    p.commit();
    k = (k + 1) % ring;
  }
  set_cpu_counter(st, cpu);
  if (counted)
    st.counters["bytes_written"] =
        benchmark::Counter(static_cast<double>(written), benchmark::Counter::kAvgIterations);
}

// The disk's floor beside the durable add_member rows: 4 KiB overwritten and
// fdatasynced (bench/flush_floor.hpp), no store; a durable commit's time over
// this says how many flushes and how much writing it needs beyond one.
void bm_scale_floor(benchmark::State& st) {
  fl_bench::run_flush_floor(st, scratch() / "floor");
}

template <class Peer>
void reg_peer(const std::string& cs, op o, bool durable, std::size_t n) {
  // The picks are seeded by the case, so every library edits the same members.
  auto* b = fl_bench::reg("json/scale/" + cs + "/" + Peer::name, bm_scale<Peer>, o, durable, n,
                          "json/scale/" + cs);
  if (o == op::find)
    b->UseRealTime();
  else
    b->UseManualTime();
}

const bool registered = [] {
  const std::size_t max = scale_max();
  std::string sizes;
  for (const auto& s : all_sizes) {
    if (s.n > max) break;
    sizes += sizes.empty() ? s.name : std::string(" ") + s.name;
    for (op o : {op::add_member, op::append, op::insert_front, op::set, op::erase, op::find}) {
      for (bool durable : {false, true}) {
        if (o == op::find && durable) continue;
        const std::string cs =
            std::string(op_name(o)) + (durable ? "_durable/" : "/") + s.name;
        reg_peer<fl_peer>(cs, o, durable, s.n);
#if defined(FL_BENCH_HAVE_SQLITE)
        reg_peer<sqlite_rows_peer>(cs, o, durable, s.n);
        reg_peer<sqlite_json_peer>(cs, o, durable, s.n);
#endif
        reg_peer<nlohmann_peer>(cs, o, durable, s.n);
#if defined(FL_BENCH_HAVE_LMDB)
        reg_peer<lmdb_scale_peer>(cs, o, durable, s.n);
#endif
        if (o == op::add_member && durable)
          fl_bench::reg("json/scale/" + cs + "/fdatasync", bm_scale_floor)->UseRealTime();
      }
    }
  }
  benchmark::AddCustomContext(
      "json/scale sizes",
      sizes + (max < all_sizes[std::size(all_sizes) - 1].n
                   ? " (FL_BENCH_SCALE_MAX=1m or 10m adds the larger sizes)"
                   : ""));
  return true;
}();

}  // namespace

#endif  // FL_BENCH_HAVE_JSON
