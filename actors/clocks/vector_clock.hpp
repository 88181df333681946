#pragma once
// Vector clocks (seed 001): entry k counts the events of node k this node
// knows of. VC(a) < VC(b) exactly when a happened before b; two clocks
// neither of which is below the other belong to concurrent events. Missing
// entries are zero, so nodes that join later need no resizing.
#include <cstdint>
#include <map>
#include <string>

namespace dice {

enum class causal_order { equal, before, after, concurrent };

class vector_clock {
public:
  vector_clock() = default;
  explicit vector_clock(std::map<std::string, std::uint64_t> entries);

  /// An event at `node`: its own entry grows by one; returns the new value.
  std::uint64_t increment(const std::string& node);
  /// Entry-wise maximum: what this node knows after receiving `other`.
  void merge(const vector_clock& other);
  std::uint64_t get(const std::string& node) const;
  void set(const std::string& node, std::uint64_t value);

  /// How this clock's event relates to `other`'s.
  causal_order compare(const vector_clock& other) const;
  /// This clock's event happened before `other`'s.
  bool happened_before(const vector_clock& other) const {
    return compare(other) == causal_order::before;
  }
  /// Every entry <= other's (equal or before).
  bool dominated_by(const vector_clock& other) const;

  /// Non-zero entries only.
  const std::map<std::string, std::uint64_t>& entries() const { return v_; }
  bool operator==(const vector_clock& o) const { return v_ == o.v_; }

private:
  std::map<std::string, std::uint64_t> v_;
};

} // namespace dice
