#!/bin/bash
# Who reads a small file that is not in the page cache, and how long it waits (issue 20).
# Usage: test/bench/evicted-reads.sh <checkout> [<checkout>...]   (Linux, strace and python3; built dist/)
# Writes 400 files of 64 KiB, starts the first checkout's emulator on 127.0.0.1, then for each
# checkout in turn: drops the files' pages from the page cache (posix_fadvise DONTNEED: these
# files only, nothing else on the machine), uploads them with that checkout's built CLI under
# `strace -f -T`, and sums the read system calls of those files by thread: the main thread
# (the event loop) or the others. strace slows every call it traces; compare the trees, not
# the milliseconds with an untraced run. Reads strace printed in two pieces (unfinished /
# resumed) are not counted.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 <checkout> [<checkout>...]" >&2; exit 2; }
work=$(mktemp -d /tmp/bl-evicted-XXXXXX)
trap 'kill $emu 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/files" "$work/emu"
for i in $(seq 1 400); do head -c 65536 /dev/urandom > "$work/files/f$i.bin"; done
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
node "$1/bin/blocklift.mjs" emulator --port "$port" --data "$work/emu" > "$work/emu.log" 2>&1 &
emu=$!
for _ in $(seq 1 50); do grep -q listening "$work/emu.log" && break; sleep 0.2; done
echo "load: $(uptime)"
n=0
for tree in "$@"; do
  n=$((n + 1))
  sync
  python3 - "$work/files" <<'PY'
import glob, os, sys
for p in glob.glob(sys.argv[1] + '/*.bin'):
    fd = os.open(p, os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED); os.close(fd)
PY
  mkdir -p "$work/data$n"
  BLOCKLIFT_DATA="$work/data$n" BLOCKLIFT_UPLOAD_URL="http://127.0.0.1:$port" BLOCKLIFT_MGR_URL="http://127.0.0.1:$port" \
    BLOCKLIFT_AK=blocklift-ak BLOCKLIFT_SK=blocklift-sk \
    strace -f -qq -T -e trace=openat,read,pread64,close -o "$work/strace$n.txt" \
    node "$tree/bin/blocklift.mjs" upload "$work/files" --bucket local --prefix "run$n/" > "$work/out$n.txt" 2>&1
  echo "$tree ($(git -C "$tree" rev-parse --short HEAD)): $(tail -1 "$work/out$n.txt")"
  python3 - "$work/strace$n.txt" "$work/files/" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
main = lines[0].split()[0]
opened, per = set(), {}
for line in lines:
    tid, _, rest = line.partition(' ')
    m = re.match(r'openat\(AT_FDCWD, "' + re.escape(sys.argv[2]) + r'[^"]+", [^)]*\) = (\d+)', rest)
    if m:
        opened.add((tid, m.group(1)))
        continue
    m = re.match(r'(?:read|pread64)\((\d+),.*<([\d.]+)>$', rest)
    if m and (tid, m.group(1)) in opened:
        ms = float(m.group(2)) * 1000
        role = 'main thread' if tid == main else 'other threads'
        c, s, mx = per.get(role, (0, 0.0, 0.0))
        per[role] = (c + 1, s + ms, max(mx, ms))
    elif rest.startswith('close('):
        opened.discard((tid, rest[6:].split(')')[0]))
for role in ('main thread', 'other threads'):
    c, s, mx = per.get(role, (0, 0.0, 0.0))
    print(f'  {role}: {c} reads of the uploaded files, {s:.1f} ms in them, the longest {mx:.2f} ms')
PY
done
