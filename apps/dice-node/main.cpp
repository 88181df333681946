// dice-node: runs one DiCE node until SIGINT or SIGTERM.
#include <csignal>
#include <iostream>
#include <mutex>
#include <string>

#include <unistd.h>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "common/caf_setup.hpp"
#include "http_api/http_api.hpp"
#include "known_tasks/memory_release.hpp"
#include "node/node.hpp"
#include "options.hpp"

int main(int argc, char** argv) {
  dice::fix_malloc_thresholds();
  dice::node_options opts;
  try {
    opts = dice::parse_node_options(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "dice-node: error: " << e.what() << "\n";
    return 2;
  }
  if (opts.help) {
    std::cout << opts.usage;
    return 0;
  }
  if (opts.version) {
    std::cout << "dice-node " << DICE_VERSION << "\n";
    return 0;
  }
  auto logger = spdlog::stderr_color_mt("dice");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(opts.log_level));
  spdlog::set_pattern("%H:%M:%S.%e [" + opts.node.id + "] %^%l%$ %v");

  // Block the stop signals in every thread; main waits for them below.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  // Raised by the node itself when it must not go on.
  sigaddset(&stop_signals, SIGUSR1);
  std::mutex fatal_mutex;
  std::string fatal;
  opts.node.on_fatal = [&](const std::string& why) {
    {
      std::lock_guard<std::mutex> guard(fatal_mutex);
      fatal = why;
    }
    ::kill(::getpid(), SIGUSR1);
  };
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  caf::actor_system_config cfg;
  dice::register_message_types(cfg);
  cfg.set("scheduler.max-threads", opts.scheduler_threads);
  cfg.set("scheduler.policy", caf::atom_from_string(opts.scheduler_policy));
  caf::actor_system sys{cfg};
  try {
    dice::node n{sys, opts.node};
    std::unique_ptr<dice::http_api> api;
    if (opts.node.http)
      api = std::make_unique<dice::http_api>(sys, n, *opts.node.http);
    // POST /drain {"leave": true}: stop as on SIGTERM once drained.
    if (api)
      api->on_leave([] { ::kill(::getpid(), SIGTERM); });
    spdlog::info("node {} listening on {} (advertised {}), http {}, data "
                 "dir {}",
                 opts.node.id, opts.node.listen.to_string(),
                 opts.node.advertised().to_string(),
                 opts.node.http ? opts.node.http->to_string() : "off",
                 opts.node.data_dir.empty() ? "none" : opts.node.data_dir);
    if (auto hint = dice::join_hint(opts.node); !hint.empty())
      spdlog::info("{}", hint);
    int sig = 0;
    sigwait(&stop_signals, &sig);
    if (sig != SIGUSR1)
      spdlog::info("stopping on signal {}", sig);
    if (api)
      api->stop();
    n.stop();
    if (sig == SIGUSR1) {
      std::lock_guard<std::mutex> guard(fatal_mutex);
      std::cerr << "dice-node: error: " << fatal << "\n";
      return 1;
    }
  } catch (const std::exception& e) {
    std::cerr << "dice-node: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
