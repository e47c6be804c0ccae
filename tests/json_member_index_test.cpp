// tests/json_member_index_test.cpp: the sorted member index of an object
// (write_member_index) against the order it must have, key_order with ties
// by position, computed the plain way: keys of every length from 0 to 20,
// sharing long prefixes, repeated; and key_head, the 8-byte head the sort
// compares first, against the bytes copied into a zeroed word; and an
// import whose objects repeat their keys (the builder reuses the index of an
// object with the same keys), or nearly do, looked up key by key; and
// key_sorter, which sorts an imported object's keys in runs spilled to a
// temporary file and merged, against the same order; and lookups in objects
// of every size around the scan's bound and the index's.
#include "json/json_internal.hpp"

#include <fl/json_store.hpp>

#include "json_pointers.hpp"
#include "persist_support.hpp"

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
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

// The key tree's order (fl/detail/json_format.hpp, key_entry), restated:
// length, then the hash (CRC-32C of the bytes in format 6, 0 in format 5),
// then the bytes, then position.
std::vector<std::uint32_t> reference_key_tree(const std::vector<std::string>& keys, bool hashed) {
  const auto hash = [&](const std::string& k) {
    return hashed ? fl::detail::crc32c(k.data(), k.size()) : 0u;
  };
  std::vector<std::uint32_t> r(keys.size());
  for (std::uint32_t i = 0; i < r.size(); ++i) r[i] = i;
  std::sort(r.begin(), r.end(), [&](std::uint32_t a, std::uint32_t b) {
    const std::string& x = keys[a];
    const std::string& y = keys[b];
    if (x.size() != y.size()) return x.size() < y.size();
    if (hash(x) != hash(y)) return hash(x) < hash(y);
    const int c = x.compare(y);
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

// A lookup scans an object's keys up to 64 members (lengths in order, a
// key's bytes compared in words where the length matches) and searches the
// sorted index above: objects of sizes around both bounds, keys of every
// length from 0 to 40 (so every word path of the compare), pairs that differ
// only in their first or last byte, keys with '/' and '~' (escaped in the
// pointers), a key given twice (the last one wins); every key found by
// pointer, by json_value::find and by a set through a pointer, and keys one
// byte off or one byte longer not found; on the imported store, then after
// members added one by one (keys in blocks of their own) and a reopen.
TEST(MemberLookup, ObjectsOfEverySizeFindEveryKeyScannedOrSearched) {
  fl_test::scratch_dir dir;
  for (const std::size_t n : {1, 2, 3, 15, 16, 17, 40, 63, 64, 65, 66, 100, 257}) {
    std::vector<std::string> keys;
    for (std::size_t i = 0; keys.size() < n; ++i) {
      std::string k(i % 41, static_cast<char>('a' + i % 26));
      for (std::size_t j = 0; j < k.size(); j += 3) k[j] = static_cast<char>('A' + (i + j) % 26);
      if (i % 7 == 3 && !k.empty()) k[k.size() / 2] = i % 2 ? '/' : '~';
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
      if (keys.size() < n && k.size() >= 2 && i % 5 == 0) {
        std::string first = k, last = k;  // neighbours by one byte
        first[0] = static_cast<char>(first[0] ^ 1);
        last.back() = static_cast<char>(last.back() ^ 1);
        for (const std::string& x : {first, last})
          if (keys.size() < n && std::find(keys.begin(), keys.end(), x) == keys.end())
            keys.push_back(x);
      }
    }
    // Member i holds i; keys[n / 2] comes again at the end, holding 999999.
    std::string text = "{\"obj\":{";
    for (std::size_t i = 0; i < keys.size(); ++i)
      text += (i ? ",\"" : "\"") + keys[i] + "\":" + std::to_string(i);
    text += ",\"" + keys[n / 2] + "\":999999}}";
    const auto want = [&](std::size_t i) -> std::uint64_t { return i == n / 2 ? 999999 : i; };
    const auto check = [&](fl::json_store& s, const std::string& when) {
      const fl::json_value obj = *s.find("/obj");
      for (std::size_t i = 0; i < keys.size(); ++i) {
        const std::string ptr = "/obj/" + fl_test::pointer_token(keys[i]);
        const auto by_pointer = s.find(ptr);
        ASSERT_TRUE(by_pointer) << when << ": n " << n << " key \"" << keys[i] << '"';
        EXPECT_EQ(by_pointer->as_uint64(), want(i)) << when << ": n " << n << " key " << keys[i];
        const auto by_key = obj.find(keys[i]);
        ASSERT_TRUE(by_key) << when << ": n " << n << " key \"" << keys[i] << '"';
        EXPECT_EQ(by_key->as_uint64(), want(i)) << when << ": n " << n << " key " << keys[i];
        for (std::string off : {keys[i] + "x", keys[i]}) {
          if (off == keys[i]) {
            if (off.empty()) continue;
            off.back() = static_cast<char>(off.back() ^ 0x20);
          }
          if (std::find(keys.begin(), keys.end(), off) != keys.end()) continue;
          EXPECT_FALSE(obj.find(off)) << when << ": n " << n << " key \"" << off << '"';
          EXPECT_FALSE(s.find("/obj/" + fl_test::pointer_token(off))) << when << ": n " << n;
        }
      }
    };
    const std::filesystem::path file = dir / ("obj" + std::to_string(n) + ".fljson");
    {
      auto s = fl::json_store::import(text, file);
      check(s, "imported");
      // A set through each pointer finds the member it changes (the last
      // of the repeated key).
      for (std::size_t i = 0; i < keys.size(); ++i)
        s.set("/obj/" + fl_test::pointer_token(keys[i]), std::to_string(want(i) + 1));
      for (std::size_t i = 0; i < keys.size(); ++i)
        ASSERT_EQ(s.find("/obj/" + fl_test::pointer_token(keys[i]))->as_uint64(), want(i) + 1);
      for (std::size_t i = 0; i < keys.size(); ++i)
        s.set("/obj/" + fl_test::pointer_token(keys[i]), std::to_string(want(i)));
      // Members added one by one: their keys in blocks of their own.
      for (std::size_t i = 0; i < 8; ++i) {
        keys.push_back("added_" + std::to_string(i) + std::string(i * 3, 'z'));
        s.set("/obj/" + fl_test::pointer_token(keys.back()), std::to_string(want(keys.size() - 1)));
      }
      check(s, "after adds");
      s.sync();
    }
    auto s = fl::json_store::open(file);
    check(s, "reopened");
    EXPECT_GT(s.verify(), 0u);
  }
}

// Keys as an object's members give them (block, key, seq), sorted by
// key_sorter in runs of every size from a record or two to all of them,
// spilled to its temporary file and merged, or kept in memory without a
// directory, for a store of format 6 and of format 5: the entries come out
// in the key tree's order of that format, each with its own block, length
// and hash, and the directory is left empty.
TEST(KeySorter, RunsSpilledAndMergedComeOutInTheKeyTreeOrder) {
  using fl::detail::json::format_rules;
  using fl::detail::json::key_entry;
  using fl::detail::json::key_sorter;
  std::mt19937_64 rng(fl_test::test_seed());
  fl_test::scratch_dir dir;
  const std::string prefixes[] = {"", "a", "profile_", "profile_background_", "\xff\xfe", "id"};
  int spilled = 0;
  for (int round = 0; round < 120; ++round) {
    const std::size_t n = round % 4 == 0 ? 1 + rng() % 3 : 50 + rng() % 3000;
    std::vector<std::string> keys;
    for (std::size_t i = 0; i < n; ++i) {
      if (!keys.empty() && rng() % 4 == 0) {
        keys.push_back(keys[rng() % keys.size()]);  // a repeated key, maybe in another run
        continue;
      }
      std::string k = prefixes[rng() % std::size(prefixes)];
      const std::size_t extra = rng() % 9;
      for (std::size_t j = 0; j < extra; ++j) k += static_cast<char>("ab\x01\x80z"[rng() % 5]);
      // Now and then a key longer than the merge's read piece (64 KiB).
      if (rng() % 500 == 0) k.append(70000 + rng() % 70000, static_cast<char>('a' + rng() % 3));
      keys.push_back(k);
    }
    // Runs of a record or two, of a few hundred, of most or all of them.
    const std::size_t runs[] = {1, 40 + rng() % 60, 4000 + rng() % 40000, std::size_t{1} << 30};
    const std::size_t run_bytes = runs[round % 4];
    const bool on_disk = round % 5 != 4;
    const bool hashed = round / 4 % 2 == 0;
    const format_rules rules = format_rules::of(hashed ? 6 : 5);
    key_sorter sorter(on_disk ? &dir.path() : nullptr, rules, run_bytes);
    for (std::size_t i = 0; i < n; ++i)
      sorter.add(1000 + 8 * i, keys[i], static_cast<std::uint32_t>(i));
    if (on_disk && run_bytes < 100) ++spilled;
    std::vector<key_entry> got;
    sorter.finish([&](const key_entry* e, std::size_t b) { got.insert(got.end(), e, e + b); });
    const std::vector<std::uint32_t> want = reference_key_tree(keys, hashed);
    ASSERT_EQ(got.size(), want.size()) << "round " << round << ", seed " << fl_test::test_seed();
    for (std::size_t i = 0; i < want.size(); ++i) {
      ASSERT_EQ(got[i].seq, want[i]) << "entry " << i << ", round " << round << ", run bytes "
                                     << run_bytes << ", seed " << fl_test::test_seed();
      ASSERT_EQ(got[i].key, 1000 + 8 * want[i]);
      ASSERT_EQ(got[i].key_len, keys[want[i]].size());
      ASSERT_EQ(got[i].hash, hashed ? fl::detail::crc32c(keys[want[i]].data(), keys[want[i]].size())
                                    : 0u);
    }
    ASSERT_TRUE(std::filesystem::is_empty(dir.path())) << "round " << round;
  }
  EXPECT_GT(spilled, 0);
}

// An object imported with more keys than one run of the sorter holds
// (4 MiB of records and keys: about 130,000 keys of 9 bytes) spills its
// runs beside the store and merges them: every member is found by its key,
// the repeated keys' last one, the store verifies, and nothing is left in
// the directory but the store's files.
TEST(KeySorter, AnImportedObjectOfManyRunsFindsEveryMember) {
  constexpr std::size_t n = 300000;
  auto key_of = [](std::size_t i) {
    // Not in key order, every 1,000th repeated 150,000 members later.
    const std::size_t k = i >= 150000 && i % 1000 == 0 ? i - 150000 : i;
    return "m" + std::to_string(k * 7919 % 1000003);
  };
  std::string text = "{\"o\":{";
  for (std::size_t i = 0; i < n; ++i)
    text += (i ? ",\"" : "\"") + key_of(i) + "\":" + std::to_string(i);
  text += "}}";
  fl_test::scratch_dir dir;
  auto s = fl::json_store::import(text, dir / "doc.fljson");
  s.sync();
  EXPECT_GT(s.verify(), 0u);
  std::mt19937_64 rng(fl_test::test_seed());
  for (int probe = 0; probe < 3000; ++probe) {
    std::size_t i = probe < 20 ? probe * 1000 : rng() % n;
    if (i >= 150000 && i % 1000 == 0) i -= 150000;
    // A repeated key finds its last member.
    const std::size_t last = i < 150000 && i % 1000 == 0 ? i + 150000 : i;
    const auto v = s.find("/o/" + key_of(i));
    ASSERT_TRUE(v) << "member " << i << ", seed " << fl_test::test_seed();
    ASSERT_EQ(v->get<std::int64_t>(), static_cast<std::int64_t>(last)) << "member " << i;
  }
  EXPECT_FALSE(s.find("/o/m1000004"));
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    EXPECT_EQ(e.path().filename().string().rfind("doc.fljson", 0), 0u) << e.path();
}

}  // namespace
