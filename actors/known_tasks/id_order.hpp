#pragma once
// The order tasks are listed and paged in: ids compared with their runs of
// digits as numbers ("a-2" before "a-10"), the rest byte by byte. A total
// order: equal only for equal ids.
#include <string>

namespace dice {

bool id_before(const std::string& a, const std::string& b);

} // namespace dice
