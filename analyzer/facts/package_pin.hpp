// A requirement on one of the libraries trl-lint models (trl, transformers, accelerate), as a
// requirements file, pyproject.toml, setup.cfg, setup.py or environment.yml states it.
#pragma once

#include <string>

#include "analyzer/source/source_file.hpp"

namespace trl {

struct PackagePin {
  std::string package;      // normalised name: trl, transformers, accelerate
  std::string spec;         // version clauses as written, e.g. ">=0.19.1,<0.20" ("" = any version)
  bool direct_url = false;  // `trl @ git+https://...` or `git+https://...#egg=trl`: version not knowable
  // The version names an environment variable (`trl==${TRL_VERSION}`, which pip expands at install
  // time in requirements files): version not knowable.
  bool env_var = false;
  // An extra, a dependency group, or a requirement under an environment marker (`; python_version
  // < "3.9"`): it may not be what is installed, so an unconditional pin beside it decides.
  bool optional = false;
  std::string text;  // the requirement as written, for messages
  Span span;

  bool operator==(const PackagePin&) const = default;
};

}  // namespace trl
