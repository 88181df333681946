#pragma once
// The HTTP API's bearer token (RFC 6750): which requests must carry it and
// whether an Authorization header carries it.
#include <string>

namespace dice {

/// True when `authorization`, an Authorization header's value, is
/// "Bearer TOKEN" (the scheme in any case) with exactly `token`. Compares
/// digests in constant time, so the time taken tells nothing of the token.
bool bearer_matches(const std::string& authorization, const std::string& token);

/// GET (and HEAD) /health answers without a token: a liveness probe (a load balancer,
/// systemd, the tests' start-up wait) need not hold it, and it tells only
/// the node's id. So do the dashboard's static files (/, /ui, /ui/FILE):
/// they hold no data, and the page asks for the token when the API wants it.
/// the node's id. GET and PUT /blobs/SHA (dice test's project blobs, for
/// the peers) prove the cluster key instead (tester/blob_auth.hpp).
bool open_without_token(const std::string& method, const std::string& path);

} // namespace dice
