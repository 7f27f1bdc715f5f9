// libFuzzer target for every frame of the wire protocol (docs/PROTOCOL.md,
// shards/protocol.h), both sides: what a server decodes (the frame header,
// Hello, Query, whose tree it then validates, and Cancel) and what a client
// decodes (Welcome, Results, BinStats, Done and Started, as the cluster
// link's DecodeLinkEvent calls them). Arbitrary bytes must decode or be
// refused with InvalidArgument, never crash or read out of bounds. Round
// trip: a message that decodes encodes to a frame whose header says its
// length and type, whose payload decodes again and encodes to the same
// bytes (decode(encode(m)) == m). Input: selector (u8; bits 0-2: the frame type,
// in the order of the table in PROTOCOL.md; bit 3: the rest is a whole
// frame, header included) | the payload or frame. Seeds in
// tests/fuzz/corpus/protocol_fuzz/ are frames of each type our encoders
// wrote (tests/fuzz/make_seeds.cc).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "index/query_node.h"
#include "shards/protocol.h"

namespace {

using dps::FrameType;

constexpr FrameType kTypes[8] = {FrameType::kHello,   FrameType::kWelcome,  FrameType::kQuery,
                                 FrameType::kCancel,  FrameType::kResults,  FrameType::kBinStats,
                                 FrameType::kDone,    FrameType::kStarted};

// Decodes `payload` as M; on success, checks the round trip and returns true.
template <typename M>
bool RoundTrip(std::string_view payload, FrameType type, dps::Status (*decode)(std::string_view, M*),
               void (*encode)(const M&, std::string*), M* m) {
  const dps::Status s = decode(payload, m);
  if (!s.ok()) {
    if (!s.IsInvalidArgument()) abort();
    return false;
  }
  std::string frame;
  encode(*m, &frame);
  uint32_t len = 0;
  FrameType got;
  if (frame.size() < dps::kFrameHeaderSize ||
      !dps::DecodeFrameHeader(reinterpret_cast<const uint8_t*>(frame.data()), &len, &got).ok() ||
      got != type || len != frame.size() - dps::kFrameHeaderSize) {
    abort();
  }
  M again;
  std::string frame2;
  if (!decode(std::string_view(frame).substr(dps::kFrameHeaderSize), &again).ok()) abort();
  encode(again, &frame2);
  if (frame2 != frame) abort();
  return true;
}

void Decode(FrameType type, std::string_view payload) {
  switch (type) {
    case FrameType::kHello: {
      dps::Hello m;
      RoundTrip(payload, type, dps::DecodeHello, dps::EncodeHello, &m);
      break;
    }
    case FrameType::kWelcome: {
      dps::Welcome m;
      if (RoundTrip(payload, type, dps::DecodeWelcome, dps::EncodeWelcome, &m) &&
          (m.first_tablet > m.last_tablet || m.last_tablet >= m.tablets || !m.analyzer.Validate().ok() ||
           !dps::FieldSet::Validate(m.fields.names()).ok())) {
        abort();  // PROTOCOL.md: a Welcome no index can send fails the decoding
      }
      break;
    }
    case FrameType::kQuery: {
      dps::QueryRequest m;
      if (RoundTrip(payload, type, dps::DecodeQuery, dps::EncodeQuery, &m)) {
        const dps::Status valid = dps::ValidateQuery(m.root);  // as the server does next
        if (!valid.ok() && !valid.IsInvalidArgument()) abort();
        (void)m.root.ToString();
      }
      break;
    }
    case FrameType::kCancel: {
      dps::Cancel m;
      RoundTrip(payload, type, dps::DecodeCancel, dps::EncodeCancel, &m);
      break;
    }
    case FrameType::kResults: {
      dps::ResultBatch m;
      RoundTrip(payload, type, dps::DecodeResults, dps::EncodeResults, &m);
      break;
    }
    case FrameType::kBinStats: {
      dps::BinStats m;
      RoundTrip(payload, type, dps::DecodeBinStats, dps::EncodeBinStats, &m);
      break;
    }
    case FrameType::kDone: {
      dps::Done m;
      RoundTrip(payload, type, dps::DecodeDone, dps::EncodeDone, &m);
      break;
    }
    case FrameType::kStarted: {
      dps::Started m;
      RoundTrip(payload, type, dps::DecodeStarted, dps::EncodeStarted, &m);
      break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);  // its own allocation
  FrameType type = kTypes[data[0] & 7];
  std::string_view payload = bytes;
  if (data[0] & 8) {
    // A whole frame, as a connection reads it: the header first.
    if (payload.size() < dps::kFrameHeaderSize) return 0;
    uint32_t len = 0;
    const dps::Status s = dps::DecodeFrameHeader(reinterpret_cast<const uint8_t*>(payload.data()), &len, &type);
    if (!s.ok()) {
      if (!s.IsInvalidArgument()) abort();
      return 0;
    }
    if (!dps::KnownFrameType(static_cast<uint8_t>(type)) || len > dps::kMaxFrameSize) abort();
    payload.remove_prefix(dps::kFrameHeaderSize);
    if (payload.size() < len) return 0;  // the rest has not arrived
    payload = payload.substr(0, len);
  }
  Decode(type, payload);
  return 0;
}
