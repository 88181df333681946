// The dashboard: plain HTML, JS and CSS from actors/http_api/dashboard/,
// compiled into the binary, served at /ui; / leads there.
#include <httplib.h>

#include "common/embedded_file.hpp"
#include "http_api/guarded_server.hpp"
#include "http_api/http_api.hpp"

namespace dice {

// Written at build time by cmake/embed_files.cmake.
const embedded_file* dashboard_file(const std::string& name);

namespace {

const char* content_type(const std::string& name) {
  auto ends = [&](const char* ext) {
    std::string e = ext;
    return name.size() >= e.size()
           && name.compare(name.size() - e.size(), e.size(), e) == 0;
  };
  if (ends(".html"))
    return "text/html; charset=utf-8";
  if (ends(".js"))
    return "text/javascript; charset=utf-8";
  if (ends(".css"))
    return "text/css; charset=utf-8";
  return "application/octet-stream";
}

void serve(httplib::Response& res, const std::string& name) {
  const auto* f = dashboard_file(name);
  if (f == nullptr) {
    res.status = 404;
    res.set_content("{\"error\":\"no dashboard file " + name.substr(0, 64) + "\"}",
                    "application/json");
    return;
  }
  res.status = 200;
  res.set_header("Cache-Control", "no-cache");
  res.set_content(f->data, f->size, content_type(name));
}

} // namespace

void http_api::ui_routes() {
  auto& s = *server_;
  s.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_redirect("/ui");
  });
  s.Get("/ui", [](const httplib::Request&, httplib::Response& res) {
    serve(res, "index.html");
  });
  s.Get(R"(/ui/([A-Za-z0-9_.-]+))", [](const httplib::Request& req,
                                       httplib::Response& res) {
    serve(res, req.matches[1].str());
  });
}

} // namespace dice
