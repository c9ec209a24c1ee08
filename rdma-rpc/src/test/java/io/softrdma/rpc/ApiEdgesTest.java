package io.softrdma.rpc;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * RPC-over-RDMA is built on the supported API only: rdma-core's API packages and rdma-reactive's API and SPI, no
 * package named {@code internal} of either (nor Netty's).
 */
class ApiEdgesTest {
    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.softrdma.rpc");

    @Test
    void rpcUsesNoInternalPackage() {
        noClasses().that().resideInAPackage("io.softrdma.rpc..")
                .should().dependOnClassesThat().resideInAnyPackage("io.softrdma.internal..",
                        "io.softrdma.reactive.internal..", "io.netty.util.internal..")
                .check(CLASSES);
    }
}
