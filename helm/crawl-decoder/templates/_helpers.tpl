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

{{- define "crawl-decoder.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
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

{{- define "crawl-decoder.settingsConfigMap" -}}
{{- printf "%s-settings" (include "crawl-decoder.fullname" .) }}
{{- end }}

{{- define "crawl-decoder.overridesConfigMap" -}}
{{- default (printf "%s-overrides" (include "crawl-decoder.fullname" .)) .Values.overrides.existingConfigMap }}
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
{{- if .Values.kafka.staticMembership }}
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
{{- end }}

{{/*
Hardened contexts: not configurable downwards on purpose.
*/}}
{{- define "crawl-decoder.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: {{ .Values.runAsUser }}
runAsGroup: {{ .Values.runAsGroup }}
fsGroup: {{ .Values.runAsGroup }}
seccompProfile:
  type: RuntimeDefault
{{- end }}

{{- define "crawl-decoder.containerSecurityContext" -}}
runAsNonRoot: true
runAsUser: {{ .Values.runAsUser }}
runAsGroup: {{ .Values.runAsGroup }}
readOnlyRootFilesystem: true
allowPrivilegeEscalation: false
privileged: false
capabilities:
  drop:
    - ALL
seccompProfile:
  type: RuntimeDefault
{{- end }}
