// Messages from a peer that holds the cluster key: each piece of the input
// (fuzz_inputs.hpp) is taken as the bytes of a wire::Message, signed with
// the cluster key into a valid envelope and opened by a keyed node, so the
// fuzzer's bytes get past authentication to the message parser, the header
// checks, the replay window and unbundle().
#include <cstddef>
#include <cstdint>

#include "fuzz_inputs.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  using namespace dice::fuzz;
  auto datagrams = split_datagrams(data, size);
  for (auto& d : datagrams)
    d = sign(d);
  auto receiver = make_receiver(true);
  open_and_route(receiver, datagrams);
  return 0;
}
