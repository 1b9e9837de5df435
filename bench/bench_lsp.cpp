// Edit-to-diagnostics latency of `trl-lint server`, end to end over its stdio: a synthetic
// 1,000-file workspace with a 3,000-line training script; the script is opened and edited 200
// times (one incremental change each), each edit followed by a pull-diagnostics request whose
// answer ends the measurement (the server handles messages in order).
//
//   bench_lsp TRL_LINT [EDITS]  -> p50 / p95 / max in ms
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

std::string script(int lines) {
  std::string s =
      "from trl import SFTConfig, SFTTrainer, TrlParser, ModelConfig, ScriptArguments\n"
      "from datasets import load_dataset\n\n";
  int n = 3;
  for (int f = 0; n < lines - 8; ++f) {
    s += "def helper_" + std::to_string(f) + "(x, y=1):\n";
    n++;
    for (int i = 0; i < 8 && n < lines - 8; ++i, ++n) s += "    x = x + y * " + std::to_string(i) + "\n";
    s += "    return x\n\n";
    n += 2;
  }
  s += "if __name__ == \"__main__\":\n"
       "    parser = TrlParser((ScriptArguments, SFTConfig, ModelConfig))\n"
       "    script_args, training_args, model_args = parser.parse_args_and_config()\n"
       "    trainer = SFTTrainer(model=model_args.model_name_or_path, args=training_args,\n"
       "                         train_dataset=load_dataset(script_args.dataset_name)['train'])\n"
       "    trainer.train()\n";
  return s;
}

void make_workspace(const fs::path& root) {
  write(root / "train.py", script(3000));
  write(root / "launch.sh", "accelerate launch --config_file accel.yaml train.py --config recipe.yaml\n");
  write(root / "accel.yaml",
        "distributed_type: FSDP\nnum_processes: 2\nparallelism_config:\n  parallelism_config_cp_size: 2\n");
  write(root / "recipe.yaml", "model_name_or_path: Qwen/Qwen2.5-0.5B\npacking: true\nmax_length: 4096\n");
  for (int i = 0; i < 996; ++i) {
    const fs::path dir = root / ("pkg" + std::to_string(i / 50));
    if (i % 50 == 1) {
      // Other runs (20): a launch line and a small training script of their own.
      write(dir / ("launch" + std::to_string(i) + ".sh"),
            "accelerate launch --num_processes 2 " + (dir / ("train" + std::to_string(i) + ".py")).string() + "\n");
      ++i;
      write(dir / ("train" + std::to_string(i - 1) + ".py"),
            "from trl import SFTConfig, SFTTrainer\n\nargs = SFTConfig(output_dir='out', packing=True)\n"
            "SFTTrainer(model='m', args=args, train_dataset=None).train()\n");
    } else if (i % 3 == 0)
      write(dir / ("conf" + std::to_string(i) + ".yaml"), "learning_rate: 1.0e-05\nnum_train_epochs: 1\n");
    else
      write(dir / ("mod" + std::to_string(i) + ".py"),
            "VALUE = " + std::to_string(i) + "\n\ndef f(x):\n    return x + VALUE\n");
  }
}

struct Child {
  pid_t pid = -1;
  FILE* to = nullptr;
  FILE* from = nullptr;
};

Child spawn(const std::string& exe, const fs::path& cwd) {
  int in[2], out[2];
  if (pipe(in) != 0 || pipe(out) != 0) std::exit(2);
  Child c;
  c.pid = fork();
  if (c.pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    close(in[1]);
    close(out[0]);
    fs::current_path(cwd);
    if (std::getenv("TRL_LINT_BENCH_LOG"))
      execl(exe.c_str(), exe.c_str(), "server", "--log-timing", static_cast<char*>(nullptr));
    else
      execl(exe.c_str(), exe.c_str(), "server", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  c.to = fdopen(in[1], "w");
  c.from = fdopen(out[0], "r");
  return c;
}

void send(Child& c, const json& j) {
  const std::string body = j.dump();
  std::fprintf(c.to, "Content-Length: %zu\r\n\r\n%s", body.size(), body.c_str());
  std::fflush(c.to);
}

json receive(Child& c) {
  std::size_t length = 0;
  char line[256];
  while (std::fgets(line, sizeof line, c.from)) {
    if (std::sscanf(line, "Content-Length: %zu", &length) == 1) continue;
    if (line[0] == '\r' || line[0] == '\n') break;
  }
  std::string body(length, '\0');
  if (length && std::fread(body.data(), 1, length, c.from) != length) std::exit(2);
  return length ? json::parse(body) : json();
}

json wait_response(Child& c, int id) {
  while (true) {
    json j = receive(c);
    if (j.is_null()) std::exit(2);
    if (j.contains("id") && j["id"] == id) return j;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_lsp TRL_LINT [EDITS]\n");
    return 2;
  }
  const std::string exe = fs::absolute(argv[1]).string();
  const int edits = argc > 2 ? std::atoi(argv[2]) : 200;
  const fs::path root = fs::temp_directory_path() / ("trl-lint-bench-lsp-" + std::to_string(getpid()));
  make_workspace(root);
  Child c = spawn(exe, root);
  const std::string uri = "file://" + (root / "train.py").string();
  std::ifstream in(root / "train.py");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto t0 = std::chrono::steady_clock::now();
  send(c, {{"jsonrpc", "2.0"},
           {"id", 1},
           {"method", "initialize"},
           {"params",
            {{"processId", nullptr}, {"rootUri", "file://" + root.string()}, {"capabilities", json::object()}}}});
  wait_response(c, 1);
  const double init_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  send(c, {{"jsonrpc", "2.0"}, {"method", "initialized"}, {"params", json::object()}});
  send(c, {{"jsonrpc", "2.0"},
           {"method", "textDocument/didOpen"},
           {"params", {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}}}});
  std::vector<double> ms;
  for (int i = 0; i < edits; ++i) {
    const int line = 10 + (i * 37) % 2900;
    json change = {
        {"range", {{"start", {{"line", line}, {"character", 4}}}, {"end", {{"line", line}, {"character", 5}}}}},
        {"text", i % 2 ? "x" : "y"}};
    const auto start = std::chrono::steady_clock::now();
    send(c, {{"jsonrpc", "2.0"},
             {"method", "textDocument/didChange"},
             {"params", {{"textDocument", {{"uri", uri}, {"version", i + 2}}}, {"contentChanges", {change}}}}});
    send(c, {{"jsonrpc", "2.0"},
             {"id", 100 + i},
             {"method", "textDocument/diagnostic"},
             {"params", {{"textDocument", {{"uri", uri}}}}}});
    wait_response(c, 100 + i);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  send(c, {{"jsonrpc", "2.0"}, {"id", 2}, {"method", "shutdown"}});
  wait_response(c, 2);
  send(c, {{"jsonrpc", "2.0"}, {"method", "exit"}});
  int status = 0;
  waitpid(c.pid, &status, 0);
  fs::remove_all(root);
  std::sort(ms.begin(), ms.end());
  auto pct = [&](double p) { return ms[std::min(ms.size() - 1, static_cast<std::size_t>(p * ms.size()))]; };
  std::printf("workspace: 1000 files (21 runs), 3000-line script; initialize %.1f ms\n", init_ms);
  std::printf("edit-to-diagnostics over %d edits: p50 %.1f ms, p95 %.1f ms, max %.1f ms\n", edits, pct(0.5), pct(0.95),
              ms.back());
  return 0;
}
