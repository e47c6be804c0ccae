// src/replica/snapshot.cpp: snapshots through JetStream (snapshot.hpp): the
// messages' text, the chunked publish of a store's files and their fetch.
#include "replica/snapshot.hpp"

#include <charconv>
#include <fstream>
#include <optional>
#include <string_view>
#include <vector>

namespace fl {
inline namespace FL_ABI_NS {
namespace replica {
namespace detail {

namespace {

constexpr std::string_view chunk_magic = "fl-snapshot 1 ";
constexpr std::string_view manifest_magic = "fl-snapshot-manifest 1 ";

std::string subject(const options& opts, std::string_view leaf) {
  return "fl.snapshot." + opts.stream + "." + std::string(leaf);
}

std::string hex16(std::uint64_t v) {
  char buf[16];
  const auto end = std::to_chars(buf, buf + sizeof buf, v, 16).ptr;
  return std::string(static_cast<std::size_t>(16 - (end - buf)), '0') + std::string(buf, end);
}

// The space-separated fields of a header line, each parsed in turn.
class fields {
 public:
  explicit fields(std::string_view line) : rest_(line) {}
  std::string_view word() {
    const auto sp = std::min(rest_.find(' '), rest_.size());
    const std::string_view w = rest_.substr(0, sp);
    rest_.remove_prefix(std::min(sp + 1, rest_.size()));
    ok_ = ok_ && !w.empty();
    return w;
  }
  std::uint64_t number(int base = 10) {
    const std::string_view w = word();
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), v, base);
    ok_ = ok_ && ec == std::errc{} && end == w.data() + w.size();
    return v;
  }
  bool ok() const { return ok_ && rest_.empty(); }

 private:
  std::string_view rest_;
  bool ok_ = true;
};

struct manifest {
  std::uint64_t history, sequence, data_bytes, log_bytes;
  bool has_log;
  std::uint64_t first, last;
};

std::optional<manifest> decode_manifest(std::string_view body) {
  if (!body.starts_with(manifest_magic) || !body.ends_with('\n')) return std::nullopt;
  body.remove_prefix(manifest_magic.size());
  body.remove_suffix(1);
  fields f(body);
  manifest m{};
  m.history = f.number(16);
  m.sequence = f.number();
  m.data_bytes = f.number();
  fields probe = f;
  m.has_log = probe.word() != "-";
  if (m.has_log) {
    m.log_bytes = f.number();
  } else {
    f.word();
  }
  m.first = f.number();
  m.last = f.number();
  if (!f.ok() || m.first > m.last) return std::nullopt;
  return m;
}

struct chunk {
  std::uint64_t history, sequence;
  bool log;
  std::uint64_t offset;
  std::string_view bytes;
};

std::optional<chunk> decode_chunk(std::string_view body) {
  if (!body.starts_with(chunk_magic)) return std::nullopt;
  body.remove_prefix(chunk_magic.size());
  const auto nl = body.find('\n');
  if (nl == std::string_view::npos) return std::nullopt;
  fields f(body.substr(0, nl));
  chunk c{};
  c.history = f.number(16);
  c.sequence = f.number();
  const std::string_view part = f.word();
  c.log = part == "log";
  c.offset = f.number();
  if (!f.ok() || (part != "log" && part != "data")) return std::nullopt;
  c.bytes = body.substr(nl + 1);
  return c;
}

}  // namespace

std::filesystem::path log_path(const std::filesystem::path& p) {
  auto log = p;
  log += "-log";
  return log;
}

std::filesystem::path staged_path(const std::filesystem::path& file) {
  auto staged = file;
  staged += ".staged";
  return staged;
}

json_store install_store(const std::filesystem::path& file,
                         const std::function<void(const std::filesystem::path&)>& write) {
  const std::filesystem::path staged = staged_path(file);
  try {
    write(staged);
    mapped_space::open(staged, open_mode::read_write).rename(file);
  } catch (...) {
    mapped_space::remove(staged);
    throw;
  }
  return json_store::open(file);
}

std::string snapshot_stream(const options& opts) { return opts.stream + "_snapshots"; }

std::uint64_t publish_snapshot(link& l, const options& opts, std::uint64_t history,
                               std::uint64_t sequence, const std::filesystem::path& data) {
  const std::string stream = snapshot_stream(opts);
  l.ensure_stream(stream, subject(opts, ">"), opts.replicas);
  const std::string chunk_subject = subject(opts, "chunk");
  // Only when an older snapshot is there is anything purged: with
  // nats-server 2.9.10 and libnats 3.4.1, a purge up to sequence 1 (a stream
  // holding only this snapshot) emptied the whole stream.
  const bool older = l.last_on(stream, subject(opts, "manifest")).has_value();
  std::uint64_t first = 0, last = 0;
  std::uint64_t sizes[2] = {0, 0};
  std::vector<char> buf(snapshot_chunk_bytes);
  const auto send = [&](const std::filesystem::path& file, bool is_log) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      throw replica_error(fault::connection, "fl::replica: snapshot: cannot read " + file.string());
    }
    std::uint64_t offset = 0;
    do {
      in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
      const auto n = static_cast<std::size_t>(in.gcount());
      if (n == 0 && offset > 0) break;  // an empty file is still one (empty) chunk
      std::string body(chunk_magic);
      body += hex16(history) + " " + std::to_string(sequence) + (is_log ? " log " : " data ") +
              std::to_string(offset) + "\n";
      body.append(buf.data(), n);
      last = l.publish_plain(chunk_subject, body);
      if (first == 0) first = last;
      offset += n;
    } while (in);
    sizes[is_log ? 1 : 0] = offset;
  };
  send(data, false);
  const bool has_log = std::filesystem::exists(log_path(data));
  if (has_log) send(log_path(data), true);
  const std::string m = std::string(manifest_magic) + hex16(history) + " " +
                        std::to_string(sequence) + " " + std::to_string(sizes[0]) + " " +
                        (has_log ? std::to_string(sizes[1]) : "-") + " " + std::to_string(first) +
                        " " + std::to_string(last) + "\n";
  const std::uint64_t at = l.publish_plain(subject(opts, "manifest"), m);
  if (older) l.purge_before(stream, first);
  return at;
}

void fetch_snapshot(link& l, const options& opts, const std::filesystem::path& file) {
  const std::string stream = snapshot_stream(opts);
  const std::string where = "fl::replica: snapshot of stream " + opts.stream + ": ";
  const auto found = l.last_on(stream, subject(opts, "manifest"));
  if (!found) throw replica_error(fault::gap, where + "none published");
  const auto m = decode_manifest(found->body);
  if (!m) throw replica_error(fault::diverged, where + "the manifest is not one");
  std::ofstream out[2];
  out[0].open(file, std::ios::binary | std::ios::trunc);
  std::error_code ec;
  std::filesystem::remove(log_path(file), ec);
  if (m->has_log) out[1].open(log_path(file), std::ios::binary | std::ios::trunc);
  std::uint64_t written[2] = {0, 0};
  const std::string chunk_subject = subject(opts, "chunk");
  for (std::uint64_t seq = m->first; seq <= m->last; ++seq) {
    const link::stored s = l.stored_at(stream, seq);
    if (s.subject != chunk_subject) continue;  // a manifest between chunks
    const auto c = decode_chunk(s.body);
    const int part = c && c->log ? 1 : 0;
    if (!c || c->history != m->history || c->sequence != m->sequence || (c->log && !m->has_log) ||
        c->offset != written[part]) {
      throw replica_error(fault::diverged, where + "stream sequence " + std::to_string(seq) +
                                               " is not the manifest's next chunk");
    }
    out[part].write(c->bytes.data(), static_cast<std::streamsize>(c->bytes.size()));
    written[part] += c->bytes.size();
  }
  for (int part = 0; part < (m->has_log ? 2 : 1); ++part) {
    out[part].flush();
    if (!out[part]) throw replica_error(fault::connection, where + "cannot write " + file.string());
  }
  if (written[0] != m->data_bytes || (m->has_log && written[1] != m->log_bytes)) {
    throw replica_error(fault::diverged,
                        where + "the chunks do not add up to the manifest's sizes");
  }
}

}  // namespace detail
}  // namespace replica
}  // namespace FL_ABI_NS
}  // namespace fl
