#!/usr/bin/env python3
"""Times a team of N teammates against catui-mock --teammates N.

Usage: bench/teammates.py CATUI MOCK_URL N WORKDIR
Starts `catui -p --input-format stream-json --output-format stream-json`
under /usr/bin/time in WORKDIR, asks it to start the team, and waits until
every teammate's message has reached the lead. Prints one JSON line:
{"teammates": N, "all_reported_ms": ..., "max_rss_mib": ...}.
The environment (config dir, key, base URL) is the caller's.
"""
import json
import os
import subprocess
import sys
import tempfile
import time


def main() -> int:
    catui, url, n, workdir = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    env = dict(os.environ, ANTHROPIC_BASE_URL=url)
    rss_file = tempfile.NamedTemporaryFile(delete=False).name
    cmd = ["/usr/bin/time", "-f", "%M", "-o", rss_file, catui, "-p",
           "--input-format", "stream-json", "--output-format", "stream-json",
           "--permission-mode", "acceptEdits"]
    proc = subprocess.Popen(cmd, cwd=workdir, env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    started = time.monotonic()
    proc.stdin.write(json.dumps({"type": "user", "message": {"role": "user", "content": "start the team"}}) + "\n")
    proc.stdin.flush()
    reported = set()
    deadline = started + 300
    for line in proc.stdout:
        try:
            v = json.loads(line)
        except ValueError:
            continue
        if v.get("subtype") == "notification" and v.get("key") == "teammate-message":
            reported.add(v.get("text", "").split(":", 1)[0])
        if len(reported) >= n or time.monotonic() > deadline:
            break
    all_reported = (time.monotonic() - started) * 1000
    proc.stdin.close()
    # Keep reading until catui exits: a full stdout pipe would block it.
    for _ in proc.stdout:
        pass
    proc.wait(timeout=60)
    rss = int(open(rss_file).read().split()[-1]) / 1024
    os.unlink(rss_file)
    if len(reported) < n:
        print(f"only {len(reported)} of {n} teammates reported", file=sys.stderr)
        return 1
    print(json.dumps({"teammates": n, "all_reported_ms": round(all_reported, 1), "max_rss_mib": round(rss, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
