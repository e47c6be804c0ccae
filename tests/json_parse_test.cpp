// fl::json_store's parsers: RFC 8259 conformance. Valid texts round-trip
// through dump, invalid ones throw json_error at the right byte, line and
// column, through both the strict parser and the simdjson path (a text padded
// past the size where import() hands it to simdjson goes through the other).
#include <fl/json_store.hpp>

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
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

class JsonParseTest : public ::testing::Test {
 protected:
  fl_test::temp_dir dir_;
  std::filesystem::path file(const std::string& name = "doc.fljson") const { return dir_ / name; }
};

TEST_F(JsonParseTest, InvalidTextsThrowAtTheirOffsetInBothParsers) {
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

TEST_F(JsonParseTest, ValidTextsDumpExactlyAndRoundTripInBothParsers) {
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

// A text that is one short integer ("7", "-42") is read without a parser
// (set()'s and import()'s fast path); the same text with a space before it
// goes through the parsers. Every length of every sign, and the forms the
// grammar refuses, must come out the same both ways: the value, its type,
// its text, or the same json_error.
TEST_F(JsonParseTest, IntegersReadWithoutTheParserAreTheParsersValues) {
  std::vector<std::string> texts = {"0",
                                    "-0",
                                    "00",
                                    "-00",
                                    "01",
                                    "-01",
                                    "-",
                                    "",
                                    "1-",
                                    "1 ",
                                    "--1",
                                    "+1",
                                    "1e2",
                                    "1.5",
                                    "12a",
                                    "9223372036854775807",
                                    "-9223372036854775808",
                                    "18446744073709551615",
                                    "18446744073709551616",
                                    "-9223372036854775809"};
  std::string digits;
  for (int n = 1; n <= 20; ++n) {
    const int next = (n * 7) % 10;  // never 0 first: no leading zero
    digits += static_cast<char>('0' + (next == 0 ? 1 : next));
    const std::string nines(static_cast<std::size_t>(n), '9');
    for (const std::string& d : {digits, nines}) {
      texts.push_back(d);
      std::string negative = "-";
      negative += d;
      texts.push_back(negative);
    }
  }
  auto s = fl::json_store::import("{}", file());
  int fast = 0;
  for (const std::string& t : texts) {
    const auto read = [&](const std::string& text, const char* pointer) -> std::string {
      try {
        s.set(pointer, text);
      } catch (const fl::json_error& e) {
        std::string error = "json_error ";
        error += e.what();
        return error;
      }
      const fl::json_value v = *s.find(pointer);
      std::string got = v.type_name();
      got += v.is_integer() ? " integer " : v.is_double() ? " double " : " ";
      got += str(v.dump());
      return got;
    };
    std::string spaced = " ";
    spaced += t;
    const std::string direct = read(t, "/a"), parsed = read(spaced, "/b");
    // The error's offset counts the space.
    EXPECT_EQ(direct.rfind("json_error", 0) == 0, parsed.rfind("json_error", 0) == 0) << t;
    if (direct.rfind("json_error", 0) != 0) {
      EXPECT_EQ(direct, parsed) << t;
      if (t.size() <= 19 && t.find_first_not_of("-0123456789") == std::string::npos) ++fast;
    }
    for (const bool padded : {false, true}) {
      std::string text = padded ? simd_pad : std::string();
      text += t;
      std::string imported;
      try {
        imported = str(fl::json_store::import(text, file("i")).dump());
      } catch (const fl::json_error&) { imported = "json_error"; }
      EXPECT_EQ(imported.rfind("json_error", 0) == 0, direct.rfind("json_error", 0) == 0) << t;
    }
  }
  EXPECT_GE(fast, 70);  // the fast path's texts were among them
}

// A hand-edited config file: the error names the line and the (byte) column
// of the fault, 1-based, through both parsers (the padded texts go to simdjson
// first). Before line/column existed only the offset was given.
TEST_F(JsonParseTest, InvalidTextsNameTheirLineAndByteColumn) {
  struct where_case {
    std::string text;
    std::size_t line, column;
  };
  const where_case cases[] = {
      {"{oops}", 1, 2},
      {"{\n  \"a\": 1,\n  \"b\": tru\n}", 3, 11},    // the byte after "tru"
      {"{\r\n  \"a\": [1,\r\n   2,,3]\r\n}", 3, 6},  // CRLF ends one line; '\r' is no line
      {"[\"\xC3\xA9\xC3\xA9\", x]", 1, 10},          // columns count bytes, not characters
      {"[1,\n\n", 3, 1},                             // the end of the text, on the last line
      {"{\"a\":1}\n\n  x", 3, 3},                    // text after the value
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

// The strict parser scans strings and white space 16 bytes at a time: every
// byte that stops a scan (a quote, an escape, a control byte, a non-ASCII
// sequence, a bad UTF-8 byte, the end of the text) at every position of the
// first 16-byte steps, and runs of white space of every length up to them.
TEST_F(JsonParseTest, StringsAndWhiteSpaceParseAtEveryPositionOfAScan) {
  int checked = 0;
  for (std::size_t len = 0; len <= 40; ++len) {
    for (std::size_t pos = 0; pos <= len; ++pos) {
      const std::string before(pos, 'a'), after(len - pos, 'b');
      const auto doc = [&](const std::string& x) { return "[\"" + before + x + after + "\"]"; };
      // Valid: an escape, a 2- and a 3-byte char, a 4-byte one.
      EXPECT_EQ(str(fl::json_store::import(doc("\\n"), file()).dump()), doc("\\n"));
      EXPECT_EQ(str(fl::json_store::import(doc("\xC3\xA9"), file()).dump()), doc("\xC3\xA9"));
      EXPECT_EQ(str(fl::json_store::import(doc("\xE2\x82\xAC"), file()).dump()),
                doc("\xE2\x82\xAC"));
      EXPECT_EQ(str(fl::json_store::import(doc("\\\"\xF0\x9F\x98\x80"), file()).dump()),
                doc("\\\"\xF0\x9F\x98\x80"));
      // Invalid at the byte itself: a control byte, a byte no UTF-8 has, a
      // lead byte cut short by the quote.
      for (const std::string& bad : {"\x01"s, "\xFF"s, "\xE2\x82"s}) {
        try {
          (void)fl::json_store::import(doc(bad), file());
          ADD_FAILURE() << "accepted " << testing::PrintToString(doc(bad));
        } catch (const fl::json_error& e) { EXPECT_EQ(e.offset(), 2 + pos); }
      }
      // Unterminated: the text ends inside the string, after an escape too.
      for (const std::string& end : {""s, "\\t"s}) {
        try {
          (void)fl::json_store::import("[\"" + before + end + after, file());
          ADD_FAILURE() << "accepted an unterminated string";
        } catch (const fl::json_error& e) { EXPECT_EQ(e.offset(), 1u); }
      }
      checked += 8;
    }
    const std::string blank = std::string(len, ' ') + std::string(len % 7, '\n') + "\t\r";
    EXPECT_EQ(str(fl::json_store::import(blank + "[" + blank + "1" + blank + "," + blank +
                                             "{" + blank + "\"k\"" + blank + ":" + blank + "2" +
                                             blank + "}" + blank + "]" + blank,
                                         file())
                      .dump()),
              "[1,{\"k\":2}]");
    try {
      (void)fl::json_store::import("[" + blank + "x", file());
      ADD_FAILURE() << "accepted";
    } catch (const fl::json_error& e) { EXPECT_EQ(e.offset(), 1 + blank.size()); }
    ++checked;
  }
  std::printf("scans: %d strings and runs of white space parsed at every position\n", checked);
}

// Past 64 MiB import() parses the text in one pass while it builds the store
// (json_internal.hpp, parse_fast): the same language, the same errors at the
// same bytes, and an invalid text still leaves nothing behind, though its
// temporary file was created before the fault was found.
TEST_F(JsonParseTest, TextsPastTheOnePassSizeParseAndFailAsTheOthers) {
  const std::size_t one_pass_min_bytes = std::size_t{64} << 20;
  // A store already at the path, which no refused import may change.
  {
    auto keep = fl::json_store::import(R"({"keep":[1,2]})", file());
    keep.sync();
  }
  std::string text(one_pass_min_bytes + 1, ' ');
  const std::size_t pad = text.size();
  int checked = 0;
  for (const auto& c : invalid_texts) {
    text.resize(pad);
    text.append(c.text);
    try {
      (void)fl::json_store::import(text, file());
      ADD_FAILURE() << "accepted: " << testing::PrintToString(std::string(c.text));
    } catch (const fl::json_error& e) {
      EXPECT_EQ(e.offset(), c.offset + pad) << testing::PrintToString(std::string(c.text));
    }
    EXPECT_FALSE(std::filesystem::exists(file().string() + ".tmp"));
    ++checked;
  }
  EXPECT_EQ(str(fl::json_store::open(file()).dump()), R"({"keep":[1,2]})");
  for (const auto& c : valid_texts) {
    text.resize(pad);
    text.append(c.text);
    EXPECT_EQ(str(fl::json_store::import(text, file("valid.fljson")).dump()), c.dump)
        << testing::PrintToString(std::string(c.text));
    ++checked;
  }
  // An object of more keys than the key sorter's run (its sorted runs go to
  // a temporary file beside the store), then the white space, then an
  // error inside the object: the error where it is, and nothing left in
  // the directory but the store that was there; closed instead, every
  // member found by its key.
  std::string members = "{\"o\":{";
  for (std::size_t i = 0; i < 300000; ++i)
    members += (i ? ",\"k" : "\"k") + std::to_string(i * 7919 % 300007) + "\":" + std::to_string(i);
  for (const bool valid : {false, true}) {
    text = members;
    text.append(one_pass_min_bytes, ' ');
    text += valid ? "}}" : ",\"x\" 1}}";
    try {
      auto s = fl::json_store::import(text, file());
      ASSERT_TRUE(valid) << "accepted an object whose last key has no value";
      s.sync();
      EXPECT_GT(s.verify(), 0u);
      for (std::size_t i = 0; i < 300000; i += 997)
        EXPECT_EQ(s.get<std::int64_t>("/o/k" + std::to_string(i * 7919 % 300007)),
                  static_cast<std::int64_t>(i));
    } catch (const fl::json_error& e) {
      EXPECT_FALSE(valid) << e.what();
      EXPECT_EQ(e.offset(), text.size() - 3) << e.what();
    }
    // The store's own files (its log and readers' table among them), and
    // no temporary file.
    const std::string stem = file().filename().string();
    for (const auto& f : std::filesystem::directory_iterator(file().parent_path())) {
      const std::string name = f.path().filename().string();
      EXPECT_EQ(name.rfind(stem, 0), 0u) << name << ", valid " << valid;
      EXPECT_EQ(name.find(".tmp"), std::string::npos) << name << ", valid " << valid;
    }
    if (!valid) {
      EXPECT_EQ(str(fl::json_store::open(file()).dump()), R"({"keep":[1,2]})");
    }
    ++checked;
  }
  // A document of that size made of values, not white space: the builder
  // streams its blocks to the file while the parser runs.
  std::string doc = "[";
  for (std::size_t i = 0; doc.size() <= one_pass_min_bytes; ++i) {
    if (i) doc += ',';
    doc += "{\"id\":" + std::to_string(i) + ",\"name\":\"item " + std::to_string(i) +
           " \xC3\xA9\",\"tags\":[\"a\",\"b\",null,true],\"n\":-" + std::to_string(i * 7 + 1) +
           "}";
  }
  doc += ']';
  {
    auto s = fl::json_store::import(doc, file("big.fljson"));
    s.sync();
  }
  auto s = fl::json_store::open(file("big.fljson"));
  EXPECT_GT(s.verify(), 0u);
  // Not EXPECT_EQ: a failure would print 64 MiB.
  EXPECT_TRUE(str(s.dump()) == doc);
  std::printf("one pass: %d texts past %zu bytes, and a %zu-byte document\n", checked,
              one_pass_min_bytes, doc.size());
}

TEST_F(JsonParseTest, NestingLimitIsTheSameInBothParsers) {
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

}  // namespace
