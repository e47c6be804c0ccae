// tests/powerloss/crash_states.cpp: crash states from a trace, and their
// check (see crash_states.hpp for the model).
#include "crash_states.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string_view>
#include <unordered_map>

#include <fcntl.h>
#include <unistd.h>

namespace fl_powerloss {
namespace {

constexpr std::uint64_t sector = 512;

bool is_dir_op(op_kind k) {
  return k == op_kind::create || k == op_kind::link || k == op_kind::rename ||
         k == op_kind::unlink;
}

using name_map = std::map<std::string, int>;

void apply_dir(name_map& ns, const op& o) {
  switch (o.kind) {
    case op_kind::create: ns[o.name] = o.inode; break;
    case op_kind::link: ns[o.to] = o.inode; break;
    case op_kind::rename:
      // The entry `name` goes whatever it names in this state: the rename
      // removes it. The target names the moved inode even where the entry
      // that created it did not persist (the disk may order them so).
      ns.erase(o.name);
      ns[o.to] = o.inode;
      break;
    case op_kind::unlink: ns.erase(o.name); break;
    default: break;
  }
}

std::size_t sectors_of(const op& o) {
  if (o.data.empty()) return 0;
  return static_cast<std::size_t>((o.offset + o.data.size() - 1) / sector - o.offset / sector + 1);
}

// Applies write or truncate `o`; `tear` empty: the whole write, else one
// flag per sector of the write (true: that sector reached the disk). The
// size of an extending write is applied either way.
void apply_data(std::string& image, const op& o, const std::vector<bool>& tear) {
  if (o.kind == op_kind::truncate) {
    image.resize(static_cast<std::size_t>(o.offset), '\0');
    return;
  }
  const std::uint64_t end = o.offset + o.data.size();
  if (image.size() < end) image.resize(static_cast<std::size_t>(end), '\0');
  if (tear.empty()) {
    std::memcpy(image.data() + o.offset, o.data.data(), o.data.size());
    return;
  }
  const std::uint64_t first = o.offset / sector;
  for (std::size_t s = 0; s < tear.size(); ++s) {
    if (!tear[s]) continue;
    const std::uint64_t lo = std::max(o.offset, (first + s) * sector);
    const std::uint64_t hi = std::min(end, (first + s + 1) * sector);
    std::memcpy(image.data() + lo, o.data.data() + (lo - o.offset), hi - lo);
  }
}

// What persisted at a crash point: the durable directory and images, and the
// operations not yet flushed (indices into the trace, in order).
struct durable_state {
  name_map ns;
  std::vector<std::string> images;
  std::vector<std::uint64_t> versions;  // per inode: bumped by each flush that changed it
  std::vector<std::size_t> pending;
};

// The state before the first operation: the files recording started with.
durable_state initial_state(const trace& t) {
  durable_state d;
  d.images.resize(t.inode_names.size());
  d.versions.resize(t.inode_names.size(), 0);
  for (const trace::initial_file& f : t.initial) {
    d.ns[f.name] = f.inode;
    d.images[static_cast<std::size_t>(f.inode)] = f.bytes;
  }
  return d;
}

void advance(durable_state& d, const trace& t, std::size_t i) {
  const op& o = t.ops[i];
  if (d.images.size() < t.inode_names.size()) {
    d.images.resize(t.inode_names.size());
    d.versions.resize(t.inode_names.size(), 0);
  }
  switch (o.kind) {
    case op_kind::flush: {
      std::vector<std::size_t> keep;
      bool changed = false;
      for (const std::size_t p : d.pending) {
        const op& q = t.ops[p];
        if (!is_dir_op(q.kind) && q.inode == o.inode) {
          apply_data(d.images[o.inode], q, {});
          changed = true;
        } else {
          keep.push_back(p);
        }
      }
      d.pending.swap(keep);
      if (changed) ++d.versions[o.inode];
      break;
    }
    case op_kind::dir_flush: {
      std::vector<std::size_t> keep;
      for (const std::size_t p : d.pending) {
        if (is_dir_op(t.ops[p].kind))
          apply_dir(d.ns, t.ops[p]);
        else
          keep.push_back(p);
      }
      d.pending.swap(keep);
      break;
    }
    default: d.pending.push_back(i);
  }
}

// One choice of what persisted: per pending operation, not applied, applied,
// or (a write) applied with only the sectors flagged in `tears`.
struct selection {
  std::string what;
  std::vector<char> applied;
  std::vector<std::vector<bool>> tears;
};

std::vector<bool> random_tear(std::mt19937_64& rng, std::size_t n) {
  std::vector<bool> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = (rng() & 1) != 0;
  return v;
}

std::vector<bool> leading_tear(std::mt19937_64& rng, std::size_t n) {
  std::vector<bool> v(n, false);
  const std::size_t k = n > 1 ? 1 + rng() % (n - 1) : 0;
  for (std::size_t i = 0; i < k; ++i) v[i] = true;
  return v;
}

// Up to `want` distinct values of [lo, hi), all of them if there are few.
std::vector<std::size_t> pick(std::mt19937_64& rng, std::size_t lo, std::size_t hi,
                              std::size_t want) {
  std::vector<std::size_t> r;
  if (hi <= lo) return r;
  if (hi - lo <= want) {
    for (std::size_t k = lo; k < hi; ++k) r.push_back(k);
    return r;
  }
  std::set<std::size_t> s;
  if (want == 0) return r;
  s.insert(hi - 1);  // the longest proper prefix: what a kill -9 just before the last call leaves
  while (s.size() < want) s.insert(lo + rng() % (hi - lo));
  return {s.begin(), s.end()};
}

std::vector<selection> selections(const trace& t, const std::vector<std::size_t>& pending,
                                  std::mt19937_64& rng, unsigned scale) {
  const std::size_t m = pending.size();
  const std::string of = " of " + std::to_string(m) + " unflushed";
  std::vector<selection> out;
  auto base = [&](const std::string& what, char fill) {
    selection s{what, std::vector<char>(m, fill), std::vector<std::vector<bool>>(m)};
    return s;
  };
  out.push_back(base("nothing unflushed", 0));
  if (m == 0) return out;
  out.push_back(base("all" + of, 1));
  auto tearable = [&](std::size_t j) {
    const op& o = t.ops[pending[j]];
    return o.kind == op_kind::write && sectors_of(o) > 1;
  };
  // The longest proper prefix (a kill -9 before the last call) and two more.
  for (const std::size_t k : pick(rng, 1, m, 3 * scale)) {
    selection s = base("prefix " + std::to_string(k) + of, 0);
    std::fill(s.applied.begin(), s.applied.begin() + static_cast<std::ptrdiff_t>(k), 1);
    out.push_back(std::move(s));
  }
  for (const std::size_t k : pick(rng, 1, m + 1, scale)) {
    if (!tearable(k - 1)) continue;
    selection s = base("prefix " + std::to_string(k) + of + ", the last torn", 0);
    std::fill(s.applied.begin(), s.applied.begin() + static_cast<std::ptrdiff_t>(k), 1);
    s.tears[k - 1] = leading_tear(rng, sectors_of(t.ops[pending[k - 1]]));
    out.push_back(std::move(s));
  }
  if (m > 1) {
    for (const std::size_t j : pick(rng, 0, m, scale)) {
      selection s = base("all but #" + std::to_string(j + 1) + of, 1);
      s.applied[j] = 0;
      out.push_back(std::move(s));
    }
  }
  for (unsigned r = 0; r < 2 * scale; ++r) {
    selection s = base("random subset" + of, 0);
    for (std::size_t j = 0; j < m; ++j) {
      s.applied[j] = static_cast<char>(rng() & 1);
      if (s.applied[j] && tearable(j) && rng() % 4 == 0)
        s.tears[j] = random_tear(rng, sectors_of(t.ops[pending[j]]));
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h * 0xFF51AFD7ED558CCDull;
}


// The state a selection leaves, and a key that names it without its bytes
// (the durable versions and the operations applied): equal keys, equal
// states.
struct built {
  name_map ns;
  std::uint64_t key = 0;
};

built resolve(const trace& t, const durable_state& d, const selection& s) {
  built b;
  b.ns = d.ns;
  for (std::size_t j = 0; j < d.pending.size(); ++j)
    if (s.applied[j] && is_dir_op(t.ops[d.pending[j]].kind)) apply_dir(b.ns, t.ops[d.pending[j]]);
  std::uint64_t h = 0x243F6A8885A308D3ull;
  for (const auto& [name, inode] : b.ns) {
    h = mix(h, std::hash<std::string>{}(name));
    h = mix(h, static_cast<std::uint64_t>(inode));
    h = mix(h, d.versions[static_cast<std::size_t>(inode)]);
    for (std::size_t j = 0; j < d.pending.size(); ++j) {
      const op& o = t.ops[d.pending[j]];
      if (!s.applied[j] || is_dir_op(o.kind) || o.inode != inode) continue;
      h = mix(h, d.pending[j]);
      for (const bool bit : s.tears[j]) h = mix(h, bit ? 2 : 1);
    }
  }
  b.key = h;
  return b;
}

files materialize(const trace& t, const durable_state& d, const selection& s, const built& b) {
  files out;
  for (const auto& [name, inode] : b.ns) {
    std::string image = d.images[static_cast<std::size_t>(inode)];
    for (std::size_t j = 0; j < d.pending.size(); ++j) {
      const op& o = t.ops[d.pending[j]];
      if (s.applied[j] && !is_dir_op(o.kind) && o.inode == inode) apply_data(image, o, s.tears[j]);
    }
    out.emplace_back(name, std::move(image));
  }
  return out;
}

void fail_io(const std::filesystem::path& p, const char* what) {
  throw std::runtime_error(std::string("powerloss: ") + what + " " + p.string() + ": " +
                           std::strerror(errno));
}

}  // namespace

// All-zero 4 KiB blocks are left as holes (a log's zero fill reads the same
// and costs nothing).
void write_state(const std::filesystem::path& dir, const files& state) {
  for (const auto& e : std::filesystem::directory_iterator(dir)) std::filesystem::remove(e.path());
  static const char zeros[4096] = {};
  for (const auto& [name, bytes] : state) {
    const std::filesystem::path p = dir / name;
    const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) fail_io(p, "create");
    if (::ftruncate(fd, static_cast<off_t>(bytes.size())) != 0) fail_io(p, "ftruncate");
    for (std::size_t at = 0; at < bytes.size(); at += sizeof zeros) {
      const std::size_t n = std::min(sizeof zeros, bytes.size() - at);
      if (n == sizeof zeros && std::memcmp(bytes.data() + at, zeros, n) == 0) continue;
      if (::pwrite(fd, bytes.data() + at, n, static_cast<off_t>(at)) != static_cast<ssize_t>(n))
        fail_io(p, "write");
    }
    ::close(fd);
  }
}

namespace {

std::string unknown_value(const std::string& value) {
  std::string v = value.substr(0, 60);
  for (char& c : v)
    if (static_cast<unsigned char>(c) < 32) c = '.';
  return "a value no commit had (\"" + v + (value.size() > 60 ? "...\")" : "\")");
}

}  // namespace

files state_at(const trace& t, std::size_t c, bool flushed_only) {
  durable_state d = initial_state(t);
  for (std::size_t i = 0; i < c && i < t.ops.size(); ++i) advance(d, t, i);
  const selection s{"", std::vector<char>(d.pending.size(), flushed_only ? 0 : 1),
                    std::vector<std::vector<bool>>(d.pending.size())};
  return materialize(t, d, s, resolve(t, d, s));
}

files final_state(const trace& t) { return state_at(t, t.ops.size(), false); }

check_report check_crash_states(const trace& t, const std::vector<commit>& commits,
                                const std::filesystem::path& state_dir,
                                const std::function<reopened(const std::filesystem::path&)>& reopen,
                                const check_options& options) {
  check_report report;
  std::mt19937_64 rng(options.seed);
  // Per distinct state: the commits whose value it reopened to (a value is
  // kept only as these, so that big documents are not held once per state),
  // or its name if no commit had it, and the reason of a failure.
  struct result {
    std::vector<std::size_t> matches;
    std::string unknown;
    std::string error;
  };
  std::unordered_map<std::uint64_t, result> seen;
  durable_state d = initial_state(t);
  if (options.print_trace) {
    for (std::size_t c = 0; c < t.ops.size(); ++c)
      std::printf("op %zu: %s\n", c + 1, describe(t, c).c_str());
  }
  std::size_t kept = 0;
  for (std::size_t c = 0; c <= t.ops.size(); ++c) {
    if (c > 0) advance(d, t, c - 1);
    ++report.crash_points;
    // The last commit acknowledged by now, and the later ones begun.
    std::size_t acked = 0;
    for (std::size_t k = 0; k < commits.size(); ++k)
      if (commits[k].ack <= c) acked = k;
    std::vector<std::size_t> allowed{acked};
    for (std::size_t k = acked + 1; k < commits.size(); ++k)
      if (commits[k].begin < c) allowed.push_back(k);

    for (const selection& s : selections(t, d.pending, rng, options.scale)) {
      ++report.states;
      const built b = resolve(t, d, s);
      auto it = seen.find(b.key);
      if (it == seen.end()) {
        write_state(state_dir, materialize(t, d, s, b));
        if (c == options.keep_point) {
          const std::filesystem::path to =
              options.keep_dir / (std::to_string(c) + "-" + std::to_string(kept++));
          std::filesystem::create_directories(to);
          std::filesystem::copy(state_dir, to, std::filesystem::copy_options::overwrite_existing);
        }
        const reopened got = reopen(state_dir);
        result res;
        res.error = got.error;
        for (std::size_t k = 0; k < commits.size(); ++k)
          if (commits[k].value == got.value) res.matches.push_back(k);
        if (res.matches.empty()) res.unknown = unknown_value(got.value);
        it = seen.emplace(b.key, std::move(res)).first;
        ++report.distinct_states;
      }
      const result& r = it->second;
      std::string why = r.error;
      if (why.empty()) {
        bool ok = false;
        for (const std::size_t k : allowed)
          ok = ok || std::find(r.matches.begin(), r.matches.end(), k) != r.matches.end();
        if (!ok) {
          why = "reopened " +
                (r.matches.empty() ? r.unknown : "commit " + std::to_string(r.matches.back())) +
                ", expected commit " +
                std::to_string(acked) + " (acknowledged)";
          if (allowed.size() > 1)
            why += " or " + std::to_string(allowed[1]) +
                   (allowed.size() > 2 ? "-" + std::to_string(allowed.back()) : "") +
                   " (in flight)";
        }
      }
      if (why.empty()) continue;
      ++report.failures;
      if (report.first_failures.size() < options.max_failures_kept)
        report.first_failures.push_back("crash after op " + std::to_string(c) + " (" +
                                        (c > 0 ? describe(t, c - 1) : "nothing") +
                                        "; next: " + describe(t, c) + "), " + s.what + ": " + why);
    }
  }
  return report;
}

}  // namespace fl_powerloss
