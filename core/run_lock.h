// One process per role: a lock file that a second self-play worker with the same worker
// id, or a second trainer or gatekeeper on the same run, finds taken, so that it
// refuses to start instead of writing the same games or models twice.
//
// The lock is flock(2) on the file, not the file's existence: the kernel releases it
// when the holding process dies in any way (kill -9 included), so a stale lock left by
// a dead process is simply taken over by the next one, with nothing to clean up and no
// race between "is it stale?" and "take it". The file keeps the holder's pid and host
// as text, for the message a refused process prints. On NFS, Linux maps flock to
// POSIX byte-range locks, which the NFS lock manager shares between machines.
#pragma once

#include <stdexcept>
#include <string>

namespace kz {

struct LockError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class RunLock {
 public:
  // Takes the lock at `path` for `role` (e.g. "self-play worker s1-g0"), creating the
  // file. Throws LockError naming the holder when another process holds it, or naming
  // the file when it cannot be created.
  RunLock(const std::string& path, const std::string& role);
  ~RunLock();  // releases the lock; the file stays (removing it would race a taker)
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace kz
