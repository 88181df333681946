#include "embed/evaluation_worker.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>

#include <caf/actor_system.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "tester/evaluation_request.hpp"
#include "evaluation/evaluation_service.hpp"
#include "tester/tester_config.hpp"

namespace dice::embed {

namespace {

// The path's last part without an archive's extension: durations of earlier
// runs are remembered under it.
std::string project_name(const std::string& path) {
  auto p = std::filesystem::path(path);
  auto name = (p.has_filename() ? p : p.parent_path()).filename().string();
  for (std::string ext : {".tar.gz", ".tgz", ".tar", ".zip"})
    if (name.size() > ext.size()
        && name.compare(name.size() - ext.size(), ext.size(), ext) == 0)
      name.resize(name.size() - ext.size());
  return name;
}

// The same checks as POST /evaluation's options.
std::optional<evaluation_request> request_of(const evaluation_options& o,
                                             const std::string& path,
                                             const tester_config& cfg,
                                             std::string& err) {
  nlohmann::json j{{"runner", o.runner}, {"timeout", o.timeout_s}, {"reruns", o.reruns}};
  j["split"] = !o.split.empty() ? o.split : o.runner == "ctest" ? "test" : "file";
  if (!o.modules.empty())
    j["modules"] = o.modules;
  j["name"] = o.name.empty() ? project_name(path) : o.name;
  return parse_evaluation_request(j, cfg, err);
}

// The project's blob: a directory packed, or an archive's bytes.
std::string store(evaluation_service& svc, const std::string& path, std::string& err) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return svc.store_directory(path, err);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    err = path + ": no such directory or archive";
    return {};
  }
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return svc.store_upload(bytes, err);
}

evaluation_actor::behavior_type worker_fun(std::shared_ptr<evaluation_service> svc,
                                           tester_config cfg) {
  return {
    [svc, cfg](evaluate_atom, const std::string& path,
               const evaluation_options& o) -> caf::result<std::string> {
      std::string err;
      auto ask = request_of(o, path, cfg, err);
      if (!ask)
        return make_error(refusal::invalid, err);
      auto sha = store(*svc, path, err);
      if (sha.empty())
        return make_error(refusal::invalid, err);
      auto r = svc->submit(std::move(*ask), sha);
      using why = evaluation_receipt::refusal;
      if (r.refused == why::bad_project)
        return make_error(refusal::invalid, r.error);
      if (r.refused != why::none)
        return make_error(refusal::busy, r.error);
      return r.id;
    },
  };
}

} // namespace

evaluation_actor spawn_evaluation_worker(caf::actor_system& sys,
                                         std::shared_ptr<evaluation_service> service,
                                         const tester_config& cfg) {
  return sys.spawn<caf::detached>(worker_fun, std::move(service), cfg);
}

} // namespace dice::embed
