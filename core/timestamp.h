// The moment a file is written, as the files' metadata records it.
#pragma once

#include <string>

namespace kz {

// "2026-12-06T03:14:00Z": the current time in UTC, ISO 8601 to the second.
std::string utc_timestamp_now();

}  // namespace kz
