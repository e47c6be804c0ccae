// bench/json_scale_peers.hpp: what the json/scale rows (json_scale_bench.cpp)
// run: the sizes, the document of n members and n numbers each library
// holds, the ops, and one peer class per library (fl, nlohmann, SQLite as
// rows and as one JSON column, LMDB), each doing exactly the calls a user of
// that library writes for an op and for its durable commit. Included by
// json_scale_bench.cpp only, after the headers of the peers it can build.
#pragma once

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

namespace fl_bench::scale {

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
inline std::size_t scale_max() {
  const char* e = std::getenv("FL_BENCH_SCALE_MAX");
  if (e == nullptr || *e == '\0') return default_max;
  for (const auto& s : all_sizes)
    if (std::string_view(e) == s.name) return s.n;
  std::fprintf(stderr, "fl_bench: FL_BENCH_SCALE_MAX=%s is not one of 1k 100k 1m 10m; using 100k\n",
               e);
  return default_max;
}

// ---- the document ----

// Member i's key: "m" and 2i in 8 digits, so keys sort as their indexes do
// and the odd numbers between them name members that are not there
// (added_key), of the same length.
inline std::string key_of_number(std::size_t k) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "m%08zu", k);
  return buf;
}
inline std::string member_key(std::size_t i) { return key_of_number(2 * i); }

inline std::string document_text(std::size_t n) {
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

enum class op { add_member, append, insert_front, set, erase, move, find };

inline const char* op_name(op o) {
  switch (o) {
    case op::add_member: return "add_member";
    case op::append: return "append";
    case op::insert_front: return "insert_front";
    case op::set: return "set";
    case op::erase: return "erase";
    case op::move: return "move";
    case op::find: return "find";
  }
  return "?";
}

// The members one row works on: `ring` random indexes below n, taken in
// turn, seeded by the row's name (the same for every library of a case).
constexpr std::size_t ring = 1024;

inline std::vector<std::size_t> picks(const std::string& label, std::size_t n) {
  fl_bench::rng r(fl_bench::salt(label));
  std::vector<std::size_t> idx(ring);
  for (auto& i : idx) i = static_cast<std::size_t>(r.below(n));
  return idx;
}

// The key of the member add_member puts right after member i: the odd
// number after member i's, so that it sorts between member i and member i+1
// in every peer's key order, and, being as long as every other key, lands at
// a random place in fl's key tree too, which orders keys by length before
// their hash (a longer key such as member_key(i) + "_n", which the rows used
// before, sorted after every existing key there: the adds of a row met one
// end of the tree, a few pages, where a user's new keys meet any of them).
inline std::string added_key(std::size_t i) { return key_of_number(2 * i + 1); }

// The process's I/O counters (/proc/self/io): `wchar`, the bytes it handed
// to write calls (write, pwrite, pwritev), and `write_bytes`, the page-cache
// bytes it dirtied; nullopt where the kernel does not keep them (no /proc,
// or task I/O accounting compiled out).
struct io_counts {
  std::uint64_t wchar = 0;
  std::uint64_t write_bytes = 0;
};
inline std::optional<io_counts> io_now() {
  const int fd = ::open("/proc/self/io", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  char buf[512];
  const ssize_t got = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (got <= 0) return std::nullopt;
  buf[got] = '\0';
  const char* w = std::strstr(buf, "wchar: ");
  const char* p = std::strstr(buf, "\nwrite_bytes: ");
  if (w == nullptr || p == nullptr) return std::nullopt;
  return io_counts{std::strtoull(w + 7, nullptr, 10), std::strtoull(p + 14, nullptr, 10)};
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

// The members an iteration's ops touch (`at_`, existing ones, by index
// into the picks) and add (`added_`), spelled as the peer names them: a
// prefix ("/obj/" for a JSON pointer, "$.obj." for a SQLite JSON path, "o"
// for an LMDB key) before the key. Every peer derives from it.
class picked_members {
 protected:
  void pick(const std::vector<std::size_t>& idx, const std::string& prefix) {
    idx_ = idx;
    at_.clear();
    added_.clear();
    for (std::size_t i : idx) {
      at_.push_back(prefix + member_key(i));
      added_.push_back(prefix + added_key(i));
    }
  }
  std::vector<std::size_t> idx_;
  std::vector<std::string> at_, added_;
};

class fl_peer : picked_members {
 public:
  static constexpr const char* name = "fl";

  fl_peer(const fs::path& dir, std::size_t n, const std::string& text)
      : store_(fl::json_store::import(text, dir / "doc.fljson")),
        last_("/arr/" + std::to_string(n)) {
    store_.sync();
  }

  void prepare(const std::vector<std::size_t>& idx) { pick(idx, "/obj/"); }

  void edit(op o, std::size_t k, std::uint64_t v) {
    const std::string text = std::to_string(v);
    switch (o) {
      case op::add_member: store_.set(added_[k], text); break;
      case op::append: store_.set("/arr/-", text); break;
      case op::insert_front: store_.insert("/arr/0", text); break;
      case op::set: store_.set(at_[k], text); break;
      case op::erase: benchmark::DoNotOptimize(store_.erase(at_[k])); break;
      case op::move: store_.move(at_[k], added_[k]); break;
      case op::find: break;
    }
  }

  void undo(op o, std::size_t k) {
    switch (o) {
      case op::add_member: store_.erase(added_[k]); break;
      case op::append: store_.erase(last_); break;
      case op::insert_front: store_.erase("/arr/0"); break;
      case op::erase: store_.set(at_[k], std::to_string(idx_[k])); break;
      case op::move: store_.move(added_[k], at_[k]); break;
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
  void end_durably() { store_.sync(); }

 private:
  fl::json_store store_;
  std::string last_;  // the appended element's pointer: index n
};

class nlohmann_peer : picked_members {
 public:
  static constexpr const char* name = "nlohmann";

  nlohmann_peer(const fs::path& dir, std::size_t, const std::string& text)
      : doc_(nlohmann::json::parse(text)), file_(dir / "doc.json") {
    fl_bench::json_data::write_durably(file_, text);
  }

  void prepare(const std::vector<std::size_t>& idx) { pick(idx, ""); }

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
      case op::move: rename(at_[k], added_[k]); break;
      case op::find: break;
    }
  }

  void undo(op o, std::size_t k) {
    switch (o) {
      case op::add_member: doc_["obj"].erase(added_[k]); break;
      case op::append: doc_["arr"].erase(doc_["arr"].size() - 1); break;
      case op::insert_front: doc_["arr"].erase(0); break;
      case op::erase: doc_["obj"][at_[k]] = idx_[k]; break;
      case op::move: rename(added_[k], at_[k]); break;
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
  void end_durably() { commit(); }

 private:
  void rename(const std::string& from, const std::string& to) {
    auto& obj = doc_["obj"];
    nlohmann::json v = std::move(obj.at(from));
    obj.erase(from);
    obj[to] = std::move(v);
  }

  nlohmann::json doc_;
  fs::path file_;
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
  void end_durably() { end(); }  // synchronous=FULL

 protected:
  sq::db db_;
  bool in_batch_ = false;
};

class sqlite_rows_peer : public sqlite_base, picked_members {
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

  void prepare(const std::vector<std::size_t>& idx) { pick(idx, ""); }

  void edit(op o, std::size_t k, std::uint64_t v) {
    const std::string text = std::to_string(v);
    switch (o) {
      case op::add_member: insert_member_.bind(1, added_[k]).bind(2, text).run(); break;
      case op::append: push_back_.bind(1, text).run(); break;
      case op::insert_front: push_front_.bind(1, text).run(); break;
      case op::set: update_member_.bind(1, at_[k]).bind(2, text).run(); break;
      case op::erase: delete_member_.bind(1, at_[k]).run(); break;
      case op::move: rename_member_.bind(1, at_[k]).bind(2, added_[k]).run(); break;
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
      case op::move: rename_member_.bind(1, added_[k]).bind(2, at_[k]).run(); break;
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
  sq::stmt insert_member_{db_, "INSERT INTO obj(k, v) VALUES(?1, ?2)"};
  sq::stmt update_member_{db_, "UPDATE obj SET v = ?2 WHERE k = ?1"};
  sq::stmt delete_member_{db_, "DELETE FROM obj WHERE k = ?1"};
  sq::stmt rename_member_{db_, "UPDATE obj SET k = ?2 WHERE k = ?1"};
  sq::stmt find_member_{db_, "SELECT v FROM obj WHERE k = ?1"};
  sq::stmt push_back_{db_, "INSERT INTO arr(pos, v) SELECT ifnull(max(pos), -1) + 1, ?1 FROM arr"};
  sq::stmt push_front_{db_, "INSERT INTO arr(pos, v) SELECT ifnull(min(pos), 1) - 1, ?1 FROM arr"};
  sq::stmt pop_back_{db_, "DELETE FROM arr WHERE pos = (SELECT max(pos) FROM arr)"};
  sq::stmt pop_front_{db_, "DELETE FROM arr WHERE pos = (SELECT min(pos) FROM arr)"};
};

class sqlite_json_peer : public sqlite_base, picked_members {
 public:
  static constexpr const char* name = "sqlite_json";

  sqlite_json_peer(const fs::path& dir, std::size_t, const std::string& text)
      : sqlite_base(dir / "json.sqlite", "CREATE TABLE doc(id INTEGER PRIMARY KEY, body TEXT)") {
    sq::stmt put(db_, "INSERT INTO doc(id, body) VALUES(1, ?1)");
    put.bind(1, text).run();
    checkpoint();
  }

  void prepare(const std::vector<std::size_t>& idx) { pick(idx, "$.obj."); }

  void edit(op o, std::size_t k, std::uint64_t v) {
    const auto num = static_cast<std::int64_t>(v);
    switch (o) {
      case op::add_member: insert_.bind(1, added_[k]).bind(2, num).run(); break;
      case op::append: push_back_.bind(1, num).run(); break;
      case op::insert_front: push_front_.bind(1, num).run(); break;
      case op::set: set_.bind(1, at_[k]).bind(2, num).run(); break;
      case op::erase: remove_.bind(1, at_[k]).run(); break;
      case op::move: move_.bind(1, at_[k]).bind(2, added_[k]).run(); break;
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
      case op::move: move_.bind(1, added_[k]).bind(2, at_[k]).run(); break;
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
  sq::stmt insert_{db_, "UPDATE doc SET body = json_insert(body, ?1, ?2) WHERE id = 1"};
  sq::stmt set_{db_, "UPDATE doc SET body = json_set(body, ?1, ?2) WHERE id = 1"};
  sq::stmt remove_{db_, "UPDATE doc SET body = json_remove(body, ?1) WHERE id = 1"};
  sq::stmt move_{db_,
                 "UPDATE doc SET body = json_set(json_remove(body, ?1), ?2, "
                 "json_extract(body, ?1)) WHERE id = 1"};
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
class lmdb_scale_peer : picked_members {
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

  void prepare(const std::vector<std::size_t>& idx) { pick(idx, "o"); }

  void edit(op o, std::size_t k, std::uint64_t v) {
    in_txn([&](fl_bench::lmdb::txn& t) {
      const std::string text = std::to_string(v);
      switch (o) {
        case op::add_member: t.put(added_[k], text); break;
        case op::append: t.put(element_key(end_position(t, false) + 1), text); break;
        case op::insert_front: t.put(element_key(end_position(t, true) - 1), text); break;
        case op::set: t.put(at_[k], text); break;
        case op::erase: benchmark::DoNotOptimize(t.del(at_[k])); break;
        case op::move: rename(t, at_[k], added_[k]); break;
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
        case op::move: rename(t, added_[k], at_[k]); break;
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
  void end_durably() { end(); }

 private:
  // A member's value under another key: the put and the delete of one
  // transaction (LMDB has no rename).
  static void rename(fl_bench::lmdb::txn& t, const std::string& from, const std::string& to) {
    const std::string v(t.get(from));
    t.put(to, v);
    t.del(from);
  }
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
};
#endif  // FL_BENCH_HAVE_LMDB

}  // namespace fl_bench::scale
