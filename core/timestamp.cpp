#include "core/timestamp.h"

#include <ctime>

namespace kz {

std::string utc_timestamp_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);  // not std::gmtime: its buffer is shared between threads
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace kz
