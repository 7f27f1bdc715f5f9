// A shard server whose disk fails a read (issue 21): the request is
// answered with an error Done frame (kIndexError) naming the file and the
// offset, never with a wrong or silently short answer, and the server goes
// on serving: the next request on the same connection, and a cluster
// client's next query, are answered right.
#include <cstring>
#include <string>

#include "common/fault_injection.h"
#include "tests/server/cluster_fixture.h"

namespace dps {
namespace {

using namespace cluster_testing;

// Frames of request `id` up to its Done: the ids it sent, and the Done.
Done ReadAnswer(RawClient* raw, uint64_t id, std::set<std::string>* ids) {
  FrameType type{};
  std::string payload;
  while (raw->ReadFrame(&type, &payload)) {
    if (type == FrameType::kResults) {
      ResultBatch batch;
      EXPECT_TRUE(DecodeResults(payload, &batch).ok());
      EXPECT_EQ(batch.request_id, id);
      for (const auto& d : batch.docs) ids->insert(d.id);
    } else if (type == FrameType::kDone) {
      Done done;
      EXPECT_TRUE(DecodeDone(payload, &done).ok());
      EXPECT_EQ(done.request_id, id);
      return done;
    }
  }
  ADD_FAILURE() << "no Done for request " << id;
  return Done{};
}

struct Disarmed {
  ~Disarmed() { faults::Disarm(); }
};

TEST(ServerFaults, AReadErrorIsAnErrorFrameAndTheServerGoesOnServing) {
  Fixture f(71);
  Disarmed guard;
  auto server = f.Serve(0, 3);
  RawClient raw(server->port());
  raw.Send(HelloFrame());
  FrameType type{};
  std::string payload;
  ASSERT_TRUE(raw.ReadFrame(&type, &payload));
  ASSERT_EQ(type, FrameType::kWelcome);

  faults::Rule bad;
  bad.op = faults::Op::kRead;
  bad.path = ".tab";
  faults::Arm(bad);
  const QueryNode q = QueryNode::Term(testing::VocabTerm(0));
  raw.Send(QueryFrame(1, 3, q));
  std::set<std::string> ids;
  const Done failed = ReadAnswer(&raw, 1, &ids);
  EXPECT_GT(faults::Failures(), 0u);
  faults::Disarm();
  EXPECT_EQ(failed.code, DoneCode::kIndexError);
  EXPECT_EQ(failed.message.rfind(f.dir.path() + "/", 0), 0u) << failed.message;
  EXPECT_NE(failed.message.find(".tab: read at offset "), std::string::npos) << failed.message;
  EXPECT_NE(failed.message.find(std::strerror(EIO)), std::string::npos) << failed.message;

  raw.Send(QueryFrame(2, 3, q));  // the same connection, the disk back
  ids.clear();
  const Done answered = ReadAnswer(&raw, 2, &ids);
  EXPECT_EQ(answered.code, DoneCode::kOk) << answered.message;
  EXPECT_EQ(ids, f.Want(q));
}

// Over a cluster, a range whose only replica failed is a flagged partial
// answer (exit 4 on the command line) naming the range, the server's words
// logged; never a short answer passed off as whole.
TEST(ServerFaults, AClusterClientGetsAFlaggedPartialAnswerThenTheRightOne) {
  Fixture f(72);
  Disarmed guard;
  auto server = f.Serve(0, 3);
  std::vector<std::string> logged;
  ClusterOptions o;
  o.log = [&logged](const std::string& line) { logged.push_back(line); };
  auto client = Client({{0, 3, {Addr(server->port())}}}, o);
  ASSERT_NE(client, nullptr);
  const QueryNode q = QueryNode::And({QueryNode::Term(testing::VocabTerm(1)), QueryNode::Term(testing::VocabTerm(2))});
  faults::Rule bad;
  bad.op = faults::Op::kRead;
  bad.path = ".tab";
  faults::Arm(bad);
  const Answer failed = Ask(client.get(), q);
  faults::Disarm();
  ASSERT_TRUE(failed.status.ok()) << failed.status.ToString();
  EXPECT_TRUE(failed.stats.partial);
  EXPECT_EQ(failed.stats.missing, std::vector<std::string>{"0-3"});
  EXPECT_EQ(failed.ids, std::set<std::string>());
  bool named = false;
  for (const auto& line : logged) named |= line.find(".tab: read at offset ") != std::string::npos;
  EXPECT_TRUE(named) << "the server's error was not logged";
  const Answer answered = Ask(client.get(), q);
  ASSERT_TRUE(answered.status.ok()) << answered.status.ToString();
  EXPECT_FALSE(answered.stats.partial);
  EXPECT_EQ(answered.ids, f.Want(q));
}

}  // namespace
}  // namespace dps
