// page_images (src/persist/page_images.hpp), the writer's kept and lagging
// pages by offset: seeded random enters, erases, erase_if, erase_from, below,
// clears and lookups against std::map. Offsets come from a few thousand
// pages at most, so that most operations find their page, the table rehashes
// up and (cleared) down, probe runs wrap its end and erases shift them back;
// each image names its page, so one left behind by a shift shows.
#include "persist/page_images.hpp"

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace {

using fl::detail::page_image;
using fl::detail::page_images;

constexpr std::uint64_t page = 4096;

// An image whose first bytes name its page and commit.
std::unique_ptr<std::byte[]> image_of(std::uint64_t off, std::uint64_t gen) {
  std::unique_ptr<std::byte[]> p(new std::byte[16]);
  std::memcpy(p.get(), &off, 8);
  std::memcpy(p.get() + 8, &gen, 8);
  return p;
}

void expect_same(page_images& t, const std::map<std::uint64_t, std::uint64_t>& model,
                 std::uint64_t range) {
  ASSERT_EQ(t.size(), model.size());
  ASSERT_EQ(t.empty(), model.empty());
  std::vector<std::uint64_t> want;
  for (const auto& [off, gen] : model) want.push_back(off);
  ASSERT_EQ(t.sorted_offsets(), want);
  std::size_t visited = 0;
  for (const auto& [off, p] : t) {
    ++visited;
    const auto it = model.find(off);
    ASSERT_NE(it, model.end()) << off;
    EXPECT_EQ(p.gen, it->second);
    std::uint64_t named_off = 0, named_gen = 0;
    std::memcpy(&named_off, p.image.get(), 8);
    std::memcpy(&named_gen, p.image.get() + 8, 8);
    EXPECT_EQ(named_off, off);
    EXPECT_EQ(named_gen, p.gen);
  }
  EXPECT_EQ(visited, model.size());
  for (std::uint64_t k = 0; k <= range; ++k) {
    const page_image* p = t.find(k * page);
    ASSERT_EQ(p != nullptr, model.contains(k * page)) << k;
    ASSERT_EQ(t.contains(k * page), model.contains(k * page));
  }
}

TEST(PageImages, AgreesWithStdMapUnderEveryOperation) {
  const std::uint64_t seed = fl_test::test_seed();
  SCOPED_TRACE("FL_TEST_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 30; ++round) {
    page_images t;
    std::map<std::uint64_t, std::uint64_t> model;  // offset -> gen
    const std::uint64_t range = 4 + rng() % 3000;  // pages
    std::uint64_t gen = 1;
    for (int op = 0; op < 4000; ++op) {
      const std::uint64_t off = page * (rng() % (range + 1));
      switch (rng() % 20) {
        case 0:
          if (rng() % 16 == 0) {
            t.clear();
            model.clear();
          }
          break;
        case 1: {
          const std::uint64_t limit = page * (rng() % (range + 2));
          t.erase_from(limit);
          model.erase(model.lower_bound(limit), model.end());
          break;
        }
        case 2: {
          const std::uint64_t limit = page * (rng() % (range + 2));
          bool all = true;
          for (const auto& [o, g] : model) all = all && o < limit;
          ASSERT_EQ(t.below(limit), all) << limit;
          break;
        }
        case 3: {
          const std::uint64_t older = gen - std::min<std::uint64_t>(gen, rng() % 64);
          const std::size_t gone =
              t.erase_if([&](std::uint64_t, const page_image& p) { return p.gen < older; });
          const std::size_t had = model.size();
          std::erase_if(model, [&](const auto& e) { return e.second < older; });
          ASSERT_EQ(gone, had - model.size());
          break;
        }
        case 4:
        case 5:
        case 6:
        case 7:
        case 8: ASSERT_EQ(t.erase(off), model.erase(off) == 1) << off; break;
        default: {
          ++gen;
          page_image& p = t[off];
          ASSERT_EQ(p.image != nullptr, model.contains(off));
          p.gen = gen;
          p.image = image_of(off, gen);
          model[off] = gen;
          break;
        }
      }
      if (op % 97 == 0) { ASSERT_NO_FATAL_FAILURE(expect_same(t, model, range)); }
    }
    ASSERT_NO_FATAL_FAILURE(expect_same(t, model, range));
  }
}

}  // namespace
