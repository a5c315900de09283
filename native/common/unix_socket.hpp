// Unix-domain stream sockets only: neither binary ever opens a network socket.
#pragma once

#include <cerrno>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace ds::sock {

// Creates, binds and listens on `path`. A stale socket file is unlinked first; any other kind of
// file at that path is left alone and reported. Returns the listening fd, or -1 with `err` set.
inline int listen_unix(const std::string& path, int backlog, std::string& err) {
  sockaddr_un addr{};
  if (path.empty() || path.size() >= sizeof(addr.sun_path)) {
    err = "socket path is empty or longer than " + std::to_string(sizeof(addr.sun_path) - 1) + " bytes";
    return -1;
  }
  struct stat st{};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) {
      err = "refusing to replace '" + path + "': it exists and is not a socket";
      return -1;
    }
    if (::unlink(path.c_str()) != 0) {
      err = "cannot remove stale socket '" + path + "': " + std::strerror(errno);
      return -1;
    }
  }
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    err = std::string("socket(): ") + std::strerror(errno);
    return -1;
  }
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    err = "cannot bind '" + path + "': " + std::strerror(errno);
    ::close(fd);
    return -1;
  }
  ::chmod(path.c_str(), 0660);
  if (::listen(fd, backlog) != 0) {
    err = std::string("listen(): ") + std::strerror(errno);
    ::close(fd);
    ::unlink(path.c_str());
    return -1;
  }
  return fd;
}

// Client side, used by the tests. Returns the connected fd or -1.
inline int connect_unix(const std::string& path) {
  sockaddr_un addr{};
  if (path.size() >= sizeof(addr.sun_path)) return -1;
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

inline bool set_nonblocking(int fd) {
  int fl = ::fcntl(fd, F_GETFL, 0);
  return fl >= 0 && ::fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0;
}

}  // namespace ds::sock
