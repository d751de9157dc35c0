// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target: what users type. The input's first byte picks a parser, the rest is its
 * value (for -k: the key list, a NUL, the histogram field): numbers, PIDs, durations,
 * globs, choices, devices, probe definitions and the key lists of tpoint -k on the block
 * events of tests/fixtures. Property: a value is either refused with a usage error
 * (opt_fail, caught here) or accepted with a result that keeps the parser's promise.
 */
#include <fnmatch.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <tracefs.h>

#include "domain/blk.h"
#include "fuzz.h"
#include "count/keys.h"
#include "base/opt.h"
#include "base/testhooks.h"
#include "kernel/probe.h"

static jmp_buf refused;
static void on_fail(void)
{
	longjmp(refused, 1);
}

static struct tep_handle *tep;
static struct tep_event *events[4];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fuzz_quiet_init();
	opt_fail_hook = on_fail;
	const char *systems[] = {"block", NULL};
	tep = fixture_tep(FIXTURES "/block-6.18", systems);
	NEED(tep);
	const char *names[] = {"block_bio_queue", "block_rq_insert", "block_rq_issue",
			       "block_rq_complete"};
	for (int i = 0; i < 4; i++)
		NEED((events[i] = tep_find_event_by_name(tep, "block", names[i])));
	return 0;
}

static bool valid_name(const char *s)
{
	return probe_name_valid(s) && strlen(s) < 64;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 4096)
		return 0;
	/* The value as a C string (argv holds no NUL); a second one after the first NUL. */
	char s[4096], *s2;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = 0;
	s2 = s + strlen(s) + (strlen(s) < size - 1 ? 1 : 0);
	if (s2 > s + size - 1)
		s2 = s + size - 1;
	static const char *const names[] = {"kprobe", "eprobe", "uprobe", "proc"};
	char why[256];

	fuzz_mute();
	if (setjmp(refused)) {
		fuzz_unmute();
		return 0; /* a usage error: its message went to stderr, nothing else happened */
	}
	switch (data[0] % 10) {
	case 0: {
		long long v = opt_int(s, -5, 1000, "count");
		NEED(v >= -5 && v <= 1000);
		break;
	}
	case 1: {
		pid_t p = opt_pid(s);
		NEED(p >= 1);
		break;
	}
	case 2: {
		uint64_t ns = opt_seconds(s, "SECS");
		NEED(ns > 0 && ns <= 1000000000000000001ULL);
		break;
	}
	case 3: {
		uint64_t us = opt_decimal(s, 1e3, "MS", "milliseconds");
		NEED(us > 0);
		break;
	}
	case 4: {
		const char *g = opt_glob(s, "NAME");
		NEED(g == s && *g && !strpbrk(g, "\"\\\n"));
		(void)fnmatch(g, "kworker/0:1", 0);
		break;
	}
	case 5: {
		int i = opt_choice(s, names, 4, "MECH");
		NEED(i >= 0 && i < 4 && !strcmp(names[i], s));
		break;
	}
	case 6: {
		uint32_t dev;
		if (!blk_dev_parse(s, &dev)) {
			char buf[64];
			NEED(blk_dev_name(dev, buf, sizeof(buf)) != NULL);
		}
		break;
	}
	case 7: {
		struct probe_def pd;
		if (probe_parse(s, &pd, why, sizeof(why)) == 0) {
			NEED(pd.type == 'p' || pd.type == 'r');
			NEED(pd.target[0] && memchr(pd.target, 0, sizeof(pd.target)));
			NEED(!pd.alias[0] || valid_name(pd.alias));
			NEED(!pd.args || (pd.args >= s && pd.args <= s + strlen(s)));
			char alias[64];
			probe_default_alias(pd.target, pd.type, alias, sizeof(alias));
			NEED(strlen(alias) < sizeof(alias));
		} else {
			NEED(why[0] && memchr(why, 0, sizeof(why)));
		}
		break;
	}
	case 8:
	case 9: {
		struct keys *k =
			keys_new(events, 4, *s ? s : NULL, *s2 ? s2 : NULL, why, sizeof(why));
		if (k)
			keys_free(k);
		else
			NEED(why[0] && memchr(why, 0, sizeof(why)));
		break;
	}
	}
	fuzz_unmute();
	return 0;
}
