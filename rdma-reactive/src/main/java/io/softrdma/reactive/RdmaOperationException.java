package io.softrdma.reactive;

import io.softrdma.verbs.WorkCompletionOpcode;
import io.softrdma.verbs.WorkCompletionStatus;

/**
 * An RDMA operation completed in error. When the queue pair ended with a Terminate or lost its
 * connection, that is the cause ({@link io.softrdma.rdmap.TerminateException} carries the Terminate's
 * Layer, EType and Code).
 */
public final class RdmaOperationException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient WorkCompletionOpcode opcode;
    private final transient WorkCompletionStatus status;

    public RdmaOperationException(WorkCompletionOpcode opcode, WorkCompletionStatus status, Throwable cause) {
        super(opcode + " completed with " + status + (cause == null ? "" : ": " + cause.getMessage()), cause);
        this.opcode = opcode;
        this.status = status;
    }

    /** The operation that failed. */
    public WorkCompletionOpcode opcode() {
        return opcode;
    }

    /** How it completed. */
    public WorkCompletionStatus status() {
        return status;
    }
}
