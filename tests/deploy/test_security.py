"""Every pod the chart runs is locked down the same way, whatever the values.

What Kubernetes' "restricted" Pod Security Standard asks, plus a read-only
root filesystem and no service account token (the processor never calls the
Kubernetes API).
"""

from __future__ import annotations

from deploy_support import only, pod_specs


def test_every_pod_runs_as_non_root_with_runtime_default_seccomp(manifests):
    specs = pod_specs(manifests)
    assert specs
    for spec in specs:
        context = spec["securityContext"]
        assert context["runAsNonRoot"] is True
        assert context["runAsUser"] > 0 and context["runAsGroup"] > 0
        assert context["seccompProfile"] == {"type": "RuntimeDefault"}
        assert spec["automountServiceAccountToken"] is False
        assert not spec.get("hostNetwork") and not spec.get("hostPID") and not spec.get("hostIPC")
        assert not [v for v in spec["volumes"] if "hostPath" in v]


def test_every_container_is_read_only_unprivileged_and_drops_all_capabilities(manifests):
    for spec in pod_specs(manifests):
        for container in spec["containers"]:
            context = container["securityContext"]
            assert context["readOnlyRootFilesystem"] is True
            assert context["allowPrivilegeEscalation"] is False
            assert context["privileged"] is False
            assert context["runAsNonRoot"] is True
            assert context["capabilities"] == {"drop": ["ALL"]}
            assert context["seccompProfile"] == {"type": "RuntimeDefault"}


def test_the_only_writable_path_is_a_bounded_tmp(manifests):
    for spec in pod_specs(manifests):
        volumes = {v["name"]: v for v in spec["volumes"]}
        for container in spec["containers"]:
            for mount in container.get("volumeMounts", []):
                writable = not mount.get("readOnly", False)
                if mount["mountPath"] == "/tmp":
                    assert volumes[mount["name"]]["emptyDir"]["sizeLimit"]
                else:
                    # configMap, projected and secret volumes are read-only whatever the mount says;
                    # saying so keeps it true if someone swaps in another volume type.
                    assert not writable, f"{mount['mountPath']} should be mounted readOnly"


def test_service_account_token_is_not_mounted(manifests):
    account = only(manifests, "ServiceAccount")
    assert account["automountServiceAccountToken"] is False


def test_the_pod_user_is_the_images_user(manifests, dockerfile):
    uid, _, gid = dockerfile.final.last("USER").args.partition(":")
    for spec in pod_specs(manifests):
        assert spec["securityContext"]["runAsUser"] == int(uid)
        assert spec["securityContext"]["runAsGroup"] == int(gid or uid)
