/**
 * Spring Boot auto-configuration for SoftRDMA.
 *
 * <p>Not built yet: this module exists so the build has its final shape (see docs/architecture.md).
 */
package io.softrdma.spring.autoconfigure;
