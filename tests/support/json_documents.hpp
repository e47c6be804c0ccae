// tests/support/json_documents.hpp: two JSON documents generated from a fixed
// seed with the shape of the real benchmark documents (twitter.json and
// citm_catalog.json, which live outside the repository), so the json/
// benchmarks and the json_store tests run on a fresh clone with nothing beside
// it. The one generator of both: the benchmark program includes this header
// (bench/json_data.hpp) and so do the tests (tests/json_test_support.hpp).
// Header-only, like json_pointers.hpp, so the benchmark program needs no test
// library.
//
//   generated_twitter()  a search API response like twitter.json (631,515
//                        bytes): 100 statuses, most with a retweeted status,
//                        each with a nested user object (40 members), long
//                        Japanese and Chinese texts with emoji (4-byte UTF-8),
//                        64-bit ids as numbers beside their decimal strings,
//                        escaped quotes and newlines, 2-space indentation.
//   generated_citm()     an event catalog like citm_catalog.json (1,727,204
//                        bytes): objects of 184 events and of names keyed by
//                        numeric strings, 243 performances each holding arrays
//                        of small objects (prices, seat categories of ~10
//                        areas with an empty blockIds array), mostly integers,
//                        French names, 4-space indentation.
//
// Each is the same text on every machine and every call (the generator uses
// its own splitmix64, not a standard distribution whose output may differ
// between standard libraries), about the size of its model, and holds the
// pointers the benchmarks read and edit: /statuses/99/user/screen_name,
// /statuses/0/retweet_count, /performances/200/seatCategories/0/areas/0/areaId.
// The text is built fresh by every call (a few milliseconds); callers that
// need it more than once keep it.
//
// Threads: no shared state.
#pragma once

#include "splitmix64.hpp"
#include "utf8.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace fl_test {

namespace json_gen {

// The fixed seed of both documents; changing it changes every generated row.
inline constexpr std::uint64_t seed = 0x6a736f6e2d67656eULL;

// The generator of both documents (support/splitmix64.hpp), with the draws
// the documents need.
class rng : public fl_test::splitmix64 {
 public:
  using splitmix64::splitmix64;
  // Uniform in [lo, hi].
  std::uint64_t in(std::uint64_t lo, std::uint64_t hi) noexcept { return lo + below(hi - lo + 1); }
  // True with probability num/den.
  bool chance(std::uint64_t num, std::uint64_t den) noexcept { return below(den) < num; }
  template <class T, std::size_t N>
  const T& pick(const T (&items)[N]) noexcept {
    return items[below(N)];
  }
};

// Pretty-printed JSON text in the layout of the real documents (Python's
// json.dump with an indent): one member or element per line, `"key": value`,
// empty containers as `[]` and `{}`. Strings are escaped as RFC 8259 requires
// and UTF-8 is kept as is.
class writer {
 public:
  explicit writer(std::size_t indent) : indent_(indent) {}

  writer& open_object() { return open('{'); }
  writer& close_object() { return close('}'); }
  writer& open_array() { return open('['); }
  writer& close_array() { return close(']'); }

  writer& key(std::string_view k) {
    element();
    quote(k);
    out_ += ": ";
    after_key_ = true;
    return *this;
  }
  writer& str(std::string_view s) {
    element();
    quote(s);
    return *this;
  }
  writer& num(std::uint64_t v) { return raw(std::to_string(v)); }
  writer& boolean(bool v) { return raw(v ? "true" : "false"); }
  writer& null() { return raw("null"); }
  // A number or literal written as given.
  writer& raw(std::string_view text) {
    element();
    out_ += text;
    return *this;
  }

  // Shorthands for a member: key then value.
  writer& member(std::string_view k, std::string_view s) { return key(k).str(s); }
  writer& member_num(std::string_view k, std::uint64_t v) { return key(k).num(v); }
  writer& member_bool(std::string_view k, bool v) { return key(k).boolean(v); }
  writer& member_null(std::string_view k) { return key(k).null(); }
  // A string member, or null when `s` is empty.
  writer& member_or_null(std::string_view k, std::string_view s) {
    return s.empty() ? member_null(k) : member(k, s);
  }

  std::string take() { return std::move(out_); }
  std::size_t size() const noexcept { return out_.size(); }

 private:
  writer& open(char c) {
    element();
    out_ += c;
    empty_.push_back(true);
    return *this;
  }
  writer& close(char c) {
    const bool was_empty = empty_.back();
    empty_.pop_back();
    if (!was_empty) newline();
    out_ += c;
    return *this;
  }
  // Before a value or key: the comma and line break that separate it from
  // the previous one, unless it is the value of the key just written.
  void element() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (empty_.empty()) return;
    if (!empty_.back()) out_ += ',';
    empty_.back() = false;
    newline();
  }
  void newline() {
    out_ += '\n';
    out_.append(indent_ * empty_.size(), ' ');
  }
  void quote(std::string_view s) {
    static constexpr char hex[] = "0123456789abcdef";
    out_ += '"';
    for (const char c : s) {
      const auto u = static_cast<unsigned char>(c);
      if (c == '"' || c == '\\') {
        out_ += '\\';
        out_ += c;
      } else if (c == '\n') {
        out_ += "\\n";
      } else if (u < 0x20) {
        out_ += "\\u00";
        out_ += hex[u >> 4];
        out_ += hex[u & 15];
      } else {
        out_ += c;
      }
    }
    out_ += '"';
  }

  std::string out_;
  std::vector<bool> empty_;  // per open container: nothing written in it yet
  std::size_t indent_;
  bool after_key_ = false;
};

// The one UTF-8 encoder of the test generators (support/utf8.hpp).
using fl_test::put_utf8;

// `n` characters of Japanese-like text: hiragana, katakana and kanji, with
// some full-width punctuation, ASCII digits and emoji (4 bytes, as in the
// real statuses).
inline std::string cjk_text(rng& r, std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t k = r.below(100);
    if (k < 35)
      put_utf8(s, static_cast<std::uint32_t>(0x3041 + r.below(0x56)));  // hiragana
    else if (k < 50)
      put_utf8(s, static_cast<std::uint32_t>(0x30A1 + r.below(0x5A)));  // katakana
    else if (k < 80)
      put_utf8(s, static_cast<std::uint32_t>(0x4E00 + r.below(0x5000)));  // CJK ideographs
    else if (k < 86)
      put_utf8(s, static_cast<std::uint32_t>(r.pick({0x3001u, 0x3002u, 0xFF01u, 0xFF1Fu, 0x2026u,
                                                     0x300Cu, 0x300Du, 0xFF08u, 0xFF09u})));
    else if (k < 92)
      put_utf8(s, static_cast<std::uint32_t>(0x1F600 + r.below(0x50)));  // emoji
    else if (k < 95)
      s += static_cast<char>('0' + r.below(10));
    else if (k < 97)
      s += '\n';
    else
      s += ' ';
  }
  return s;
}

// `n` bytes of ASCII letters and digits.
inline std::string alnum(rng& r, std::size_t n) {
  static constexpr std::string_view chars =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += chars[r.below(chars.size())];
  return s;
}

// A screen name: 4 to 15 letters, digits and underscores.
inline std::string screen_name(rng& r) {
  std::string s = alnum(r, r.in(3, 12));
  if (r.chance(1, 3)) s += '_';
  s += alnum(r, r.in(1, 3));
  return s;
}

// "Sun Aug 31 00:29:15 +0000 2014" for second `t` of a 2009-2014 calendar
// that is regular enough for a benchmark (28-day months).
inline std::string created_at(std::uint64_t t) {
  static constexpr const char* days[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
  static constexpr const char* months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                           "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const std::uint64_t day = t / 86400, sec = t % 86400;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%s %s %02u %02u:%02u:%02u +0000 %u", days[day % 7],
                months[(day / 28) % 12], static_cast<unsigned>(day % 28 + 1),
                static_cast<unsigned>(sec / 3600), static_cast<unsigned>(sec / 60 % 60),
                static_cast<unsigned>(sec % 60), static_cast<unsigned>(2009 + day / 336 % 6));
  return buf;
}

// A t.co link as the entities list it: url, expanded_url, display_url, indices.
inline void url_entity(writer& w, rng& r, std::uint64_t at) {
  const std::string host = r.pick({"www.example.jp", "blog.example.com", "news.example.net"});
  const std::string path = "/" + alnum(r, r.in(6, 24));
  w.open_object()
      .member("url", "http://t.co/" + alnum(r, 10))
      .member("expanded_url", "http://" + host + path)
      .member("display_url", host + path.substr(0, 12) + "\xE2\x80\xA6")
      .key("indices")
      .open_array()
      .num(at)
      .num(at + 22)
      .close_array()
      .close_object();
}

inline void twitter_user(writer& w, rng& r, std::uint64_t id) {
  const std::string name = screen_name(r);
  const bool has_url = r.chance(1, 3);
  const std::string colors[] = {"C0DEED", "0084B4", "333333", "DDEEF6", "FFFFFF", "ACDED6",
                                "131516", "EFEFEF", "FF6699", "022330"};
  const std::string image = "http://pbs.twimg.com/profile_images/" + std::to_string(r.in(100000000, 600000000)) +
                            "/" + alnum(r, r.in(8, 20)) + "_normal.jpeg";
  w.open_object().member_num("id", id).member("id_str", std::to_string(id));
  w.member("name", r.chance(2, 3) ? cjk_text(r, r.in(2, 10)) : alnum(r, r.in(4, 14)))
      .member("screen_name", name)
      .member("location", r.chance(1, 2) ? std::string() : cjk_text(r, r.in(2, 8)))
      .member("description", cjk_text(r, r.in(25, 110)));
  if (has_url)
    w.member("url", "http://t.co/" + alnum(r, 10));
  else
    w.member_null("url");
  w.key("entities").open_object();
  if (has_url) {
    w.key("url").open_object().key("urls").open_array();
    url_entity(w, r, 0);
    w.close_array().close_object();
  }
  w.key("description").open_object().key("urls").open_array().close_array().close_object();
  w.close_object();
  w.member_bool("protected", r.chance(1, 20))
      .member_num("followers_count", r.below(r.chance(1, 10) ? 100000 : 2000))
      .member_num("friends_count", r.below(2000))
      .member_num("listed_count", r.below(50))
      .member("created_at", created_at(r.below(6 * 336 * 86400)))
      .member_num("favourites_count", r.below(20000));
  if (r.chance(1, 2))
    w.member_num("utc_offset", 32400).member("time_zone", r.pick({"Tokyo", "Osaka", "Irkutsk"}));
  else
    w.member_null("utc_offset").member_null("time_zone");
  w.member_bool("geo_enabled", r.chance(1, 3))
      .member_bool("verified", r.chance(1, 50))
      .member_num("statuses_count", r.below(100000))
      .member("lang", "ja")
      .member_bool("contributors_enabled", false)
      .member_bool("is_translator", false)
      .member_bool("is_translation_enabled", false)
      .member("profile_background_color", r.pick(colors))
      .member("profile_background_image_url",
              "http://abs.twimg.com/images/themes/theme" + std::to_string(r.in(1, 19)) + "/bg.png")
      .member("profile_background_image_url_https",
              "https://abs.twimg.com/images/themes/theme" + std::to_string(r.in(1, 19)) + "/bg.png")
      .member_bool("profile_background_tile", r.chance(1, 4))
      .member("profile_image_url", image)
      .member("profile_image_url_https", "https" + image.substr(4));
  if (r.chance(2, 3))
    w.member("profile_banner_url",
             "https://pbs.twimg.com/profile_banners/" + std::to_string(id) + "/" +
                 std::to_string(r.in(1300000000, 1409999999)));
  w.member("profile_link_color", r.pick(colors))
      .member("profile_sidebar_border_color", r.pick(colors))
      .member("profile_sidebar_fill_color", r.pick(colors))
      .member("profile_text_color", r.pick(colors))
      .member_bool("profile_use_background_image", r.chance(3, 4))
      .member_bool("default_profile", r.chance(1, 2))
      .member_bool("default_profile_image", r.chance(1, 20))
      .member_bool("following", false)
      .member_bool("follow_request_sent", false)
      .member_bool("notifications", false)
      .close_object();
}

// One status; `nested` is false for the retweeted status inside another.
inline void twitter_status(writer& w, rng& r, std::uint64_t id, bool nested) {
  const bool zh = r.chance(1, 25);
  const bool reply = r.chance(1, 5);
  const std::string mention = screen_name(r);
  const std::uint64_t mention_id = r.in(100000000, 3000000000);
  std::string text;
  if (reply || r.chance(1, 3)) text += "@" + mention + " ";
  text += cjk_text(r, r.in(20, 140));
  const bool tagged = r.chance(1, 4);
  const std::string tag = cjk_text(r, r.in(2, 6));
  if (tagged) text += " #" + tag;
  const bool linked = r.chance(1, 3);
  if (linked) text += " http://t.co/" + alnum(r, 10);

  w.open_object();
  w.key("metadata")
      .open_object()
      .member("result_type", "recent")
      .member("iso_language_code", zh ? "zh" : "ja")
      .close_object();
  w.member("created_at", created_at(5 * 336 * 86400 + r.below(336 * 86400)))
      .member_num("id", id)
      .member("id_str", std::to_string(id))
      .member("text", text)
      .member("source", r.pick({"<a href=\"http://twitter.com/download/iphone\" rel=\"nofollow\">"
                                "Twitter for iPhone</a>",
                                "<a href=\"http://twitter.com/download/android\" rel=\"nofollow\">"
                                "Twitter for Android</a>",
                                "web",
                                "<a href=\"http://twittbot.net/\" rel=\"nofollow\">twittbot.net</a>"}))
      .member_bool("truncated", false);
  if (reply) {
    const std::uint64_t to = id - r.in(1000000, 1000000000000);
    w.member_num("in_reply_to_status_id", to)
        .member("in_reply_to_status_id_str", std::to_string(to))
        .member_num("in_reply_to_user_id", mention_id)
        .member("in_reply_to_user_id_str", std::to_string(mention_id))
        .member("in_reply_to_screen_name", mention);
  } else {
    w.member_null("in_reply_to_status_id")
        .member_null("in_reply_to_status_id_str")
        .member_null("in_reply_to_user_id")
        .member_null("in_reply_to_user_id_str")
        .member_null("in_reply_to_screen_name");
  }
  w.key("user");
  twitter_user(w, r, r.in(100000000, 3000000000));
  w.member_null("geo").member_null("coordinates").member_null("place").member_null("contributors");
  if (!nested && r.chance(73, 100)) {
    w.key("retweeted_status");
    twitter_status(w, r, id - r.in(1000000000, 1000000000000000), true);
  }
  w.member_num("retweet_count", r.below(r.chance(1, 5) ? 5000 : 20))
      .member_num("favorite_count", r.below(100));
  w.key("entities").open_object();
  w.key("hashtags").open_array();
  if (tagged)
    w.open_object()
        .member("text", tag)
        .key("indices")
        .open_array()
        .num(r.below(100))
        .num(r.in(100, 140))
        .close_array()
        .close_object();
  w.close_array();
  w.key("symbols").open_array().close_array();
  w.key("urls").open_array();
  if (linked) url_entity(w, r, r.below(118));
  w.close_array();
  w.key("user_mentions").open_array();
  if (text[0] == '@')
    w.open_object()
        .member("screen_name", mention)
        .member("name", cjk_text(r, r.in(2, 8)))
        .member_num("id", mention_id)
        .member("id_str", std::to_string(mention_id))
        .key("indices")
        .open_array()
        .num(0)
        .num(mention.size() + 1)
        .close_array()
        .close_object();
  w.close_array();
  w.close_object();
  w.member_bool("favorited", false).member_bool("retweeted", false).member("lang", zh ? "zh" : "ja");
  w.close_object();
}

}  // namespace json_gen

// A twitter.json-like search response (about 630 KB); see the file comment.
inline std::string generated_twitter() {
  json_gen::rng r(json_gen::seed);
  json_gen::writer w(2);
  const std::uint64_t max_id = 505874924095815681ULL + r.below(1000000);
  w.open_object().key("statuses").open_array();
  std::uint64_t id = max_id;
  for (int i = 0; i < 100; ++i) {
    json_gen::twitter_status(w, r, id, false);
    id -= r.in(100000, 10000000);
  }
  w.close_array();
  w.key("search_metadata")
      .open_object()
      .key("completed_in")
      .raw("0.087")  // the document's one non-integer number
      .member_num("max_id", max_id)
      .member("max_id_str", std::to_string(max_id))
      .member("next_results",
              "?max_id=" + std::to_string(id) + "&q=%E4%B8%80&count=100&include_entities=1")
      .member("query", "%E4%B8%80")
      .member("refresh_url",
              "?since_id=" + std::to_string(max_id) + "&q=%E4%B8%80&include_entities=1")
      .member_num("count", 100)
      .member_num("since_id", 0)
      .member("since_id_str", "0")
      .close_object();
  w.close_object();
  return w.take() + "\n";
}

// A citm_catalog.json-like event catalog (about 1.7 MB); see the file comment.
inline std::string generated_citm() {
  using json_gen::writer;
  json_gen::rng r(json_gen::seed ^ 0x6369746dULL);
  writer w(4);
  // Ids are increasing 9-digit numbers, as the catalog's are, so keys sort
  // as the real ones do.
  auto ids = [&](std::uint64_t first, std::size_t n) {
    std::vector<std::uint64_t> v;
    for (std::uint64_t id = first; v.size() < n; id += r.in(1, 40)) v.push_back(id);
    return v;
  };
  const std::vector<std::uint64_t> areas = ids(205705993, 17), seat_cats = ids(338937235, 64),
                                    sub_topics = ids(337184262, 19),
                                    topics = {107888604, 324846098, 324846099, 324846100},
                                    events = ids(138586341, 184);
  static constexpr const char* levels[] = {"Arri\xC3\xA8re-sc\xC3\xA8ne", "1er balcon",
                                           "2\xC3\xA8me balcon", "Orchestre", "Parterre"};
  static constexpr const char* sides[] = {"central", "jardin", "cour", "bergerie cour",
                                          "bergerie jardin"};
  static constexpr const char* words[] = {
      "Orchestre", "Symphonie", "Quatuor", "R\xC3\xA9" "cital", "Concert", "Philharmonique",
      "de",        "Paris",     "Berlin",  "Tour",                  "Anniversary", "Op\xC3\xA9ra",
      "Musique",   "baroque",   "Jazz",    "Ensemble",              "Ch\xC5\x93ur", "Piano"};
  auto title = [&](std::size_t n) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) {
      if (i) s += ' ';
      s += r.pick(words);
    }
    return s;
  };
  auto names = [&](std::string_view key, const std::vector<std::uint64_t>& of, auto name) {
    w.key(key).open_object();
    for (const std::uint64_t id : of) w.member(std::to_string(id), name());
    w.close_object();
  };
  auto id_array = [&](const std::vector<std::uint64_t>& from, std::size_t n) {
    w.open_array();
    for (std::size_t i = 0; i < n; ++i) w.num(from[r.below(from.size())]);
    w.close_array();
  };

  w.open_object();
  names("areaNames", areas,
        [&] { return std::string(r.pick(levels)) + " " + r.pick(sides); });
  w.key("audienceSubCategoryNames").open_object().member("337100890", "Abonn\xC3\xA9").close_object();
  w.key("blockNames").open_object().close_object();
  w.key("events").open_object();
  for (const std::uint64_t id : events) {
    w.key(std::to_string(id)).open_object().member_null("description").member_num("id", id);
    w.member_or_null("logo", r.chance(1, 3) ? "/images/UE0AAAAA" + json_gen::alnum(r, 8) + "AAAA"
                                                     "ZDSVRN"
                                               : std::string());
    w.member("name", title(r.in(2, 5))).key("subTopicIds");
    id_array(sub_topics, r.in(1, 4));
    w.member_null("subjectCode").member_null("subtitle").key("topicIds");
    id_array(topics, r.in(1, 3));
    w.close_object();
  }
  w.close_object();
  w.key("performances").open_array();
  std::uint64_t perf_id = 339887544, start = 1372701600000ULL;
  for (int p = 0; p < 243; ++p) {
    perf_id += r.in(1, 3000);
    start += r.in(1, 4) * 86400000ULL;
    const std::size_t cats = r.in(1, 7);
    std::vector<std::uint64_t> cat_ids;
    for (std::size_t c = 0; c < cats; ++c) cat_ids.push_back(seat_cats[r.below(seat_cats.size())]);
    w.open_object()
        .member_num("eventId", events[r.below(events.size())])
        .member_num("id", perf_id)
        .member_null("logo")
        .member_null("name")
        .key("prices")
        .open_array();
    for (const std::uint64_t c : cat_ids)
      w.open_object()
          .member_num("amount", r.in(10, 200) * 250)
          .member_num("audienceSubCategoryId", 337100890)
          .member_num("seatCategoryId", c)
          .close_object();
    w.close_array().key("seatCategories").open_array();
    for (const std::uint64_t c : cat_ids) {
      w.open_object().key("areas").open_array();
      for (std::uint64_t a = r.in(4, 15); a; --a)
        w.open_object()
            .member_num("areaId", areas[r.below(areas.size())])
            .key("blockIds")
            .open_array()
            .close_array()
            .close_object();
      w.close_array().member_num("seatCategoryId", c).close_object();
    }
    w.close_array()
        .member_null("seatMapImage")
        .member_num("start", start)
        .member("venueCode", "PLEYEL_PLEYEL")
        .close_object();
  }
  w.close_array();
  names("seatCategoryNames", seat_cats, [&] {
    return std::to_string(r.in(1, 9)) + (r.chance(1, 2) ? "\xC3\xA8me" : "\xC3\xA8re") +
           " cat\xC3\xA9gorie";
  });
  names("subTopicNames", sub_topics, [&] { return title(r.in(1, 3)); });
  w.key("subjectNames").open_object().close_object();
  names("topicNames", topics, [&] { return title(1); });
  w.key("topicSubTopics").open_object();
  for (const std::uint64_t t : topics) {
    w.key(std::to_string(t));
    id_array(sub_topics, r.in(1, 12));
  }
  w.close_object();
  w.key("venueNames").open_object().member("PLEYEL_PLEYEL", "Salle Pleyel").close_object();
  w.close_object();
  return w.take();
}

}  // namespace fl_test
