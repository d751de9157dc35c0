#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The container image for nodes (make image): make static's binaries, the man pages, the bash
# completion and the licence, from scratch (no shell, no C library, no package manager: the
# binaries need nothing at run time), as an OCI archive; loaded into podman's store where
# podman is. Built with umoci: no daemon, no registry, no container store of its own.
# usage: oci/build.sh OUT.oci.tar   (environment: B, VERSION, TOOLS, as make image sets them)
set -eu
out=$1
B=${B:-build}
: "${VERSION:?}" "${TOOLS:?}"
name=ftrace-tools
# A tag is [A-Za-z0-9_.-] (Docker's rule, which podman keeps): 0.9+git575.ga98facf is
# tagged 0.9-git575.ga98facf; the version label keeps the version as the tools print it.
tag=$(printf '%s' "$VERSION" | tr -c 'A-Za-z0-9_.-' -)
# Where the source of these binaries is (the licences of the libraries linked in ask for
# it): the project's home as the Debian package gives it, and the commit.
source=$(sed -n 's/^Homepage: //p' debian/control)
revision=$(git rev-parse HEAD 2> /dev/null || true)

work=$B/image
rm -rf "$work"
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root/usr/sbin" "$root/usr/share/man/man8" "$root/usr/share/bash-completion/completions" \
	"$root/usr/share/doc/$name"
for t in $TOOLS; do
	install -m 0755 "$B/static/$t" "$root/usr/sbin/$t"
	install -m 0644 "man/man8/$t.8" "$root/usr/share/man/man8/$t.8"
	install -m 0644 "$B/completion/$t" "$root/usr/share/bash-completion/completions/$t"
done
install -m 0644 LICENSE "$root/usr/share/doc/$name/LICENSE"
# (no /tmp nor /var/tmp: what the tools look for there is the host's, which a container's own
# would hide; see the README)

# The files go in through umoci's unpack and repack: 0.4.7's insert (Debian 12's) leaves the
# end of the tar out of the layer it writes, which GNU tar and scanners refuse (fixed in 0.5.0).
# As root umoci keeps the files' owners (root here); otherwise --rootless makes them root's.
rootless=
[ "$(id -u)" = 0 ] || rootless=--rootless
layout=$work/oci bundle=$work/bundle
umoci init --layout "$layout"
umoci new --image "$layout:$name:$tag"
umoci unpack $rootless --image "$layout:$name:$tag" "$bundle"
cp -a "$root/usr" "$bundle/rootfs/"
umoci repack --history.created_by 'make image' --image "$layout:$name:$tag" "$bundle"
description="Linux tracing tools on ftrace, without BPF; run privileged with the host's PID namespace"
# root (0:0), stated: the tools need it (tracefs, CAP_SYS_ADMIN or CAP_PERFMON); no
# entrypoint: the command is the tool, found in PATH by the container runtime (no shell).
umoci config --image "$layout:$name:$tag" --history.created_by 'make image' \
	--config.user 0:0 --config.workingdir / --config.env PATH=/usr/sbin:/usr/bin \
	--config.label org.opencontainers.image.title=$name \
	--config.label "org.opencontainers.image.description=$description" \
	--config.label "org.opencontainers.image.version=$VERSION" \
	--config.label "org.opencontainers.image.source=$source" \
	${revision:+--config.label "org.opencontainers.image.revision=$revision"}
umoci gc --layout "$layout"
# An OCI archive is the layout in a tar (what podman load, skopeo and buildah read).
tar -C "$layout" --owner=0 --group=0 --numeric-owner --sort=name -cf "$out.tmp" .
mv "$out.tmp" "$out"

if command -v podman > /dev/null; then
	# Each make image adds about 80 MB to podman's store: the image of an earlier build
	# (localhost/ftrace-tools, another version or the same one rebuilt) is removed, unless
	# a container still uses it. A store that refuses the image is said, and the archive
	# kept (a failed recipe would have make delete it).
	before=$(podman images -q --filter "reference=localhost/$name" | sort -u)
	if podman load -q -i "$out" > /dev/null &&
		podman tag "localhost/$name:$tag" "localhost/$name:latest"; then
		new=$(podman images -q "localhost/$name:$tag")
		for id in $before; do
			[ "$id" = "$new" ] || podman rmi "$id" > /dev/null 2>&1 || true
		done
		echo "$out: in podman's store as localhost/$name:$tag and localhost/$name:latest"
	else
		echo "oci/build.sh: podman could not load $out: podman's store left as it was" >&2
	fi
fi
echo "$out: $(du -k "$out" | cut -f1) KB"
