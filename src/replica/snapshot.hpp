// src/replica/snapshot.hpp: a snapshot (a compacted store's data file and
// redo log) carried by JetStream, for a follower that can reach only the
// servers: the one encoding of its messages, and their publish and fetch.
// The snapshot stream of stream S is "S_snapshots", subjects
// "fl.snapshot.S.>":
//   fl.snapshot.S.chunk     "fl-snapshot 1 <history, 16 hex> <sequence> <data|log> <offset>\n"
//                           and then at most chunk_bytes of that file from that offset
//   fl.snapshot.S.manifest  "fl-snapshot-manifest 1 <history, 16 hex> <sequence> <data bytes>
//                           <log bytes, or - for no log> <first chunk> <last chunk>\n"
//                           (the chunks' stream sequences), published after its chunks
// A snapshot is the newest manifest and the chunks it names; after it is
// published, the messages before its first chunk (older snapshots) are
// purged.
#pragma once

#include <fl/detail/config.hpp>

#include <fl/replica.hpp>

#include "replica/link.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

namespace fl {
inline namespace FL_ABI_NS {
namespace replica {
namespace detail {

// Chunks stay well under nats-server's default 1 MiB message limit.
inline constexpr std::size_t snapshot_chunk_bytes = 256 * 1024;

std::string snapshot_stream(const options& opts);

// Publishes the files of a store (copy_store's pair: `data` and, when it
// exists, data + "-log") as the stream's newest snapshot of `history` at
// `sequence`, then purges the older ones. Returns the manifest's stream sequence.
std::uint64_t publish_snapshot(link& l, const options& opts, std::uint64_t history,
                               std::uint64_t sequence, const std::filesystem::path& data);

// A store's redo log beside its data file (fl/mapped_space.hpp, Files).
std::filesystem::path log_path(const std::filesystem::path& p);

// Where a store for `file` is written while it is copied or fetched
// ("<file>.staged"), so that `file` never holds a part of one.
std::filesystem::path staged_path(const std::filesystem::path& file);
// Writes a store for `file` under staged_path(file) with write(staged),
// then names it `file` and opens it: mapped_space::rename makes the data
// file alone the committed state, durably, then renames it onto `file` only
// while no process has a store open there (else persist_error "locked", and
// `file` is as it was). A crash at any moment leaves at `file` the store that
// was there or the new one, never a mix. When anything throws, the staged
// files are removed.
json_store install_store(const std::filesystem::path& file,
                         const std::function<void(const std::filesystem::path&)>& write);

// Writes the newest snapshot to `file` (and file + "-log"). Throws
// replica_error: fault::gap when there is none or a chunk is gone (a newer
// snapshot replaced it meanwhile: fetch again), fault::diverged when a chunk
// does not match its manifest.
void fetch_snapshot(link& l, const options& opts, const std::filesystem::path& file);

}  // namespace detail
}  // namespace replica
}  // namespace FL_ABI_NS
}  // namespace fl
