#include "simulation/election_sim.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <stdexcept>

namespace dice {

election_sim::election_sim(election_sim_config cfg)
  : cfg_(std::move(cfg)), net_(cfg_.seed) {
  net_.set_default_faults(cfg_.faults);
  for (std::size_t i = 0; i < cfg_.nodes; ++i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "n%03zu", i);
    ids_.emplace_back(buf);
  }
  for (std::size_t i = 0; i < ids_.size(); ++i) {
    net_.attach(ids_[i]);
    up_[ids_[i]] = true;
    nodes_[ids_[i]] = spawn(i);
  }
  recompute_components();
  feed_views();
}

std::unique_ptr<election_state> election_sim::spawn(std::size_t index) {
  auto ec = cfg_.election;
  if (index < cfg_.capacities.size())
    ec.capacity = cfg_.capacities[index];
  ec.stable_counter = stable_[ids_[index]];
  return make_election(cfg_.algorithm, ids_[index], ec);
}

std::vector<std::vector<std::string>> election_sim::components() const {
  return components_;
}

// Recomputed on every crash, restart, partition and heal: safety is checked
// after every step, so this must not be rebuilt each time.
void election_sim::recompute_components() {
  std::map<int, std::vector<std::string>> by_group;
  for (const auto& id : ids_) {
    if (!up_.at(id))
      continue;
    int g = -1;
    for (std::size_t i = 0; i < partition_.size(); ++i)
      if (std::count(partition_[i].begin(), partition_[i].end(), id))
        g = static_cast<int>(i);
    by_group[g].push_back(id);
  }
  components_.clear();
  component_of_.clear();
  for (auto& [g, ids] : by_group) {
    for (const auto& id : ids)
      component_of_[id] = components_.size();
    components_.push_back(std::move(ids));
  }
}

const std::vector<std::string>&
election_sim::view_of(const std::string& id) const {
  static const std::vector<std::string> none;
  auto it = component_of_.find(id);
  return it == component_of_.end() ? none : components_[it->second];
}

std::vector<std::string> election_sim::live() const {
  std::vector<std::string> out;
  for (const auto& id : ids_)
    if (up_.at(id))
      out.push_back(id);
  return out;
}

void election_sim::feed_view(const std::string& id) {
  if (!up_.at(id))
    return;
  if (cfg_.trace)
    cfg_.trace("t=" + std::to_string(now_) + " view " + id);
  nodes_.at(id)->on_view(view_of(id), now_);
  flush(id);
  check_safety();
}

void election_sim::start_election(const std::string& id) {
  nodes_.at(id)->start_election(now_);
  flush(id);
  check_safety();
}

void election_sim::feed_views() {
  for (const auto& id : ids_)
    feed_view(id);
}

void election_sim::crash(const std::string& id) {
  stable_[id] = nodes_.at(id)->stable_counter();
  up_.at(id) = false;
  net_.crash(id);
  recompute_components();
  if (cfg_.auto_views)
    feed_views();
}

void election_sim::restart(const std::string& id) {
  auto i = static_cast<std::size_t>(
    std::find(ids_.begin(), ids_.end(), id) - ids_.begin());
  nodes_[id] = spawn(i); // volatile state is gone
  up_.at(id) = true;
  net_.restart(id);
  recompute_components();
  if (cfg_.auto_views)
    feed_views();
}

void election_sim::partition(
  const std::vector<std::vector<std::string>>& groups) {
  partition_ = groups;
  net_.partition(groups);
  recompute_components();
  if (cfg_.auto_views)
    feed_views();
}

void election_sim::heal() {
  partition_.clear();
  net_.heal();
  recompute_components();
  if (cfg_.auto_views)
    feed_views();
}

void election_sim::set_faults(link_faults f) {
  net_.set_default_faults(f);
}

void election_sim::flush(const std::string& id) {
  for (auto& s : nodes_.at(id)->take_outbox()) {
    auto bytes = s.msg.SerializeAsString();
    if (s.to.empty())
      net_.broadcast(now_, id, bytes);
    else
      net_.send(now_, id, s.to, std::move(bytes));
  }
}

std::string election_sim::describe() const {
  std::string out;
  for (const auto& id : ids_) {
    const auto& n = *nodes_.at(id);
    out += id + (up_.at(id) ? " " : " (crashed) ") + n.state() + " coord="
           + n.coordinator().value_or("-") + " group=" + n.group() + "\n";
  }
  return out;
}

void election_sim::check_safety() {
  if (!violation_.empty())
    return;
  bool by_name = cfg_.algorithm == "invitation";
  for (const auto& comp : components_) {
    std::map<std::string, std::vector<std::string>> coords; // group -> ids
    for (const auto& id : comp) {
      const auto& n = *nodes_.at(id);
      bool normal = n.state() == "normal";
      if (by_name && normal && n.coordinator()
          && n.group().rfind(*n.coordinator() + ":", 0) != 0)
        violation_ = "t=" + std::to_string(now_) + " " + id + " in group "
                     + n.group() + " names coordinator " + *n.coordinator();
      if (normal && n.coordinator() == id)
        coords[by_name ? n.group() : std::string{}].push_back(id);
    }
    for (const auto& [g, ids] : coords)
      if (ids.size() > 1) {
        violation_ = "t=" + std::to_string(now_) + " coordinators";
        for (const auto& id : ids)
          violation_ += " " + id;
        violation_ += " all Normal in group '" + g + "'";
      }
  }
}

bool election_sim::step(millis until) {
  std::optional<millis> t = net_.next_time();
  for (const auto& [id, n] : nodes_)
    if (up_.at(id))
      if (auto d = n->next_deadline(); d && (!t || *d < *t))
        t = d;
  if (!t || *t > until) {
    now_ = std::max(now_, until);
    return false;
  }
  auto at = std::max(*t, now_);
  same_time_steps_ = at == now_ ? same_time_steps_ + 1 : 0;
  if (same_time_steps_ > 1'000'000)
    throw std::logic_error("election_sim: no progress at t="
                           + std::to_string(at));
  now_ = at;
  while (auto d = net_.pop_due(now_)) {
    wire::Election m;
    if (!m.ParseFromString(d->bytes)) {
      ++malformed_;
      continue;
    }
    if (cfg_.trace)
      cfg_.trace("t=" + std::to_string(now_) + " " + d->from + " -> " + d->to
                 + " " + m.ShortDebugString());
    nodes_.at(d->to)->on_message(d->from, m, now_);
    flush(d->to);
    check_safety();
  }
  for (const auto& [id, n] : nodes_)
    if (up_.at(id))
      if (auto d = n->next_deadline(); d && *d <= now_) {
        if (cfg_.trace)
          cfg_.trace("t=" + std::to_string(now_) + " tick " + id);
        n->tick(now_);
        flush(id);
        check_safety();
      }
  return true;
}

void election_sim::run_until(millis until) {
  while (step(until)) {
  }
}

std::optional<millis> election_sim::run_until_agreed(millis limit) {
  while (!agreed())
    if (!step(limit))
      return agreed() ? std::optional<millis>{now_} : std::nullopt;
  return now_;
}

bool election_sim::agreed() const {
  for (const auto& comp : components_)
    if (!coordinator_of(comp.front()))
      return false;
  return true;
}

std::optional<std::string>
election_sim::coordinator_of(const std::string& id) const {
  const auto& comp = view_of(id);
  if (comp.empty())
    return std::nullopt;
  const auto& first = *nodes_.at(comp.front());
  auto c = first.coordinator();
  if (!c || !std::count(comp.begin(), comp.end(), *c))
    return std::nullopt;
  // Invitation: a member its coordinator does not count will leave again.
  auto up = nodes_.at(*c)->members();
  bool check_up = cfg_.algorithm == "invitation";
  for (const auto& m : comp) {
    const auto& n = *nodes_.at(m);
    if (n.state() != "normal" || n.coordinator() != c
        || n.group() != first.group())
      return std::nullopt;
    if (check_up && m != *c && !std::count(up.begin(), up.end(), m))
      return std::nullopt;
  }
  return c;
}

} // namespace dice
