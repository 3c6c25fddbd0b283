"""NOTES.txt: what an operator reads after ``helm install`` must name the real objects.

``helm template`` does not print NOTES.txt and ``helm install --dry-run`` needs
a cluster, so the notes are rendered through ``tpl`` in a copy of the chart
with the same values and release context.
"""

from __future__ import annotations

import shutil

import pytest
import yaml

from deploy_support import CHART_DIR, REQUIRED_VALUES, VALUES_ALL_ON, only

NOTES_AS_MANIFEST = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: rendered-notes
data:
  notes: {{ tpl (.Files.Get "NOTES.src") . | quote }}
"""


@pytest.fixture(scope="module")
def render_notes(run_helm, tmp_path_factory):
    chart = tmp_path_factory.mktemp("notes") / "crawl-decoder"
    shutil.copytree(CHART_DIR, chart)
    shutil.copy(chart / "templates" / "NOTES.txt", chart / "NOTES.src")
    (chart / "templates" / "zz-rendered-notes.yaml").write_text(NOTES_AS_MANIFEST)

    def render(**kwargs):
        result = run_helm("template", chart=chart, **kwargs)
        assert result.returncode == 0, result.stderr
        manifests = [m for m in yaml.safe_load_all(result.stdout) if m]
        notes = next(m for m in manifests if m["metadata"]["name"] == "rendered-notes")["data"]["notes"]
        return notes, [m for m in manifests if m["metadata"]["name"] != "rendered-notes"]

    return render


def test_notes_tell_how_to_check_it_runs_and_read_metrics(render_notes):
    notes, manifests = render_notes(set_values=REQUIRED_VALUES)
    deployment = only(manifests, "Deployment")["metadata"]["name"]
    service = only(manifests, "Service")
    port = service["spec"]["ports"][0]["port"]
    assert f"kubectl -n crawl rollout status deployment/{deployment}" in notes
    assert f"kubectl -n crawl logs deployment/{deployment}" in notes
    assert f"port-forward service/{service['metadata']['name']} {port}:{port}" in notes
    assert f"http://127.0.0.1:{port}/metrics" in notes
    assert "kafka:9092" in notes and '"crawl.raw"' in notes


def test_notes_tell_how_to_replay_quarantine(render_notes):
    notes, manifests = render_notes(set_values=REQUIRED_VALUES)
    deployment = only(manifests, "Deployment")["metadata"]["name"]
    assert f"exec deployment/{deployment} -- crawl-decoder replay --dry-run" in notes
    assert f"exec deployment/{deployment} -- crawl-decoder overrides due" in notes
    assert "replay.enabled=true" in notes


def test_notes_name_the_statefulset_when_the_workload_is_one(render_notes):
    notes, manifests = render_notes(set_values={**REQUIRED_VALUES, "workload.kind": "StatefulSet"})
    name = only(manifests, "StatefulSet")["metadata"]["name"]
    assert f"kubectl -n crawl rollout status statefulset/{name}" in notes
    assert f"exec statefulset/{name} -- crawl-decoder overrides due" in notes
    assert "deployment/" not in notes


def test_notes_name_the_running_replay_job_and_autoscaler_when_on(render_notes):
    notes, manifests = render_notes(values_files=[VALUES_ALL_ON], set_values={})
    job = only(manifests, "Job")["metadata"]["name"]
    assert f"job/{job}" in notes
    assert f"get scaledobject {only(manifests, 'ScaledObject')['metadata']['name']}" in notes
    assert "(24 partitions)" in notes
    assert "ServiceMonitor" in notes


def test_notes_name_the_alerts_and_the_dashboard_only_when_switched_on(render_notes):
    notes, _ = render_notes(values_files=[VALUES_ALL_ON], set_values={})
    assert 'PrometheusRule "cd-crawl-decoder"' in notes
    assert 'ConfigMap "cd-crawl-decoder-dashboard"' in notes
    notes, _ = render_notes()
    assert "PrometheusRule" not in notes and "dashboard" not in notes


def test_notes_say_when_the_release_is_paused_and_how_to_resume(render_notes):
    notes, _ = render_notes(set_values={**REQUIRED_VALUES, "paused": True})
    assert "PAUSED (paused: true)" in notes and "--set paused=false" in notes
    notes, _ = render_notes(set_values=REQUIRED_VALUES)
    assert "PAUSED" not in notes


def test_notes_tell_how_to_reach_alarms_on_the_pods_loopback(render_notes):
    notes, _ = render_notes(set_values=REQUIRED_VALUES)
    assert "port-forward pod/<pod> 9103:9103" in notes and "http://127.0.0.1:9103/alarms" in notes
    notes, _ = render_notes(set_values={**REQUIRED_VALUES, "settings.alarms": "shared"})
    assert "9103" not in notes
