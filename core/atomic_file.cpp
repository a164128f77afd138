#include "core/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
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
