{{/*
Names, labels and the fixed paths shared by the templates.
*/}}

{{- define "crawl-decoder.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "crawl-decoder.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "crawl-decoder.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "crawl-decoder.selectorLabels" -}}
app.kubernetes.io/name: {{ include "crawl-decoder.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "crawl-decoder.labels" -}}
helm.sh/chart: {{ include "crawl-decoder.chart" . }}
{{ include "crawl-decoder.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: crawl-decoder
{{- end }}

{{- define "crawl-decoder.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "crawl-decoder.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
The image: [registry/]repository, then @digest or :tag. The registry is
global.imageRegistry when a parent chart sets it (one registry mirror for every
subchart), else image.registry; empty: the repository as it is.
*/}}
{{- define "crawl-decoder.image" -}}
{{- $registry := default .Values.image.registry (dig "imageRegistry" "" (.Values.global | default dict)) }}
{{- $repository := .Values.image.repository }}
{{- if $registry }}
{{- $repository = printf "%s/%s" (trimSuffix "/" $registry) $repository }}
{{- end }}
{{- if .Values.image.digest }}
{{- printf "%s@%s" $repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" $repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/*
imagePullSecrets of the pods: global.imagePullSecrets (a parent chart's, names
or {name: ...} as the Bitnami convention allows) and imagePullSecrets, each
name once. Empty when there are none.
*/}}
{{- define "crawl-decoder.imagePullSecrets" -}}
{{- $names := list }}
{{- range concat (dig "imagePullSecrets" list (.Values.global | default dict)) .Values.imagePullSecrets }}
{{- $names = append $names (ternary . (dig "name" "" (kindIs "map" . | ternary . dict)) (kindIs "string" .)) }}
{{- end }}
{{- range $names | compact | uniq }}
- name: {{ . }}
{{- end }}
{{- end }}

{{/*
The names of every Secret the processor's pods use, as a JSON list: those the
chart's own values name (Kafka SASL and TLS, the Schema Registry's credentials
and CA) and those in extraEnv (secretKeyRef), extraEnvFrom (secretRef) and
extraVolumes (secret, projected secret sources). A Secret used any other way
(an init container's or a sidecar's own env, a CSI driver) is not seen: see
docs/chart.md.
*/}}
{{- define "crawl-decoder.referencedSecrets" -}}
{{- $names := list }}
{{- if hasPrefix "SASL_" .Values.kafka.securityProtocol }}
{{- $names = append $names .Values.kafka.sasl.existingSecret }}
{{- end }}
{{- $names = append $names .Values.kafka.tls.existingSecret }}
{{- $names = append $names .Values.schemaRegistry.auth.existingSecret }}
{{- $names = append $names .Values.schemaRegistry.tls.existingSecret }}
{{- range .Values.extraEnv }}
{{- $names = append $names (dig "valueFrom" "secretKeyRef" "name" "" .) }}
{{- end }}
{{- range .Values.extraEnvFrom }}
{{- $names = append $names (dig "secretRef" "name" "" .) }}
{{- end }}
{{- range .Values.extraVolumes }}
{{- $names = append $names (dig "secret" "secretName" "" .) }}
{{- range (dig "projected" "sources" list .) }}
{{- $names = append $names (dig "secret" "name" "" .) }}
{{- end }}
{{- end }}
{{- $names | compact | uniq | sortAlpha | toJson }}
{{- end }}

{{/*
A checksum of the Secrets the pods use (crawl-decoder.referencedSecrets): their
names, and their data as `helm install`/`upgrade` finds them in the cluster
(lookup), so an upgrade after a Secret changed rolls the pods. `helm template`
(Argo CD, Flux's dry runs) has no cluster to ask: there the names alone count.
Empty when the pods use no Secret or rollOnSecretChange is false.
*/}}
{{- define "crawl-decoder.secretsChecksum" -}}
{{- $names := include "crawl-decoder.referencedSecrets" . | fromJsonArray }}
{{- if and .Values.rollOnSecretChange $names }}
{{- $data := dict }}
{{- range $name := $names }}
{{- $_ := set $data $name (dig "data" dict (lookup "v1" "Secret" $.Release.Namespace $name)) }}
{{- end }}
{{- toJson $data | sha256sum }}
{{- end }}
{{- end }}

{{/*
The directory holding config.yaml and overrides.yaml: the processor's default
CRAWL_DECODER_CONFIG is <configDir>/config.yaml and its default overrides_path
is <configDir>/overrides.yaml. Mounted as a whole directory (a projected volume
of both ConfigMaps), never with subPath: the kubelet updates a directory mount
in place when a ConfigMap changes, which is what hot-reloads the overrides.
*/}}
{{- define "crawl-decoder.configDir" -}}/etc/crawl-decoder{{- end }}
{{- define "crawl-decoder.tlsDir" -}}/etc/kafka/tls{{- end }}
{{- define "crawl-decoder.schemaRegistryTlsDir" -}}/etc/schema-registry/tls{{- end }}

{{/*
The path of the Schema Registry's CA certificate in the pod (the processor's
schema_registry_ca_location), or "" when the image's system CAs are trusted.
*/}}
{{- define "crawl-decoder.schemaRegistryCaLocation" -}}
{{- with .Values.schemaRegistry.tls }}
{{- if .existingSecret }}
{{- printf "%s/%s" (include "crawl-decoder.schemaRegistryTlsDir" $) .caKey }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Labels of every pod of the release that talks to Kafka: the processor's and the
replay Job's (whose name label has a -replay suffix so that the Service and the
PodDisruptionBudget do not count it).
*/}}
{{- define "crawl-decoder.replaySelectorLabels" -}}
app.kubernetes.io/name: {{ include "crawl-decoder.name" . }}-replay
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
The replay Job's name: one per replay.runId, at most 63 characters (the
job-name label of its pods carries it).
*/}}
{{- define "crawl-decoder.replayJobName" -}}
{{- $runId := toString .Values.replay.runId }}
{{- printf "%s-replay-%s" (include "crawl-decoder.fullname" . | trunc (int (sub 55 (len $runId))) | trimSuffix "-") $runId }}
{{- end }}
{{- define "crawl-decoder.settingsConfigMap" -}}
{{- printf "%s-settings" (include "crawl-decoder.fullname" .) }}
{{- end }}

{{- define "crawl-decoder.overridesConfigMap" -}}
{{- default (printf "%s-overrides" (include "crawl-decoder.fullname" .)) .Values.overrides.existingConfigMap }}
{{- end }}

{{/*
"true" when the pods join with static membership (group.instance.id = pod name),
else empty: kafka.staticMembership, or when it is null, the workload kind (a
StatefulSet's pod names survive a rollout; a Deployment's do not, and its
replaced pods' partitions would wait out the session timeout).
*/}}
{{- define "crawl-decoder.staticMembership" -}}
{{- $static := .Values.kafka.staticMembership }}
{{- if kindIs "invalid" $static }}
{{- $static = eq .Values.workload.kind "StatefulSet" }}
{{- end }}
{{- if $static }}true{{ end }}
{{- end }}

{{/*
"true" when /alarms has a port of its own that other pods can reach (settings.alarms
separate on an address other than the loopback), else empty. On the loopback
(the default) only kubectl port-forward and exec reach it.
*/}}
{{- define "crawl-decoder.alarmsListens" -}}
{{- if and (eq .Values.settings.alarms "separate") (not (has .Values.settings.alarmsHost (list "127.0.0.1" "::1" "localhost"))) }}true{{ end }}
{{- end }}

{{/*
Checks no JSON schema can express: they compare two values.
*/}}
{{- define "crawl-decoder.validate" -}}
{{- if le (int .Values.terminationGracePeriodSeconds) (int .Values.settings.shutdownTimeoutS) }}
{{- fail (printf "terminationGracePeriodSeconds (%v) must exceed settings.shutdownTimeoutS (%v): Kubernetes would SIGKILL the processor before it finishes its batch" .Values.terminationGracePeriodSeconds .Values.settings.shutdownTimeoutS) }}
{{- end }}
{{- $partitions := .Values.kafka.landingTopicPartitions }}
{{- if .Values.autoscaling.enabled }}
{{- if eq .Values.kafka.sasl.mechanism "OAUTHBEARER" }}
{{- fail "autoscaling.enabled with kafka.sasl.mechanism OAUTHBEARER: the chart's KEDA trigger authenticates with a username and password only" }}
{{- end }}
{{- if not $partitions }}
{{- fail "kafka.landingTopicPartitions is required when autoscaling.enabled: set it to the landing topic's partition count" }}
{{- end }}
{{- if gt (int .Values.autoscaling.maxReplicas) (int $partitions) }}
{{- fail (printf "autoscaling.maxReplicas (%v) exceeds kafka.landingTopicPartitions (%v): consumers beyond the partition count sit idle" .Values.autoscaling.maxReplicas $partitions) }}
{{- end }}
{{- if gt (int .Values.autoscaling.minReplicas) (int .Values.autoscaling.maxReplicas) }}
{{- fail (printf "autoscaling.minReplicas (%v) exceeds autoscaling.maxReplicas (%v)" .Values.autoscaling.minReplicas .Values.autoscaling.maxReplicas) }}
{{- end }}
{{- else if and $partitions (gt (int .Values.replicaCount) (int $partitions)) }}
{{- fail (printf "replicaCount (%v) exceeds kafka.landingTopicPartitions (%v): consumers beyond the partition count sit idle" .Values.replicaCount $partitions) }}
{{- end }}
{{- if hasKey .Values.autoscaling "cooldownPeriod" }}
{{- fail "autoscaling.cooldownPeriod is gone: KEDA applies it only when scaling to and from zero replicas, which this chart never does (autoscaling.minReplicas >= 1). Slow scale-down with autoscaling.behavior.scaleDown (stabilizationWindowSeconds, policies) instead" }}
{{- end }}
{{- if regexMatch "(^|,)\\s*[a-zA-Z][a-zA-Z0-9+.-]*://[^/,]*@" .Values.settings.schemaRegistryUrl }}
{{- fail "settings.schemaRegistryUrl carries credentials (user:password@host): they would be written to the settings ConfigMap in clear. Put them in a Secret and name it in schemaRegistry.auth.existingSecret, with the URL alone in settings.schemaRegistryUrl" }}
{{- end }}
{{- if and .Values.schemaRegistry.auth.existingSecret (not .Values.settings.schemaRegistryUrl) }}
{{- fail "schemaRegistry.auth.existingSecret is set but settings.schemaRegistryUrl is empty: the credentials would be used for nothing" }}
{{- end }}
{{- if and .Values.schemaRegistry.tls.existingSecret (not (hasPrefix "https://" .Values.settings.schemaRegistryUrl)) }}
{{- fail "schemaRegistry.tls.existingSecret is set but settings.schemaRegistryUrl is not an https:// URL" }}
{{- end }}
{{- if not (has .Values.workload.kind (list "Deployment" "StatefulSet")) }}
{{- fail (printf "workload.kind is %q: Deployment or StatefulSet" .Values.workload.kind) }}
{{- end }}
{{- if and (eq .Values.settings.alarms "separate") (eq (int .Values.settings.alarmsPort) (int .Values.settings.httpPort)) }}
{{- fail (printf "settings.alarmsPort (%v) must differ from settings.httpPort when settings.alarms is separate" .Values.settings.alarmsPort) }}
{{- end }}
{{- if and .Values.replay.enabled (not .Values.replay.runId) }}
{{- fail "replay.enabled needs replay.runId: a short name of this replay run (e.g. 2027-03-31-sjis). The Job is named after it, so an upgrade with the same runId leaves the finished Job alone and a new runId starts a new run" }}
{{- end }}
{{- end }}

{{/*
Environment of the processor container (also used by the replay Job).
Kafka connection settings are environment variables; credentials come from
existing Secrets by reference, never as values.
*/}}
{{- define "crawl-decoder.env" -}}
- name: CRAWL_DECODER_CONFIG
  value: {{ include "crawl-decoder.configDir" . }}/config.yaml
# In the environment rather than config.yaml so that `crawl-decoder overrides
# due`/`recheck` run with kubectl exec find the same file as the processor.
- name: CRAWL_DECODER_OVERRIDES_PATH
  value: {{ include "crawl-decoder.configDir" . }}/overrides.yaml
# The pod name is unique among live pods and survives container restarts, so a
# restarted processor fences its predecessor's open transaction at once.
- name: CRAWL_DECODER_TRANSACTIONAL_ID
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
{{- if include "crawl-decoder.staticMembership" . }}
# The same stable name as the group.instance.id: a restarted container rejoins as
# the member it was and gets its partitions back without a rebalance.
- name: CRAWL_DECODER_GROUP_INSTANCE_ID
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
{{- end }}
- name: KAFKA_BOOTSTRAP_SERVERS
  value: {{ .Values.kafka.bootstrapServers | quote }}
- name: KAFKA_SECURITY_PROTOCOL
  value: {{ .Values.kafka.securityProtocol | quote }}
{{- if hasPrefix "SASL_" .Values.kafka.securityProtocol }}
- name: KAFKA_SASL_MECHANISM
  value: {{ .Values.kafka.sasl.mechanism | quote }}
{{- if eq .Values.kafka.sasl.mechanism "OAUTHBEARER" }}
{{- with .Values.kafka.sasl }}
- name: KAFKA_SASL_OAUTHBEARER_METHOD
  value: oidc
- name: KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL
  value: {{ .oauthbearer.tokenEndpointUrl | quote }}
{{- if .oauthbearer.scope }}
- name: KAFKA_SASL_OAUTHBEARER_SCOPE
  value: {{ .oauthbearer.scope | quote }}
{{- end }}
- name: KAFKA_SASL_OAUTHBEARER_CLIENT_ID
  valueFrom:
    secretKeyRef:
      name: {{ .existingSecret }}
      key: {{ .oauthbearer.clientIdKey }}
- name: KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET
  valueFrom:
    secretKeyRef:
      name: {{ .existingSecret }}
      key: {{ .oauthbearer.clientSecretKey }}
{{- end }}
{{- else }}
- name: KAFKA_SASL_USERNAME
  valueFrom:
    secretKeyRef:
      name: {{ .Values.kafka.sasl.existingSecret }}
      key: {{ .Values.kafka.sasl.usernameKey }}
- name: KAFKA_SASL_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ .Values.kafka.sasl.existingSecret }}
      key: {{ .Values.kafka.sasl.passwordKey }}
{{- end }}
{{- end }}
{{- with .Values.kafka.tls }}
{{- if .existingSecret }}
{{- if .caKey }}
- name: KAFKA_SSL_CA_LOCATION
  value: {{ include "crawl-decoder.tlsDir" $ }}/{{ .caKey }}
{{- end }}
{{- if .certKey }}
- name: KAFKA_SSL_CERTIFICATE_LOCATION
  value: {{ include "crawl-decoder.tlsDir" $ }}/{{ .certKey }}
{{- end }}
{{- if .keyKey }}
- name: KAFKA_SSL_KEY_LOCATION
  value: {{ include "crawl-decoder.tlsDir" $ }}/{{ .keyKey }}
{{- end }}
{{- if .keyPasswordKey }}
- name: KAFKA_SSL_KEY_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ .existingSecret }}
      key: {{ .keyPasswordKey }}
{{- end }}
{{- end }}
{{- end }}
{{- with .Values.schemaRegistry.auth }}
{{- if .existingSecret }}
# Basic auth to the Schema Registry (never in the URL: that is in the settings ConfigMap).
- name: CRAWL_DECODER_SCHEMA_REGISTRY_USERNAME
  valueFrom:
    secretKeyRef:
      name: {{ .existingSecret }}
      key: {{ .usernameKey }}
- name: CRAWL_DECODER_SCHEMA_REGISTRY_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ .existingSecret }}
      key: {{ .passwordKey }}
{{- end }}
{{- end }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/*
Volumes shared by the Deployment and the replay Job.
*/}}
{{- define "crawl-decoder.volumes" -}}
- name: config
  projected:
    sources:
      - configMap:
          name: {{ include "crawl-decoder.settingsConfigMap" . }}
          items:
            - key: config.yaml
              path: config.yaml
      - configMap:
          name: {{ include "crawl-decoder.overridesConfigMap" . }}
          items:
            - key: {{ ternary .Values.overrides.existingConfigMapKey "overrides.yaml" (ne .Values.overrides.existingConfigMap "") }}
              path: overrides.yaml
- name: tmp
  emptyDir:
    sizeLimit: {{ .Values.tmpSizeLimit }}
{{- if .Values.kafka.tls.existingSecret }}
- name: kafka-tls
  secret:
    secretName: {{ .Values.kafka.tls.existingSecret }}
    defaultMode: 0440
{{- end }}
{{- if .Values.schemaRegistry.tls.existingSecret }}
- name: schema-registry-tls
  secret:
    secretName: {{ .Values.schemaRegistry.tls.existingSecret }}
    defaultMode: 0440
    items:
      - key: {{ .Values.schemaRegistry.tls.caKey }}
        path: {{ .Values.schemaRegistry.tls.caKey }}
{{- end }}
{{- with .Values.extraVolumes }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "crawl-decoder.volumeMounts" -}}
- name: config
  mountPath: {{ include "crawl-decoder.configDir" . }}
  readOnly: true
- name: tmp
  mountPath: /tmp
{{- if .Values.kafka.tls.existingSecret }}
- name: kafka-tls
  mountPath: {{ include "crawl-decoder.tlsDir" . }}
  readOnly: true
{{- end }}
{{- if .Values.schemaRegistry.tls.existingSecret }}
- name: schema-registry-tls
  mountPath: {{ include "crawl-decoder.schemaRegistryTlsDir" . }}
  readOnly: true
{{- end }}
{{- with .Values.extraVolumeMounts }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/*
Hardened contexts. What makes them hardened (non-root, no privilege escalation,
no capabilities, read-only root filesystem, RuntimeDefault seccomp) is not
configurable. The numeric ids are: runAsUser, runAsGroup and fsGroup set to null
are left out, for platforms that assign their own (OpenShift's restricted SCCs
give each namespace a UID range and refuse pods that name an id outside it).
*/}}
{{- define "crawl-decoder.ids" -}}
{{- if not (kindIs "invalid" .Values.runAsUser) }}
runAsUser: {{ int64 .Values.runAsUser }}
{{- end }}
{{- if not (kindIs "invalid" .Values.runAsGroup) }}
runAsGroup: {{ int64 .Values.runAsGroup }}
{{- end }}
{{- end }}

{{- define "crawl-decoder.podSecurityContext" -}}
runAsNonRoot: true
{{- include "crawl-decoder.ids" . }}
{{- if not (kindIs "invalid" .Values.fsGroup) }}
fsGroup: {{ int64 .Values.fsGroup }}
{{- end }}
seccompProfile:
  type: RuntimeDefault
{{- end }}

{{- define "crawl-decoder.containerSecurityContext" -}}
runAsNonRoot: true
{{- include "crawl-decoder.ids" . }}
readOnlyRootFilesystem: true
allowPrivilegeEscalation: false
privileged: false
capabilities:
  drop:
    - ALL
seccompProfile:
  type: RuntimeDefault
{{- end }}

{{/*
Pod anti-affinity: `affinity` when it is set, else the podAntiAffinity preset
(soft: prefer one processor pod per node; hard: require it; none).
*/}}
{{- define "crawl-decoder.affinity" -}}
{{- if .Values.affinity }}
{{- toYaml .Values.affinity }}
{{- else if ne .Values.podAntiAffinity "none" }}
podAntiAffinity:
  {{- if eq .Values.podAntiAffinity "hard" }}
  requiredDuringSchedulingIgnoredDuringExecution:
    - topologyKey: kubernetes.io/hostname
      labelSelector:
        matchLabels:
          {{- include "crawl-decoder.selectorLabels" . | nindent 10 }}
  {{- else }}
  preferredDuringSchedulingIgnoredDuringExecution:
    - weight: 100
      podAffinityTerm:
        topologyKey: kubernetes.io/hostname
        labelSelector:
          matchLabels:
            {{- include "crawl-decoder.selectorLabels" . | nindent 12 }}
  {{- end }}
{{- end }}
{{- end }}

{{/*
kube-score checks the chart waives, as the value of a kube-score/ignore
annotation on the Deployment and the replay Job (tests/deploy/test_kube_score.py
runs kube-score over the rendered chart; every other finding is fixed). Each
waiver, with its reason, one per line "kube-score waiver <check>: <reason>":

kube-score waiver container-resources (CPU limit only): not by this annotation, which would switch off the whole check, but by running kube-score with --ignore-container-cpu-limit, so requests and the memory limit are still checked. A CPU limit throttles the processor in the middle of a batch (CFS quota) while the node has idle CPU, which stretches transactions and grows lag; the pods request CPU and have memory and ephemeral-storage limits, and resources.limits.cpu can still be set
kube-score waiver container-image-pull-policy: it asks for Always. The image is pinned by tag or digest (image.digest), so IfNotPresent pulls the same bytes without a registry round trip per pod start; image.pullPolicy can still be Always
kube-score waiver pod-networkpolicy: only while networkPolicy.enabled is false (the default): which egress a cluster needs to reach Kafka, the registry and DNS depends on its network plugin and layout, so the policy is the operator's choice
kube-score waiver container-security-context-user-group-id: only while runAsUser or runAsGroup is null: the platform assigns the ids then (OpenShift picks them from the namespace's range, 1000000000 and up), which kube-score cannot see and reads as 0; runAsNonRoot: true still makes the kubelet refuse root
kube-score waiver deployment-replicas: only while autoscaling.enabled: the Deployment then has no replicas field on purpose (KEDA's HPA owns it, autoscaling.minReplicas is the floor), which kube-score reads as one replica
*/}}
{{- define "crawl-decoder.kubeScoreIgnore" -}}
{{- $checks := list "container-image-pull-policy" }}
{{- if not .Values.networkPolicy.enabled }}
{{- $checks = append $checks "pod-networkpolicy" }}
{{- end }}
{{- if or (kindIs "invalid" .Values.runAsUser) (kindIs "invalid" .Values.runAsGroup) }}
{{- $checks = append $checks "container-security-context-user-group-id" }}
{{- end }}
{{- if .Values.autoscaling.enabled }}
{{- $checks = append $checks "deployment-replicas" }}
{{- end }}
{{- join "," $checks }}
{{- end }}
