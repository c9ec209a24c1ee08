{{/* The chart's name, cut to 63 characters. */}}
{{- define "messaging.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The prefix of every resource's name: release-chart, unless overridden; 43 characters leave room for suffixes. */}}
{{- define "messaging.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 43 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 43 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 43 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Labels on every resource (Kubernetes' recommended labels). */}}
{{- define "messaging.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "messaging.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: softrdma
{{- end }}

{{/* Selector labels of one component (server or client); call with (list $ "server"). */}}
{{- define "messaging.selectorLabels" -}}
{{- $ := index . 0 -}}
app.kubernetes.io/name: {{ include "messaging.name" $ }}
app.kubernetes.io/instance: {{ $.Release.Name }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end }}

{{/* The image reference. */}}
{{- define "messaging.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{/* The server Deployment's name, and the headless Service's: the name the clients resolve. */}}
{{- define "messaging.serverName" -}}
{{ include "messaging.fullname" . }}-server
{{- end }}

{{/* The headless Service's fully qualified name: one A record per ready server pod. */}}
{{- define "messaging.serverHost" -}}
{{ include "messaging.serverName" . }}.{{ .Release.Namespace }}.svc.cluster.local
{{- end }}

{{/* What the server's and the client's application.yaml share. */}}
{{- define "messaging.commonConfig" -}}
management:
  endpoints:
    web:
      exposure:
        include: health,prometheus,info
  endpoint:
    health:
      show-details: always
      probes:
        enabled: true
      group:
        readiness:
          include: readinessState,rdma
spring:
  lifecycle:
    timeout-per-shutdown-phase: {{ sub .Values.terminationGracePeriodSeconds 5 | max 1 }}s
{{- end }}

{{/* The server's application.yaml, before server.config is merged over it: one property starts RSocket over RDMA. */}}
{{- define "messaging.serverConfig" -}}
{{ include "messaging.commonConfig" . }}
server:
  port: {{ .Values.server.ports.http }}
  shutdown: graceful
rdma:
  rsocket:
    server:
      port: {{ .Values.server.ports.rsocket }}
{{- end }}

{{/* The client's application.yaml, before client.config is merged over it. */}}
{{- define "messaging.clientConfig" -}}
{{ include "messaging.commonConfig" . }}
server:
  port: {{ .Values.client.ports.http }}
rdma:
  rsocket:
    client:
      refresh-interval: {{ .Values.client.refreshInterval }}
messaging:
  client:
    # The headless Service: its DNS records are the server pods the client balances across.
    host: {{ include "messaging.serverHost" . }}
    port: {{ .Values.server.ports.rsocket }}
    load-balanced: true
    consume-delay: {{ .Values.client.consumeDelay }}
    request-window: {{ .Values.client.requestWindow }}
{{- end }}

{{/* The pod security context: never root, the runtime's default seccomp profile. */}}
{{- define "messaging.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: {{ .Values.securityContext.runAsUser }}
runAsGroup: {{ .Values.securityContext.runAsGroup }}
fsGroup: {{ .Values.securityContext.fsGroup }}
seccompProfile:
  type: RuntimeDefault
{{- end }}

{{/* The container security context: read-only root, no privilege, no capability. */}}
{{- define "messaging.containerSecurityContext" -}}
runAsNonRoot: true
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
privileged: false
capabilities:
  drop:
    - ALL
{{- end }}

{{/* Prometheus scrape annotations for a pod whose Actuator listens on port (call with (list $ port)). */}}
{{- define "messaging.scrapeAnnotations" -}}
{{- $ := index . 0 -}}
{{- if $.Values.metrics.annotations }}
prometheus.io/scrape: "true"
prometheus.io/port: {{ index . 1 | quote }}
prometheus.io/path: /actuator/prometheus
{{- end }}
{{- end }}

{{/*
A pod's container settings both components share: probes on the http port, security, the config mount and a
writable /tmp. Call with (list $ "server"|"client" resources).
*/}}
{{- define "messaging.containerCommon" -}}
{{- $ := index . 0 -}}
livenessProbe:
  httpGet:
    path: /actuator/health/liveness
    port: http
  {{- toYaml $.Values.probes.liveness | nindent 2 }}
readinessProbe:
  httpGet:
    path: /actuator/health/readiness
    port: http
  {{- toYaml $.Values.probes.readiness | nindent 2 }}
resources:
  {{- toYaml (index . 2) | nindent 2 }}
securityContext:
  {{- include "messaging.containerSecurityContext" $ | nindent 2 }}
volumeMounts:
  - name: config
    mountPath: /config
    readOnly: true
  - name: tmp
    mountPath: /tmp
{{- end }}

{{/* The pod's volumes: the ConfigMap and /tmp. */}}
{{- define "messaging.volumes" -}}
- name: config
  configMap:
    name: {{ include "messaging.fullname" . }}-config
- name: tmp
  emptyDir:
    sizeLimit: 64Mi
{{- end }}

{{/*
The labels that make a pod a client (networkPolicy.clientSelector, or softrdma.io/client: "true" when empty). The
default lives here, not in values.yaml, so that a user's map replaces it instead of being merged with it: merged,
the policy would require both labels.
*/}}
{{- define "messaging.clientSelector" -}}
{{- toYaml (.Values.networkPolicy.clientSelector | default (dict "softrdma.io/client" "true")) }}
{{- end }}
