// The sample's one test program: its argument names the case.
#include <cstdlib>
#include <cstring>
#include <iostream>

int main(int argc, char** argv) {
  if (argc < 2)
    return 2;
  if (!std::strcmp(argv[1], "adds_up"))
    return 2 + 2 == 4 ? 0 : 1;
  if (!std::strcmp(argv[1], "wrong_on_purpose")) {
    std::cout << "two and two make four, not five\n";
    return 1;
  }
  if (!std::strcmp(argv[1], "crashes"))
    std::abort();
  return 2;
}
