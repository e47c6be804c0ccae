// bench/alloc_bench.cpp: section alloc/, strings under threads: fl::string on
// its pool against std::string on the process's malloc, at 1, 2 and 4 threads.
//
// Names are alloc/<case>/<threads>/<library>. In a normal run the libraries are
// `fl` and `std` (glibc malloc). `make bench` runs this section again in one
// more process per allocator with LD_PRELOAD=libmimalloc / libjemalloc /
// libtcmalloc_minimal and FL_BENCH_ALLOC_PEER=std_mimalloc (std_jemalloc,
// std_tcmalloc): such a process registers only the std::string rows, under
// that name, and checks that the allocator really is loaded (a symbol only it
// exports), so a failed preload is an error row, never a mislabelled glibc
// figure. report.py merges the files into one table.
//
// Cases (the work of one benchmark iteration, per thread):
//   larson             a window of 1,000 strings of 8 to 4,096 bytes; 1,000
//                      replacements of a random slot by a new string of random
//                      length; every third replaced string goes to the next
//                      thread's inbox and is destroyed there
//   producer_consumer  thread 0 builds 4,096 strings of 16 to 512 bytes and
//                      hands them in batches of 64 to threads 1..n-1, which
//                      destroy them (with one thread it destroys its own
//                      batches): memory flows one way, the blowup case
//   builder_churn      1,000 strings of 32 to 256 bytes, each built by appends
//                      of 8 to 24 bytes and destroyed at once
//   token_stream       a 1 MB text (split in n slices, one per thread) cut at
//                      spaces into tokens of 1 to 40 bytes; each token is kept
//                      in a ring of 4,096 and destroyed when the ring wraps
//   big_then_idle      (4 threads only) each thread builds a 100 MB string
//                      by appends of 64 KiB and destroys it; after the last
//                      round the threads idle for idle_seconds, and the
//                      row's idle_rss_mb is the resident set then: what a
//                      server whose workers each once handled one big request
//                      keeps afterwards. Its time is the build, not a target.
//   burst_then_idle    (4 threads only; rows burst_then_idle/<pattern>/<size>)
//                      each thread makes strings of <size> bytes (64, 1k,
//                      20k, 200k, 1m) until it holds about 100 MB, keeps them
//                      all, frees them all and stops. Pattern `ctor`: each
//                      string constructed at its size; `append`: built by
//                      appends of 100-byte pieces (16-byte ones for 64 B).
//                      Without `_exit` the threads stay alive and idle (they
//                      make no call); with it they exit. After idle_burst_seconds
//                      idle_rss_mb is the resident set; then the main thread
//                      makes the library's one trim call for the whole process
//                      (fl::pool_trim_all(); glibc's malloc_trim(0) for the
//                      std rows) and trimmed_rss_mb is the resident set after it.
// Items are strings made (all threads together).
//
// Timing: the threads form a team that lives for the whole benchmark (thread 0
// is the benchmark's own thread); an iteration is one round of every thread,
// started and ended by a barrier, so each thread's cache and window persist
// from round to round as in a long-running program. The time is the process's
// CPU time (all threads), which on a shared machine measures the work done
// rather than the time spent waiting for a core; wall time is in real_time.
// The reference machine gives about 1.1 cores of parallel throughput, so 2 and 4
// threads show contention costs, not speed-up.
//
// make bench runs every row in a process of its own (bench/alloc_runs.sh) and
// leaves the section out of the main run (FL_BENCH_SKIP_ALLOC=1).
//
// Memory: peak_rss_mb is the process's peak resident set during the timed
// rounds (VmHWM, reset through /proc/self/clear_refs before the first round;
// where that reset is unavailable, getrusage's ru_maxrss, which never resets).
#include "common.hpp"

#include <fl/pool.hpp>
#include <fl/string.hpp>

#include <malloc.h>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cstdint>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <condition_variable>
#include <latch>
#include <string>
#include <string_view>
#include <sys/resource.h>
#include <thread>
#include <type_traits>
#include <unistd.h>
#include <utility>
#include <vector>

namespace {

// ---- memory ----

// Resets the kernel's peak-RSS mark of this process; false where the kernel
// does not offer it.
bool reset_peak_rss() {
  std::FILE* f = std::fopen("/proc/self/clear_refs", "w");
  if (f == nullptr) return false;
  const bool ok = std::fputs("5", f) >= 0;
  return std::fclose(f) == 0 && ok;
}

// Peak resident set in MiB: VmHWM from /proc/self/status, else ru_maxrss.
double peak_rss_mb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::strtod(line.c_str() + 6, nullptr) / 1024.0;
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;
}

// Resident set now in MiB: the second field of /proc/self/statm (pages).
double current_rss_mb() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long size = 0, resident = 0;
  const int got = std::fscanf(f, "%lu %lu", &size, &resident);
  std::fclose(f);
  if (got != 2) return 0;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

// ---- the allocator of this process ----

// FL_BENCH_ALLOC_PEER names the library of the std rows ("" = plain run).
std::string alloc_peer() {
  const char* e = std::getenv("FL_BENCH_ALLOC_PEER");
  return e != nullptr ? std::string(e) : std::string();
}

// A symbol that only the named allocator exports, to prove it was preloaded.
const char* proof_symbol(std::string_view peer) {
  if (peer == "std_mimalloc") return "mi_version";
  if (peer == "std_jemalloc") return "mallctl";
  if (peer == "std_tcmalloc") return "tc_version";
  return nullptr;
}

// ---- a team of threads that run rounds ----

// Runs `round(t)` on threads t = 0..n-1 each time run() is called; thread 0 is
// the caller. The other threads live until the team is destroyed.
class team {
 public:
  team(std::size_t n, std::function<void(std::size_t)> round)
      : n_(n),
        round_(std::move(round)),
        start_(static_cast<std::ptrdiff_t>(n)),
        done_(static_cast<std::ptrdiff_t>(n)) {
    for (std::size_t t = 1; t < n_; ++t) threads_.emplace_back([this, t] { loop(t); });
  }
  ~team() {
    stop_ = true;
    start_.arrive_and_wait();
    for (auto& th : threads_) th.join();
  }
  team(const team&) = delete;
  team& operator=(const team&) = delete;

  void run() {
    start_.arrive_and_wait();
    round_(0);
    done_.arrive_and_wait();
  }

 private:
  void loop(std::size_t t) {
    for (;;) {
      start_.arrive_and_wait();
      if (stop_) return;  // written before the releasing barrier phase
      round_(t);
      done_.arrive_and_wait();
    }
  }

  std::size_t n_;
  std::function<void(std::size_t)> round_;
  std::barrier<> start_;
  std::barrier<> done_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

// A mutex-protected list of strings handed to one thread. The two vectors
// keep their capacity, so the hand-off itself allocates nothing after warm-up.
template <class Str>
class inbox {
 public:
  void put(Str&& s) {
    std::lock_guard<std::mutex> lock(m_);
    in_.push_back(std::move(s));
  }
  void put_all(std::vector<Str>& batch) {
    {
      std::lock_guard<std::mutex> lock(m_);
      for (auto& s : batch) in_.push_back(std::move(s));
    }
    batch.clear();
  }
  // Destroys everything received so far on the calling thread; returns how
  // many strings that was.
  std::size_t drain() {
    {
      std::lock_guard<std::mutex> lock(m_);
      out_.swap(in_);
    }
    const std::size_t n = out_.size();
    out_.clear();
    return n;
  }

 private:
  std::mutex m_;
  std::vector<Str> in_;
  std::vector<Str> out_;
};

// Random numbers drawn before the timing: 4,096 values uniform in [lo, hi],
// handed out in a cycle, so the timed loops spend no time in a generator (a
// 64-bit modulo per draw would cost as much as the allocation measured). Each
// on a cache line of its own: the cursor changes on every draw, and the
// threads' draws sit side by side in one vector, so shared lines would make
// the threads contend for them (false sharing) in every library's rows.
class alignas(64) draws {
 public:
  draws(std::uint64_t seed, std::size_t lo, std::size_t hi) : v_(size) {
    fl_bench::rng r(seed);
    for (auto& x : v_) x = static_cast<std::uint32_t>(lo + r.below(hi - lo + 1));
  }
  std::size_t next() noexcept { return v_[i_++ & (size - 1)]; }

 private:
  static constexpr std::size_t size = 4096;
  std::vector<std::uint32_t> v_;
  std::size_t i_ = 0;
};

// Bytes the strings are cut from: random letters, 8 KiB + 4 KiB so any
// (offset < 8 KiB, length <= 4 KiB) slice is in range.
const std::string& source_text() {
  static const std::string s = fl_bench::random_text(12 * 1024, fl_bench::salt("alloc/source"));
  return s;
}

// The common frame: builds a team of n threads around `round`, times rounds,
// reports items and peak RSS. `setup`/`teardown` run one round each on every
// thread, untimed (so each thread makes and frees its own state).
template <class State>
void run_rounds(benchmark::State& st, std::size_t n, std::size_t items_per_round, State& state) {
  const std::string peer = alloc_peer();
  if (const char* sym = proof_symbol(peer); sym != nullptr && dlsym(RTLD_DEFAULT, sym) == nullptr) {
    st.SkipWithError(
        (peer + ": the allocator is not loaded (run with LD_PRELOAD, see Makefile)").c_str());
    return;
  }
  team tm(n, [&state](std::size_t t) { state.round(t); });
  state.phase = State::setup;
  tm.run();
  state.phase = State::timed;
  const bool reset = reset_peak_rss();
  for (auto _ : st) tm.run();
  const double peak = peak_rss_mb();
  state.phase = State::teardown;
  tm.run();
  fl_bench::set_items(st, items_per_round);
  st.counters["peak_rss_mb"] = peak;
  if (!reset) st.SetLabel("peak_rss_mb: ru_maxrss (no reset)");
}

enum class phase_t { setup, timed, teardown };

// ---- larson ----

template <class Str>
struct larson_state {
  static constexpr phase_t setup = phase_t::setup, timed = phase_t::timed,
                           teardown = phase_t::teardown;
  static constexpr std::size_t window = 1000, replacements = 1000;
  static std::size_t items(std::size_t n) { return n * replacements; }

  // Per thread: lengths, source offsets and window slots.
  struct thread_draws {
    explicit thread_draws(std::uint64_t s)
        : len(s, 8, 4096), off(s + 1, 0, 8 * 1024 - 1), slot(s + 2, 0, window - 1) {}
    draws len, off, slot;
  };

  explicit larson_state(std::size_t n) : threads(n), boxes(n), windows(n) {
    for (std::size_t t = 0; t < n; ++t) rngs.emplace_back(fl_bench::salt("alloc/larson") + 3 * t);
  }

  Str make(thread_draws& r) {
    const std::size_t len = r.len.next();
    return Str(source_text().data() + r.off.next(), len);
  }

  void round(std::size_t t) {
    thread_draws& r = rngs[t];
    std::vector<Str>& w = windows[t];
    if (phase == setup) {
      w.reserve(window);
      for (std::size_t i = 0; i < window; ++i) w.push_back(make(r));
      return;
    }
    if (phase == teardown) {
      w.clear();
      w.shrink_to_fit();
      boxes[t].drain();
      return;
    }
    inbox<Str>& next = boxes[(t + 1) % threads];
    for (std::size_t i = 0; i < replacements; ++i) {
      Str fresh = make(r);
      Str& slot = w[r.slot.next()];
      if (i % 3 == 0) {
        next.put(std::move(slot));  // destroyed by the next thread
      }
      slot = std::move(fresh);
      if (i % 64 == 63) boxes[t].drain();
    }
    boxes[t].drain();
  }

  std::size_t threads;
  std::vector<inbox<Str>> boxes;
  std::vector<std::vector<Str>> windows;
  std::vector<thread_draws> rngs;
  phase_t phase = phase_t::setup;
};

// ---- producer_consumer ----

// A queue of batches from the producer to one consumer; an empty batch ends a
// round.
template <class Str>
class batch_queue {
 public:
  void push(std::vector<Str>&& b) {
    {
      std::lock_guard<std::mutex> lock(m_);
      q_.push_back(std::move(b));
    }
    cv_.notify_one();
  }
  std::vector<Str> pop() {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [this] { return !q_.empty(); });
    std::vector<Str> b = std::move(q_.front());
    q_.erase(q_.begin());
    return b;
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::vector<std::vector<Str>> q_;
};

template <class Str>
struct producer_consumer_state {
  static constexpr phase_t setup = phase_t::setup, timed = phase_t::timed,
                           teardown = phase_t::teardown;
  static constexpr std::size_t per_round = 4096, batch = 64;
  static std::size_t items(std::size_t) { return per_round; }

  explicit producer_consumer_state(std::size_t n)
      : threads(n),
        queues(n),
        len(fl_bench::salt("alloc/pc"), 16, 512),
        off(fl_bench::salt("alloc/pc") + 1, 0, 8 * 1024 - 1) {}

  void round(std::size_t t) {
    if (phase != timed) return;
    if (t != 0) {
      // Consumer: destroy batches until the round's empty batch.
      for (;;) {
        std::vector<Str> b = queues[t].pop();
        if (b.empty()) return;
      }
    }
    const std::string& src = source_text();
    std::size_t next = 1;
    for (std::size_t made = 0; made < per_round; made += batch) {
      std::vector<Str> b;
      b.reserve(batch);
      for (std::size_t i = 0; i < batch; ++i) {
        const std::size_t n = len.next();
        b.emplace_back(src.data() + off.next(), n);
      }
      if (threads == 1) continue;  // b is destroyed here, by its producer
      queues[next].push(std::move(b));
      next = next + 1 == threads ? 1 : next + 1;
    }
    for (std::size_t c = 1; c < threads; ++c) queues[c].push({});
  }

  std::size_t threads;
  std::vector<batch_queue<Str>> queues;
  draws len, off;
  phase_t phase = phase_t::setup;
};

// ---- builder_churn ----

template <class Str>
struct builder_churn_state {
  static constexpr phase_t setup = phase_t::setup, timed = phase_t::timed,
                           teardown = phase_t::teardown;
  static constexpr std::size_t per_round = 1000;
  static std::size_t items(std::size_t n) { return n * per_round; }

  struct thread_draws {
    explicit thread_draws(std::uint64_t s)
        : target(s, 32, 256), piece(s + 1, 8, 24), off(s + 2, 0, 8 * 1024 - 1) {}
    draws target, piece, off;
  };

  explicit builder_churn_state(std::size_t n) {
    for (std::size_t t = 0; t < n; ++t) rngs.emplace_back(fl_bench::salt("alloc/builder") + 3 * t);
  }

  void round(std::size_t t) {
    if (phase != timed) return;
    thread_draws& r = rngs[t];
    const char* src = source_text().data();
    for (std::size_t i = 0; i < per_round; ++i) {
      const std::size_t target = r.target.next();
      Str s;
      while (s.size() < target) {
        const std::size_t piece = r.piece.next();
        s.append(src + r.off.next(), piece);
      }
      benchmark::DoNotOptimize(s.data());
    }
  }

  std::vector<thread_draws> rngs;
  phase_t phase = phase_t::setup;
};

// ---- token_stream ----

// The 1 MB text: words of 1 to 40 random letters separated by single spaces.
const std::string& token_text() {
  static const std::string s = [] {
    constexpr std::size_t size = 1 << 20;
    fl_bench::rng r(fl_bench::salt("alloc/tokens"));
    std::string out;
    out.reserve(size + 64);
    while (out.size() < size) {
      const std::size_t len = 1 + r.below(40);
      for (std::size_t i = 0; i < len; ++i)
        out.push_back(fl_bench::alnum[r.below(fl_bench::alnum.size())]);
      out.push_back(' ');
    }
    out.resize(size);
    return out;
  }();
  return s;
}

template <class Str>
struct token_stream_state {
  static constexpr phase_t setup = phase_t::setup, timed = phase_t::timed,
                           teardown = phase_t::teardown;
  static constexpr std::size_t ring = 4096;
  static std::size_t items(std::size_t);  // the tokens of the text (all threads)

  explicit token_stream_state(std::size_t n) : threads(n), rings(n) {}

  void round(std::size_t t) {
    std::vector<Str>& k = rings[t];
    if (phase == setup) {
      k.resize(ring);
      return;
    }
    if (phase == teardown) {
      k.clear();
      k.shrink_to_fit();
      return;
    }
    const std::string& text = token_text();
    // Thread t's slice starts and ends at the first space at or after its
    // nominal bounds, so every token is cut by exactly one thread.
    auto boundary = [&text](std::size_t pos) {
      if (pos == 0) return std::size_t{0};
      const std::size_t s = text.find(' ', pos);
      return s == std::string::npos ? text.size() : s + 1;
    };
    std::size_t pos = boundary(text.size() * t / threads);
    const std::size_t end = boundary(text.size() * (t + 1) / threads);
    std::size_t slot = 0;
    while (pos < end) {
      std::size_t sp = text.find(' ', pos);
      if (sp == std::string::npos || sp > end) sp = end;
      if (sp > pos) {
        k[slot] = Str(text.data() + pos, sp - pos);  // the token it replaces is dropped
        slot = slot + 1 == ring ? 0 : slot + 1;
      }
      pos = sp + 1;
    }
  }

  std::size_t threads;
  std::vector<std::vector<Str>> rings;
  phase_t phase = phase_t::setup;
};

// Tokens in the 1 MB text (for items/s).
std::size_t token_count() {
  static const std::size_t n = [] {
    const std::string& text = token_text();
    std::size_t c = 0;
    for (std::size_t i = 0; i < text.size(); ++i)
      if (text[i] != ' ' && (i + 1 == text.size() || text[i + 1] == ' ')) ++c;
    return c;
  }();
  return n;
}

template <class Str>
std::size_t token_stream_state<Str>::items(std::size_t) {
  return token_count();
}

// ---- big_then_idle ----

// How long the threads idle before the resident set is read: four times fl's
// keep time for a large block (fl::detail::pool_keep_ms, 250 ms), the same
// for every library. std::string's blocks of this size go back to the system
// (munmap) at their free, so its figure does not depend on the wait.
constexpr double idle_seconds = 1.0;
constexpr std::size_t big_bytes = std::size_t{100} * 1000 * 1000;

template <class Str>
void bm_big_then_idle(benchmark::State& st, std::size_t n) {
  const std::string peer = alloc_peer();
  if (const char* sym = proof_symbol(peer); sym != nullptr && dlsym(RTLD_DEFAULT, sym) == nullptr) {
    st.SkipWithError(
        (peer + ": the allocator is not loaded (run with LD_PRELOAD, see Makefile)").c_str());
    return;
  }
  // 64 KiB of text the compiler cannot fold, appended until 100 MB.
  const std::string piece = fl_bench::random_text(64 * 1024, fl_bench::salt("alloc/big_then_idle"));
  team tm(n, [&piece](std::size_t) {
    Str s;
    while (s.size() < big_bytes) s.append(piece.data(), piece.size());
    benchmark::DoNotOptimize(s.data());
    benchmark::ClobberMemory();
  });
  for (auto _ : st) tm.run();
  std::this_thread::sleep_for(std::chrono::duration<double>(idle_seconds));
  st.counters["idle_rss_mb"] = current_rss_mb();
  fl_bench::set_items(st, n);
}

// ---- burst_then_idle ----

// The idle time of the brief's measurement (issue 40): 0.6 s after the last
// free, the same for every library.
constexpr double idle_burst_seconds = 0.6;
constexpr std::size_t burst_bytes_per_thread = std::size_t{100} * 1000 * 1000;
constexpr std::size_t burst_threads = 4;

// The one call that hands a whole process's free memory back: fl's, or glibc
// malloc's for the std rows (under a preloaded allocator it finds nothing of
// glibc's to trim, which is what such a program could call too).
template <class Str>
void trim_everything() {
  if constexpr (std::is_same_v<Str, fl::string>) {
    fl::pool_trim_all();
  } else {
    malloc_trim(0);
  }
}

template <class Str>
void bm_burst_then_idle(benchmark::State& st, std::size_t size, bool append, bool exit) {
  const std::string peer = alloc_peer();
  if (const char* sym = proof_symbol(peer); sym != nullptr && dlsym(RTLD_DEFAULT, sym) == nullptr) {
    st.SkipWithError(
        (peer + ": the allocator is not loaded (run with LD_PRELOAD, see Makefile)").c_str());
    return;
  }
  const std::string text = fl_bench::random_text(size, fl_bench::salt("alloc/burst_then_idle"));
  const std::size_t piece = size < 100 ? 16 : 100;
  const std::size_t count = burst_bytes_per_thread / size;
  for (auto _ : st) {
    std::latch done(static_cast<std::ptrdiff_t>(burst_threads));
    std::latch release(1);
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < burst_threads; ++t) {
      threads.emplace_back([&] {
        {
          std::vector<Str> kept;
          kept.reserve(count);
          for (std::size_t i = 0; i < count; ++i) {
            if (append) {
              Str s;
              for (std::size_t at = 0; at < size; at += piece)
                s.append(text.data() + at, std::min(piece, size - at));
              kept.push_back(std::move(s));
            } else {
              kept.emplace_back(text.data(), size);
            }
          }
          benchmark::DoNotOptimize(kept.data());
          benchmark::ClobberMemory();
        }  // every string freed, then the vector
        done.count_down();
        if (!exit) release.wait();
      });
    }
    done.wait();
    if (exit)
      for (auto& th : threads) th.join();
    std::this_thread::sleep_for(std::chrono::duration<double>(idle_burst_seconds));
    st.counters["idle_rss_mb"] = current_rss_mb();
    trim_everything<Str>();
    st.counters["trimmed_rss_mb"] = current_rss_mb();
    release.count_down();
    for (auto& th : threads)
      if (th.joinable()) th.join();
  }
  fl_bench::set_items(st, burst_threads * count);
}

// ---- one benchmark: a case's state, driven by run_rounds ----

// A case's state holds its per-thread data and round(t); State::items(n) is
// the strings n threads make per round.
template <class State>
void bm_rounds(benchmark::State& st, std::size_t n) {
  State state(n);
  run_rounds(st, n, State::items(n), state);
}

// ---- registration ----

void reg_case(const std::string& name, std::size_t n, void (*fn)(benchmark::State&, std::size_t)) {
  fl_bench::reg(name, fn, n)->MeasureProcessCPUTime()->UseRealTime()->Unit(benchmark::kMicrosecond);
}

const bool registered = [] {
  // `make bench` runs this section in processes of its own (bench/alloc_runs.sh)
  // and leaves it out of the main run, whose heap other sections have used.
  if (const char* e = std::getenv("FL_BENCH_SKIP_ALLOC"); e != nullptr && *e == '1') return false;
  const std::string peer = alloc_peer();
  // The allocator under the std rows, with its version (set by alloc_runs.sh).
  if (const char* v = std::getenv("FL_BENCH_ALLOC_VERSION"); v != nullptr && *v != '\0')
    benchmark::AddCustomContext("alloc_allocator",
                                (peer.empty() ? std::string("std") : peer) + ": " + v);
  struct one_case {
    const char* name;
    void (*fl)(benchmark::State&, std::size_t);
    void (*std)(benchmark::State&, std::size_t);
  };
  const one_case cases[] = {
      {"larson", bm_rounds<larson_state<fl::string>>, bm_rounds<larson_state<std::string>>},
      {"producer_consumer", bm_rounds<producer_consumer_state<fl::string>>,
       bm_rounds<producer_consumer_state<std::string>>},
      {"builder_churn", bm_rounds<builder_churn_state<fl::string>>,
       bm_rounds<builder_churn_state<std::string>>},
      {"token_stream", bm_rounds<token_stream_state<fl::string>>,
       bm_rounds<token_stream_state<std::string>>},
  };
  {
    const std::string base = "alloc/big_then_idle/4/";
    const auto reg_big = [](const std::string& name, void (*fn)(benchmark::State&, std::size_t)) {
      // Three rounds of 4 x 100 MB are enough for the time, which is no
      // target; the counter is read once, after the last.
      fl_bench::reg(name, fn, std::size_t{4})
          ->MeasureProcessCPUTime()
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond)
          ->Iterations(3);
    };
    if (peer.empty()) {
      reg_big(base + "fl", bm_big_then_idle<fl::string>);
      reg_big(base + "std", bm_big_then_idle<std::string>);
    } else {
      reg_big(base + peer, bm_big_then_idle<std::string>);
    }
  }
  {
    // One round: the figures are the resident set after it; its time is the
    // burst, not a target.
    const std::pair<const char*, std::size_t> sizes[] = {
        {"64", 64}, {"1k", 1000}, {"20k", 20 * 1000}, {"200k", 200 * 1000}, {"1m", 1000 * 1000}};
    for (const char* pattern : {"ctor", "append", "ctor_exit", "append_exit"}) {
      const std::string_view pv(pattern);
      const bool append = pv.starts_with("append");
      const bool exit = pv.ends_with("_exit");
      for (const auto& [size_name, size] : sizes) {
        const std::string base = std::string("alloc/burst_then_idle/") + pattern + "/" + size_name + "/";
        const auto reg_burst = [&](const std::string& name, auto fn) {
          fl_bench::reg(name, fn, size, append, exit)
              ->MeasureProcessCPUTime()
              ->UseRealTime()
              ->Unit(benchmark::kMillisecond)
              ->Iterations(1);
        };
        if (peer.empty()) {
          reg_burst(base + "fl", bm_burst_then_idle<fl::string>);
          reg_burst(base + "std", bm_burst_then_idle<std::string>);
        } else {
          reg_burst(base + peer, bm_burst_then_idle<std::string>);
        }
      }
    }
  }
  for (const one_case& c : cases) {
    for (std::size_t n : {1, 2, 4}) {
      const std::string base = std::string("alloc/") + c.name + "/" + std::to_string(n) + "/";
      if (peer.empty()) {
        reg_case(base + "fl", n, c.fl);
        reg_case(base + "std", n, c.std);
      } else {
        reg_case(base + peer, n, c.std);
      }
    }
  }
  return true;
}();

}  // namespace
