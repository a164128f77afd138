// Writing files so that a killed process never leaves a half-written one: everything
// is written to a unique temporary name beside the target, flushed to disk, then
// renamed over the target (rename is atomic within a filesystem, also on NFS/Lustre
// for one client, which is what shared folders of self-play shards rely on).
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace kz {

// A temporary name beside `path`, unique per host, process and call:
// "<path>.tmp-<host>-<pid>-<n>".
std::string temp_name_for(const std::string& path);

// Writes `path` atomically: `write` fills the stream; on any failure (an exception from
// `write`, a stream error, a failed rename) the temporary is removed and a
// std::runtime_error naming the file is thrown, and `path` is left as it was.
void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& write);

// Renames an already written temporary file over `path` after fsync; removes the
// temporary and throws std::runtime_error on failure.
void commit_temp_file(const std::string& temp, const std::string& path);

// Why `path` cannot be read as a data file, or "" when it can be opened as one:
// "no such file" or "it is a directory, not a file". Readers ask first, because a
// directory opens as a stream on Linux and only fails inside the read.
std::string why_not_a_file(const std::string& path);

// Removes the temporaries (temp_name_for) in `dir` that a process of this host left
// when it was killed: those whose pid is no longer running. Temporaries of other hosts
// and of live processes are left alone. Returns how many were removed.
int remove_stale_temp_files(const std::string& dir);

}  // namespace kz
