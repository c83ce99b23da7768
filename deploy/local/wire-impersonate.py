#!/usr/bin/env python3
"""A Wire caller that claims to be a service, with only what one container holds: what
`make deploy-test` runs to show that a container's keys cannot pass for another service.

    wire-impersonate.py --connect ADDRESS:PORT --server payments --as gateway \
        --holdings DIR --expect accepted|refused|refused-hello [--plain]

DIR holds what was copied out of the container: `wire-keys` (its ORDERLY_WIRE_KEYS), and its
Wire TLS files `tls.crt`, `tls.key`, `ca.crt`. The caller connects to ADDRESS (as the services'
pools do, to an address of the name) with mutual TLS 1.3, checking that the server's certificate
names `--server`, and says hello as `--as` (Shared/Wire/WireHello.swift): the server answers with
a challenge, and the caller proves the name with
HMAC-SHA256(key(as, server), "orderly-wire/2|as|server|challenge"). When the holdings have that
pair's key it is used; otherwise each key they have is tried in turn (an attacker's best guess),
each on a connection of its own. An accepted hello is followed by a ping, which must be answered.

--expect accepted       the hello is accepted and the ping answered
--expect refused-hello  the server speaks Wire over TLS with the caller (its certificate is
                        accepted) and refuses the hello: the keys, not the certificate, fail
--expect refused        the hello is not accepted, however (with --plain: plain TCP, no TLS)

Prints what happened to each attempt, never a key. Exits 0 when every attempt went as expected.
Standard library only.
"""
import argparse
import hashlib
import hmac
import json
import os
import secrets
import socket
import ssl
import struct
import sys

PROTOCOL_VERSION = 1
# Answers to a hello are small; anything larger is no Wire answer (a TLS alert read as a length).
LARGEST_ANSWER = 64 * 1024


class Refused(Exception):
    """The hello was not accepted; `spoke_wire` says whether the server answered in Wire first."""

    def __init__(self, why, spoke_wire):
        super().__init__(why)
        self.spoke_wire = spoke_wire


def read_keys(path):
    """`caller>server=<64 hex digits>[,…]`, as ORDERLY_WIRE_KEYS holds them (an empty file: none)."""
    with open(path) as file:
        text = file.read().strip()
    if text.startswith("ORDERLY_WIRE_KEYS="):
        text = text[len("ORDERLY_WIRE_KEYS="):]
    keys = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        pair, _, key = item.partition("=")
        if pair.count(">") != 1 or len(key) != 64:
            raise SystemExit(f"FAIL {path}: an entry is not caller>server=<64 hex digits>")
        keys[pair] = bytes.fromhex(key)
    return keys


def send(connection, envelope):
    payload = json.dumps(envelope, separators=(",", ":")).encode()
    connection.sendall(struct.pack(">I", len(payload)) + payload)


def receive_exactly(connection, count):
    data = b""
    while len(data) < count:
        chunk = connection.recv(count - len(data))
        if not chunk:
            raise EOFError("the server closed the connection")
        data += chunk
    return data


def receive(connection):
    (length,) = struct.unpack(">I", receive_exactly(connection, 4))
    if length > LARGEST_ANSWER:
        raise ValueError(f"no Wire frame (a length of {length})")
    return json.loads(receive_exactly(connection, length))


def hello(service, challenge=None, proof=None):
    body = {"service": service}
    if challenge is not None:
        body.update(challenge=challenge, proof=proof)
    return {"v": PROTOCOL_VERSION, "type": "hello", "id": 0, "body": body}


def error_text(envelope):
    error = envelope.get("error") or {}
    return f"{error.get('code', envelope.get('type'))}: {error.get('message', '')}".rstrip(": ")


def attempt(args, key):
    """One connection: hello as `args.as_service` to `args.server` with `key`; returns what the
    server said when accepted, raises Refused otherwise."""
    host, _, port = args.connect.rpartition(":")
    spoke_wire = False
    try:
        raw = socket.create_connection((host.strip("[]"), int(port)), timeout=args.timeout)
    except OSError as error:
        raise SystemExit(f"FAIL cannot reach {args.connect}: {error}")
    try:
        if args.plain:
            connection = raw
        else:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            context.minimum_version = ssl.TLSVersion.TLSv1_3
            context.load_verify_locations(os.path.join(args.holdings, "ca.crt"))
            context.load_cert_chain(os.path.join(args.holdings, "tls.crt"), os.path.join(args.holdings, "tls.key"))
            connection = context.wrap_socket(raw, server_hostname=args.server)
        with connection:
            send(connection, hello(args.as_service))
            answer = receive(connection)
            spoke_wire = True
            if answer.get("type") != "hello" or not (answer.get("body") or {}).get("challenge"):
                raise Refused(f"refused the name: {error_text(answer)}", spoke_wire)
            challenge = answer["body"]["challenge"]
            text = f"orderly-wire/2|{args.as_service}|{args.server}|{challenge}".encode()
            proof = hmac.new(key, text, hashlib.sha256).hexdigest()
            send(connection, hello(args.as_service, challenge, proof))
            answer = receive(connection)
            if answer.get("type") != "hello" or (answer.get("body") or {}).get("service") != args.server:
                raise Refused(f"refused the proof: {error_text(answer)}", spoke_wire)
            send(connection, {"v": PROTOCOL_VERSION, "type": "ping", "id": 1})
            pong = receive(connection)
            if pong.get("type") != "pong" or pong.get("id") != 1:
                raise Refused(f"accepted the hello but answered the ping with {error_text(pong)}", spoke_wire)
            return "accepted the hello and answered a ping"
    except (OSError, EOFError, ValueError) as error:
        # ssl.SSLError is an OSError: a certificate refused shows here, at the handshake or (TLS
        # 1.3) at the first read.
        stage = "after the challenge" if spoke_wire else "before any Wire answer"
        raise Refused(f"closed {stage}: {error}", spoke_wire) from None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--connect", required=True, help="ADDRESS:PORT of the server")
    parser.add_argument("--server", required=True, help="the service it is, which its certificate names")
    parser.add_argument("--as", dest="as_service", required=True, help="the service the caller claims to be")
    parser.add_argument("--holdings", required=True, help="wire-keys, tls.crt, tls.key, ca.crt of one container")
    parser.add_argument("--expect", required=True, choices=("accepted", "refused", "refused-hello"))
    parser.add_argument("--plain", action="store_true", help="plain TCP, no TLS")
    parser.add_argument("--timeout", type=float, default=10)
    args = parser.parse_args()

    keys = read_keys(os.path.join(args.holdings, "wire-keys"))
    pair = f"{args.as_service}>{args.server}"
    if pair in keys:
        tries = [(f"its {pair} key", keys[pair])]
    elif keys:
        tries = [(f"its {held} key in place of {pair}'s", key) for held, key in sorted(keys.items())]
    else:
        tries = [("a guessed key", secrets.token_bytes(32))]
    transport = "plain TCP" if args.plain else "TLS"
    failed = False
    for label, key in tries:
        try:
            outcome, accepted, spoke_wire = attempt(args, key), True, True
        except Refused as refusal:
            outcome, accepted, spoke_wire = str(refusal), False, refusal.spoke_wire
        as_expected = {
            "accepted": accepted,
            "refused": not accepted,
            "refused-hello": not accepted and spoke_wire,
        }[args.expect]
        failed |= not as_expected
        print(f"   {'ok  ' if as_expected else 'FAIL'} as {args.as_service} to {args.server} over {transport} with "
              f"{label}: {args.server} {outcome} (expected: {args.expect})")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
