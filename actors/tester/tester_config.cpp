#include "tester/tester_config.hpp"

namespace dice {

std::string tester_config::problem() const {
  if (python.empty() || python.find_first_of(" \t\n") != std::string::npos)
    return "--tester-python must name one program";
  if (blob_cache_bytes == 0)
    return "--tester-blob-cache-mb must be positive";
  if (max_upload_bytes == 0 || max_upload_bytes > blob_cache_bytes)
    return "--tester-max-upload-mb must be from 1 to --tester-blob-cache-mb";
  if (max_unpacked_bytes == 0)
    return "--tester-max-unpacked-mb must be positive";
  if (max_timeout_ms <= 0)
    return "--tester-max-timeout-s must be positive";
  if (output_bytes < 64 || output_bytes > 8192)
    return "--tester-output-bytes must be from 64 to 8192";
  if (hello_ms <= 0)
    return "--tester-hello-ms must be positive";
  return {};
}

} // namespace dice
