#include "core/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace kz {

std::string temp_name_for(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  char host[64] = "host";
  gethostname(host, sizeof(host) - 1);
  return path + ".tmp-" + host + "-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
}

void commit_temp_file(const std::string& temp, const std::string& path) {
  // fsync so that the rename never exposes a file whose data is still only in cache.
  const int fd = ::open(temp.c_str(), O_RDONLY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::error_code ec;
    std::filesystem::remove(temp, ec);
    throw std::runtime_error("cannot rename '" + temp + "' to '" + path + "': " + why);
  }
}

void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& write) {
  const std::string temp = temp_name_for(path);
  try {
    {
      std::ofstream out(temp, std::ios::binary | std::ios::trunc);
      if (!out) throw std::runtime_error("cannot create '" + temp + "': " + std::strerror(errno));
      write(out);
      out.flush();
      if (!out) throw std::runtime_error("error while writing '" + temp + "'");
    }
    commit_temp_file(temp, path);
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove(temp, ec);
    throw;
  }
}

}  // namespace kz

namespace kz {

std::string why_not_a_file(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) return "no such file";
  if (std::filesystem::is_directory(status)) return "it is a directory, not a file";
  return "";
}

int remove_stale_temp_files(const std::string& dir) {
  char host[64] = "host";
  gethostname(host, sizeof(host) - 1);
  const std::string marker = std::string(".tmp-") + host + "-";
  int removed = 0;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const size_t at = name.rfind(marker);
    if (at == std::string::npos || !it->is_regular_file(ec)) continue;
    // "<pid>-<n>" follows the marker.
    const std::string rest = name.substr(at + marker.size());
    const size_t dash = rest.find('-');
    if (dash == 0 || dash == std::string::npos ||
        rest.find_first_not_of("0123456789-") != std::string::npos)
      continue;
    const long pid = std::strtol(rest.substr(0, dash).c_str(), nullptr, 10);
    if (pid <= 0 || pid == long(getpid())) continue;
    if (kill(pid_t(pid), 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to judge
    std::error_code rm;
    if (std::filesystem::remove(it->path(), rm)) ++removed;
  }
  return removed;
}

}  // namespace kz
