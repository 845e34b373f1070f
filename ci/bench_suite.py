"""Measures `rea run-suite` against its peers on trivial scenarios.

Usage: python3 ci/bench_suite.py REA_BINARY

BENCH_CASES (default 200) cases of `/bin/echo case-N` (each side the same
program, observing the case's directory, every other setting at its default);
BENCH_ROUNDS (default 1) rounds, each running, interleaved: the suite with
--jobs 1, with --jobs 2, the glue (per case two `rea capture-process` and one
`rea compare-process-captures`, 2 cases at a time by `xargs -P2`), and the
suite checked against goldens recorded beforehand (--jobs 2). Then one run of
BENCH_RSS_CASES (default 1000) cases with --jobs 2 under GNU time for its
peak RSS. Prints each ratio beside its target; the figure of each command
is the median over the rounds.
"""
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

REA = sys.argv[1]
CASES = int(os.environ.get("BENCH_CASES", "200"))
RSS_CASES = int(os.environ.get("BENCH_RSS_CASES", "1000"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "1"))
TARGETS = {"jobs": 0.55, "glue": 0.8, "goldens": 0.55, "rss_mib": 64}


def write_suite(work, name, count, authority=True):
    sides = {"reconstruction": {"executable": "/bin/echo"}}
    if authority:
        sides["authority"] = {"executable": "/bin/echo"}
    suite = {
        "name": name,
        "sides": sides,
        "cases": [{"name": f"case-{i}", "scenario": {"arguments": [f"case-{i}"]}} for i in range(count)],
        "defaults": {"filesystem_observation_paths": ["."]},
    }
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump(suite, f)
    return path


def glue_script(work, count):
    """The glue: one shell line per case, as a user would generate them."""
    lines = []
    for i in range(count):
        case = os.path.join(work, "glue", f"case-{i}")
        os.makedirs(case, exist_ok=True)
        for side in ("authority", "reconstruction"):
            scenario = {"executable": "/bin/echo", "arguments": [f"case-{i}"], "working_directory": case,
                        "filesystem_observation_paths": ["."]}
            with open(os.path.join(case, side + ".scenario.json"), "w") as f:
                json.dump(scenario, f)
        q = shlex.quote
        lines.append(
            f"cd {q(case)} && {q(REA)} capture-process authority.scenario.json --json > authority.json 2>/dev/null"
            f" && {q(REA)} capture-process reconstruction.scenario.json --json > reconstruction.json 2>/dev/null"
            f" && {q(REA)} compare-process-captures authority.json reconstruction.json --json > comparison.json"
        )
    path = os.path.join(work, "glue.lines")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def wall(argv, **kw):
    start = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)
    if done.returncode not in (0, 3):
        raise SystemExit(f"bench-suite: {argv[:3]} exited {done.returncode}")
    return time.perf_counter() - start


def suite_run(suite, out, *args):
    return wall([REA, "run-suite", suite, "--out", out, "--json", *args])


def main():
    work = tempfile.mkdtemp(prefix="rea-bench-suite-")
    env_tmp = os.path.join(work, "tmp")
    os.makedirs(env_tmp)
    os.environ["TMPDIR"] = env_tmp
    full = write_suite(work, "trivial", CASES)
    checked = write_suite(work, "trivial-goldens", CASES, authority=False)
    lines = glue_script(work, CASES)
    goldens = os.path.join(work, "goldens")
    roots = ("--work-root", os.path.join(work, "root"))
    suite_run(full, os.path.join(work, "record"), "--jobs", "2", "--record-goldens", goldens, *roots)
    times = {"jobs1": [], "jobs2": [], "glue": [], "goldens": []}
    for _ in range(ROUNDS):
        times["jobs1"].append(suite_run(full, os.path.join(work, "out1"), "--jobs", "1", *roots))
        times["jobs2"].append(suite_run(full, os.path.join(work, "out2"), "--jobs", "2", *roots))
        times["glue"].append(wall(["sh", "-c", f"xargs -P2 -I{{}} sh -c '{{}}' < {shlex.quote(lines)}"]))
        times["goldens"].append(suite_run(checked, os.path.join(work, "outg"), "--jobs", "2", "--goldens", goldens, *roots))
    t = {k: statistics.median(v) for k, v in times.items()}
    print(f"bench-suite: {CASES} trivial cases, {ROUNDS} round(s), {os.cpu_count()} CPUs")
    for key in ("jobs1", "jobs2", "glue", "goldens"):
        print(f"  {key:8} {t[key]:8.2f} s  ({t[key] / CASES * 1000:.0f} ms a case)")
    figures = [
        ("--jobs 2 / --jobs 1", t["jobs2"] / t["jobs1"], TARGETS["jobs"]),
        ("--jobs 2 / glue (xargs -P2)", t["jobs2"] / t["glue"], TARGETS["glue"]),
        ("--goldens / full run (--jobs 2)", t["goldens"] / t["jobs2"], TARGETS["goldens"]),
    ]
    for name, ratio, target in figures:
        print(f"  {name:34} {ratio:.3f}  (target <= {target}) {'ok' if ratio <= target else 'ABOVE TARGET'}")
    big = write_suite(work, "thousand", RSS_CASES)
    out = subprocess.run(["/usr/bin/time", "-f", "%M", REA, "run-suite", big, "--out", os.path.join(work, "outbig"),
                          "--json", "--jobs", "2"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    rss_mib = int(out.stderr.decode().strip().splitlines()[-1]) / 1024
    verdict = "ok" if rss_mib <= TARGETS["rss_mib"] else "ABOVE TARGET"
    print(f"  peak RSS of {RSS_CASES} cases (--jobs 2)   {rss_mib:.1f} MiB  (target <= {TARGETS['rss_mib']}) {verdict}")
    subprocess.run(["rm", "-rf", work])


main()
