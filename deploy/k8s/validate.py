#!/usr/bin/env python3
"""Offline, strict validation of Kubernetes manifests against the bundled
Kubernetes OpenAPI-derived JSON schemas of the `kubernetes-validate` package.

Usage:
  validate.py [--k8s-version 1.33] [--kubectl PATH] PATH...

PATH may be a directory holding a kustomization.yaml (rendered with
`kubectl kustomize`), a directory tree (every kustomization below it is
rendered), or a plain YAML file (validated as is).

Every document must:
  * have an apiVersion/kind for which a schema exists (unknown kinds FAIL,
    unlike `kubernetes-validate`, which only warns);
  * validate against the *strict* schema (additionalProperties: false), with
    ALL errors reported, not just the first;
  * have metadata.name (or generateName);
  * contain no null values (`replicas:` left empty), int32 fields in range,
    base64 in `format: byte` fields (Secret.data), and well-formed quantities;
  * pass a small semantic lint (names, a few enums, port ranges/names,
    selector matches template labels) that the schema cannot express.
Exit code 0 only if every document passes. Last line: "N passed, N failed".
"""
from __future__ import annotations

import argparse
import base64
import binascii
import json
import os
import re
import shutil
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import jsonschema
import yaml
from referencing import Registry, Resource

import kubernetes_validate

SCHEMA_ROOT = Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema"
KUSTOMIZATION_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
INT32 = (-(2**31), 2**31 - 1)


def available_versions() -> list[str]:
    out = []
    for p in SCHEMA_ROOT.iterdir():
        if p.name.endswith("-local-strict"):
            out.append(p.name[1:].split("-")[0])
    return sorted(out, key=lambda v: tuple(int(x) for x in v.split(".")))


def schema_dir(version: str) -> Path:
    want = tuple(int(x) for x in version.lstrip("v").split(".")[:2])
    for v in reversed(available_versions()):
        if tuple(int(x) for x in v.split(".")[:2]) == want:
            return SCHEMA_ROOT / f"v{v}-local-strict"
    raise SystemExit(
        f"FATAL: no bundled schema for Kubernetes {version}; "
        f"kubernetes-validate {kubernetes_validate.__version__ if hasattr(kubernetes_validate, '__version__') else ''} "
        f"has: {', '.join(available_versions())}"
    )


# resource.Quantity serialization: <signed number><binarySI|decimalSI|exponent>
QUANTITY_RE = r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([KMGTPE]i|[numkMGTPE]|[eE][+-]?[0-9]+)?$"


@lru_cache(maxsize=None)
def registry(sdir: Path) -> Registry:
    defs = json.loads((sdir / "_definitions.json").read_text())
    d = defs["$defs"]
    # Tighten two shared definitions in memory: the bundled ones accept any
    # string as a Quantity ("lots") and make null match both oneOf branches.
    d["io.k8s.apimachinery.pkg.api.resource.Quantity"] = {
        "oneOf": [{"type": "string", "pattern": QUANTITY_RE}, {"type": "number"}]}
    d["io.k8s.apimachinery.pkg.util.intstr.IntOrString"] = {
        "oneOf": [{"type": "string", "minLength": 1}, {"type": "integer"}]}
    return Resource.from_contents(defs) @ Registry()


@lru_cache(maxsize=None)
def validator_for(sdir: Path, api_version: str, kind: str):
    group_version = api_version
    # rbac.authorization.k8s.io/v1 -> rbac-v1 ; apps/v1 -> apps-v1 ; v1 -> v1
    if "/" in group_version:
        group, ver = group_version.split("/", 1)
        group_version = f"{group.split('.')[0]}-{ver}"
    f = sdir / f"{kind.lower()}-{group_version}.json"
    if not f.is_file():
        return None
    schema = json.loads(f.read_text())
    # the file's own enum on apiVersion/kind guards against e.g. a core
    # "v1" schema being picked for a same-named kind of another group
    return jsonschema.Draft202012Validator(schema, registry=registry(sdir))


def render(path: Path, kubectl: str) -> str:
    proc = subprocess.run([kubectl, "kustomize", str(path)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"kubectl kustomize {path} failed:\n{proc.stderr.strip()}")
    return proc.stdout


def fmt_path(p) -> str:
    s = ""
    for item in p:
        s += f"[{item}]" if isinstance(item, int) else (("." if s else "") + str(item))
    return s or "(root)"


def extra_checks(doc, path=()):
    """Nulls, which the schemas allow everywhere (int32 ranges are the format
    checker's, below)."""
    if doc is None:
        yield path, "null value (empty YAML field?) is not allowed"
    elif isinstance(doc, dict):
        for k, v in doc.items():
            yield from extra_checks(v, path + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from extra_checks(v, path + (i,))


FORMAT_CHECKER = jsonschema.FormatChecker(formats=())


@FORMAT_CHECKER.checks("int32")
def _int32(value):
    return not isinstance(value, int) or isinstance(value, bool) or INT32[0] <= value <= INT32[1]


@FORMAT_CHECKER.checks("byte")
def _byte(value):  # Secret.data etc.: must be base64
    if not isinstance(value, str):
        return True
    try:
        base64.b64decode(value, validate=True)
        return True
    except (binascii.Error, ValueError):
        return False


def error_lines(err: jsonschema.ValidationError):
    """oneOf/anyOf (int-or-string, Quantity): say what each branch wanted."""
    if err.context and err.validator in ("oneOf", "anyOf"):
        why = " / ".join(dict.fromkeys(c.message for c in err.context))
        yield err.absolute_path, f"{err.instance!r} is none of the allowed forms: {why}"
    else:
        yield err.absolute_path, err.message


def validate_doc(doc, sdir: Path) -> list[str]:
    if not isinstance(doc, dict):
        return [f"document is a {type(doc).__name__}, not a mapping"]
    api_version, kind = doc.get("apiVersion"), doc.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return ["missing apiVersion or kind"]
    v = validator_for(sdir, api_version, kind)
    if v is None:
        return [f"unknown apiVersion/kind {api_version} {kind} for Kubernetes {sdir.name.split('-')[0]}"
                " (typo, removed API version, or a CRD with no schema)"]
    v = v.evolve(format_checker=FORMAT_CHECKER)
    problems = []
    for err in sorted(v.iter_errors(doc), key=lambda e: list(map(str, e.absolute_path))):
        for p, msg in error_lines(err):
            problems.append(f"{fmt_path(p)}: {msg}")
    meta = doc.get("metadata") or {}
    if not isinstance(meta, dict) or not (meta.get("name") or meta.get("generateName")):
        problems.append("metadata.name: is required")
    for p, msg in extra_checks(doc):
        problems.append(f"{fmt_path(p)}: {msg}")
    if not problems:
        problems += lint(doc)
    return problems


# --- semantic lint: what the API server checks but the OpenAPI schema doesn't
DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
DNS1035_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
IANA_SVC_NAME = re.compile(r"^(?=.*[a-z])[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
ENUMS = {  # key name -> allowed values, wherever the key appears
    "imagePullPolicy": {"Always", "Never", "IfNotPresent"},
    "pathType": {"Exact", "Prefix", "ImplementationSpecific"},
    "protocol": {"TCP", "UDP", "SCTP"},
    "restartPolicy": {"Always", "OnFailure", "Never"},
    "policyTypes": {"Ingress", "Egress"},
}
PORT_KEYS = {"containerPort", "port", "targetPort", "nodePort", "hostPort", "number"}


def lint(doc) -> list[str]:
    out = []
    meta = doc.get("metadata") or {}
    name = meta.get("name")
    if isinstance(name, str):
        rx, what = ((DNS1035_LABEL, "an RFC 1035 label (<=63)") if doc.get("kind") == "Service"
                    else (DNS1123_SUBDOMAIN, "a DNS-1123 subdomain (<=253)"))
        if not rx.match(name) or len(name) > (63 if doc.get("kind") == "Service" else 253):
            out.append(f"metadata.name: {name!r} is not {what}")

    def walk(node, path):
        if isinstance(node, dict):
            for k, v in node.items():
                p = path + (k,)
                allowed = ENUMS.get(k)
                if allowed is not None:
                    for item in (v if isinstance(v, list) else [v]):
                        if isinstance(item, str) and item not in allowed:
                            out.append(f"{fmt_path(p)}: {item!r} not one of {sorted(allowed)}")
                if k in PORT_KEYS and isinstance(v, int) and not isinstance(v, bool) and not 0 < v < 65536:
                    out.append(f"{fmt_path(p)}: port {v} out of range 1-65535")
                if k == "name" and len(path) >= 2 and path[-2] == "ports" and isinstance(v, str) \
                        and not (len(v) <= 15 and IANA_SVC_NAME.match(v)):
                    out.append(f"{fmt_path(p)}: port name {v!r} must be <=15 lowercase alnum/'-' with a letter")
                walk(v, p)
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, path + (i,))
    walk(doc, ())

    # a workload's selector must select its own pod template
    spec = doc.get("spec") if isinstance(doc.get("spec"), dict) else {}
    sel = (spec.get("selector") or {}).get("matchLabels") if isinstance(spec.get("selector"), dict) else None
    tmpl_labels = (((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}) \
        if isinstance(spec.get("template"), dict) else None
    if isinstance(sel, dict) and isinstance(tmpl_labels, dict):
        for k, v in sel.items():
            if tmpl_labels.get(k) != v:
                out.append(f"spec.selector.matchLabels.{k}: {v!r} does not match spec.template.metadata.labels")
    return out


class DupKeyLoader(yaml.SafeLoader):
    """SafeLoader that rejects duplicate mapping keys (PyYAML keeps the last)."""


def _mapping(loader, node, deep=False):
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


DupKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def targets(paths: list[Path]):
    for p in paths:
        if p.is_dir():
            dirs = sorted({f.parent for f in p.rglob("*") if f.name in KUSTOMIZATION_NAMES})
            if not dirs:
                raise SystemExit(f"FATAL: no kustomization under {p}")
            for d in dirs:
                yield "kustomize", d
        else:
            yield "file", p


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+", type=Path)
    ap.add_argument("--k8s-version", default=os.environ.get("K8S_VERSION", available_versions()[-1]))
    ap.add_argument("--kubectl", default=os.environ.get("KUBECTL") or shutil.which("kubectl") or "kubectl")
    ap.add_argument("-q", "--quiet", action="store_true")
    args = ap.parse_args()
    sdir = schema_dir(args.k8s_version)

    passed = failed = 0
    for how, path in targets(args.paths):
        try:
            text = render(path, args.kubectl) if how == "kustomize" else path.read_text()
            docs = [d for d in yaml.load_all(text, Loader=DupKeyLoader) if d is not None]
        except (RuntimeError, yaml.YAMLError, OSError) as e:
            print(f"FAIL {path}: {e}")
            failed += 1
            continue
        if not docs:
            print(f"FAIL {path}: no documents")
            failed += 1
        for doc in docs:
            name = f"{doc.get('kind', '?')}/{(doc.get('metadata') or {}).get('name', '?')}" if isinstance(doc, dict) else "?"
            problems = validate_doc(doc, sdir)
            if problems:
                failed += 1
                print(f"FAIL {path} {name} ({doc.get('apiVersion') if isinstance(doc, dict) else ''}):")
                for pr in problems:
                    print(f"       {pr}")
            else:
                passed += 1
                if not args.quiet:
                    print(f"ok   {path} {name}")
    print(f"schemas: {sdir.name} (kubernetes-validate), kubectl: {args.kubectl}")
    print(f"k8s-manifests: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
