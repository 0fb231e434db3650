/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gus-qemu-exec.so: the guest-side shim that lets gus's QEMU tracer follow
 * the programs a traced program execs. qemu-user 7.2 runs an exec'd
 * program natively, so the traced program gets this object through QEMU's
 * -E LD_PRELOAD=..., and its exec calls (execve, execv, execvp, execvpe,
 * execl, execlp, execle, posix_spawn, posix_spawnp: what dash, bash,
 * python's subprocess and glibc's callers use through the PLT; and system,
 * which glibc runs through its internal spawn) run
 *
 *     QEMU -plugin PLUGIN,... -E LD_PRELOAD=... -E GUS_QEMU_EXEC=... -0 ARGV0 FILE ARGS
 *
 * instead, when FILE is an x86-64 ELF file or a #! script (whose
 * interpreter is found as the kernel does, four levels deep; qemu-user runs
 * no scripts). Anything else is exec'd as it was asked. The exec'd QEMU's
 * plugin connects to gus through its sock= argument.
 *
 * $GUS_QEMU_EXEC (read once, when the object is loaded, so that a program
 * passing its own environment is followed too): lines of QEMU's path, this
 * object's path, then the plugin's options (file=... first), one a line,
 * since QEMU's -E splits its value at commas.
 *
 * Not followed: static programs and programs started without this object
 * (LD_PRELOAD removed by the program before an exec that is not one of
 * these calls), exec calls made inside glibc (popen, wordexp: glibc calls
 * its internal spawn), fexecve and execveat. Built without sanitizers, as
 * it runs inside the guest program. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define MAX_FRONT 16

extern char **environ;

static char *cfg_env;		/* "GUS_QEMU_EXEC=..." as it came */
static char *cfg_qemu, *cfg_shim, *cfg_plugin;	/* the plugin's -plugin value */

__attribute__((constructor)) static void shim_init(void)
{
	const char *e = getenv("GUS_QEMU_EXEC");
	if (!e || !*e)
		return;
	size_t n = strlen(e);
	char *env = malloc(n + sizeof("GUS_QEMU_EXEC="));
	char *c = strdup(e);
	if (!env || !c) {
		free(env);
		free(c);
		return;
	}
	memcpy(env, "GUS_QEMU_EXEC=", sizeof("GUS_QEMU_EXEC=") - 1);
	memcpy(env + sizeof("GUS_QEMU_EXEC=") - 1, e, n + 1);
	char *l1 = strchr(c, '\n'), *l2 = l1 ? strchr(l1 + 1, '\n') : NULL;
	if (!l2 || c[0] != '/' || l1[1] != '/') {
		free(env);
		free(c);
		return;
	}
	*l1 = *l2 = 0;
	for (char *p = l2 + 1; *p; p++)
		if (*p == '\n')
			*p = ',';
	cfg_qemu = c;
	cfg_shim = l1 + 1;
	cfg_plugin = l2 + 1;
	cfg_env = env;
}

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
			const posix_spawnattr_t *, char *const[], char *const[]);

static int real_execve(const char *path, char *const argv[], char *const envp[])
{
	static execve_fn f;
	if (!f)
		f = (execve_fn)dlsym(RTLD_NEXT, "execve");
	if (!f) {
		errno = ENOSYS;
		return -1;
	}
	return f(path, argv, envp);
}

static int real_posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
			    const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	static spawn_fn f;
	if (!f)
		f = (spawn_fn)dlsym(RTLD_NEXT, "posix_spawn");
	if (!f)
		return ENOSYS;
	return f(pid, path, fa, attr, argv, envp);
}

static int real_posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			     const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	static spawn_fn f;
	if (!f)
		f = (spawn_fn)dlsym(RTLD_NEXT, "posix_spawnp");
	if (!f)
		return ENOSYS;
	return f(pid, file, fa, attr, argv, envp);
}

struct wrapped {
	char **argv, **envp;
	char *preload;
	char *owned[2 * MAX_FRONT];
	size_t nowned;
};

static void wrapped_free(struct wrapped *w)
{
	for (size_t i = 0; i < w->nowned; i++)
		free(w->owned[i]);
	free(w->argv);
	free(w->envp);
	free(w->preload);
	memset(w, 0, sizeof(*w));
}

static char *keep(struct wrapped *w, char *s)
{
	if (s && w->nowned < 2 * MAX_FRONT)
		w->owned[w->nowned++] = s;
	else
		free(s), s = NULL;
	return s;
}

/* 1: PATH is to run under QEMU (W filled), 0: as asked */
static int wrap(const char *path, char *const argv[], char *const envp[], struct wrapped *w)
{
	memset(w, 0, sizeof(*w));
	if (!cfg_env || !path)
		return 0;
	int save = errno;
	const char *file = path;
	const char *front[MAX_FRONT];
	size_t nfront = 1;
	front[0] = argv && argv[0] ? argv[0] : path;
	for (int level = 0;; level++) {
		char head[256];
		int fd = open(file, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			goto no;
		ssize_t got = read(fd, head, sizeof(head) - 1);
		close(fd);
		if (got >= (ssize_t)sizeof(Elf64_Ehdr) && !memcmp(head, ELFMAG, SELFMAG)) {
			const Elf64_Ehdr *eh = (const Elf64_Ehdr *)head;
			if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_machine != EM_X86_64 ||
			    access(file, X_OK))
				goto no;
			break;
		}
		if (got < 2 || head[0] != '#' || head[1] != '!' || level == 4 ||
		    nfront + 3 > MAX_FRONT || access(file, X_OK))
			goto no;
		head[got] = 0;
		char *nl = strchr(head, '\n');
		if (nl)
			*nl = 0;
		char *p = head + 2;
		while (*p == ' ' || *p == '\t')
			p++;
		char *ie = p;
		while (*ie && *ie != ' ' && *ie != '\t')
			ie++;
		char *arg = *ie ? ie + 1 : ie;
		*ie = 0;
		while (*arg == ' ' || *arg == '\t')
			arg++;
		size_t al = strlen(arg);
		while (al && (arg[al - 1] == ' ' || arg[al - 1] == '\t' || arg[al - 1] == '\r'))
			arg[--al] = 0;
		if (!*p)
			goto no;
		char *interp = keep(w, strdup(p)), *a2 = al ? keep(w, strdup(arg)) : NULL;
		if (!interp || (al && !a2))
			goto no;
		/* FRONT = interp [arg] file FRONT[1...] */
		size_t k = al ? 3 : 2;
		memmove(front + k, front + 1, (nfront - 1) * sizeof(*front));
		front[0] = interp;
		if (al)
			front[1] = a2;
		front[k - 1] = file;
		nfront += k - 1;
		file = interp;
	}

	size_t argc = 0, envc = 0;
	while (argv && argv[argc])
		argc++;
	while (envp && envp[envc])
		envc++;
	/* LD_PRELOAD goes to the guest through -E, with this object in it;
	 * QEMU itself runs without it */
	const char *old = NULL;
	for (size_t i = 0; i < envc; i++)
		if (!strncmp(envp[i], "LD_PRELOAD=", 11))
			old = envp[i] + 11;
	size_t pl = strlen(cfg_shim) + (old ? strlen(old) : 0) + 16;
	if (!(w->preload = malloc(pl)))
		goto no;
	if (old && strstr(old, cfg_shim))
		snprintf(w->preload, pl, "LD_PRELOAD=%s", old);
	else
		snprintf(w->preload, pl, "LD_PRELOAD=%s%s%s", cfg_shim, old && *old ? ":" : "",
			 old && *old ? old : "");
	w->argv = calloc(argc + nfront + 16, sizeof(char *));
	w->envp = calloc(envc + 1, sizeof(char *));
	if (!w->argv || !w->envp)
		goto no;
	size_t k = 0;
	w->argv[k++] = cfg_qemu;
	w->argv[k++] = (char *)"-plugin";
	w->argv[k++] = cfg_plugin;
	w->argv[k++] = (char *)"-E";
	w->argv[k++] = w->preload;
	w->argv[k++] = (char *)"-E";
	w->argv[k++] = cfg_env;
	w->argv[k++] = (char *)"-0";
	w->argv[k++] = (char *)front[0];
	w->argv[k++] = (char *)file;
	for (size_t i = 1; i < nfront; i++)
		w->argv[k++] = (char *)front[i];
	for (size_t i = 1; i < argc; i++)
		w->argv[k++] = argv[i];
	k = 0;
	for (size_t i = 0; i < envc; i++)
		if (strncmp(envp[i], "LD_PRELOAD=", 11))
			w->envp[k++] = envp[i];
	errno = save;
	return 1;
no:
	wrapped_free(w);
	errno = save;
	return 0;
}

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	struct wrapped w;
	if (!wrap(path, argv, envp, &w))
		return real_execve(path, argv, envp);
	real_execve(cfg_qemu, w.argv, w.envp);
	int e = errno;
	wrapped_free(&w);
	errno = e;
	return -1;
}

EXPORT int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

/* as glibc: each directory of PATH in turn; a file the kernel cannot run
 * is run by /bin/sh */
EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	if (!*file) {
		errno = ENOENT;
		return -1;
	}
	if (strchr(file, '/')) {
		execve(file, argv, envp);
		if (errno == ENOEXEC)
			goto sh_file;
		return -1;
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/bin:/usr/bin";
	size_t fl = strlen(file);
	bool eacces = false;
	for (const char *p = path;; p++) {
		const char *c = strchr(p, ':');
		size_t dl = c ? (size_t)(c - p) : strlen(p);
		char *buf = malloc(dl + fl + 3);
		if (!buf) {
			errno = ENOMEM;
			return -1;
		}
		if (dl) {
			memcpy(buf, p, dl);
			buf[dl] = '/';
			memcpy(buf + dl + 1, file, fl + 1);
		} else
			memcpy(buf, file, fl + 1);
		execve(buf, argv, envp);
		if (errno == ENOEXEC) {
			size_t argc = 0;
			while (argv[argc])
				argc++;
			char **sa = calloc(argc + 2, sizeof(char *));
			if (sa) {
				sa[0] = (char *)"/bin/sh";
				sa[1] = buf;
				for (size_t i = 1; i < argc; i++)
					sa[i + 1] = argv[i];
				execve("/bin/sh", sa, envp);
				free(sa);
			}
			free(buf);
			return -1;
		}
		free(buf);
		switch (errno) {
		case EACCES:
			eacces = true;
			/* fall through */
		case ENOENT:
		case ENOTDIR:
		case ESTALE:
		case ENODEV:
		case ETIMEDOUT:
			break;
		default:
			return -1;
		}
		if (!c)
			break;
		p = c;
	}
	errno = eacces ? EACCES : ENOENT;
	return -1;
sh_file: {
		size_t argc = 0;
		while (argv[argc])
			argc++;
		char **sa = calloc(argc + 2, sizeof(char *));
		if (!sa)
			return -1;
		sa[0] = (char *)"/bin/sh";
		sa[1] = (char *)file;
		for (size_t i = 1; i < argc; i++)
			sa[i + 1] = argv[i];
		execve("/bin/sh", sa, envp);
		free(sa);
		return -1;
	}
}

EXPORT int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

/* the arguments of execl and its kin, up to the NULL */
static char **list_args(const char *arg0, va_list ap, char ***envp)
{
	size_t n = 1, cap = 16;
	char **v = malloc(cap * sizeof(char *));
	if (!v)
		return NULL;
	v[0] = (char *)arg0;
	if (arg0)
		for (;;) {
			char *a = va_arg(ap, char *);
			if (n + 1 >= cap) {
				char **nv = realloc(v, (cap *= 2) * sizeof(char *));
				if (!nv) {
					free(v);
					return NULL;
				}
				v = nv;
			}
			v[n++] = a;
			if (!a)
				break;
		}
	else
		v[n++] = NULL;
	if (envp)
		*envp = va_arg(ap, char **);
	return v;
}

EXPORT int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	char **v = list_args(arg, ap, NULL);
	va_end(ap);
	if (!v) {
		errno = ENOMEM;
		return -1;
	}
	execve(path, v, environ);
	int e = errno;
	free(v);
	errno = e;
	return -1;
}

EXPORT int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	char **v = list_args(arg, ap, NULL);
	va_end(ap);
	if (!v) {
		errno = ENOMEM;
		return -1;
	}
	execvpe(file, v, environ);
	int e = errno;
	free(v);
	errno = e;
	return -1;
}

EXPORT int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	char **envp = NULL;
	va_start(ap, arg);
	char **v = list_args(arg, ap, &envp);
	va_end(ap);
	if (!v) {
		errno = ENOMEM;
		return -1;
	}
	execve(path, v, envp);
	int e = errno;
	free(v);
	errno = e;
	return -1;
}

EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
		       const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	struct wrapped w;
	if (!wrap(path, argv, envp, &w))
		return real_posix_spawn(pid, path, fa, attr, argv, envp);
	int rc = real_posix_spawn(pid, cfg_qemu, fa, attr, w.argv, w.envp);
	wrapped_free(&w);
	return rc;
}

EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	if (!cfg_env || !*file)
		return real_posix_spawnp(pid, file, fa, attr, argv, envp);
	if (strchr(file, '/'))
		return posix_spawn(pid, file, fa, attr, argv, envp);
	const char *path = getenv("PATH");
	if (!path)
		path = "/bin:/usr/bin";
	size_t fl = strlen(file);
	for (const char *p = path;; p++) {
		const char *c = strchr(p, ':');
		size_t dl = c ? (size_t)(c - p) : strlen(p);
		char *buf = malloc(dl + fl + 3);
		if (!buf)
			return ENOMEM;
		if (dl) {
			memcpy(buf, p, dl);
			buf[dl] = '/';
			memcpy(buf + dl + 1, file, fl + 1);
		} else
			memcpy(buf, file, fl + 1);
		struct stat sb;
		if (!stat(buf, &sb) && S_ISREG(sb.st_mode) && !access(buf, X_OK)) {
			int rc = posix_spawn(pid, buf, fa, attr, argv, envp);
			free(buf);
			return rc;
		}
		free(buf);
		if (!c)
			break;
		p = c;
	}
	return real_posix_spawnp(pid, file, fa, attr, argv, envp);
}

/* as glibc's: /bin/sh -c, SIGINT and SIGQUIT ignored and SIGCHLD blocked
 * in the caller while it runs, through posix_spawn above */
EXPORT int system(const char *line)
{
	if (!line)
		return 1;
	struct sigaction sa = { .sa_handler = SIG_IGN }, oint, oquit;
	sigset_t chld, omask;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &oint);
	sigaction(SIGQUIT, &sa, &oquit);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &omask);
	posix_spawnattr_t attr;
	posix_spawnattr_init(&attr);
	sigset_t def;
	sigemptyset(&def);
	if (oint.sa_handler != SIG_IGN)
		sigaddset(&def, SIGINT);
	if (oquit.sa_handler != SIG_IGN)
		sigaddset(&def, SIGQUIT);
	posix_spawnattr_setsigdefault(&attr, &def);
	posix_spawnattr_setsigmask(&attr, &omask);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	char *argv[] = { (char *)"sh", (char *)"-c", (char *)"--", (char *)line, NULL };
	pid_t pid;
	int status;
	int rc = posix_spawn(&pid, "/bin/sh", NULL, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	if (rc == 0) {
		while (waitpid(pid, &status, 0) < 0)
			if (errno != EINTR) {
				status = -1;
				break;
			}
	} else
		status = 127 << 8;
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGQUIT, &oquit, NULL);
	sigprocmask(SIG_SETMASK, &omask, NULL);
	if (rc)
		errno = rc;
	return status;
}
