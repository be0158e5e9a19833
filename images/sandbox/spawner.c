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
 *   S id uid gid cwdfd(0|1) cwd argc argv... envc env... stdinlen <stdin bytes>   start a command
 *   K id uid gid                                                                  SIGKILL every process of uid
 * stdinlen is -1 for no stdin (the command reads /dev/null), else the number of raw bytes that
 * follow its NUL to the end of the frame: they are written to the command's stdin, then it is closed.
 *
 * Replies on stdout, one line each, binary-safe (an O line is followed by exactly len bytes):
 *   P id pid            started (the exec succeeded); always before any O, E or X of it
 *   F id errno stage    could not start (nothing runs)
 *   O id fd len         len bytes the command wrote to fd (1, 2, or 9 when asked) follow
 *   E id fd             that stream is at its end (every holder of it closed it)
 *   X pid code signal alone   the command exited (signal 0 when it exited normally); alone is 1
 *                       when, once it was reaped, this process had no child left at all (so, as
 *                       the orphans' subreaper, nothing it started was alive), else 0; a word
 *                       only where the kernel gives orphans to a subreaper (gVisor accepts
 *                       the request but gives them to the init: there it means nothing)
 *   K id ok             the kill ran as uid (ok 1) or could not be started (ok 0)
 *   R                   once, first: this process adopts the commands' orphans (see main)
 * P, O and E lines are held until a line that ends something (X, F, K) is queued, HOLD_NS has
 * passed, or a chunk's worth is queued: a short command's start, output, ends and exit reach the
 * executor in one write, which it handles in one wake-up (unheld: up to seven, one per line).
 * An E of a command that exited already (a process it left held the stream) is not held: its
 * call waits for it, and no X may come to send it with.
 *
 * A command's streams are pipes whose other ends stay here: its output is relayed over this
 * process's stdout instead of each command connecting back to the executor, so a start costs no
 * connection.
 * The child is made with vfork: the spawner waits while it sets itself up (a few system calls)
 * and execs, so its result is known when vfork returns, without a pipe or a wake-up. In the
 * child, as libuv does for Node's spawn with uid/gid: setsid (own session and process group),
 * drop supplementary groups, setgid, setuid (checked); then chdir as the identity and execve with
 * the request's environment (PATH searched in it). (A new session is a new scheduling autogroup,
 * which made the exec after it slow when the spawner waited on a pipe for the exec; suspended in
 * vfork it waits no longer with setsid than with setpgid: measured, see NOTES-spawn17.md.)
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
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_FRAME (64u << 20)
#define MAX_FIELDS 200000
#define CWD_FD 9
#define CHUNK 65536
/* Every command's nice value (child): ~1/9 of the executor's CPU weight each. Like the OOM order,
 * only this spawner's commands have it; Node's spawn, used while it restarts, does not. */
#define COMMAND_NICE 10
/* Past this much unsent output, commands' streams are not read until the executor catches up
 * (they block on their pipes); replies still queue, so starts and kills are never held up. */
#define HIGH_WATER (1u << 20)
/* How long a start, output or stream end may wait for more to send with it (see the header):
 * long enough for a short command to end, short next to any timeout or a caller watching output.
 * (A test builds it with another value.) */
#ifndef HOLD_NS
#define HOLD_NS 5000000LL
#endif


/* ---- the reply buffer, flushed to the executor without ever blocking this process ---- */

static char *out;
static size_t out_len, out_cap;
/* When the oldest byte not yet written was queued (0: none); whether a line that must not wait
 * is queued; whether a write fell short (then nothing more is written until there is room). */
static long long held_at;
static int urgent, stalled;

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void out_room(size_t more) {
  if (!held_at) held_at = now_ns();
  if (out_len + more <= out_cap) return;
  size_t cap = out_cap ? out_cap : 1 << 16;
  while (cap < out_len + more) cap *= 2;
  char *grown = realloc(out, cap);
  if (!grown) _exit(1);
  out = grown;
  out_cap = cap;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
  char line[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n <= 0 || (size_t)n >= sizeof line) return;
  out_room((size_t)n);
  memcpy(out + out_len, line, (size_t)n);
  out_len += (size_t)n;
  if (fmt[0] != 'P' && fmt[0] != 'O' && fmt[0] != 'E') urgent = 1;
}

/* Writes what it can; returns -1 when the executor is gone. */
static int flush_out(void) {
  size_t done = 0;
  while (done < out_len) {
    ssize_t n = write(1, out + done, out_len - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) break;
      return -1;
    }
    done += (size_t)n;
  }
  memmove(out, out + done, out_len - done);
  out_len -= done;
  stalled = out_len > 0;
  if (!out_len) held_at = urgent = 0;
  return 0;
}

/* Whether what is queued goes now (see the header), given poll's answer for our stdout. */
static int flush_due(short out_revents) {
  if (!out_len) return 0;
  if (stalled) return out_revents != 0;
  return urgent || out_len >= CHUNK || now_ns() - held_at >= HOLD_NS;
}

/* ---- the commands' streams ---- */

struct stream {
  int fd;      /* our end of the pipe (non-blocking) */
  char id[32]; /* the request it belongs to (streams may outlive the command's pid) */
  int target;  /* 0 (its stdin, written), 1, 2 or 9 (read and relayed) */
  char *data;  /* stdin only: what is still to write */
  size_t len, off;
  pid_t pid;   /* the command's */
  int exited;  /* its X is queued: this stream's end may be the last thing its call waits for */
};

static struct stream *streams;
static size_t nstreams, streams_cap;

static void add_stream(int fd, const char *id, int target, char *data, size_t len, pid_t pid) {
  if (nstreams == streams_cap) {
    size_t cap = streams_cap ? streams_cap * 2 : 64;
    struct stream *grown = realloc(streams, cap * sizeof *grown);
    if (!grown) _exit(1);
    streams = grown;
    streams_cap = cap;
  }
  streams[nstreams] = (struct stream){.fd = fd, .target = target, .data = data, .len = len, .pid = pid};
  snprintf(streams[nstreams++].id, sizeof streams->id, "%s", id);
}

static void drop_stream(size_t i) {
  close(streams[i].fd);
  free(streams[i].data);
  if (streams[i].target != 0) {
    say("E %s %d\n", streams[i].id, streams[i].target);
    /* Its command exited before (a process it left held the stream): nothing else may come to
     * send this end with, and the call's answer waits for it. */
    if (streams[i].exited) urgent = 1;
  }
  streams[i] = streams[--nstreams];
}

/* Relays what a command wrote; false when the stream is at its end. */
static int relay(struct stream *s) {
  char buf[CHUNK];
  ssize_t n = read(s->fd, buf, sizeof buf);
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  if (n == 0) return 0;
  say("O %s %d %zd\n", s->id, s->target, n);
  out_room((size_t)n);
  memcpy(out + out_len, buf, (size_t)n);
  out_len += (size_t)n;
  return 1;
}

/* Feeds a command's stdin; false when all is written or the command closed it. */
static int feed(struct stream *s) {
  while (s->off < s->len) {
    ssize_t n = write(s->fd, s->data + s->off, s->len - s->off);
    if (n < 0) return errno == EINTR || errno == EAGAIN;
    s->off += (size_t)n;
  }
  return 0;
}

/* ---- starting a command ---- */

static int parse_id(const char *s, long *out_v) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || *end || end == s) return -1;
  *out_v = v;
  return 0;
}

struct start {
  uid_t uid;
  gid_t gid;
  const char *cwd;
  char **argv;
  char **envp;
  int fds[4]; /* the child's ends: stdin (or -1 for /dev/null), stdout, stderr, cwd report (or -1) */
};

/* Set by a vfork child that could not start (shared memory until its _exit). */
static volatile int child_errno;
static volatile const char *child_stage;

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

/* Makes `fd` the command's descriptor `to`, open across the exec (dup2 onto itself would keep
 * its close-on-exec flag: a pipe end may already be numbered 9). */
static int give(int fd, int to) {
  return fd == to ? fcntl(to, F_SETFD, 0) : dup2(fd, to);
}

/* The vfork child: system calls only (it shares the spawner's memory until the exec). */
static void __attribute__((noreturn)) child(const struct start *r) {
#define FAIL(stage)          \
  do {                       \
    child_errno = errno;     \
    child_stage = stage;     \
    _exit(127);              \
  } while (0)
  sigset_t none;
  sigemptyset(&none);
  /* Ignored signals stay ignored across an exec: every disposition goes back to the default. */
  /* Ignored signals stay ignored across an exec: SIGPIPE is the only one (main resets the rest). */
  signal(SIGPIPE, SIG_DFL);
  sigprocmask(SIG_SETMASK, &none, NULL);
  if (setsid() < 0) FAIL("setsid");
  /* Its own open of /dev/null, not one shared by every command: an open file's flags (O_NONBLOCK,
   * O_APPEND, ...) are shared by all its copies, so one command could set them for the next. */
  int in = r->fds[0] >= 0 ? r->fds[0] : open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (in < 0) FAIL("open");
  /* Our ends and every other command's are close-on-exec: the command gets 0-2 (and 9). */
  if (give(in, 0) < 0 || give(r->fds[1], 1) < 0 || give(r->fds[2], 2) < 0) FAIL("dup2");
  if (r->fds[3] >= 0 && give(r->fds[3], CWD_FD) < 0) FAIL("dup2");
  /* Its oom_score_adj (1000) is the spawner's, inherited: set once in main, not here. */
  /* Below the executor's and this process's CPU weight (COMMAND_NICE), and nothing it starts can
   * undo that without CAP_SYS_NICE: a fork loop that keeps the container's CPU busy still leaves
   * the executor enough of it to answer, time out and kill. Not fatal: only the weight is lost. */
  setpriority(PRIO_PROCESS, 0, COMMAND_NICE);
  if (setgroups(0, NULL) < 0) FAIL("setgroups");
  if (setgid(r->gid) < 0) FAIL("setgid");
  if (setuid(r->uid) < 0) FAIL("setuid");
  if (getuid() != r->uid || geteuid() != r->uid || getegid() != r->gid) {
    errno = EPERM;
    FAIL("setuid");
  }
  if (chdir(r->cwd) < 0) FAIL("chdir");
  exec_in_path(r->argv, r->envp);
  FAIL("exec");
#undef FAIL
}

/* Pipes for the child: its end blocking (as any command expects), ours non-blocking. */
static int make_pipe(int *ours, int *theirs, int we_read) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) < 0) return -1;
  *ours = we_read ? p[0] : p[1];
  *theirs = we_read ? p[1] : p[0];
  fcntl(*ours, F_SETFL, O_NONBLOCK);
  return 0;
}

/* The next NUL-terminated field of a frame, or NULL when none is left. */
static char *next_field(char **at, const char *end) {
  if (*at >= end) return NULL;
  char *f = *at;
  char *nul = memchr(f, '\0', (size_t)(end - f));
  if (!nul) return NULL;
  *at = nul + 1;
  return f;
}

/* vfork in a frame of its own: nothing of the caller's lives across it. */
static pid_t __attribute__((noinline)) launch(const struct start *r) {
  child_errno = 0;
  child_stage = NULL;
  pid_t pid = vfork();
  if (pid == 0) child(r);
  return pid;
}

/* Forks and execs one checked request; says P or F. */
static void spawn_child(const char *id, struct start *r, int cwdfd, const char *in_at, long inlen) {
  int ours[4] = {-1, -1, -1, -1};
  char *in_copy = NULL;
  if (inlen > 0 && !(in_copy = malloc((size_t)inlen))) {
    say("F %s %d request\n", id, ENOMEM);
    return;
  }
  if (in_copy) memcpy(in_copy, in_at, (size_t)inlen);
  if ((inlen >= 0 && make_pipe(&ours[0], &r->fds[0], 0) < 0) || make_pipe(&ours[1], &r->fds[1], 1) < 0 ||
      make_pipe(&ours[2], &r->fds[2], 1) < 0 || (cwdfd && make_pipe(&ours[3], &r->fds[3], 1) < 0)) {
    say("F %s %d pipe\n", id, errno);
    goto out;
  }
  pid_t pid = launch(r);
  if (pid < 0) {
    say("F %s %d fork\n", id, errno);
    goto out;
  }
  if (child_stage) {
    /* It never ran the command; its exit is reaped (and reported with a pid nobody knows). */
    say("F %s %d %s\n", id, child_errno, (const char *)child_stage);
    goto out;
  }
  say("P %s %d\n", id, (int)pid);
  for (int i = 0; i < 4; i++) {
    if (ours[i] < 0) continue;
    if (i == 0) {
      add_stream(ours[0], id, 0, in_copy, in_copy ? (size_t)inlen : 0, pid);
      in_copy = NULL;
    } else {
      add_stream(ours[i], id, i == 3 ? CWD_FD : i, NULL, 0, pid);
    }
    ours[i] = -1;
  }
out:
  for (int i = 0; i < 4; i++) {
    if (ours[i] >= 0) close(ours[i]);
    if (r->fds[i] >= 0) close(r->fds[i]);
  }
  free(in_copy);
}

static void start(char *at, const char *end) {
  /* after "S": id uid gid cwdfd cwd argc argv... envc env... stdinlen <stdin bytes> NUL */
  char *f[6];
  long uid, gid, cwdfd, argc, envc = 0, inlen;
  for (int i = 0; i < 6; i++)
    if (!(f[i] = next_field(&at, end))) return;
  const char *id = strlen(f[0]) > 24 ? "?" : f[0];
  if (id[0] == '?' || parse_id(f[1], &uid) || parse_id(f[2], &gid) || parse_id(f[3], &cwdfd) ||
      parse_id(f[5], &argc) ||
      /* Never root: the identities are all unprivileged (the executor checks this too). */
      uid <= 0 || gid <= 0 || argc < 1 || argc > MAX_FIELDS) {
    say("F %s %d request\n", id, EINVAL);
    return;
  }
  struct start r = {.uid = (uid_t)uid, .gid = (gid_t)gid, .cwd = f[4], .fds = {-1, -1, -1, -1}};
  char *field;
  /* argv and envp point into the frame: they need NULL-terminated arrays. */
  r.argv = calloc((size_t)argc + 1, sizeof *r.argv);
  if (!r.argv) goto bad;
  for (long i = 0; i < argc; i++)
    if (!(r.argv[i] = next_field(&at, end))) goto bad;
  if (!(field = next_field(&at, end)) || parse_id(field, &envc) || envc < 0 || envc > MAX_FIELDS) goto bad;
  r.envp = calloc((size_t)envc + 1, sizeof *r.envp);
  if (!r.envp) goto bad;
  for (long i = 0; i < envc; i++)
    if (!(r.envp[i] = next_field(&at, end))) goto bad;
  /* The stdin bytes run from after stdinlen's NUL to the frame's final NUL. */
  if (!(field = next_field(&at, end)) || parse_id(field, &inlen) || inlen < -1 ||
      end - at != (inlen < 0 ? 0 : inlen))
    goto bad;
  spawn_child(id, &r, cwdfd == 1, at, inlen);
  free(r.argv);
  free(r.envp);
  return;
bad:
  free(r.argv);
  free(r.envp);
  say("F %s %d request\n", id, EINVAL);
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
  static char *fields[8];
  if (len == 0 || frame[len - 1] != '\0') return;
  /* The frame's final NUL ends its last field (or a start's raw stdin bytes). */
  const char *end = frame + len - 1;
  char *at = frame;
  char *kind = next_field(&at, frame + len);
  if (!kind) return;
  if (strcmp(kind, "S") == 0) return start(at, end);
  if (strcmp(kind, "K") != 0) return;
  size_t nf = 1;
  fields[0] = kind;
  while (nf < 8 && (fields[nf] = next_field(&at, frame + len))) nf++;
  kill_all(fields, nf);
}

/* Whether this process adopts the commands' orphans (PR_SET_CHILD_SUBREAPER took). */
static int subreaper;

/* Reaps every exited child, then says each exit with whether any child is left. The look that
 * ends the loop tells it for free: ECHILD means no child at all, and a subreaper with no child
 * has no live descendant (a command's orphans are made ours before its exit can be reaped), so
 * the executor needs no look of its own (fork-server.mjs#nothingAlive). Batches of REAPED. */
#define REAPED 64
static void reap(void) {
  for (;;) {
    pid_t pids[REAPED];
    int sts[REAPED];
    size_t n = 0;
    pid_t pid = 0;
    while (n < REAPED && (pid = waitpid(-1, &sts[n], WNOHANG)) > 0) pids[n++] = pid;
    int alone = subreaper && pid < 0 && errno == ECHILD;
    for (size_t k = 0; k < n; k++) {
      int st = sts[k];
      if (WIFEXITED(st)) say("X %d %d 0 %d\n", (int)pids[k], WEXITSTATUS(st), alone);
      else if (WIFSIGNALED(st)) say("X %d -1 %d %d\n", (int)pids[k], WTERMSIG(st), alone);
      for (size_t i = 0; i < nstreams; i++)
        if (streams[i].pid == pids[k]) streams[i].exited = 1;
    }
    if (n < REAPED) return;
  }
}

int main(int argc, char **argv) {
  (void)argv;
  if (argc != 1) return 2;
  /* 0-2 open, so that no pipe of a command is numbered as one of them (the dup2s would clash). */
  for (int fd = 0; fd < 3; fd++)
    if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd) return 1;
  /* First in the memory cgroup's OOM order, and every command with it (oom_score_adj is inherited
   * and a command, without CAP_SYS_RESOURCE, cannot lower it): an agent that fills the tmpfs mounts
   * and then allocates must lose a command, not the executor (the larger process, which took the
   * container with it). Set once here rather than in each vfork child (an open, a write and a
   * close per start). The OOM killer may then pick this process itself (a command smaller than
   * it): the executor starts it again (fork-server.mjs), and the calls it had end as unknown. */
  int oom = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
  if (oom >= 0) {
    if (write(oom, "1000", 4) < 0) {
    }
    close(oom);
  }
  /* Dispositions are inherited: all default but SIGPIPE's, so a child has only that one to reset. */
  for (int s = 1; s < NSIG; s++) signal(s, SIG_DFL);
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
  fcntl(1, F_SETFL, fcntl(1, F_GETFL) | O_NONBLOCK);
  /* A child subreaper: a process a command leaves behind (its parent exited) becomes our child,
   * not init's. Every live process of a command is then our child or below one, so when our
   * children list is empty nothing a command started is alive: the executor reads that list
   * (/proc/<pid>/task/<pid>/children, one look under the kernel's lock) instead of all of /proc
   * after a call. Adopted orphans are reaped here like commands (X lines no request names). */
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) == 0) {
    subreaper = 1;
    say("R\n");
    if (flush_out() < 0) return 0;
  }

  size_t cap = 1 << 16, have = 0;
  char *buf = malloc(cap);
  struct pollfd *p = NULL;
  size_t pcap = 0;
  if (!buf) return 1;
  for (;;) {
    if (pcap < nstreams + 3) {
      pcap = (nstreams + 3) * 2;
      p = realloc(p, pcap * sizeof *p);
      if (!p) return 1;
    }
    p[0] = (struct pollfd){.fd = 0, .events = POLLIN};
    p[1] = (struct pollfd){.fd = sfd, .events = POLLIN};
    /* Room to write is waited for only once a flush fell short. */
    p[2] = (struct pollfd){.fd = 1, .events = stalled ? POLLOUT : 0};
    int reading = out_len < HIGH_WATER;
    for (size_t i = 0; i < nstreams; i++) {
      /* Not read while the executor is behind (a negative fd is skipped, hangups included). */
      int skip = streams[i].target != 0 && !reading;
      p[3 + i] = (struct pollfd){.fd = skip ? -1 : streams[i].fd, .events = streams[i].target == 0 ? POLLOUT : POLLIN};
    }
    size_t polled = nstreams;
    /* Held lines go when their time is up, if nothing else sends them first. */
    struct timespec wait, *until = NULL;
    if (out_len && !stalled) {
      long long left = held_at + HOLD_NS - now_ns();
      if (left < 0) left = 0;
      wait = (struct timespec){.tv_sec = left / 1000000000LL, .tv_nsec = left % 1000000000LL};
      until = &wait;
    }
    if (ppoll(p, 3 + polled, until, NULL) < 0) {
      if (errno == EINTR) continue;
      return 1;
    }
    /* Streams first (backwards: dropping one moves the last into its place), then exits, so
     * that a command's last output and its end come before its X line in the same write. */
    for (size_t i = polled; i-- > 0;) {
      short rev = p[3 + i].revents;
      if (!rev) continue;
      struct stream *s = &streams[i];
      int more = s->target == 0 ? feed(s) : (rev & POLLIN ? relay(s) : 0);
      /* POLLHUP with data still in the pipe: read until it is empty. */
      while (more && s->target != 0 && (rev & POLLHUP) && out_len < HIGH_WATER) more = relay(s);
      if (!more) drop_stream(i);
    }
    if (p[1].revents & POLLIN) {
      /* SIGCHLD is a standard signal: one is pending at most (another makes the fd readable again). */
      struct signalfd_siginfo si;
      ssize_t got = read(sfd, &si, sizeof si);
      (void)got; /* nothing pending (EAGAIN) costs reap() one look */
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
      if (n < 0 && errno != EINTR && errno != EAGAIN) return 1;
      if (n > 0) have += (size_t)n;
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
    if (flush_due(p[2].revents) && flush_out() < 0) return 0; /* the executor is gone */
  }
}
