// tests/support/json_churn.hpp: the edits of a store that lives for years,
// for the churn test (tests/json_churn_test.cpp) and the json/churn_*
// benchmarks: string and container sets, in-place number sets, a rolling log
// (append, then erase the first entry past a length), members added and
// erased. A generator keeps just enough state (log lengths, which members
// exist) that every edit it makes is valid; the document it edits keeps a
// steady live size, so the file size measures reuse.
//
// Two workloads: `small`, a 60-byte document; `twitter`, a document with a
// "statuses" array of objects with "text" and "user":{"description"} (the
// shape of twitter.json), whose statuses are edited at random.
//
// Header-only, no dependencies. Threads: one generator per thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace fl_test {

struct churn_edit {
  bool erase = false;
  std::string pointer;
  std::string text;  // the JSON text a set writes
};

class churn_gen {
 public:
  enum class workload { small, twitter };

  // The small workload's starting document (60 bytes).
  static std::string small_document() {
    return R"({"name":"fl","n":0,"tags":["a","b"],"log":[],"obj":{"k":1}})";
  }

  // `statuses`: the length of the twitter document's "statuses" array.
  churn_gen(workload w, std::uint64_t seed, std::size_t statuses = 0)
      : w_(w), rng_(seed), logs_(w == workload::small ? 1 : statuses, 0),
        has_obj_(w == workload::small ? 1 : statuses, 0) {
    if (w == workload::small) has_obj_[0] = 1;
  }

  churn_edit next() { return w_ == workload::small ? next_small() : next_twitter(); }

 private:
  std::uint64_t below(std::uint64_t n) { return rng_() % n; }

  // A JSON string of 0..max characters, with an escape now and then.
  std::string str(std::size_t max) {
    std::string s = "\"";
    for (std::uint64_t n = below(max + 1); n; --n) {
      const std::uint64_t c = below(40);
      if (c == 0)
        s += "\\n";
      else if (c == 1)
        s += "\\u00e9";
      else
        s += static_cast<char>('a' + below(26));
    }
    return s + "\"";
  }
  // A small object (or array) of strings and numbers.
  std::string container() { return container(below(2) == 0); }
  std::string container(bool object) {
    std::string t = object ? "{" : "[";
    for (std::uint64_t i = 0, n = 1 + below(4); i < n; ++i) {
      if (i) t += ",";
      if (object) t += "\"k" + std::to_string(i) + "\":";
      t += below(2) ? str(12) : std::to_string(static_cast<std::int64_t>(rng_() % 100000));
    }
    return t + (object ? "}" : "]");
  }
  std::string number() { return std::to_string(static_cast<std::int64_t>(rng_() % 1000000)); }

  // The rolling log at `at` (an array, `len` entries): append, and erase the
  // first entry past `keep`.
  churn_edit log_step(const std::string& at, std::uint32_t& len, std::uint32_t keep) {
    if (len >= keep) {
      --len;
      return {true, at + "/0", {}};
    }
    ++len;
    return {false, at + "/-", str(24)};
  }

  churn_edit next_small() {
    switch (below(6)) {
      case 0: return {false, "/name", str(40)};
      case 1: return {false, "/n", number()};
      case 2: return {false, "/obj", container(true)};
      case 3: return log_step("/log", logs_[0], 50);
      case 4: return {false, "/tags/" + std::to_string(below(2)), str(16)};
      default: return {false, "/obj/k" + std::to_string(below(4)), container()};
    }
  }

  churn_edit next_twitter() {
    const std::size_t i = static_cast<std::size_t>(below(logs_.size()));
    const std::string at = "/statuses/" + std::to_string(i);
    switch (below(6)) {
      case 0: return {false, at + "/text", str(140)};
      case 1: return {false, at + "/retweet_count", number()};
      case 2: return {false, at + "/user/description", str(100)};
      case 3:
        has_obj_[i] = 1;
        return {false, at + "/fl_obj", container()};
      case 4:
        if (logs_[i] == 0) {
          logs_[i] = 1;
          return {false, at + "/fl_log", "[" + str(24) + "]"};
        }
        return log_step(at + "/fl_log", logs_[i], 20);
      default:
        if (has_obj_[i]) {
          has_obj_[i] = 0;
          return {true, at + "/fl_obj", {}};
        }
        return {false, at + "/user/screen_name", str(15)};
    }
  }

  workload w_;
  std::mt19937_64 rng_;
  std::vector<std::uint32_t> logs_;   // per log: its length (0: not created yet)
  std::vector<std::uint8_t> has_obj_;  // per status: fl_obj exists
};

}  // namespace fl_test
