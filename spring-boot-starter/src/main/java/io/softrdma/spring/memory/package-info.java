/**
 * SoftRDMA's remote memory in Spring Boot: the {@code rdma.memory.*} properties ({@link
 * io.softrdma.spring.memory.RdmaMemoryProperties}), the memory server's lifecycle and health ({@link
 * io.softrdma.spring.memory.RdmaMemoryServer}), and the customizers of the memory server and of the
 * {@code RemoteMemory} bean. The auto-configuration is {@code io.softrdma.spring.autoconfigure.RdmaMemoryAutoConfiguration}.
 */
package io.softrdma.spring.memory;
