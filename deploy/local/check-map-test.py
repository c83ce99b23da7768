#!/usr/bin/env python3
"""Part of `make test`: check-map.py's rules fail on a tree that breaks them.

Copies the parts of the repository check-map.py reads, checks the copy passes, then breaks one
rule at a time and checks check-map.py exits 1 naming the file. Prints one line and exits 0, or
says which rule let its break through and exits 1.
"""
import os
import shutil
import subprocess
import sys
import tempfile

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
check = os.path.join(root, "deploy", "local", "check-map.py")

BREAKS = {
    "a file named after no type it declares": (
        "Services/Orders/Misnamed.swift", "struct Elsewhere {}\n", "Misnamed.swift: declares or extends Elsewhere"),
    "a file hiding its main type behind a minor one": (
        "Services/Orders/Minor.swift",
        "struct Minor {}\n\nstruct Major {\n" + "    var field = 0\n" * 8 + "}\n",
        "most of its lines are Major's, not Minor's"),
    "a lock built outside its factories": (
        "Services/Orders/Rogue+Lock.swift",
        "extension Rogue {\n    static let name = Lock(\"orders.rogue\", 1)\n}\nstruct Rogue {}\n",
        "builds a lock by name"),
    "two followers of one stream in a service": (
        "Services/Orders/StoreDirectoryFollower.swift",
        "struct StoreDirectoryFollower: EventFollower {\n    static let producer = PaymentsAPI.service\n}\n",
        "two followers of the Payments stream"),
    "a write reaching into another type's handler statics": (
        "Services/Catalog/Sneaky.swift",
        "struct Sneaky {\n    func go() { PaymentsHandlers.save(1) }\n}\n", "calls PaymentsHandlers's statics"),
}


def run(tree):
    return subprocess.run([sys.executable, check, tree], capture_output=True, text=True)


failures = []
with tempfile.TemporaryDirectory() as base:
    clean = os.path.join(base, "clean")
    os.makedirs(clean)
    for part in ["Services", "Shared", "Tools"]:
        shutil.copytree(os.path.join(root, part), os.path.join(clean, part))
    if run(clean).returncode != 0:
        failures.append(f"the repository's own tree fails: {run(clean).stderr.strip()}")
    for rule, (path, text, expected) in BREAKS.items():
        tree = os.path.join(base, rule.replace(" ", "-").replace("'", ""))
        shutil.copytree(clean, tree)
        with open(os.path.join(tree, path), "w", encoding="utf-8") as file:
            file.write(text)
        result = run(tree)
        if result.returncode != 1 or expected not in result.stderr:
            failures.append(f"{rule}: check-map.py exited {result.returncode} without '{expected}'")

if failures:
    print("check-map.py's rules let breaks through:", file=sys.stderr)
    for failure in failures:
        print(f"  - {failure}", file=sys.stderr)
    sys.exit(1)
print(f"map rules: each of {len(BREAKS)} breaks refused")
