// bench/replica_bench.cpp: section replica/, the cost of a replicated commit.
//
// Inputs: one store per case in a scratch directory, a nats-server -js on
// 127.0.0.1 started by the section (tests/support/nats_server.hpp; the
// section is skipped with an error row when nats-server is not installed),
// one stream per case. Each commit sets one member to a new 24-byte string
// (a small record: the kind of commit replication is for).
//
// Cases (commit_small/<library>):
//   fl_store       json_store::sync() alone: the local commit, the reference
//   fl_local       fl::replica::primary, durability::local: sync, then the
//                  publish in the background
//   fl_replicated  durability::replicated: sync, then the publish, waiting for
//                  the stream's acknowledgement (one server, R1, loopback)
// Counters: p50_us and p99_us of the commit's wall time, record_bytes (the
// message body per commit, primary::bytes_published()). Faster means a lower p50 and p99. Figures come
// from a machine with 2 vCPUs giving about 1.1 cores, shared with the server:
// the replicated rows include its scheduling.
#if defined(FL_BENCH_HAVE_REPLICA)

#include <fl/replica.hpp>

#include "common.hpp"
#include "nats_server.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace {

using fl::json_store;

const fl_bench::scratch_dir& scratch() {
  static const fl_bench::scratch_dir dir("fl_replica_bench");
  return dir;
}

// The section's server, started on first use.
fl_test::nats_server* server() {
  static std::unique_ptr<fl_test::nats_server> s = [] {
    if (fl_test::nats_server_binary().empty()) return std::unique_ptr<fl_test::nats_server>();
    return std::make_unique<fl_test::nats_server>(scratch().path() / "nats", fl_test::free_port());
  }();
  return s.get();
}

// A new name for each run of a case (Google Benchmark runs a case several
// times): a new store and a new stream each time.
std::string fresh(const char* name) {
  static int runs = 0;
  return std::string(name) + "_" + std::to_string(++runs);
}

// Times each commit; sets the percentile counters.
template <class Commit>
void timed_commits(benchmark::State& st, json_store& s, Commit&& commit) {
  std::vector<double> us;
  std::uint64_t i = 0;
  for (auto _ : st) {
    s.put("/value", "commit " + std::to_string(1'000'000'000'000ull + ++i));
    const auto t0 = std::chrono::steady_clock::now();
    commit();
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(us.begin(), us.end());
  st.counters["p50_us"] = us[us.size() / 2];
  st.counters["p99_us"] = us[us.size() * 99 / 100];
}

void bm_store(benchmark::State& st) {
  json_store s = json_store::create(scratch().path() / fresh("store"));
  timed_commits(st, s, [&] { s.sync(); });
}

void bm_primary(benchmark::State& st, fl::replica::durability mode, const char* name) {
  if (!server()) {
    st.SkipWithError("nats-server not installed");
    return;
  }
  fl::replica::options o;
  o.servers = server()->url();
  o.stream = fresh(name);
  fl::replica::primary p(json_store::create(scratch().path() / o.stream), o, mode);
  timed_commits(st, p.store(), [&] { p.commit(); });
  p.wait_acknowledged();
  st.counters["record_bytes"] =
      static_cast<double>(p.bytes_published()) / static_cast<double>(std::max<std::uint64_t>(1, p.records_published()));
}

const bool registered = [] {
  benchmark::RegisterBenchmark("replica/commit_small/fl_store", bm_store)->UseRealTime();
  benchmark::RegisterBenchmark("replica/commit_small/fl_local", bm_primary, fl::replica::durability::local,
                               "local")->UseRealTime();
  benchmark::RegisterBenchmark("replica/commit_small/fl_replicated", bm_primary,
                               fl::replica::durability::replicated, "replicated")->UseRealTime();
  return true;
}();

}  // namespace

#endif  // FL_BENCH_HAVE_REPLICA
