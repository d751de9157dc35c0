// SPDX-License-Identifier: GPL-2.0-only
/*
 * A program for the gethostlatency live test: known name lookups through the C library,
 * answered from /etc/hosts or refused before any packet is sent (no network needed).
 * resolve_target N [START-FILE]: (once START-FILE exists, so that a tracer of -p can start
 * first) N times getaddrinfo("localhost"), then once each getaddrinfo of a
 * name with a space, an escape and an invalid UTF-8 byte (which the resolver refuses
 * as not a host name), gethostbyname("localhost") and gethostbyname2("localhost",
 * AF_INET). Prints what each returned: "gai=0 bad=N byname=1 byname2=1".
 * resolve_target long: getaddrinfo of a name of 4060 bytes (a record longer than a trace
 * event holds on 6.18) and of 5000 (more than a probe reads: 4096 with the NUL), both
 * refused (EAI_NONAME), then of one of 300 bytes (EAI_NONAME too: longer than a DNS name).
 * Prints "long=N,N,N". With FTT_NO_NEAR_PAGE set, not the 4060 bytes' lookup (-2 printed).
 */
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The hostile name, as the test expects it escaped. */
#define BAD_NAME "ftt bad\x1b[1m\xff.invalid"

static int lookup(const char *name)
{
	struct addrinfo hints, *res = NULL;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	int r = getaddrinfo(name, NULL, &hints, &res);
	if (res)
		freeaddrinfo(res);
	return r;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "long")) {
		static char name[5001];
		memset(name, 'a', 4060);
		/* (not with FTT_NO_NEAR_PAGE: a kernel that would write it past its uprobe
		 * buffer, test_gethostlatency.sh) */
		int a = getenv("FTT_NO_NEAR_PAGE") ? -2 : lookup(name);
		memset(name, 'b', 5000);
		int b = lookup(name);
		name[300] = 0;
		memset(name, 'c', 300);
		int c = lookup(name);
		printf("long=%d,%d,%d\n", a, b, c);
		return !a || !b || !c;
	}
	int n = argc > 1 ? atoi(argv[1]) : 1, gai = 0;
	while (argc > 2 && access(argv[2], F_OK))
		usleep(10000);
	for (int i = 0; i < n; i++)
		gai |= lookup("localhost");
	int bad = lookup(BAD_NAME);
	struct hostent *h1 = gethostbyname("localhost");
	struct hostent *h2 = gethostbyname2("localhost", AF_INET);
	printf("gai=%d bad=%d byname=%d byname2=%d\n", gai, bad, h1 != NULL, h2 != NULL);
	return gai || !bad || !h1 || !h2;
}
