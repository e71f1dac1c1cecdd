// gateway/command_runner.cpp: see command_runner.hpp.
#include "gateway/command_runner.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <initializer_list>

extern char** environ;

namespace ocppgw::gateway {
namespace {

void close_all(std::initializer_list<int> fds) {
  for (int fd : fds) ::close(fd);
}
// Writes with SIGPIPE blocked on this thread, and takes a SIGPIPE raised meanwhile off the
// pending set: a command that exits without reading its stdin (it may not need the request) must
// not kill the gateway, whose other threads leave SIGPIPE at its default.
void write_all(int fd, const std::string& text) {
  sigset_t pipe_signal, before;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, &before);
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EPIPE) {
      const timespec now{};
      while (sigtimedwait(&pipe_signal, nullptr, &now) < 0 && errno == EINTR) {
      }
    }
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
}
// Reads both pipes until both end, or false once the timeout passes. Output beyond 1 MiB is
// dropped: no hook's answer is that long.
bool read_until_eof(int out_fd, int err_fd, std::string& out, std::string& err,
                    std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  std::string* sinks[2] = {&out, &err};
  int open = 2;
  while (open > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    const int ready = ::poll(fds, 2, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[4096];
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        if (sinks[i]->size() < (1u << 20)) sinks[i]->append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        fds[i].fd = -1;
        --open;
      }
    }
  }
  return true;
}

}  // namespace

bool CommandResult::ok() const {
  return started && in_time && WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0;
}

std::string CommandResult::failure() const {
  if (!started) return "could not be started: " + error;
  if (!in_time) return "did not finish within " + std::to_string(timeout.count()) + " s";
  std::string status =
      WIFEXITED(wait_status)     ? "exit status " + std::to_string(WEXITSTATUS(wait_status))
      : WIFSIGNALED(wait_status) ? "killed by signal " + std::to_string(WTERMSIG(wait_status))
                                 : "status " + std::to_string(wait_status);
  return "failed (" + status + "): " + err.substr(0, 300);
}

CommandResult run_command(const std::string& command, const std::string& input,
                          const std::vector<std::string>& env, std::chrono::seconds timeout) {
  CommandResult r;
  r.timeout = timeout;
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0) return r.error = "pipe: " + std::string(strerror(errno)), r;
  if (pipe2(out, O_CLOEXEC) != 0) {
    close_all({in[0], in[1]});
    return r.error = "pipe: " + std::string(strerror(errno)), r;
  }
  if (pipe2(err, O_CLOEXEC) != 0) {
    close_all({in[0], in[1], out[0], out[1]});
    return r.error = "pipe: " + std::string(strerror(errno)), r;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  // The command gets nothing else of the gateway's: no listening socket, no database.
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  // The child's environment: the gateway's, plus what identifies the request.
  std::vector<std::string> env_text;
  for (char** e = environ; *e; ++e) env_text.emplace_back(*e);
  env_text.insert(env_text.end(), env.begin(), env.end());
  std::vector<char*> envp;
  for (auto& s : env_text) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string sh = "/bin/sh", dash_c = "-c";
  std::string text = command;
  char* argv[] = {sh.data(), dash_c.data(), text.data(), nullptr};
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, "/bin/sh", &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close_all({in[0], out[1], err[1]});
  if (spawned != 0) {
    close_all({in[1], out[0], err[0]});
    return r.error = strerror(spawned), r;
  }
  // A request is a few KiB (a CSR; an EXI request is at most 5,600 characters), well within a
  // pipe's buffer, so writing it whole cannot block on a command that reads nothing. A command
  // that does not read it is judged by what it prints.
  write_all(in[1], input);
  ::close(in[1]);
  r.in_time = read_until_eof(out[0], err[0], r.out, r.err, timeout);
  close_all({out[0], err[0]});
  if (!r.in_time) ::kill(pid, SIGKILL);
  while (waitpid(pid, &r.wait_status, 0) < 0 && errno == EINTR) {
  }
  r.started = true;
  return r;
}

}  // namespace ocppgw::gateway
