// fl::json_store: RFC 8259 conformance (valid texts round-trip through dump,
// invalid ones throw json_error at the right byte, through both the strict
// parser and the simdjson path), RFC 6901 pointers, typed reads, edits,
// commits and reopening, damage detection, the benchmark documents (real when
// found, generated always: tests/support/json_documents.hpp), and differential
// tests of random edits against nlohmann::ordered_json, on random documents
// and on the benchmark documents.
#include <fl/json_store.hpp>
#include <fl/mapped_space.hpp>

#include "json_pointers.hpp"
#include "json_test_support.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#ifdef FL_TEST_HAVE_NLOHMANN
#include <nlohmann/json.hpp>
#endif

using namespace std::literals;

namespace {

std::string str(const fl::string& s) { return std::string(std::string_view(s)); }

// Leading whitespace that takes a text past the size where import() hands it
// to simdjson first: the same text then goes through the other parser, and an
// error offset moves by exactly its length.
const std::string simd_pad(600, ' ');

struct invalid_case {
  std::string_view text;
  std::size_t offset;
};

// Every grammar rule broken once; offsets are where the text stops being JSON.
const invalid_case invalid_texts[] = {
    {""sv, 0},
    {"  "sv, 2},
    {"\xEF\xBB\xBF{}"sv, 0},  // byte order mark
    {"[1,]"sv, 3},            // trailing comma
    {"{\"a\":1,}"sv, 7},
    {"[1,,2]"sv, 3},
    {"[1 2]"sv, 3},
    {"{\"a\" 1}"sv, 5},
    {"{a:1}"sv, 1},
    {"{\"a\":}"sv, 5},
    {"{\"a\",1}"sv, 4},
    {"{1:2}"sv, 1},
    {"[01]"sv, 2},  // leading zero
    {"-"sv, 1},
    {"-a"sv, 1},
    {"1."sv, 2},
    {"1.e5"sv, 2},
    {"1e"sv, 2},
    {"1e+"sv, 3},
    {".5"sv, 0},
    {"+1"sv, 0},
    {"0x10"sv, 1},
    {"NaN"sv, 0},
    {"Infinity"sv, 0},
    {"-Infinity"sv, 1},
    {"tru"sv, 3},
    {"nul"sv, 3},
    {"trUe"sv, 2},
    {"falsey"sv, 5},
    {"[true false]"sv, 6},
    {"'a'"sv, 0},
    {"\"abc"sv, 0},      // unterminated
    {"\"a\x01\""sv, 2},  // control character
    {"\"\t\""sv, 1},     // raw tab
    {"[\"a\"\0]"sv, 4},  // NUL outside a string
    {"\"\0\""sv, 1},     // raw NUL inside
    {"\"\\x\""sv, 1},    // invalid escape
    {"\"\\'\""sv, 1},
    {"\"\\u12\""sv, 1},  // short \u
    {"\"\\u12G4\""sv, 1},
    {"\"\\ud800\""sv, 1},         // high surrogate alone
    {"\"\\udc00\""sv, 1},         // low surrogate alone
    {"\"\\ud800\\u0041\""sv, 7},  // high surrogate, then not a low one
    {"\"\\ud800\\ud800\""sv, 7},
    {"\"\xC0\x80\""sv, 1},          // overlong NUL
    {"\"\xC1\xBF\""sv, 1},          // overlong
    {"\"\xE0\x80\xAF\""sv, 1},      // overlong 3-byte
    {"\"\xF0\x80\x80\xAF\""sv, 1},  // overlong 4-byte
    {"\"\xED\xA0\x80\""sv, 1},      // UTF-8 encoded surrogate
    {"\"\xF4\x90\x80\x80\""sv, 1},  // above U+10FFFF
    {"\"\xF5\x80\x80\x80\""sv, 1},
    {"\"\x80\""sv, 1},      // lone continuation byte
    {"\"\xE2\x82\""sv, 1},  // truncated sequence
    {"\"\xFF\""sv, 1},
    {"\xC3\xA9"sv, 0},  // non-ASCII outside a string
    {"[1]x"sv, 3},      // text after the value
    {"{} {}"sv, 3},
    {"1 2"sv, 2},
    {"["sv, 1},
    {"{"sv, 1},
    {"[1"sv, 2},
    {"{\"a\":1"sv, 6},
    {"{\"a\""sv, 4},
    {"]"sv, 0},
    {"}"sv, 0},
};

// Valid texts and the exact dump each gives.
struct valid_case {
  std::string_view text;
  std::string_view dump;
};
const valid_case valid_texts[] = {
    {"0", "0"},
    {"-0", "0"},
    {" \t\r\n1\n", "1"},
    {"-1", "-1"},
    {"0.5", "0.5"},
    {"-0.5", "-0.5"},
    {"1.0", "1.0"},
    {"1e2", "100.0"},
    {"1E2", "100.0"},
    {"1e+2", "100.0"},
    {"1e-2", "0.01"},
    {"0.1", "0.1"},
    {"3.141592653589793", "3.141592653589793"},
    {"1.7976931348623157e308", "1.7976931348623157e+308"},
    {"4.9e-324", "5e-324"},
    {"1e-400", "0.0"},   // underflow: the nearest double
    {"1e400", "1e400"},  // overflow: kept as text
    {"-1E400", "-1E400"},
    {"9223372036854775807", "9223372036854775807"},
    {"-9223372036854775808", "-9223372036854775808"},
    {"18446744073709551615", "18446744073709551615"},
    {"18446744073709551616", "18446744073709551616"},  // beyond 64 bits: text
    {"-9223372036854775809", "-9223372036854775809"},
    {"123456789012345678901234567890", "123456789012345678901234567890"},
    {"true", "true"},
    {"false", "false"},
    {"null", "null"},
    {"\"\"", "\"\""},
    {"\"abc\"", "\"abc\""},
    {"\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t\"", "\"\\\" \\\\ / \\b \\f \\n \\r \\t\""},
    {"\"\\u0000\\u001f\\u0020\"", "\"\\u0000\\u001f \""},
    {"\"\\u00e9\\u20AC\"", "\"\xC3\xA9\xE2\x82\xAC\""},
    {"\"\\ud83d\\ude00\"", "\"\xF0\x9F\x98\x80\""},  // surrogate pair joined
    {"\"\\uDBFF\\uDFFF\"", "\"\xF4\x8F\xBF\xBF\""},
    {"\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\"", "\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\""},
    {"\"\xEF\xBF\xBF\"", "\"\xEF\xBF\xBF\""},          // U+FFFF
    {"\"\xF4\x8F\xBF\xBF\"", "\"\xF4\x8F\xBF\xBF\""},  // U+10FFFF
    {"\"\x7F\"", "\"\x7F\""},
    {"[]", "[]"},
    {"{}", "{}"},
    {"[[]]", "[[]]"},
    {"{\"\":0}", "{\"\":0}"},
    {" [ 1 , 2 ] ", "[1,2]"},
    {"{ \"a\" : { \"b\" : [ 1 , { \"c\" : null } ] } }", "{\"a\":{\"b\":[1,{\"c\":null}]}}"},
    {"{\"a\":1,\"a\":2}", "{\"a\":1,\"a\":2}"},  // duplicate names kept, in order
    {"{\"b\":1,\"a\":2,\"c\":3}", "{\"b\":1,\"a\":2,\"c\":3}"},
};

std::string nested(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

std::string big_object(int n) {
  std::string s = "{";
  for (int i = 0; i < n; ++i)
    s += (i ? ",\"k" : "\"k") + std::to_string((i * 7919) % n) + "\":" + std::to_string(i);
  return s + "}";
}

class JsonStoreTest : public ::testing::Test {
 protected:
  fl_test::temp_dir dir_;
  std::filesystem::path file(const std::string& name = "doc.fljson") const { return dir_ / name; }
};

// ---- conformance ---------------------------------------------------------------

TEST_F(JsonStoreTest, InvalidTextsThrowAtTheirOffsetInBothParsers) {
  int checked = 0;
  for (const auto& c : invalid_texts) {
    for (bool padded : {false, true}) {
      const std::string text = padded ? simd_pad + std::string(c.text) : std::string(c.text);
      const std::size_t want = c.offset + (padded ? simd_pad.size() : 0);
      try {
        (void)fl::json_store::import(text, file());
        ADD_FAILURE() << "accepted: " << testing::PrintToString(std::string(c.text)) << " padded "
                      << padded;
      } catch (const fl::json_error& e) {
        EXPECT_EQ(e.offset(), want) << testing::PrintToString(std::string(c.text)) << " padded "
                                    << padded << ": " << e.what();
        EXPECT_FALSE(e.reason().empty());
        EXPECT_NE(std::string(e.what()).find(std::to_string(want)), std::string::npos);
      }
      EXPECT_FALSE(std::filesystem::exists(file()));
      EXPECT_FALSE(std::filesystem::exists(file().string() + ".tmp"));
      ++checked;
    }
  }
  RecordProperty("invalid_texts", checked);
  std::printf("conformance: %d invalid texts rejected at their offset (both parsers)\n", checked);
}

TEST_F(JsonStoreTest, ValidTextsDumpExactlyAndRoundTripInBothParsers) {
  int checked = 0;
  for (const auto& c : valid_texts) {
    for (bool padded : {false, true}) {
      const std::string text = padded ? simd_pad + std::string(c.text) : std::string(c.text);
      auto s = fl::json_store::import(text, file());
      const std::string d = str(s.dump());
      EXPECT_EQ(d, c.dump) << testing::PrintToString(std::string(c.text)) << " padded " << padded;
      // dump() re-parses to the same document.
      EXPECT_EQ(str(fl::json_store::import(d, file("again")).dump()), d);
#ifdef FL_TEST_HAVE_NLOHMANN
      if (c.text.find("400") ==
          std::string_view::npos) {  // nlohmann refuses numbers beyond a double
        EXPECT_EQ(nlohmann::ordered_json::parse(d),
                  nlohmann::ordered_json::parse(std::string(c.text)))
            << std::string(c.text);
      }
#endif
      ++checked;
    }
  }
  std::printf("conformance: %d valid texts dumped exactly and round-tripped (both parsers)\n",
              checked);
}

// A hand-edited config file: the error names the line and the (byte) column
// of the fault, 1-based, through both parsers (the padded texts go to simdjson
// first). Before line/column existed only the offset was given.
TEST_F(JsonStoreTest, InvalidTextsNameTheirLineAndByteColumn) {
  struct where_case {
    std::string text;
    std::size_t line, column;
  };
  const where_case cases[] = {
      {"{oops}", 1, 2},
      {"{\n  \"a\": 1,\n  \"b\": tru\n}", 3, 11},      // the byte after "tru"
      {"{\r\n  \"a\": [1,\r\n   2,,3]\r\n}", 3, 6},    // CRLF ends one line; '\r' is no line
      {"[\"\xC3\xA9\xC3\xA9\", x]", 1, 10},              // columns count bytes, not characters
      {"[1,\n\n", 3, 1},                                   // the end of the text, on the last line
      {"{\"a\":1}\n\n  x", 3, 3},                          // text after the value
  };
  for (const auto& c : cases) {
    for (bool padded : {false, true}) {
      // The pad is whitespace without a newline, so it shifts the column of
      // a fault on the first line only.
      const std::string text = padded ? simd_pad + c.text : c.text;
      ASSERT_EQ(simd_pad.find('\n'), std::string::npos);
      const std::size_t column = c.column + (padded && c.line == 1 ? simd_pad.size() : 0);
      try {
        (void)fl::json_store::import(text, file());
        ADD_FAILURE() << "accepted: " << testing::PrintToString(c.text);
      } catch (const fl::json_error& e) {
        EXPECT_EQ(e.line(), c.line) << testing::PrintToString(c.text) << ": " << e.what();
        EXPECT_EQ(e.column(), column) << testing::PrintToString(c.text) << ": " << e.what();
        const std::string want = "at line " + std::to_string(c.line) + ", column " +
                                 std::to_string(column) + " (byte " + std::to_string(e.offset()) +
                                 "): " + e.reason();
        EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
      }
    }
  }
}

// stats() reports the space's figures: the file size file_bytes() gives, live
// bytes, and one more commit per sync().
TEST_F(JsonStoreTest, StatsFollowTheSpace) {
  auto s = fl::json_store::import(R"({"a":[1,2,3]})", file());
  s.sync();
  const fl::space_stats before = s.stats();
  EXPECT_EQ(before.file_bytes, s.file_bytes());
  EXPECT_GT(before.used_bytes, 0u);
  EXPECT_GE(before.generation, 1u);
  s.set("/b", R"("x")");
  s.sync();
  EXPECT_EQ(s.stats().generation, before.generation + 1);
}

TEST_F(JsonStoreTest, NestingLimitIsTheSameInBothParsers) {
  using fl::detail::json::max_depth;
  for (bool padded : {false, true}) {
    const std::string pad = padded ? simd_pad : std::string();
    const std::string ok = pad + nested(max_depth);
    EXPECT_EQ(str(fl::json_store::import(ok, file()).dump()), nested(max_depth));
    try {
      (void)fl::json_store::import(pad + nested(max_depth + 1), file());
      ADD_FAILURE() << "nesting past the limit accepted";
    } catch (const fl::json_error& e) { EXPECT_EQ(e.offset(), pad.size() + max_depth); }
  }
}

TEST_F(JsonStoreTest, BigObjectsUseTheIndexAndKeepOrder) {
  for (int n : {15, 16, 17, 100, 1000}) {
    const std::string text = big_object(n);
    auto s = fl::json_store::import(text, file());
    EXPECT_EQ(str(s.dump()), text);
    for (int i = 0; i < n; ++i) {
      const auto v = s.find("/k" + std::to_string((i * 7919) % n));
      ASSERT_TRUE(v) << n << " " << i;
      EXPECT_EQ(v->as_int64(), i);
    }
    EXPECT_FALSE(s.find("/k" + std::to_string(n)));
    EXPECT_FALSE(s.find("/"));
  }
}

// ---- pointers and typed reads ---------------------------------------------------

TEST_F(JsonStoreTest, PointersFollowRfc6901) {
  // The example document of RFC 6901, section 5.
  const std::string text =
      R"({"foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4, "i\\j": 5, "k\"l": 6, " ": 7, "m~n": 8})";
  auto s = fl::json_store::import(text, file());
  EXPECT_EQ(str(*s.at("")), str(s.dump()));
  const std::pair<const char*, const char*> found[] = {{"/foo", R"(["bar","baz"])"},
                                                       {"/foo/0", R"("bar")"},
                                                       {"/", "0"},
                                                       {"/a~1b", "1"},
                                                       {"/c%d", "2"},
                                                       {"/e^f", "3"},
                                                       {"/g|h", "4"},
                                                       {"/i\\j", "5"},
                                                       {"/k\"l", "6"},
                                                       {"/ ", "7"},
                                                       {"/m~0n", "8"}};
  for (const auto& [pointer, want] : found) EXPECT_EQ(str(*s.at(pointer)), want) << pointer;
  for (const char* pointer : {"/foo/2", "/foo/-", "/foo/01", "/foo/0/x", "/nope", "/m~0n/x"})
    EXPECT_FALSE(s.at(pointer)) << pointer;
  EXPECT_THROW((void)s.at("foo"), std::invalid_argument);
  EXPECT_THROW((void)s.at("/m~2n"), std::invalid_argument);
  EXPECT_THROW((void)s.at("/m~"), std::invalid_argument);
}

TEST_F(JsonStoreTest, TypedReadsWithoutCopying) {
  auto s = fl::json_store::import(
      R"({"i":-5,"u":18446744073709551615,"d":2.5,"t":true,"f":false,"n":null,"s":"h\u00e9","a":[1,"x",[]],"o":{"k":1},"big":1e999})",
      file());
  const fl::json_value r = s.root();
  EXPECT_EQ(r.type(), fl::json_type::object);
  EXPECT_EQ(r.size(), 10u);
  EXPECT_EQ(r.find("i")->as_int64(), -5);
  EXPECT_EQ(r.find("i")->as_double(), -5.0);
  EXPECT_THROW((void)r.find("i")->as_uint64(), std::invalid_argument);
  EXPECT_EQ(r.find("u")->as_uint64(), 18446744073709551615ull);
  EXPECT_THROW((void)r.find("u")->as_int64(), std::invalid_argument);
  EXPECT_EQ(r.find("d")->as_double(), 2.5);
  EXPECT_THROW((void)r.find("d")->as_int64(), std::invalid_argument);
  EXPECT_TRUE(r.find("t")->as_bool());
  EXPECT_FALSE(r.find("f")->as_bool());
  EXPECT_TRUE(r.find("n")->is_null());
  EXPECT_EQ(r.find("s")->as_string_view(), "h\xC3\xA9");
  EXPECT_THROW((void)r.find("s")->as_bool(), std::invalid_argument);
  EXPECT_EQ(r.find("big")->type(), fl::json_type::number);
  EXPECT_EQ(r.find("big")->as_double(), HUGE_VAL);
  const fl::json_value a = *r.find("a");
  EXPECT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0].as_int64(), 1);
  EXPECT_EQ(a[1].as_string_view(), "x");
  EXPECT_EQ(a[2].type(), fl::json_type::array);
  EXPECT_THROW((void)a[3], std::out_of_range);
  std::string seen;
  for (fl::json_value e : a.elements()) seen += std::to_string(static_cast<int>(e.type()));
  EXPECT_EQ(seen, "234");
  std::string keys;
  for (fl::json_member m : r.members()) keys += std::string(m.key) + ",";
  EXPECT_EQ(keys, "i,u,d,t,f,n,s,a,o,big,");
  EXPECT_EQ(r.find("o")->at_pointer("/k")->as_int64(), 1);
  EXPECT_EQ(str(r.find("a")->dump()), R"([1,"x",[]])");
  EXPECT_EQ(r.find("t")->size(), 0u);
  EXPECT_FALSE(a.find("x"));
  for (fl::json_member m : a.members()) ADD_FAILURE() << "an array has no members: " << m.key;
}

// ---- edits and commits --------------------------------------------------------------

TEST_F(JsonStoreTest, SetAndEraseFollowThePointer) {
  auto s = fl::json_store::import(R"({"a":[1,2],"o":{"x":1}})", file());
  s.set("/a/0", R"("one")");
  s.set("/a/-", "3");
  s.set("/a/3", "[4]");           // index == size appends
  s.set("/o/y", "{\"z\":null}");  // new member at the end
  s.set("/o/x", "true");          // replaced in place
  s.set("/o/y/z", "\"\\u00e9\"");
  EXPECT_EQ(str(s.dump()), R"({"a":["one",2,3,[4]],"o":{"x":true,"y":{"z":"é"}}})");
  EXPECT_THROW(s.set("/a/9", "1"), std::out_of_range);
  EXPECT_THROW(s.set("/nope/x", "1"), std::out_of_range);
  EXPECT_THROW(s.set("/a/0/x", "1"), std::out_of_range);
  EXPECT_THROW(s.set("/a/0", "[1,"), fl::json_error);
  EXPECT_THROW(s.set("a", "1"), std::invalid_argument);
  EXPECT_EQ(str(s.dump()), R"({"a":["one",2,3,[4]],"o":{"x":true,"y":{"z":"é"}}})");
  EXPECT_TRUE(s.erase("/a/1"));
  EXPECT_TRUE(s.erase("/o/x"));
  EXPECT_FALSE(s.erase("/o/x"));
  EXPECT_FALSE(s.erase("/a/9"));
  EXPECT_FALSE(s.erase("/a/-"));
  EXPECT_FALSE(s.erase(""));
  EXPECT_EQ(str(s.dump()), R"({"a":["one",3,[4]],"o":{"y":{"z":"é"}}})");
  s.set("", "[true]");
  EXPECT_EQ(str(s.dump()), "[true]");
}

// A number, boolean or null replacing an entry is written over it: the store
// does not grow, and a commit of it logs the entry's page and the checksum
// table's page. Containers, strings and additions still copy their path.
TEST_F(JsonStoreTest, ScalarSetsAreWrittenInPlace) {
  std::string text = R"({"a":[1,"two",{"x":3}],"big":{)";
  for (int i = 0; i < 40; ++i) text += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":" + std::to_string(i);
  text += R"(},"s":"str"})";
  fl::json_store::import(text, file()).sync();
  // In-place sets carve nothing for their values; what they replace (a
  // string, an object) is retired and listed in one batch block by the
  // commit, and reused after it.
  auto blocks = [&] { return fl::mapped_space(file()).stats().live_blocks; };
  const std::uint64_t imported = blocks();
  {
    auto s = fl::json_store::open(file());
    s.set("/a/0", "-9223372036854775808");
    s.set("/a/1", "18446744073709551615");  // a string becomes a number
    s.set("/a/2", "null");                  // an object becomes null
    s.set("/big/k39", "2.5");               // in an indexed object
    s.set("/big/k0", "true");
    s.set("/s", "false");
    EXPECT_EQ(s.find("/big/k39")->as_double(), 2.5);
    EXPECT_EQ(s.find("/big/k38")->as_int64(), 38);
    s.sync();
  }
  EXPECT_EQ(blocks(), imported + 1);  // the batch listing "two", {"x":3} and "str"
  fl::string dumped;
  {
    auto s = fl::json_store::open(file());
    EXPECT_EQ(str(*s.at("/a")), R"([-9223372036854775808,18446744073709551615,null])");
    s.set("/s", "\"a string again\"");  // copies the root
    s.set("/a/-", "7");                   // an append copies its path
    s.sync();
    dumped = s.dump();
  }
  // The batch and its three blocks were freed; each copying edit wrote its
  // new blocks (string + root, array + root) and retired the old ones (the
  // array, both roots), listed in one new batch.
  EXPECT_EQ(blocks(), imported + 1 - 4 + 4 + 1);
  auto r = fl::json_store::open(file());
  EXPECT_EQ(r.dump(), dumped);
  EXPECT_EQ(r.find("/a/0")->as_int64(), INT64_MIN);
  EXPECT_EQ(str(*r.at("/a")), R"([-9223372036854775808,18446744073709551615,null,7])");
  EXPECT_EQ(r.find("/big/k0")->as_bool(), true);
  EXPECT_EQ(str(*r.at("/s")), R"("a string again")");
}

// Small values in a long array take 8 times their text in the store: the
// import outgrows its first estimate and keeps building in place.
TEST_F(JsonStoreTest, ImportGrowsPastItsFirstEstimate) {
  std::string text = "[";
  for (int i = 0; i < 200000; ++i) text += i ? ",7" : "7";
  text += "]";
  {
    auto s = fl::json_store::import(text, file());
    EXPECT_EQ(s.root().size(), 200000u);
    EXPECT_EQ(s.find("/199999")->as_int64(), 7);
    s.sync();
  }
  // Its pages went to the file directly (mapped_space::write_fresh): the
  // commit still covers every one with its checksum.
  fl::mapped_space(file()).verify();
  auto r = fl::json_store::open(file());
  EXPECT_EQ(str(r.dump()), text);
}

TEST_F(JsonStoreTest, SyncCommitsAndReopenRestoresTheLastCommit) {
  {
    auto s = fl::json_store::import(R"({"n":0,"list":[]})", file());
    EXPECT_FALSE(std::filesystem::exists(file()));  // built beside it until the first sync
    s.sync();
    EXPECT_TRUE(std::filesystem::exists(file()));
    EXPECT_FALSE(std::filesystem::exists(file().string() + ".tmp"));
    for (int i = 1; i <= 50; ++i) {
      s.set("/n", std::to_string(i));
      s.set("/list/-", std::to_string(i));
      if (i % 10 == 0) s.sync();
    }
    s.set("/n", "\"not synced\"");
  }
  fl::string before;
  {
    auto r = fl::json_store::open(file());
    EXPECT_EQ(r.find("/n")->as_int64(), 50);
    EXPECT_EQ(r.find("/list")->size(), 50u);
    r.set("/list/0", "{\"k\":[1,2,3]}");
    r.sync();
    before = r.dump();
    // One writer per file: uncommitted changes in this handle refuse a
    // second open (tests/json_store_lock_test.cpp has the rest).
    r.set("/n", "0");
    EXPECT_THROW((void)fl::json_store::open(file()), fl::persist_error);
  }
  auto r2 = fl::json_store::open(file());
  EXPECT_EQ(str(*r2.at("/list/0")), R"({"k":[1,2,3]})");
  EXPECT_EQ(r2.dump(), before);
}

TEST_F(JsonStoreTest, ImportKeepsAnExistingStoreUntilTheFirstSync) {
  fl::json_store::import("[1]", file()).sync();
  {
    auto b = fl::json_store::import("[2]", file());
    EXPECT_EQ(str(fl::json_store::open(file()).dump()), "[1]");
  }
  EXPECT_EQ(str(fl::json_store::open(file()).dump()), "[1]");
  EXPECT_FALSE(std::filesystem::exists(file().string() + ".tmp"));  // removed when b closed
  fl::json_store::import("[3]", file()).sync();
  EXPECT_EQ(str(fl::json_store::open(file()).dump()), "[3]");
}

// ---- damage -------------------------------------------------------------------------

TEST_F(JsonStoreTest, EveryFlippedDataByteIsDetected) {
  std::string text =
      R"({"name":"store","ids":[1,2,3,18446744073709551615],"pi":3.14159,"nested":{"a":[true,false,null]},"s":")";
  text += std::string(5000, 'x') + "\"}";
  {
    auto s = fl::json_store::import(text, file());
    s.sync();
    s.set("/nested/a/-", "\"edited\"");  // a second, small commit
    s.sync();
  }
  const std::string good = fl_test::read_whole_file(file());
  const std::string want = str(fl::json_store::open(file()).dump());
  // Past the allocator's end the file holds nothing (zeros the checksums
  // cover, read by no one): flips there are counted apart.
  const std::uint64_t top = fl::mapped_space(file()).stats().top;
  std::mt19937_64 rng(fl_test::test_seed());
  int flips = 0, detected = 0, unread = 0, past_top = 0;
  for (std::size_t off = 0; off < good.size(); off += (off < top ? 7 : 509)) {
    std::string bad = good;
    bad[off] = static_cast<char>(bad[off] ^ (1 << (rng() % 8)));
    fl_test::write_bytes(file(), bad);
    ++flips;
    try {
      auto s = fl::json_store::open(file());
      const std::string d = str(s.dump());
      // Never a wrong value and never an older commit: a flip the dump does
      // not meet lies in bytes the document does not use (the space's
      // uncarved end, blocks of earlier commits, alignment gaps).
      EXPECT_EQ(d, want) << "flip at " << off;
      ++(off < top ? unread : past_top);
    } catch (const fl::persist_error& e) {
      ++detected;
      EXPECT_EQ(e.path(), file());
    }
  }
  EXPECT_GT(detected, 0);
  std::printf(
      "damage: %d single-bit flips: %d raised persist_error, %d below the allocator's end and %d "
      "past it hit bytes the document does not use, 0 read a different value or an older "
      "commit\n",
      flips, detected, unread, past_top);
}

// An in-place set reads the entry it overwrites first: damage on the
// entry's page is raised, not covered by the commit's new page checksum.
TEST_F(JsonStoreTest, InPlaceSetOnADamagedPageThrows) {
  constexpr std::int64_t first = 1000000007;
  std::string text = "{\"a\":[";
  for (int i = 0; i < 2000; ++i) text += (i ? "," : "") + std::to_string(first + i);
  text += "]}";
  fl::json_store::import(text, file()).sync();
  std::string bytes = fl_test::read_whole_file(file());
  const std::int64_t target = first + 1500;
  const std::size_t at = bytes.find(std::string(reinterpret_cast<const char*>(&target), 8));
  ASSERT_NE(at, std::string::npos);
  bytes[at + 16] = static_cast<char>(bytes[at + 16] ^ 1);  // element 1501's value
  fl_test::write_bytes(file(), bytes);
  auto s = fl::json_store::open(file());
  EXPECT_EQ(s.find("/a/3")->as_int64(), first + 3);  // another page reads fine
  EXPECT_THROW(s.set("/a/1500", "7"), fl::persist_error);
}

TEST_F(JsonStoreTest, TruncatedAndForeignFilesThrow) {
  std::string good, log, want;
  {
    // The file and log as a crash after a commit leaves them (a clean close
    // checkpoints and empties the log).
    auto s = fl::json_store::import(big_object(2000), file());
    s.sync();
    s.set("/k1", "\"edited\"");
    s.sync();
    good = fl_test::read_whole_file(file());
    log = fl_test::read_whole_file(file().string() + "-log");
    want = str(s.dump());
  }
  const std::size_t cuts[] = {
      0, 100, 4096, 8192, 12288, good.size() / 2, good.size() - 4096, good.size() - 1};
  // With the redo log of the last commit beside it, a truncated file either
  // throws or is completed from the log to exactly the committed document;
  // without the log it throws.
  for (const bool with_log : {true, false}) {
    for (std::size_t n : cuts) {
      fl_test::write_bytes(file(), good.substr(0, n));
      if (with_log)
        fl_test::write_bytes(file().string() + "-log", log);
      else
        std::filesystem::remove(file().string() + "-log");
      try {
        auto s = fl::json_store::open(file());
        EXPECT_TRUE(with_log) << n;
        EXPECT_EQ(str(s.dump()), want) << n;
      } catch (const fl::persist_error& e) { EXPECT_EQ(e.path(), file()); }
    }
  }
  fl_test::write_bytes(file(), std::string(20000, 'j'));
  EXPECT_THROW((void)fl::json_store::open(file()), fl::persist_error);
  EXPECT_THROW((void)fl::json_store::open(file("missing")), fl::persist_error);
}

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
      const ojson::json_pointer jp(p);
      const ojson& target = model.at(jp);
      const int op = static_cast<int>(gen.below(4));
      if (op == 0 && !p.empty()) {  // replace
        const ojson v = gen.value(2);
        s.set(p, v.dump());
        model.at(jp) = v;
      } else if (op == 1 && target.is_object()) {  // add or replace a member
        const std::string k = gen.key();
        const ojson v = gen.value(2);
        s.set(p + "/" + fl_test::pointer_token(k), v.dump());
        model.at(jp)[k] = v;
      } else if (op == 2 && target.is_array()) {  // append
        const ojson v = gen.value(2);
        s.set(p + (gen.below(2) ? "/-" : "/" + std::to_string(target.size())), v.dump());
        model.at(jp).push_back(v);
      } else if (op == 3 && !p.empty()) {  // erase
        ASSERT_TRUE(s.erase(p)) << p;
        ojson& parent = model.at(jp.parent_pointer());
        if (parent.is_object())
          parent.erase(jp.back());
        else
          parent.erase(static_cast<std::size_t>(std::stoul(jp.back())));
      } else {
        EXPECT_FALSE(s.erase(p + "/no~1such"));
      }
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
      const ojson::json_pointer jp(p);
      if (p.empty() || !model.contains(jp)) continue;  // gone with an earlier edit
      ojson& target = model.at(jp);
      const int op = static_cast<int>(gen.below(4));
      if (op == 0) {  // replace
        const ojson v = gen.value(2);
        s.set(p, v.dump());
        target = v;
      } else if (op == 1 && target.is_object()) {  // add or replace a member
        const std::string k = gen.key();
        const ojson v = gen.value(3);
        s.set(p + "/" + fl_test::pointer_token(k), v.dump());
        target[k] = v;
      } else if (op == 2 && target.is_array()) {  // append
        const ojson v = gen.value(3);
        s.set(p + "/-", v.dump());
        target.push_back(v);
      } else if (op == 3) {  // erase
        ASSERT_TRUE(s.erase(p)) << p;
        ojson& parent = model.at(jp.parent_pointer());
        if (parent.is_object())
          parent.erase(jp.back());
        else
          parent.erase(static_cast<std::size_t>(std::stoul(jp.back())));
      } else {
        continue;
      }
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
