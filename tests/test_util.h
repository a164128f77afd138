// Helpers shared by the test executables.
#pragma once

#include <fstream>
#include <iterator>
#include <string>

namespace kz::test {

// ../shared/data beside the project, or "" when it is absent (tests then GTEST_SKIP).
std::string shared_data_dir();

// The configured recorded-games folder whether or not it exists (for skip messages).
std::string configured_shared_data_dir();

// The project's source tree (configs/, models/, docs/, tests/data/).
std::string source_dir();

// Runs a shell command, returns its exit status; stdout (and stderr when merge_stderr)
// goes into *out. Used by the end-to-end tests of the executables.
int run_command(const std::string& command, std::string* out, bool merge_stderr = false);

// Path of a built executable, e.g. bin("kumalak"), and the folder they are in.
std::string bin(const std::string& name);
std::string bin_dir();

// A fresh empty directory under the system temp dir, unique per call.
std::string temp_dir(const std::string& prefix);

// A whole file as bytes ("" when it cannot be read), and a file written from bytes.
inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

// The message of the `Error` that `f` throws, or "" when it throws none.
template <class Error, class F>
std::string error_message(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace kz::test
