// Drives the real binaries: one-shot over a pipe, the engine worker and the runtime daemon over
// real Unix sockets.
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/framing.hpp"
#include "../common/json.hpp"
#include "../common/rng.hpp"
#include "../common/unix_socket.hpp"
#include "../engine/engine.hpp"
#include "check.hpp"

using ds::json::Value;

namespace {

std::string bin(const char* name) { return ds::test::build_dir() + "/" + name; }

std::string sock_path(const char* tag) { return "/tmp/ds-native-test-" + std::to_string(getpid()) + "-" + tag + ".sock"; }

pid_t spawn(const std::vector<std::string>& argv) {
  pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> a;
    for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    execv(a[0], a.data());
    _exit(127);
  }
  return pid;
}

int connect_retry(const std::string& path, int timeout_ms = 5000) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < end) {
    int fd = ds::sock::connect_unix(path);
    if (fd >= 0) return fd;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return -1;
}

// Reads one frame with a timeout; returns false on timeout/EOF/error.
bool recv_frame(int fd, Value& out, int timeout_ms = 30000) {
  pollfd p{fd, POLLIN, 0};
  if (poll(&p, 1, timeout_ms) <= 0) return false;
  std::string payload;
  if (ds::frame::read_frame(fd, payload) != ds::frame::ReadStatus::Ok) return false;
  out = ds::json::parse(payload);
  return true;
}

bool send_json(int fd, const std::string& json) { return ds::frame::write_frame(fd, json); }

// True once `pid` is no process or a zombie (its reaper may not have collected it yet); waits up to 3 s.
bool is_gone_within_3s(pid_t pid) {
  for (int i = 0; i < 300; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string pid_s, comm, state;
    if (!(stat >> pid_s >> comm >> state) || state == "Z") return true;
    usleep(10000);
  }
  return false;
}

// Waits for the child to exit; returns its exit code, or -1 on timeout / signal.
int wait_exit(pid_t pid, int timeout_ms = 5000) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < end) {
    int st = 0;
    pid_t r = waitpid(pid, &st, WNOHANG);
    if (r == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  return -1;
}

bool exists(const std::string& path) {
  struct stat st{};
  return lstat(path.c_str(), &st) == 0;
}

// Runs `simulate` one-shot with `input` on stdin. Returns the exit code; stdout in `out`.
int one_shot(const std::string& input, std::string& out) {
  const std::string file = "/tmp/ds-native-test-" + std::to_string(getpid()) + "-input.json";
  {
    std::ofstream f(file, std::ios::binary);
    f << input;
  }
  const std::string cmd = bin("simulate") + " < " + file;
  FILE* p = popen(cmd.c_str(), "r");
  out.clear();
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int st = pclose(p);
  unlink(file.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

std::string strip_compute_ms(Value v) {
  auto& o = v.as_object();
  for (size_t i = 0; i < o.size(); ++i)
    if (o[i].first == "compute_ms") o.erase(o.begin() + static_cast<long>(i));
  return ds::json::serialize(v);
}

const char* kRequest =
    R"J({"runs":30000,"seed":424242,"detail":"full","scenario":{"variables":{"price":{"low":8,"high":12,"distribution":"pert","mode":9},
    "volume":{"low":1000,"high":5000,"distribution":"lognormal"},"cost":{"low":5000,"high":20000,"distribution":"normal"}},
    "objective":"maximize_net_value","model":"price * volume - cost","target":10000,
    "actions":[{"name":"launch"},{"name":"pilot","set":{"volume":{"low":500,"high":1500}}},{"name":"skip","model":"0"}]}})J";

}  // namespace

TEST(one_shot_binary) {
  std::string out;
  CHECK(one_shot(kRequest, out) == 0);
  Value r = ds::json::parse(out);
  CHECK(r.find("recommended_action") != nullptr);
  // Same bytes as the in-process call, apart from compute_ms.
  Value direct;
  ds::engine::Error err;
  CHECK(ds::engine::simulate(ds::json::parse(kRequest), {}, direct, err));
  CHECK(strip_compute_ms(r) == strip_compute_ms(direct));
  // Bad requests: exit 2 with an error object on stdout.
  CHECK(one_shot(R"J({"scenario":{"variables":{"x":{"low":1,"high":0}},"objective":"maximize_value"}})J", out) == 2);
  Value e = ds::json::parse(out);
  CHECK_EQ_STR(e.find("error")->find("code")->as_string(), "validation_failed");
  CHECK_EQ_STR(e.find("error")->find("details")->as_array()[0].find("field")->as_string(), "scenario.variables.x.high");
  CHECK(one_shot("", out) == 2);
  CHECK_EQ_STR(ds::json::parse(out).find("error")->find("code")->as_string(), "invalid_json");
  ds::rng::Xoshiro256ss g = ds::rng::Xoshiro256ss::for_chunk(9, 9);
  for (int i = 0; i < 20; ++i) {
    std::string garbage;
    for (int k = 0; k < 200; ++k) garbage.push_back(static_cast<char>(g.next() % 256));
    if (i % 2) garbage = std::string(kRequest).substr(0, g.next() % 300) + garbage.substr(0, 5);
    CHECK(one_shot(garbage, out) == 2);
    CHECK(ds::json::parse(out).find("error") != nullptr);
  }
}

TEST(engine_serve_mode_over_a_real_socket) {
  const std::string path = sock_path("sim");
  pid_t pid = spawn({bin("simulate"), "--serve", path});
  int fd = connect_retry(path);
  CHECK(fd >= 0);
  if (fd < 0) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    return;
  }
  Value hello;
  CHECK(recv_frame(fd, hello));
  CHECK_EQ_STR(hello.find("type")->as_string(), "hello");
  CHECK_EQ_STR(hello.find("version")->as_string(), "1.0.0");
  CHECK(hello.find("pid")->as_number() == pid);

  Value reply;
  CHECK(send_json(fd, R"J({"type":"ping"})J") && recv_frame(fd, reply));
  CHECK_EQ_STR(ds::json::serialize(reply), R"J({"type":"pong"})J");

  CHECK(send_json(fd, std::string(R"J({"type":"run","id":"r-1","deadline_ms":60000,"request":)J") + kRequest + "}"));
  CHECK(recv_frame(fd, reply));
  CHECK_EQ_STR(reply.find("type")->as_string(), "result");
  CHECK_EQ_STR(reply.find("id")->as_string(), "r-1");
  std::string out;
  CHECK(one_shot(kRequest, out) == 0);
  CHECK(strip_compute_ms(*reply.find("result")) == strip_compute_ms(ds::json::parse(out)));

  // The same request again on the warm worker: same bytes.
  Value again;
  CHECK(send_json(fd, std::string(R"J({"type":"run","id":"r-2","request":)J") + kRequest + "}") && recv_frame(fd, again));
  CHECK(strip_compute_ms(*reply.find("result")) == strip_compute_ms(*again.find("result")));

  CHECK(send_json(fd, R"J({"type":"run","id":"bad","deadline_ms":1000,"request":{"scenario":{"variables":{"x":{"low":0,"high":1}},
        "objective":"maximize_value","model":"x + y"}}})J") && recv_frame(fd, reply));
  CHECK_EQ_STR(reply.find("type")->as_string(), "error");
  CHECK_EQ_STR(reply.find("id")->as_string(), "bad");
  CHECK_EQ_STR(reply.find("error")->find("code")->as_string(), "validation_failed");
  CHECK(reply.find("error")->find("details")->as_array()[0].find("problem")->as_string() == "unknown name 'y' at position 4");

  CHECK(send_json(fd, R"J({"type":"run","id":"slow","deadline_ms":1,"request":{"runs":10000000,"seed":1,"scenario":{
        "variables":{"x":{"low":0,"high":1}},"objective":"maximize_value"}}})J") && recv_frame(fd, reply));
  CHECK_EQ_STR(reply.find("error")->find("code")->as_string(), "engine_timeout");
  CHECK_EQ_STR(reply.find("id")->as_string(), "slow");

  CHECK(send_json(fd, R"J({"type":"dance","id":"d"})J") && recv_frame(fd, reply));
  CHECK_EQ_STR(reply.find("type")->as_string(), "error");
  CHECK_EQ_STR(reply.find("error")->find("code")->as_string(), "unknown_type");
  CHECK(send_json(fd, "{not json") && recv_frame(fd, reply));
  CHECK_EQ_STR(reply.find("error")->find("code")->as_string(), "invalid_json");
  CHECK(send_json(fd, R"J({"type":"run","id":7,"request":{}})J") && recv_frame(fd, reply));
  CHECK_EQ_STR(reply.find("error")->find("code")->as_string(), "invalid_frame");

  // Still alive after errors.
  CHECK(send_json(fd, R"J({"type":"ping"})J") && recv_frame(fd, reply));
  CHECK_EQ_STR(reply.find("type")->as_string(), "pong");

  close(fd);  // EOF: the worker exits 0 and removes its socket
  CHECK(wait_exit(pid) == 0);
  CHECK(!exists(path));
}

TEST(engine_serve_rejects_oversized_frames) {
  const std::string path = sock_path("big");
  pid_t pid = spawn({bin("simulate"), "--serve", path});
  int fd = connect_retry(path);
  CHECK(fd >= 0);
  Value hello, reply;
  CHECK(recv_frame(fd, hello));
  const unsigned char header[4] = {0x04, 0x00, 0x00, 0x01};  // 64 MiB + 1
  CHECK(ds::frame::write_all(fd, header, 4));
  CHECK(recv_frame(fd, reply));
  CHECK_EQ_STR(reply.find("error")->find("code")->as_string(), "payload_too_large");
  CHECK(wait_exit(pid) == 1);
  close(fd);
}

TEST(engine_worker_dies_with_its_parent) {
  // middle forks the worker and exits; the worker must not outlive it (PR_SET_PDEATHSIG).
  const std::string path = sock_path("orphan");
  int pfd[2];
  CHECK(pipe(pfd) == 0);
  pid_t middle = fork();
  if (middle == 0) {
    pid_t w = spawn({bin("simulate"), "--serve", path});
    ssize_t wr = write(pfd[1], &w, sizeof w);
    (void)wr;
    // Give the worker time to start listening, then die.
    for (int i = 0; i < 500 && !exists(path); ++i) usleep(10000);
    _exit(0);
  }
  pid_t worker = 0;
  CHECK(read(pfd[0], &worker, sizeof worker) == sizeof worker);
  close(pfd[0]);
  close(pfd[1]);
  waitpid(middle, nullptr, 0);
  CHECK(is_gone_within_3s(worker));
  unlink(path.c_str());
}

TEST(engine_worker_refuses_to_start_without_its_parent) {
  const std::string path = sock_path("noparent");
  pid_t pid = spawn({bin("simulate"), "--serve", path, "--parent-pid", "999999999"});
  CHECK(wait_exit(pid) == 1);
  CHECK(!exists(path));
  pid = spawn({bin("simulate"), "--serve", path, "--parent-pid", "abc"});
  CHECK(wait_exit(pid) == 64);
  // Its own parent, named: it serves (and exits when this process closes the connection it never opens).
  pid = spawn({bin("simulate"), "--serve", path, "--parent-pid", std::to_string(getpid())});
  int fd = connect_retry(path);
  CHECK(fd >= 0);
  if (fd >= 0) close(fd);
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  unlink(path.c_str());
}

TEST(supervised_runtime_stops_cleanly_when_its_parent_dies) {
  const std::string path = sock_path("rt-orphan");
  int pfd[2];
  CHECK(pipe(pfd) == 0);
  pid_t middle = fork();
  if (middle == 0) {
    pid_t r = spawn({bin("runtime"), "--serve", path, "--parent-pid", std::to_string(getpid())});
    ssize_t wr = write(pfd[1], &r, sizeof r);
    (void)wr;
    for (int i = 0; i < 500 && !exists(path); ++i) usleep(10000);
    _exit(exists(path) ? 0 : 1);
  }
  pid_t runtime = 0;
  CHECK(read(pfd[0], &runtime, sizeof runtime) == sizeof runtime);
  close(pfd[0]);
  close(pfd[1]);
  int status = 0;
  waitpid(middle, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK(is_gone_within_3s(runtime));
  // SIGTERM from the kernel is a clean stop: the socket file is removed.
  CHECK(!exists(path));
  unlink(path.c_str());
}

TEST(supervised_runtime_refuses_to_start_without_its_parent) {
  const std::string path = sock_path("rt-noparent");
  pid_t pid = spawn({bin("runtime"), "--serve", path, "--parent-pid", "999999999"});
  CHECK(wait_exit(pid) == 1);
  CHECK(!exists(path));
  pid = spawn({bin("runtime"), "--serve", path, "--parent-pid", "abc"});
  CHECK(wait_exit(pid) == 64);
}

TEST(runtime_daemon_over_a_real_socket) {
  const std::string path = sock_path("rt");
  pid_t pid = spawn({bin("runtime"), "--serve", path});
  int a = connect_retry(path);
  int b = connect_retry(path);
  CHECK(a >= 0 && b >= 0);
  if (a < 0 || b < 0) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    return;
  }
  // Client a sends half a frame; client b is still served meanwhile.
  const std::string frame = ds::frame::encode(
      R"J({"type":"execute","module":"finance","function":"npv","args":{"rate":0.1,"cashflows":[-100,60,60]},"request_id":"q1"})J");
  CHECK(ds::frame::write_all(a, frame.data(), 10));
  Value reply;
  CHECK(send_json(b, R"J({"type":"manifest"})J") && recv_frame(b, reply, 5000));
  CHECK_EQ_STR(reply.find("type")->as_string(), "manifest");
  CHECK(reply.find("modules")->as_array().size() == 4);
  CHECK(send_json(b, R"J({"type":"health"})J") && recv_frame(b, reply, 5000));
  CHECK_EQ_STR(reply.find("status")->as_string(), "ok");
  CHECK(reply.find("uptime_s")->as_number() >= 0);
  CHECK_EQ_STR(ds::json::serialize(reply.find("modules")->as_array()[1]), R"J({"name":"finance","status":"ok"})J");
  CHECK(ds::frame::write_all(a, frame.data() + 10, frame.size() - 10));
  CHECK(recv_frame(a, reply, 5000));
  CHECK_EQ_STR(reply.find("type")->as_string(), "result");
  CHECK_EQ_STR(reply.find("request_id")->as_string(), "q1");
  CHECK_NEAR(reply.find("result")->as_number(), 4.1322314049586777, 1e-12);
  CHECK_EQ_STR(reply.find("engine_used")->as_string(), "native");
  CHECK(reply.find("latency_ms")->as_number() >= 0);

  CHECK(send_json(b, R"J({"type":"execute","module":"finance","function":"irr","args":[[1,2]],"request_id":"q2"})J") &&
        recv_frame(b, reply, 5000));
  CHECK_EQ_STR(reply.find("type")->as_string(), "error");
  CHECK_EQ_STR(reply.find("request_id")->as_string(), "q2");
  CHECK_EQ_STR(reply.find("error")->find("code")->as_string(), "invalid_args");
  CHECK(send_json(b, R"J({"type":"execute","module":"astro","function":"x","request_id":"q3"})J") && recv_frame(b, reply, 5000));
  CHECK_EQ_STR(reply.find("error")->find("code")->as_string(), "unknown_module");
  CHECK(send_json(b, "[1,2") && recv_frame(b, reply, 5000));
  CHECK_EQ_STR(reply.find("error")->find("code")->as_string(), "invalid_json");

  // Two frames in one write are both answered, in order.
  std::string two = ds::frame::encode(R"J({"type":"execute","module":"stats","function":"mean","args":[1,2],"request_id":"m1"})J") +
                    ds::frame::encode(R"J({"type":"execute","module":"stats","function":"mean","args":[3,5],"request_id":"m2"})J");
  CHECK(ds::frame::write_all(a, two.data(), two.size()));
  CHECK(recv_frame(a, reply, 5000) && reply.find("result")->as_number() == 1.5);
  CHECK(recv_frame(a, reply, 5000) && reply.find("result")->as_number() == 4);

  // An oversized frame gets an error and that connection is closed; others stay up.
  const unsigned char header[4] = {0x05, 0x00, 0x00, 0x00};
  CHECK(ds::frame::write_all(b, header, 4));
  CHECK(recv_frame(b, reply, 5000));
  CHECK_EQ_STR(reply.find("error")->find("code")->as_string(), "payload_too_large");
  CHECK(!recv_frame(b, reply, 2000));
  CHECK(send_json(a, R"J({"type":"health"})J") && recv_frame(a, reply, 5000));

  CHECK(kill(pid, SIGTERM) == 0);
  CHECK(wait_exit(pid) == 0);
  CHECK(!exists(path));
  close(a);
  close(b);
}

TEST(version_and_manifest_flags) {
  FILE* p = popen((bin("simulate") + " --version").c_str(), "r");
  char buf[256] = {0};
  CHECK(fgets(buf, sizeof buf, p) != nullptr);
  pclose(p);
  CHECK_EQ_STR(std::string(buf), "1.0.0\n");
  p = popen((bin("runtime") + " --manifest").c_str(), "r");
  std::string out;
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  Value m = ds::json::parse(out.substr(0, out.size() - 1));
  CHECK(m.find("modules")->as_array().size() == 4);
}
