// fl::json_store edited for a long time: the file stays within twice a fresh
// import of the final document plus 1 MiB (blocks an edit replaces are
// reused once committed), compact() brings it within 1.2x of that import,
// and every step's edit agrees with a reference (nlohmann::ordered_json):
// the edited value after each step, the whole document every 1,000 steps,
// at each reopen and at the end.
//
// Counts: FL_CHURN_FULL=1 runs the full ones (1,000,000 edits of the small
// document, 100,000 of twitter.json); by default a scaled count keeps the
// test to a few seconds (smaller under sanitizers). twitter.json comes from
// FL_JSON_DATA or the shared data directory; without it, the generated
// document of its shape (json_documents.hpp).
#include <fl/json_store.hpp>
#include <fl/mapped_space.hpp>

#include "json_churn.hpp"
#include "json_documents.hpp"
#include "json_test_support.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#ifdef FL_TEST_HAVE_NLOHMANN
#include <nlohmann/json.hpp>
#endif

namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr std::uint64_t scale_down = 10;
#else
constexpr std::uint64_t scale_down = 1;
#endif

bool full_counts() {
  const char* e = std::getenv("FL_CHURN_FULL");
  return e != nullptr && *e == '1';
}

std::string str(const fl::string& s) { return std::string(std::string_view(s)); }

std::uint64_t bytes_of(const std::filesystem::path& p) { return std::filesystem::file_size(p); }

#ifdef FL_TEST_HAVE_NLOHMANN
using ojson = nlohmann::ordered_json;

void apply(ojson& model, const fl_test::churn_edit& e) {
  const ojson::json_pointer jp(e.pointer);
  ojson& parent = model.at(jp.parent_pointer());
  if (e.erase) {
    if (parent.is_object())
      parent.erase(jp.back());
    else
      parent.erase(static_cast<std::size_t>(std::stoul(jp.back())));
  } else if (parent.is_array() && jp.back() == "-") {
    parent.push_back(ojson::parse(e.text));
  } else {
    model[jp] = ojson::parse(e.text);
  }
}

// The pointer of the value an edit leaves to compare ("-" names the new last
// element; an erase compares the parent).
std::string check_pointer(const ojson& model, const fl_test::churn_edit& e) {
  const ojson::json_pointer jp(e.pointer);
  const std::string parent = jp.parent_pointer().to_string();
  if (e.erase) return parent;
  if (jp.back() == "-") return parent + "/" + std::to_string(model.at(jp.parent_pointer()).size() - 1);
  return e.pointer;
}

struct churn_result {
  std::uint64_t edits = 0;
  std::uint64_t max_bytes = 0;      // the file's largest size at a commit
  std::uint64_t end_bytes = 0;      // after the last commit
  std::uint64_t fresh_bytes = 0;    // a fresh import of the final document
  std::uint64_t compact_bytes = 0;  // after compact() and sync()
  fl::space_stats end_space;        // the space after the last commit
};

// Runs `edits` edits of `w` on a store imported from `text`, committing
// every `sync_every` edits and reopening every `reopen_every`.
churn_result churn(fl_test::churn_gen::workload w, const std::string& text, std::uint64_t edits,
                   std::uint64_t sync_every, std::uint64_t reopen_every) {
  const std::uint64_t seed = fl_test::test_seed();
  fl_test::temp_dir dir;
  const std::filesystem::path file = dir.path() / "churn.fl";
  ojson model = ojson::parse(text);
  const std::size_t statuses = model.contains("statuses") ? model["statuses"].size() : 0;
  fl_test::churn_gen gen(w, seed, statuses);
  auto s = fl::json_store::import(text, file);
  s.sync();
  churn_result r;
  r.edits = edits;
  for (std::uint64_t step = 1; step <= edits; ++step) {
    const fl_test::churn_edit e = gen.next();
    if (e.erase) {
      EXPECT_TRUE(s.erase(e.pointer)) << e.pointer << " seed " << seed << " step " << step;
    } else {
      s.set(e.pointer, e.text);
    }
    apply(model, e);
    const std::string at = check_pointer(model, e);
    const auto got = s.at(at);
    if (!got || ojson::parse(str(*got)) != model.at(ojson::json_pointer(at))) {
      ADD_FAILURE() << "seed " << seed << " step " << step << ": " << at << " differs";
      return r;
    }
    if (step % 1000 == 0 && ojson::parse(str(s.dump())) != model) {
      ADD_FAILURE() << "seed " << seed << " step " << step << ": the document differs";
      return r;
    }
    if (step % sync_every == 0) {
      s.sync();
      r.max_bytes = std::max(r.max_bytes, s.file_bytes());
    }
    if (step % reopen_every == 0) {
      s.sync();
      { const fl::json_store closing = std::move(s); }
      s = fl::json_store::open(file);
      if (ojson::parse(str(s.dump())) != model) {
        ADD_FAILURE() << "seed " << seed << " step " << step << ": differs after a reopen";
        return r;
      }
    }
  }
  s.sync();
  r.end_bytes = s.file_bytes();
  {
    const fl::json_store closing = std::move(s);
  }
  r.end_space = fl::mapped_space(file).stats();
  s = fl::json_store::open(file);
  r.max_bytes = std::max(r.max_bytes, r.end_bytes);
  EXPECT_EQ(ojson::parse(str(s.dump())), model) << "seed " << seed;
  {
    auto fresh = fl::json_store::import(str(s.dump()), dir.path() / "fresh.fl");
    fresh.sync();
  }
  r.fresh_bytes = bytes_of(dir.path() / "fresh.fl");
  s.compact();
  EXPECT_EQ(ojson::parse(str(s.dump())), model) << "after compact(), seed " << seed;
  s.sync();
  r.compact_bytes = bytes_of(file);
  { const fl::json_store closing = std::move(s); }
  EXPECT_EQ(ojson::parse(str(fl::json_store::open(file).dump())), model)
      << "reopened after compact(), seed " << seed;
  return r;
}

void report(const char* name, const churn_result& r) {
  std::printf(
      "%s: %llu edits: file at most %.2f MiB, %.2f MiB at the end (blocks end at %.2f MiB: "
      "%.2f live, %.2f free); fresh import %.2f MiB; compact %.2f MiB (%.2fx)\n",
      name, static_cast<unsigned long long>(r.edits), r.max_bytes / 1048576.0,
      r.end_bytes / 1048576.0, r.end_space.top / 1048576.0, r.end_space.used_bytes / 1048576.0,
      r.end_space.free_bytes / 1048576.0, r.fresh_bytes / 1048576.0, r.compact_bytes / 1048576.0,
      static_cast<double>(r.compact_bytes) / static_cast<double>(r.fresh_bytes));
  // The change feed's records come on top of the document: at most their
  // text budget (default_feed_bytes), twice that with their blocks' headers
  // and size classes; a fresh import holds none, a compaction keeps them.
  const std::uint64_t feed = 2 * fl::detail::json::default_feed_bytes;
  EXPECT_LE(r.max_bytes, 2 * r.fresh_bytes + (std::uint64_t{1} << 20) + feed) << name;
  EXPECT_LE(static_cast<double>(r.compact_bytes),
            1.2 * static_cast<double>(r.fresh_bytes) + static_cast<double>(feed))
      << name;
}

TEST(JsonChurn, SmallDocumentStaysBounded) {
  const std::uint64_t edits = full_counts() ? 1'000'000 : 60'000 / scale_down;
  const churn_result r = churn(fl_test::churn_gen::workload::small,
                               fl_test::churn_gen::small_document(), edits, 16, 25'000);
  report("churn_small", r);
}

TEST(JsonChurn, TwitterStaysBounded) {
  // twitter.json when present, else the generated document of its shape.
  const std::string text =
      fl_test::json_document("twitter.json").value_or(fl_test::generated_twitter());
  const std::uint64_t edits = full_counts() ? 100'000 : 6'000 / scale_down;
  const churn_result r =
      churn(fl_test::churn_gen::workload::twitter, text, edits, 16, 2'500);
  report("churn_twitter", r);
}
#else
TEST(JsonChurn, SmallDocumentStaysBounded) {
  GTEST_SKIP() << "nlohmann/json.hpp not found (nlohmann-json3-dev)";
}
#endif

}  // namespace
