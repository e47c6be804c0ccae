// fl::json_store over whole documents: the benchmark documents (real when
// found, generated always: tests/support/json_documents.hpp) imported, dumped
// and reopened, and random edits replayed on fl and on nlohmann::ordered_json,
// on random documents and on the benchmark documents.
#include <fl/json_store.hpp>

#include "json_pointers.hpp"
#include "json_test_support.hpp"
#include "store_dir_test.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#ifdef FL_TEST_HAVE_NLOHMANN
#include <nlohmann/json.hpp>
#endif

namespace {

using fl_test::str;
using JsonStoreTest = fl_test::store_dir_test;

// ---- the benchmark documents --------------------------------------------------------
//
// Each runs over the generated stand-in of the document and, when it is found
// (FL_JSON_DATA or the shared data directory), the real one too.

class JsonDocumentTest : public JsonStoreTest, public ::testing::WithParamInterface<const char*> {};

TEST_P(JsonDocumentTest, ImportDumpReopen) {
  for (const auto& doc : fl_test::json_documents_like(GetParam())) {
    SCOPED_TRACE(doc.name);
    std::filesystem::remove(file());
    std::filesystem::remove(file().string() + "-log");
    auto s = fl::json_store::import(doc.text, file());
    const std::string d = str(s.dump());
#ifdef FL_TEST_HAVE_NLOHMANN
    EXPECT_EQ(nlohmann::ordered_json::parse(d), nlohmann::ordered_json::parse(doc.text));
#endif
    s.sync();
    { const fl::json_store closing = std::move(s); }
    auto r = fl::json_store::open(file());
    EXPECT_EQ(str(r.dump()), d);
    if (std::string_view(GetParam()) == "twitter.json") {
      EXPECT_EQ(r.find("/statuses")->size(), 100u);
      EXPECT_EQ(r.find("/search_metadata/count")->as_int64(), 100);
      // 64-bit ids: the number and its decimal string agree.
      for (int i : {0, 42, 99}) {
        const std::string at = "/statuses/" + std::to_string(i);
        EXPECT_EQ(std::to_string(r.find(at + "/id")->as_uint64()),
                  r.find(at + "/id_str")->as_string_view())
            << at;
      }
      EXPECT_GT(r.find("/statuses/99/user/screen_name")->as_string_view().size(), 0u);
      if (!doc.generated) {
        EXPECT_EQ(r.find("/statuses/0/id")->as_uint64(), 505874924095815681ull);
      }
    } else {
      EXPECT_GT(r.find("/performances")->size(), 200u);
      EXPECT_GT(r.find("/performances/200/seatCategories/0/areas/0/areaId")->as_uint64(), 0u);
      EXPECT_GT(r.find("/events")->size(), 100u);
    }
    std::printf("%s: %zu bytes imported, dumped and reopened\n", doc.name.c_str(), doc.text.size());
  }
}

INSTANTIATE_TEST_SUITE_P(Documents, JsonDocumentTest,
                         ::testing::Values("twitter.json", "citm_catalog.json"));

// The generated documents are the same text on every call and about the size
// of the real ones, whose benchmark rows they stand in for.
TEST(JsonGeneratedDocuments, StableAndSizedLikeTheRealOnes) {
  const std::string twitter = fl_test::generated_twitter(), citm = fl_test::generated_citm();
  EXPECT_EQ(fl_test::generated_twitter(), twitter);
  EXPECT_EQ(fl_test::generated_citm(), citm);
  EXPECT_NEAR(static_cast<double>(twitter.size()), 631515.0, 631515.0 * 0.05);
  EXPECT_NEAR(static_cast<double>(citm.size()), 1727204.0, 1727204.0 * 0.05);
  // Much non-ASCII text in the one, numeric-string keys in the other.
  std::size_t high = 0;
  for (const char c : twitter) high += static_cast<unsigned char>(c) >= 0x80;
  EXPECT_GT(high, twitter.size() / 10);
  EXPECT_NE(twitter.find("\xF0\x9F"), std::string::npos);  // 4-byte UTF-8 (emoji)
  EXPECT_NE(citm.find("\"areaNames\": {\n        \"205705993\": "), std::string::npos);
}

// ---- differential ---------------------------------------------------------------------

#ifdef FL_TEST_HAVE_NLOHMANN
using ojson = nlohmann::ordered_json;

struct doc_gen {
  std::mt19937_64& rng;
  std::uint64_t below(std::uint64_t n) { return rng() % n; }
  std::string key() {
    static const char* const keys[] = {"a",  "b",    "id",       "",  "x/y",  "m~n",
                                       "~1", "name", "\xC3\xA9", "k", "text", "0"};
    return keys[below(std::size(keys))] + (below(3) ? std::string() : std::to_string(below(40)));
  }
  std::string str() {
    static const char* const pieces[] = {
        "a", "\"", "\\", "\n", "\x01", "\xC3\xA9", "\xF0\x9F\x98\x80", "/", " ", "z"};
    std::string s;
    for (std::uint64_t n = below(8); n; --n) s += pieces[below(std::size(pieces))];
    return s;
  }
  ojson value(int depth) {
    switch (below(depth > 3 ? 6 : 9)) {
      case 0: return nullptr;
      case 1: return below(2) == 1;
      case 2: return static_cast<std::int64_t>(rng());
      case 3:
        return std::ldexp(static_cast<double>(rng() % 1000000) - 500000.0,
                          static_cast<int>(below(80)) - 40);
      case 4: return static_cast<std::uint64_t>(rng() | (std::uint64_t{1} << 63));
      case 5: return str();
      case 6:
      case 7: {
        ojson o = ojson::object();
        for (std::uint64_t n = below(depth == 0 ? 24 : 6); n; --n) o[key()] = value(depth + 1);
        return o;
      }
      default: {
        ojson a = ojson::array();
        for (std::uint64_t n = below(6); n; --n) a.push_back(value(depth + 1));
        return a;
      }
    }
  }
};

// One random edit at pointer `p`, made to the store and to the model alike:
// replace the value, add or replace a member, append (at "-", or at the
// index size() when `by_index`), or erase. New values nest up to `depth`
// levels. False when the edit drawn does not fit the value at `p`.
bool random_edit(fl::json_store& s, ojson& model, const std::string& p, doc_gen& gen, int depth,
                 bool by_index) {
  const ojson::json_pointer jp(p);
  ojson& target = model.at(jp);
  switch (gen.below(4)) {
    case 0: {  // replace
      if (p.empty()) return false;
      const ojson v = gen.value(depth);
      s.set(p, v.dump());
      target = v;
      return true;
    }
    case 1: {  // add or replace a member
      if (!target.is_object()) return false;
      const std::string k = gen.key();
      const ojson v = gen.value(depth);
      s.set(p + "/" + fl_test::pointer_token(k), v.dump());
      target[k] = v;
      return true;
    }
    case 2: {  // append
      if (!target.is_array()) return false;
      const ojson v = gen.value(depth);
      s.set(p + (by_index && gen.below(2) ? "/" + std::to_string(target.size()) : "/-"), v.dump());
      target.push_back(v);
      return true;
    }
    default: {  // erase
      if (p.empty()) return false;
      EXPECT_TRUE(s.erase(p)) << p;
      ojson& parent = model.at(jp.parent_pointer());
      if (parent.is_object())
        parent.erase(jp.back());
      else
        parent.erase(static_cast<std::size_t>(std::stoul(jp.back())));
      return true;
    }
  }
}

TEST_F(JsonStoreTest, RandomEditsAgreeWithNlohmann) {
  const auto seed = fl_test::test_seed();
  std::mt19937_64 rng(seed);
  doc_gen gen{rng};
  int steps = 0, reopens = 0;
  for (int round = 0; round < 12; ++round) {
    ojson model = gen.value(0);
    if (!model.is_object()) model = ojson{{"root", model}};
    auto s = fl::json_store::import(model.dump(), file());
    s.sync();
    ojson committed = model;
    for (int step = 0; step < 150; ++step, ++steps) {
      std::vector<std::string> ptrs;
      fl_test::collect_pointers(model, "", ptrs);
      const std::string& p = ptrs[gen.below(ptrs.size())];
      if (!random_edit(s, model, p, gen, 2, true)) { EXPECT_FALSE(s.erase(p + "/no~1such")); }
      ASSERT_EQ(ojson::parse(str(s.dump())), model)
          << "seed " << seed << " round " << round << " step " << step;
      if (gen.below(8) == 0) {
        s.sync();
        committed = model;
      }
      if (gen.below(25) == 0) {  // reopen: unsynced edits are gone
        { const fl::json_store closing = std::move(s); }
        s = fl::json_store::open(file());
        model = committed;
        ++reopens;
        ASSERT_EQ(ojson::parse(str(s.dump())), model)
            << "seed " << seed << " round " << round << " step " << step;
      }
    }
    s.sync();
    { const fl::json_store closing = std::move(s); }
    ASSERT_EQ(ojson::parse(str(fl::json_store::open(file()).dump())), model) << "seed " << seed;
  }
  std::printf("differential: %d edits, %d reopens agree with nlohmann::ordered_json (seed %llu)\n",
              steps, reopens, static_cast<unsigned long long>(seed));
}

// Random edits on the benchmark documents (generated, and real when found),
// against nlohmann::ordered_json: replacements of any value (containers
// too), new members, appends and erases at pointers picked from the document,
// checked by whole dumps, a commit and a reopen. Fewer edits under the
// sanitizers, where parsing and comparing the documents dominates.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr int document_edit_steps = 100;
#else
constexpr int document_edit_steps = 300;
#endif

TEST_P(JsonDocumentTest, RandomEditsAgreeWithNlohmann) {
  const auto seed = fl_test::test_seed();
  for (const auto& doc : fl_test::json_documents_like(GetParam())) {
    SCOPED_TRACE(doc.name);
    std::mt19937_64 rng(seed);
    doc_gen gen{rng};
    std::filesystem::remove(file());
    std::filesystem::remove(file().string() + "-log");
    auto s = fl::json_store::import(doc.text, file());
    ojson model = ojson::parse(doc.text);
    std::vector<std::string> ptrs;
    fl_test::collect_pointers(model, "", ptrs);
    int edits = 0;
    for (int step = 0; step < document_edit_steps; ++step) {
      const std::string& p = ptrs[gen.below(ptrs.size())];
      if (p.empty() || !model.contains(ojson::json_pointer(p)))
        continue;  // gone with an earlier edit
      if (!random_edit(s, model, p, gen, 3, false)) continue;
      ++edits;
      if (step % 100 == 50) {
        ASSERT_EQ(ojson::parse(str(s.dump())), model) << "seed " << seed << " step " << step;
      }
    }
    s.sync();
    { const fl::json_store closing = std::move(s); }
    ASSERT_EQ(ojson::parse(str(fl::json_store::open(file()).dump())), model) << "seed " << seed;
    std::printf("%s: %d random edits agree with nlohmann::ordered_json (seed %llu)\n",
                doc.name.c_str(), edits, static_cast<unsigned long long>(seed));
  }
}
#else
TEST_F(JsonStoreTest, RandomEditsAgreeWithNlohmann) {
  GTEST_SKIP() << "nlohmann/json.hpp not found (nlohmann-json3-dev)";
}
TEST_P(JsonDocumentTest, RandomEditsAgreeWithNlohmann) {
  GTEST_SKIP() << "nlohmann/json.hpp not found (nlohmann-json3-dev)";
}
#endif

}  // namespace
