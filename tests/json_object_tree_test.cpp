// fl::json_store object trees (formats 5 and 6, fl/detail/json_format.hpp):
// an object of more than leaf_max members is a member tree (document order,
// by seq) beside a key tree (length, hash, bytes, to seq), so that every
// edit adds and retires O(log n) blocks; small objects stay flat tables, a
// tree shrunk to one leaf becomes one again; format-4 files keep their
// objects flat until compacted, format-5 files their key order; crafted
// trees raise persist_error.
#include <fl/detail/json_format.hpp>
#include <fl/json_store.hpp>
#include <fl/mapped_space.hpp>

#include "json_test_support.hpp"
#include "persist/crc32c.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

namespace fj = fl::detail::json;

std::string str(const fl::string& s) { return std::string(std::string_view(s)); }

class shape_scope {
 public:
  explicit shape_scope(fj::tree_shape s) { fj::set_tree_shape(s); }
  ~shape_scope() { fj::set_tree_shape({}); }
  shape_scope(const shape_scope&) = delete;
  shape_scope& operator=(const shape_scope&) = delete;
};

// An object as (key, JSON text) pairs in document order.
using model = std::vector<std::pair<std::string, std::string>>;

std::string dump_of(const model& m) {
  std::string t = "{";
  for (std::size_t i = 0; i < m.size(); ++i)
    t += (i ? ",\"" : "\"") + m[i].first + "\":" + m[i].second;
  return t + "}";
}

model numbered(std::size_t n, const char* prefix = "k") {
  model m;
  for (std::size_t i = 0; i < n; ++i) m.emplace_back(prefix + std::to_string(i), std::to_string(i));
  return m;
}

// "/o/<key>", the key escaped as an RFC 6901 token.
std::string pointer_to(std::string_view key) {
  std::string p = "/o/";
  for (const char c : key) p += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return p;
}

// The committed root (through the space, as a crafted-file test reads it).
fj::json_ref root_ref(const std::filesystem::path& file) {
  fl::mapped_space space(file, fl::mapped_space_options{.mode = fl::open_mode::read_only});
  return space.get(space.root<fj::json_head>())->root;
}

struct JsonObjectTreeTest : ::testing::Test {
  fl_test::temp_dir dir{"fl_otree_"};
  std::filesystem::path file() const { return dir.path() / "store.fl"; }
  bool root_is_tree() const { return root_ref(file()).tree(); }
};

TEST_F(JsonObjectTreeTest, SmallObjectsStayFlatAndBigOnesAreTrees) {
  const std::uint32_t leaf = fj::tree_shape{}.leaf_max;
  fl::json_store::import(dump_of(numbered(leaf)), file()).sync();
  EXPECT_FALSE(root_is_tree());
  {
    auto s = fl::json_store::open(file());
    s.set("/extra", "1");  // one more: a tree
    s.sync();
    s.verify();
    EXPECT_EQ(s.find("/extra")->as_int64(), 1);
    EXPECT_EQ(s.find("/k7")->as_int64(), 7);
  }
  EXPECT_TRUE(root_is_tree());
  fl::json_store::import(dump_of(numbered(leaf + 1)), file()).sync();
  EXPECT_TRUE(root_is_tree());
  {
    // Erased until the member tree is one leaf: flat again. Fewer members
    // than twice a node's least leave no two leaves of at least that each.
    auto s = fl::json_store::open(file());
    const std::uint32_t keep = 2 * fj::tree_min_entries(fj::object_node_shape({}).leaf_max) - 1;
    for (std::uint32_t i = 0; i < leaf + 1 - keep; ++i)
      ASSERT_TRUE(s.erase("/k" + std::to_string(i)));
    s.sync();
    s.verify();
    EXPECT_EQ(s.root().size(), keep);
  }
  EXPECT_FALSE(root_is_tree());
}

// The bound the format is for: at n = 100,000 an add, a set and an erase
// each add a handful of blocks and a commit writes a handful of pages,
// where a flat table of 3.6 MB would copy all of it.
TEST_F(JsonObjectTreeTest, AnEditOfABigObjectWritesLogarithmicallyFewPages) {
  auto s = fl::json_store::import(dump_of(numbered(100'000)), file());
  s.sync();
  s.set("/warm", R"("up the free lists")");
  s.sync();
  const auto edits = {+[](fl::json_store& x) { x.set("/new", R"("added")"); },
                      +[](fl::json_store& x) { x.set("/k5000", R"("set")"); },
                      +[](fl::json_store& x) { x.set("/k6000", "6"); },
                      +[](fl::json_store& x) { x.erase("/k50000"); }};
  for (auto edit : edits) {
    const fl_test::commit_cost c = fl_test::cost_of_commit(s, edit);
    // Three or four levels of each tree (nodes of up to 2.5 KiB, in 3 KiB
    // blocks) and the siblings a merge takes, the head, a key; the pages of
    // those blocks, the change record and the allocator's (9 to 13 pages
    // here).
    EXPECT_LE(c.grown_bytes, 80u * 1024);
    EXPECT_LE(c.pages, 40u);
  }
  EXPECT_EQ(str(*s.at("/new")), R"("added")");
  EXPECT_EQ(str(*s.at("/k5000")), R"("set")");
  EXPECT_FALSE(s.find("/k50000"));
  EXPECT_EQ(s.root().size(), 100'001u);
  s.verify();
}

// Edits after the first since a commit write over the blocks the first
// copied (no commit and no reader reaches them) instead of copying them
// again: a store committed after a hundred edits holds its root table, the
// object tree's head and the array tree's root where the first edits of
// the batch put them, as a store committed after those alone does.
TEST_F(JsonObjectTreeTest, EditsAfterTheFirstSinceACommitAreMadeInPlace) {
  std::string text = R"({"o":)" + dump_of(numbered(1000)) + R"(,"a":[)";
  for (int i = 0; i < 1000; ++i) text += (i ? "," : "") + std::to_string(i);
  text += "]}";
  const auto other = dir.path() / "other.fl";
  auto first_edits = [](fl::json_store& s) {
    s.set("/o/k10", R"("v")");
    s.set("/a/5", R"("s")");
  };
  struct places {
    std::uint64_t root, head, array;
  };
  auto places_of = [](const std::filesystem::path& f) {
    fl::json_store r = fl::json_store::open(f, fl::open_mode::read_only);
    r.verify();
    fl::mapped_space space(f, fl::mapped_space_options{.mode = fl::open_mode::read_only});
    const fj::json_ref root = space.get(space.root<fj::json_head>())->root;
    const auto* members = reinterpret_cast<const fj::json_member*>(space.get(fl::fptr<char>(root.x)));
    return places{root.x, members[0].value.x, members[1].value.x};
  };
  {
    auto s = fl::json_store::import(text, file());
    s.sync();
    auto t = fl::json_store::import(text, other);
    t.sync();
    first_edits(s);
    s.sync();
    first_edits(t);
    for (int i = 0; i < 100; ++i) {
      const std::string n = std::to_string(i);
      t.set("/o/k10", "\"v" + n + "\"");  // the member leaf the first edit copied
      t.set("/a/5", "\"s" + n + "\"");
      ASSERT_TRUE(t.erase("/a/0"));           // the array's first leaf, shifted down
      t.insert("/a/0", "0");                  // and back up
      ASSERT_TRUE(t.erase("/o/k11"));         // a member leaf the first edit copied
      t.set("/o/k11", "11");                  // appended: a leaf of its own
    }
    t.sync();
    EXPECT_EQ(str(*t.at("/o/k10")), R"("v99")");
    EXPECT_EQ(str(*t.at("/a/5")), R"("s99")");
    EXPECT_EQ(t.find("/a/0")->as_int64(), 0);
    EXPECT_EQ(t.find("/o/k11")->as_int64(), 11);
    EXPECT_EQ(t.find("/o")->size(), 1000u);
    EXPECT_EQ(t.find("/a")->size(), 1000u);
  }
  const places once = places_of(file()), batch = places_of(other);
  EXPECT_EQ(batch.root, once.root);
  EXPECT_EQ(batch.head, once.head);
  EXPECT_EQ(batch.array, once.array);
}

// Past store_file::in_place_after edits since a commit, an edit writes over
// committed nodes in place (the array's root, which the first edits did not
// reach, stays where the last commit put it: a copy would move it), and a
// reader that holds the older commit (this process, its own mapping) still
// reads it whole until its refresh(), while the commit, a reopen and
// verify() hold every edit.
TEST_F(JsonObjectTreeTest, ABatchOfEditsInPlaceLeavesAReaderItsCommit) {
  std::string text = R"({"o":)" + dump_of(numbered(3000)) + R"(,"a":[)";
  for (int i = 0; i < 3000; ++i) text += (i ? "," : "") + std::to_string(i);
  text += "]}";
  const auto array_root = [&] {
    fl::mapped_space space(file(), fl::mapped_space_options{.mode = fl::open_mode::read_only});
    const fj::json_ref root = space.get(space.root<fj::json_head>())->root;
    return reinterpret_cast<const fj::json_member*>(space.get(fl::fptr<char>(root.x)))[1].value.x;
  };
  std::string before, after;
  std::optional<fl::json_store> reader;
  {
    auto s = fl::json_store::import(text, file());
    s.sync();
    before = str(s.dump());
    reader.emplace(fl::json_store::open(file(), fl::open_mode::read_only));
    const std::uint64_t committed_root = array_root();
    for (int i = 0; i < 5; ++i) s.set("/o/k0", "\"v" + std::to_string(i) + "\"");
    s.set("/a/2500", R"("w")");
    s.sync();
    EXPECT_EQ(array_root(), committed_root) << "the array's path was copied";
    std::mt19937 rng(36);
    // Erases of members and their undos, as a batch of a program's edits
    // that net out.
    for (int i = 0; i < 400; ++i) {
      const std::string k = "k" + std::to_string(rng() % 3000);
      if (!s.erase("/o/" + k)) continue;
      s.set("/o/" + k, k.substr(1));
    }
    s.sync();
    // Edits of every kind that do not net out, then a commit.
    for (int i = 0; i < 300; ++i) {
      const std::string n = std::to_string(i);
      s.set("/o/k" + std::to_string(rng() % 3000), "\"v" + n + "\"");
      s.set("/o/new" + n, n);
      if (i % 3 == 0) {
        ASSERT_TRUE(s.erase("/o/new" + std::to_string(i / 3)));
      }
      s.insert("/a/" + std::to_string(rng() % 3000), n);
      ASSERT_TRUE(s.erase("/a/" + std::to_string(rng() % 3000)));
      s.set("/a/" + std::to_string(rng() % 3000), "[" + n + "]");
    }
    after = str(s.dump());
    s.sync();
  }
  EXPECT_EQ(str(reader->dump()), before);  // the commit it holds, whole
  reader->refresh();
  EXPECT_EQ(str(reader->dump()), after);
  EXPECT_GT(reader->verify(), 0u);
  const fl::json_store s = fl::json_store::open(file());
  EXPECT_EQ(str(s.dump()), after);
  EXPECT_GT(s.verify(), 0u);
}

// Every edit of an object against a model, with a tiny shape (trees from 3
// members, 2 to 4 entries a node) so that a few thousand edits split,
// merge, grow and collapse both trees and cross the flat/tree boundary
// both ways, with commits, reopens, compactions and verify() between them;
// after each step the dump, a lookup, member i and the iteration agree.
TEST_F(JsonObjectTreeTest, RandomEditsAgreeWithAModel) {
  const shape_scope tiny({2, 4});
  const std::uint64_t seed = fl_test::test_seed();
  std::mt19937_64 rng(seed);
  model want = numbered(40);
  std::optional<fl::json_store> s;
  s.emplace(fl::json_store::import(R"({"o":)" + dump_of(want) + "}", file()));
  s->sync();
  std::uint64_t next = 1000;
  auto find = [&](const std::string& k) {
    return std::find_if(want.begin(), want.end(), [&](const auto& p) { return p.first == k; });
  };
  for (int step = 0; step < 4000; ++step) {
    const std::uint64_t r = rng() % 100;
    const std::size_t n = want.size();
    // Keys of 0 to 3 characters too, so key_order's length rule and the
    // empty key are exercised.
    const std::string value = std::to_string(rng() % 1000);
    if (r < 38 || n == 0) {
      std::string k = rng() % 4 ? "n" + std::to_string(next++) : std::string(rng() % 3, 'z');
      if (rng() % 8 == 0) k = "x~y/" + std::to_string(next++);
      const auto it = find(k);
      const std::string text = rng() % 3 ? value : R"({"v":")" + value + R"("})";
      s->set(pointer_to(k), text);
      if (it != want.end())
        it->second = text;
      else
        want.emplace_back(k, text);
    } else if (r < 78) {
      const std::size_t at = rng() % n;
      ASSERT_TRUE(s->erase(pointer_to(want[at].first))) << "seed " << seed << " step " << step;
      want.erase(want.begin() + static_cast<std::ptrdiff_t>(at));
    } else if (r < 94) {
      const std::size_t at = rng() % n;
      const std::string ptr = pointer_to(want[at].first);
      // A number is written over the member in its leaf; a string copies
      // the path.
      const std::string text = rng() % 2 ? value : "\"" + value + "\"";
      s->set(ptr, text);
      want[at].second = text;
    } else if (r < 96) {
      EXPECT_FALSE(s->erase("/o/absent" + value));
      s->sync();
      s->verify();
    } else if (r < 98) {
      s->sync();
      s.reset();
      s.emplace(fl::json_store::open(file()));
    } else {
      s->compact();
      s->sync();
    }
    ASSERT_EQ(str(*s->at("/o")), dump_of(want)) << "seed " << seed << " step " << step;
    const fl::json_value o = *s->find("/o");
    ASSERT_EQ(o.size(), want.size());
    if (!want.empty()) {
      const std::size_t at = rng() % want.size();
      const std::optional<fl::json_value> v = o.find(want[at].first);
      ASSERT_TRUE(v) << "seed " << seed << " step " << step << " key " << want[at].first;
      ASSERT_EQ(str(v->dump()), want[at].second) << "seed " << seed << " step " << step;
    }
    if (step % 50 == 0) {
      std::size_t i = 0;
      for (const auto& [k, v] : o.members()) {
        ASSERT_EQ(k, want[i].first) << "seed " << seed << " step " << step;
        ASSERT_EQ(str(v.dump()), want[i].second);
        ++i;
      }
      ASSERT_EQ(i, want.size());
    }
  }
  s->sync();
  s->verify();
  while (!want.empty()) {
    s->erase(pointer_to(want.back().first));
    want.pop_back();
    if (want.size() % 7 == 0) { ASSERT_EQ(str(*s->at("/o")), dump_of(want)); }
  }
  EXPECT_EQ(str(*s->at("/o")), "{}");
  for (int i = 0; i < 30; ++i) s->set("/o/a" + std::to_string(i), std::to_string(i));
  s->sync();
  s->verify();
  EXPECT_EQ(s->find("/o/a29")->as_int64(), 29);
}

// Nodes bigger than the shape in use (an older writer's, whose object nodes
// held up to 255 entries) are read and edited: an edit that copies one
// splits it into even pieces of at most the shape's count, several at once.
// An import builds an object's trees as its members come (json_internal.hpp,
// object_loader): the members and their keys' blocks as they are parsed,
// the key tree at the end. Every member count, with repeated keys and keys
// in no order, nested in objects, with tiny shapes (many levels) and the
// default one: every member reads back by key and by position, the store
// verifies, and takes edits.
TEST_F(JsonObjectTreeTest, ImportedObjectsOfEverySizeBuildTheirTreesAsTheyCome) {
  int checked = 0;
  for (const fj::tree_shape shape : {fj::tree_shape{2, 4}, fj::tree_shape{4, 4}, fj::tree_shape{}}) {
    const shape_scope scope(shape);
    const std::size_t top = shape.leaf_max <= 4 ? 150 : 1400;
    const std::size_t step = shape.leaf_max <= 4 ? 1 : 89;
    for (std::size_t n = 0; n <= top; n += step) {
      model want;
      for (std::size_t i = 0; i < n; ++i)  // descending keys, every seventh one repeated
        want.emplace_back("k" + std::to_string((n - i) * 7919 % 1000003) +
                              (i % 7 == 3 ? "" : "_" + std::to_string(i)),
                          std::to_string(i));
      model inner(want.begin(), want.begin() + static_cast<std::ptrdiff_t>(n / 2));
      const std::string text =
          "{\"o\":" + dump_of(want) + ",\"p\":{\"q\":" + dump_of(inner) + ",\"r\":1}}";
      auto s = fl::json_store::import(text, file());
      s.sync();
      ASSERT_EQ(str(s.dump()), text) << "n " << n;
      for (std::size_t i = 0; i < n; i += 1 + n / 12) {
        // The last member of a repeated key is the one a pointer finds.
        std::size_t last = i;
        for (std::size_t j = i + 1; j < n; ++j)
          if (want[j].first == want[i].first) last = j;
        ASSERT_EQ(str(*s.at(pointer_to(want[i].first))), want[last].second) << "n " << n;
      }
      s.verify();
      s.set("/o/added", "true");
      want.emplace_back("added", "true");
      if (n > 2) {
        ASSERT_TRUE(s.erase(pointer_to(want[n / 2].first)));
        // erase() removes the member a pointer finds: the last of its key.
        std::size_t last = n / 2;
        for (std::size_t j = 0; j < n; ++j)
          if (want[j].first == want[n / 2].first) last = j;
        want.erase(want.begin() + static_cast<std::ptrdiff_t>(last));
      }
      s.sync();
      s.verify();
      ASSERT_EQ(str(*s.at("/o")), dump_of(want)) << "n " << n;
      ++checked;
    }
  }
  std::printf("imported objects: %d sizes and shapes\n", checked);
}

TEST_F(JsonObjectTreeTest, NodesBiggerThanTheShapeSplitEvenly) {
  model want = numbered(300);
  {
    const shape_scope big({60, 60});  // nodes of up to 60 entries
    fl::json_store::import(R"({"o":)" + dump_of(want) + "}", file()).sync();
  }
  const shape_scope tiny({2, 4});  // now at most 2 per leaf, 4 per inner node
  auto s = fl::json_store::open(file());
  std::mt19937_64 rng(fl_test::test_seed());
  for (int step = 0; step < 200; ++step) {
    const std::size_t i = rng() % want.size();
    if (step % 3 == 0) {
      ASSERT_TRUE(s.erase(pointer_to(want[i].first)));
      want.erase(want.begin() + static_cast<std::ptrdiff_t>(i));
    } else if (step % 3 == 1) {
      s.set(pointer_to(want[i].first), R"("s")");
      want[i].second = R"("s")";
    } else {
      want.emplace_back("n" + std::to_string(step), "1");
      s.set(pointer_to(want.back().first), "1");
    }
    if (step % 50 == 0) {
      s.sync();
      s.verify();
    }
  }
  s.sync();
  s.verify();
  EXPECT_EQ(str(s.find("/o")->dump()), dump_of(want));
}

// Repeated keys (RFC 8259 allows them; import keeps them): a lookup finds
// the last, the dump keeps all in order, an erase removes the last.
TEST_F(JsonObjectTreeTest, RepeatedKeysFindTheLast) {
  const shape_scope tiny({2, 4});
  auto s = fl::json_store::import(R"({"a":1,"b":2,"a":3,"c":4,"a":5,"d":6})", file());
  s.sync();
  EXPECT_TRUE(root_is_tree());
  EXPECT_EQ(s.find("/a")->as_int64(), 5);
  EXPECT_TRUE(s.erase("/a"));
  EXPECT_EQ(s.find("/a")->as_int64(), 3);
  EXPECT_EQ(str(s.dump()), R"({"a":1,"b":2,"a":3,"c":4,"d":6})");
  s.sync();
  s.verify();
}

// The nodes of both trees of the committed root object.
std::size_t object_tree_nodes(const std::filesystem::path& file) {
  fl::mapped_space space(file, fl::mapped_space_options{.mode = fl::open_mode::read_only});
  const fj::json_ref o = space.get(space.root<fj::json_head>())->root;
  const fj::object_tree h = *reinterpret_cast<fj::object_tree*>(space.get(fl::fptr<char>(o.x)));
  std::size_t nodes = 0;
  const auto walk = [&](std::uint64_t root, auto entry_bytes) {
    std::vector<std::uint64_t> todo{root};
    while (!todo.empty()) {
      const char* p = space.get(fl::fptr<char>(todo.back()));
      todo.pop_back();
      ++nodes;
      fj::tree_node n;
      std::memcpy(&n, p, sizeof n);
      for (std::uint32_t j = 0; n.level != 0 && j < n.count; ++j) {
        std::uint64_t child;  // an inner entry's first field
        std::memcpy(&child, p + sizeof n + std::size_t{j} * entry_bytes(n.level), sizeof child);
        todo.push_back(child);
      }
    }
  };
  walk(h.members, fj::member_entry_bytes);
  walk(h.keys, fj::key_entry_bytes);
  return nodes;
}

// An add that splits a full node and the erase of the same key after it
// (a cache's churn) leave the trees' shape alone from then on: a merge
// that refilled the node made the next add split it again, every round.
TEST_F(JsonObjectTreeTest, AnAddAndAnEraseOfOneKeyDoNotSplitAndMergeEachRound) {
  const shape_scope tiny({4, 4});
  const model m = numbered(64);
  auto s = fl::json_store::import(dump_of(m), file());
  s.sync();
  ASSERT_TRUE(root_is_tree());
  for (int k = 0; k < 64; ++k) {
    const std::string at = "/k" + std::to_string(k) + "x";  // absent, between present keys
    std::vector<std::size_t> nodes;
    for (int round = 0; round < 3; ++round) {
      s.set(at, "1");
      s.sync();
      nodes.push_back(object_tree_nodes(file()));
      ASSERT_TRUE(s.erase(at));
      s.sync();
      nodes.push_back(object_tree_nodes(file()));
    }
    for (std::size_t i = 2; i < nodes.size(); ++i)
      EXPECT_EQ(nodes[i], nodes[1]) << at << ": round " << i / 2 << (i % 2 ? ", erase" : ", add");
  }
  EXPECT_EQ(str(s.dump()), dump_of(m));
  s.verify();
}

// Members erased at random and added at the end (a cache, a table of
// sessions). Nodes an edit splits are born half full (the member tree's
// leaves by appends, the key tree's by adds anywhere), and an erase there
// must not rebalance them at once: with half a node as the least a node
// keeps, the first erase in such a leaf merged it with a sibling (copying
// both and their parent), about one erase in five of a long run.
TEST_F(JsonObjectTreeTest, RandomErasesAfterAppendsDoNotMergeNewNodes) {
  const std::size_t n = 600;
  auto s = fl::json_store::import(dump_of(numbered(256)), file());  // a tree
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < 256; ++i) keys.push_back("k" + std::to_string(i));
  for (std::size_t i = 256; i < n; ++i) {
    keys.push_back("k" + std::to_string(i));
    s.set("/" + keys.back(), "1");
  }
  s.sync();
  ASSERT_TRUE(root_is_tree());
  std::mt19937_64 rng(fl_test::test_seed());
  std::size_t next = n, merges = 0, nodes = object_tree_nodes(file());
  // About 14 erases for each of the ~11 leaves the appends split, fewer
  // than the 17 a leaf born with 32 members takes before it merges (with
  // half a node as the least, 4 to 6 of these commits had fewer nodes).
  for (int round = 0; round < 150; ++round) {
    const std::size_t victim = 256 + rng() % (n - 256);
    ASSERT_TRUE(s.erase("/" + keys[victim]));
    keys[victim] = "k" + std::to_string(next++);
    s.set("/" + keys[victim], "1");
    s.sync();
    const std::size_t now = object_tree_nodes(file());
    merges += now < nodes;
    nodes = now;
  }
  EXPECT_LE(merges, 2u) << "commits with fewer nodes than the one before";
  s.verify();
  EXPECT_EQ(s.root().size(), n);
}

// Two keys of one length whose CRC-32C (format 6's key hash) is the same
// sit side by side in the key tree, told apart by their bytes alone: a
// lookup of the absent one, whose neighbour's entry agrees with it in
// length and hash, finds nothing, and each edit reaches its own member.
TEST_F(JsonObjectTreeTest, KeysOfOneLengthAndHashAreToldApartByTheirBytes) {
  const std::string present = "kf47z8qn", absent = "kuax5jov";
  ASSERT_EQ(fl::detail::crc32c(present.data(), present.size()),
            fl::detail::crc32c(absent.data(), absent.size()));
  const std::string at_present = "/kf47z8qn", at_absent = "/kuax5jov";
  const shape_scope tiny({2, 4});
  model m = numbered(30, "k000000");  // keys of the same length, from k0000000
  for (auto& [k, v] : m) k.resize(8, '0');
  m.insert(m.begin() + 11, {present, "\"p\""});
  auto s = fl::json_store::import(dump_of(m), file());
  s.sync();
  ASSERT_TRUE(root_is_tree());

  EXPECT_FALSE(s.find(at_absent));
  EXPECT_EQ(s.find(at_present)->as_string_view(), "p");
  EXPECT_FALSE(s.erase(at_absent));

  s.set(at_absent, "\"a\"");  // added, not written over its twin
  m.emplace_back(absent, "\"a\"");
  EXPECT_EQ(str(s.dump()), dump_of(m));
  EXPECT_EQ(s.find(at_absent)->as_string_view(), "a");
  s.set(at_present, "7");  // replaced in place, its twin unchanged
  m[11].second = "7";
  EXPECT_EQ(str(s.dump()), dump_of(m));
  s.sync();

  EXPECT_TRUE(s.erase(at_present));
  m.erase(m.begin() + 11);
  EXPECT_FALSE(s.find(at_present));
  EXPECT_EQ(s.find(at_absent)->as_string_view(), "a");
  EXPECT_EQ(str(s.dump()), dump_of(m));
  s.sync();
  s.verify();

  auto r = fl::json_store::open(file(), fl::open_mode::read_only);
  EXPECT_FALSE(r.find(at_present));
  EXPECT_EQ(r.find(at_absent)->as_string_view(), "a");
  EXPECT_EQ(str(r.dump()), dump_of(m));
}

// A number set over a member of a tree is written where the edit's own
// lookup found its entry (no second descent by position): the last member of
// a repeated key, in a committed leaf and in one the same batch of edits
// copied, the other members unchanged.
TEST_F(JsonObjectTreeTest, ANumberSetOverAMemberWritesTheEntryItsLookupFound) {
  const shape_scope tiny({2, 4});
  auto s = fl::json_store::import(R"({"a":1,"b":2,"a":3,"c":4,"a":5,"d":6,"e":7,"f":8})", file());
  s.sync();
  ASSERT_TRUE(root_is_tree());
  s.set("/a", "9");
  EXPECT_EQ(str(s.dump()), R"({"a":1,"b":2,"a":3,"c":4,"a":9,"d":6,"e":7,"f":8})");
  s.set("/g", "10");  // copies the last leaves: later sets land in the copies
  s.set("/a", "11");
  s.set("/f", "12");
  s.set("/b", "13");
  const std::string want = R"({"a":1,"b":13,"a":3,"c":4,"a":11,"d":6,"e":7,"f":12,"g":10})";
  EXPECT_EQ(str(s.dump()), want);
  EXPECT_EQ(s.find("/a")->as_int64(), 11);
  s.sync();
  s.verify();
  auto again = fl::json_store::open(file());
  EXPECT_EQ(str(again.dump()), want);
}

// A refused patch puts each member it removed back in its place: between
// its neighbours' seqs in a tree, at its index in a flat table, and, where a
// tree was rebuilt since (a flat table grown past leaf_max numbers its
// members again, leaving no seq between two neighbours), by copying the
// object whole. Every shape a rollback passes through: removes at the
// front, in the middle and at the end, a repeated key, a move to another
// object and onto itself, an object emptied to a flat table and grown
// back into a tree.
TEST_F(JsonObjectTreeTest, ARefusedPatchPutsRemovedMembersBackInTheirPlaces) {
  const shape_scope tiny({4, 4});
  const model m = numbered(24);
  std::string text = R"({"o":)" + dump_of(m) + R"(,"p":{"x":1},"d":{"a":1,"b":2,"a":3,"c":4,"a":5,"e":6}})";
  auto s = fl::json_store::import(text, file());
  s.sync();
  const std::string before = str(s.dump());
  const auto refused = [&](const std::string& ops) {
    EXPECT_THROW(s.apply_patch("[" + ops + R"({"op":"test","path":"/p/x","value":2}])"),
                 std::invalid_argument);
    EXPECT_EQ(str(s.dump()), before) << ops;
    s.verify();
  };
  const auto remove = [](const std::string& path) {
    return R"({"op":"remove","path":")" + path + R"("},)";
  };
  refused(remove("/o/k0") + remove("/o/k12") + remove("/o/k23") + remove("/o/k11"));
  refused(remove("/d/a") + remove("/d/a") + R"({"op":"add","path":"/d/a","value":7},)");
  refused(R"({"op":"move","from":"/o/k5","path":"/p/k5"},)"
          R"({"op":"move","from":"/o/k6","path":"/o/k6"},)"
          R"({"op":"move","from":"/o/k7","path":"/o/z"},)");
  // Emptied to a flat table (keeping k0 and `kept`) and grown back into a
  // tree, whose members a rollback then puts back between members it
  // numbered again.
  const auto emptied = [&](int kept) {
    std::string ops = remove("/o/k" + std::to_string(kept));
    for (int i = 23; i >= 1; --i)
      if (i != kept) ops += remove("/o/k" + std::to_string(i));
    for (int i = 0; i < 30; ++i)
      ops += R"({"op":"add","path":"/o/n)" + std::to_string(i) + R"(","value":0},)";
    return ops;
  };
  refused(emptied(23));
  refused(emptied(3));
  refused(emptied(12));
  s.sync();
  s.verify();
  EXPECT_EQ(str(fl::json_store::open(file()).dump()), before);
}

// The undo of a removed member costs what the removal does: a refused patch
// that removes a member of an object of 100,000 leaves a commit of a few
// pages (its inverse put the whole object back before: 3.6 MB).
TEST_F(JsonObjectTreeTest, ARefusedPatchOfABigObjectCommitsLogarithmicallyFewPages) {
  auto s = fl::json_store::import(R"({"o":)" + dump_of(numbered(100'000)) + "}", file());
  s.sync();
  s.set("/warm", R"("up the free lists")");
  s.sync();
  const fl_test::commit_cost c = fl_test::cost_of_commit(s, [](fl::json_store& x) {
    EXPECT_THROW(x.apply_patch(R"([{"op":"remove","path":"/o/k500"},)"
                               R"({"op":"move","from":"/o/k7","path":"/o/k7"},)"
                               R"({"op":"test","path":"/o/k9","value":0}])"),
                 std::invalid_argument);
  });
  EXPECT_LE(c.grown_bytes, 80u * 1024);
  EXPECT_LE(c.pages, 40u);
  const fl::json_value o = *s.find("/o");
  ASSERT_EQ(o.size(), 100'000u);
  std::size_t i = 0;
  for (const fl::json_member& m : o.members()) {
    if (m.key != "k" + std::to_string(i)) {
      ADD_FAILURE() << "member " << i << " is " << m.key;
      break;
    }
    ++i;
  }
  s.verify();
}

// Iteration reads each member once, in document order, from its leaf.
TEST_F(JsonObjectTreeTest, MembersIterateInOrder) {
  const shape_scope tiny({4, 4});
  const model m = numbered(1000);
  auto s = fl::json_store::import(dump_of(m), file());
  std::size_t i = 0;
  for (const auto& [k, v] : s.root().members()) {
    EXPECT_EQ(k, m[i].first);
    EXPECT_EQ(v.as_int64(), static_cast<std::int64_t>(i));
    ++i;
  }
  EXPECT_EQ(i, 1000u);
  EXPECT_EQ(s.find("/k999")->as_int64(), 999);
  EXPECT_FALSE(s.find("/k1000"));
  EXPECT_EQ(str(s.dump()), dump_of(m));
}

// A format-4 store keeps its objects flat (a format-4 build reads it after
// any edit); compact() rewrites it in the newest format, its big objects as trees.
TEST_F(JsonObjectTreeTest, AFormat4StoreStaysFlatUntilCompacted) {
  const shape_scope tiny({4, 4});
  fl::json_store::import(R"({"a":1,"b":[1,2,3,4,5,6]})", file()).sync();
  {
    fl::mapped_space space(file());
    space.get(space.root<fj::json_head>())->version = 4;
    space.sync();
  }
  model want{{"a", "1"}, {"b", "[1,2,3,4,5,6]"}};
  {
    auto s = fl::json_store::open(file());
    for (int i = 0; i < 20; ++i) {
      s.set("/m" + std::to_string(i), std::to_string(i));
      want.emplace_back("m" + std::to_string(i), std::to_string(i));
    }
    s.erase("/m3");
    want.erase(want.begin() + 5);
    s.sync();
    s.verify();
    EXPECT_EQ(str(s.dump()), dump_of(want));
  }
  EXPECT_FALSE(root_is_tree());
  {
    auto s = fl::json_store::open(file());
    s.compact();
    s.sync();
    s.verify();
    EXPECT_EQ(str(s.dump()), dump_of(want));
  }
  EXPECT_TRUE(root_is_tree());
  fl::mapped_space space(file(), fl::mapped_space_options{.mode = fl::open_mode::read_only});
  EXPECT_EQ(space.get(space.root<fj::json_head>())->version, fj::format_version);
}

// tests/data/json_v5/store.fljson: a store written by the last build of
// format 5 (whose key entries carry no hash) with tree_shape {4, 4}: the
// import of {"big":{60 members, then "k0":"dup"},"small":{"a":1},"arr":[1,2,3]}
// (big's keys below), then four commits: 20 members added to big
// ("added_<13 i>": -i), 10 erased ("key_<3 i + 1>"), "k0" set to "set"
// (the last of the two), then 30 members added to small, which made it a
// tree by an edit ("s<17 i % 1000>": i). This build opens it, finds every
// member, edits it in format 5 (a format-5 build still reads it), and
// compact() rewrites it in format 6.
model format5_big() {
  model big;
  for (int i = 0; i < 60; ++i) {
    const std::string k = i % 3 == 0   ? "k" + std::to_string(i * 7919 % 1000)
                          : i % 3 == 1 ? "key_" + std::to_string(i)
                                       : "x" + std::to_string(i * 31);
    big.emplace_back(k, std::to_string(i));
  }
  big.emplace_back("k0", "\"set\"");  // "dup", then set
  for (int i = 0; i < 20; ++i) big.emplace_back("added_" + std::to_string(i * 13), std::to_string(-i));
  for (int i = 0; i < 10; ++i) {
    const std::string k = "key_" + std::to_string(3 * i + 1);
    big.erase(std::find_if(big.begin(), big.end(), [&](const auto& m) { return m.first == k; }));
  }
  return big;
}

std::uint32_t version_of(const std::filesystem::path& file) {
  fl::mapped_space space(file, fl::mapped_space_options{.mode = fl::open_mode::read_only});
  return space.get(space.root<fj::json_head>())->version;
}

TEST_F(JsonObjectTreeTest, AFormat5StoreIsReadAndEditedInItsOrderAndCompactedToFormat6) {
  const shape_scope tiny({4, 4});
  std::filesystem::copy_file(std::filesystem::path(FL_JSON_DATA_DIR) / "json_v5" / "store.fljson",
                             file());
  ASSERT_EQ(version_of(file()), 5u);
  model big = format5_big(), small{{"a", "1"}};
  for (int i = 0; i < 30; ++i) small.emplace_back("s" + std::to_string(i * 17 % 1000), std::to_string(i));
  const auto whole = [&] {
    return "{\"big\":" + dump_of(big) + ",\"small\":" + dump_of(small) + ",\"arr\":[1,2,3]}";
  };
  // Every member by its key (a repeated key: its last member's value).
  const auto check = [&](const fl::json_store& s) {
    SCOPED_TRACE(s.sequence());
    s.verify();
    EXPECT_EQ(str(s.dump()), whole());
    for (const auto* m : {&big, &small}) {
      const std::string prefix = m == &big ? "/big/" : "/small/";
      for (const auto& [k, v] : *m) {
        const auto last = std::find_if(m->rbegin(), m->rend(), [&](const auto& x) { return x.first == k; });
        const auto got = s.find(prefix + k);
        ASSERT_TRUE(got) << k;
        EXPECT_EQ(str(got->dump()), last->second) << k;
      }
    }
    EXPECT_FALSE(s.find("/big/key_1"));
    EXPECT_FALSE(s.find("/big/nothing"));
  };
  {
    auto s = fl::json_store::open(file());
    check(s);
    // Edits of both trees in format 5's order: adds, erases (some of the
    // added), sets, across commits.
    for (int round = 0; round < 3; ++round) {
      for (int i = 0; i < 12; ++i) {
        const std::string k = "n" + std::to_string(round * 100 + i * 7);
        s.set("/big/" + k, std::to_string(i));
        big.emplace_back(k, std::to_string(i));
        s.set("/small/" + k, "true");
        small.emplace_back(k, "true");
      }
      for (int i = 0; i < 5; ++i) {
        const std::string k = big[static_cast<std::size_t>(3 + 7 * i + round)].first;
        if (k == "k0") continue;
        EXPECT_TRUE(s.erase("/big/" + k));
        big.erase(std::find_if(big.begin(), big.end(), [&](const auto& m) { return m.first == k; }));
      }
      s.set("/small/s17", std::to_string(round));
      std::find_if(small.begin(), small.end(), [](const auto& m) { return m.first == "s17"; })->second =
          std::to_string(round);
      s.sync();
      check(s);
    }
  }
  EXPECT_EQ(version_of(file()), 5u);  // edited in its own format
  {
    auto s = fl::json_store::open(file());
    check(s);
    s.compact();
    s.sync();
    check(s);
    s.set("/big/after", "1");
    big.emplace_back("after", "1");
    EXPECT_TRUE(s.erase("/small/s0"));
    small.erase(std::find_if(small.begin(), small.end(), [](const auto& m) { return m.first == "s0"; }));
    s.sync();
    check(s);
  }
  EXPECT_EQ(version_of(file()), fj::format_version);
  check(fl::json_store::open(file()));
}

// A key entry whose hash is not its key's (a format-6 file crafted through
// the space, so every checksum matches): verify() names it.
TEST_F(JsonObjectTreeTest, AKeyEntryWithAnotherHashFailsVerify) {
  const shape_scope tiny({4, 4});
  fl::json_store::import(dump_of(numbered(40)), file()).sync();
  {
    fl::mapped_space space(file());
    const fj::json_ref o = space.get(space.root<fj::json_head>())->root;
    ASSERT_TRUE(o.tree());
    std::uint64_t node = reinterpret_cast<fj::object_tree*>(space.get(fl::fptr<char>(o.x)))->keys;
    for (;;) {  // down the first children to the first leaf
      char* p = space.get(fl::fptr<char>(node));
      fj::tree_node h;
      std::memcpy(&h, p, sizeof h);
      if (h.level == 0) {
        // Its second entry: no separator above copies it.
        fj::key_entry e;
        std::memcpy(&e, p + sizeof h + sizeof e, sizeof e);
        e.hash ^= 1;
        std::memcpy(p + sizeof h + sizeof e, &e, sizeof e);
        break;
      }
      fj::key_child c;
      std::memcpy(&c, p + sizeof h, sizeof c);
      node = c.node;
    }
    space.sync();
  }
  auto s = fl::json_store::open(file());
  try {
    (void)s.verify();
    ADD_FAILURE() << "verify() passed";
  } catch (const fl::persist_error& e) {
    EXPECT_NE(std::string(e.what()).find("carries hash"), std::string::npos) << e.what();
  }
}

// Crafted object trees (through the space, so every checksum matches):
// verify, lookups, edits, and (when the member tree is damaged) dump and
// compact raise persist_error.
enum class craft { head_tag, node_tag, self_child, key_count };

void craft_object(const std::filesystem::path& file, craft how) {
  fl::mapped_space space(file);
  const fj::json_ref o = space.get(space.root<fj::json_head>())->root;
  ASSERT_TRUE(o.tree());
  auto* h = reinterpret_cast<fj::object_tree*>(space.get(fl::fptr<char>(o.x)));
  char* root = space.get(fl::fptr<char>(h->members));
  fj::member_child c;
  std::memcpy(&c, root + sizeof(fj::tree_node), sizeof c);
  switch (how) {
    case craft::head_tag: h->tag = 0; break;
    case craft::node_tag: h->keys = h->members; break;  // the key tree's root is a member node
    case craft::self_child:
      c.node = h->members;
      std::memcpy(root + sizeof(fj::tree_node), &c, sizeof c);
      break;
    case craft::key_count: {
      fj::key_child k;
      char* kroot = space.get(fl::fptr<char>(h->keys));
      std::memcpy(&k, kroot + sizeof(fj::tree_node), sizeof k);
      k.count += 3;
      std::memcpy(kroot + sizeof(fj::tree_node), &k, sizeof k);
      break;
    }
  }
  space.sync();
}

TEST_F(JsonObjectTreeTest, CraftedTreesRaisePersistError) {
  const shape_scope tiny({2, 4});
  for (craft how : {craft::head_tag, craft::node_tag, craft::self_child, craft::key_count}) {
    SCOPED_TRACE(static_cast<int>(how));
    fl::json_store::import(dump_of(numbered(40)), file()).sync();
    craft_object(file(), how);
    auto s = fl::json_store::open(file());
    EXPECT_THROW((void)s.verify(), fl::persist_error);
    // A lookup or an edit reads the nodes on its paths only: the self
    // child is the root's first, on the path to k0 (and a count that lies
    // is met by an edit's checks, not by a lookup's descent).
    if (how == craft::self_child) {
      EXPECT_THROW((void)s.find("/k0"), fl::persist_error);
      EXPECT_THROW(s.erase("/k0"), fl::persist_error);
    } else {
      if (how != craft::key_count) { EXPECT_THROW((void)s.find("/k39"), fl::persist_error); }
      EXPECT_THROW(s.set("/new", "1"), fl::persist_error);
    }
    EXPECT_THROW(s.set("", "1"), fl::persist_error);  // replacing it walks all of it
    if (how == craft::head_tag || how == craft::self_child) {
      EXPECT_THROW((void)s.dump(), fl::persist_error);
      EXPECT_THROW(s.compact(), fl::persist_error);
    } else {
      // The key tree is an index of the member tree, which holds the
      // document: dump() and compact() read the members only, and the
      // compact copy has a sound key tree again.
      EXPECT_EQ(str(s.dump()), dump_of(numbered(40)));
      s.compact();
      s.sync();
      s.verify();
      EXPECT_EQ(s.find("/k39")->as_int64(), 39);
    }
  }
}

// A member tree's last leaf moved, through the space, into the middle of a
// block the document does not name: its offset is no block of the space.
// Past in_place_after edits since a commit an edit writes over committed
// nodes in place, and an insert first asks the leaf's block for room:
// persist_error, where it once let std::invalid_argument escape (found by
// json_open_fuzz).
TEST_F(JsonObjectTreeTest, AnInsertInPlaceIntoANodeThatIsNotABlockRaisesPersistError) {
  const shape_scope tiny({4, 4});
  // 10 members: three leaves, the last of 3 with room for the insert.
  fl::json_store::import(dump_of(numbered(10)), file()).sync();
  {
    fl::mapped_space space(file());
    const fj::json_ref o = space.get(space.root<fj::json_head>())->root;
    ASSERT_TRUE(o.tree());
    const auto* h = reinterpret_cast<const fj::object_tree*>(space.get(fl::fptr<char>(o.x)));
    char* root = space.get(fl::fptr<char>(h->members));
    fj::tree_node rh;
    std::memcpy(&rh, root, sizeof rh);
    ASSERT_EQ(rh.level, 1);
    ASSERT_EQ(rh.count, 3);
    char* last_at = root + sizeof rh + (rh.count - 1u) * sizeof(fj::member_child);
    fj::member_child last;
    std::memcpy(&last, last_at, sizeof last);
    ASSERT_EQ(last.count, 3u);
    const std::size_t leaf = fj::object_node_bytes(sizeof(fj::member_entry), 4);
    const fl::fptr<char> big(space.allocate(leaf + 64, 16).offset());
    std::memset(space.get(big), 0, leaf + 64);
    std::memcpy(space.get(big) + 32, space.get(fl::fptr<char>(last.node)), leaf);
    last.node = big.offset() + 32;
    std::memcpy(last_at, &last, sizeof last);
    space.sync();
  }
  auto s = fl::json_store::open(file());
  // More edits than store_file::in_place_after (4), in k0's leaf, the first.
  for (int i = 0; i < 5; ++i) s.set("/k0", std::to_string(100 + i));
  EXPECT_THROW(s.set("/new", "1"), fl::persist_error);
}

// json_diff between two object trees (members added, removed, changed and
// moved), at_pointer through one, and the patch applied to `from` makes it
// `to` exactly, order included.
TEST_F(JsonObjectTreeTest, DiffAndPointersReadTrees) {
  const shape_scope tiny({2, 4});
  model from = numbered(30), to = numbered(30);
  to.erase(to.begin() + 3);
  to[10].second = R"({"x":[1,2]})";
  to.emplace_back("added", "true");
  std::rotate(to.begin() + 20, to.begin() + 21, to.end());
  auto a = fl::json_store::import(dump_of(from), file());
  auto b = fl::json_store::import(dump_of(to), dir.path() / "to.fl");
  EXPECT_EQ(a.root().at_pointer("/k29")->as_int64(), 29);
  EXPECT_EQ(str(b.root().at_pointer("/k11/x/1")->dump()), "2");
  const fl::string patch = fl::json_diff(a.root(), b.root());
  a.apply_patch(patch);
  EXPECT_EQ(str(a.dump()), dump_of(to));
  a.sync();
  a.verify();
  a.merge_patch(R"({"k0":null,"k1":{"deep":1},"new":"m"})");
  EXPECT_EQ(str(*a.at("/k1/deep")), "1");
  EXPECT_FALSE(a.find("/k0"));
  EXPECT_EQ(str(*a.at("/new")), R"("m")");
  a.sync();
  a.verify();
}

}  // namespace
