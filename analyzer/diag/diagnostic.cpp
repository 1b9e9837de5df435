#include "analyzer/diag/diagnostic.hpp"

namespace trl {

const char* to_string(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Info: return "info";
  }
  return "error";
}

}  // namespace trl
