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
// message body per commit, primary::bytes_published()). Faster means a lower p50 and p99.
//
//   group_commit/<threads>/<local|replicated>: 1, 4 and 16 threads each
//                  calling primary::commit(edit) in a loop (64 commits an
//                  iteration, shared out); commits_per_s (higher is better)
//                  and commits_per_flush (how many callers one sync and one
//                  publish served).
//   follower_lag_<rate>/<local|replicated>: 4 threads commit on a fixed
//                  schedule for 2 s, <rate> commits/s in all (1,000, and 100
//                  for comparison; one thread cannot reach 1,000: a commit's
//                  flush alone takes over 1 ms here); a follower in another
//                  thread polls, applying each record with a sync of its own
//                  file on the same disk. Lag: from a commit returning to the
//                  follower's poll having applied its sequence; lag_p50_us,
//                  lag_p99_us, and commits_per_s as achieved.
//   failover/fl_replicated: a caught-up follower polls while the primary
//                  commits; the primary stops (destroyed: its connection
//                  closes), then the timer runs over promote() and the new
//                  primary's first commit, acknowledged. Detection of the
//                  failure is not included (promotion is a call); p50_ms, max_ms.
// The reference row of the section is commit_small/fl_store, the local commit.
// Figures come from a machine with 2 vCPUs giving about 1.1 cores of parallel
// throughput, shared with the server: the replicated rows include its
// scheduling, and the group-commit rows show how many commits share a flush,
// not CPU scaling.
#if defined(FL_BENCH_HAVE_REPLICA)

#include <fl/replica.hpp>

#include "common.hpp"
#include "nats_server.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
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

// The options of a fresh stream on the section's server; false (and the
// row skipped) when nats-server is not installed.
bool fresh_options(benchmark::State& st, const char* name, fl::replica::options& o) {
  if (!server()) {
    st.SkipWithError("nats-server not installed");
    return false;
  }
  o.servers = server()->url();
  o.stream = fresh(name);
  return true;
}

double percentile(std::vector<double> v, int pct) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() * static_cast<std::size_t>(pct) / 100];
}

void bm_group_commit(benchmark::State& st, fl::replica::durability mode, int threads) {
  fl::replica::options o;
  if (!fresh_options(st, "group", o)) return;
  fl::replica::primary p(json_store::create(scratch().path() / o.stream), o, mode);
  constexpr int per_iteration = 64;
  const int per_thread = per_iteration / threads;
  const std::uint64_t flushes_before = p.records_published();
  std::atomic<std::uint64_t> last{0};
  for (auto _ : st) {
    std::vector<std::thread> writers;
    for (int t = 0; t < threads; ++t) {
      writers.emplace_back([&, t] {
        for (int i = 0; i < per_thread; ++i) {
          const std::uint64_t seq = p.commit([&](json_store& s) {
            s.put("/w" + std::to_string(t), "commit " + std::to_string(1'000'000'000'000ull + i));
          });
          last.store(seq, std::memory_order_relaxed);
        }
      });
    }
    for (auto& w : writers) w.join();
  }
  p.wait_acknowledged();
  benchmark::DoNotOptimize(last.load());
  const double commits = static_cast<double>(st.iterations()) * per_thread * threads;
  st.counters["commits_per_s"] = benchmark::Counter(commits, benchmark::Counter::kIsRate);
  st.counters["commits_per_flush"] =
      commits / static_cast<double>(std::max<std::uint64_t>(1, p.records_published() - flushes_before));
}

void bm_follower_lag(benchmark::State& st, fl::replica::durability mode, int per_second) {
  using clock = std::chrono::steady_clock;
  fl::replica::options o;
  if (!fresh_options(st, "lag", o)) return;
  fl::replica::primary p(json_store::create(scratch().path() / o.stream), o, mode);
  p.store().put("/start", 0);
  p.commit();
  const auto snap = scratch().path() / (o.stream + ".snap");
  p.snapshot(snap);
  fl::replica::follower f(fl::replica::follower::from_snapshot(snap, scratch().path() / (o.stream + ".f")), o);
  constexpr int threads = 4;
  const int per_thread = per_second * 2 / threads;  // for 2 s
  const auto interval = std::chrono::microseconds(threads * 1'000'000 / per_second);
  const std::uint64_t base = p.store().sequence();
  // Sequences reach at most base + all commits; a slot per sequence, written once.
  const std::size_t slots = static_cast<std::size_t>(threads * per_thread) + 2;
  std::vector<std::atomic<std::int64_t>> applied_at(slots);
  struct returned {
    std::uint64_t sequence;
    std::int64_t at;
  };
  std::vector<std::vector<returned>> got(threads);
  std::atomic<bool> writing{true};
  std::atomic<std::uint64_t> target{0};  // the last sequence, once the writers are done
  const auto ns = [](clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  };
  for (auto _ : st) {
    std::thread reader([&] {
      std::uint64_t seen = base;
      while (writing.load() || f.store().sequence() < target.load()) {
        f.poll(std::chrono::milliseconds(2));
        const std::int64_t now = ns(clock::now());
        for (const std::uint64_t n = f.store().sequence(); seen < n;) applied_at[++seen - base].store(now);
      }
    });
    const auto start = clock::now();
    std::vector<std::thread> writers;
    for (int t = 0; t < threads; ++t) {
      writers.emplace_back([&, t] {
        auto due = start + t * interval / threads;
        for (int i = 0; i < per_thread; ++i, due += interval) {
          std::this_thread::sleep_until(due);
          const std::uint64_t seq = p.commit([&](json_store& s) {
            s.put("/w" + std::to_string(t), "commit " + std::to_string(1'000'000'000'000ull + i));
          });
          got[static_cast<std::size_t>(t)].push_back({seq, ns(clock::now())});
        }
      });
    }
    for (auto& w : writers) w.join();
    st.counters["commits_per_s"] = threads * per_thread / std::chrono::duration<double>(clock::now() - start).count();
    for (const auto& mine : got) target = std::max(target.load(), mine.back().sequence);
    writing = false;
    reader.join();
  }
  std::vector<double> lag_us;
  for (const auto& mine : got)
    for (const returned& r : mine)
      lag_us.push_back(std::max<double>(0, static_cast<double>(applied_at[r.sequence - base].load() - r.at) / 1e3));
  benchmark::DoNotOptimize(lag_us.data());
  st.counters["lag_p50_us"] = percentile(lag_us, 50);
  st.counters["lag_p99_us"] = percentile(lag_us, 99);
}

void bm_failover(benchmark::State& st) {
  std::vector<double> ms;
  for (auto _ : st) {
    fl::replica::options o;
    if (!fresh_options(st, "failover", o)) return;
    std::optional<fl::replica::primary> p;
    p.emplace(json_store::create(scratch().path() / o.stream), o, fl::replica::durability::replicated);
    p->store().put("/value", "before");
    p->commit();
    const auto snap = scratch().path() / (o.stream + ".snap");
    p->snapshot(snap);
    fl::replica::follower f(fl::replica::follower::from_snapshot(snap, scratch().path() / (o.stream + ".f")), o);
    for (int i = 0; i < 20; ++i) {
      p->store().put("/value", "commit " + std::to_string(1'000'000'000'000ull + i));
      p->commit();
    }
    f.poll(std::chrono::milliseconds(5));
    p.reset();
    const auto t0 = std::chrono::steady_clock::now();
    fl::replica::primary promoted = std::move(f).promote(fl::replica::durability::replicated);
    promoted.store().put("/value", "after the failover");
    benchmark::DoNotOptimize(promoted.commit());
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    st.SetIterationTime(s);
    ms.push_back(s * 1e3);
  }
  st.counters["p50_ms"] = percentile(ms, 50);
  if (!ms.empty()) st.counters["max_ms"] = *std::max_element(ms.begin(), ms.end());
}

const bool registered = [] {
  benchmark::RegisterBenchmark("replica/commit_small/fl_store", bm_store)->UseRealTime();
  benchmark::RegisterBenchmark("replica/commit_small/fl_local", bm_primary, fl::replica::durability::local,
                               "local")->UseRealTime();
  benchmark::RegisterBenchmark("replica/commit_small/fl_replicated", bm_primary,
                               fl::replica::durability::replicated, "replicated")->UseRealTime();
  for (const int threads : {1, 4, 16}) {
    for (const auto mode : {fl::replica::durability::local, fl::replica::durability::replicated}) {
      const std::string name = "replica/group_commit/" + std::to_string(threads) + "/" +
                               (mode == fl::replica::durability::local ? "local" : "replicated");
      benchmark::RegisterBenchmark(name.c_str(), bm_group_commit, mode, threads)->UseRealTime();
    }
  }
  for (const int rate : {100, 1000}) {
    for (const auto mode : {fl::replica::durability::local, fl::replica::durability::replicated}) {
      const std::string name = "replica/follower_lag_" + std::to_string(rate) + "/" +
                               (mode == fl::replica::durability::local ? "local" : "replicated");
      benchmark::RegisterBenchmark(name.c_str(), bm_follower_lag, mode, rate)->UseRealTime()->Iterations(1);
    }
  }
  benchmark::RegisterBenchmark("replica/failover/fl_replicated", bm_failover)->UseManualTime()->Iterations(10);
  return true;
}();

}  // namespace

#endif  // FL_BENCH_HAVE_REPLICA
