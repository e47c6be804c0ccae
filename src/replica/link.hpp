// src/replica/link.hpp: the one connection of a primary or a follower to its
// NATS servers and its JetStream stream: connect, create the stream, read
// its last record, publish fenced by the expected last sequence (waiting for
// the acknowledgement or not), and a consumer delivering records from a
// stream sequence. Every libnats call of fl::replica is in link.cpp, and
// every libnats failure becomes a replica_error there.
//
// Threads: one thread at a time, as its primary or follower; libnats calls
// the asynchronous-publish error handler on a thread of its own, which only
// stores the first failure (an atomic).
#pragma once

#include <fl/detail/config.hpp>

#include <fl/replica.hpp>

#include "replica/record.hpp"

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

struct __natsConnection;
struct __jsCtx;
struct __natsSubscription;

namespace fl {
inline namespace FL_ABI_NS {
namespace replica {
namespace detail {

// A record as the stream holds it.
struct delivered {
  std::uint64_t stream_sequence = 0;
  record rec;
};

class link {
 public:
  // Connects to opts.servers (reconnecting forever to any of them).
  explicit link(const options& opts);
  link(const link&) = delete;
  link& operator=(const link&) = delete;
  ~link();

  // Creates the stream when it does not exist.
  void ensure_stream(int replicas);
  // The same for another stream of this connection, `name` over `subjects`
  // (a wildcard such as "fl.snapshot.app.>").
  void ensure_stream(const std::string& name, const std::string& subjects, int replicas);
  // A message as a stream holds it: its subject and body.
  struct stored {
    std::uint64_t stream_sequence = 0;
    std::string subject;
    std::string body;
  };
  // Publishes `body` on `subject` without a fence and waits for the
  // acknowledgement: the stream sequence (fault::unknown when none came).
  std::uint64_t publish_plain(const std::string& subject, std::string_view body);
  // The last message on `subject` of `stream` (nullopt: none), the message
  // at a stream sequence (fault::gap when it is gone).
  std::optional<stored> last_on(const std::string& stream, const std::string& subject);
  stored stored_at(const std::string& stream, std::uint64_t stream_sequence);
  // Removes the messages of `stream` before `stream_sequence`.
  void purge_before(const std::string& stream, std::uint64_t stream_sequence);
  // The stream's last record; nullopt for an empty (or missing) stream.
  std::optional<delivered> last_record();
  // The record at a stream sequence (fault::gap when it is gone).
  delivered record_at(std::uint64_t stream_sequence);
  // Publishes `body` when the stream's last sequence is `expect_last` and
  // waits for the acknowledgement: returns the record's stream sequence.
  // Throws fault::fenced (another publisher moved the stream on) or
  // fault::unknown (no acknowledgement in time).
  std::uint64_t publish(const std::string& body, std::uint64_t expect_last);
  // The same without waiting; a failure is kept for check_async().
  void publish_async(const std::string& body, std::uint64_t expect_last);
  // Waits for every asynchronous publish (up to the timeout).
  void wait_async();
  // Throws the first asynchronous failure, if any, and forgets it.
  void check_async();
  // Starts the consumer at `stream_sequence` (1: the first record held).
  void subscribe(std::uint64_t stream_sequence);
  // The next record within `wait_ms`; nullopt when none came. Throws
  // fault::diverged for a message that is not a record.
  std::optional<delivered> next(std::int64_t wait_ms);
  const std::string& subject() const noexcept { return subject_; }

 private:
  // Throws replica_error: `what` failed with NATS `status` and, when not 0,
  // JetStream error code `js_error`.
  [[noreturn]] void fail(fault f, const std::string& what, int status, int js_error = 0) const;
  options opts_;
  std::string subject_;
  __natsConnection* nc_ = nullptr;
  __jsCtx* js_ = nullptr;
  __natsSubscription* sub_ = nullptr;
  // The first asynchronous publish failure: 0 none, else 1 + fault.
  std::atomic<int> async_fault_{0};
};

}  // namespace detail
}  // namespace replica
}  // namespace FL_ABI_NS
}  // namespace fl
