#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Build one old-kernel image for make vmcheck: a bootable bzImage with everything the tools use
# built in (no modules), from a kernel source tree you have unpacked.
#
# usage: tests/vm/kernels/build.sh SRCDIR OUTDIR
#   SRCDIR  an unpacked source tree: mainline 4.9.337 and stable 4.14.325 and 4.19.222 from
#           kernel.org, RHEL 8.1's 4.18.0-147.5.1.el8_1 from its source RPM
#   OUTDIR  where vmlinuz-<release> and config-<release> go (make vmcheck VM_IMAGES=OUTDIR)
#
# These kernels predate today's compilers: build them with gcc-10 (Debian bullseye's
# gcc-10 package; CC and HOSTCC below, override with CC=...). What else each needs is done
# here, each with its reason, on a copy of nothing: the tree is changed in place.
# The images vmcheck was run with were made this way on 2026-11-22 (186 to 340 s each on two
# CPUs).
set -eu
src=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
CC=${CC:-gcc-10}
command -v "$CC" > /dev/null || { echo "build.sh: $CC not found (apt-get install gcc-10, or CC=...)" >&2; exit 1; }
M=(make -C "$src" ARCH=x86_64 CC="$CC" HOSTCC="$CC")
ver=$(make -s -C "$src" kernelversion)

# Fixes for building with binutils 2.40 and for trees that do not build as shipped.
case $ver in
4.19.*)
	# A vendor tree of 4.19.222 set ARCH and CROSS_COMPILE to an ARM toolchain in its top
	# Makefile: give ARCH back to the command line and the host.
	sed -i -e 's/^ARCH = arm$/ARCH ?= $(SUBARCH)/' -e '/^CROSS_COMPILE = .*arm-linux/d' \
		"$src/Makefile" ;;
4.18.*)
	# objtool of 4.18 fails on an object without a symbol table (thunk_64.o with
	# binutils 2.40); later kernels skip such an object: do the same.
	perl -0pi -e 's/(if \(!symtab\) \{)\s*WARN\("missing symbol table"\);\s*return -1;/$1\n\t\treturn 0;/' \
		"$src/tools/objtool/elf.c"
	# RHEL's tree stops on warnings that newer compilers give; its setup.c needs the
	# hypervisor-guest code.
	M+=(DISABLE_WERROR=1)
	extra=HYPERVISOR_GUEST ;;
esac

# The configuration: tinyconfig, then the options twice (some appear only once their
# dependencies are on), the ones that would get in the way off, then every module built in.
opts=$(grep -v '^#' "$here/options" | tr '\n' ' ')
config() { for o in $opts ${extra:-}; do "$src/scripts/config" --file "$src/.config" --enable "$o"; done; }
off() {
	for o in KERNEL_XZ CC_OPTIMIZE_FOR_SIZE IRQSOFF_TRACER PREEMPT_TRACER UNWINDER_ORC \
		UNWINDER_GUESS CRYPTO_DEV_VIRTIO; do
		"$src/scripts/config" --file "$src/.config" --disable "$o"
	done
}
"${M[@]}" tinyconfig > /dev/null
config; off
"${M[@]}" olddefconfig > /dev/null
config; off
"${M[@]}" olddefconfig > /dev/null
sed -i 's/=m$/=y/' "$src/.config"
"${M[@]}" olddefconfig > /dev/null
for o in $opts; do
	grep -qE "^CONFIG_$o=y" "$src/.config" || echo "note: CONFIG_$o is not set in $ver (not in this kernel, or a choice)"
done
"${M[@]}" -j"$(nproc)" bzImage
rel=$(make -s -C "$src" kernelrelease)
mkdir -p "$out"
cp "$src/arch/x86/boot/bzImage" "$out/vmlinuz-$rel"
cp "$src/.config" "$out/config-$rel"
echo "built $out/vmlinuz-$rel"
