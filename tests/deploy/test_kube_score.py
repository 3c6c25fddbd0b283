"""kube-score over the rendered chart: every finding fixed, or waived in the chart with its reason.

kube-score (github.com/zegl/kube-score, a static checker of Kubernetes objects:
resources, probes, security contexts, NetworkPolicies, PDBs, anti-affinity...)
is built once from its Go module by ensure_kube_score.py (about 40 seconds on
two cores, then cached). The waivers are the ``kube-score/ignore`` annotations
the chart renders; each check it waives is listed with its reason in
templates/_helpers.tpl, and the CPU-limit part of container-resources is
waived by ``--ignore-container-cpu-limit`` (an annotation would switch off the
whole check), as that list says.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
import yaml
from ensure_kube_score import find_or_build_kube_score
from go_tool import ToolUnavailable

from deploy_support import CHART_DIR, VALUES_ALL_ON

KUBE_SCORE_FLAGS = ["--ignore-container-cpu-limit", "--output-format", "ci"]
WAIVER = re.compile(r"^kube-score waiver ([a-z-]+)(?: \([^)]*\))?: (.+)$", re.MULTILINE)

#: Values beside the default and all-on ones: ids left to OpenShift, the NetworkPolicy with nothing else.
OPENSHIFT = {
    "kafka": {"bootstrapServers": "kafka:9092"}, "runAsUser": None, "runAsGroup": None, "fsGroup": None,
    "networkPolicy": {"enabled": True}, "replay": {"enabled": True, "runId": "r1"},
}


@pytest.fixture(scope="module")
def kube_score() -> Path:
    try:
        return find_or_build_kube_score()
    except ToolUnavailable as exc:
        pytest.fail(str(exc), pytrace=False)


def _score(kube_score: Path, manifests: list[dict], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "rendered.yaml"
    path.write_text(yaml.safe_dump_all(manifests))
    return subprocess.run([str(kube_score), "score", *KUBE_SCORE_FLAGS, str(path)],
                          capture_output=True, text=True, timeout=120)


def _findings(result: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in result.stdout.splitlines() if line.startswith(("[WARNING]", "[CRITICAL]"))]


@pytest.fixture(scope="module")
def openshift_manifests(render, tmp_path_factory):
    path = tmp_path_factory.mktemp("openshift") / "values.yaml"
    path.write_text(yaml.safe_dump(OPENSHIFT))
    return render(values_files=[path], set_values={})


@pytest.fixture(scope="module")
def statefulset_manifests(render):
    """Every optional part on, run as a StatefulSet (its headless Service, KEDA scaling it)."""
    return render(values_files=[VALUES_ALL_ON], set_values={"workload.kind": "StatefulSet"})


@pytest.mark.parametrize("values", ["default", "all-on", "openshift", "statefulset"])
def test_kube_score_finds_nothing_left(kube_score, default_manifests, all_on_manifests, openshift_manifests,
                                       statefulset_manifests, tmp_path, values):
    manifests = {"default": default_manifests, "all-on": all_on_manifests, "openshift": openshift_manifests,
                 "statefulset": statefulset_manifests}[values]
    result = _score(kube_score, manifests, tmp_path)
    assert _findings(result) == [] and result.returncode == 0, result.stdout + result.stderr
    assert "[OK]" in result.stdout, "kube-score checked nothing"


def test_kube_score_can_fail(kube_score, default_manifests, tmp_path):
    # Without the chart's waivers and with a root, writable container, kube-score must complain.
    broken = yaml.safe_load(yaml.safe_dump(default_manifests))
    for manifest in broken:
        manifest["metadata"].get("annotations", {}).pop("kube-score/ignore", None)
        if manifest["kind"] == "Deployment":
            manifest["spec"]["template"]["spec"]["containers"][0]["securityContext"]["readOnlyRootFilesystem"] = False
    findings = "\n".join(_findings(_score(kube_score, broken, tmp_path)))
    assert "ImagePullPolicy" in findings and "NetworkPolicy" in findings
    assert "writable root filesystem" in findings


def _waived(manifests: list[dict]) -> set[str]:
    checks: set[str] = set()
    for manifest in manifests:
        value = manifest["metadata"].get("annotations", {}).get("kube-score/ignore", "")
        checks |= {check for check in value.split(",") if check}
    return checks


def test_every_waiver_is_a_real_check_with_its_reason_in_the_chart(
    kube_score, default_manifests, all_on_manifests, openshift_manifests
):
    documented = dict(WAIVER.findall((CHART_DIR / "templates" / "_helpers.tpl").read_text()))
    assert all(len(reason) > 40 for reason in documented.values()), documented
    listed = subprocess.run([str(kube_score), "list"], capture_output=True, text=True, check=True).stdout
    known = {line.split(",")[0] for line in listed.splitlines() if line}
    assert set(documented) <= known, f"waivers of checks kube-score does not have: {set(documented) - known}"
    assert "container-resources" in documented, "the --ignore-container-cpu-limit flag needs its reason too"
    waived = _waived(default_manifests) | _waived(all_on_manifests) | _waived(openshift_manifests)
    assert waived <= set(documented), f"waived without a reason in _helpers.tpl: {waived - set(documented)}"


def test_the_network_policy_waiver_goes_when_the_policy_is_on(default_manifests, all_on_manifests):
    assert "pod-networkpolicy" in _waived(default_manifests)
    assert "pod-networkpolicy" not in _waived(all_on_manifests)
    assert "deployment-replicas" not in _waived(default_manifests), "only when KEDA owns the replica count"

