// bench/fsync_bench.cpp: what one commit's fdatasync costs on the disk under a folder, when the
// write extends the file and when it overwrites blocks the file already has. Every
// acknowledgement waits for such a sync of the event log's WAL; extending the file also
// commits the file system's journal (the new size), which on ext4 about doubles the latency.
// That is why storage::Checkpointer lets the WAL start over (storage/checkpointer.hpp).
//   ./bench/fsync_bench [--dir DIR] [--syncs 3000] [--bytes 16384]
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace {

struct Run {
  const char* name;
  bool written_before;  // the blocks exist (overwrite) or the file grows with each write
};

// Writes `syncs` blocks of `bytes` one after another, each followed by fdatasync; returns the
// sorted latencies in microseconds, or an empty vector with errno set.
std::vector<double> measure(const std::string& path, const Run& run, int syncs, size_t bytes) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return {};
  const std::string block(bytes, 'x');
  std::vector<double> us;
  bool ok = true;
  if (run.written_before) {
    for (int i = 0; i < syncs && ok; ++i)
      ok = ::pwrite(fd, block.data(), bytes, static_cast<off_t>(i * bytes)) ==
           static_cast<ssize_t>(bytes);
    ok = ok && ::fsync(fd) == 0;
  }
  for (int i = 0; i < syncs && ok; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    ok = ::pwrite(fd, block.data(), bytes, static_cast<off_t>(i * bytes)) ==
             static_cast<ssize_t>(bytes) &&
         ::fdatasync(fd) == 0;
    us.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  ::close(fd);
  ::unlink(path.c_str());
  if (!ok) return {};
  std::sort(us.begin(), us.end());
  return us;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"fdatasync latency: extending a file vs overwriting its blocks"};
  std::string dir = ".";
  int syncs = 3000;
  size_t bytes = 16384;
  int rounds = 2;
  app.add_option("--dir", dir, "folder on the disk to measure (the gateway's data_dir)");
  app.add_option("--syncs", syncs, "writes and syncs per run")->check(CLI::Range(100, 1000000));
  app.add_option("--bytes", bytes, "bytes per write (a commit of a few WAL frames)")
      ->check(CLI::Range(512, 1 << 24));
  app.add_option("--rounds", rounds, "alternating rounds of both runs")->check(CLI::Range(1, 100));
  CLI11_PARSE(app, argc, argv);
  const std::string path = (std::filesystem::path(dir) / "fsync_bench.tmp").string();
  const Run runs[] = {{"extending", false}, {"overwriting", true}};
  for (int round = 1; round <= rounds; ++round)
    for (const Run& run : runs) {
      const auto us = measure(path, run, syncs, bytes);
      if (us.empty()) {
        std::perror(("fsync_bench: " + path).c_str());
        return 1;
      }
      const auto at = [&](double q) {
        return us[static_cast<size_t>(q * static_cast<double>(us.size() - 1))];
      };
      std::printf(
          "round %d %-11s %zu B x %d: p50 %.0f us, p90 %.0f, p99 %.0f, p99.9 %.0f, max %.0f\n",
          round, run.name, bytes, syncs, at(0.5), at(0.9), at(0.99), at(0.999), us.back());
    }
  return 0;
}
