#include "common/strings.h"

namespace tributary {

std::vector<std::string> SplitCommaList(std::string_view s) {
  std::vector<std::string> out;
  size_t b = 0;
  while (b <= s.size()) {
    size_t e = s.find(',', b);
    if (e == std::string_view::npos) e = s.size();
    std::string_view p = s.substr(b, e - b);
    while (!p.empty() && (p.front() == ' ' || p.front() == '\t')) p.remove_prefix(1);
    while (!p.empty() && (p.back() == ' ' || p.back() == '\t')) p.remove_suffix(1);
    if (!p.empty()) out.emplace_back(p);
    b = e + 1;
  }
  return out;
}

}  // namespace tributary
