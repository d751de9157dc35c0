#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Reproducer for the guest stalls (see docs/testing.md, make vmcheck): run with
#   VM_KERNELS=bookworm VM_MONITOR=1 VM_TIMEOUT=150 VM_DEBUG_SCRIPT=tests/vm/stall-repro.sh tests/vm/vmcheck.sh
# On 2026-11-21 the 6.1 guest stopped in its first round: both vCPUs halted (HLT=1 in
# "info registers -a"), i.e. timers not firing, no console message.
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
for i in $(seq 1 40); do
  /ftt/bin/iolatency -d /dev/vda 0.3 2 > /tmp/o 2>/tmp/e &
  P=$!
  dd if=/dev/zero of=/dev/vda bs=4096 count=20 seek=10 oflag=direct 2>/dev/null
  wait $P
  /ftt/bin/iosnoop -d /dev/vda > /tmp/o2 2>/tmp/e2 &
  Q=$!
  sleep 0.3; dd if=/dev/zero of=/dev/vda bs=4096 count=5 seek=10 oflag=direct 2>/dev/null
  kill -INT $Q; wait $Q
  echo "round $i done"
done
