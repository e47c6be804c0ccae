// src/replica/link.cpp: fl::replica's calls into libnats (link.hpp).
#include "replica/link.hpp"

#include <nats/nats.h>

#include <vector>

namespace fl {
inline namespace FL_ABI_NS {
namespace replica {
namespace detail {

namespace {

// The asynchronous publish's error handler (a libnats thread): keeps the
// first failure for check_async().
void on_async_error(jsCtx*, jsPubAckErr* pae, void* closure) {
  auto* slot = static_cast<std::atomic<int>*>(closure);
  const fault f = pae->ErrCode == JSStreamWrongLastSequenceErr ? fault::fenced : fault::unknown;
  int none = 0;
  slot->compare_exchange_strong(none, 1 + static_cast<int>(f));
}

// The fence: the stream's last sequence must be `expect_last`. libnats reads
// ExpectLastSeq 0 as "no expectation", so an empty stream is expected as
// "no message on the subject" (the stream has that one subject).
jsPubOptions fenced_options(std::uint64_t expect_last, std::int64_t wait_ms) {
  jsPubOptions po;
  jsPubOptions_Init(&po);
  po.MaxWait = wait_ms;
  if (expect_last == 0) {
    po.ExpectNoMessage = true;
  } else {
    po.ExpectLastSeq = expect_last;
  }
  return po;
}

delivered take(natsMsg* msg, std::uint64_t stream_sequence) {
  const std::string_view body(natsMsg_GetData(msg), static_cast<std::size_t>(natsMsg_GetDataLength(msg)));
  auto rec = decode(body);
  natsMsg_Destroy(msg);
  if (!rec) {
    throw replica_error(fault::diverged, "fl::replica: stream sequence " + std::to_string(stream_sequence) +
                                             " holds a message that is not a record");
  }
  return {stream_sequence, std::move(*rec)};
}

bool not_found(natsStatus s, jsErrCode e) {
  return s == NATS_NOT_FOUND || e == JSNoMessageFoundErr || e == JSStreamNotFoundErr;
}

}  // namespace

link::link(const options& opts) : opts_(opts), subject_("fl.replica." + opts.stream) {
  std::vector<std::string> urls;
  for (std::size_t at = 0; at <= opts.servers.size();) {
    const auto comma = std::min(opts.servers.find(',', at), opts.servers.size());
    if (comma > at) urls.push_back(opts.servers.substr(at, comma - at));
    at = comma + 1;
  }
  std::vector<const char*> list;
  for (const auto& u : urls) list.push_back(u.c_str());
  natsOptions* no = nullptr;
  natsStatus s = natsOptions_Create(&no);
  if (s == NATS_OK) s = natsOptions_SetServers(no, list.data(), static_cast<int>(list.size()));
  if (s == NATS_OK) s = natsOptions_SetTimeout(no, opts.timeout.count());
  if (s == NATS_OK) s = natsOptions_SetMaxReconnect(no, -1);
  if (s == NATS_OK) s = natsOptions_SetReconnectWait(no, 100);
  if (s == NATS_OK) s = natsConnection_Connect(&nc_, no);
  natsOptions_Destroy(no);
  if (s != NATS_OK) fail(fault::connection, "cannot connect to " + opts.servers, s);
  jsOptions jo;
  jsOptions_Init(&jo);
  jo.Wait = opts.timeout.count();
  jo.PublishAsync.ErrHandler = on_async_error;
  jo.PublishAsync.ErrHandlerClosure = &async_fault_;
  s = natsConnection_JetStream(&js_, nc_, &jo);
  if (s != NATS_OK) {
    natsConnection_Destroy(nc_);
    fail(fault::connection, "no JetStream context", s);
  }
}

link::~link() {
  if (sub_) natsSubscription_Destroy(sub_);
  if (js_) {
    jsPubOptions po;
    jsPubOptions_Init(&po);
    po.MaxWait = opts_.timeout.count();
    js_PublishAsyncComplete(js_, &po);
    jsCtx_Destroy(js_);
  }
  if (nc_) natsConnection_Destroy(nc_);
}

void link::fail(fault f, const std::string& what, int status, int js_error) const {
  // The status alone often says only "Error" or "Timeout": the library's last
  // error for this thread and JetStream's code say which (a stream that needs
  // more servers than the cluster has, a leader not yet elected). The last
  // error is taken only when its status is this one: a failure the library
  // did not record would otherwise borrow an older failure's text.
  std::string why = natsStatus_GetText(static_cast<natsStatus>(status));
  natsStatus last = NATS_OK;
  const char* detail = nats_GetLastError(&last);
  if (last == static_cast<natsStatus>(status) && detail != nullptr && *detail != '\0' &&
      why != detail)
    why += std::string(" (") + detail + ")";
  if (js_error != 0) why += " [JetStream error " + std::to_string(js_error) + "]";
  throw replica_error(f, "fl::replica: stream " + opts_.stream + ": " + what + ": " + why);
}

void link::ensure_stream(int replicas) { ensure_stream(opts_.stream, subject_, replicas); }

void link::ensure_stream(const std::string& name, const std::string& subjects, int replicas) {
  jsStreamInfo* si = nullptr;
  jsErrCode e = static_cast<jsErrCode>(0);
  natsStatus s = js_GetStreamInfo(&si, js_, name.c_str(), nullptr, &e);
  if (s == NATS_OK) {
    jsStreamInfo_Destroy(si);
    return;
  }
  if (!not_found(s, e)) fail(fault::connection, "stream lookup of " + name, s, e);
  jsStreamConfig cfg;
  jsStreamConfig_Init(&cfg);
  const char* list[] = {subjects.c_str()};
  cfg.Name = name.c_str();
  cfg.Subjects = list;
  cfg.SubjectsLen = 1;
  cfg.Storage = js_FileStorage;
  cfg.Replicas = replicas;
  s = js_AddStream(&si, js_, &cfg, nullptr, &e);
  if (s == NATS_OK) {
    jsStreamInfo_Destroy(si);
  } else if (e != JSStreamNameExistErr) {
    fail(fault::connection, "cannot create the stream " + name, s, e);
  }
}

namespace {

link::stored take_stored(natsMsg* msg, std::uint64_t stream_sequence) {
  link::stored out{stream_sequence, natsMsg_GetSubject(msg),
                   std::string(natsMsg_GetData(msg), static_cast<std::size_t>(natsMsg_GetDataLength(msg)))};
  natsMsg_Destroy(msg);
  return out;
}

}  // namespace

std::uint64_t link::publish_plain(const std::string& subject, std::string_view body) {
  jsPubOptions po;
  jsPubOptions_Init(&po);
  po.MaxWait = opts_.timeout.count();
  jsPubAck* ack = nullptr;
  jsErrCode e = static_cast<jsErrCode>(0);
  const natsStatus s = js_Publish(&ack, js_, subject.c_str(), body.data(), static_cast<int>(body.size()), &po, &e);
  if (s != NATS_OK) fail(fault::unknown, "publish on " + subject + " not acknowledged", s, e);
  const std::uint64_t seq = ack->Sequence;
  jsPubAck_Destroy(ack);
  return seq;
}

std::optional<link::stored> link::last_on(const std::string& stream, const std::string& subject) {
  natsMsg* msg = nullptr;
  jsErrCode e = static_cast<jsErrCode>(0);
  const natsStatus s = js_GetLastMsg(&msg, js_, stream.c_str(), subject.c_str(), nullptr, &e);
  if (s != NATS_OK) {
    if (not_found(s, e)) return std::nullopt;
    fail(fault::connection, "reading the last message on " + subject, s, e);
  }
  return take_stored(msg, natsMsg_GetSequence(msg));
}

link::stored link::stored_at(const std::string& stream, std::uint64_t stream_sequence) {
  natsMsg* msg = nullptr;
  jsErrCode e = static_cast<jsErrCode>(0);
  const natsStatus s = js_GetMsg(&msg, js_, stream.c_str(), stream_sequence, nullptr, &e);
  if (s != NATS_OK) {
    fail(not_found(s, e) ? fault::gap : fault::connection,
         "reading " + stream + " sequence " + std::to_string(stream_sequence), s, e);
  }
  return take_stored(msg, stream_sequence);
}

void link::purge_before(const std::string& stream, std::uint64_t stream_sequence) {
  jsOptions o;
  jsOptions_Init(&o);
  o.Wait = opts_.timeout.count();
  o.Stream.Purge.Sequence = stream_sequence;
  jsErrCode e = static_cast<jsErrCode>(0);
  const natsStatus s = js_PurgeStream(js_, stream.c_str(), &o, &e);
  if (s != NATS_OK) fail(fault::connection, "purging " + stream, s, e);
}

std::optional<delivered> link::last_record() {
  natsMsg* msg = nullptr;
  jsErrCode e = static_cast<jsErrCode>(0);
  const natsStatus s = js_GetLastMsg(&msg, js_, opts_.stream.c_str(), subject_.c_str(), nullptr, &e);
  if (s != NATS_OK) {
    if (not_found(s, e)) return std::nullopt;
    fail(fault::connection, "reading the last record", s, e);
  }
  return take(msg, natsMsg_GetSequence(msg));
}

delivered link::record_at(std::uint64_t stream_sequence) {
  natsMsg* msg = nullptr;
  jsErrCode e = static_cast<jsErrCode>(0);
  const natsStatus s = js_GetMsg(&msg, js_, opts_.stream.c_str(), stream_sequence, nullptr, &e);
  if (s != NATS_OK) {
    fail(not_found(s, e) ? fault::gap : fault::connection,
         "reading stream sequence " + std::to_string(stream_sequence), s, e);
  }
  return take(msg, stream_sequence);
}

std::uint64_t link::publish(const std::string& body, std::uint64_t expect_last) {
  jsPubOptions po = fenced_options(expect_last, opts_.timeout.count());
  jsPubAck* ack = nullptr;
  jsErrCode e = static_cast<jsErrCode>(0);
  const natsStatus s =
      js_Publish(&ack, js_, subject_.c_str(), body.data(), static_cast<int>(body.size()), &po, &e);
  if (s != NATS_OK) {
    if (e == JSStreamWrongLastSequenceErr) {
      fail(fault::fenced, "the stream moved past sequence " + std::to_string(expect_last), s);
    }
    fail(fault::unknown, "publish not acknowledged", s, e);
  }
  const std::uint64_t seq = ack->Sequence;
  jsPubAck_Destroy(ack);
  return seq;
}

void link::publish_async(const std::string& body, std::uint64_t expect_last) {
  jsPubOptions po = fenced_options(expect_last, opts_.timeout.count());
  const natsStatus s =
      js_PublishAsync(js_, subject_.c_str(), body.data(), static_cast<int>(body.size()), &po);
  if (s != NATS_OK) fail(fault::unknown, "publish not sent", s);
}

void link::wait_async() {
  jsPubOptions po;
  jsPubOptions_Init(&po);
  po.MaxWait = opts_.timeout.count();
  const natsStatus s = js_PublishAsyncComplete(js_, &po);
  check_async();
  if (s != NATS_OK) fail(fault::unknown, "publishes not acknowledged", s);
}

void link::check_async() {
  const int f = async_fault_.exchange(0);
  if (f == 1 + static_cast<int>(fault::fenced)) {
    throw replica_error(fault::fenced, "fl::replica: stream " + opts_.stream +
                                           ": another primary moved the stream on (deposed)");
  }
  if (f != 0) {
    throw replica_error(fault::unknown, "fl::replica: stream " + opts_.stream +
                                            ": a background publish failed");
  }
}

void link::subscribe(std::uint64_t stream_sequence) {
  if (sub_) {
    natsSubscription_Destroy(sub_);
    sub_ = nullptr;
  }
  jsSubOptions so;
  jsSubOptions_Init(&so);
  so.Stream = opts_.stream.c_str();
  so.Ordered = true;
  so.Config.DeliverPolicy = js_DeliverByStartSequence;
  so.Config.OptStartSeq = stream_sequence;
  jsErrCode e = static_cast<jsErrCode>(0);
  const natsStatus s = js_SubscribeSync(&sub_, js_, subject_.c_str(), nullptr, &so, &e);
  if (s != NATS_OK) fail(fault::connection, "cannot subscribe", s, e);
}

std::optional<delivered> link::next(std::int64_t wait_ms) {
  natsMsg* msg = nullptr;
  const natsStatus s = natsSubscription_NextMsg(&msg, sub_, wait_ms);
  if (s == NATS_TIMEOUT) return std::nullopt;
  if (s != NATS_OK) fail(fault::connection, "receiving", s);
  jsMsgMetaData* meta = nullptr;
  if (natsMsg_GetMetaData(&meta, msg) != NATS_OK) {
    natsMsg_Destroy(msg);
    fail(fault::diverged, "a message without JetStream metadata", NATS_ERR);
  }
  const std::uint64_t seq = meta->Sequence.Stream;
  jsMsgMetaData_Destroy(meta);
  return take(msg, seq);
}

}  // namespace detail
}  // namespace replica
}  // namespace FL_ABI_NS
}  // namespace fl
