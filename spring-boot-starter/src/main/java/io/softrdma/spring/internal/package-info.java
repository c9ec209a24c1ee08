/** What the starter's own classes share across its packages: not API, free to change without notice. */
package io.softrdma.spring.internal;
