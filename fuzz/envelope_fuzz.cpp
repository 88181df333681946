// Datagrams as anyone on the network can send them: the bytes go to
// bridge_state::open unchanged, to a node with a cluster key (where all but
// a lucky guess stop at the tag check) and to one without (--insecure or
// loopback, where they reach the inner message parser). An input may hold
// several datagrams (fuzz_inputs.hpp), opened in order by the same node.
#include <cstddef>
#include <cstdint>

#include "fuzz_inputs.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  using namespace dice::fuzz;
  auto datagrams = split_datagrams(data, size);
  for (bool keyed : {true, false}) {
    auto receiver = make_receiver(keyed);
    open_and_route(receiver, datagrams);
  }
  return 0;
}
