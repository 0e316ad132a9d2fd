/* segv_report.c: a crash reporter to LD_PRELOAD where there is no gdb (the lent GPU machine). Its constructor
 * installs, on an alternate signal stack, a handler for SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT that writes
 * to stderr the signal, the fault address, the faulting instruction pointer and the backtrace (most recent call
 * last), each address as LIB+0xOFFSET (the address within the ELF object: `addr2line -f -C -i -e LIB 0xOFFSET`
 * or `gdb LIB` then `info symbol 0xOFFSET` on a copy of the same LIB resolve it; for a return address, the frames
 * but #0, ask for OFFSET-1 to get the call's line) and the nearest exported symbol; then it restores the default
 * action and re-raises, so the exit status stays 128 + signal. A program that does not crash sees nothing.
 * scripts/gpu-check.sh (step python-import-segv-report, only where the Python import failed) compiles it into
 * the build folder and runs the import again under it, without Python's faulthandler.
 *   cc -std=c11 -O1 -shared -fPIC -o segv_report.so scripts/segv_report.c -ldl
 *   LD_PRELOAD=$PWD/segv_report.so python3 -c 'import numpy; import ecosim'
 * Plain C, glibc only. Formatting is by hand with write(2); backtrace() and dladdr() are not async-signal-safe,
 * but the process dies anyway (backtrace() is called once at load so that libgcc_s is loaded before a crash). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#define MAX_FRAMES 128

static char alt_stack[1 << 16];  /* backtrace()'s unwinder needs a few KiB; a stack overflow leaves none */
static const int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};

/* A line assembled in a fixed buffer, written with one write(2). */
struct line {
  char text[1024];
  size_t n;
};

static void put(struct line *l, const char *s) {
  while (*s && l->n < sizeof l->text - 1) l->text[l->n++] = *s++;
}

static void put_hex(struct line *l, uintptr_t v) {
  char digits[2 * sizeof v];
  int n = 0;
  do {
    digits[n++] = "0123456789abcdef"[v & 15];
    v >>= 4;
  } while (v);
  put(l, "0x");
  while (n > 0 && l->n < sizeof l->text - 1) l->text[l->n++] = digits[--n];
}

static void put_dec(struct line *l, long v) {
  char digits[24];
  int n = 0;
  unsigned long u = v < 0 ? -(unsigned long)v : (unsigned long)v;
  do {
    digits[n++] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  if (v < 0) put(l, "-");
  while (n > 0 && l->n < sizeof l->text - 1) l->text[l->n++] = digits[--n];
}

static void flush(struct line *l) {
  size_t done = 0;
  l->text[l->n++] = '\n';
  while (done < l->n) {
    ssize_t w = write(STDERR_FILENO, l->text + done, l->n - done);
    if (w <= 0) break;
    done += (size_t)w;
  }
  l->n = 0;
}

static const char *signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    case SIGABRT: return "SIGABRT";
    default: return "signal";
  }
}

static const char *code_name(int sig, int code) {
  if (code == SI_USER) return "SI_USER (kill)";
  if (code == SI_TKILL) return "SI_TKILL (raise/abort)";
  if (code == SI_KERNEL) return "SI_KERNEL (general protection: a non-canonical address, say)";
  if (sig == SIGSEGV && code == SEGV_MAPERR) return "SEGV_MAPERR (address not mapped)";
  if (sig == SIGSEGV && code == SEGV_ACCERR) return "SEGV_ACCERR (no permission)";
  if (sig == SIGBUS && code == BUS_ADRALN) return "BUS_ADRALN";
  if (sig == SIGBUS && code == BUS_ADRERR) return "BUS_ADRERR";
  if (sig == SIGILL && code == ILL_ILLOPC) return "ILL_ILLOPC";
  if (sig == SIGFPE && code == FPE_INTDIV) return "FPE_INTDIV";
  return "";
}

/* " LIB+0xOFFSET SYMBOL+0xDELTA" for an address: OFFSET is the address less the object's load bias, the ELF
 * virtual address addr2line and gdb take (for a shared library the same as address - dli_fbase). */
static void put_location(struct line *l, uintptr_t addr) {
  Dl_info info;
  struct link_map *map = NULL;
  if (!dladdr1((void *)addr, &info, (void **)&map, RTLD_DL_LINKMAP) || map == NULL) {
    put(l, " (in no loaded object)");
    return;
  }
  put(l, " ");
  if (map->l_name && map->l_name[0]) {
    put(l, map->l_name);
  } else {  /* the main program: its link map has no name */
    char exe[512];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
      exe[n] = '\0';
      put(l, exe);
    } else {
      put(l, info.dli_fname ? info.dli_fname : "?");
    }
  }
  put(l, "+");
  put_hex(l, addr - (uintptr_t)map->l_addr);
  if (info.dli_sname && info.dli_saddr) {
    put(l, " ");
    put(l, info.dli_sname);
    put(l, "+");
    put_hex(l, addr - (uintptr_t)info.dli_saddr);
  } else {
    put(l, " (no exported symbol)");
  }
}

static void report(int sig, siginfo_t *si, void *context) {
  struct line l = {.n = 0};
  uintptr_t pc = 0;
  (void)context;
#if defined(__x86_64__)
  pc = (uintptr_t)((ucontext_t *)context)->uc_mcontext.gregs[REG_RIP];
#endif
  /* First what needs no unwinding (should the unwinder fail), then the backtrace, then the summary again. */
  put(&l, "segv_report: ");
  put(&l, signal_name(sig));
  put(&l, " (signal ");
  put_dec(&l, sig);
  put(&l, ") in thread ");
  put_dec(&l, syscall(SYS_gettid));
  if (pc) {
    put(&l, " at pc ");
    put_hex(&l, pc);
    put_location(&l, pc);
  }
  flush(&l);
  put(&l, "segv_report: backtrace, most recent call last (#0 the faulting pc, the others return addresses):");
  flush(&l);

  void *frames[MAX_FRAMES];
  int n = backtrace(frames, MAX_FRAMES), first = 0;
  /* Frames below the faulting pc are this handler and the kernel's signal trampoline: leave them out. */
  for (int i = 0; pc && i < n; ++i) {
    if ((uintptr_t)frames[i] == pc) {
      first = i;
      break;
    }
  }
  if (n == MAX_FRAMES) {
    put(&l, "segv_report:   (the outermost frames, beyond #");
    put_dec(&l, n - 1 - first);
    put(&l, ", left out)");
    flush(&l);
  }
  for (int i = n - 1; i >= first; --i) {
    put(&l, "segv_report:   #");
    put_dec(&l, i - first);
    put(&l, " ");
    put_hex(&l, (uintptr_t)frames[i]);
    put_location(&l, (uintptr_t)frames[i]);
    flush(&l);
  }

  put(&l, "segv_report: ");
  put(&l, signal_name(sig));
  put(&l, " code ");
  put_dec(&l, si->si_code);
  if (*code_name(sig, si->si_code)) {
    put(&l, " ");
    put(&l, code_name(sig, si->si_code));
  }
  if (si->si_code > 0) {  /* raised by the kernel for an instruction: si_addr is meaningful */
    put(&l, ", fault address ");
    put_hex(&l, (uintptr_t)si->si_addr);
  } else {
    put(&l, ", sent by pid ");
    put_dec(&l, (long)si->si_pid);
  }
  flush(&l);
#if defined(__x86_64__)
  put(&l, "segv_report: faulting pc ");
  put_hex(&l, pc);
  put_location(&l, pc);
  flush(&l);
#endif
  put(&l, "segv_report: resolve with: addr2line -f -C -i -e LIB 0xOFFSET (gdb LIB: info symbol 0xOFFSET)");
  flush(&l);
}

static void handler(int sig, siginfo_t *si, void *context) {
  report(sig, si, context);
  /* The default action, then the signal again: pending while this handler runs, delivered when it returns (a
   * fault's instruction would fault again anyway), so the exit status is 128 + signal. */
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, NULL);
  raise(sig);
}

__attribute__((constructor)) static void segv_report_install(void) {
  stack_t ss;
  memset(&ss, 0, sizeof ss);
  ss.ss_sp = alt_stack;
  ss.ss_size = sizeof alt_stack;
  if (sigaltstack(&ss, NULL) != 0) return;
  void *warm[1];
  backtrace(warm, 1);  /* loads libgcc_s's unwinder now rather than from within the handler */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < sizeof signals / sizeof signals[0]; ++i) sigaction(signals[i], &sa, NULL);
}
