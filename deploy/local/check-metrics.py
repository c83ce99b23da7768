#!/usr/bin/env python3
"""What operators scrape and chart, checked against what the processes export.

Run beside a suite (make fuzz-api runs it after its load): every process's /metrics passes
`promtool check metrics`, and every metric family it exports is in docs/OPERATIONS.md's table.
Then, without a suite as well: the Grafana dashboard and the alert rules in deploy/observability/
name only metrics of that table.

Usage: check-metrics.py [ADMIN_PORT ...]   (no ports: only the dashboard and rules)
"""
import json
import os
import re
import subprocess
import sys
import urllib.request

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def documented():
    """The metric names in docs/OPERATIONS.md's table (rows that start with a name in backticks)."""
    names = set()
    for line in open(os.path.join(root, "docs", "OPERATIONS.md")):
        found = re.match(r"\| `((?:http|process|orderly)_[a-z0-9_]+)` \|", line)
        if found:
            names.add(found.group(1))
    return names


def referenced(expression, known):
    """The metric names an expression names: the documented ones, with a histogram's series."""
    names = set()
    for word in re.findall(r"[a-zA-Z_:][a-zA-Z0-9_:]*", expression):
        base = re.sub(r"_(bucket|sum|count)$", "", word)
        if word.startswith(("http_", "process_", "orderly_")):
            names.add(base if base in known else word)
    return names


def main():
    problems = []
    known = documented()
    for port in sys.argv[1:]:
        text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read()
        result = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True)
        if result.returncode != 0:
            problems.append(f":{port}/metrics: promtool: {(result.stdout + result.stderr).decode().strip()}")
        families = set(re.findall(rb"^# TYPE (\S+) ", text, re.M))
        for family in sorted(f.decode() for f in families):
            if family not in known:
                problems.append(f":{port}/metrics exports {family}, which docs/OPERATIONS.md does not list")
        print(f"metrics on :{port}: {len(families)} families, promtool "
              f"{'passed' if result.returncode == 0 else 'FAILED'}")
    observability = os.path.join(root, "deploy", "observability")
    dashboard = os.path.join(observability, "grafana-dashboard.json")
    if os.path.exists(dashboard):
        expressions = []

        def walk(node):
            if isinstance(node, dict):
                if isinstance(node.get("expr"), str):
                    expressions.append(node["expr"])
                for value in node.values():
                    walk(value)
            elif isinstance(node, list):
                for value in node:
                    walk(value)

        walk(json.load(open(dashboard)))
        for expression in expressions:
            for name in sorted(referenced(expression, known) - known):
                problems.append(f"the dashboard charts {name}, which no process exports")
        print(f"dashboard: {len(expressions)} queries")
    rules = os.path.join(observability, "alerts.yaml")
    if os.path.exists(rules):
        text = open(rules).read()
        for expression in re.findall(r"^\s+expr: (.+)$", text, re.M):
            for name in sorted(referenced(expression, known) - known):
                problems.append(f"an alert rule reads {name}, which no process exports")
    for problem in problems:
        print("  " + problem)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
