// Absolute paths as discovery makes them, handled as strings. For these, the string operations
// below give what std::filesystem's lexical ones give, without building path objects (which
// showed in profiles of import resolution and version targets).
#pragma once

#include <string>
#include <string_view>

namespace trl {

// Absolute and normal: starts with '/', no `.` or `..` part (conservatively, no "/." at all, so
// hidden names take the general way too), no doubled slash, no trailing slash but for "/".
inline bool is_clean_abs_path(std::string_view s) {
  return !s.empty() && s.front() == '/' && s.find("/.") == std::string_view::npos &&
         s.find("//") == std::string_view::npos && (s.size() == 1 || s.back() != '/');
}

// The folder of a clean absolute path ("/" for "/" itself and for names right under it), as
// std::filesystem::path::parent_path gives it.
inline std::string clean_parent(std::string_view s) {
  const std::size_t slash = s.rfind('/');
  return slash == 0 || slash == std::string_view::npos ? std::string("/") : std::string(s.substr(0, slash));
}

}  // namespace trl
