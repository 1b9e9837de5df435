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

// The folder of an absolute path as a view into it, no copy: the text before the last slash,
// and "/" for "/" itself and for names right under it (not "", which a configuration lookup
// would take as the working folder). A path with no slash is returned whole.
inline std::string_view folder_view(std::string_view s) {
  const std::size_t slash = s.rfind('/');
  return slash == std::string_view::npos ? s : slash == 0 ? std::string_view("/") : s.substr(0, slash);
}

// The folder of a clean absolute path ("/" for "/" itself and for names right under it), as
// std::filesystem::path::parent_path gives it.
inline std::string clean_parent(std::string_view s) {
  return s.find('/') == std::string_view::npos ? std::string("/") : std::string(folder_view(s));
}

// A relative path whose joining to a clean folder is already normal: not empty, no leading or
// trailing slash, no doubled slash, and (conservatively) no part starting with `.`, so no `.`
// or `..` part.
inline bool is_clean_rel_path(std::string_view s) {
  return !s.empty() && s.front() != '/' && s.front() != '.' && s.back() != '/' &&
         s.find("/.") == std::string_view::npos && s.find("//") == std::string_view::npos;
}

// `base / rel`, lexically normal, when both are clean (is_clean_abs_path, is_clean_rel_path):
// what std::filesystem's `(base / rel).lexically_normal()` gives them. False otherwise, and
// `out` is then unspecified.
inline bool join_clean(std::string_view base, std::string_view rel, std::string& out) {
  if (!is_clean_abs_path(base) || !is_clean_rel_path(rel)) return false;
  out.assign(base);
  if (base.size() > 1) out += '/';
  out += rel;
  return true;
}

}  // namespace trl
