#!/usr/bin/env python3
"""Summarises conformance results: scenarios passed / expected to fail / failed, per revision and
role, from the suite's checks.json files. Also fails when a scenario that must produce checks
produced none (a vacuous pass).

usage: summarize.py OUT_DIR CONFORMANCE_DIR
"""

import glob
import json
import os
import re
import sys

# The Tasks extension scenarios run one by one (run.sh); the suite itself only SKIPs
# tasks-status-notifications (its harness is pending a subscriptions/listen rewrite).
TASKS = ["tasks-lifecycle", "tasks-capability-negotiation", "tasks-wire-fields",
         "tasks-request-state-removal", "tasks-mrtr-input", "tasks-request-headers",
         "tasks-dispatch-and-envelope", "tasks-status-notifications", "tasks-required-task-error",
         "tasks-mrtr-composition"]
SUITE_SKIPS = {"tasks-status-notifications"}
# The Skills extension server scenarios, run one by one on each lineage (run.sh).
SKILLS = ["sep-2640-skills-enumeration", "sep-2640-skills-manifest", "sep-2640-skills-directory"]

# Scenarios whose checks must exist: a client that sent nothing would otherwise pass them.
MUST_HAVE = {"initialize": "mcp-client-initialization", "tools_call": "tool-add-numbers"}


def expected(path):
    """The scenario names (before any ':check') listed in an expected-failures file."""
    names = {"server": set(), "client": set()}
    role = None
    for line in open(path, encoding="utf-8"):
        line = line.split("#", 1)[0].rstrip()
        if line in ("server:", "client:"):
            role = line[:-1]
        elif line.strip().startswith("- ") and role:
            names[role].add(line.strip()[2:].split(":", 1)[0])
    return names


def scored(path):
    """role -> scored scenario names, from `conformance list --requirements REV`."""
    names = {"server": set(), "client": set()}
    role = None
    for line in open(path, encoding="utf-8"):
        if line.startswith("Server scenarios"):
            role = "server"
        elif line.startswith("Client scenarios"):
            role = "client"
        elif line.startswith("Run and reported"):
            role = None
        elif role and line.strip().startswith("- "):
            names[role].add(line.strip()[2:])
    return names


def scenarios(run_dir, prefix):
    """scenario -> list of checks."""
    out = {}
    for f in glob.glob(os.path.join(run_dir, "**", "checks.json"), recursive=True):
        rel = os.path.relpath(os.path.dirname(f), run_dir)
        name = re.sub(r"-\d{4}-\d\d-\d\dT[\d-]+Z$", "", rel)
        if prefix and name.startswith(prefix):
            name = name[len(prefix):]
        out.setdefault(name, []).extend(json.load(open(f, encoding="utf-8")))
    return out


def tally(label, found, score, exp):
    """Prints passed / expected to fail / failed of the scored scenarios in `found`; False when
    one failed unexpectedly, passed vacuously or produced no results."""
    ok = True
    passed = xfail = bad = 0
    extra = [0, 0]
    for name, checks in sorted(found.items()):
        failed = any(c.get("status") in ("FAILURE", "WARNING") for c in checks)
        if name not in score:
            extra[failed] += 1
            continue
        if name in MUST_HAVE and not any(c.get("id") == MUST_HAVE[name] for c in checks):
            print(f"  {label}: {name} produced no {MUST_HAVE[name]} check (vacuous pass)")
            failed, ok = True, False
        if not failed:
            passed += 1
        elif name in exp:
            xfail += 1
        else:
            bad += 1
    print(f"  {label}: {passed} passed, {xfail} expected to fail, {bad} failed unexpectedly"
          f" (of {len(score)}); not scored: {extra[0]} passed, {extra[1]} failed")
    if passed + xfail + bad != len(score):
        print(f"  {label}: {len(score) - passed - xfail - bad} scored scenarios produced no results")
        ok = False
    return ok


def tasks_tally(label, tasks_dir, names=TASKS, rev="2026-07-28"):
    """Prints each extension scenario of `names` run one by one in `tasks_dir`; False when one
    failed or ran nothing."""
    if not os.path.isdir(tasks_dir):
        return True
    ok = True
    found = scenarios(tasks_dir, "server-")
    print(f"  {label} ({rev}, one by one):")
    for name in names:
        checks = found.get(name, [])
        good = sum(c.get("status") == "SUCCESS" for c in checks)
        bad = [c.get("id") for c in checks if c.get("status") in ("FAILURE", "WARNING")]
        ran = good > 0 or name in SUITE_SKIPS
        print(f"    {name}: {good}/{len(checks)} checks passed"
              + (f"; failed: {', '.join(bad)}" if bad else "") + ("" if ran else "; NOTHING RAN"))
        ok = ok and ran and not bad
    return ok


def main():
    out_dir, conf_dir = sys.argv[1], sys.argv[2]
    ok = True
    print("\nconformance summary, scored scenarios (a WARNING counts as a failure, as the baseline does):")
    for rev in ("2025-11-25", "2026-07-28"):
        exp = expected(os.path.join(conf_dir, f"expected-{rev}.yaml"))
        score = scored(os.path.join(out_dir, f"scored-{rev}.txt"))
        for role, prefix in (("server", "server-"), ("client", "")):
            ok = tally(f"{rev} {role:6}", scenarios(os.path.join(out_dir, f"{role}-{rev}"), prefix),
                       score[role], exp[role]) and ok
    # `mcpcore gateway` fronting the fixture (run.sh), against its own expected failures.
    for rev in ("2025-11-25", "2026-07-28"):
        run_dir = os.path.join(out_dir, f"gateway-server-{rev}")
        if os.path.isdir(run_dir):
            exp = expected(os.path.join(conf_dir, f"expected-gateway-{rev}.yaml"))
            score = scored(os.path.join(out_dir, f"scored-{rev}.txt"))
            ok = tally(f"{rev} gateway", scenarios(run_dir, "server-"), score["server"], exp["server"]) and ok
    # The lineage bridge: the gateway fronting the fixture pinned to 2025-11-25.
    run_dir = os.path.join(out_dir, "bridge-server-2026-07-28")
    if os.path.isdir(run_dir):
        exp = expected(os.path.join(conf_dir, "expected-bridge-2026-07-28.yaml"))
        score = scored(os.path.join(out_dir, "scored-2026-07-28.txt"))
        ok = tally("2026-07-28 bridge", scenarios(run_dir, "server-"), score["server"], exp["server"]) and ok
    # Three instances behind nginx sharing Redis (scale_out.sh), against one instance's baseline.
    for rev in ("2025-11-25", "2026-07-28"):
        run_dir = os.path.join(out_dir, "scale-out", f"server-{rev}")
        if os.path.isdir(run_dir):
            exp = expected(os.path.join(conf_dir, f"expected-{rev}.yaml"))
            score = scored(os.path.join(out_dir, f"scored-{rev}.txt"))
            ok = tally(f"{rev} 3 instances", scenarios(run_dir, "server-"), score["server"], exp["server"]) and ok
    for label, sub in (("tasks", "tasks"), ("gateway tasks", "gateway-tasks"),
                       ("3 instances tasks", os.path.join("scale-out", "tasks"))):
        ok = tasks_tally(label, os.path.join(out_dir, sub)) and ok
    for rev in ("2026-07-28", "2025-11-25"):
        for label in ("skills", "gateway-skills", "bridge-skills"):
            ok = tasks_tally(label, os.path.join(out_dir, f"{label}-{rev}"), SKILLS, rev) and ok
    auth_dir = os.path.join(out_dir, "auth")
    if os.path.isdir(auth_dir):
        found = scenarios(auth_dir, "")
        good = [n for n, checks in found.items() if checks and not any(
            c.get("status") in ("FAILURE", "WARNING") for c in checks)]
        bad = sorted(set(found) - set(good))
        print(f"  auth (client, one by one, warnings fail): {len(good)} of {len(found)} passed"
              + (f"; failed: {', '.join(bad)}" if bad else ""))
        ok = ok and not bad and bool(found)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
