#include "broadcast_bridge/broadcast_bridge.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include <chrono>
#include <map>

#include <caf/actor_system.hpp>
#include <caf/send.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "broadcast_bridge/bundle.hpp"
#include "broadcast_bridge/keyring_file.hpp"
#include "broadcast_bridge/replay_floors.hpp"
#include "broadcast_bridge/topic.hpp"

namespace dice {

namespace {

struct bridge_actor_state {
  std::shared_ptr<bridge_state> logic; // shared with the exit handler
  std::shared_ptr<transport> net;
  std::function<millis()> clock;
  std::unique_ptr<peer_addresses> addresses;
  std::map<std::string, std::vector<wire_listener>> listeners;
  // Broadcasts waiting for the flush this actor sent itself.
  std::vector<wire::Message> pending;
  // Piggybacked broadcasts waiting for the next flush, and when the
  // earliest of them must leave at the latest.
  std::vector<wire::Message> held;
  millis held_due = 0;
  std::string replay_file;
  replay_floors saved; // what replay_file holds
  std::string keyring_file;                     // empty: not persisted
  std::shared_ptr<published_keyring> published; // may be null
  static inline const char* name = "broadcast_bridge";
};

using bridge_ptr = broadcast_bridge::stateful_pointer<bridge_actor_state>;

// Counts a datagram of `bytes` handed to the network `sent` times (0: it
// could not go at all).
void count_sent(bridge_ptr self, std::size_t bytes, std::size_t sent) {
  auto& logic = *self->state.logic;
  if (sent == 0)
    logic.count_sent(bytes, false);
  for (std::size_t i = 0; i < sent; ++i)
    logic.count_sent(bytes, true);
}

// Writes the replay floors if they moved since the last write.
void save_floors(bridge_actor_state& st) {
  if (st.replay_file.empty())
    return;
  auto now = st.logic->floors();
  if (now == st.saved)
    return;
  if (save_replay_floors(st.replay_file, now))
    st.saved = std::move(now);
}

// Queues a broadcast for the flush behind every message already in the
// mailbox, so the broadcasts of a burst go out together.
void queue_broadcast(bridge_ptr self, wire::Message& m) {
  auto& st = self->state;
  if (st.pending.empty())
    self->send(self, flush_atom_v);
  st.pending.push_back(std::move(m));
}

// Sends a sealed datagram, which carries the mark `carried`, where `f`
// says, each group with its relay mark. Returns how many copies were
// handed to the network.
std::size_t fan_out(bridge_ptr self, const relay_fan_out& f,
                    const std::string& bytes, relay_mark carried) {
  auto& st = self->state;
  std::size_t total = 0;
  auto go = [&](const std::vector<std::string>& to, relay_mark mark) {
    if (to.empty())
      return;
    auto marked = mark == carried ? std::string{} : relay_marked(bytes, mark);
    const auto& out = mark == carried ? bytes : marked;
    auto sent = st.net->broadcast(to, out);
    count_sent(self, out.size(), sent);
    total += sent;
  };
  go(f.relayed, relay_mark::relayed);
  go(f.first_hand, relay_mark::first_hand);
  go(f.to_members, relay_mark::to_members);
  go(f.direct, relay_mark::none);
  return total;
}

// With super-peers: seals and relays the queue's broadcasts (per task) of
// `parts` and `held`, and leaves the rest (per node and second) in `parts`
// to go direct, membership's heartbeats above all: a dead super-peer must
// not silence its members.
void relay_queue(bridge_ptr self, std::vector<wire::Message>& parts,
                 std::vector<wire::Message> held) {
  auto& st = self->state;
  auto is_queue = [](const wire::Message& m) { return topic_of(m) == "queue"; };
  auto direct = std::stable_partition(parts.begin(), parts.end(), is_queue);
  std::vector<wire::Message> queue(std::make_move_iterator(parts.begin()),
                                   std::make_move_iterator(direct));
  parts.erase(parts.begin(), direct);
  std::vector<wire::Message> held_queue;
  for (auto& m : held)
    (is_queue(m) ? held_queue : parts).push_back(std::move(m));
  // A held queue message (a RUNNING heartbeat) rides along with a direct
  // datagram that leaves anyway, as it waited to; alone, it is relayed.
  auto& ride = parts.empty() ? queue : parts;
  for (auto& m : held_queue)
    ride.push_back(std::move(m));
  for (const auto& bytes : st.logic->seal_all(std::move(queue), st.clock()))
    fan_out(self, st.addresses->relays().own(), bytes, relay_mark::none);
}

// Seals `m` and sends it to one HOST:PORT.
void send_one(bridge_ptr self, const std::string& to, wire::Message& m) {
  auto& st = self->state;
  auto bytes = st.logic->seal(std::move(m), st.clock());
  if (bytes) // else oversize, counted by seal
    count_sent(self, bytes->size(), st.net->send_to(to, *bytes) ? 1 : 0);
}

// Applies `change` to a copy of the keyring, writes the copy to the data
// dir (when persisted), and only then makes it the keyring in use: a write
// that fails changes nothing. "" or why nothing changed.
template <class Change>
std::string change_keys(bridge_actor_state& st, const char* what,
                        const std::string& arg, Change change) {
  const auto& now = st.logic->keys();
  // Without a key this node neither signs nor checks: installing one would
  // make it drop every peer's unsigned datagram.
  if (now.empty())
    return "this node runs without a cluster key (loopback or --insecure): "
           "restart it with --cluster-key-file to use a keyring";
  auto next = now;
  if (auto why = change(next); !why.empty())
    return why;
  if (next == now)
    return {};
  std::string err;
  if (!st.keyring_file.empty() && !save_keyring(st.keyring_file, next, err))
    return "keyring not changed: " + err;
  st.logic->keys() = next;
  if (st.published)
    st.published->set(next);
  spdlog::info("keyring: {} {} (primary {}, {} key{}){}", what, arg, next.primary_id(),
               next.size(), next.size() == 1 ? "" : "s",
               st.keyring_file.empty() ? "; not persisted (no data dir)" : "");
  return {};
}

broadcast_bridge::behavior_type bridge_fun(bridge_ptr self, bridge_config cfg) {
  auto& st = self->state;
  st.logic = std::make_shared<bridge_state>(
    cfg.self, cfg.keys ? std::move(*cfg.keys) : keyring(cfg.cluster_key), cfg.limits);
  st.keyring_file = cfg.keyring_file;
  st.published = cfg.published;
  if (st.published)
    st.published->set(st.logic->keys());
  st.addresses = std::make_unique<peer_addresses>(cfg.self.node_id,
                                                  cfg.self.addr);
  st.net = cfg.net;
  st.clock = cfg.clock ? cfg.clock : wall_clock_ms;
  // Before the first datagram: a replay of the previous life's traffic
  // must find it already seen.
  st.replay_file = cfg.replay_file;
  if (!st.replay_file.empty()) {
    st.saved = load_replay_floors(st.replay_file);
    st.logic->restore(st.saved);
    self->delayed_send(self, std::chrono::milliseconds(cfg.replay_floors_save_ms),
                       tick_atom_v);
  }
  // The transport's thread only enqueues; all logic runs in this actor.
  broadcast_bridge handle = self;
  st.net->start([handle](std::vector<datagram> batch) {
    caf::anon_send(handle, datagram_atom_v, std::move(batch));
  });
  auto net = st.net;
  self->attach_functor([net] { net->stop(); });
  // The state is gone by the time attached functors run: they keep what
  // the last write needs.
  if (!st.replay_file.empty())
    self->attach_functor([logic = st.logic, file = st.replay_file] {
      save_replay_floors(file, logic->floors());
    });
  return {
    [self](broadcast_atom, wire::Message& m) { queue_broadcast(self, m); },
    [self](broadcast_atom, std::vector<wire::Message>& ms) {
      for (auto& m : ms)
        queue_broadcast(self, m);
    },
    [self](piggyback_atom, wire::Message& m, millis hold) {
      auto& st = self->state;
      if (hold <= 0 || st.logic->limits().bundle_bytes == 0)
        return queue_broadcast(self, m); // it could never share a datagram
      auto due = st.clock() + hold;
      if (st.held.empty() || due < st.held_due) {
        st.held_due = due;
        self->delayed_send(self, std::chrono::milliseconds(hold), flush_atom_v);
      }
      st.held.push_back(std::move(m));
    },
    [self](flush_atom) {
      // Any flush takes the held broadcasts along; a timer of theirs that
      // fires later finds nothing to send.
      auto& st = self->state;
      auto parts = std::move(st.pending);
      st.pending.clear();
      auto held = std::move(st.held);
      st.held.clear();
      if (st.addresses->relays().active())
        relay_queue(self, parts, std::move(held));
      else
        for (auto& m : held)
          parts.push_back(std::move(m));
      auto datagrams = st.logic->seal_all(std::move(parts), st.clock());
      if (datagrams.empty())
        return;
      auto sent = st.net->broadcast_all(st.addresses->targets(), datagrams);
      for (std::size_t i = 0; i < datagrams.size(); ++i)
        count_sent(self, datagrams[i].size(), sent[i]);
    },
    [self, every = cfg.replay_floors_save_ms](tick_atom) {
      save_floors(self->state);
      self->delayed_send(self, std::chrono::milliseconds(every), tick_atom_v);
    },
    [self](send_atom, const std::string& to, wire::Message& m) {
      send_one(self, to, m);
    },
    [self](send_to_atom, const std::string& node, wire::Message& m) {
      auto& st = self->state;
      if (auto addr = st.addresses->resolve(node))
        send_one(self, *addr, m);
      else
        st.logic->count_unaddressed();
    },
    [self](peers_atom, peer_directory& d) {
      self->state.addresses->set_members(std::move(d));
    },
    [self](subscribe_atom, const std::string& topic, wire_listener& who) {
      self->state.listeners[topic].push_back(std::move(who));
    },
    [self](datagram_atom, const std::vector<datagram>& batch) {
      // Each listener gets what the batch brought it in one message: a
      // burst of ENQUEUEs then wakes the queue once, not once per task.
      auto& st = self->state;
      std::vector<std::pair<wire_listener, std::vector<wire::Message>>> to;
      for (const auto& d : batch) {
        auto mark = relay_mark::none;
        auto opened = st.logic->open(d.bytes, &mark);
        if (!opened)
          continue;
        if (opened->has_incarnation_probe()) {
          // Not heard(): a probe asserts nothing, not even where its id
          // listens (a second node with a live node's id may send one).
          if (auto notice = st.logic->answer_probe(*opened, st.clock()))
            send_one(self, opened->sender_addr(), *notice);
          continue;
        }
        // Authenticated: an answer to it may go where it came from.
        st.addresses->heard(opened->sender_id(), opened->sender_addr());
        if (mark != relay_mark::none) { // accepted as new: passed on once
          auto on = st.addresses->relays().pass_on(mark, opened->sender_addr());
          st.logic->count_relayed(fan_out(self, on, d.bytes, mark), !on.direct.empty());
        }
        for (auto& m : unbundle(std::move(*opened))) {
          auto it = st.listeners.find(topic_of(m));
          if (it == st.listeners.end())
            continue;
          // Copied for all listeners but the last, which takes it: a
          // heartbeat carries a version vector as long as the cluster.
          const auto& whos = it->second;
          for (std::size_t i = 0; i < whos.size(); ++i) {
            auto at = std::find_if(to.begin(), to.end(),
                                   [&](const auto& x) { return x.first == whos[i]; });
            if (at == to.end())
              at = to.insert(to.end(), {whos[i], {}});
            if (i + 1 < whos.size())
              at->second.push_back(m);
            else
              at->second.push_back(std::move(m));
          }
        }
      }
      for (const auto& id : st.logic->take_unknown_key_notices())
        spdlog::warn("datagrams signed with key {} were dropped: this node "
                     "does not hold that key (a peer uses a key installed "
                     "elsewhere only: run `dice keys install` with it here)",
                     id);
      for (auto& [who, ms] : to) {
        if (ms.size() == 1)
          self->send(who, inbound_atom_v, std::move(ms.front()));
        else
          self->send(who, inbound_atom_v, std::move(ms));
      }
    },
    [self](stats_atom) { return self->state.logic->counters(); },
    [self](keys_atom) {
      const auto& st = self->state;
      const auto& ring = st.logic->keys();
      const auto& c = st.logic->counters();
      return keyring_view{ring.ids(), ring.primary_id(), !st.keyring_file.empty(),
                          c.by_key, c.unknown_key_ids};
    },
    [self](keys_atom, install_atom, const std::string& key) {
      return change_keys(self->state, "installed key", keyring::id_of(key),
                         [&](keyring& r) { return r.install(key); });
    },
    [self](keys_atom, use_atom, const std::string& id) {
      return change_keys(self->state, "now signs with key", id,
                         [&](keyring& r) { return r.use(id); });
    },
    [self](keys_atom, remove_atom, const std::string& id) {
      return change_keys(self->state, "removed key", id,
                         [&](keyring& r) { return r.remove(id); });
    },
  };
}

} // namespace

broadcast_bridge spawn_broadcast_bridge(caf::actor_system& sys,
                                        bridge_config cfg) {
  return sys.spawn(bridge_fun, std::move(cfg));
}

} // namespace dice
