// The shard servers' wire protocol (version kWireVersion): length-prefixed binary
// frames over TCP. Every byte is documented in docs/PROTOCOL.md. This file
// only encodes and decodes frames (no sockets), so the server, the cluster
// client, tests and fuzzers share one implementation.
//
// Frame: `length (u32) | type (u8) | payload`, length counting type and
// payload, at most kMaxFrameSize. Decoders reject truncated, overlong or
// inconsistent payloads with InvalidArgument naming the field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "index/analyzer_spec.h"
#include "index/field_key.h"
#include "index/bm25.h"
#include "index/prefix_expansion.h"
#include "index/query_node.h"
#include "index/types.h"

namespace dps {

inline constexpr uint32_t kWireMagic = 0x57535044;  // bytes "DPSW"
inline constexpr uint16_t kWireVersion = 8;
inline constexpr uint32_t kMaxFrameSize = 16u << 20;
inline constexpr size_t kFrameHeaderSize = 5;
// A token file's secret is at most this long, so a Hello frame (length
// field) is at most kMaxHelloFrame: all a server accepts before the
// handshake is done.
inline constexpr size_t kMaxTokenBytes = 1024;
inline constexpr size_t kMaxHelloFrame = 2048;
// Query trees deeper or larger than this are refused (a hostile peer must
// not make the decoder recurse without bound).
inline constexpr size_t kMaxQueryDepth = 64;
inline constexpr size_t kMaxQueryNodes = 4096;

enum class FrameType : uint8_t {
  kHello = 0x01,    // client -> server, first frame
  kWelcome = 0x02,  // server -> client, answer to Hello
  kQuery = 0x10,    // client -> server
  kCancel = 0x11,   // client -> server
  kResults = 0x20,  // server -> client: matches of one bin (maybe several frames)
  kBinStats = 0x21, // server -> client: a bin is complete
  kDone = 0x22,     // server -> client: the request is complete
  kStarted = 0x23,  // server -> client: a tied request is under way (version 7)
};

// Whether `type` is one of the types above.
bool KnownFrameType(uint8_t type);
const char* FrameTypeName(FrameType type);

struct Hello {
  uint16_t version = kWireVersion;
  std::string token;  // the shared secret, empty when the server needs none
};

struct Welcome {
  uint16_t version = kWireVersion;
  std::string index_id;     // MANIFEST's index-id
  uint64_t generation = 0;  // MANIFEST's generation
  uint32_t bins = 0;
  uint32_t tablets = 0;     // tablets of the whole index
  uint32_t first_tablet = 0, last_tablet = 0;  // the ones this server hosts
  // MANIFEST's analyzer: the client analyzes queries with it (version 5).
  AnalyzerSpec analyzer;
  // MANIFEST's fields, title first: the client's parser reads NAME:word
  // for these (version 6).
  FieldSet fields;
};

struct QueryRequest {
  uint64_t request_id = 0;
  bool count_only = false;
  uint64_t limit = 0;        // 0: all
  // The limit holds for each bin on its own (paging: every bin's first
  // `limit`), not for the request's bins together.
  bool limit_per_bin = false;
  bool snippets = false;     // Results carry each document's marked snippet
  uint32_t deadline_ms = 0;  // 0: none; relative to the server's receipt
  uint32_t first_tablet = 0, last_tablet = 0;  // which hosted tablets to search
  // Ranked (top_k > 0; version 4): each bin answers its top_k best by BM25
  // with these parameters, best first, with scores. The client asks for
  // the user's K plus the offset: any bin's K + offset best may be needed.
  // Not with count_only, limit or limit_per_bin.
  uint64_t top_k = 0;
  Bm25Params bm25;
  // Version 5: the most terms the tree's prefixes may expand to (1 to
  // kMaxMaxExpansions);
  // the server refuses the request past it (Done code 1, with the count).
  uint64_t max_expansions = kDefaultMaxExpansions;
  QueryNode root;  // may hold prefixes: the server expands them (version 5)
  // Version 7: one of a tied pair (Dean and Barroso's tied requests): the
  // server sends Started when the request is under way, so that the
  // client can cancel its twin on the other replica.
  bool tied = false;
  // Version 8: answer at exactly this generation of the index (the
  // server's current one or the one before it, still open), else Done
  // kNotAtGeneration; absent, the server's current generation answers.
  // `--consistent` sends it.
  std::optional<uint64_t> generation;
};

struct Cancel {
  uint64_t request_id = 0;
};

// A tied request's first bin has begun and none of its bins is held back
// any more (docs/PROTOCOL.md): the twin may be cancelled.
struct Started {
  uint64_t request_id = 0;
};

struct RemoteDoc {
  DocId docid = 0;
  std::string id;
  std::string title;
  std::string snippet;  // marked (shards/snippet.h); empty unless the query asked
  double score = 0;     // ranked answers only (ResultBatch::scored)
};

struct ResultBatch {
  uint64_t request_id = 0;
  uint32_t bin = 0;
  uint32_t tablet = 0;
  bool snippets = false;        // every doc carries a snippet
  std::vector<RemoteDoc> docs;  // ascending docids, or in rank order when scored
  // Every doc carries its score and docs are in rank order (score
  // descending, then docid ascending: RanksBefore within one bin). Version 4.
  bool scored = false;
};

struct BinStats {
  uint64_t request_id = 0;
  uint32_t bin = 0;
  uint32_t tablet = 0;
  uint64_t results = 0;  // matches in the bin (counted even when count_only)
  uint32_t queue_wait_us = 0;
  uint32_t service_us = 0;
  uint64_t bytes = 0;    // result bytes the server sent for this bin
  bool cancelled = false;  // stopped by cancel, deadline or shutdown: results incomplete, not an answer
  bool fast_path = false;  // evaluated by the intersection kernel, not the iterator tree
  bool truncated = false;  // cut by the request's limit: valid, but not every match
  // This request's last bin of `tablet`, and none of its bins was cancelled:
  // the client has the tablet's whole answer (a hedge need not ask for it).
  bool tablet_complete = false;
};

// Never renumbered. kNotAtGeneration (version 8): the Query asked for a
// generation the server has not open (not yet, or no longer).
enum class DoneCode : uint8_t {
  kOk = 0,
  kInvalidQuery = 1,
  kIndexError = 2,
  kCancelled = 3,
  kDeadline = 4,
  kNotAtGeneration = 5,
};

struct Done {
  uint64_t request_id = 0;
  DoneCode code = DoneCode::kOk;
  std::string message;
  // Version 8: the index generation that answered (every bin of a request
  // is answered by one generation); with kNotAtGeneration, the server's
  // newest.
  uint64_t generation = 0;
};

// Appends a whole frame (header and payload) to *out.
void EncodeHello(const Hello& m, std::string* out);
void EncodeWelcome(const Welcome& m, std::string* out);
void EncodeQuery(const QueryRequest& m, std::string* out);
void EncodeCancel(const Cancel& m, std::string* out);
void EncodeStarted(const Started& m, std::string* out);
void EncodeResults(const ResultBatch& m, std::string* out);
void EncodeBinStats(const BinStats& m, std::string* out);
void EncodeDone(const Done& m, std::string* out);

// Parses a frame header: the payload length (type excluded) and type.
// InvalidArgument when the length is 0 or above kMaxFrameSize, or the type
// is unknown.
Status DecodeFrameHeader(const uint8_t header[kFrameHeaderSize], uint32_t* payload_len,
                         FrameType* type);

// Decode a payload (the bytes after the header). The whole payload must be
// consumed.
Status DecodeHello(std::string_view payload, Hello* m);
Status DecodeWelcome(std::string_view payload, Welcome* m);
Status DecodeQuery(std::string_view payload, QueryRequest* m);
Status DecodeCancel(std::string_view payload, Cancel* m);
Status DecodeStarted(std::string_view payload, Started* m);
Status DecodeResults(std::string_view payload, ResultBatch* m);
Status DecodeBinStats(std::string_view payload, BinStats* m);
Status DecodeDone(std::string_view payload, Done* m);

}  // namespace dps
