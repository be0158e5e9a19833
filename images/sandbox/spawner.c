/*
 * toolshed-spawner: the executor's fork server inside a sandbox container.
 *
 * Starting a command from the executor (a ~35 MiB Node process) costs a fork of that process;
 * this tiny process, started once by the executor as the container's uid 0 (with the executor's
 * four capabilities), forks and execs on its behalf instead. It is a mechanism only: every
 * policy (which identity, environment, limits, output caps, timeouts, kills) stays in the
 * executor, which sends complete requests.
 *
 * Requests on stdin, each a little-endian u32 length then NUL-terminated fields:
 *   S id uid gid stdin(0|1) cwdfd(0|1) cwd argc argv... envc env...   start a command
 *   K id uid gid                                                      SIGKILL every process of uid
 * Replies on stdout, one line each:
 *   P id pid            started (exec succeeded)
 *   F id errno stage    could not start (nothing runs)
 *   X pid code signal   a started command exited (signal 0 when it exited normally)
 *   K id ok             the kill ran as uid (ok 1) or could not be started (ok 0)
 *
 * The started child, before it drops to the identity, connects to the executor's unix socket
 * (argv[1], in a directory only uid 0 may enter) once per stream: 32-byte header
 * "<id> <fd>" padded with spaces and ended by a newline, then that connection becomes its
 * stdin (fd 0, when asked), stdout, stderr, or the working-directory report (fd 9, when asked).
 * Then, as libuv does for Node's spawn with uid/gid: setsid (own session and process group),
 * drop supplementary groups, setgid, setuid; then chdir as the identity, and execve with the
 * request's environment (PATH searched in it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_FRAME (64u << 20)
#define MAX_FIELDS 200000
#define HEADER 32
#define CWD_FD 9

static const char *sock_path;

static int write_all(int fd, const char *buf, size_t len) {
  while (len > 0) {
    ssize_t n = write(fd, buf, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    buf += n;
    len -= (size_t)n;
  }
  return 0;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
  char line[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n > 0 && write_all(1, line, (size_t)n) < 0) _exit(0); /* the executor is gone */
}

static int parse_id(const char *s, long *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || *end || end == s) return -1;
  *out = v;
  return 0;
}

/* In the child: report why it could not start, then leave. */
static void fail(int errfd, const char *stage) {
  char msg[64];
  int n = snprintf(msg, sizeof msg, "%d %s", errno, stage);
  if (n > 0) (void)write_all(errfd, msg, (size_t)n);
  _exit(127);
}

/* In the child: one connection to the executor, announced with its id and target descriptor. */
static int connect_stream(const char *id, int target) {
  int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return -1;
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, sock_path, sizeof addr.sun_path - 1);
  while (connect(s, (struct sockaddr *)&addr, sizeof addr) < 0) {
    if (errno != EINTR) return -1;
  }
  char header[HEADER + 1];
  int n = snprintf(header, sizeof header, "%s %d", id, target);
  if (n < 0 || n >= HEADER) return -1;
  memset(header + n, ' ', HEADER - 1 - n);
  header[HEADER - 1] = '\n';
  if (write_all(s, header, HEADER) < 0) return -1;
  /* Out of the way of the descriptors the command gets (0-2 and 9). */
  int moved = fcntl(s, F_DUPFD_CLOEXEC, 10);
  close(s);
  return moved;
}

static void exec_in_path(char **argv, char **envp) {
  const char *file = argv[0];
  if (strchr(file, '/')) {
    execve(file, argv, envp);
    return;
  }
  const char *path = "/usr/local/bin:/usr/bin:/bin";
  for (char **e = envp; *e; e++)
    if (strncmp(*e, "PATH=", 5) == 0) path = *e + 5;
  int seen_eacces = 0;
  size_t flen = strlen(file);
  for (const char *p = path;; p++) {
    const char *colon = strchrnul(p, ':');
    size_t dlen = (size_t)(colon - p);
    char full[4096];
    if (dlen + flen + 2 <= sizeof full) {
      memcpy(full, dlen ? p : ".", dlen ? dlen : 1);
      size_t at = dlen ? dlen : 1;
      full[at] = '/';
      memcpy(full + at + 1, file, flen + 1);
      execve(full, argv, envp);
      if (errno == EACCES) seen_eacces = 1;
    }
    if (*colon == '\0') break;
    p = colon;
  }
  errno = seen_eacces ? EACCES : ENOENT;
}

struct start {
  const char *id;
  uid_t uid;
  gid_t gid;
  int want_stdin, want_cwdfd;
  const char *cwd;
  char **argv;
  char **envp;
};

static void child(const struct start *r, int errfd) {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  for (int s = 1; s < NSIG; s++) signal(s, SIG_DFL);
  if (setsid() < 0) fail(errfd, "setsid");
  int out = connect_stream(r->id, 1), err = connect_stream(r->id, 2);
  if (out < 0 || err < 0) fail(errfd, "connect");
  int in = r->want_stdin ? connect_stream(r->id, 0) : open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (in < 0) fail(errfd, "connect");
  int cwdfd = r->want_cwdfd ? connect_stream(r->id, CWD_FD) : -1;
  if (r->want_cwdfd && cwdfd < 0) fail(errfd, "connect");
  if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) fail(errfd, "dup2");
  if (cwdfd >= 0 && dup2(cwdfd, CWD_FD) < 0) fail(errfd, "dup2");
  if (setgroups(0, NULL) < 0) fail(errfd, "setgroups");
  if (setgid(r->gid) < 0) fail(errfd, "setgid");
  if (setuid(r->uid) < 0) fail(errfd, "setuid");
  if (getuid() != r->uid || geteuid() != r->uid || getegid() != r->gid) {
    errno = EPERM;
    fail(errfd, "setuid");
  }
  if (chdir(r->cwd) < 0) fail(errfd, "chdir");
  exec_in_path(r->argv, r->envp);
  fail(errfd, "exec");
}

static void start(char **f, size_t nf) {
  /* S id uid gid stdin cwdfd cwd argc argv... envc env... */
  if (nf < 8) return;
  struct start r = {.id = f[1]};
  long uid, gid, in, cwdfd, argc, envc;
  if (strlen(r.id) > 24 || parse_id(f[2], &uid) || parse_id(f[3], &gid) || parse_id(f[4], &in) ||
      parse_id(f[5], &cwdfd) || parse_id(f[7], &argc)) {
    say("F %s %d request\n", strlen(r.id) > 24 ? "?" : r.id, EINVAL);
    return;
  }
  /* Never root: the identities are all unprivileged (the executor checks this too). */
  if (uid <= 0 || gid <= 0 || argc < 1 || (size_t)(8 + argc) >= nf) {
    say("F %s %d request\n", r.id, EINVAL);
    return;
  }
  if (parse_id(f[8 + argc], &envc) || envc < 0 || (size_t)(9 + argc + envc) > nf) {
    say("F %s %d request\n", r.id, EINVAL);
    return;
  }
  r.uid = (uid_t)uid;
  r.gid = (gid_t)gid;
  r.want_stdin = in == 1;
  r.want_cwdfd = cwdfd == 1;
  r.cwd = f[6];
  /* The fields are NUL-terminated strings in place; argv and envp need NULL-terminated arrays. */
  char **argv = calloc((size_t)argc + 1, sizeof *argv);
  char **envp = calloc((size_t)envc + 1, sizeof *envp);
  if (!argv || !envp) {
    say("F %s %d request\n", r.id, ENOMEM);
    free(argv);
    free(envp);
    return;
  }
  for (long i = 0; i < argc; i++) argv[i] = f[8 + i];
  for (long i = 0; i < envc; i++) envp[i] = f[9 + argc + i];
  r.argv = argv;
  r.envp = envp;

  int errpipe[2];
  if (pipe2(errpipe, O_CLOEXEC) < 0) {
    say("F %s %d pipe\n", r.id, errno);
    goto out;
  }
  pid_t pid = fork();
  if (pid < 0) {
    say("F %s %d fork\n", r.id, errno);
    close(errpipe[0]);
    close(errpipe[1]);
    goto out;
  }
  if (pid == 0) {
    close(errpipe[0]);
    child(&r, errpipe[1]);
  }
  close(errpipe[1]);
  /* EOF: the exec happened (the pipe was close-on-exec); else the child says why it failed. */
  char msg[64];
  ssize_t n;
  do n = read(errpipe[0], msg, sizeof msg - 1);
  while (n < 0 && errno == EINTR);
  close(errpipe[0]);
  if (n > 0) {
    msg[n] = '\0';
    say("F %s %s\n", r.id, msg);
  } else {
    say("P %s %d\n", r.id, (int)pid);
  }
out:
  free(argv);
  free(envp);
}

static void kill_all(char **f, size_t nf) {
  /* K id uid gid: kill(-1) as that uid reaches every process of it at once (never this one). */
  long uid, gid;
  if (nf < 4 || strlen(f[1]) > 24 || parse_id(f[2], &uid) || parse_id(f[3], &gid) || uid <= 0 ||
      gid <= 0) {
    say("K %s 0\n", nf > 1 && strlen(f[1]) <= 24 ? f[1] : "?");
    return;
  }
  pid_t pid = fork();
  if (pid < 0) {
    say("K %s 0\n", f[1]);
    return;
  }
  if (pid == 0) {
    if (setgroups(0, NULL) < 0 || setgid((gid_t)gid) < 0 || setuid((uid_t)uid) < 0) _exit(1);
    if (getuid() != (uid_t)uid) _exit(1);
    kill(-1, SIGKILL);
    _exit(0);
  }
  int st;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  say("K %s %d\n", f[1], WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 1 : 0);
}

static void handle(char *frame, uint32_t len) {
  static char *fields[MAX_FIELDS];
  size_t nf = 0;
  if (len == 0 || frame[len - 1] != '\0') return;
  for (uint32_t at = 0; at < len && nf < MAX_FIELDS;) {
    fields[nf++] = frame + at;
    at += (uint32_t)strlen(frame + at) + 1;
  }
  if (strcmp(fields[0], "S") == 0) start(fields, nf);
  else if (strcmp(fields[0], "K") == 0) kill_all(fields, nf);
}

static void reap(void) {
  int st;
  pid_t pid;
  while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
    if (WIFEXITED(st)) say("X %d %d 0\n", (int)pid, WEXITSTATUS(st));
    else if (WIFSIGNALED(st)) say("X %d -1 %d\n", (int)pid, WTERMSIG(st));
  }
}

int main(int argc, char **argv) {
  if (argc != 2 || strlen(argv[1]) >= sizeof(((struct sockaddr_un *)0)->sun_path)) return 2;
  sock_path = argv[1];
  signal(SIGPIPE, SIG_IGN);
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, NULL);
  int sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
  if (sfd < 0) return 1;
  /* Everything of ours is close-on-exec: a command gets only its own streams. */
  fcntl(0, F_SETFD, FD_CLOEXEC);
  fcntl(1, F_SETFD, FD_CLOEXEC);

  size_t cap = 1 << 16, have = 0;
  char *buf = malloc(cap);
  if (!buf) return 1;
  for (;;) {
    struct pollfd p[2] = {{.fd = 0, .events = POLLIN}, {.fd = sfd, .events = POLLIN}};
    if (poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return 1;
    }
    if (p[1].revents & POLLIN) {
      struct signalfd_siginfo si;
      while (read(sfd, &si, sizeof si) > 0) {
      }
      reap();
    }
    if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      if (have == cap) {
        if (cap >= MAX_FRAME + 4) return 1;
        cap *= 2;
        char *grown = realloc(buf, cap);
        if (!grown) return 1;
        buf = grown;
      }
      ssize_t n = read(0, buf + have, cap - have);
      if (n == 0) return 0; /* the executor closed us: its commands are its to kill */
      if (n < 0) {
        if (errno == EINTR || errno == EAGAIN) continue;
        return 1;
      }
      have += (size_t)n;
      size_t used = 0;
      while (have - used >= 4) {
        uint32_t len;
        memcpy(&len, buf + used, 4);
        if (len > MAX_FRAME) return 1;
        if (have - used - 4 < len) {
          /* Make room for the whole frame. */
          while (cap < (size_t)len + 4) {
            cap *= 2;
            char *grown = realloc(buf, cap);
            if (!grown) return 1;
            buf = grown;
          }
          break;
        }
        handle(buf + used + 4, len);
        used += 4 + len;
      }
      memmove(buf, buf + used, have - used);
      have -= used;
    }
  }
}
