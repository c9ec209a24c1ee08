/**
 * Spring Boot auto-configuration for SoftRDMA: {@code rdma.*} properties, the reactive server (started and
 * drained with the application) and client, customizers, Micrometer meters and the {@code rdma} health indicator.
 */
package io.softrdma.spring.autoconfigure;
