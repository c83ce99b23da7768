#!/usr/bin/env python3
"""The scaling model: from what each operation costs (measure.py's JSON) and a load profile
(a TOML file such as hundredfold.toml), what each service needs and the p99 a queueing model
predicts.

  python3 deploy/scaling/model.py COSTS.json LOAD.toml
      for each process: the cores it keeps busy, replicas, memory; the databases' commits and
      growth; Redis shards; the request path's p99 at that load
  python3 deploy/scaling/model.py COSTS.json --bench CLIENTS CORES CLIENT_CPU_MS
      a closed-loop benchmark of order creation on one machine (make bench-orders: CLIENTS
      clients on CORES cores, the load generator spending CLIENT_CPU_MS a request): its rate and
      mean latency, to hold against a measured run

The model: every process is a queue of `cores_per_replica` servers (M/M/c), its service time the
CPU an operation costs it; replicas are added until each runs at the planned utilisation. A
request's p99 is its median measured at a light load (its hops, its commit's fsync) plus the p99
wait of the gateway and of the owning service (an upper bound: the two rarely peak together).
"""
import json
import math
import sys
import tomllib

SERVICES = ["gateway", "orders", "catalog", "payments", "notifications"]


def erlang_c(c, a):
    """The chance an arrival waits, with c servers at offered load a (= λ/μ), a < c."""
    term, total = 1.0, 1.0
    for k in range(1, c):
        term *= a / k
        total += term
    last = term * a / c / (1 - a / c)
    return last / (total + last)


def p99_wait_ms(c, arrivals_per_s, service_ms):
    """The 99th percentile of the wait in an M/M/c queue (0 when fewer than 1 % wait)."""
    if arrivals_per_s <= 0 or service_ms <= 0:
        return 0.0
    mu = 1000.0 / service_ms
    a = arrivals_per_s / mu
    if a >= c:
        return math.inf
    waits = erlang_c(c, a)
    if waits <= 0.01:
        return 0.0
    return math.log(waits / 0.01) / (c * mu - arrivals_per_s) * 1000


def plan(costs, load):
    phases = costs["phases"]
    l, p = load["load"], load["plan"]
    creates = l["orders_per_minute"] / 60
    changes = creates * l["status_changes_per_order"]
    payments = l["payments_per_second"]
    told_create = l["store_streams_per_store"] + l["couriers_told_per_order"]
    told_change = l["store_streams_per_store"] + l["customer_streams_per_order"] + 1
    deliveries = creates * told_create + changes * told_change
    heartbeats = l["open_streams"] / l["heartbeat_seconds"]
    per_delivery = phases["stream"]["gateway_cpu_ms_per_delivery"]
    # Each event of a store with an endpoint, to that endpoint (every store subscribed to all).
    hooks = (creates + changes) * min(1.0, l["webhook_endpoints"] / l["stores"])

    busy = {}
    for name in SERVICES + ["redis"]:
        ms = (creates * phases["create"]["cpu_ms"].get(name, 0) + changes * phases["status"]["cpu_ms"].get(name, 0)
              + payments * phases["payment"]["cpu_ms"].get(name, 0))
        if name == "gateway":
            # A heartbeat is one write of a comment line: counted as a delivery, an upper bound.
            ms += (deliveries + heartbeats) * per_delivery
        if name == "notifications":
            ms += hooks * phases["webhook"]["notifications_cpu_ms_per_delivery"]
        busy[name] = ms / 1000

    print(f"load: {creates:.0f} orders/s created, {changes:.0f} status changes/s, {payments:.0f} payments/s, "
          f"{l['open_streams']:,} open streams ({heartbeats:,.0f} heartbeats/s), {deliveries:,.0f} deliveries/s to streams, "
          f"{hooks:,.0f} webhook deliveries/s")
    print(f"plan: {p['cores_per_replica']} cores a replica at {p['utilisation']:.0%} busy at most, "
          f"{p['streams_per_replica']:,} streams a gateway replica at most, at least {p['minimum_replicas']} replicas\n")
    c = p["cores_per_replica"]
    replicas = {}
    print(f"{'process':14} {'cores busy':>10} {'replicas':>9} {'cores':>6} {'memory each':>12}")
    for name in SERVICES:
        n = max(p["minimum_replicas"], math.ceil(busy[name] / (c * p["utilisation"])))
        memory = p["base_memory_mb"]
        if name == "gateway":
            n = max(n, math.ceil(l["open_streams"] / p["streams_per_replica"]))
            memory += l["open_streams"] / n * costs["bytes_per_stream"]["gateway_memory"] / 2**20
        replicas[name] = n
        print(f"{name:14} {busy[name]:10.2f} {n:9d} {n * c:6d} {memory:9.0f} MB")
    shards = max(1, math.ceil(busy["redis"] / p["utilisation"]))
    print(f"{'redis':14} {busy['redis']:10.2f} {shards:9d} shards (one thread each)")

    day = 86400
    commits = {"orders": creates * 2 + changes, "payments": payments * 2, "notifications": (creates + changes) / 10}
    print(f"\n{'database':14} {'commits/s':>10} {'servers':>8} {'growth a day':>13}")
    growth = {"orders": creates * costs["bytes_per_order"]["orders_database"],
              "notifications": creates * costs["bytes_per_order"]["notifications_database"],
              "payments": payments * costs["bytes_per_payment"]["payments_database"]}
    for name, rate in commits.items():
        servers = max(1, math.ceil(rate / (p["commits_per_database_server"] * p["utilisation"])))
        print(f"{name:14} {rate:10.0f} {servers:8d} {growth[name] * day / 2**30:10.1f} GiB")

    print("\npredicted p99 of a request, at this load (waits of the gateway and the owning service, plus their CPU):")
    for what, owner in [("create an order", "orders"), ("change a status", "orders"), ("ring up a payment", "payments")]:
        phase = {"orders": phases["create"] if what.startswith("create") else phases["status"],
                 "payments": phases["payment"]}[owner]
        total = 0.0
        for name in ("gateway", owner):
            service = phase["cpu_ms"][name]
            # Each replica's busy cores, as arrivals of requests of this one's size.
            arrivals = busy[name] / replicas[name] * 1000 / service
            total += p99_wait_ms(c, arrivals, service)
        # What the request took here at a light load (its hops, its commit's fsync), plus the waits.
        floor = phase["p50_ms"]
        print(f"  {what:20} {floor + total:7.2f} ms ({floor:.2f} measured at a light load, {total:.2f} waiting)")


def bench(costs, clients, cores, client_ms):
    create = costs["phases"]["create"]["cpu_ms"]
    per_order = sum(create.values()) + client_ms
    rate = cores * 1000 / per_order
    print(f"closed loop, {clients} clients on {cores} cores: {per_order:.3f} ms of CPU an order "
          f"({sum(create.values()):.3f} the suite, {client_ms:.3f} the load generator)")
    print(f"predicted: create_rps={rate:.0f} mean_latency_ms={clients / rate * 1000:.1f}")


LOAD_KEYS = {"load": ["orders_per_minute", "status_changes_per_order", "payments_per_second", "open_streams",
                      "heartbeat_seconds", "store_streams_per_store", "couriers_told_per_order",
                      "customer_streams_per_order", "stores", "webhook_endpoints"],
             "plan": ["cores_per_replica", "utilisation", "minimum_replicas", "streams_per_replica", "base_memory_mb",
                      "commits_per_database_server"]}


def checked(costs, load=None):
    """Stops with the name of what is missing or out of range, rather than a stack trace."""
    problems = []
    for phase in ("create", "status", "payment"):
        cpu = costs.get("phases", {}).get(phase, {}).get("cpu_ms")
        if not isinstance(cpu, dict) or not all(isinstance(v, (int, float)) and v >= 0 for v in cpu.values()):
            problems.append(f"costs: phases.{phase}.cpu_ms must map each process to milliseconds")
        elif "p50_ms" not in costs["phases"][phase]:
            problems.append(f"costs: phases.{phase}.p50_ms is missing")
    for path in ("phases.stream.gateway_cpu_ms_per_delivery", "phases.webhook.notifications_cpu_ms_per_delivery",
                 "bytes_per_order.orders_database",
                 "bytes_per_order.notifications_database", "bytes_per_payment.payments_database",
                 "bytes_per_stream.gateway_memory"):
        value = costs
        for part in path.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        if not isinstance(value, (int, float)) or value < 0:
            problems.append(f"costs: {path} must be a number, 0 or more")
    for table, keys in (LOAD_KEYS.items() if load is not None else []):
        for key in keys:
            value = load.get(table, {}).get(key)
            if not isinstance(value, (int, float)) or value <= 0:
                problems.append(f"load: [{table}] {key} must be a number above 0")
    if load is not None and not 0 < load.get("plan", {}).get("utilisation", 0) < 1:
        problems.append("load: [plan] utilisation must be between 0 and 1")
    if problems:
        sys.exit("\n".join(problems))
    return costs


def main():
    if len(sys.argv) not in (3, 6) or (len(sys.argv) == 6) != (sys.argv[2] == "--bench"):
        sys.exit(__doc__)
    costs = json.load(open(sys.argv[1]))
    if sys.argv[2] == "--bench":
        bench(checked(costs), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]))
    else:
        load = tomllib.load(open(sys.argv[2], "rb"))
        plan(checked(costs, load), load)


if __name__ == "__main__":
    main()
