/**
 * RSocket over SoftRDMA: {@link io.softrdma.rsocket.RdmaClientTransport} and
 * {@link io.softrdma.rsocket.RdmaServerTransport} implement rsocket-java's transport SPI, so
 * {@code RSocketConnector}, {@code RSocketServer}, Spring's {@code RSocketRequester} and
 * {@code @MessageMapping} run unchanged over RDMA (docs/rsocket.md).
 */
package io.softrdma.rsocket;
