// Commands that write a file named in their arguments (`cp a f`, `tee f`, `wget -O f URL`,
// `curl -O URL`): the files a script creates before a launch reads them.
#include <functional>
#include <string>

#include "analyzer/shell/shell_internal.hpp"

namespace trl::shell::detail {

// Commands that write a file named in their arguments.
void Walker::file_writers(std::string_view prog, const std::vector<RawWord>& argv, std::uint32_t base) {
  auto at = [&](const RawWord& w) { return span(base + w.begin, base + w.end); };
  if ((prog == "cp" || prog == "mv" || prog == "ln" || prog == "install") && argv.size() >= 3) {
    created(argv.back(), at(argv.back()));
  } else if (prog == "tee" || prog == "touch") {
    for (std::size_t k = 1; k < argv.size(); ++k)
      if (!argv[k].text.empty() && argv[k].text[0] != '-') created(argv[k], at(argv[k]));
  } else if (prog == "wget") {
    wget_writes(argv, at);
  } else if (prog == "curl") {
    curl_writes(argv, at);
  }
}

// The file name wget and `curl -O` give a download: the last part of the URL's path. Empty when
// that is not plain (a folder URL, a query or fragment, %-escapes: wget then names the file
// otherwise, `index.html` or with the query kept).
std::string Walker::remote_name(std::string_view url) {
  const std::size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return {};
  const std::string_view rest = url.substr(scheme + 3);
  const std::size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return {};
  const std::string_view path = rest.substr(slash);
  if (path.find_first_of("?#%") != std::string_view::npos) return {};
  const std::string_view name = path.substr(path.rfind('/') + 1);
  if (name.empty() || name == "." || name == "..") return {};
  return std::string(name);
}

bool Walker::is_url(const RawWord& w) {
  return w.known &&
         (w.text.rfind("http://", 0) == 0 || w.text.rfind("https://", 0) == 0 || w.text.rfind("ftp://", 0) == 0);
}

// `wget -O FILE URL` writes FILE (`-O -`: standard output); `wget URL` writes the URL's last path
// part into the current folder (GNU wget's default naming). Options that name the file some
// other way (a directory prefix, recursion, the server's name) leave the name unknown.
void Walker::wget_writes(const std::vector<RawWord>& argv, const std::function<Span(const RawWord&)>& at) {
  bool named = false, other_naming = false;
  std::vector<const RawWord*> urls;
  for (std::size_t k = 1; k < argv.size(); ++k) {
    const RawWord& w = argv[k];
    const std::string& t = w.text;
    if (!w.known) {
      other_naming = true;
      continue;
    }
    auto output = [&](const RawWord& file, std::string_view text) {
      named = true;
      if (text != "-") {
        RawWord f = file;
        f.text = std::string(text);
        created(f, at(file));
      }
    };
    if (t == "-O" || t == "--output-document") {
      if (k + 1 < argv.size()) output(argv[k + 1], argv[k + 1].text);
      ++k;
    } else if (t.rfind("--output-document=", 0) == 0) {
      output(w, std::string_view(t).substr(18));
    } else if (t.size() > 2 && t[0] == '-' && t[1] != '-' && t.back() == 'O') {
      // a cluster of short options ending in O (`-qO FILE`)
      if (k + 1 < argv.size()) output(argv[k + 1], argv[k + 1].text);
      ++k;
    } else if (t.rfind("-O", 0) == 0 && t.size() > 2) {
      output(w, std::string_view(t).substr(2));
    } else if (t == "-P" || t == "--directory-prefix" || t.rfind("--directory-prefix=", 0) == 0 ||
               t.rfind("-P", 0) == 0 || t == "-r" || t == "--recursive" || t == "-m" || t == "--mirror" || t == "-x" ||
               t == "--force-directories" || t == "-i" || t.rfind("--input-file", 0) == 0 ||
               t == "--content-disposition" || t == "--trust-server-names" || t == "-p" || t == "--page-requisites" ||
               t == "-B" || t.rfind("--base", 0) == 0) {
      other_naming = true;
    } else if (is_url(w)) {
      urls.push_back(&w);
    }
  }
  if (named || other_naming) return;
  for (const RawWord* u : urls)
    if (std::string name = remote_name(u->text); !name.empty()) {
      RawWord f = *u;
      f.text = std::move(name);
      created(f, at(*u));
    }
}

// `curl -o FILE` / `--output FILE` writes FILE; `curl -O URL` / `--remote-name` writes the URL's
// last path part (`--remote-name-all`: for every URL). `-J` (the server's name) and
// `--output-dir` leave the name of `-O` downloads unknown.
void Walker::curl_writes(const std::vector<RawWord>& argv, const std::function<Span(const RawWord&)>& at) {
  std::size_t remote = 0, outputs = 0;
  bool remote_all = false, other_naming = false;
  std::vector<const RawWord*> urls;
  for (std::size_t k = 1; k < argv.size(); ++k) {
    const RawWord& w = argv[k];
    const std::string& t = w.text;
    if (!w.known) continue;
    if (t == "-o" || t == "--output") {
      ++outputs;
      if (k + 1 < argv.size() && argv[k + 1].text != "-") created(argv[k + 1], at(argv[k + 1]));
      ++k;
    } else if (t == "--remote-name") {
      ++remote;
    } else if (t == "--remote-name-all") {
      remote_all = true;
    } else if (t == "--remote-header-name" || t.rfind("--output-dir", 0) == 0) {
      other_naming = true;
    } else if (t.size() > 1 && t[0] == '-' && t[1] != '-') {
      // short options, alone or clustered (`-sSLO`, `-Lo FILE`, `-oFILE`)
      for (std::size_t i = 1; i < t.size(); ++i) {
        if (t[i] == 'O') ++remote;
        if (t[i] == 'J') other_naming = true;
        if (t[i] == 'o') {
          ++outputs;
          if (i + 1 < t.size()) {
            RawWord f = w;
            f.text = t.substr(i + 1);
            if (f.text != "-") created(f, at(w));
          } else if (k + 1 < argv.size()) {
            if (argv[k + 1].text != "-") created(argv[k + 1], at(argv[k + 1]));
            ++k;
          }
          break;
        }
      }
    } else if (is_url(w)) {
      urls.push_back(&w);
    }
  }
  // Each -O names one URL, in order; mixed with -o, which URL each takes is not followed here.
  if (other_naming || (outputs > 0 && !remote_all)) return;
  for (std::size_t i = 0; i < urls.size(); ++i) {
    if (!remote_all && i >= remote) break;
    if (std::string name = remote_name(urls[i]->text); !name.empty()) {
      RawWord f = *urls[i];
      f.text = std::move(name);
      created(f, at(*urls[i]));
    }
  }
}

}  // namespace trl::shell::detail
