// src/json/feed.cpp: the change feed (fl/detail/json_format.hpp "the change
// feed"): each edit's RFC 6902 operation recorded as it is made, a record per
// commit written into the space with the commit (one flush for both), the
// ring of the newest records, and the reads of json_store::changes().
//
// Why the operations and not a diff of two commits: a diff costs the size of
// what changed between them, and the old commit's blocks may already be
// reused. The operations are known as each edit is made, cost their own
// size, and apply to the previous commit exactly (apply_patch's rollback
// removes its own from pending_, so a refused patch records nothing).
#include "json/store_file.hpp"
#include "persist/random_id.hpp"

#include <fl/json_store.hpp>

#include <algorithm>
#include <cstring>
#include <string>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
namespace json {

namespace {

// Valid JSON text without the whitespace between tokens, so that a record
// (and a line of `fl-json changes`) is one line whatever the caller wrote.
void append_minified(std::string& out, std::string_view text) {
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\') {
        out += text[++i];  // valid text: an escape has its character
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
      out += c;
    } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
      out += c;
    }
  }
}

// The smallest `since` the ring answers: records after it are all held.
// A ring of capacity 0 holds none: only `since` == sequence is answered.
std::uint64_t lowest_since(const feed_ring& r) noexcept {
  return std::max(r.first, r.sequence > r.capacity ? r.sequence - r.capacity : 0);
}

std::uint64_t ring_bytes(std::uint32_t capacity) noexcept {
  return sizeof(feed_ring) + std::uint64_t{capacity} * sizeof(std::uint64_t);
}

}  // namespace

void store_file::record_op(const char* name, std::string_view ptr, const std::string_view* value,
                           const std::string_view* from) {
  if (!ring_) return;
  if (!pending_.empty()) pending_ += ',';
  pending_ += "{\"op\":\"";
  pending_ += name;
  pending_ += '"';
  if (from) {
    pending_ += ",\"from\":";
    append_escaped(pending_, *from);
  }
  pending_ += ",\"path\":";
  append_escaped(pending_, ptr);
  if (value) {
    pending_ += ",\"value\":";
    append_minified(pending_, *value);
  }
  pending_ += '}';
}

fptr<feed_ring> store_file::new_ring(mapped_space& space, const feed_ring* like,
                                     std::uint32_t capacity, bool zeroed) {
  const fptr<void> at = space.allocate(ring_bytes(capacity), alignof(feed_ring));
  auto* p = reinterpret_cast<unsigned char*>(space.get(at.cast<char>()));
  // A reused block holds its last owner's bytes: every slot starts empty.
  if (!zeroed) {
    std::memset(p, 0, ring_bytes(capacity));
    space.wrote(at, ring_bytes(capacity));
  }
  feed_ring r;
  if (like) {
    r = *like;
  } else {
    r.history = detail::random_id();
    r.max_bytes = default_feed_bytes;
  }
  r.tag = feed_ring_tag;
  r.capacity = capacity;
  std::memcpy(p, &r, sizeof r);
  space.wrote(at, sizeof r);
  return at.cast<feed_ring>();
}

void store_file::no_feed(const char* what) const {
  json_head h;
  std::memcpy(&h, space_->checked(head_, sizeof h), sizeof h);
  throw persist_error(path_, std::string("json_store::") + what + ": this store's format (" +
                                 std::to_string(h.version) +
                                 ") keeps no change feed; compact() rewrites it in format " +
                                 std::to_string(format_version));
}

feed_ring store_file::ring() const {
  feed_ring r;
  std::memcpy(&r, space_->checked(ring_, sizeof r), sizeof r);
  if (r.tag != feed_ring_tag) damaged("the change feed's ring has a bad tag");
  if (r.capacity > max_feed_capacity)
    damaged("the change feed's ring holds " + std::to_string(r.capacity) + " slots");
  if (r.first > r.sequence) damaged("the change feed begins after its newest record");
  space_->checked(ring_, ring_bytes(r.capacity));
  return r;
}

std::uint64_t store_file::slot(const feed_ring& r, std::uint64_t sequence) const {
  std::uint64_t off;
  const std::uint64_t at =
      ring_.offset() + sizeof(feed_ring) + (sequence % r.capacity) * sizeof(std::uint64_t);
  std::memcpy(&off, space_->checked(fptr<const void>(at), sizeof off), sizeof off);
  return off;
}

std::string_view store_file::record_text(const feed_ring& r, std::uint64_t sequence) const {
  const std::uint64_t off = slot(r, sequence);
  const std::string at = "change record " + std::to_string(sequence);
  if (off == 0 || off >= tail_base_) damaged(at + " is not in the file");
  change_record h;
  std::memcpy(&h, space_->checked(fptr<const void>(off), sizeof h), sizeof h);
  if (h.tag != change_record_tag || h.sequence != sequence)
    damaged(at + ": its slot names another block");
  if (h.bytes > tail_base_ - off - sizeof h) damaged(at + " runs past the carved blocks");
  const std::byte* text = space_->checked(fptr<const void>(off + sizeof h), h.bytes);
  return {reinterpret_cast<const char*>(text), h.bytes};
}

void store_file::stage_record() {
  if (!ring_ || pending_.empty()) return;
  if (staged_.active && staged_.bytes == pending_.size()) return;  // written by a failed sync
  feed_ring r = ring();
  const std::uint64_t sequence = staged_.active ? staged_.sequence : r.sequence + 1;
  if (r.capacity == 0) {  // the ring keeps no records: the sequence alone advances
    r.sequence = sequence;
    std::memcpy(space_->get(ring_.cast<char>()), &r, sizeof r);
    space_->wrote(ring_, sizeof r);
    staged_ = {true, 0, 0, sequence, pending_.size()};
    return;
  }
  // The record this one pushes out, checked before the space changes.
  const std::uint64_t old = slot(r, sequence);
  const std::uint64_t old_bytes = !staged_.active && old != 0 ? record_bytes(old) : 0;
  const std::uint64_t bytes = pending_.size() + 2;
  const fptr<void> at = space_->allocate(sizeof(change_record) + bytes, alignof(change_record));
  auto* p = reinterpret_cast<unsigned char*>(space_->get(at.cast<char>()));
  const change_record h{change_record_tag, 0, sequence, bytes};
  std::memcpy(p, &h, sizeof h);
  p[sizeof h] = '[';
  std::memcpy(p + sizeof h + 1, pending_.data(), pending_.size());
  p[sizeof h + 1 + pending_.size()] = ']';
  space_->wrote(at, sizeof h + bytes);
  if (staged_.active) {
    // The record a failed sync() staged was never committed: freed now
    // (the record its slot held was retired then).
    if (staged_.record) {
      r.bytes -= staged_.record_bytes;
      space_->deallocate(fptr<void>(staged_.record));
    }
  } else if (old != 0) {
    r.bytes -= old_bytes;
    space_->retire(fptr<void>(old));  // falls out of the ring
  }
  auto* ring_p = reinterpret_cast<unsigned char*>(space_->get(ring_.cast<char>()));
  auto set_slot = [&](std::uint64_t s, std::uint64_t off) {
    const std::uint64_t at_slot = sizeof(feed_ring) + (s % r.capacity) * sizeof(std::uint64_t);
    std::memcpy(ring_p + at_slot, &off, sizeof off);
    space_->wrote(fptr<const void>(ring_.offset() + at_slot), sizeof off);
  };
  const std::uint64_t rec = at.offset();
  set_slot(sequence, rec);
  r.sequence = sequence;
  r.bytes += bytes;
  // The byte budget: the oldest records go while the text held passes it
  // (the newest stays, whatever its size), so a store of big edits keeps
  // fewer commits rather than a file many times its document.
  while (r.bytes > r.max_bytes && lowest_since(r) + 1 < sequence) {
    const std::uint64_t s = lowest_since(r) + 1;
    const std::uint64_t off = slot(r, s);
    r.bytes -= record_bytes(off);
    space_->retire(fptr<void>(off));
    set_slot(s, 0);
    r.first = s;
  }
  std::memcpy(ring_p, &r, sizeof r);
  space_->wrote(ring_, sizeof r);
  staged_ = {true, rec, bytes, sequence, pending_.size()};
}

std::uint64_t store_file::record_bytes(std::uint64_t off) const {
  change_record h;
  std::memcpy(&h, space_->checked(fptr<const void>(off), sizeof h), sizeof h);
  if (h.tag != change_record_tag) damaged("a change record's slot names another block");
  const std::uint64_t room = block_room(off);
  if (room < sizeof h || room - sizeof h < h.bytes) damaged("a change record runs past its block");
  return h.bytes;
}

void store_file::copy_feed(mapped_space& fresh, fptr<json_head> head) {
  if (!ring_) {  // an older format: the feed starts with this compaction
    fresh.get(head.cast<json_head_v5>())->feed.ring =
        new_ring(fresh, nullptr, default_feed_capacity).offset();
    fresh.wrote(head, sizeof(json_head_v5));
    return;
  }
  feed_ring r = ring();
  // A staged record is left out (its operations stay in pending_, for the
  // next sync()); the slot it took held the oldest record, gone with it.
  const std::uint64_t newest = committed_sequence(r);
  const std::uint64_t lowest = std::min(lowest_since(r), newest);
  const feed_ring from = r;
  r.sequence = newest;
  r.first = lowest;
  r.bytes = 0;
  for (std::uint64_t s = lowest + 1; s <= newest; ++s) r.bytes += record_text(from, s).size();
  const fptr<feed_ring> copy = new_ring(fresh, &r, r.capacity);
  for (std::uint64_t s = lowest + 1; s <= newest; ++s) {
    const std::string_view text = record_text(from, s);
    const fptr<void> at = fresh.allocate(sizeof(change_record) + text.size(), alignof(change_record));
    auto* p = reinterpret_cast<unsigned char*>(fresh.get(at.cast<char>()));
    const change_record h{change_record_tag, 0, s, text.size()};
    std::memcpy(p, &h, sizeof h);
    std::memcpy(p + sizeof h, text.data(), text.size());
    fresh.wrote(at, sizeof h + text.size());
    const std::uint64_t rec = at.offset();
    const std::uint64_t at_slot = sizeof(feed_ring) + (s % r.capacity) * sizeof(std::uint64_t);
    std::memcpy(reinterpret_cast<unsigned char*>(fresh.get(copy.cast<char>())) + at_slot, &rec,
                sizeof rec);
    fresh.wrote(fptr<const void>(copy.offset() + at_slot), sizeof rec);
  }
  fresh.get(head.cast<json_head_v5>())->feed.ring = copy.offset();
  fresh.wrote(head, sizeof(json_head_v5));
}

void store_file::keep_changes(std::uint32_t capacity, std::uint64_t max_bytes) {
  if (capacity > max_feed_capacity)
    throw std::invalid_argument("fl::json_store::keep_changes: " + std::to_string(capacity) +
                                " is more than " + std::to_string(max_feed_capacity));
  if (!ring_) no_feed("keep_changes");
  feed_ring r = ring();
  if (r.capacity == capacity) {
    r.max_bytes = max_bytes;  // applied by the next commit
    std::memcpy(space_->get(ring_.cast<char>()), &r, sizeof r);
    space_->wrote(ring_, sizeof r);
    return;
  }
  const std::uint64_t lowest = lowest_since(r);
  feed_ring like = r;
  like.first = std::max(lowest, r.sequence > capacity ? r.sequence - capacity : 0);
  like.max_bytes = max_bytes;
  like.bytes = 0;
  // Every record checked (the kept ones counted) before the space changes.
  for (std::uint64_t s = lowest + 1; s <= r.sequence; ++s) {
    const std::uint64_t b = record_bytes(slot(r, s));
    if (s > like.first) like.bytes += b;
  }
  const fptr<feed_ring> fresh = new_ring(*space_, &like, capacity);
  auto* slots = reinterpret_cast<unsigned char*>(space_->get(fresh.cast<char>())) + sizeof(feed_ring);
  for (std::uint64_t s = lowest + 1; s <= r.sequence; ++s) {
    const std::uint64_t rec = slot(r, s);
    if (s <= like.first) {
      // Falls out of the smaller ring (a staged record never does: it is
      // the newest).
      space_->retire(fptr<void>(rec));
    } else {
      std::memcpy(slots + (s % capacity) * sizeof rec, &rec, sizeof rec);
      space_->wrote(
          fptr<const void>(fresh.offset() + sizeof(feed_ring) + (s % capacity) * sizeof rec),
          sizeof rec);
    }
  }
  space_->retire(ring_.cast<void>());
  space_->get(head_.cast<json_head_v5>())->feed.ring = fresh.offset();
  space_->wrote(head_, sizeof(json_head_v5));
  ring_ = fresh;
}

}  // namespace json
}  // namespace detail

using detail::json::feed_ring;

std::uint64_t json_store::sequence() const {
  if (!file_->ring_) return 0;
  return file_->committed_sequence(file_->ring());
}

std::uint64_t json_store::history() const {
  if (!file_->ring_) return 0;
  return file_->ring().history;
}

std::uint64_t json_store::oldest_change() const {
  if (!file_->ring_) file_->no_feed("oldest_change");
  const feed_ring r = file_->ring();
  return std::min(detail::json::lowest_since(r), file_->committed_sequence(r));
}

std::vector<json_change> json_store::changes(std::uint64_t since, std::size_t max_count) const {
  detail::json::store_file& f = *file_;
  if (!f.ring_) f.no_feed("changes");
  const feed_ring r = f.ring();
  const std::uint64_t newest = f.committed_sequence(r);
  const std::uint64_t lowest = std::min(detail::json::lowest_since(r), newest);
  if (since > newest)
    throw persist_error(f.path_, "json_store::changes: sequence " + std::to_string(since) +
                                     " is past this store's newest (" + std::to_string(newest) +
                                     "): it belongs to another history");
  if (since < lowest)
    throw persist_error(
        f.path_, "json_store::changes: the records after sequence " + std::to_string(since) +
                     " are no longer held (the oldest sequence to follow from is " +
                     std::to_string(lowest) + "): start again from the document");
  std::vector<json_change> out;
  for (std::uint64_t s = since + 1; s <= newest && out.size() < max_count; ++s)
    out.push_back({s, fl::string(f.record_text(r, s))});
  return out;
}

void json_store::keep_changes(std::uint32_t commits, std::uint64_t max_bytes) {
  file_->refuse_read_only("keep_changes");
  file_->keep_changes(commits, max_bytes);
}

}  // namespace FL_ABI_NS
}  // namespace fl
