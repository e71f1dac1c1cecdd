// delta/fs.cpp
#include "delta/fs.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

namespace ocppgw::delta {

namespace {

util::Status errno_error(const std::string& what) {
  return util::Status::error(what + ": " + std::strerror(errno));
}

util::Status write_new_file(const std::filesystem::path& path, std::string_view content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return errno_error("creating " + path.string());
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      auto s = errno_error("writing " + path.string());
      ::close(fd);
      return s;
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    auto s = errno_error("fsync " + path.string());
    ::close(fd);
    return s;
  }
  if (::close(fd) != 0) return errno_error("closing " + path.string());
  return {};
}

std::filesystem::path temp_beside(const std::filesystem::path& path) {
  // Hidden (leading dot) so no Delta reader or lister takes it for a log entry.
  return path.parent_path() / ("." + path.filename().string() + "." + random_uuid() + ".tmp");
}

}  // namespace

util::Status fsync_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno_error("opening " + path.string());
  const int rc = ::fsync(fd);
  ::close(fd);
  return rc == 0 ? util::Status{} : errno_error("fsync " + path.string());
}

util::Status fsync_dir(const std::filesystem::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno_error("opening " + dir.string());
  const int rc = ::fsync(fd);
  ::close(fd);
  return rc == 0 ? util::Status{} : errno_error("fsync " + dir.string());
}

CreateResult create_exclusive(const std::filesystem::path& path, std::string_view content,
                              util::Status* status) {
  const auto tmp = temp_beside(path);
  if (auto s = write_new_file(tmp, content); !s.ok()) {
    ::unlink(tmp.c_str());
    *status = s;
    return CreateResult::kExists;
  }
  const int rc = ::link(tmp.c_str(), path.c_str());
  const int link_errno = errno;
  ::unlink(tmp.c_str());
  if (rc != 0) {
    if (link_errno == EEXIST) return CreateResult::kExists;
    errno = link_errno;
    *status = errno_error("linking " + path.string());
    return CreateResult::kExists;
  }
  if (auto s = fsync_dir(path.parent_path()); !s.ok()) *status = s;
  return CreateResult::kCreated;
}

util::Status replace_file(const std::filesystem::path& path, std::string_view content) {
  const auto tmp = temp_beside(path);
  if (auto s = write_new_file(tmp, content); !s.ok()) {
    ::unlink(tmp.c_str());
    return s;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    auto s = errno_error("renaming to " + path.string());
    ::unlink(tmp.c_str());
    return s;
  }
  return fsync_dir(path.parent_path());
}

std::string read_file(const std::filesystem::path& path, util::Status* status) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *status = util::Status::error("cannot read " + path.string());
    return {};
  }
  std::ostringstream out;
  out << in.rdbuf();
  return std::move(out).str();
}

std::string random_uuid() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  const uint64_t hi = (rng() & 0xFFFFFFFFFFFF0FFFull) | 0x0000000000004000ull;
  const uint64_t lo = (rng() & 0x3FFFFFFFFFFFFFFFull) | 0x8000000000000000ull;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xFFFF), static_cast<unsigned>(hi & 0xFFFF),
                static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFull));
  return buf;
}

void fault_point(std::string_view point, std::string_view detail) {
  const char* crash = std::getenv("OCPPGW_DELTA_CRASH_AT");
  const char* pause = std::getenv("OCPPGW_DELTA_PAUSE_AT");
  if (crash == nullptr && pause == nullptr) return;
  const std::string here =
      detail.empty() ? std::string(point) : std::string(point) + ":" + std::string(detail);
  auto matches = [&](std::string_view wanted) { return wanted == here || wanted == point; };
  if (crash != nullptr && matches(crash)) ::kill(::getpid(), SIGKILL);
  if (pause != nullptr) {
    const std::string_view spec(pause);
    const size_t eq = spec.rfind('=');
    if (eq != std::string_view::npos && matches(spec.substr(0, eq)))
      ::usleep(static_cast<useconds_t>(std::atoi(pause + eq + 1)) * 1000);
  }
}

}  // namespace ocppgw::delta
