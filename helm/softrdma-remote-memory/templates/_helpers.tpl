{{/* The chart's name, cut to 63 characters. */}}
{{- define "softrdma.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The prefix of every resource's name: release-chart, unless overridden; 43 characters leave room for suffixes. */}}
{{- define "softrdma.fullname" -}}
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
{{- define "softrdma.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "softrdma.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: softrdma
{{- end }}

{{/* Selector labels of one component (service or client); call with (list $ "service"). */}}
{{- define "softrdma.selectorLabels" -}}
{{- $ := index . 0 -}}
app.kubernetes.io/name: {{ include "softrdma.name" $ }}
app.kubernetes.io/instance: {{ $.Release.Name }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end }}

{{/* The image reference. */}}
{{- define "softrdma.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{/* Names of the services. */}}
{{- define "softrdma.serviceName" -}}
{{ include "softrdma.fullname" . }}-service
{{- end }}
{{- define "softrdma.headlessName" -}}
{{ include "softrdma.fullname" . }}-service-headless
{{- end }}

{{/* The headless Service's DNS name: it resolves to every ready service pod, which the clients hash keys over. */}}
{{- define "softrdma.headlessHost" -}}
{{ include "softrdma.headlessName" . }}.{{ .Release.Namespace }}.svc.cluster.local
{{- end }}

{{/* The Secret holding the credential the clients present and the service grants rights to. */}}
{{- define "softrdma.credentialSecret" -}}
{{ .Values.auth.existingSecret | default (printf "%s-credential" (include "softrdma.fullname" .)) }}
{{- end }}

{{/* What the service's and the client's application.yaml share. */}}
{{- define "softrdma.commonConfig" -}}
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
  metrics:
    distribution:
      # Buckets for the dashboard's latency quantiles.
      percentiles-histogram:
        rdma.operation: true
spring:
  lifecycle:
    timeout-per-shutdown-phase: {{ sub .Values.terminationGracePeriodSeconds 5 | max 1 }}s
{{- end }}

{{/* The service's application.yaml, before service.config is merged over it. */}}
{{- define "softrdma.serviceConfig" -}}
{{ include "softrdma.commonConfig" . }}
server:
  port: {{ .Values.service.ports.http }}
  shutdown: graceful
rdma:
  # The memory server takes rdma.server.*'s settings (MPA, queue pair, TLS) on its own port.
  {{- if .Values.tls.enabled }}
  server:
    ssl:
      enabled: true
      bundle: rdma-server
  {{- end }}
  memory:
    server:
      port: {{ .Values.service.ports.rdma }}
    regions:
      {{- range $name, $region := .Values.service.regions }}
      {{ $name }}:
        size: {{ $region.size }}
        access: {{ join "," $region.access }}
      {{- end }}
    {{- if .Values.service.cache.enabled }}
    cache:
      caches:
        # The client's @Cacheable("products") cache, owned by each service pod for the keys that hash to it.
        products:
          size: {{ .Values.service.cache.size }}
          default-ttl: {{ .Values.service.cache.defaultTtl }}
    {{- end }}
{{- if .Values.tls.enabled }}
spring.ssl.bundle.pem.rdma-server.keystore:
  certificate: file:/etc/softrdma/tls/tls.crt
  private-key: file:/etc/softrdma/tls/tls.key
{{- end }}
{{- end }}

{{/* The client's application.yaml, before client.config is merged over it. */}}
{{- define "softrdma.clientConfig" -}}
{{ include "softrdma.commonConfig" . }}
server:
  port: {{ .Values.client.ports.http }}
rdma:
  # RemoteMemory takes rdma.client.*'s settings (MPA, queue pair, TLS); the credential comes from the Secret.
  {{- if .Values.tls.enabled }}
  client:
    ssl:
      enabled: true
      bundle: rdma-client
  {{- end }}
  memory:
    client:
      # Every ready service pod, by DNS; the image's own application.yaml names localhost, which this empties.
      servers: []
      service: {{ include "softrdma.headlessHost" . }}
      port: {{ .Values.service.ports.rdma }}
{{- if .Values.tls.enabled }}
spring.ssl.bundle.pem.rdma-client.truststore:
  certificate: file:/etc/softrdma/tls/ca.crt
{{- end }}
{{- end }}

{{/* The pod security context: never root, the runtime's default seccomp profile. */}}
{{- define "softrdma.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: {{ .Values.securityContext.runAsUser }}
runAsGroup: {{ .Values.securityContext.runAsGroup }}
fsGroup: {{ .Values.securityContext.fsGroup }}
seccompProfile:
  type: RuntimeDefault
{{- end }}

{{/* The container security context: read-only root, no privilege, no capability. */}}
{{- define "softrdma.containerSecurityContext" -}}
runAsNonRoot: true
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
privileged: false
capabilities:
  drop:
    - ALL
{{- end }}

{{/* Prometheus scrape annotations for a pod whose Actuator listens on port (call with (list $ port)). */}}
{{- define "softrdma.scrapeAnnotations" -}}
{{- $ := index . 0 -}}
{{- if $.Values.metrics.annotations }}
prometheus.io/scrape: "true"
prometheus.io/port: {{ index . 1 | quote }}
prometheus.io/path: /actuator/prometheus
{{- end }}
{{- end }}
