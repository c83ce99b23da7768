#!/usr/bin/env python3
"""Part of `make test`: the map a newcomer reads must match the ground.

1. Every Swift file of Services/, Shared/ and Tools/ is named for what it holds: most of its
   declarations' lines (each with its doc comment) belong to the type it is named after, declared
   or extended (`RedisClient+Streams.swift` extends `RedisClient`), or to types whose names begin
   with it (`Product.swift` holds `ProductDraft` too).
2. Every service library has the shape Services/README.md shows: `<Name>Service.swift`,
   `<Name>Schema.swift`, `<Name>Events.swift` (but notifications, which publishes no stream),
   each `<Resource>Handlers.swift`, and a follower per stream it reads, named for what it keeps
   (`PaidAmountsFollower`), no two services' alike.
3. The table of Services/README.md says of each service what the code does: the services it
   calls (its `upstreams`) and the streams it follows (its followers' `producer`).
4. A business write has one home, its book (`OrderBook`, `PaymentBook` …): no file calls another
   type's handler statics (`PaymentsHandlers.save(…)`).
5. Lock names are spelled once: a `Lock` is built (`Lock(…)`) only in `Lock.swift` and the
   `Lock+<Service>.swift` files of factories.

`deploy/local/check-map-test.py` shows each rule failing on a tree that breaks it.

Prints what disagrees and exits 1, or one line and exits 0.
"""
import glob
import os
import re
import sys

# The repository's root, or the tree given (deploy/local/check-map-test.py checks copies of it).
root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
os.chdir(root)
problems = []

DECLARATION = re.compile(
    r"^(?:@\w+ )?(?:public |package |private |fileprivate )?(?:final )?(?:struct|enum|class|actor|protocol) (\w+)",
    re.M)
EXTENSION = re.compile(r"^(?:public |package )?extension ([\w.]+)", re.M)

TOP_LEVEL = re.compile(
    r"^(?:@\w+(?:\([^)]*\))? )?(?:public |package |private |fileprivate |internal )?(?:final )?"
    r"(?:(?:struct|enum|class|actor|protocol) (\w+)|extension ([\w.]+))")


def declaration_lines(text):
    """{type: lines}: each top-level declaration or extension's lines with its doc comment."""
    lines = text.split("\n")
    owned = {}
    i = 0
    while i < len(lines):
        match = TOP_LEVEL.match(lines[i])
        if not match:
            i += 1
            continue
        name = (match.group(1) or match.group(2)).split(".")[0].split("<")[0]
        start = i
        while start > 0 and lines[start - 1].startswith("///"):
            start -= 1
        end = i
        if not lines[i].rstrip().endswith("}"):
            end = i + 1
            while end < len(lines) and not lines[end].startswith("}"):
                end += 1
        owned[name] = owned.get(name, 0) + end - start + 1
        i = end + 1
    return owned


# 1. File names.
for path in sorted(glob.glob("Services/**/*.swift", recursive=True) + glob.glob("Shared/**/*.swift", recursive=True)
                   + glob.glob("Tools/**/*.swift", recursive=True)):
    name = os.path.basename(path)[:-len(".swift")]
    if name == "main":
        continue
    base = name.split("+")[0]
    owned = declaration_lines(open(path, encoding="utf-8").read())
    if base not in owned:
        problems.append(f"{path}: declares or extends {', '.join(sorted(owned)) or 'no type'}, none named {base}")
        continue
    mine = sum(count for type_name, count in owned.items() if type_name.startswith(base))
    if mine * 2 <= sum(owned.values()):
        others = sorted(type_name for type_name in owned if not type_name.startswith(base))
        problems.append(f"{path}: most of its lines are {', '.join(others)}'s, not {base}'s; "
                        "give them files named after them")

# Lock names are spelled once, by the factories of Lock.swift and Lock+<Service>.swift.
for path in sorted(glob.glob("Services/**/*.swift", recursive=True) + glob.glob("Shared/**/*.swift", recursive=True)):
    name = os.path.basename(path)
    if name == "Lock.swift" or name.startswith("Lock+"):
        continue
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        if re.search(r"\bLock\(", line):
            problems.append(f"{path}:{number}: builds a lock by name; add a factory to Lock+<Service>.swift")

# Writes have a home (a book) that every caller calls: no file calls another type's handler statics.
for path in sorted(glob.glob("Services/**/*.swift", recursive=True)):
    text = open(path, encoding="utf-8").read()
    own = set(DECLARATION.findall(text)) | {e.split(".")[0] for e in EXTENSION.findall(text)}
    for number, line in enumerate(text.splitlines(), 1):
        for handlers in re.findall(r"\b(\w+Handlers)\.[a-z]\w*\(", line):
            if handlers not in own and not line.lstrip().startswith("//"):
                problems.append(f"{path}:{number}: calls {handlers}'s statics; move the write to its book")

# 2. The shape of each service, and what its code says it calls and follows.
services = {}
followers_seen = {}
for directory in sorted(glob.glob("Services/*/")):
    name = os.path.basename(directory.rstrip("/"))
    if name.endswith("Main"):
        continue
    files = {os.path.basename(p)[:-len(".swift")]: open(p, encoding="utf-8").read()
             for p in glob.glob(f"{directory}**/*.swift", recursive=True)}
    for required in [f"{name}Service", f"{name}Schema"] + ([] if name == "Notifications" else [f"{name}Events"]):
        if required not in files:
            problems.append(f"{directory}: has no {required}.swift")
    assembly = files.get(f"{name}Service", "")
    upstreams = re.search(r"static let upstreams = \[(.*?)\]", assembly, re.S)
    calls = sorted(set(re.findall(r"(\w+)API\.service", upstreams.group(1)))) if upstreams else []
    followed = re.findall(r"follow\(\s*(\w+)\(", assembly)
    follows = []
    for follower in followed:
        source = files.get(follower, "")
        producer = re.search(r"static let producer = (\w+)API\.service", source)
        if not producer:
            problems.append(f"{directory}{follower}.swift: no `static let producer = <Name>API.service`")
            continue
        follows.append(producer.group(1))
        if follower in followers_seen:
            problems.append(f"{directory}{follower}.swift: {followers_seen[follower]} has a follower of this name; "
                            "name it for what it keeps")
        followers_seen[follower] = name
    for file, text in files.items():
        if file.endswith("Follower") and file not in followed and "protocol" not in text.split(file)[0][-40:]:
            if not re.search(rf"protocol {file}\b", text):
                problems.append(f"{directory}{file}.swift: a follower its service does not run")
        if file.endswith("Handlers") and f"{file}(" not in assembly and name != "Gateway":
            problems.append(f"{directory}{file}.swift: handlers its service does not register")
    for producer in sorted({p for p in follows if follows.count(p) > 1}):
        problems.append(f"{directory}: two followers of the {producer} stream; a service reads a stream as one "
                        "consumer group, which would share its events between them: give one follower every type")
    services[name.lower()] = (calls, sorted(set(follows)))

# 3. The table.
readme = open("Services/README.md", encoding="utf-8").read()
rows = {}
for line in readme.splitlines():
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) >= 4 and re.fullmatch(r"`\w+`", cells[0]):
        rows[cells[0].strip("`").lower()] = cells


def named(cell):
    """The services a cell names in backticks: `catalog`, `orders` …"""
    return sorted(n.capitalize() for n in re.findall(r"`(\w+)`", cell) if n.lower() in services)


header = next((line for line in readme.splitlines() if line.startswith("| service")), "")
columns = [c.strip() for c in header.strip().strip("|").split("|")]
for service, (calls, follows) in services.items():
    if service not in rows:
        problems.append(f"Services/README.md: the table has no row for `{service}`")
        continue
    cells = dict(zip(columns, rows[service]))
    if "calls" not in cells or "follows" not in cells:
        problems.append("Services/README.md: the table needs the columns `calls` and `follows`")
        break
    if named(cells["calls"]) != calls:
        problems.append(f"Services/README.md: `{service}` calls {calls or 'nothing'}, the table says "
                        f"{named(cells['calls']) or 'nothing'}")
    if named(cells["follows"]) != follows:
        problems.append(f"Services/README.md: `{service}` follows {follows or 'nothing'}, the table says "
                        f"{named(cells['follows']) or 'nothing'}")

if problems:
    print("The map disagrees with the code:", file=sys.stderr)
    for problem in problems:
        print(f"  - {problem}", file=sys.stderr)
    sys.exit(1)
print(f"map: {len(services)} services as Services/README.md says, every file named for what it holds")
