#pragma once
// Answering an HTTP request with JSON, for the route files added beside
// http_api.cpp. Bytes that are not UTF-8 become U+FFFD instead of an
// exception (see http_api.cpp).
#include <httplib.h>
#include <nlohmann/json.hpp>

namespace dice {

inline void send_json(httplib::Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  res.set_content(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                  "application/json");
}

} // namespace dice
