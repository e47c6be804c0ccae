// tests/support/replica_support.hpp: what the fl::replica tests share
// (replica_test, replica_threads_test): the edits they commit, the check
// that a follower holds its primary's document byte for byte, and the retry
// a program makes while a JetStream cluster elects its leaders. Header-only:
// the support library does not link fl::replica.
#pragma once

#include <fl/replica.hpp>

#include "nats_server.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>

namespace fl_test {

// A test with a nats-server of its own on a free loopback port, skipped
// (saying so) where nats-server is not installed, and the options that
// reach it: stream `stream`, files in a temporary directory.
class nats_fixture : public ::testing::Test {
 protected:
  nats_fixture(const char* stream, const char* dir_prefix) : dir_(dir_prefix) {
    opts_.stream = stream;
  }
  void SetUp() override {
    if (nats_server_binary().empty()) GTEST_SKIP() << "skipped: nats-server not installed";
    server_ = std::make_unique<nats_server>(dir_ / "nats", free_port());
    opts_.servers = server_->url();
  }

  temp_dir dir_;
  std::unique_ptr<nats_server> server_;
  fl::replica::options opts_;
};

// Every kind of edit the feed records: put, insert, erase, a patch with move
// and copy, a merge patch.
inline void replica_edit(fl::json_store& s, int i) {
  s.put("/n", i);
  s.put("/items/k" + std::to_string(i % 7),
        fl::json_text::object({{"i", i}, {"s", "text " + std::to_string(i)}}),
        fl::json_store::parents::create);
  if (i % 3 == 0) s.erase("/items/k" + std::to_string((i + 1) % 7));
  if (i % 5 == 0) {
    s.apply_patch(
        R"([{"op":"copy","from":"/n","path":"/copied"},{"op":"move","from":"/copied","path":"/moved"}])");
  }
  if (i % 4 == 0) s.merge_patch(R"({"merged":{"a":)" + std::to_string(i) + R"(,"b":null}})");
}

// The follower's store holds the primary's document, byte for byte, at the
// same sequence of the same history, and passes verify(); so does a reader
// of the follower's file when `file` is given.
inline void expect_same_store(const fl::json_store& primary, const fl::json_store& follower,
                              const std::filesystem::path& file = {}) {
  EXPECT_EQ(follower.sequence(), primary.sequence());
  EXPECT_EQ(follower.history(), primary.history());
  EXPECT_EQ(follower.dump(), primary.dump());
  EXPECT_GT(follower.verify(), 0u);
  if (!file.empty()) {
    const auto reader = fl::json_store::open(file, fl::open_mode::read_only);
    EXPECT_EQ(reader.dump(), primary.dump());
  }
}

// make(attempt) until it returns, retrying (`pause` apart, for up to
// `budget`) while it throws replica_error with fault::connection: a cluster's
// servers elect their JetStream meta leader a few seconds after they start,
// and a stream its new leader after one of them dies, as a user's program
// would wait out; on a loaded machine that takes tens of seconds, so the
// budget is time, not a count of attempts. Other faults propagate. nullopt
// when every attempt failed, the last failure's message in `last_error`.
template <class Make>
auto retry_while_unavailable(std::chrono::seconds budget, Make&& make,
                             std::string* last_error = nullptr,
                             std::chrono::milliseconds pause = std::chrono::milliseconds(500))
    -> std::optional<std::invoke_result_t<Make&, int>> {
  std::optional<std::invoke_result_t<Make&, int>> made;
  const auto until = std::chrono::steady_clock::now() + budget;
  for (int attempt = 0; !made; ++attempt) {
    try {
      made.emplace(make(attempt));
    } catch (const fl::replica::replica_error& e) {
      if (e.kind() != fl::replica::fault::connection) throw;
      if (last_error != nullptr) *last_error = e.what();
      if (std::chrono::steady_clock::now() >= until) break;
      std::this_thread::sleep_for(pause);
    }
  }
  return made;
}

// The names the replica tests speak of, brought in by one
// `using namespace fl_test::replica_names;`.
namespace replica_names {
using namespace std::chrono_literals;
using fl::json_store;
using fl::replica::durability;
using fl::replica::fault;
using fl::replica::follower;
using fl::replica::primary;
using fl::replica::replica_error;
}  // namespace replica_names

}  // namespace fl_test
