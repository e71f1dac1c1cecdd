// util/secret.cpp: see secret.hpp.
#include "util/secret.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <openssl/crypto.h>

#include "util/hex.hpp"

namespace ocppgw::util {
namespace {

std::optional<std::string> read_first_line(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::string line;
  std::getline(in, line);
  const auto begin = line.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return std::nullopt;
  return line.substr(begin, line.find_last_not_of(" \t\r") - begin + 1);
}

}  // namespace

std::optional<std::string> load_or_create_secret(const std::string& path, bool* generated,
                                                 Status* status) {
  if (generated) *generated = false;
  auto fail = [&](std::string message) -> std::optional<std::string> {
    if (status) *status = Status::error(std::move(message));
    return std::nullopt;
  };
  std::error_code ec;
  const auto dir = std::filesystem::path(path).parent_path();
  if (!dir.empty()) std::filesystem::create_directories(dir, ec);
  if (auto existing = read_first_line(path)) return existing;
  auto secret = random_hex(32);
  if (!secret) return fail("cannot generate a random secret");
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) {
    if (errno == EEXIST)
      if (auto existing = read_first_line(path)) return existing;  // another process won
    return fail("cannot create " + path + ": " + std::strerror(errno));
  }
  const std::string line = *secret + "\n";
  const bool ok = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()) &&
                  ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) return fail("cannot write " + path);
  if (generated) *generated = true;
  return secret;
}

bool constant_time_equal(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace ocppgw::util
