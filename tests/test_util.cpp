#include "tests/test_util.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <filesystem>

namespace kz::test {

std::string configured_shared_data_dir() {
  return KZ_SHARED_DATA;
}

std::string source_dir() {
  return KZ_SOURCE_DIR;
}

std::string shared_data_dir() {
  const std::filesystem::path p(KZ_SHARED_DATA);
  std::error_code ec;
  if (std::filesystem::is_directory(p / "togyz", ec)) return p.string();
  return "";
}

int run_command(const std::string& command, std::string* out, bool merge_stderr) {
  const std::string cmd = command + (merge_stderr ? " 2>&1" : "");
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return -1;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0)
    if (out) out->append(buf.data(), n);
  const int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string bin_dir() {
  return KZ_BIN_DIR;
}

std::string bin(const std::string& name) {
  return bin_dir() + "/" + name;
}

std::string temp_dir(const std::string& prefix) {
  static std::atomic<int> counter{0};
  auto dir = std::filesystem::temp_directory_path() /
             (prefix + "-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

}  // namespace kz::test
