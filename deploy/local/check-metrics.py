#!/usr/bin/env python3
"""What operators scrape and chart, checked against what the processes export.

Run beside a suite (make fuzz-api runs it after its load): every process's /metrics passes
`promtool check metrics`, and every metric family it exports is in docs/OPERATIONS.md's table.
Then, without a suite as well: the Grafana dashboard and the alert rules in deploy/observability/
name only metrics of that table, and the PodMonitor finds every Deployment of the Kubernetes base
(its label, and a container port named as the PodMonitor scrapes).

Usage: check-metrics.py [ADMIN_PORT ...]   (no ports: only the dashboard and rules)
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.request

try:
    import yaml
except ImportError:  # PyYAML from PyPI, into the user's site when Debian manages the system's Python.
    if subprocess.run([sys.executable, "-m", "pip", "install", "-q", "pyyaml"]).returncode != 0:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--user", "--break-system-packages", "pyyaml"],
                       check=True)
    import yaml

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


def pod_monitor_problems(observability):
    """The PodMonitor's selector and port against the base's Deployments."""
    monitor = yaml.safe_load(open(os.path.join(observability, "pod-monitor.yaml")))
    wanted = monitor["spec"]["selector"]["matchLabels"]
    port = monitor["spec"]["podMetricsEndpoints"][0]["port"]
    base = os.path.join(root, "deploy", "k8s", "base")
    common = {}
    kustomization = yaml.safe_load(open(os.path.join(base, "kustomization.yaml")))
    for entry in kustomization.get("labels", []):
        if entry.get("includeTemplates"):
            common.update(entry["pairs"])
    problems, deployments = [], 0
    for name in sorted(os.listdir(base)):
        if not name.endswith(".yaml") or name == "kustomization.yaml":
            continue
        for document in yaml.safe_load_all(open(os.path.join(base, name))):
            if not document or document.get("kind") != "Deployment":
                continue
            deployments += 1
            template = document["spec"]["template"]
            labels = dict(common, **template["metadata"].get("labels", {}))
            if any(labels.get(key) != value for key, value in wanted.items()):
                problems.append(f"the PodMonitor's selector misses the pods of {document['metadata']['name']}")
            ports = [p.get("name") for c in template["spec"]["containers"] for p in c.get("ports", [])]
            if port not in ports:
                problems.append(f"{document['metadata']['name']} has no container port named {port}")
    print(f"pod monitor: {deployments} deployments of the base scraped on their {port} port")
    return problems


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
        # Each query parsed by Prometheus itself: as recording rules, Grafana's interval made 5m.
        rules = {"groups": [{"name": "dashboard", "rules": [
            {"record": f"dashboard:query:{index}", "expr": expression.replace("$__rate_interval", "5m")}
            for index, expression in enumerate(expressions)]}]}
        with tempfile.NamedTemporaryFile("w", suffix=".yaml") as file:
            yaml.safe_dump(rules, file)
            file.flush()
            result = subprocess.run(["promtool", "check", "rules", file.name], capture_output=True, text=True)
        if result.returncode != 0:
            problems.append(f"the dashboard's queries do not parse: {result.stdout}{result.stderr}")
        print(f"dashboard: {len(expressions)} queries, "
              f"{'every one parsed by promtool' if result.returncode == 0 else 'NOT all parsed'}")
    rules = os.path.join(observability, "alerts.yaml")
    if os.path.exists(rules):
        alerts = [rule for group in yaml.safe_load(open(rules))["groups"] for rule in group["rules"]]
        for rule in alerts:
            for name in sorted(referenced(rule["expr"], known) - known):
                problems.append(f"the alert {rule['alert']} reads {name}, which no process exports")
        print(f"alert rules: {len(alerts)}")
    problems += pod_monitor_problems(observability)
    for problem in problems:
        print("  " + problem)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
