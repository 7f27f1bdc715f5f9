// Fault injection in the file layer (leveldb's fault_injection_test seam):
// tests make writes fail with ENOSPC as a full disk does, fsyncs fail with
// EIO as a failing device does, and reads fail, so that every commit path
// can be shown to fail cleanly (an error naming the file, the index at its
// previous generation) and never to report a failure as success.
//
// It exists because real disks rarely fail on demand: a small tmpfs gives
// ENOSPC, but nothing gives a failed fsync or a read error. Every write,
// fsync, rename and read of common/file goes through the hooks below;
// readers of memory-mapped files call MappedFile::CheckRead where they
// check a range, the place a read of a mapped page would fail.
//
// Armed by tests (Arm) or, in any build, by the DPS_FAULTS environment
// variable (ArmFromSpec, read by `dpsearch` at start; README "Testing
// failures"). A rule only ever makes a call fail: it cannot change data.
// Unarmed, a hook costs one relaxed atomic load.
//
// Thread-safety: every function may be called from any thread; rules and
// counters are guarded by one mutex, taken only while armed.
#pragma once

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "common/status.h"

namespace dps::faults {

// What a hooked call does. Never renumbered: test names print them.
enum class Op : uint8_t {
  kWrite = 0,    // write(2)/pwrite(2) of a file's bytes
  kSync = 1,     // fsync(2) of a file
  kSyncDir = 2,  // fsync(2) of a directory (renames and creations in it)
  kRename = 3,   // rename(2) of the atomic-replace protocol
  kRead = 4,     // read(2)/pread(2), or a range of a mapped file
};
inline constexpr size_t kOps = 5;
const char* OpName(Op op);

inline constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

struct Rule {
  Op op = Op::kWrite;
  // A substring of the path the rule applies to; empty: every path.
  std::string path;
  // The first `skip` matching calls succeed: a test failing "the Nth
  // write" loops over skip = 0 .. writes - 1.
  uint64_t skip = 0;
  // kWrite: bytes of matching writes that succeed before the disk is
  // full. The write that crosses it is cut short (as write(2) on a full
  // disk is) and the next one fails. kNever: no byte limit.
  uint64_t bytes = kNever;
  // kRead: only reads whose range holds this byte. kNever: any read.
  uint64_t offset = kNever;
  // Failures before the rule is spent; kNever: a full disk stays full.
  uint64_t times = kNever;
  // The errno the failing call reports (ENOSPC for writes by default).
  int error = 0;  // 0: ENOSPC for kWrite, EIO otherwise
};

namespace detail {
extern std::atomic<bool> armed;
}

// True when any rule is armed or counting is on.
inline bool Armed() { return detail::armed.load(std::memory_order_relaxed); }

// Adds a rule (and turns counting on).
void Arm(Rule rule);
// Counts hooked calls without failing any (how many writes a commit makes).
void Count();
// Removes every rule, stops counting and zeroes the counters.
void Disarm();
// Hooked calls of `op` seen since Arm/Count, and calls made to fail.
uint64_t Calls(Op op);
uint64_t Failures();

// Rules from text, ';'-separated: `OP[,KEY=VALUE]...` with OP write, sync,
// syncdir, rename or read and KEY path, skip, bytes, offset, times or
// errno (ENOSPC, EIO, or a number). Example (the third .tab write fails,
// and every fsync of a MANIFEST):
//   write,path=.tab,skip=2;sync,path=MANIFEST
// InvalidArgument names the bad part; nothing is armed then.
Status ArmFromSpec(std::string_view spec);

// ---- hooks, called by the file layer only when Armed() ----

// 0: go ahead; else the errno to fail with. A write may be cut short:
// *len is lowered to the bytes that still fit.
int BeforeWrite(const std::string& path, size_t* len);
// For kSync, kSyncDir, kRename; kRead with the range [offset, offset + len).
int Before(Op op, const std::string& path, uint64_t offset = 0, uint64_t len = 0);

}  // namespace dps::faults
