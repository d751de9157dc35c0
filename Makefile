# SPDX-License-Identifier: GPL-2.0-only
# ftrace-tools: small ftrace tools in C on libtracefs and libtraceevent.
# make [all] | static | install | image | check | vmcheck | deps | format | clean

TOOLS    := iosnoop iolatency tpoint kprobe uprobe opensnoop exitsnoop killsnoop syscount execsnoop funccount funclatency functrace funcgraph funcslower cachestat heatmap flamegraph tcpconnect tcpaccept tcplife tcpstates tcpretrans tcpdrop reset-ftrace hardirqs softirqs oomkill drsnoop capable statsnoop mountsnoop runqlat runqslower cpudist offcputime wakeuptime offwaketime biotop bitesize profile gethostlatency bashreadline vfsstat filetop fileslower usdt tcptop klockstat memleak fsslower fsdist sslsniff
# common/: one folder a layer, lowest first; a module includes only its own layer's and
# those before it (docs/design.md; make check fails otherwise). tool.c, the driver, at the root.
LAYERS   := base kernel stream count . join domain tracer pictures
COMMON   := base/sig base/opt base/out base/row base/runid base/state base/pair base/agg base/ladder base/threads \
	kernel/undo kernel/toplevel kernel/format kernel/clockmap kernel/session kernel/sweepsay kernel/sweep kernel/child kernel/ftrace kernel/strpieces kernel/probe kernel/cgroup kernel/reset kernel/histtable kernel/perfev kernel/funcprof \
	stream/cpubuf stream/reader stream/comm stream/field stream/ksym stream/folded stream/printfmt stream/evprint stream/usym stream/record stream/swstack stream/sdt \
	count/hist count/keys count/fieldhist count/pprof count/prom count/tracejson \
	tool \
	join/span join/funcpair join/syspair \
	domain/blk domain/sysnr domain/ustr domain/sock domain/irq domain/sysarg domain/schedev domain/offwake domain/histbykey domain/spanhist domain/member domain/fdtab domain/fdtrack domain/execargs domain/fsops \
	tracer/tracer \
	pictures/json pictures/heat pictures/flame
UNIT     := test_opt test_clockmap test_row test_span test_hist test_out test_pair test_reader test_blk test_session test_agg test_usym test_field test_keys test_comm test_syspair test_ftrace test_probe test_evprint test_folded test_offwake test_pictures test_toplevel test_undo test_tool test_sig test_funcpair test_ustr test_tracer test_ladder test_sysnr test_sock test_cgroup test_reset test_irq test_sysarg test_schedev test_histtable test_fieldhist test_member test_printfmt test_ksym test_perfev test_pprof test_swstack test_prom test_tracejson test_fdtab test_fdtrack test_sdt test_execargs test_threads test_funcprof test_fsops test_strpieces

PREFIX   ?= /usr/local
DESTDIR  ?=
# make check SANITIZE=1: everything built with AddressSanitizer and UndefinedBehaviorSanitizer
# in its own tree (build/san), every finding fatal; the same unit and live suites run on it.
SANITIZE ?=
ifeq ($(SANITIZE),1)
B        ?= build/san
endif
B        ?= build
CC       ?= cc
# The version the tools print and the Debian package carries: the release, then from git the
# number of commits and the commit (0.9+git412.gf2c2b5d, .dirty with changes not committed);
# the release alone outside git. make VERSION=... overrides it (debian/rules does).
RELEASE  := 0.9
ifndef VERSION
VERSION  := $(shell n=$$(git rev-list --count HEAD 2>/dev/null) && \
		h=$$(git rev-parse --short HEAD) && \
		d=$$(git diff --quiet HEAD -- 2>/dev/null || echo .dirty) && \
		echo $(RELEASE)+git$$n.g$$h$$d || echo $(RELEASE))
endif

PKGS     := libtracefs libtraceevent libelf
# Asked when a command runs ("=", not ":="): on a fresh machine `make deps all` must see what
# deps has just installed, not what was there when make read this file. Library headers
# come in with -isystem: libtraceevent's header trips -Wpedantic.
PKG_INC   = $(patsubst -I%,-isystem %,$(shell pkg-config --cflags $(PKGS)))
PKG_LIBS  = $(shell pkg-config --libs $(PKGS))
# CFLAGS, CPPFLAGS and LDFLAGS are the user's or the distribution's (make CFLAGS=-O0,
# dpkg-buildflags' -D_FORTIFY_SOURCE=2 and -Wl,-z,relro): what the build needs is added to
# them, on every compile and link line.
CFLAGS   ?= -O2 -g
ifeq ($(SANITIZE),1)
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
override CFLAGS  += $(SAN_FLAGS)
override LDFLAGS += $(SAN_FLAGS)
export ASAN_OPTIONS := abort_on_error=0:exitcode=99:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS := print_stacktrace=1:halt_on_error=1:exitcode=99
export LSAN_OPTIONS := suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0
endif
# Warnings are errors in the project's own checks, not on every user's compiler (another
# compiler or -O0 warns where ours does not: a false positive must not stop a build):
# make check, vmcheck-bin and fuzz build with WERROR=1, and CI sets it for every build.
WARN     := -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wshadow -Wformat=2 -Wno-format-nonliteral
WERROR   ?=
check vmcheck-bin: WERROR = 1
BUILD_CFLAGS = $(WARN) $(if $(filter 1,$(WERROR)),-Werror) -Icommon $(PKG_INC) \
	-DFTT_VERSION='"$(VERSION)"' -MMD -MP $(CPPFLAGS) $(CFLAGS)
LDLIBS    = $(PKG_LIBS) -lz -lm

# A target whose command fails is removed: no half-written object survives a failed build.
.DELETE_ON_ERROR:

COMMON_OBJ := $(COMMON:%=$(B)/obj/%.o)
LIB        := $(B)/libftt.a

all: $(TOOLS:%=$(B)/%) completion

# Bash completion, made from each tool's -h (its option table): completion/gen.sh.
completion: $(TOOLS:%=$(B)/completion/%)
$(B)/completion/%: $(B)/% completion/gen.sh completion/common.bash
	completion/gen.sh $(B) $(B)/completion $*

# The version is compiled into opt.o: rebuilt when it changes (a file that changes only then).
$(B)/version: FORCE | $(B)/obj
	@echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' > $@
$(B)/obj/base/opt.o: $(B)/version
FORCE:

# Header dependencies as the compiler found them (-MMD), read back here.
$(B)/obj/%.o: common/%.c | $(B)/obj
	@mkdir -p $(@D)
	$(CC) $(BUILD_CFLAGS) -c -o $@ $<
$(B)/obj/%.o: tools/%.c | $(B)/obj
	$(CC) $(BUILD_CFLAGS) -c -o $@ $<
-include $(wildcard $(B)/obj/*.d $(B)/obj/*/*.d $(B)/tests/*.d)
# Made anew: ar r keeps the members of modules renamed or removed since (two definitions).
$(LIB): $(COMMON_OBJ)
	rm -f $@
	$(AR) rcs $@ $^
$(B)/%: $(B)/obj/%.o $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(B)/obj $(B)/static $(B)/tests:
	mkdir -p $@
# The system calls of this architecture by number, as the compiler's headers define them
# (sysnr.c: the raw_syscalls events carry only the number).
$(B)/obj/sysnr_table.h: | $(B)/obj
	printf '#include <sys/syscall.h>\n' | $(CC) $(CPPFLAGS) -dM -E - | \
		sed -n 's/^#define __NR_\([a-z0-9_]*\) .*/\t{__NR_\1, "\1"},/p' | \
		grep -v -e '"syscalls"' -e '"arch_specific_syscall"' > $@
$(B)/obj/domain/sysnr.o: $(B)/obj/sysnr_table.h
$(B)/obj/domain/sysnr.o: BUILD_CFLAGS += -I$(B)/obj

# One self-contained file per tool, to copy onto a box under investigation.
# glibc warns that libtraceevent's plugin loader (dlopen) needs the shared libc at run time:
# plugins are not used by these tools.
static: $(TOOLS:%=$(B)/static/%)
$(B)/static/%: $(B)/obj/%.o $(LIB) | $(B)/static
	$(CC) -static $(CFLAGS) $(LDFLAGS) -o $@ $^ -ltracefs -ltraceevent -lelf -lz -lzstd -ldl -lm 2> $@.log; \
		rc=$$?; grep -v -e dlopen -e load_plugin $@.log >&2; rm -f $@.log; exit $$rc

# The container image for nodes (oci/build.sh, README's Fleets): the static binaries, man
# pages and completion from scratch, as an OCI archive; loaded into podman's store where
# podman is. Rebuilt when a binary changes (the version is in each: every commit).
IMAGE := $(B)/ftrace-tools.oci.tar
image: $(IMAGE)
$(IMAGE): $(TOOLS:%=$(B)/static/%) $(TOOLS:%=$(B)/completion/%) $(TOOLS:%=man/man8/%.8) \
		oci/build.sh LICENSE debian/control | image-deps
	B=$(B) VERSION='$(VERSION)' TOOLS='$(TOOLS)' oci/build.sh $@

COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
# The names users type for fsslower and fsdist: the name chooses the file system (hard links).
FS_NAMES := ext4 xfs btrfs nfs
install: all
	install -d $(DESTDIR)$(PREFIX)/sbin $(DESTDIR)$(PREFIX)/share/man/man8 $(DESTDIR)$(COMPLETIONDIR)
	install -m 0755 $(TOOLS:%=$(B)/%) $(DESTDIR)$(PREFIX)/sbin/
	install -m 0644 $(TOOLS:%=man/man8/%.8) $(DESTDIR)$(PREFIX)/share/man/man8/
	install -m 0644 $(TOOLS:%=$(B)/completion/%) $(DESTDIR)$(COMPLETIONDIR)/
	for t in slower dist; do for fs in $(FS_NAMES); do \
		ln -f $(DESTDIR)$(PREFIX)/sbin/fs$$t $(DESTDIR)$(PREFIX)/sbin/$$fs$$t && \
		ln -f $(DESTDIR)$(PREFIX)/share/man/man8/fs$$t.8 $(DESTDIR)$(PREFIX)/share/man/man8/$$fs$$t.8 && \
		ln -f $(DESTDIR)$(COMPLETIONDIR)/fs$$t $(DESTDIR)$(COMPLETIONDIR)/$$fs$$t || exit 1; done; done

# Unit tests: cmocka, no root, no kernel.
$(B)/tests/%: tests/unit/%.c $(LIB) | $(B)/tests check-deps
	$(CC) $(BUILD_CFLAGS) $(LDFLAGS) -DFIXTURES='"$(CURDIR)/tests/fixtures"' -o $@ $< $(LIB) $(LDLIBS) -lcmocka

# test_sdt reads the notes of a program built with <sys/sdt.h> (systemtap-sdt-dev), beside it.
$(B)/tests/sdt_fixture: tests/unit/sdt_fixture.c tests/unit/sdt_fixture_sem.c | $(B)/tests check-deps
	$(CC) -O1 -Wall -Wextra -Werror -o $@ $^
$(B)/tests/test_sdt: $(B)/tests/sdt_fixture

# Programs the live tests trace (here and in the qemu guests: static).
$(B)/tests/uprobe_target: tests/live/uprobe_target.c | $(B)/tests
	$(CC) -O1 -g -fno-omit-frame-pointer -Wall -Wextra -Werror -o $@ $<
$(B)/static/uprobe_target: tests/live/uprobe_target.c | $(B)/static
	$(CC) -O1 -g -fno-omit-frame-pointer -static -Wall -Wextra -Werror -o $@ $<
$(B)/tests/exit_target: tests/live/exit_target.c | $(B)/tests
	$(CC) -O1 -g -Wall -Wextra -Werror -pthread -o $@ $<
$(B)/static/exit_target: tests/live/exit_target.c | $(B)/static
	$(CC) -O1 -g -static -Wall -Wextra -Werror -pthread -o $@ $<
# Static everywhere: no dynamic loader opening libraries, so its calls can be counted exactly.
$(B)/tests/sys_target: tests/live/sys_target.c | $(B)/tests
	$(CC) -O1 -static -Wall -Wextra -Werror -o $@ $<
$(B)/static/sys_target: tests/live/sys_target.c | $(B)/static
	$(CC) -O1 -static -Wall -Wextra -Werror -o $@ $<
$(B)/tests/exec_target: tests/live/exec_target.c | $(B)/tests
	$(CC) -O1 -g -Wall -Wextra -Werror -pthread -o $@ $<
$(B)/static/exec_target: tests/live/exec_target.c | $(B)/static
	$(CC) -O1 -g -static -Wall -Wextra -Werror -pthread -o $@ $<
$(B)/tests/names_target: tests/live/names_target.c | $(B)/tests
	$(CC) -O1 -g -Wall -Wextra -Werror -pthread -o $@ $<
$(B)/static/names_target: tests/live/names_target.c | $(B)/static
	$(CC) -O1 -g -static -Wall -Wextra -Werror -pthread -o $@ $<
$(B)/tests/snoop_target: tests/live/snoop_target.c | $(B)/tests
	$(CC) -O1 -g -Wall -Wextra -Werror -o $@ $<
$(B)/static/snoop_target: tests/live/snoop_target.c | $(B)/static
	$(CC) -O1 -g -static -Wall -Wextra -Werror -o $@ $<
# The file tools' known calls: dynamic here, so that uprobes on the C library see its opens
# (filetop's paths where there are no kprobes); static in the guests, whose kernels have them.
$(B)/tests/file_target: tests/live/file_target.c | $(B)/tests
	$(CC) -O1 -Wall -Wextra -Werror -o $@ $<
$(B)/static/file_target: tests/live/file_target.c | $(B)/static
	$(CC) -O1 -static -Wall -Wextra -Werror -o $@ $<
# Known TCP connections on loopback for the network tools' tests (static in the guests).
$(B)/tests/tcp_target: tests/live/tcp_target.c | $(B)/tests
	$(CC) -O1 -g -Wall -Wextra -Werror -o $@ $<
$(B)/static/tcp_target: tests/live/tcp_target.c | $(B)/static
	$(CC) -O1 -g -static -Wall -Wextra -Werror -o $@ $<
# Threads contending for one pipe's mutex, for klockstat's test (static in the guests).
$(B)/tests/lock_target: tests/live/lock_target.c | $(B)/tests
	$(CC) -O1 -g -pthread -Wall -Wextra -Werror -o $@ $<
$(B)/static/lock_target: tests/live/lock_target.c | $(B)/static
	$(CC) -O1 -g -static -pthread -Wall -Wextra -Werror -o $@ $<
# The scheduler tools' children of known switches, naps and contention; frame pointers for
# their user stacks.
$(B)/tests/sched_target: tests/live/sched_target.c | $(B)/tests
	$(CC) -O1 -g -fno-omit-frame-pointer -static -Wall -Wextra -Werror -pthread -o $@ $<
$(B)/static/sched_target: tests/live/sched_target.c | $(B)/static
	$(CC) -O1 -g -fno-omit-frame-pointer -static -Wall -Wextra -Werror -pthread -o $@ $<
# profile's functions burning CPU in known shares (frame pointers for the user stacks).
$(B)/tests/profile_target: tests/live/profile_target.c | $(B)/tests
	$(CC) -O1 -g -fno-omit-frame-pointer -Wall -Wextra -Werror -pthread -o $@ $<
$(B)/static/profile_target: tests/live/profile_target.c | $(B)/static
	$(CC) -O1 -g -fno-omit-frame-pointer -static -Wall -Wextra -Werror -pthread -o $@ $<
# memleak's known leaks from a deep chain of functions (frame pointers, no sibling calls:
# each level its own frame); dynamic, as memleak probes libc.so (the guests' are static).
$(B)/tests/leak_target: tests/live/leak_target.c | $(B)/tests
	$(CC) -O1 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -Wall -Wextra -Werror -pthread -o $@ $<
# memleak's kernel mode: pipes grown and held or closed (static: the guests run it too).
$(B)/tests/kleak_target: tests/live/kleak_target.c | $(B)/tests
	$(CC) -O1 -g -static -Wall -Wextra -Werror -o $@ $<
$(B)/static/kleak_target: tests/live/kleak_target.c | $(B)/static
	$(CC) -O1 -g -static -Wall -Wextra -Werror -o $@ $<
# Known host name lookups for gethostlatency, answered from /etc/hosts: dynamic, since a
# static program's lookups are not the C library's (the guests have no libc.so: skipped).
$(B)/tests/resolve_target: tests/live/resolve_target.c | $(B)/tests
	$(CC) -O1 -g -Wall -Wextra -Werror -o $@ $<
# A typist at an interactive bash on a pseudo-terminal, for bashreadline (the guests have no
# bash: not built for them).
$(B)/tests/pty_bash: tests/live/pty_bash.c | $(B)/tests
	$(CC) -O1 -g -Wall -Wextra -Werror -o $@ $< -lutil
# USDT probes with known arguments for test_usdt (<sys/sdt.h>: systemtap-sdt-dev).
$(B)/tests/usdt_target: tests/live/usdt_target.c | $(B)/tests
	$(CC) -O1 -g -Wall -Wextra -Werror -o $@ $<
$(B)/static/usdt_target: tests/live/usdt_target.c | $(B)/static
	$(CC) -O1 -g -static -Wall -Wextra -Werror -o $@ $<
# A strict JSON-lines checker for the live tests where python3 is missing (the guests).
$(B)/tests/jsoncheck: tests/live/jsoncheck.c | $(B)/tests
	$(CC) -O2 -Wall -Wextra -Werror -o $@ $<
$(B)/static/jsoncheck: tests/live/jsoncheck.c | $(B)/static
	$(CC) -O2 -static -Wall -Wextra -Werror -o $@ $<

# (the image holds make static's binaries, which the build of SANITIZE=1 has none of: there
# the image's suite skips, saying so)
check: check-deps all $(UNIT:%=$(B)/tests/%) $(B)/tests/uprobe_target $(B)/tests/names_target $(B)/tests/exit_target $(B)/tests/sys_target $(B)/tests/exec_target $(B)/tests/snoop_target $(B)/tests/tcp_target $(B)/tests/jsoncheck $(B)/tests/sched_target $(B)/tests/profile_target $(B)/tests/resolve_target $(B)/tests/pty_bash $(if $(filter 1,$(SANITIZE)),,$(IMAGE)) $(B)/tests/file_target $(B)/tests/usdt_target $(B)/tests/lock_target $(B)/tests/leak_target $(B)/tests/kleak_target
	B=$(B) TOOLS="$(TOOLS)" UNIT="$(UNIT)" LAYERS="$(LAYERS)" \
		LIVE_SKIP="$(if $(filter 1,$(SANITIZE)),test_examples test_pictures test_prom)" tests/check.sh

# The live tests inside Debian's 5.10, 6.1 and 6.12 kernels under qemu (tests/vm/vmcheck.sh);
# kernels are cached in $(VM_CACHE), outside the clone.
VM_CACHE ?= /var/cache/ftrace-tools-vm
# vmcheck-bin installs what the guests need too: CI runs it first, then make vmcheck beside
# make check.
vmcheck-bin: vmcheck-deps static $(B)/static/uprobe_target $(B)/static/names_target $(B)/static/exit_target $(B)/static/sys_target $(B)/static/exec_target $(B)/static/snoop_target $(B)/static/tcp_target $(B)/static/jsoncheck $(B)/static/sched_target $(B)/static/profile_target $(B)/static/file_target $(B)/static/usdt_target $(B)/static/lock_target $(B)/static/kleak_target
vmcheck: vmcheck-bin
	VM_CACHE=$(VM_CACHE) BIN=$(B)/static tests/vm/vmcheck.sh

# Debian packages, installed only when missing (apt-get update first only then). make deps:
# what building (make all, static, install) and running the tools need, the quick start's
# first command. The tests install their own: check-deps (make check, also SANITIZE=1),
# vmcheck-deps (make vmcheck-bin and vmcheck: the guests), fuzz-deps (make fuzz), image-deps
# (make image).
DEPS       := gcc make pkg-config libc6-dev libtracefs-dev libtraceevent-dev libelf-dev \
	libzstd-dev zlib1g-dev
CHECK_DEPS := libcmocka-dev clang-format groff-base mandoc util-linux procps python3 \
	libxml2-utils chromium trace-cmd nftables tmux bash-completion golang-go prometheus \
	prometheus-node-exporter podman runc systemtap-sdt-dev libc6-dbg bpftrace openssl
ifeq ($(SANITIZE),1)
CHECK_DEPS += clang libclang-rt-14-dev
endif
VM_DEPS    := qemu-system-x86 busybox-static kmod e2fsprogs xz-utils zstd systemtap-sdt-dev
FUZZ_DEPS  := clang libclang-rt-14-dev
IMAGE_DEPS := umoci
# Two makes may ask at once (CI runs make vmcheck beside make check): apt waits for the
# other's lock instead of failing.
APT_WAIT   := -o DPkg::Lock::Timeout=600
deps:
	@missing=$$(for p in $(DEPS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
		grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		apt-get update -qq $(APT_WAIT) && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(APT_WAIT) $$missing; \
	fi
check-deps:
	@$(MAKE) -s deps DEPS="$(DEPS) $(CHECK_DEPS)"
vmcheck-deps:
	@$(MAKE) -s deps DEPS="$(DEPS) $(VM_DEPS)"
fuzz-deps:
	@$(MAKE) -s deps DEPS="$(DEPS) $(FUZZ_DEPS)"
image-deps:
	@$(MAKE) -s deps DEPS="$(DEPS) $(IMAGE_DEPS)"

# The Debian package (debian/, debhelper): built from a copy of the tracked files as they are
# now, with debian/changelog written for VERSION; lintian must report no error.
# $(B)/deb/ftrace-tools_<version>_<arch>.deb
DEB_DEPS := debhelper dpkg-dev fakeroot lintian pkg-config libtracefs-dev libtraceevent-dev libelf-dev groff-base
deb:
	@$(MAKE) -s deps DEPS="$(DEB_DEPS)"
	rm -rf $(B)/deb && mkdir -p $(B)/deb/src
	git ls-files -z | xargs -0 cp --parents -t $(B)/deb/src
	printf 'ftrace-tools (%s) unstable; urgency=medium\n\n  * Built from the project at %s.\n\n -- %s  %s\n' \
		'$(VERSION)' '$(VERSION)' "$$(sed -n 's/^Maintainer: //p' debian/control)" \
		"$$(date -R)" > $(B)/deb/src/debian/changelog
	cd $(B)/deb/src && dpkg-buildpackage -b -us -uc
	lintian --fail-on error $(B)/deb/*.deb
	@ls $(B)/deb/*.deb

# The overhead benchmarks (bench/bench.sh, then the profilers' bench/bench-profile.sh,
# memleak's bench/bench-memleak.sh), start-up beside perf-tools' (bench/bench-startup.sh) and
# filetop, vfsstat, fileslower and tcptop on read/write storms (bench/bench-files.sh): never
# part of check; write bench/REPORT.md, PROFILE.md, MEMLEAK.md, STARTUP.md and FILES.md.
BENCH_DEPS := bpftrace perf-tools-unstable linux-perf time bc python3
bench-deps:
	@$(MAKE) -s deps DEPS="$(BENCH_DEPS)"
bench: all bench-deps $(B)/tests/profile_target $(B)/tests/leak_target $(B)/tests/usdt_target
	bench/bench.sh
	bench/bench-profile.sh
	bench/bench-memleak.sh
	bench/bench-startup.sh
	bench/bench-files.sh
# The function tools' counting paths in the qemu guests (bench/guest-run.sh): bench/GUEST.md.
bench-guest: vmcheck-bin
	VM_CACHE=$(VM_CACHE) bench/guest-run.sh

# Fuzzing (libFuzzer, Debian's clang) with ASan and UBSan: every target in tests/fuzz runs for
# FUZZ_SECONDS from its corpus (tests/fuzz/corpus/TARGET, seeds; new inputs are kept in
# $(F)/corpus, not in the clone). A finding stops make with the input that caused it.
FUZZ         := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_SECONDS ?= 30
F            := $(B)/fuzz
FUZZ_CFLAGS   = -g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all \
	$(WARN) -Werror -Icommon $(PKG_INC) -DFTT_VERSION='"fuzz"' -DFIXTURES='"$(CURDIR)/tests/fixtures"' \
	-DFTT_FUZZ
$(F)/obj/%.o: common/%.c | $(F)/obj fuzz-deps
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) -c -o $@ $<
$(F)/obj/domain/sysnr.o: $(B)/obj/sysnr_table.h
$(F)/obj/domain/sysnr.o: FUZZ_CFLAGS += -I$(B)/obj
$(F)/%: tests/fuzz/%.c $(COMMON:%=$(F)/obj/%.o) | $(F)/obj fuzz-deps
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)
$(F)/obj:
	mkdir -p $@
fuzz: $(FUZZ:%=$(F)/%)
	F=$(F) FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run.sh $(FUZZ)

# The code's style (.clang-format); make check runs format-check.
FORMAT_FILES = common/*.[ch] common/*/*.[ch] tools/*.c tests/unit/*.[ch] tests/live/*.c tests/fuzz/*.[ch]
format:
	clang-format -i $(FORMAT_FILES)
format-check:
	clang-format --dry-run --Werror $(FORMAT_FILES)

clean:
	rm -rf $(B)

.PHONY: FORCE all completion deb static install image image-deps check vmcheck vmcheck-bin fuzz deps check-deps vmcheck-deps fuzz-deps bench bench-guest bench-deps format format-check clean
.SECONDARY:
