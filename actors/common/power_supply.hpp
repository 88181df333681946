#pragma once
// The battery level the ranking uses (seed 000: a node with more battery
// claims first), read from Linux's /sys/class/power_supply when there is a
// battery: the first supply of type "Battery" with a capacity.
#include <cstdint>
#include <optional>
#include <string>

namespace dice {

/// The level (0..100) of the first battery under `root`, or nullopt if
/// there is none (a desktop, a server, a container).
std::optional<std::uint32_t>
read_battery_level(const std::string& root = "/sys/class/power_supply");

} // namespace dice
