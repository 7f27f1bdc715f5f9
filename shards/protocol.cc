#include "shards/protocol.h"

#include <bit>
#include <cmath>

#include "common/byte_reader.h"
#include "common/coding.h"

namespace dps {

namespace {

// Writes the header once the payload is known.
class FrameWriter {
 public:
  FrameWriter(std::string* out, FrameType type) : out_(out), start_(out->size()) {
    PutFixed32(out_, 0);  // length, patched by the destructor
    out_->push_back(static_cast<char>(type));
  }
  ~FrameWriter() {
    const uint32_t len = static_cast<uint32_t>(out_->size() - start_ - 4);
    for (int i = 0; i < 4; ++i) (*out_)[start_ + i] = static_cast<char>((len >> (8 * i)) & 0xff);
  }
  std::string* out() { return out_; }

 private:
  std::string* out_;
  size_t start_;
};

// f64: the IEEE 754 bits as a u64, so a score crosses the wire bit for bit.
void PutF64(std::string* out, double v) { PutFixed64(out, std::bit_cast<uint64_t>(v)); }
double F64(ByteReader* r, const char* field) { return std::bit_cast<double>(r->U64(field)); }

void CheckMagic(ByteReader* r) {
  if (r->U32("magic") != kWireMagic && r->ok()) r->Fail("magic");
}

// Query node tag: bit 2 negated; the kind is bits 0-1 plus 4 x bit 3: 0
// term, 1 and, 2 or, 3 prefix, 4 phrase (its words as term children); 5 to
// 7 and bits 4-7 are invalid.
uint8_t KindTag(QueryNode::Kind kind) {
  switch (kind) {
    case QueryNode::Kind::kTerm: return 0;
    case QueryNode::Kind::kAnd: return 1;
    case QueryNode::Kind::kOr: return 2;
    case QueryNode::Kind::kPrefix: return 3;
    case QueryNode::Kind::kPhrase: return 8;
  }
  return 0;
}

void EncodeNode(const QueryNode& n, std::string* out) {
  out->push_back(static_cast<char>(KindTag(n.kind) | (n.negated ? 4 : 0)));
  if (n.kind == QueryNode::Kind::kTerm || n.kind == QueryNode::Kind::kPrefix) {
    PutLengthPrefixed(out, n.term);
    return;
  }
  PutVarint64(out, n.children.size());
  for (const auto& c : n.children) EncodeNode(c, out);
  if (n.kind == QueryNode::Kind::kPhrase) PutVarint64(out, n.slop);  // version 6
}

void DecodeNode(ByteReader* r, size_t depth, size_t* nodes, QueryNode* n) {
  if (!r->ok()) return;
  if (depth > kMaxQueryDepth) return r->Fail("query: nested deeper than 64");
  if (++*nodes > kMaxQueryNodes) return r->Fail("query: more than 4096 nodes");
  const uint8_t tag = r->U8("query node tag");
  if (!r->ok()) return;
  const unsigned kind = (tag & 3u) | ((tag >> 1) & 4u);
  if ((tag & ~15u) != 0 || kind > 4) return r->Fail("query node tag");
  n->negated = (tag & 4) != 0;
  if (kind == 0 || kind == 3) {
    const bool prefix = kind == 3;
    n->kind = prefix ? QueryNode::Kind::kPrefix : QueryNode::Kind::kTerm;
    n->term = r->String(prefix ? "query prefix" : "query term");
    if (r->ok() && n->term.empty()) r->Fail(prefix ? "query prefix: empty" : "query term: empty");
    return;
  }
  n->kind = kind == 1 ? QueryNode::Kind::kAnd : kind == 2 ? QueryNode::Kind::kOr : QueryNode::Kind::kPhrase;
  const uint64_t count = r->Varint("query child count");
  // Each child takes at least two bytes: a count beyond that is a lie.
  if (r->ok() && (count == 0 || count > r->remaining() / 2)) return r->Fail("query child count");
  n->children.resize(count);
  for (auto& c : n->children) DecodeNode(r, depth + 1, nodes, &c);
  if (n->kind == QueryNode::Kind::kPhrase) {
    const uint64_t slop = r->Varint("phrase slop");
    if (r->ok() && slop > kMaxPhraseSlop) return r->Fail("phrase slop");
    n->slop = static_cast<uint32_t>(slop);
  }
}

}  // namespace

bool KnownFrameType(uint8_t t) {
  switch (static_cast<FrameType>(t)) {
    case FrameType::kHello:
    case FrameType::kWelcome:
    case FrameType::kQuery:
    case FrameType::kCancel:
    case FrameType::kResults:
    case FrameType::kBinStats:
    case FrameType::kDone:
    case FrameType::kStarted:
      return true;
  }
  return false;
}

const char* FrameTypeName(FrameType t) {
  switch (t) {
    case FrameType::kHello: return "Hello";
    case FrameType::kWelcome: return "Welcome";
    case FrameType::kQuery: return "Query";
    case FrameType::kCancel: return "Cancel";
    case FrameType::kResults: return "Results";
    case FrameType::kBinStats: return "BinStats";
    case FrameType::kDone: return "Done";
    case FrameType::kStarted: return "Started";
  }
  return "unknown";
}

void EncodeHello(const Hello& m, std::string* out) {
  FrameWriter w(out, FrameType::kHello);
  PutFixed32(out, kWireMagic);
  PutFixed16(out, m.version);
  PutLengthPrefixed(out, m.token);
}

void EncodeWelcome(const Welcome& m, std::string* out) {
  FrameWriter w(out, FrameType::kWelcome);
  PutFixed32(out, kWireMagic);
  PutFixed16(out, m.version);
  PutLengthPrefixed(out, m.index_id);
  PutFixed64(out, m.generation);
  PutFixed32(out, m.bins);
  PutFixed32(out, m.tablets);
  PutFixed32(out, m.first_tablet);
  PutFixed32(out, m.last_tablet);
  PutLengthPrefixed(out, m.analyzer.ToString());
  PutVarint32(out, static_cast<uint32_t>(m.fields.names().size()));
  for (const auto& name : m.fields.names()) PutLengthPrefixed(out, name);
}

void EncodeQuery(const QueryRequest& m, std::string* out) {
  FrameWriter w(out, FrameType::kQuery);
  PutFixed64(out, m.request_id);
  const bool ranked = m.top_k > 0;
  out->push_back(static_cast<char>((m.count_only ? 1 : 0) | (m.limit_per_bin ? 2 : 0) | (m.snippets ? 4 : 0) |
                                   (ranked ? 8 : 0) | (m.tied ? 16 : 0) | (m.generation ? 32 : 0)));
  PutVarint64(out, m.limit);
  PutFixed32(out, m.deadline_ms);
  PutFixed32(out, m.first_tablet);
  PutFixed32(out, m.last_tablet);
  if (ranked) {
    PutVarint64(out, m.top_k);
    PutF64(out, m.bm25.k1);
    PutF64(out, m.bm25.b);
  }
  PutVarint64(out, m.max_expansions);
  if (m.generation) PutVarint64(out, *m.generation);
  EncodeNode(m.root, out);
}

void EncodeCancel(const Cancel& m, std::string* out) {
  FrameWriter w(out, FrameType::kCancel);
  PutFixed64(out, m.request_id);
}

void EncodeStarted(const Started& m, std::string* out) {
  FrameWriter w(out, FrameType::kStarted);
  PutFixed64(out, m.request_id);
}

void EncodeResults(const ResultBatch& m, std::string* out) {
  FrameWriter w(out, FrameType::kResults);
  PutFixed64(out, m.request_id);
  PutFixed32(out, m.bin);
  PutFixed32(out, m.tablet);
  out->push_back(static_cast<char>((m.snippets ? 1 : 0) | (m.scored ? 2 : 0)));
  PutVarint64(out, m.docs.size());
  DocId prev = 0;
  for (size_t i = 0; i < m.docs.size(); ++i) {
    // Rank order is not docid order: scored docs carry whole docids.
    PutVarint64(out, i == 0 || m.scored ? m.docs[i].docid : m.docs[i].docid - prev);
    prev = m.docs[i].docid;
    if (m.scored) PutF64(out, m.docs[i].score);
    PutLengthPrefixed(out, m.docs[i].id);
    PutLengthPrefixed(out, m.docs[i].title);
    if (m.snippets) PutLengthPrefixed(out, m.docs[i].snippet);
  }
}

void EncodeBinStats(const BinStats& m, std::string* out) {
  FrameWriter w(out, FrameType::kBinStats);
  PutFixed64(out, m.request_id);
  PutFixed32(out, m.bin);
  PutFixed32(out, m.tablet);
  PutVarint64(out, m.results);
  PutFixed32(out, m.queue_wait_us);
  PutFixed32(out, m.service_us);
  PutVarint64(out, m.bytes);
  out->push_back(static_cast<char>((m.cancelled ? 1 : 0) | (m.fast_path ? 2 : 0) | (m.truncated ? 4 : 0) |
                                      (m.tablet_complete ? 8 : 0)));
}

void EncodeDone(const Done& m, std::string* out) {
  FrameWriter w(out, FrameType::kDone);
  PutFixed64(out, m.request_id);
  out->push_back(static_cast<char>(m.code));
  PutLengthPrefixed(out, m.message);
  PutVarint64(out, m.generation);
}

Status DecodeFrameHeader(const uint8_t header[kFrameHeaderSize], uint32_t* payload_len,
                         FrameType* type) {
  const uint32_t len = DecodeFixed32(header);
  if (len == 0 || len > kMaxFrameSize) {
    return Status::InvalidArgument("frame length " + std::to_string(len) + " outside 1.." +
                                   std::to_string(kMaxFrameSize));
  }
  if (!KnownFrameType(header[4])) {
    return Status::InvalidArgument("unknown frame type " + std::to_string(header[4]));
  }
  *payload_len = len - 1;
  *type = static_cast<FrameType>(header[4]);
  return Status::OK();
}

Status DecodeHello(std::string_view payload, Hello* m) {
  ByteReader r(payload, "Hello frame");
  CheckMagic(&r);
  m->version = r.U16("version");
  m->token = r.String("token");
  return r.Finish();
}

Status DecodeWelcome(std::string_view payload, Welcome* m) {
  ByteReader r(payload, "Welcome frame");
  CheckMagic(&r);
  m->version = r.U16("version");
  m->index_id = r.String("index id");
  m->generation = r.U64("generation");
  m->bins = r.U32("bins");
  m->tablets = r.U32("tablets");
  m->first_tablet = r.U32("first tablet");
  m->last_tablet = r.U32("last tablet");
  if (r.ok() && (m->first_tablet > m->last_tablet || m->last_tablet >= m->tablets)) {
    r.Fail("tablet range");
  }
  const std::string analyzer = r.String("analyzer");
  if (r.ok()) {
    auto spec = AnalyzerSpec::Parse(analyzer);
    if (spec.ok()) {
      m->analyzer = std::move(spec).value();
    } else {
      r.Fail("analyzer");
    }
  }
  const uint64_t count = r.Varint("field count");
  if (r.ok() && count > kMaxFields) r.Fail("field count");
  std::vector<std::string> names;
  for (uint64_t i = 0; r.ok() && i < count; ++i) names.push_back(r.String("field name"));
  if (r.ok()) {
    if (FieldSet::Validate(names).ok()) {
      m->fields = FieldSet(std::move(names));
    } else {
      r.Fail("fields");
    }
  }
  return r.Finish();
}

Status DecodeQuery(std::string_view payload, QueryRequest* m) {
  ByteReader r(payload, "Query frame");
  m->request_id = r.U64("request id");
  const uint8_t flags = r.U8("flags");
  if (r.ok() && (flags & ~63u) != 0) r.Fail("flags");
  m->count_only = (flags & 1) != 0;
  m->limit_per_bin = (flags & 2) != 0;
  m->snippets = (flags & 4) != 0;
  const bool ranked = (flags & 8) != 0;
  m->tied = (flags & 16) != 0;
  // A ranked query delivers its K best: counting, a limit or paging by bin
  // would not mean what they say.
  if (r.ok() && ranked && (flags & 3) != 0) r.Fail("flags: ranked with count only or limit per bin");
  m->limit = r.Varint("limit");
  if (r.ok() && ranked && m->limit != 0) r.Fail("limit: not with a ranked query");
  m->deadline_ms = r.U32("deadline");
  m->first_tablet = r.U32("first tablet");
  m->last_tablet = r.U32("last tablet");
  if (r.ok() && m->first_tablet > m->last_tablet) r.Fail("tablet range");
  m->top_k = 0;
  m->bm25 = Bm25Params();
  if (ranked) {
    m->top_k = r.Varint("top k");
    if (r.ok() && m->top_k == 0) r.Fail("top k: 0");
    m->bm25.k1 = F64(&r, "bm25 k1");
    m->bm25.b = F64(&r, "bm25 b");
    // The CLI's own checks (!(x >= 0) also refuses NaN).
    if (r.ok() && (!(m->bm25.k1 >= 0) || !std::isfinite(m->bm25.k1))) r.Fail("bm25 k1: not a finite number >= 0");
    if (r.ok() && !(m->bm25.b >= 0 && m->bm25.b <= 1)) r.Fail("bm25 b: outside 0..1");
  }
  m->max_expansions = r.Varint("max expansions");
  if (r.ok() && (m->max_expansions == 0 || m->max_expansions > kMaxMaxExpansions)) {
    r.Fail("max expansions: outside 1..10000000");
  }
  m->generation.reset();
  if (flags & 32) m->generation = r.Varint("generation");
  size_t nodes = 0;
  m->root = QueryNode();
  DecodeNode(&r, 0, &nodes, &m->root);
  return r.Finish();
}

Status DecodeCancel(std::string_view payload, Cancel* m) {
  ByteReader r(payload, "Cancel frame");
  m->request_id = r.U64("request id");
  return r.Finish();
}

Status DecodeStarted(std::string_view payload, Started* m) {
  ByteReader r(payload, "Started frame");
  m->request_id = r.U64("request id");
  return r.Finish();
}

namespace {
constexpr uint64_t kDocsReservedAhead = 1024;
}  // namespace

Status DecodeResults(std::string_view payload, ResultBatch* m) {
  ByteReader r(payload, "Results frame");
  m->request_id = r.U64("request id");
  m->bin = r.U32("bin");
  m->tablet = r.U32("tablet");
  const uint8_t flags = r.U8("flags");
  if (r.ok() && (flags & ~3u) != 0) r.Fail("flags");
  m->snippets = (flags & 1) != 0;
  m->scored = (flags & 2) != 0;
  const uint64_t n = r.Varint("doc count");
  // Each doc takes at least three bytes (four with a snippet, eight more
  // with a score): a count the payload cannot hold is refused before
  // anything is allocated.
  if (r.ok() && n > r.remaining() / ((m->snippets ? 4 : 3) + (m->scored ? 8 : 0))) r.Fail("doc count");
  m->docs.clear();
  if (!r.ok()) return r.Finish();
  // Grown as docs decode (a doc is ~100 bytes in memory against 3 on the
  // wire): a hostile count costs no more than the frame's real docs.
  m->docs.reserve(std::min<uint64_t>(n, kDocsReservedAhead));
  uint64_t prev = 0;
  double prev_score = 0;
  for (size_t i = 0; i < n && r.ok(); ++i) {
    const uint64_t delta = r.Varint("docid");
    if (r.ok() && !m->scored && i > 0 && delta == 0) r.Fail("docid: not ascending");
    const uint64_t d = i == 0 || m->scored ? delta : prev + delta;
    if (r.ok() && d > kMaxDocId) r.Fail("docid: out of range");
    RemoteDoc& doc = m->docs.emplace_back();
    doc.docid = static_cast<DocId>(d);
    if (m->scored) {
      // The client merges lists it trusts to be best first: a score that
      // is no number, or a doc ranking before its predecessor, is refused.
      doc.score = F64(&r, "score");
      if (r.ok() && std::isnan(doc.score)) r.Fail("score: not a number");
      if (r.ok() && i > 0 && !(doc.score < prev_score || (doc.score == prev_score && d > prev))) {
        r.Fail("docs: not in rank order");
      }
      prev_score = doc.score;
    }
    prev = d;
    doc.id = r.String("id");
    doc.title = r.String("title");
    if (m->snippets) doc.snippet = r.String("snippet");
  }
  if (!r.ok()) m->docs.clear();
  return r.Finish();
}

Status DecodeBinStats(std::string_view payload, BinStats* m) {
  ByteReader r(payload, "BinStats frame");
  m->request_id = r.U64("request id");
  m->bin = r.U32("bin");
  m->tablet = r.U32("tablet");
  m->results = r.Varint("results");
  m->queue_wait_us = r.U32("queue wait");
  m->service_us = r.U32("service time");
  m->bytes = r.Varint("bytes");
  const uint8_t flags = r.U8("flags");
  if (r.ok() && (flags & ~15u) != 0) r.Fail("flags");
  m->cancelled = (flags & 1) != 0;
  m->fast_path = (flags & 2) != 0;
  m->truncated = (flags & 4) != 0;
  m->tablet_complete = (flags & 8) != 0;
  return r.Finish();
}

Status DecodeDone(std::string_view payload, Done* m) {
  ByteReader r(payload, "Done frame");
  m->request_id = r.U64("request id");
  const uint8_t code = r.U8("code");
  if (r.ok() && code > static_cast<uint8_t>(DoneCode::kNotAtGeneration)) r.Fail("code");
  m->code = static_cast<DoneCode>(code);
  m->message = r.String("message");
  m->generation = r.Varint("generation");
  return r.Finish();
}

}  // namespace dps
