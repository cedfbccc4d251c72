// FileParts: a file's bytes as pieces in order, their concatenation the file. A writer that makes
// a file of many buffers (a Parquet file's pages, each compressed on its own) hands them to the
// file system as they are (io::FileSystem::WriteNewFileParts), so the file is not held twice
// while it is written: its pieces and one joined copy of them.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tributary {

struct FileParts {
  std::vector<std::string> parts;
  int64_t size = 0;  // bytes of all parts

  void Add(std::string bytes) {
    size += static_cast<int64_t>(bytes.size());
    parts.push_back(std::move(bytes));
  }
  // The file as one string (a copy: the parts stay).
  std::string Joined() const {
    std::string out;
    out.reserve(static_cast<size_t>(size));
    for (const std::string& p : parts) out += p;
    return out;
  }
  // The file as one string, releasing each part as it is copied.
  std::string TakeJoined() {
    std::string out;
    out.reserve(static_cast<size_t>(size));
    for (std::string& p : parts) {
      out += p;
      std::string().swap(p);
    }
    parts.clear();
    size = 0;
    return out;
  }
};

}  // namespace tributary
