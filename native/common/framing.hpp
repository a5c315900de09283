// Length-prefixed framing used on every Unix socket: a 4-byte big-endian unsigned payload length,
// then that many bytes of UTF-8 JSON. Frames above 64 MiB are refused.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include <sys/types.h>
#include <unistd.h>

namespace ds::frame {

constexpr uint32_t kMaxFrame = 64u * 1024u * 1024u;

inline uint32_t decode_length(const unsigned char* h) {
  return (static_cast<uint32_t>(h[0]) << 24) | (static_cast<uint32_t>(h[1]) << 16) |
         (static_cast<uint32_t>(h[2]) << 8) | static_cast<uint32_t>(h[3]);
}

inline void append_frame(std::string& out, std::string_view payload) {
  uint32_t n = static_cast<uint32_t>(payload.size());
  char h[4] = {static_cast<char>(n >> 24), static_cast<char>(n >> 16), static_cast<char>(n >> 8),
               static_cast<char>(n)};
  out.append(h, 4);
  out.append(payload.data(), payload.size());
}

inline std::string encode(std::string_view payload) {
  std::string out;
  out.reserve(payload.size() + 4);
  append_frame(out, payload);
  return out;
}

// Blocking write of the whole buffer; false on any error (the peer went away).
inline bool write_all(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

inline bool write_frame(int fd, std::string_view payload) {
  std::string f = encode(payload);
  return write_all(fd, f.data(), f.size());
}

enum class ReadStatus { Ok, Eof, TooLarge, Error };

// Reads exactly n bytes. Returns Eof only when the stream ended before the first byte.
inline ReadStatus read_exact(int fd, char* p, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::read(fd, p + got, n - got);
    if (r < 0) {
      if (errno == EINTR) continue;
      return ReadStatus::Error;
    }
    if (r == 0) return got == 0 ? ReadStatus::Eof : ReadStatus::Error;
    got += static_cast<size_t>(r);
  }
  return ReadStatus::Ok;
}

// Blocking read of one frame. Eof: clean end between frames; TooLarge: header announced more than
// kMaxFrame (the payload is not read); Error: I/O error or a stream cut inside a frame.
inline ReadStatus read_frame(int fd, std::string& out) {
  unsigned char h[4];
  ReadStatus st = read_exact(fd, reinterpret_cast<char*>(h), 4);
  if (st != ReadStatus::Ok) return st;
  uint32_t n = decode_length(h);
  if (n > kMaxFrame) return ReadStatus::TooLarge;
  out.assign(n, '\0');
  if (n == 0) return ReadStatus::Ok;
  st = read_exact(fd, &out[0], n);
  return st == ReadStatus::Eof ? ReadStatus::Error : st;
}

// Incremental decoder for non-blocking servers: feed bytes, then pop complete frames.
class Decoder {
 public:
  enum class Result { NeedMore, Frame, TooLarge };

  void feed(const char* data, size_t n) { buf_.append(data, n); }

  Result next(std::string& out) {
    if (buf_.size() - off_ < 4) {
      compact();
      return Result::NeedMore;
    }
    uint32_t n = decode_length(reinterpret_cast<const unsigned char*>(buf_.data() + off_));
    if (n > kMaxFrame) return Result::TooLarge;
    if (buf_.size() - off_ - 4 < n) {
      compact();
      return Result::NeedMore;
    }
    out.assign(buf_, off_ + 4, n);
    off_ += 4 + static_cast<size_t>(n);
    return Result::Frame;
  }

  size_t buffered() const { return buf_.size() - off_; }

 private:
  void compact() {
    if (off_ > 0) {
      buf_.erase(0, off_);
      off_ = 0;
    }
  }
  std::string buf_;
  size_t off_ = 0;
};

}  // namespace ds::frame
