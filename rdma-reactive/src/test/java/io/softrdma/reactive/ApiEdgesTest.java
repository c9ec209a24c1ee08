package io.softrdma.reactive;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import org.junit.jupiter.api.Test;

/**
 * The edges of rdma-reactive's API, held by ArchUnit so they cannot decay: the supported packages
 * ({@code io.softrdma.reactive}, {@code io.softrdma.reactive.spi}) expose no internal type in a public signature, the
 * SPI does not reach into the engine, and nothing here uses rdma-core's internal packages.
 */
class ApiEdgesTest {
    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.softrdma.reactive");

    /** A public or protected method whose return or parameter type lives in an {@code internal} package. */
    static final ArchCondition<JavaMethod> EXPOSE_NO_INTERNAL_TYPE = new ArchCondition<>(
            "expose no type of an internal package") {
        @Override
        public void check(JavaMethod method, ConditionEvents events) {
            java.util.List<JavaClass> types = new java.util.ArrayList<>(method.getRawParameterTypes());
            types.add(method.getRawReturnType());
            for (JavaClass t : types) {
                if (t.getPackageName().contains(".internal")) {
                    events.add(SimpleConditionEvent.violated(method, method.getFullName() + " exposes "
                            + t.getName()));
                }
            }
        }
    };

    static final DescribedPredicate<JavaMethod> VISIBLE = DescribedPredicate.describe("public or protected",
            m -> m.getModifiers().contains(com.tngtech.archunit.core.domain.JavaModifier.PUBLIC)
                    || m.getModifiers().contains(com.tngtech.archunit.core.domain.JavaModifier.PROTECTED));

    @Test
    void apiPackagesExposeNoInternalTypes() {
        methods().that(VISIBLE)
                .and().areDeclaredInClassesThat().resideInAnyPackage("io.softrdma.reactive", "io.softrdma.reactive.spi")
                .and().areDeclaredInClassesThat().arePublic()
                .should(EXPOSE_NO_INTERNAL_TYPE).check(CLASSES);
    }

    @Test
    void theSpiDoesNotReachIntoTheEngine() {
        noClasses().that().resideInAPackage("io.softrdma.reactive.spi..")
                .should().dependOnClassesThat().resideInAPackage("io.softrdma.reactive.internal..")
                .check(CLASSES);
    }

    @Test
    void nothingHereUsesRdmaCoreInternals() {
        noClasses().that().resideInAPackage("io.softrdma.reactive..")
                .should().dependOnClassesThat().resideInAPackage("io.softrdma.internal..")
                .check(CLASSES);
    }
}
