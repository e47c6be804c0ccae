// bench/json_scale_bench.cpp: section json/, cases scale/<op>/<n> and
// scale/<op>_durable/<n>: one edit (or lookup) in a container of n children,
// for fl::json_store and the stores a user would otherwise pick, at sizes
// from a thousand to ten million (issue 36).
//
// The document, generated per size (no randomness in it):
//   {"obj":{"m00000000":0,"m00000002":1,...},"arr":[0,1,...]}
// an object of n members (member i's key "m" + 2i in 8 decimal digits, value
// i) and an array of n numbers.
//
// Ops (one call each, the call a user writes):
//   add_member    a member that is not there, keyed right after a random
//                 existing key and as long as every key ("m00009423" after
//                 "m00009422"), so every peer inserts at a random place in
//                 its key order (fl's: length, then hash), not at one end
//   append        a number at the array's end
//   insert_front  a number before the array's first element
//   set           a random existing member gets a new number
//   erase         a random existing member is removed
//   move          a random existing member renamed to the key add_member
//                 uses (json_store::move in fl, RFC 6902's "move", which
//                 puts it at the end of its object, as apply_patch does; an
//                 UPDATE of the key in SQLite's rows; json_remove and
//                 json_set of its value in sqlite_json; a delete and an
//                 insert in nlohmann and LMDB); undone by the move back
//   find          a random existing member is looked up and its number read
//                 (edit form only: a lookup commits nothing)
// Forms:
//   scale/<op>/<n>/<lib>          the edit alone: the change is made in the
//                                 library's working state (fl: set() without
//                                 sync(); SQLite and LMDB: the statement or
//                                 put inside a transaction opened before it);
//                                 the commit is not timed
//   scale/<op>_durable/<n>/<lib>  the edit and its durable commit: after it
//                                 returns, a power cut keeps the edit
//   scale/<op>_batched/<n>/<lib>  a batch of 500 edits and its commit (durable
//                                 as above), as a program that saves a batch
//                                 of changes at once pays: one iteration is
//                                 the batch (time per batch; counters
//                                 per_edit, its 500th, and cpu_us_per_edit,
//                                 the CPU time), the edits and the commit
//                                 timed, the undos between them not (the
//                                 commit covers them too: 500 edits and
//                                 500 undos, over a ring of 500 members)
// The size stays n: after each timed edit, untimed, the edit is undone (the
// added member or element erased, the erased member put back), so every
// iteration edits the same-sized container; set changes a value and needs no
// undo; find changes nothing. Each iteration times its call with the clock
// (UseManualTime, rows named .../manual_time; find rows .../real_time).
// In the edit form, edits and undos are committed (untimed) every 1,024 edits
// or 5 ms of timed work, whichever comes first, so most timed edits are not
// the first after a commit; an edit that takes 5 ms or more (fl's container
// edits at 100k and above) is committed after each, and is always the first.
// The edit form, find and the batched form are warmed up first, untimed
// (warm_up): runs of 1, 10 and 100 calls, each committed, as Google
// Benchmark's first calls of a row are, then passes over the row's ring,
// edits committed as the row commits them, for a second at least and until
// a pass takes almost no page faults (five seconds at most), for every
// library alike (at least one call). So the rows show edits on a store in
// use: a ring of 1,024 members at 10m, in a store imported just before,
// first faults its pages in (some 2.6 page faults a set on a paravirtualized
// VM, 60-90 us a set) and fl's bound on the clean pages a commit keeps
// mapped learns the ring. (Google Benchmark 1.7.1's MinWarmUpTime, which
// these rows used before, runs only for a benchmark that sets its own
// MinTime; fl_bench gives the minimum time on the command line, so it never
// ran, and the first repetitions of the 10m rows timed the faults: set/10m
// 73-88 us in the first, 4 us in the later ones.) Counter faults: page
// faults per timed call (in the edit form, per sampled call: below).
// In the durable form the undo is committed too, untimed, before the next
// edit. find runs outside any transaction: SQLite's SELECT takes a read
// transaction of its own (autocommit), LMDB's a renewed read transaction.
//
// Libraries:
//   fl           fl::json_store: the pointer API (set, insert, erase, move,
//                find);
//                durable: + sync()
//   sqlite       SQLite rows (bench/sqlite_peer.hpp: WAL, synchronous=FULL):
//                obj(k TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID, one row per
//                member (WITHOUT ROWID: one B-tree keyed by k, where a rowid
//                table with a text key keeps a table and an index); arr(pos
//                INTEGER PRIMARY KEY, v TEXT), one row per element, in the
//                order of pos. Positions need only be ordered, not dense:
//                an append takes max(pos)+1, an insert at the front
//                min(pos)-1 (both one descent of the rowid B-tree; pos may
//                go negative). An insert between two elements would take a
//                position between theirs (a REAL midpoint, or a renumbering
//                when none is left); these rows insert only at the ends.
//                v holds the value's JSON text. Durable: the statement
//                alone, in autocommit (one transaction, one WAL fsync).
//   sqlite_json  SQLite, the whole document as one JSON text column of one
//                row, edited with json_insert / json_set / json_remove and
//                read with json_extract; an insert at the array's front has
//                no JSON path in SQLite, so it is written as a user would:
//                the array rebuilt with json_group_array over json_each.
//   nlohmann     nlohmann::json in memory (std::map objects: keys sorted,
//                member order not kept, which favours it); durable: the whole
//                document dumped and written to a temporary file, fsync,
//                rename over the old file, fsync of the directory
//                (json_data::write_durably, the same crash guarantee).
//   lmdb         LMDB (bench/lmdb_peer.hpp, default durability), a key per
//                member ("o" + key) and per element ("z" + 8-byte big-endian
//                position, ordered as SQLite's pos); durable: the put in its
//                own write transaction, committed. find reuses one read
//                transaction (reset and renewed per lookup, as LMDB advises).
//
// Counter cpu_us (edit rows): the process's CPU time per timed call, in
// microseconds; the wall time of a durable row is mostly the disk's, and on
// a shared disk this is the steadier figure. In the edit form it and faults
// are read around one call in 32 only (a counter's read is a system call,
// which on a VM with page-table isolation and no PCIDs flushes the TLB for
// the call after it: the time of every call would include refilling it),
// and counter after_syscall_us is those sampled calls' mean wall time, an
// edit made right after a system call.
// Counter bytes_written (durable rows): per commit, the growth of the
// process's wchar in /proc/self/io across the timed edit and commit: the
// bytes it handed to write calls (write, pwrite, pwritev; every peer here
// writes its files through them, none through a shared mapping), exactly,
// whatever the page cache makes of them. fl's commit writes the bytes it
// changed twice (the log record, in whole pages with its head, then in
// place), and while its log is younger than 4 MiB a commit that reaches the
// log's end also writes the zeros of its next size step (once per store). SQLite's checkpoints and LMDB's page writes
// count where they fall in the timed call.
// Counter bytes_dirtied (durable rows): the growth of write_bytes, the page
// cache the process made dirty. The kernel counts it per folio, and a folio
// of a file read through a mapping (fl) or with readahead may be 16 KiB to
// 2 MiB: a 4 KiB write into it counts the whole folio, so this says how much
// the writes spread over the files, not how many bytes they were.
//
// Sizes: 1k and 100k by default (about 4 minutes of `make bench` at 5
// repetitions on a loaded 2-vCPU machine; FL_BENCH_SCALE_MAX=1k keeps only
// 1k); 1m and 10m when FL_BENCH_SCALE_MAX is 1m or 10m, since building a
// million-member document for every peer and editing it in fl today (an edit
// copies its whole container) take minutes, more than `make bench` allows.
// For example:
//   FL_BENCH_SCALE_MAX=1m build-bench/bench/fl_bench --benchmark_filter='json/scale/'
// (with --benchmark_repetitions=3 this took about 7 minutes on the 2-vCPU
// machine of docs/performance.md; 10m without sqlite_json, one repetition,
// another 7, with 5 GB resident).
// Rows are registered size by size, so one size's documents are built once
// (in a scratch directory under $TMPDIR or /tmp, removed at exit), used by
// every row of that size, and freed before the next size's are built.
// Beside the durable add_member rows, fdatasync: the disk's floor for any
// durable commit (bench/flush_floor.hpp), no store, for reference.
// "Faster" is less time per call.
#if defined(FL_BENCH_HAVE_JSON)

#include "common.hpp"
#include "flush_floor.hpp"
#include "json_data.hpp"
#include "lmdb_peer.hpp"
#include "sqlite_peer.hpp"
#include "json_scale_peers.hpp"

#include <fl/json_store.hpp>

#include <nlohmann/json.hpp>

#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

using namespace fl_bench::scale;  // the sizes, the document, the ops and the peers

// ---- one size's documents ----

const fs::path& scratch() {
  static const fl_bench::scratch_dir dir("fl_json_scale");
  return dir.path();
}

// The peers of one size, each built on first use in a directory of its own
// and kept for every later row of that size.
class size_fixture {
 public:
  explicit size_fixture(std::size_t n) : n_(n), dir_(scratch() / ("n" + std::to_string(n))) {
    fs::create_directories(dir_);
  }
  size_fixture(const size_fixture&) = delete;
  size_fixture& operator=(const size_fixture&) = delete;
  ~size_fixture() {
    peers_.clear();  // closes every store before its files go
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  std::size_t n() const noexcept { return n_; }

  template <class Peer>
  Peer& get() {
    auto& slot = peers_[Peer::name];
    if (!slot) {
      if (text_.empty()) text_ = document_text(n_);
      const fs::path dir = dir_ / Peer::name;
      fs::create_directories(dir);
      slot = std::make_shared<Peer>(dir, n_, text_);
    }
    return *static_cast<Peer*>(slot.get());
  }

 private:
  std::size_t n_;
  fs::path dir_;
  std::string text_;
  std::map<std::string, std::shared_ptr<void>> peers_;
};

// The fixture of size n; the previous size's is destroyed first, so at most
// one size's documents are in memory and on disk.
size_fixture& fixture(std::size_t n) {
  static std::unique_ptr<size_fixture> current;
  if (!current || current->n() != n) {
    current.reset();
    current = std::make_unique<size_fixture>(n);
  }
  return *current;
}

// ---- the rows ----

// The edit form commits (untimed) once its batch holds this many edits or
// this much timed work: often enough that fl, whose edits copy their
// container, frees the copies, and seldom enough that the commits of the
// fast peers do not make up the row's wall time.
constexpr int batch_edits = 1024;
constexpr std::chrono::microseconds batch_work{5000};

using timer = std::chrono::steady_clock;

double seconds(timer::duration d) { return std::chrono::duration<double>(d).count(); }

// The process's CPU time in seconds (every thread: the kernel's work in
// msync/fsync on the caller's behalf included, the wait for the disk not).
double cpu_seconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Counter cpu_us: CPU microseconds per timed call. Google Benchmark's own CPU
// column of a manual-time row covers the whole iteration (undo and untimed
// commits too); this one covers the timed call only, and on a shared disk it
// is steadier than the wall time.
void set_cpu_counter(benchmark::State& st, double cpu_s) {
  st.counters["cpu_us"] = benchmark::Counter(cpu_s * 1e6, benchmark::Counter::kAvgIterations);
}

// The process's page faults so far (minor and major). Counter faults: per
// timed call; on a VM a fault costs tens of microseconds, and a row whose
// store's pages are not mapped yet (or were dropped) shows it here first.
std::uint64_t faults_now() {
  rusage r{};
  ::getrusage(RUSAGE_SELF, &r);
  return static_cast<std::uint64_t>(r.ru_minflt) + static_cast<std::uint64_t>(r.ru_majflt);
}
void set_fault_counter(benchmark::State& st, std::uint64_t faults) {
  st.counters["faults"] =
      benchmark::Counter(static_cast<double>(faults), benchmark::Counter::kAvgIterations);
}

// The edit form reads its counters around one timed call in this many (see
// bm_scale); the edit rows' cpu_us and faults are means over those calls.
constexpr std::uint64_t sample_every = 32;

// cpu_us, faults and after_syscall_us of the edit form from its `samples`
// sampled calls: their CPU seconds, page faults and wall seconds.
void set_sampled_counters(benchmark::State& st, double cpu_s, std::uint64_t faults,
                          double wall_s, std::uint64_t samples) {
  const double n = samples ? static_cast<double>(samples) : 1.0;
  st.counters["cpu_us"] = cpu_s * 1e6 / n;
  st.counters["faults"] = static_cast<double>(faults) / n;
  st.counters["after_syscall_us"] = wall_s * 1e6 / n;
}

// The numbers the edits write, counted on across rows and repetitions: a
// repetition replays the same members in the same order, and were it to write
// the same numbers too, a set would store the value already there, which
// SQLite notices (it leaves a cell whose bytes are unchanged untouched, so
// its commit writes and flushes nothing).
std::uint64_t& values() {
  static std::uint64_t v = fl_bench::seed() % 1000;
  return v;
}

// Before a row's first timed call (once per row: Google Benchmark calls a
// row's function again for each iteration count it tries and for each
// repetition), untimed runs of `step(k)` over the ring's slots 0..slots-1,
// each run followed by `commit()`, as the row's own calls are: runs of 1,
// 10 and 100 calls, then passes of the whole ring, for at least
// warm_up_min, then until a pass takes at most one page fault in 64 calls,
// or until warm_up_max has gone (checked after every call, so a peer whose
// one edit takes longer makes a single call). The short runs are there
// because Google Benchmark's first calls of a row are (1, 10, 100
// iterations, each ended by a commit): at 10m, after passes whose commits
// each wrote hundreds of pages, the first commit of one edit dropped the
// clean pages the ring's lookups had mapped (its walk of them cost more than
// its own writes would to drop: fl's bound on them had not been taught),
// and the first repetition faulted the ring back in (52-86 us an edit,
// 1.5-2.5 faults; the later ones 6-9 us, none).
constexpr std::chrono::seconds warm_up_min{1}, warm_up_max{5};

template <class Step, class Commit>
void warm_up(const std::string& row, std::size_t slots, Step step, Commit commit) {
  static std::set<std::string> warmed;
  if (!warmed.insert(row).second) return;
  const auto start = timer::now();
  std::size_t k = 0;
  bool out_of_time = false;
  for (std::size_t run = 1; !out_of_time; run = std::min(run * 10, slots)) {
    const std::uint64_t f0 = faults_now();
    for (std::size_t i = 0; i < run && !out_of_time; ++i) {
      step(k);
      k = (k + 1) % slots;
      out_of_time = timer::now() - start >= warm_up_max;
    }
    commit();
    if (run == slots && timer::now() - start >= warm_up_min && (faults_now() - f0) * 64 <= slots)
      break;
  }
}

template <class Peer>
void bm_scale(benchmark::State& st, op o, bool durable, std::size_t n, std::string label) {
  Peer& p = fixture(n).template get<Peer>();
  p.prepare(picks(label, n));
  std::uint64_t& v = values();
  std::size_t k = 0;
  const std::string row = label + "/" + Peer::name;

  if (o == op::find) {
    warm_up(
        row, ring, [&](std::size_t i) { benchmark::DoNotOptimize(p.find(i)); }, [] {});
    const std::uint64_t f0 = faults_now();
    for (auto _ : st) {
      benchmark::DoNotOptimize(p.find(k));
      k = (k + 1) % ring;
    }
    set_fault_counter(st, faults_now() - f0);
    return;
  }

  // Each iteration times its one call with the clock (UseManualTime): the
  // undo and commits around it are left out without Google Benchmark's
  // PauseTiming, whose own timer reads would land in the sub-microsecond rows.
  if (!durable) {
    int edits = 0;
    timer::duration work{};
    double cpu = 0;
    std::uint64_t faults = 0;
    // The batch so far: `work` is the edits' own time. Committed after
    // batch_edits edits or batch_work of it, in the warm-up as in the rows.
    const auto next_batch = [&] {
      p.end();
      p.begin();
      edits = 0;
      work = {};
    };
    const auto counted = [&](timer::duration d) {
      work += d;
      if (++edits == batch_edits || work >= batch_work) next_batch();
    };
    p.begin();
    warm_up(
        row, ring,
        [&](std::size_t i) {
          const auto t0 = timer::now();
          p.edit(o, i, ++v);
          const auto t1 = timer::now();
          p.undo(o, i);
          counted(t1 - t0);
        },
        next_batch);
    // The counters are read around one call in sample_every only: each read
    // is a system call, and on a VM whose kernel isolates its page tables
    // without PCIDs a system call flushes the TLB, so a call timed right
    // after them starts cold (set at 10m 3.7 us against 2.4 us in a loop
    // without them on this machine: docs/performance.md, "The edit rows
    // without a TLB flush before each call"). A user's loop of edits has no
    // system call between them; the sampled calls' mean time is the
    // counter after_syscall_us, what an edit costs right after one (a
    // server's edit between its reads and writes of a socket).
    std::uint64_t iteration = 0, samples = 0;
    double sampled_s = 0;
    for (auto _ : st) {
      const bool sampled = iteration++ % sample_every == 0;
      std::uint64_t f0 = 0;
      double c0 = 0;
      if (sampled) {
        f0 = faults_now();
        c0 = cpu_seconds();
      }
      const auto t0 = timer::now();
      p.edit(o, k, ++v);
      const auto t1 = timer::now();
      if (sampled) {
        cpu += cpu_seconds() - c0;
        faults += faults_now() - f0;
        sampled_s += seconds(t1 - t0);
        ++samples;
      }
      st.SetIterationTime(seconds(t1 - t0));
      p.undo(o, k);
      k = (k + 1) % ring;
      counted(t1 - t0);
    }
    p.end();
    set_sampled_counters(st, cpu, faults, sampled_s, samples);
    return;
  }

  std::uint64_t written = 0, dirtied = 0;
  bool counted = true;
  double cpu = 0;
  for (auto _ : st) {
    const auto before = io_now();
    const double c0 = cpu_seconds();
    const auto t0 = timer::now();
    p.edit(o, k, ++v);
    p.commit();
    const auto t1 = timer::now();
    cpu += cpu_seconds() - c0;
    const auto after = io_now();
    st.SetIterationTime(seconds(t1 - t0));
    if (before && after) {
      written += after->wchar - before->wchar;
      dirtied += after->write_bytes - before->write_bytes;
    } else {
      counted = false;
    }
    p.undo(o, k);
    p.commit();
    k = (k + 1) % ring;
  }
  set_cpu_counter(st, cpu);
  if (counted) {
    st.counters["bytes_written"] =
        benchmark::Counter(static_cast<double>(written), benchmark::Counter::kAvgIterations);
    st.counters["bytes_dirtied"] =
        benchmark::Counter(static_cast<double>(dirtied), benchmark::Counter::kAvgIterations);
  }
}

// The batched form (see the top): one iteration is batched_edits edits,
// each undone untimed, and the commit of them all.
constexpr std::size_t batched_edits = 500;

template <class Peer>
void bm_scale_batched(benchmark::State& st, op o, std::size_t n, std::string label) {
  Peer& p = fixture(n).template get<Peer>();
  p.prepare(picks(label, n));
  std::uint64_t& v = values();
  double cpu = 0;
  // Batches as the timed loop's (below), one cut short by the time bound
  // committed too.
  bool in_batch = false;
  warm_up(
      label + "/" + Peer::name, batched_edits,
      [&](std::size_t i) {
        if (!in_batch) p.begin();
        in_batch = true;
        p.edit(o, i, ++v);
        p.undo(o, i);
        if (i + 1 == batched_edits) {
          p.end_durably();
          in_batch = false;
        }
      },
      [&] {
        if (in_batch) p.end_durably();
        in_batch = false;
      });
  for (auto _ : st) {
    timer::duration work{};
    p.begin();
    for (std::size_t i = 0; i < batched_edits; ++i) {
      const double c0 = cpu_seconds();
      const auto t0 = timer::now();
      p.edit(o, i, ++v);
      work += timer::now() - t0;
      cpu += cpu_seconds() - c0;
      p.undo(o, i);
    }
    const double c0 = cpu_seconds();
    const auto t0 = timer::now();
    p.end_durably();
    work += timer::now() - t0;
    cpu += cpu_seconds() - c0;
    st.SetIterationTime(seconds(work));
  }
  st.counters["per_edit"] = benchmark::Counter(
      batched_edits, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  st.counters["cpu_us_per_edit"] = benchmark::Counter(
      cpu * 1e6 / batched_edits, benchmark::Counter::kAvgIterations);
}

// The disk's floor beside the durable add_member rows: 4 KiB overwritten and
// fdatasynced (bench/flush_floor.hpp), no store; a durable commit's time over
// this says how many flushes and how much writing it needs beyond one.
void bm_scale_floor(benchmark::State& st) {
  fl_bench::run_flush_floor(st, scratch() / "floor");
}

template <class Peer>
void reg_peer(const std::string& cs, op o, bool durable, std::size_t n) {
  // The picks are seeded by the case, so every library edits the same members.
  auto* b = fl_bench::reg("json/scale/" + cs + "/" + Peer::name, bm_scale<Peer>, o, durable, n,
                          "json/scale/" + cs);
  if (o == op::find)
    b->UseRealTime();
  else
    b->UseManualTime();
}

template <class Peer>
void reg_batched(const std::string& cs, op o, std::size_t n) {
  fl_bench::reg("json/scale/" + cs + "/" + Peer::name, bm_scale_batched<Peer>, o, n,
                "json/scale/" + cs)
      ->UseManualTime();
}

const bool registered = [] {
  const std::size_t max = scale_max();
  std::string sizes;
  for (const auto& s : all_sizes) {
    if (s.n > max) break;
    sizes += sizes.empty() ? s.name : std::string(" ") + s.name;
    for (op o : {op::add_member, op::append, op::insert_front, op::set, op::erase, op::move,
                 op::find}) {
      for (bool durable : {false, true}) {
        if (o == op::find && durable) continue;
        const std::string cs =
            std::string(op_name(o)) + (durable ? "_durable/" : "/") + s.name;
        reg_peer<fl_peer>(cs, o, durable, s.n);
#if defined(FL_BENCH_HAVE_SQLITE)
        reg_peer<sqlite_rows_peer>(cs, o, durable, s.n);
        reg_peer<sqlite_json_peer>(cs, o, durable, s.n);
#endif
        reg_peer<nlohmann_peer>(cs, o, durable, s.n);
#if defined(FL_BENCH_HAVE_LMDB)
        reg_peer<lmdb_scale_peer>(cs, o, durable, s.n);
#endif
        if (o == op::add_member && durable)
          fl_bench::reg("json/scale/" + cs + "/fdatasync", bm_scale_floor)->UseRealTime();
      }
      if (o != op::find) {
        const std::string cs = std::string(op_name(o)) + "_batched/" + s.name;
        // (Not sqlite_json: a batch of its edits at 100k takes 5-16 s,
        // 11-33 ms an edit, as its rows of one edit show.)
        reg_batched<fl_peer>(cs, o, s.n);
#if defined(FL_BENCH_HAVE_SQLITE)
        reg_batched<sqlite_rows_peer>(cs, o, s.n);
#endif
        reg_batched<nlohmann_peer>(cs, o, s.n);
#if defined(FL_BENCH_HAVE_LMDB)
        reg_batched<lmdb_scale_peer>(cs, o, s.n);
#endif
      }
    }
  }
  benchmark::AddCustomContext(
      "json/scale sizes",
      sizes + (max < all_sizes[std::size(all_sizes) - 1].n
                   ? " (FL_BENCH_SCALE_MAX=1m or 10m adds the larger sizes)"
                   : ""));
  return true;
}();

}  // namespace

#endif  // FL_BENCH_HAVE_JSON
