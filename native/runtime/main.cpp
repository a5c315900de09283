// engine_build/runtime: the runtime-library daemon. Serves framed JSON on a Unix socket to any number
// of local clients through one poll() loop. It never opens a network socket.
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../common/framing.hpp"
#include "../common/json.hpp"
#include "../common/unix_socket.hpp"
#include "../common/version.hpp"
#include "modules.hpp"

namespace {

using ds::json::Value;
using Clock = std::chrono::steady_clock;

constexpr size_t kMaxClients = 512;
int g_signal_pipe[2] = {-1, -1};

void on_signal(int) {
  const char c = 1;
  ssize_t r = ::write(g_signal_pipe[1], &c, 1);
  (void)r;
}

struct Client {
  int fd;
  ds::frame::Decoder in;
  std::string out;
  bool closing = false;  // close once `out` is flushed
};

Value error_reply(const Value& request_id, const std::string& code, const std::string& message) {
  Value e = Value::object();
  e.set("code", code);
  e.set("message", message);
  Value f = Value::object();
  f.set("type", "error");
  f.set("request_id", request_id);
  f.set("error", std::move(e));
  return f;
}

class Server {
 public:
  explicit Server(std::string path) : path_(std::move(path)), started_(Clock::now()) {}

  int run() {
    std::string err;
    lfd_ = ds::sock::listen_unix(path_, 64, err);
    if (lfd_ < 0) {
      std::fprintf(stderr, "runtime: %s\n", err.c_str());
      return 1;
    }
    ds::sock::set_nonblocking(lfd_);
    std::fprintf(stderr, "runtime: listening on %s (version %s)\n", path_.c_str(), DS_RUNTIME_VERSION);
    bool stop = false;
    std::vector<pollfd> pfds;
    while (!stop) {
      pfds.clear();
      pfds.push_back({g_signal_pipe[0], POLLIN, 0});
      pfds.push_back({lfd_, POLLIN, 0});
      for (const auto& c : clients_) {
        short ev = c->closing ? 0 : POLLIN;
        if (!c->out.empty()) ev |= POLLOUT;
        pfds.push_back({c->fd, ev, 0});
      }
      int n = ::poll(pfds.data(), pfds.size(), -1);
      if (n < 0) {
        if (errno == EINTR) continue;
        std::fprintf(stderr, "runtime: poll failed: %s\n", std::strerror(errno));
        break;
      }
      if (pfds[0].revents & POLLIN) stop = true;
      if (pfds[1].revents & POLLIN) accept_all();
      // Client entries follow the two fixed ones, in the order they were added above.
      const size_t count = pfds.size() - 2;
      for (size_t i = 0; i < count; ++i) {
        Client& c = *clients_[i];
        const short re = pfds[i + 2].revents;
        if (re & (POLLIN | POLLHUP | POLLERR)) on_readable(c);
        if ((re & POLLOUT) || !c.out.empty()) flush(c);
      }
      reap();
    }
    for (auto& c : clients_) ::close(c->fd);
    ::close(lfd_);
    ::unlink(path_.c_str());
    std::fprintf(stderr, "runtime: stopped\n");
    return 0;
  }

 private:
  void accept_all() {
    for (;;) {
      int fd = ::accept4(lfd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (fd < 0) return;
      if (clients_.size() >= kMaxClients) {
        ::close(fd);
        continue;
      }
      auto c = std::make_unique<Client>();
      c->fd = fd;
      clients_.push_back(std::move(c));
    }
  }

  void on_readable(Client& c) {
    if (c.closing) return;
    char buf[65536];
    for (;;) {
      ssize_t r = ::read(c.fd, buf, sizeof buf);
      if (r > 0) {
        c.in.feed(buf, static_cast<size_t>(r));
        if (!drain_frames(c)) return;
        continue;
      }
      if (r == 0) {
        c.closing = true;  // peer finished sending; answer what we have, then close
        return;
      }
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) {
        c.closing = true;
        c.out.clear();
      }
      return;
    }
  }

  // Handles every complete frame; false when the connection must be closed.
  bool drain_frames(Client& c) {
    std::string payload;
    for (;;) {
      auto r = c.in.next(payload);
      if (r == ds::frame::Decoder::Result::NeedMore) return true;
      if (r == ds::frame::Decoder::Result::TooLarge) {
        queue(c, error_reply(nullptr, "payload_too_large", "The frame is larger than 64 MiB; closing the connection."));
        c.closing = true;
        return false;
      }
      queue(c, handle(payload));
    }
  }

  void queue(Client& c, const Value& v) { ds::frame::append_frame(c.out, ds::json::serialize(v)); }

  void flush(Client& c) {
    while (!c.out.empty()) {
      ssize_t w = ::send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
      if (w > 0) {
        c.out.erase(0, static_cast<size_t>(w));
        continue;
      }
      if (w < 0 && errno == EINTR) continue;
      if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      c.out.clear();
      c.closing = true;
      return;
    }
  }

  void reap() {
    for (size_t i = 0; i < clients_.size();) {
      if (clients_[i]->closing && clients_[i]->out.empty()) {
        ::close(clients_[i]->fd);
        clients_.erase(clients_.begin() + static_cast<long>(i));
      } else {
        ++i;
      }
    }
  }

  Value handle(const std::string& payload) {
    Value msg;
    try {
      msg = ds::json::parse(payload);
    } catch (const ds::json::ParseError& e) {
      return error_reply(nullptr, "invalid_json", std::string("The frame is not valid JSON: ") + e.what() + ".");
    }
    const Value* rid = msg.find("request_id");
    const Value request_id = rid ? *rid : Value(nullptr);
    const Value* type = msg.find("type");
    if (!type || !type->is_string())
      return error_reply(request_id, "invalid_frame", "The frame must be a JSON object with a string 'type'.");
    const std::string& t = type->as_string();
    if (t == "manifest") return ds::runtime::manifest();
    if (t == "health") return health();
    if (t == "execute") return execute(msg, request_id);
    return error_reply(request_id, "unknown_type", "Unknown frame type '" + t + "'; expected manifest, health or execute.");
  }

  Value health() const {
    Value h = Value::object();
    h.set("type", "health");
    h.set("status", "ok");
    h.set("version", DS_RUNTIME_VERSION);
    h.set("uptime_s", std::chrono::duration<double>(Clock::now() - started_).count());
    Value mods = Value::array();
    for (const auto& m : ds::runtime::list_modules()) {
      Value o = Value::object();
      o.set("name", m.name);
      o.set("status", "ok");
      mods.push(std::move(o));
    }
    h.set("modules", std::move(mods));
    return h;
  }

  Value execute(const Value& msg, const Value& request_id) const {
    const auto t0 = Clock::now();
    const Value* module = msg.find("module");
    const Value* function = msg.find("function");
    if (!module || !module->is_string())
      return error_reply(request_id, "invalid_args", "The execute frame needs a string 'module'.");
    if (!function || !function->is_string())
      return error_reply(request_id, "invalid_args", "The execute frame needs a string 'function'.");
    const Value* args = msg.find("args");
    Value result;
    ds::runtime::ExecError err;
    if (!ds::runtime::execute(module->as_string(), function->as_string(), args ? *args : Value(nullptr), result, err))
      return error_reply(request_id, err.code, err.message);
    Value r = Value::object();
    r.set("type", "result");
    r.set("request_id", request_id);
    r.set("result", std::move(result));
    r.set("latency_ms", std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    r.set("engine_used", "native");
    return r;
  }

  std::string path_;
  Clock::time_point started_;
  int lfd_ = -1;
  std::vector<std::unique_ptr<Client>> clients_;
};

int usage() {
  std::fprintf(stderr, "usage: runtime --serve <socket_path> [--parent-pid <pid>] | --manifest | --version\n");
  return 64;
}

bool parse_pid(const char* text, pid_t& pid) {
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value <= 1) return false;
  pid = static_cast<pid_t>(value);
  return true;
}

// A supervised child must not outlive the daemon, even one killed with SIGKILL: the kernel sends SIGTERM
// (handled like any other stop) when the parent dies. A parent that died before prctl() took effect is
// caught by comparing getppid() with the pid the supervisor passed in.
bool die_with_parent(pid_t expected_parent) {
  if (::prctl(PR_SET_PDEATHSIG, SIGTERM) != 0) {
    std::fprintf(stderr, "runtime: prctl(PR_SET_PDEATHSIG) failed: %s\n", std::strerror(errno));
    return false;
  }
  if (::getppid() != expected_parent) {
    std::fprintf(stderr, "runtime: parent %d is gone; exiting\n", static_cast<int>(expected_parent));
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--version") == 0) {
    std::printf("%s\n", DS_RUNTIME_VERSION);
    return 0;
  }
  if (argc == 2 && std::strcmp(argv[1], "--manifest") == 0) {
    std::printf("%s\n", ds::json::serialize(ds::runtime::manifest()).c_str());
    return 0;
  }
  const bool serve = (argc == 3 || argc == 5) && std::strcmp(argv[1], "--serve") == 0;
  if (serve) {
    pid_t parent = 0;
    if (argc == 5 && (std::strcmp(argv[3], "--parent-pid") != 0 || !parse_pid(argv[4], parent))) return usage();
    if (::pipe2(g_signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) return 1;
    struct sigaction sa{};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGINT, &sa, nullptr);
    std::signal(SIGPIPE, SIG_IGN);
    // The handler is installed first, so a parent death from here on is a clean stop (socket unlinked).
    if (parent != 0 && !die_with_parent(parent)) return 1;
    return Server(argv[2]).run();
  }
  return usage();
}
