/**
 * RSocket over SoftRDMA in Spring Boot: {@link io.softrdma.spring.rsocket.RdmaRSocketServer}, the server that serves
 * the application's {@code @MessageMapping} controllers over RDMA through Boot's {@code RSocketMessageHandler}, and
 * {@link io.softrdma.spring.rsocket.RdmaRSocketTransports}, RSocket client transports over RDMA with the starter's
 * settings, load balancing across the addresses of a (Kubernetes headless Service) name, and reconnection
 * (docs/spring-boot.md, "RSocket over RDMA").
 */
package io.softrdma.spring.rsocket;
