{{/*
The processor's pod template, shared by the Deployment and the StatefulSet
(workload.kind).
*/}}
{{- define "crawl-decoder.podTemplate" -}}
metadata:
  labels:
    {{- include "crawl-decoder.labels" . | nindent 4 }}
    {{- with .Values.podLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  annotations:
    # Settings are read once at start: a change must roll the pods. The
    # overrides ConfigMap has no checksum here on purpose (hot reload).
    checksum/settings: {{ include (print $.Template.BasePath "/configmap-settings.yaml") . | sha256sum }}
    {{- with include "crawl-decoder.secretsChecksum" . }}
    # The Secrets the pods use, as the cluster has them at install/upgrade
    # (helm lookup): a changed Secret rolls the pods on the next upgrade.
    checksum/secrets: {{ . }}
    {{- end }}
    {{- with .Values.podAnnotations }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  serviceAccountName: {{ include "crawl-decoder.serviceAccountName" . }}
  automountServiceAccountToken: false
  {{- with include "crawl-decoder.imagePullSecrets" . }}
  imagePullSecrets:
    {{- . | trim | nindent 4 }}
  {{- end }}
  {{- with .Values.priorityClassName }}
  priorityClassName: {{ . }}
  {{- end }}
  # Longer than the processor's own shutdown bound (settings.shutdownTimeoutS):
  # it finishes or aborts its batch, commits and leaves the group first.
  terminationGracePeriodSeconds: {{ .Values.terminationGracePeriodSeconds }}
  securityContext:
    {{- include "crawl-decoder.podSecurityContext" . | nindent 4 }}
  {{- with .Values.initContainers }}
  initContainers:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  containers:
    - name: crawl-decoder
      image: {{ include "crawl-decoder.image" . | quote }}
      imagePullPolicy: {{ .Values.image.pullPolicy }}
      # The image's entrypoint, spelled out so the pod spec says what runs.
      command: ["crawl-decoder"]
      args: ["run"]
      ports:
        - name: http
          containerPort: {{ .Values.settings.httpPort }}
          protocol: TCP
        {{- if include "crawl-decoder.alarmsListens" . }}
        # /alarms alone (settings.alarms separate, on an address other pods can reach).
        - name: alarms
          containerPort: {{ .Values.settings.alarmsPort }}
          protocol: TCP
        {{- end }}
      env:
        {{- include "crawl-decoder.env" . | nindent 8 }}
      {{- with .Values.extraEnvFrom }}
      envFrom:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      startupProbe:
        httpGet:
          path: /healthz
          port: http
        {{- toYaml .Values.probes.startup | nindent 8 }}
      livenessProbe:
        httpGet:
          path: /healthz
          port: http
        {{- toYaml .Values.probes.liveness | nindent 8 }}
      readinessProbe:
        httpGet:
          path: /readyz
          port: http
        {{- toYaml .Values.probes.readiness | nindent 8 }}
      resources:
        {{- toYaml .Values.resources | nindent 8 }}
      securityContext:
        {{- include "crawl-decoder.containerSecurityContext" . | nindent 8 }}
      volumeMounts:
        {{- include "crawl-decoder.volumeMounts" . | nindent 8 }}
    {{- with .Values.extraContainers }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  volumes:
    {{- include "crawl-decoder.volumes" . | nindent 4 }}
  {{- with .Values.nodeSelector }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with include "crawl-decoder.affinity" . | trim }}
  # Spread over nodes (the podAntiAffinity preset) unless `affinity` says otherwise.
  affinity:
    {{- . | nindent 4 }}
  {{- end }}
  {{- with .Values.tolerations }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.topologySpreadConstraints }}
  topologySpreadConstraints:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
