// fl::json_store array trees (format 4, fl/detail/json_format.hpp): a big
// array is a B+-tree of blocks whose edits copy one descent path, so an
// edit adds and retires O(log n) blocks and a commit writes O(log n) pages;
// small arrays stay flat tables; format-3 files keep their arrays flat; a
// crafted tree (a node that is not one, a cycle of levels, counts that
// disagree) raises persist_error instead of looping or reading wild.
#include <fl/detail/json_format.hpp>
#include <fl/json_store.hpp>
#include <fl/mapped_space.hpp>

#include "json_test_support.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace fj = fl::detail::json;

std::string str(const fl::string& s) { return std::string(std::string_view(s)); }

// "[0,1,...,n-1]"
std::string numbers(std::size_t n) {
  std::string t = "[";
  for (std::size_t i = 0; i < n; ++i) t += (i ? "," : "") + std::to_string(i);
  return t + "]";
}

std::string dump_of(const std::vector<long>& v) {
  std::string t = "[";
  for (std::size_t i = 0; i < v.size(); ++i) t += (i ? "," : "") + std::to_string(v[i]);
  return t + "]";
}

class shape_scope {
 public:
  explicit shape_scope(fj::tree_shape s) { fj::set_tree_shape(s); }
  ~shape_scope() { fj::set_tree_shape({}); }
  shape_scope(const shape_scope&) = delete;
  shape_scope& operator=(const shape_scope&) = delete;
};

// The json_ref of member `key` of the committed root object, read through
// the space (as a crafted-file test writes it).
fj::json_ref member_ref(fl::mapped_space& space, std::string_view key,
                        std::uint64_t* at = nullptr) {
  const fj::json_ref root = space.get(space.root<fj::json_head>())->root;
  for (std::uint32_t i = 0; i < root.n; ++i) {
    fj::json_member m;
    const std::uint64_t off = root.x + std::uint64_t{i} * sizeof m;
    std::memcpy(&m, space.get(fl::fptr<char>(off)), sizeof m);
    if (std::string_view(space.get(fl::fptr<char>(m.key)), m.key_len) == key) {
      if (at) *at = off + offsetof(fj::json_member, value);
      return m.value;
    }
  }
  ADD_FAILURE() << "no member " << key;
  return {};
}

struct JsonTreeTest : ::testing::Test {
  fl_test::temp_dir dir{"fl_tree_"};
  std::filesystem::path file() const { return dir.path() / "store.fl"; }
  // Whether the committed member `key` is an array tree.
  bool is_tree(std::string_view key) const {
    fl::mapped_space space(file(), fl::mapped_space_options{.mode = fl::open_mode::read_only});
    return member_ref(space, key).tree();
  }
};

TEST_F(JsonTreeTest, SmallArraysStayFlatAndBigOnesAreTrees) {
  const std::uint32_t leaf = fj::tree_shape{}.leaf_max;
  auto s = fl::json_store::import(
      R"({"small":)" + numbers(leaf) + R"(,"big":)" + numbers(leaf + 1) + "}", file());
  s.sync();
  { const fl::json_store closing = std::move(s); }
  EXPECT_FALSE(is_tree("small"));
  EXPECT_TRUE(is_tree("big"));
  auto t = fl::json_store::open(file());
  EXPECT_EQ(t.find("/big")->size(), leaf + 1);
  EXPECT_EQ(t.find("/big/255")->as_int64(), 255);
  // One more element makes the flat one a tree; erased until no two leaves
  // keep tree_min_entries each, the tree is flat again.
  t.set("/small/-", "7");
  const std::uint32_t keep = 2 * fj::tree_min_entries(leaf) - 1;
  for (std::uint32_t i = 0; i < leaf + 1 - keep; ++i) ASSERT_TRUE(t.erase("/big/0"));
  t.sync();
  t.verify();
  { const fl::json_store closing = std::move(t); }
  EXPECT_TRUE(is_tree("small"));
  EXPECT_FALSE(is_tree("big"));
  auto u = fl::json_store::open(file());
  EXPECT_EQ(u.find("/big")->size(), keep);
  EXPECT_EQ(u.find("/big/0")->as_int64(), leaf + 1 - keep);
}

// The bound the format is for: at n = 200,000 an insert at the front, an
// append, a set and an erase each add a handful of blocks and a commit
// writes a handful of pages, where a flat table of 3.2 MB would copy it
// all (format 3: 782 pages a commit).
TEST_F(JsonTreeTest, AnEditOfABigArrayWritesLogarithmicallyFewPages) {
  auto s = fl::json_store::import(R"({"a":)" + numbers(200'000) + "}", file());
  s.sync();
  s.set("/a/-", R"("warm up the free lists")");
  s.sync();
  const auto edits = {+[](fl::json_store& x) { x.insert("/a/0", R"("front")"); },
                      +[](fl::json_store& x) { x.set("/a/-", R"("back")"); },
                      +[](fl::json_store& x) { x.set("/a/100000", R"("middle")"); },
                      +[](fl::json_store& x) { x.erase("/a/150000"); }};
  for (auto edit : edits) {
    const fl_test::commit_cost c = fl_test::cost_of_commit(s, edit);
    // Three levels of 4 KiB nodes, copied; the value's own small block.
    EXPECT_LE(c.grown_bytes, 4u * 4096);
    EXPECT_LE(c.pages, 24u);
  }
  EXPECT_EQ(str(*s.at("/a/0")), R"("front")");
  EXPECT_EQ(str(*s.at("/a/100000")), R"("middle")");
  EXPECT_EQ(s.find("/a")->size(), 200'002u);
  s.verify();
}

// Every edit at random places of an array against std::vector, with a
// tiny shape (trees from 5 elements, 2 to 4 entries a node) so that 3,000
// edits split, merge, borrow, grow and collapse trees of up to six levels,
// with commits, reopens, compactions and verify() between them.
TEST_F(JsonTreeTest, RandomEditsAgreeWithAVector) {
  const shape_scope tiny({4, 4});
  const std::uint64_t seed = fl_test::test_seed();
  std::mt19937_64 rng(seed);
  std::vector<long> want;
  for (long i = 0; i < 300; ++i) want.push_back(i);
  std::optional<fl::json_store> s;
  s.emplace(fl::json_store::import(R"({"a":)" + dump_of(want) + "}", file()));
  s->sync();
  for (int step = 0; step < 3000; ++step) {
    const std::uint64_t r = rng() % 100;
    const long value = static_cast<long>(rng() % 100000);
    const std::size_t n = want.size();
    if (r < 35 || n == 0) {
      const std::size_t at = rng() % (n + 1);
      s->insert("/a/" + (at == n && rng() % 2 ? std::string("-") : std::to_string(at)),
                std::to_string(value));
      want.insert(want.begin() + static_cast<std::ptrdiff_t>(at), value);
    } else if (r < 75) {
      const std::size_t at = rng() % n;
      ASSERT_TRUE(s->erase("/a/" + std::to_string(at))) << "seed " << seed << " step " << step;
      want.erase(want.begin() + static_cast<std::ptrdiff_t>(at));
    } else if (r < 95) {
      const std::size_t at = rng() % n;
      // A string has a block, so the set copies the path; a number is
      // written over the element in its leaf.
      if (rng() % 2) {
        s->set("/a/" + std::to_string(at), std::to_string(value));
      } else {
        s->set("/a/" + std::to_string(at), "[" + std::to_string(value) + "]");
        s->set("/a/" + std::to_string(at), std::to_string(value));
      }
      want[at] = value;
    } else if (r < 97) {
      s->sync();
      s->verify();
    } else if (r < 99) {
      s->sync();
      s.reset();
      s.emplace(fl::json_store::open(file()));
    } else {
      s->compact();
      s->sync();
    }
    ASSERT_EQ(str(*s->at("/a")), dump_of(want)) << "seed " << seed << " step " << step;
    if (!want.empty()) {
      const std::size_t at = rng() % want.size();
      ASSERT_EQ(s->find("/a/" + std::to_string(at))->as_int64(), want[at])
          << "seed " << seed << " step " << step;
    }
  }
  s->sync();
  s->verify();
  // Erased to nothing and grown again.
  while (!want.empty()) {
    s->erase("/a/0");
    want.erase(want.begin());
  }
  EXPECT_EQ(str(*s->at("/a")), "[]");
  for (int i = 0; i < 50; ++i) s->set("/a/-", std::to_string(i));
  s->sync();
  s->verify();
  EXPECT_EQ(s->find("/a/49")->as_int64(), 49);
}

// An import builds an array's tree as its elements come (the builder keeps
// at most two leaves' worth of them, and two nodes' worth at each level):
// every length, alone and nested in arrays, with tiny shapes (many levels)
// and the default one, reads back element by element, verifies, and takes
// edits at the front, the middle and the back.
TEST_F(JsonTreeTest, ImportedArraysOfEveryLengthBuildTheirTreesAsTheyCome) {
  int checked = 0;
  for (const fj::tree_shape shape : {fj::tree_shape{2, 4}, fj::tree_shape{4, 4}, fj::tree_shape{}}) {
    const shape_scope scope(shape);
    const std::size_t top = shape.leaf_max == 2 ? 300 : shape.leaf_max == 4 ? 200 : 1600;
    const std::size_t step = shape.leaf_max > 4 ? 97 : 1;
    for (std::size_t n = 0; n <= top; n += step) {
      std::vector<long> want;
      for (std::size_t i = 0; i < n; ++i) want.push_back(static_cast<long>(i));
      const std::string nested = "[" + numbers(n) + "," + numbers(n / 2) + ",[" + numbers(n / 3) + "]]";
      auto s = fl::json_store::import(R"({"a":)" + numbers(n) + R"(,"b":)" + nested + "}", file());
      s.sync();
      ASSERT_EQ(str(*s.at("/a")), dump_of(want)) << "n " << n;
      ASSERT_EQ(str(*s.at("/b")), nested) << "n " << n;
      for (std::size_t i = 0; i < n; i += 1 + n / 16)
        ASSERT_EQ(s.find("/a/" + std::to_string(i))->as_int64(), static_cast<long>(i));
      s.verify();
      s.insert("/a/0", "-1");
      want.insert(want.begin(), -1);
      if (n > 2) {
        s.erase("/a/" + std::to_string(n / 2));
        want.erase(want.begin() + static_cast<std::ptrdiff_t>(n / 2));
      }
      s.set("/a/-", "7");
      want.push_back(7);
      s.sync();
      s.verify();
      ASSERT_EQ(str(*s.at("/a")), dump_of(want)) << "n " << n;
      ++checked;
    }
  }
  std::printf("imported arrays: %d lengths and shapes\n", checked);
}

// Replacing a tree walks all of it to retire its nodes, within a budget of
// the space's live blocks: each node counts once (the model test found a
// tree counted twice, its ref and its root node, which ran the budget out
// on a document that is all tree).
TEST_F(JsonTreeTest, ReplacingADocumentThatIsATreeRetiresEveryNode) {
  const shape_scope tiny({4, 4});
  std::string doc = "[";
  for (int i = 0; i < 50; ++i) doc += (i ? "," : "") + numbers(5);  // trees of 3 nodes
  auto s = fl::json_store::import(doc + "]", file());
  s.sync();
  const std::uint64_t blocks = s.stats().live_blocks;
  s.set("", "1");
  s.sync();
  s.set("", "2");  // the retired batch is reusable after a commit
  s.sync();
  EXPECT_LE(s.stats().live_blocks, blocks);
  EXPECT_EQ(str(s.dump()), "2");
}

// Iteration and pointers read a tree as a table: in order, every element.
TEST_F(JsonTreeTest, ElementsIterateInOrder) {
  const shape_scope tiny({4, 4});
  auto s = fl::json_store::import(numbers(1000), file());
  long expect = 0;
  for (const fl::json_value& v : s.root().elements()) EXPECT_EQ(v.as_int64(), expect++);
  EXPECT_EQ(expect, 1000);
  EXPECT_EQ(s.root()[999].as_int64(), 999);
  EXPECT_THROW((void)s.root()[1000], std::out_of_range);
}

// A format-3 store keeps its arrays flat (a build that reads format 3
// reads it after any edit); compact() rewrites it as format 4.
TEST_F(JsonTreeTest, AFormat3StoreStaysFlatUntilCompacted) {
  const shape_scope tiny({4, 4});
  fl::json_store::import(R"({"a":[1,2,3]})", file()).sync();
  {
    fl::mapped_space space(file());
    space.get(space.root<fj::json_head>())->version = 3;
    space.sync();
  }
  {
    auto s = fl::json_store::open(file());
    for (int i = 0; i < 20; ++i) s.set("/a/-", std::to_string(i));
    s.sync();
    s.verify();
  }
  EXPECT_FALSE(is_tree("a"));
  {
    auto s = fl::json_store::open(file());
    s.compact();
    s.sync();
  }
  EXPECT_TRUE(is_tree("a"));
  fl::mapped_space space(file(), fl::mapped_space_options{.mode = fl::open_mode::read_only});
  EXPECT_EQ(space.get(space.root<fj::json_head>())->version, fj::format_version);
}

// A file of a newer format is refused by its version, as a format-3 build
// refuses a format-4 file.
TEST_F(JsonTreeTest, ANewerFormatIsRefusedByItsVersion) {
  fl::json_store::import(R"({"a":[1]})", file()).sync();
  {
    fl::mapped_space space(file());
    space.get(space.root<fj::json_head>())->version = fj::format_version + 1;
    space.sync();
  }
  try {
    (void)fl::json_store::open(file());
    FAIL() << "a newer format opened";
  } catch (const fl::persist_error& e) {
    EXPECT_NE(
        std::string(e.what()).find("format version " + std::to_string(fj::format_version + 1)),
        std::string::npos)
        << e.what();
  }
}

// Crafted trees (through the space, so every checksum matches): each read,
// edit, dump, compact and verify raises persist_error, and edits elsewhere
// still work.
enum class craft { self_child, wrong_tag, wrong_count };

void craft_tree(const std::filesystem::path& file, craft how) {
  fl::mapped_space space(file);
  const fj::json_ref a = member_ref(space, "a");
  ASSERT_TRUE(a.tree());
  fj::tree_node root;
  std::memcpy(&root, space.get(fl::fptr<char>(a.x)), sizeof root);
  ASSERT_GE(root.level, 1);
  fj::tree_child c;
  char* first = space.get(fl::fptr<char>(a.x + sizeof(fj::tree_node)));
  std::memcpy(&c, first, sizeof c);
  switch (how) {
    case craft::self_child: c.node = a.x; break;  // the root is its own child
    case craft::wrong_tag: {
      fj::tree_node child;
      std::memcpy(&child, space.get(fl::fptr<char>(c.node)), sizeof child);
      child.tag = 0;
      std::memcpy(space.get(fl::fptr<char>(c.node)), &child, sizeof child);
      break;
    }
    case craft::wrong_count: c.count += 1000; break;
  }
  std::memcpy(first, &c, sizeof c);
  space.sync();
}

TEST_F(JsonTreeTest, CraftedTreesRaiseDamage) {
  const shape_scope tiny({4, 4});
  for (const craft how : {craft::self_child, craft::wrong_tag, craft::wrong_count}) {
    SCOPED_TRACE(static_cast<int>(how));
    std::filesystem::remove(file());
    fl::json_store::import(R"({"a":)" + numbers(100) + R"(,"b":"keep"})", file()).sync();
    craft_tree(file(), how);
    auto s = fl::json_store::open(file());
    EXPECT_THROW((void)s.dump(), fl::persist_error);
    // The element a descent through the crafted node reaches.
    EXPECT_THROW((void)s.at(how == craft::wrong_count ? "/a/99" : "/a/0"), fl::persist_error);
    EXPECT_THROW(s.insert("/a/0", "1"), fl::persist_error);
    EXPECT_THROW(s.set("/a/5", R"("s")"), fl::persist_error);
    EXPECT_THROW(s.erase("/a"), fl::persist_error);
    EXPECT_THROW(s.compact(), fl::persist_error);
    EXPECT_THROW(s.verify(), fl::persist_error);
    s.set("/b", R"("edited")");
    s.sync();
    EXPECT_EQ(str(*s.at("/b")), R"("edited")");
  }
}

}  // namespace
