/*
 * Minimal sd_notify(3) for Node: Node's dgram module cannot send Unix datagrams, and libsystemd is not a build
 * dependency we want. Exposes notify(socketPath, message) and throws on failure; the caller decides whether a
 * failure matters. An address starting with '@' is in the abstract namespace, as systemd documents.
 */
#include <errno.h>
#include <node_api.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define MAX_MESSAGE 4096

static napi_value throw_error(napi_env env, const char *message) {
  napi_throw_error(env, NULL, message);
  return NULL;
}

static napi_value notify(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 2) {
    return throw_error(env, "notify(socketPath, message) takes two strings");
  }

  struct sockaddr_un addr;
  memset(&addr, 0, sizeof(addr));
  addr.sun_family = AF_UNIX;
  size_t path_len = 0;
  if (napi_get_value_string_utf8(env, argv[0], addr.sun_path, sizeof(addr.sun_path), &path_len) != napi_ok) {
    return throw_error(env, "socketPath must be a string");
  }
  if (path_len < 2 || path_len >= sizeof(addr.sun_path) - 1 || (addr.sun_path[0] != '/' && addr.sun_path[0] != '@')) {
    return throw_error(env, "socketPath must be an absolute path or an @abstract name that fits sun_path");
  }
  if (addr.sun_path[0] == '@') addr.sun_path[0] = '\0';
  socklen_t addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + path_len);

  char message[MAX_MESSAGE];
  size_t message_len = 0;
  if (napi_get_value_string_utf8(env, argv[1], message, sizeof(message), &message_len) != napi_ok) {
    return throw_error(env, "message must be a string");
  }
  if (message_len == 0 || message_len >= sizeof(message) - 1) {
    return throw_error(env, "message must be between 1 and 4094 bytes");
  }

  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return throw_error(env, strerror(errno));
  ssize_t sent;
  do {
    sent = sendto(fd, message, message_len, MSG_NOSIGNAL, (struct sockaddr *)&addr, addr_len);
  } while (sent < 0 && errno == EINTR);
  int send_errno = errno;
  close(fd);
  if (sent < 0) return throw_error(env, strerror(send_errno));
  if ((size_t)sent != message_len) return throw_error(env, "short write to the notification socket");
  return NULL;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "notify", NAPI_AUTO_LENGTH, notify, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "notify", fn) != napi_ok) return NULL;
  return exports;
}
