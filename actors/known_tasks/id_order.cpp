#include "known_tasks/id_order.hpp"

namespace dice {

namespace {

bool digit(char c) {
  return c >= '0' && c <= '9';
}

} // namespace

bool id_before(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      // Compare the two numbers without converting (they may be long):
      // skip leading zeros, then the longer run is larger, then digits.
      auto si = i, sj = j;
      while (i < a.size() && a[i] == '0') ++i;
      while (j < b.size() && b[j] == '0') ++j;
      auto ni = i, nj = j;
      while (i < a.size() && digit(a[i])) ++i;
      while (j < b.size() && digit(b[j])) ++j;
      if (i - ni != j - nj)
        return i - ni < j - nj;
      auto c = a.compare(ni, i - ni, b, nj, j - nj);
      if (c != 0)
        return c < 0;
      // Same number: fewer leading zeros first, so "1" and "01" differ.
      if (ni - si != nj - sj)
        return ni - si < nj - sj;
      continue;
    }
    if (a[i] != b[j])
      return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

} // namespace dice
