// engine_build/simulate: one-shot (stdin -> stdout) or a warm worker on a Unix socket.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../common/framing.hpp"
#include "../common/json.hpp"
#include "../common/unix_socket.hpp"
#include "../common/version.hpp"
#include "engine.hpp"

namespace {

using ds::json::Value;

void report_memory() {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return;
  char line[256];
  while (std::fgets(line, sizeof line, f))
    if (std::strncmp(line, "VmHWM:", 6) == 0) std::fprintf(stderr, "peak_rss %s", line + 6);
  std::fclose(f);
}

Value error_body(const std::string& code, const std::string& message) {
  Value e = Value::object();
  e.set("code", code);
  e.set("message", message);
  return e;
}

int usage() {
  std::fprintf(stderr,
               "usage: simulate [--deadline-ms N] [--report-memory] < request.json\n"
               "       simulate --serve <socket_path> [--parent-pid <pid>]\n"
               "       simulate --version\n");
  return 64;
}

// One-shot: exit 0 with a result, 2 for a bad request, 3 on deadline, 1 on an internal error.
int one_shot(bool has_deadline, double deadline_ms, bool memory) {
  const auto t0 = std::chrono::steady_clock::now();
  std::string input;
  char buf[65536];
  size_t got;
  bool too_large = false;
  while ((got = std::fread(buf, 1, sizeof buf, stdin)) > 0) {
    input.append(buf, got);
    if (input.size() > ds::frame::kMaxFrame) {
      too_large = true;
      break;
    }
  }
  Value out = Value::object();
  int rc = 0;
  if (too_large) {
    out.set("error", error_body("payload_too_large", "The request is larger than 64 MiB."));
    rc = 2;
  } else {
    Value req;
    bool parsed = true;
    try {
      req = ds::json::parse(input);
    } catch (const ds::json::ParseError& e) {
      out.set("error", error_body("invalid_json", std::string("The request is not valid JSON: ") + e.what() + "."));
      rc = 2;
      parsed = false;
    }
    if (parsed) {
      ds::engine::Options opt;
      if (has_deadline) {
        opt.has_deadline = true;
        opt.deadline = t0 + std::chrono::microseconds(static_cast<long long>(deadline_ms * 1000.0));
      }
      Value result;
      ds::engine::Error err;
      if (ds::engine::simulate(req, opt, result, err)) {
        out = std::move(result);
      } else {
        out.set("error", err.to_json());
        rc = err.code == "validation_failed" ? 2 : err.code == "engine_timeout" ? 3 : 1;
      }
    }
  }
  std::string text = ds::json::serialize(out);
  text.push_back('\n');
  ds::frame::write_all(STDOUT_FILENO, text.data(), text.size());
  if (memory) report_memory();
  return rc;
}

bool send(int fd, const Value& v) { return ds::frame::write_frame(fd, ds::json::serialize(v)); }

Value error_frame(const Value& id, const Value& error) {
  Value f = Value::object();
  f.set("type", "error");
  f.set("id", id);
  f.set("error", error);
  return f;
}

// No orphans: die with the daemon, including if it died before the prctl took effect. The daemon passes its
// pid; without it, the parent seen at start is the best guess (a parent gone before that is not caught).
int serve(const std::string& path, pid_t expected_parent) {
  const pid_t parent = expected_parent > 0 ? expected_parent : getppid();
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) return 1;
  std::signal(SIGPIPE, SIG_IGN);

  std::string err;
  int lfd = ds::sock::listen_unix(path, 1, err);
  if (lfd < 0) {
    std::fprintf(stderr, "simulate: %s\n", err.c_str());
    return 1;
  }
  int fd;
  do {
    fd = ::accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  ::close(lfd);
  if (fd < 0) {
    std::fprintf(stderr, "simulate: accept failed: %s\n", std::strerror(errno));
    ::unlink(path.c_str());
    return 1;
  }

  Value hello = Value::object();
  hello.set("type", "hello");
  hello.set("version", DS_ENGINE_VERSION);
  hello.set("pid", static_cast<long long>(getpid()));
  if (!send(fd, hello)) return 1;

  int rc = 0;
  std::string payload;
  for (;;) {
    auto st = ds::frame::read_frame(fd, payload);
    if (st == ds::frame::ReadStatus::Eof) break;
    if (st == ds::frame::ReadStatus::TooLarge) {
      send(fd, error_frame(nullptr, error_body("payload_too_large", "The frame is larger than 64 MiB.")));
      rc = 1;
      break;
    }
    if (st != ds::frame::ReadStatus::Ok) {
      rc = 1;
      break;
    }
    const auto received = std::chrono::steady_clock::now();
    Value msg;
    try {
      msg = ds::json::parse(payload);
    } catch (const ds::json::ParseError& e) {
      if (!send(fd, error_frame(nullptr, error_body("invalid_json", std::string("The frame is not valid JSON: ") + e.what() + "."))))
        break;
      continue;
    }
    const Value* type = msg.find("type");
    const Value* idp = msg.find("id");
    Value id = idp ? *idp : Value(nullptr);
    if (!type || !type->is_string()) {
      if (!send(fd, error_frame(id, error_body("invalid_frame", "The frame must be an object with a string 'type'."))))
        break;
      continue;
    }
    const std::string& t = type->as_string();
    Value reply;
    if (t == "ping") {
      reply = Value::object();
      reply.set("type", "pong");
    } else if (t == "run") {
      const Value* dl = msg.find("deadline_ms");
      const Value* req = msg.find("request");
      if (!idp || !idp->is_string()) {
        reply = error_frame(id, error_body("invalid_frame", "A run frame needs a string 'id'."));
      } else if (dl && !(dl->is_number() && dl->as_number() > 0)) {
        reply = error_frame(id, error_body("invalid_frame", "'deadline_ms' must be a positive number of milliseconds."));
      } else if (!req) {
        reply = error_frame(id, error_body("invalid_frame", "A run frame needs a 'request' object."));
      } else {
        ds::engine::Options opt;
        if (dl) {
          opt.has_deadline = true;
          double ms = std::min(dl->as_number(), 1e12);
          opt.deadline = received + std::chrono::microseconds(static_cast<long long>(ms * 1000.0));
        }
        Value result;
        ds::engine::Error e;
        if (ds::engine::simulate(*req, opt, result, e)) {
          reply = Value::object();
          reply.set("type", "result");
          reply.set("id", id);
          reply.set("result", std::move(result));
        } else {
          reply = error_frame(id, e.to_json());
        }
      }
    } else {
      reply = error_frame(id, error_body("unknown_type", "Unknown frame type '" + t + "'; expected ping or run."));
    }
    if (!send(fd, reply)) {
      rc = 1;
      break;
    }
  }
  ::close(fd);
  ::unlink(path.c_str());
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  bool memory = false, has_deadline = false;
  double deadline_ms = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--version") {
      std::printf("%s\n", DS_ENGINE_VERSION);
      return 0;
    }
    if (a == "--serve") {
      if (i + 1 >= argc) return usage();
      pid_t parent = 0;
      if (i + 2 < argc) {
        if (i + 4 != argc || std::string(argv[i + 2]) != "--parent-pid") return usage();
        char* end = nullptr;
        const long value = std::strtol(argv[i + 3], &end, 10);
        if (end == argv[i + 3] || *end != '\0' || value <= 1) return usage();
        parent = static_cast<pid_t>(value);
      }
      return serve(argv[i + 1], parent);
    }
    if (a == "--report-memory") {
      memory = true;
    } else if (a == "--deadline-ms" && i + 1 < argc) {
      char* end = nullptr;
      deadline_ms = std::strtod(argv[++i], &end);
      if (!end || *end != '\0' || !(deadline_ms > 0)) return usage();
      has_deadline = true;
    } else {
      return usage();
    }
  }
  return one_shot(has_deadline, deadline_ms, memory);
}
