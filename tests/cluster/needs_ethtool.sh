#!/usr/bin/env bash
# `scripts/cluster up` refuses to shape a link of 100 Mbit/s or less without ethtool (GSO would
# stay on and htb pass 64 KiB bursts at veth speed: docs/cluster.md), exiting non-zero with a
# message naming the rate and the fix, and leaves nothing behind after `down`. Exit status: 0
# pass, 1 fail, 77 skipped (not root, no network namespaces).
set -uo pipefail
CLUSTER=$(cd "$(dirname "$0")/../.." && pwd)/scripts/cluster
PREFIX=noeth
if [[ $(id -u) -ne 0 ]]; then echo "SKIP: the emulated cluster needs root (uid $(id -u))"; exit 77; fi
if ! ip netns add "${PREFIX}probe" 2> /dev/null; then echo "SKIP: cannot create network namespaces"; exit 77; fi
ip netns del "${PREFIX}probe"
trap '"$CLUSTER" down --prefix "$PREFIX" > /dev/null 2>&1' EXIT
rc=0
out=$(FB_CLUSTER_ETHTOOL=fb-no-such-ethtool "$CLUSTER" up 2 --bandwidth 100mbit --prefix "$PREFIX" 2>&1) || rc=$?
echo "$out"
((rc != 0)) || { echo "FAIL: up at 100mbit without ethtool exited 0"; exit 1; }
grep -q "shaping 100mbit needs ethtool" <<< "$out" || { echo "FAIL: no message naming ethtool"; exit 1; }
"$CLUSTER" down --prefix "$PREFIX" > /dev/null 2>&1
if ip netns list | grep -q "^${PREFIX}h"; then echo "FAIL: namespaces left after down"; exit 1; fi
echo "PASS: refused (exit $rc) and cleaned up"
