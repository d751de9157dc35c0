// SPDX-License-Identifier: GPL-2.0-only
/*
 * A typist for the bashreadline live test: pty_bash [-w FILE] BASH LINE...: runs BASH interactive
 * (--norc --noprofile -i) on a new pseudo-terminal, and for each LINE waits for its prompt
 * (PS1 "ftt-ready> ", set here), types the line's bytes and Enter; then types "exit".
 * Control characters, DEL and bytes of 0x80 and above are each typed after Ctrl-V
 * (readline's quoted-insert), so that they land in the line as they are: a newline, an
 * escape, bytes that are not UTF-8. The test's inputrc (INPUTRC) turns readline's 8-bit
 * input on. With -w, once bash shows its first prompt (it is in readline) "ready" is
 * printed, and the typing starts once FILE exists (a tracer of bash's PID started then). Exit status: bash's, or 1 when a prompt did not come within 10 s.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROMPT "ftt-ready> "

static int master;

/* Read what bash writes until the prompt has come once more (10 s at most). */
static int wait_prompt(void)
{
	static char seen[8192];
	static size_t n;
	time_t until = time(NULL) + 10;
	for (;;) {
		char *p = memmem(seen, n, PROMPT, strlen(PROMPT));
		if (p) { /* consume up to the prompt's end */
			size_t used = (size_t)(p - seen) + strlen(PROMPT);
			memmove(seen, seen + used, n - used);
			n -= used;
			return 0;
		}
		if (time(NULL) > until)
			return -1;
		struct pollfd pfd = {master, POLLIN, 0};
		if (poll(&pfd, 1, 200) <= 0)
			continue;
		if (n > sizeof(seen) / 2) { /* keep the tail: a prompt may straddle reads */
			memmove(seen, seen + n - 64, 64);
			n = 64;
		}
		ssize_t r = read(master, seen + n, sizeof(seen) - n);
		if (r <= 0)
			return -1;
		n += (size_t)r;
	}
}

static void type(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		char buf[2] = {0x16, (char)c}; /* Ctrl-V: quoted-insert */
		int quote = c < 0x20 || c >= 0x7f;
		if (write(master, quote ? buf : buf + 1, quote ? 2 : 1) < 0)
			exit(1);
	}
}

int main(int argc, char **argv)
{
	const char *wait_for = NULL;
	if (argc > 2 && !strcmp(argv[1], "-w")) {
		wait_for = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: pty_bash [-w FILE] BASH LINE...\n");
		return 2;
	}
	pid_t pid = forkpty(&master, NULL, NULL, NULL);
	if (pid < 0)
		return 1;
	if (pid == 0) {
		setenv("PS1", PROMPT, 1);
		setenv("TERM", "dumb", 1);
		setenv("HISTFILE", "/dev/null", 1);
		execl(argv[1], argv[1], "--norc", "--noprofile", "-i", (char *)NULL);
		_exit(127);
	}
	int rc = 0;
	if (wait_for) {
		if (wait_prompt()) {
			kill(pid, SIGKILL);
			return 1;
		}
		printf("ready\n");
		fflush(stdout);
		while (access(wait_for, F_OK))
			usleep(10000);
		if (write(master, "\r", 1) < 0) /* an empty line: its prompt again */
			return 1;
	}
	for (int i = 2; i < argc && !rc; i++) {
		if (wait_prompt()) {
			rc = 1;
			break;
		}
		type(argv[i], strlen(argv[i]));
		if (write(master, "\r", 1) < 0)
			rc = 1;
	}
	if (!rc && (wait_prompt() || write(master, "exit 0\r", 7) < 0))
		rc = 1;
	if (rc)
		kill(pid, SIGKILL);
	/* drain what bash still writes, or it may block on a full terminal */
	for (;;) {
		char buf[4096];
		struct pollfd pfd = {master, POLLIN, 0};
		if (poll(&pfd, 1, 5000) <= 0 || read(master, buf, sizeof(buf)) <= 0)
			break;
	}
	int st;
	if (waitpid(pid, &st, 0) < 0)
		return 1;
	return rc ? rc : WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
