// fl::json_store against a model (nlohmann::ordered_json): seeded random
// sequences of every edit a user has -- set of scalars, strings long enough
// for blocks of their own and containers; insert at any index and at "-";
// erase anywhere (and where nothing is); RFC 6902 patches of every operation,
// valid ones and ones that must be refused, and move() and copy() as calls;
// RFC 7396 merge patches with nulls; edits that must throw -- with sync(),
// close-and-reopen, compact() and a reader's refresh() between them. After
// every edit the store dumps
// exactly as the model (a refused edit leaves both unchanged); after every
// commit, reopen and compaction too, a new reader of the newest commit dumps
// the committed model and passes verify(), and a long-lived reader sees the
// committed model at each refresh().
//
// What this catches that the edit-by-edit tests did not: blocks freed by one
// edit and reused by a later one after a commit, while some value still
// referred to them.
//
// Every run is made twice: with the default tree shape, and with tiny ones
// (array and object trees from 5 entries, 2 to 4 entries a node; every
// other seed from 9, 2 to 8) over documents with longer arrays and bigger
// objects, so that edits split, merge, grow and collapse trees and cross
// the flat/tree boundary.
//
// Counts: FL_MODEL_SEEDS seeds (default 20, and 5 for the tiny shape; 3 and
// 1 under sanitizers) of
// FL_MODEL_EDITS edits (default 5,000; 1,500 under sanitizers); the first
// seed is the run's seed (FL_TEST_SEED), the others follow it. The soak:
// FL_MODEL_SEEDS=1 FL_MODEL_EDITS=1000000.
#include <fl/detail/json_format.hpp>  // the tree-shape test hook
#include <fl/json_store.hpp>
#include <fl/mapped_space.hpp>

#include "json_pointers.hpp"
#include "json_test_support.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#ifdef FL_TEST_HAVE_NLOHMANN
#include <nlohmann/json.hpp>
#endif

namespace {

TEST(JsonStoreModel, AnInsertBeforeAnElementKeepsItAfterCommits) {
  // The element an insert moves stays reachable: its block must not be
  // retired (it was, and a later commit's edit reused it).
  fl_test::temp_dir dir("fl_model_");
  const std::filesystem::path file = dir / "doc.json";
  {
    fl::json_store s = fl::json_store::import(R"({"t":["a"]})", file);
    s.sync();
    s.insert("/t/0", R"("new")");
    s.sync();
    s.put("/x", "MIT");
    s.sync();
    EXPECT_EQ(std::string_view(s.dump()), R"({"t":["new","a"],"x":"MIT"})");
  }
  const fl::json_store s = fl::json_store::open(file);
  EXPECT_EQ(std::string_view(s.dump()), R"({"t":["new","a"],"x":"MIT"})");
}

TEST(JsonStoreModel, ARefusedPatchLeavesEveryValue) {
  // A refused patch rolls back by inverse edits (here an array element put
  // back by an insert): no value may change across later commits.
  fl_test::temp_dir dir("fl_model_");
  const std::filesystem::path file = dir / "doc.json";
  fl::json_store s = fl::json_store::import(R"({"t":["a","b","c"],"s":"x"})", file);
  s.sync();
  EXPECT_THROW(s.apply_patch(R"([{"op":"remove","path":"/t/0"},{"op":"add","path":"/s/k","value":1}])"),
               std::out_of_range);
  s.sync();
  for (int i = 0; i < 8; ++i) {
    s.put("/p" + std::to_string(i), std::string(i * 7 + 1, 'z'));
    s.sync();
  }
  EXPECT_EQ(std::string_view(s.at("/t").value()), R"(["a","b","c"])");
}

#ifdef FL_TEST_HAVE_NLOHMANN
using ojson = nlohmann::ordered_json;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr std::uint64_t default_seeds = 3, default_edits = 1500;
#else
constexpr std::uint64_t default_seeds = 20, default_edits = 5000;
#endif

std::uint64_t env_count(const char* name, std::uint64_t fallback) {
  const char* e = std::getenv(name);
  return e != nullptr && *e != '\0' ? std::strtoull(e, nullptr, 10) : fallback;
}

std::string str(const fl::string& s) { return std::string(std::string_view(s)); }

// Keys the generator draws from: plain, long, non-ASCII, and the two that
// pointers must escape ('/' as "~1", '~' as "~0"), a quote and a control
// character that the text must escape.
const std::vector<std::string>& key_pool() {
  static const std::vector<std::string> keys = {
      "a",   "b",      "k",     "t",       "recent", "name", "a/b", "t~x", "~1",
      "ключ", "\xe2\x9c\x93", "q\"u", "tab\there", "", "a_rather_long_member_name_of_32b"};
  return keys;
}

class generator {
 public:
  // `long_arrays`: some arrays of 5 to 44 elements and objects of up to
  // 44 members (runs with a tiny tree shape, where they are trees of
  // several levels).
  generator(std::uint64_t seed, bool long_arrays) : rng_(seed), long_arrays_(long_arrays) {}

  std::uint64_t below(std::uint64_t n) { return n ? rng_() % n : 0; }
  bool chance(unsigned percent) { return below(100) < percent; }

  std::string text(std::size_t n) {
    static const char* const pieces[] = {"x",  "yz", "é", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
                                         "\n", "\"", "\\", "\x01",        " ", "/"};
    std::string s;
    while (s.size() < n) s += pieces[below(std::size(pieces))];
    return s;
  }

  // A random value, containers at most `depth` levels deep.
  ojson value(int depth) {
    switch (below(depth > 0 ? 12 : 9)) {
      case 0: return nullptr;
      case 1: return chance(50);
      case 2: return static_cast<std::int64_t>(below(2000)) - 1000;
      case 3: return static_cast<std::int64_t>(rng_());  // any int64
      case 4: return std::uint64_t{0x8000000000000000ULL} + below(1000);
      case 5: return static_cast<double>(static_cast<std::int64_t>(below(4000)) - 2000) / 8.0 + 0.125;
      case 6:
      case 7: return text(below(12));
      case 8: return text(16 + below(chance(20) ? 3000 : 200));  // a block of its own
      case 9:
      case 10: {
        ojson a = ojson::array();
        const std::uint64_t n = long_arrays_ && chance(15) ? 5 + below(40) : below(5);
        for (std::uint64_t i = n; i-- > 0;) a.push_back(value(depth - 1));
        return a;
      }
      default: {
        ojson o = ojson::object();
        const std::uint64_t n = long_arrays_ && chance(15) ? 5 + below(40) : below(5);
        for (std::uint64_t i = n; i-- > 0;) o[key()] = value(depth - 1);
        return o;
      }
    }
  }

  std::string key() {
    if (chance(70)) return key_pool()[below(key_pool().size())];
    return "m" + std::to_string(below(40));
  }

  std::mt19937_64& rng() { return rng_; }
  bool long_arrays() const { return long_arrays_; }

 private:
  std::mt19937_64 rng_;
  bool long_arrays_;
};

// A pointer to a random value of the model (possibly "", the document), and
// the pointers of every container, found by a walk of the whole model.
struct places {
  std::vector<std::string> values;      // every value, "" included
  std::vector<std::string> containers;  // every array and object
};

void collect(const ojson& v, const std::string& at, places& out) {
  out.values.push_back(at);
  if (v.is_array()) {
    out.containers.push_back(at);
    for (std::size_t i = 0; i < v.size(); ++i) collect(v[i], at + "/" + std::to_string(i), out);
  } else if (v.is_object()) {
    out.containers.push_back(at);
    for (const auto& [k, c] : v.items()) collect(c, at + "/" + fl_test::pointer_token(k), out);
  }
}

// What one step did, for the failure message.
struct step_log {
  std::vector<std::string> lines;
  void add(std::string s) {
    lines.push_back(std::move(s));
    if (lines.size() > 40) lines.erase(lines.begin());
  }
  std::string str() const {
    std::string out;
    for (const std::string& l : lines) out += "  " + l.substr(0, 300) + "\n";
    return out;
  }
};

// ojson::contains for a pointer, false where nlohmann throws instead (an
// empty token against an array).
bool has(const ojson& m, const ojson::json_pointer& p) {
  try {
    return m.contains(p);
  } catch (const ojson::exception&) {
    return false;
  }
}

// The model's version of each edit. Each returns false (model unchanged)
// where the store must refuse the edit.
struct model_ops {
  ojson& m;

  static ojson::json_pointer jp(const std::string& p) { return ojson::json_pointer(p); }

  // json_store::set: replace, add a member, append at size() or "-".
  bool set(const std::string& ptr, const ojson& v) {
    if (ptr.empty()) return m = v, true;
    const auto p = jp(ptr);
    const auto parent_ptr = p.parent_pointer();
    if (!has(m, parent_ptr)) return false;
    ojson& parent = m.at(parent_ptr);
    const std::string last = p.back();
    if (parent.is_object()) {
      parent[last] = v;
      return true;
    }
    if (!parent.is_array()) return false;
    if (last == "-") return parent.push_back(v), true;
    const std::optional<std::size_t> i = index(last);
    if (!i || *i > parent.size()) return false;
    if (*i == parent.size())
      parent.push_back(v);
    else
      parent[*i] = v;
    return true;
  }
  // json_store::insert (RFC 6902 add).
  bool insert(const std::string& ptr, const ojson& v) {
    const auto p = jp(ptr);
    if (ptr.empty() || !has(m, p.parent_pointer())) return set(ptr, v);
    ojson& parent = m.at(p.parent_pointer());
    if (!parent.is_array()) return set(ptr, v);
    const std::string last = p.back();
    if (last == "-") return parent.push_back(v), true;
    const std::optional<std::size_t> i = index(last);
    if (!i || *i > parent.size()) return false;
    parent.insert(parent.begin() + static_cast<std::ptrdiff_t>(*i), v);
    return true;
  }
  bool erase(const std::string& ptr) {
    if (ptr.empty()) return false;
    const auto p = jp(ptr);
    if (!has(m, p)) return false;
    ojson& parent = m.at(p.parent_pointer());
    if (parent.is_object())
      parent.erase(p.back());
    else
      parent.erase(*index(p.back()));
    return true;
  }
  // put(..., parents::create): every missing proper prefix becomes {}
  // (which must land in an object), then set(); all or nothing.
  bool put_creating(const std::string& ptr, const ojson& v) {
    ojson copy = m;
    model_ops on{copy};
    for (std::size_t slash = ptr.find('/', 1); slash != std::string::npos;
         slash = ptr.find('/', slash + 1)) {
      const std::string prefix = ptr.substr(0, slash);
      if (has(copy, jp(prefix))) continue;
      if (!on.set(prefix, ojson::object())) return false;
    }
    if (!on.set(ptr, v)) return false;
    m = std::move(copy);
    return true;
  }
  // RFC 6902 as json_store::apply_patch reads it, on a copy: all or nothing.
  bool patch(const ojson& ops) {
    ojson copy = m;
    model_ops on{copy};
    for (const ojson& o : ops)
      if (!on.patch_op(o)) return false;
    m = std::move(copy);
    return true;
  }
  bool patch_op(const ojson& o) {
    const std::string op = o.at("op").get<std::string>();
    const std::string path = o.at("path").get<std::string>();
    if (op == "add") return add(path, o.at("value"));
    if (op == "remove") return !path.empty() && erase(path);
    if (op == "replace") {
      if (!has(m, jp(path))) return false;
      m.at(jp(path)) = o.at("value");
      return true;
    }
    if (op == "test") return has(m, jp(path)) && same(m.at(jp(path)), o.at("value"));
    const std::string from = o.at("from").get<std::string>();
    if (!has(m, jp(from))) return false;
    const ojson v = m.at(jp(from));
    if (op == "copy") return add(path, v);
    // move: a remove and an add; never into the moved value's own child.
    if (path.size() > from.size() && path.compare(0, from.size(), from) == 0 &&
        path[from.size()] == '/')
      return false;
    if (from.empty() || !erase(from)) return false;
    return add(path, v);
  }
  // RFC 6902 add: replaces a member, inserts into an array; the parent must
  // be an object or an array.
  bool add(const std::string& path, const ojson& v) {
    if (path.empty()) return m = v, true;
    const auto p = jp(path);
    if (!has(m, p.parent_pointer())) return false;
    const ojson& parent = m.at(p.parent_pointer());
    if (!parent.is_object() && !parent.is_array()) return false;
    return insert(path, v);
  }
  // RFC 6902 4.6 equality: numbers by value, objects whatever their order.
  static bool same(const ojson& a, const ojson& b) {
    if (a.is_number() && b.is_number()) {
      if (a.is_number_float() || b.is_number_float()) return a.get<double>() == b.get<double>();
      return a == b;
    }
    if (a.type() != b.type()) return false;
    if (a.is_array()) {
      if (a.size() != b.size()) return false;
      for (std::size_t i = 0; i < a.size(); ++i)
        if (!same(a[i], b[i])) return false;
      return true;
    }
    if (a.is_object()) {
      if (a.size() != b.size()) return false;
      for (const auto& [k, v] : a.items())
        if (!b.contains(k) || !same(v, b.at(k))) return false;
      return true;
    }
    return a == b;
  }
  static std::optional<std::size_t> index(const std::string& t) {
    if (t.empty() || t.size() > 15 || (t.size() > 1 && t[0] == '0')) return std::nullopt;
    for (char c : t)
      if (c < '0' || c > '9') return std::nullopt;
    return static_cast<std::size_t>(std::stoull(t));
  }
};

struct run_result {
  std::uint64_t edits = 0, refused = 0, commits = 0, reopens = 0, compactions = 0, refreshes = 0;
};

// A random document to start from: nested containers with arrays of strings
// and objects, as settings files and small databases have.
ojson initial_document(generator& g) {
  ojson d = ojson::object();
  d["t"] = ojson::array({"a", "b", ojson::object({{"k", "v"}})});
  d["recent"] = ojson::array({"a.txt", "b.txt", "c.txt"});
  d["name"] = g.text(40);
  for (std::uint64_t i = g.below(4); i-- > 0;) d[g.key()] = g.value(3);
  if (g.long_arrays()) {
    // An event log: with a tiny tree shape, a tree of three or four levels.
    ojson log = ojson::array();
    for (std::uint64_t i = 20 + g.below(60); i-- > 0;) log.push_back(g.value(0));
    d["log"] = std::move(log);
    // An index by name: an object tree of three or four levels (its keys
    // are not the generator's, so edits of it come through its pointers).
    ojson index = ojson::object();
    for (std::uint64_t i = 20 + g.below(60); i-- > 0;)
      index["i" + std::to_string(g.below(200))] = g.value(0);
    d["index"] = std::move(index);
  }
  return d;
}

class model_run {
 public:
  model_run(std::uint64_t seed, const std::filesystem::path& file, bool long_arrays)
      : seed_(seed), g_(seed, long_arrays), file_(file) {}

  run_result run(std::uint64_t edits) {
    model_ = initial_document(g_);
    store_.emplace(fl::json_store::import(model_.dump(), file_));
    store_->sync();
    committed_ = model_;
    fed_ = model_;
    reader_.emplace(fl::json_store::open(file_, fl::open_mode::read_only));
    log_.add("import " + model_.dump());
    check_store("after import");
    check_committed("after import");
    for (std::uint64_t i = 0; result_.edits < edits && !::testing::Test::HasFatalFailure(); ++i) {
      step_ = i;
      one_step();
    }
    return result_;
  }

 private:
  // Fails the test with the seed, the step and the last steps taken.
  void check_equal(const std::string& got_text, const ojson& want, const std::string& where) {
    ojson got;
    try {
      got = ojson::parse(got_text);
    } catch (const std::exception& e) {
      FAIL() << "seed " << seed_ << " step " << step_ << " " << where
             << ": the store's dump is not JSON (" << e.what() << "): " << got_text.substr(0, 400)
             << "\nlast steps:\n"
             << log_.str();
    }
    if (got != want) {
      FAIL() << "seed " << seed_ << " step " << step_ << " " << where << ":\n  store " << got.dump()
             << "\n  model " << want.dump() << "\nlast steps:\n"
             << log_.str();
    }
  }
  void check_store(const std::string& where) {
    try {
      check_equal(str(store_->dump()), model_, where);
    } catch (const std::exception& e) {
      FAIL() << "seed " << seed_ << " step " << step_ << " " << where << ": dump threw "
             << e.what() << "\nlast steps:\n"
             << log_.str();
    }
  }

  // verify() of the newest commit, through a reader opened for it (a
  // writer's verify() refuses while the test's own reader holds an older
  // commit).
  void check_committed(const std::string& where) {
    try {
      const fl::json_store r = fl::json_store::open(file_, fl::open_mode::read_only);
      r.verify();
      check_equal(str(r.dump()), committed_, where + " (a new reader)");
      // The change feed: the patches of the commits since the last check,
      // applied by the model in order, give the committed document.
      for (const fl::json_change& c : r.changes(fed_sequence_)) {
        log_.add("feed " + std::to_string(c.sequence) + " " + str(c.patch));
        fed_ = fed_.patch(ojson::parse(std::string_view(c.patch)));
        fed_sequence_ = c.sequence;
      }
      check_equal(fed_.dump(), committed_, where + " (the change feed)");
    } catch (const std::exception& e) {
      FAIL() << "seed " << seed_ << " step " << step_ << " " << where << ": verify threw "
             << e.what() << "\nlast steps:\n"
             << log_.str();
    }
  }

  std::string random_value_pointer() {
    places p;
    collect(model_, "", p);
    return p.values[g_.below(p.values.size())];
  }
  std::string random_container() {
    places p;
    collect(model_, "", p);
    if (p.containers.empty()) return "";
    return p.containers[g_.below(p.containers.size())];
  }
  // A pointer into container `c` of the model: an existing child, a new
  // member, an index at or past the end, "-", or one that cannot exist.
  std::string child_pointer(const std::string& c) {
    const ojson& v = model_.at(ojson::json_pointer(c));
    if (v.is_array()) {
      const std::uint64_t r = g_.below(10);
      if (r < 6) return c + "/" + std::to_string(g_.below(v.size() + 1));
      if (r < 8) return c + "/-";
      if (r < 9) return c + "/" + std::to_string(v.size() + 1 + g_.below(3));  // past the end
      return c + "/x";                                                       // not an index
    }
    return c + "/" + fl_test::pointer_token(g_.key());
  }
  std::string target_pointer() {
    const std::uint64_t r = g_.below(10);
    if (r < 7) return child_pointer(random_container());
    if (r < 9) return random_value_pointer();
    return random_value_pointer() + "/" + fl_test::pointer_token(g_.key()) + "/deeper";  // a missing parent
  }

  // Runs `store_edit` on the store and `model_edit` on a copy of the model;
  // the store must throw exactly when the model refuses, and agree after.
  template <class StoreEdit, class ModelEdit>
  void edit(const std::string& what, StoreEdit&& store_edit, ModelEdit&& model_edit) {
    log_.add(what);
    ojson next = model_;
    model_ops ops{next};
    const bool ok = model_edit(ops);
    bool threw = false;
    std::string error;
    try {
      store_edit();
    } catch (const fl::persist_error& e) {
      FAIL() << "seed " << seed_ << " step " << step_ << ": " << what << " threw persist_error "
             << e.what() << "\nlast steps:\n"
             << log_.str();
    } catch (const std::exception& e) {
      threw = true;
      error = e.what();
    }
    if (ok && threw)
      FAIL() << "seed " << seed_ << " step " << step_ << ": " << what << " threw " << error
             << " where the model accepts it\nlast steps:\n"
             << log_.str();
    if (!ok && !threw)
      FAIL() << "seed " << seed_ << " step " << step_ << ": " << what
             << " succeeded where the model refuses it\nlast steps:\n"
             << log_.str();
    ++result_.edits;
    if (ok)
      model_ = std::move(next);
    else
      ++result_.refused;
    check_store("after " + what.substr(0, 80));
  }

  // An RFC 6902 patch of 1-3 operations; nlohmann's patch() is the model
  // (all or nothing: it patches a copy). A third of the patches are chains:
  // each operation's paths are drawn from the document the operations
  // before it leave, an operation after a move mostly acts inside the
  // value moved, and half of them end in a test that fails, so that a
  // refused patch must put back a moved value as the later operations
  // left it.
  void patch_step() {
    ojson patch = ojson::array();
    const bool chain = g_.chance(33);
    ojson after = chain ? model_ : ojson();  // the chain's document so far
    std::string moved_to;                    // where the chain's last move put its value
    for (std::uint64_t n = 1 + g_.below(3) + (chain ? 1 : 0); n-- > 0;) {
      static const char* const ops[] = {"add", "remove", "replace", "move", "copy", "test"};
      const std::string op = chain && moved_to.empty() && g_.chance(50) ? "move" : ops[g_.below(6)];
      if (chain) std::swap(model_, after);  // the pickers below read model_
      if (!moved_to.empty() && g_.chance(60)) {
        // Inside the moved value: one of its children, or a place for one.
        const ojson& v = model_.at(ojson::json_pointer(moved_to));
        if (v.is_structured()) {
          places in;
          collect(v, moved_to, in);
          moved_to =
              g_.chance(50) ? child_pointer(moved_to) : in.values[g_.below(in.values.size())];
        }
      } else {
        moved_to.clear();
      }
      ojson o = ojson::object();
      o["op"] = op;
      const bool existing = op == "remove" || op == "replace" || op == "test";
      std::string path = !moved_to.empty() && op != "move" ? moved_to
                         : existing && g_.chance(85)       ? random_value_pointer()
                                                           : target_pointer();
      if (op == "remove" && path.empty()) path = target_pointer();
      o["path"] = path;
      if (op == "move" || op == "copy")
        o["from"] = !moved_to.empty() ? moved_to
                    : g_.chance(85)   ? random_value_pointer()
                                      : target_pointer();
      if (op == "add" || op == "replace") o["value"] = g_.value(2);
      if (op == "test") {
        const auto p = ojson::json_pointer(path);
        o["value"] = g_.chance(60) && has(model_, p) ? model_.at(p) : g_.value(1);
      }
      patch.push_back(o);
      moved_to.clear();
      if (chain) {
        // The operation applied to the chain's document; where a move put
        // its value ("-" resolved), for the next operation.
        const bool ok = model_ops{model_}.patch_op(o);
        if (ok && op == "move" && !path.empty()) {
          moved_to = path;
          const std::string parent = ojson::json_pointer(path).parent_pointer().to_string();
          const ojson& in = model_.at(ojson::json_pointer(parent));
          if (in.is_array() && path.compare(parent.size(), std::string::npos, "/-") == 0)
            moved_to = parent + "/" + std::to_string(in.size() - 1);
        }
        std::swap(model_, after);
        if (!ok) break;  // refused: nothing after it runs
      }
    }
    if (chain && g_.chance(50))
      patch.push_back({{"op", "test"}, {"path", ""}, {"value", g_.value(1)}});
    const std::string text = patch.dump();
    edit("apply_patch " + text, [&] { store_->apply_patch(text); },
         [&](model_ops& m) { return m.patch(patch); });
  }

  // move() or copy() as a call, the model its patch operation: from a value
  // mostly there (else a pointer that may miss), to a place or an existing
  // value, at times into the value's own child (refused for a move).
  void move_step() {
    const bool move = g_.chance(70);
    const std::string from = g_.chance(85) ? random_value_pointer() : target_pointer();
    const auto at = ojson::json_pointer(from);
    const bool container = has(model_, at) && model_.at(at).is_structured();
    const std::string to =
        !from.empty() && g_.chance(10)
            ? (container ? child_pointer(from) : from + "/" + fl_test::pointer_token(g_.key()))
        : g_.chance(30) ? random_value_pointer()
                        : target_pointer();
    const ojson op = {{"op", move ? "move" : "copy"}, {"from", from}, {"path", to}};
    edit(
        std::string(move ? "move " : "copy ") + from + " " + to,
        [&] { move ? store_->move(from, to) : store_->copy(from, to); },
        [&](model_ops& m) { return m.patch_op(op); });
  }

  void merge_step() {
    ojson patch = ojson::object();
    const std::string c = random_container();
    // A merge patch addressed at the container: null removes (also keys
    // that are missing), objects merge, other values replace.
    for (std::uint64_t n = 1 + g_.below(3); n-- > 0;) {
      const std::uint64_t r = g_.below(10);
      patch[g_.key()] = r < 4 ? ojson(nullptr) : g_.value(2);
    }
    // Wrap it so it lands on `c` when c is a path of object members only.
    ojson whole = patch;
    const ojson::json_pointer cp(c);
    bool objects_only = true;
    {
      ojson::json_pointer walk = cp;
      while (!walk.empty()) {
        if (!model_.at(walk.parent_pointer()).is_object()) objects_only = false;
        walk = walk.parent_pointer();
      }
    }
    if (objects_only) {
      std::vector<std::string> keys;
      for (ojson::json_pointer walk = cp; !walk.empty(); walk = walk.parent_pointer())
        keys.push_back(walk.back());
      for (const std::string& k : keys) {
        ojson wrap = ojson::object();
        wrap[k] = whole;
        whole = wrap;
      }
    }
    const std::string text = whole.dump();
    edit("merge_patch " + text, [&] { store_->merge_patch(text); },
         [&](model_ops& m) {
           m.m.merge_patch(whole);
           return true;
         });
  }

  void one_step() {
    const std::uint64_t r = g_.below(100);
    if (r < 16) {
      const std::string p = target_pointer();
      const ojson v = g_.value(g_.chance(5) ? 7 : g_.chance(30) ? 3 : 0);
      const std::string t = v.dump();
      edit("set " + p + " " + t, [&] { store_->set(p, t); }, [&](model_ops& m) { return m.set(p, v); });
    } else if (r < 30) {
      const std::string c = random_container();
      const ojson& cv = model_.at(ojson::json_pointer(c));
      std::string p = cv.is_array() && g_.chance(80)
                          ? c + "/" + (g_.chance(15) ? std::string("-")
                                                     : std::to_string(g_.below(cv.size() + 1)))
                          : child_pointer(c);
      const ojson v = g_.value(g_.chance(30) ? 2 : 0);
      const std::string t = v.dump();
      edit("insert " + p + " " + t, [&] { store_->insert(p, t); },
           [&](model_ops& m) { return m.insert(p, v); });
    } else if (r < 42) {
      // erase never throws: it answers whether something was there.
      const std::string p = g_.chance(85) ? random_value_pointer() : target_pointer();
      log_.add("erase " + p);
      ojson next = model_;
      model_ops ops{next};
      const bool want = ops.erase(p);
      bool got = false;
      try {
        got = store_->erase(p);
      } catch (const std::exception& e) {
        FAIL() << "seed " << seed_ << " step " << step_ << ": erase " << p << " threw " << e.what()
               << "\nlast steps:\n" << log_.str();
      }
      ASSERT_EQ(got, want) << "seed " << seed_ << " step " << step_ << ": erase " << p
                           << "\nlast steps:\n" << log_.str();
      ++result_.edits;
      model_ = std::move(next);
      check_store("after erase " + p);
    } else if (r < 52) {
      patch_step();
    } else if (r < 56) {
      move_step();
    } else if (r < 62) {
      merge_step();
    } else if (r < 64) {
      // put() with parents::create: the missing objects on the path are
      // made first; refused (and none made) where a parent is not an object.
      const std::string p =
          g_.chance(50) ? target_pointer()
                        : child_pointer(random_container()) + "/" + fl_test::pointer_token(g_.key());
      const std::string v = g_.text(g_.below(40));
      edit("put(create) " + p, [&] { store_->put(p, v, fl::json_store::parents::create); },
           [&](model_ops& m) { return m.put_creating(p, v); });
    } else if (r < 67) {
      // Text that is not JSON, and a malformed pointer: both refused.
      const std::string p = target_pointer();
      if (g_.chance(50))
        edit("set " + p + " {bad", [&] { store_->set(p, "{bad"); }, [](model_ops&) { return false; });
      else
        edit("set no-slash", [&] { store_->set("no-slash", "1"); }, [](model_ops&) { return false; });
    } else if (r < 80) {
      log_.add("sync");
      store_->sync();
      committed_ = model_;
      ++result_.commits;
      check_store("after sync");
      check_committed("after sync");
    } else if (r < 86) {
      log_.add("reopen");
      const bool commit_first = g_.chance(70);
      if (commit_first) {
        store_->sync();
        committed_ = model_;
      }
      store_.reset();  // edits since the last commit are dropped
      model_ = committed_;
      store_.emplace(fl::json_store::open(file_));
      ++result_.reopens;
      check_store("after reopen");
      check_committed("after reopen");
    } else if (r < 90) {
      // compact(), committed at once or after more edits (a reopen before
      // that commit drops it with them).
      log_.add("compact");
      store_->compact();
      ++result_.compactions;
      check_store("after compact");
      if (g_.chance(60)) {
        log_.add("sync");
        store_->sync();
        committed_ = model_;
        ++result_.commits;
        check_store("after compact's sync");
        check_committed("after compact's sync");
      }
    } else {
      log_.add("reader refresh");
      reader_->refresh();
      ++result_.refreshes;
      try {
        check_equal(str(reader_->dump()), committed_, "reader after refresh");
      } catch (const std::exception& e) {
        FAIL() << "seed " << seed_ << " step " << step_ << ": the reader threw " << e.what()
               << "\nlast steps:\n"
               << log_.str();
      }
    }
  }

  std::uint64_t seed_;
  std::uint64_t step_ = 0;
  generator g_;
  std::filesystem::path file_;
  ojson model_, committed_;
  ojson fed_;  // the imported document with every patch of the feed read so far
  std::uint64_t fed_sequence_ = 0;
  std::optional<fl::json_store> store_, reader_;
  step_log log_;
  run_result result_;
};

// `long_arrays`: the run with a tiny tree shape, whose documents are
// bigger; by default it takes a quarter of the seeds (FL_MODEL_SEEDS sets
// both runs' count).
// With `shapes`, seed k runs with shapes[k % shapes.size()] (set_tree_shape).
void run_seeds(bool long_arrays, const std::vector<fl::detail::json::tree_shape>& shapes = {}) {
  const std::uint64_t seeds = env_count(
      "FL_MODEL_SEEDS", long_arrays ? std::max<std::uint64_t>(1, default_seeds / 4) : default_seeds);
  const std::uint64_t edits = env_count("FL_MODEL_EDITS", default_edits);
  const std::uint64_t first = fl_test::test_seed();
  run_result total;
  for (std::uint64_t k = 0; k < seeds && !::testing::Test::HasFatalFailure(); ++k) {
    const std::uint64_t seed = first + k;
    if (!shapes.empty()) fl::detail::json::set_tree_shape(shapes[k % shapes.size()]);
    fl_test::temp_dir dir("fl_model_");
    model_run run(seed, dir / "doc.json", long_arrays);
    const run_result r = run.run(edits);
    total.edits += r.edits;
    total.refused += r.refused;
    total.commits += r.commits;
    total.reopens += r.reopens;
    total.compactions += r.compactions;
    total.refreshes += r.refreshes;
  }
  std::printf("model: %llu seeds from %llu, %llu edits (%llu refused), %llu commits, %llu reopens, "
              "%llu compactions, %llu reader refreshes, 0 mismatches\n",
              static_cast<unsigned long long>(seeds), static_cast<unsigned long long>(first),
              static_cast<unsigned long long>(total.edits),
              static_cast<unsigned long long>(total.refused),
              static_cast<unsigned long long>(total.commits),
              static_cast<unsigned long long>(total.reopens),
              static_cast<unsigned long long>(total.compactions),
              static_cast<unsigned long long>(total.refreshes));
}

// Sets a tree shape for one test and puts the default back after it.
class shape_scope {
 public:
  explicit shape_scope(fl::detail::json::tree_shape s) { fl::detail::json::set_tree_shape(s); }
  ~shape_scope() { fl::detail::json::set_tree_shape({}); }
  shape_scope(const shape_scope&) = delete;
  shape_scope& operator=(const shape_scope&) = delete;
};

TEST(JsonStoreModel, RandomEditsCommitsReopensAndCompactionsAgreeWithTheModel) {
  run_seeds(false);
}

// The same with arrays and objects of more than 4 entries as trees of
// leaves of 2 to 4 entries and inner nodes of 2 to 4 children: every
// split, merge, borrow, root growth and collapse back to a flat table
// happens within a few edits of an array or an object. Every other seed
// takes nodes of 8, whose floor (tree_min_entries: 2) is a quarter of a
// node, not half, as in the default shape's trees.
TEST(JsonStoreModel, WithTinyTreesAgreesWithTheModel) {
  const shape_scope tiny({4, 4});
  run_seeds(true, {{4, 4}, {8, 8}});
}

#else
TEST(JsonStoreModel, NeedsNlohmannJson) { GTEST_SKIP() << "nlohmann-json3-dev not installed"; }
#endif

}  // namespace
