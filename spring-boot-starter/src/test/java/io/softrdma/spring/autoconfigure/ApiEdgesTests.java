package io.softrdma.spring.autoconfigure;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The starter uses SoftRDMA's supported API only: no package named {@code internal}, of rdma-core or rdma-reactive. */
class ApiEdgesTests {
    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.softrdma.spring");

    @Test
    void theStarterUsesNoInternalPackage() {
        noClasses().that().resideInAPackage("io.softrdma.spring..")
                .should().dependOnClassesThat().resideInAnyPackage("io.softrdma.internal..",
                        "io.softrdma.reactive.internal..")
                .check(CLASSES);
    }
}
