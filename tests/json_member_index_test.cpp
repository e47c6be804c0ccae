// tests/json_member_index_test.cpp: the sorted member index of an object
// (write_member_index) against the order it must have, key_order with ties
// by position, computed the plain way: keys of every length from 0 to 20,
// sharing long prefixes, repeated; and key_head, the 8-byte head the sort
// compares first, against the bytes copied into a zeroed word; and an
// import whose objects repeat their keys (the builder reuses the index of an
// object with the same keys), or nearly do, looked up key by key.
#include "json/json_internal.hpp"

#include <fl/json_store.hpp>

#include "persist_support.hpp"

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

using fl::detail::json::key_head;
using fl::detail::json::key_order;
using fl::detail::json::write_member_index;

std::vector<std::uint32_t> reference_index(const std::vector<std::string>& keys) {
  std::vector<std::uint32_t> r(keys.size());
  for (std::uint32_t i = 0; i < r.size(); ++i) r[i] = i;
  std::sort(r.begin(), r.end(), [&](std::uint32_t a, std::uint32_t b) {
    const int c = key_order(keys[a].data(), static_cast<std::uint32_t>(keys[a].size()),
                            keys[b].data(), static_cast<std::uint32_t>(keys[b].size()));
    return c < 0 || (c == 0 && a < b);
  });
  return r;
}

std::vector<std::uint32_t> built_index(const std::vector<std::string>& keys) {
  std::vector<std::uint32_t> r(keys.size());
  write_member_index(r.data(), static_cast<std::uint32_t>(keys.size()),
                     [&](std::uint32_t i) { return std::string_view(keys[i]); });
  return r;
}

TEST(KeyHead, IsTheKeysFirstEightBytesBigEndian) {
  std::mt19937_64 rng(fl_test::test_seed());
  for (int round = 0; round < 2000; ++round) {
    const std::size_t n = rng() % 13;
    // The key sits at the end of its buffer: a read past it would leave it.
    std::vector<unsigned char> buf(n);
    for (auto& c : buf) c = static_cast<unsigned char>(rng());
    unsigned char word[8] = {};
    if (n != 0) std::memcpy(word, buf.data(), std::min<std::size_t>(n, 8));
    std::uint64_t want = 0;
    for (unsigned char c : word) want = want << 8 | c;
    EXPECT_EQ(key_head(reinterpret_cast<const char*>(buf.data()), n), want) << "length " << n << ", seed " << fl_test::test_seed();
  }
}

TEST(MemberIndex, SortsAsKeyOrderWithTiesByPosition) {
  std::mt19937_64 rng(fl_test::test_seed());
  const std::string prefixes[] = {"", "a", "profile_", "profile_background_", "\xff\xfe", "id"};
  for (int round = 0; round < 300; ++round) {
    // Sizes on both sides of the index's stack buffer (128 entries).
    const std::size_t n = round % 3 == 0 ? 100 + rng() % 200 : 1 + rng() % 40;
    std::vector<std::string> keys;
    for (std::size_t i = 0; i < n; ++i) {
      if (!keys.empty() && rng() % 5 == 0) {
        keys.push_back(keys[rng() % keys.size()]);  // a repeated key
        continue;
      }
      std::string k = prefixes[rng() % std::size(prefixes)];
      const std::size_t extra = rng() % 6;
      for (std::size_t j = 0; j < extra; ++j) k += static_cast<char>("ab\x01\x80z"[rng() % 5]);
      keys.push_back(k.substr(0, 20));
    }
    ASSERT_EQ(built_index(keys), reference_index(keys)) << "round " << round << ", seed " << fl_test::test_seed();
  }
}

// Objects of 16 members and more, one after another in an array: the same
// keys in the same order, the same keys in another order, the same bytes
// split into other keys ("ab" + "c" against "a" + "bc"), one key more, one
// key changed. Each member is found by its key and holds its own value.
TEST(MemberIndex, ObjectsThatRepeatTheirKeysFindEveryMember) {
  std::mt19937_64 rng(fl_test::test_seed());
  std::vector<std::vector<std::string>> objects;
  std::vector<std::string> base;
  for (int i = 0; i < 20; ++i) base.push_back("k" + std::to_string(i * 7 % 20) + "_x");
  for (int round = 0; round < 60; ++round) {
    std::vector<std::string> keys = base;
    switch (rng() % 5) {
      case 0: break;
      case 1: std::shuffle(keys.begin(), keys.end(), rng); break;
      case 2:  // the first two keys' bytes split at another place
        keys[0] += keys[1].substr(0, 1);
        keys[1] = keys[1].substr(1);
        break;
      case 3: keys.push_back("extra"); break;
      case 4: keys[rng() % keys.size()] += "!"; break;
    }
    objects.push_back(keys);
  }
  std::string text = "[";
  for (std::size_t o = 0; o < objects.size(); ++o) {
    text += o ? ",{" : "{";
    for (std::size_t i = 0; i < objects[o].size(); ++i)
      text += (i ? ",\"" : "\"") + objects[o][i] + "\":" + std::to_string(o * 100 + i);
    text += "}";
  }
  text += "]";
  fl_test::scratch_dir dir;
  auto s = fl::json_store::import(text, dir / "doc.fljson");
  s.sync();
  EXPECT_GT(s.verify(), 0u);
  for (std::size_t o = 0; o < objects.size(); ++o) {
    const fl::json_value obj = s.root()[o];
    for (std::size_t i = 0; i < objects[o].size(); ++i) {
      const auto v = obj.find(objects[o][i]);
      ASSERT_TRUE(v) << "object " << o << " key " << objects[o][i];
      EXPECT_EQ(v->as_uint64(), o * 100 + i) << "object " << o << " key " << objects[o][i];
    }
  }
}

}  // namespace
