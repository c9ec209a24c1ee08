package io.softrdma.rsocket;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.codeUnits;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The edges of the RSocket transport's API, held by ArchUnit: {@code io.softrdma.rsocket} exposes exactly the two
 * transports and the started server; everything else (the duplex connection, frame sizes) stays package-private and
 * out of every public signature; and it is built on the supported API of rdma-core and rdma-reactive only.
 */
class ApiEdgesTest {
    private static final String PACKAGE = "io.softrdma.rsocket";
    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(PACKAGE);

    private static final DescribedPredicate<JavaCodeUnit> VISIBLE = DescribedPredicate.describe("public or protected",
            u -> u.getModifiers().contains(JavaModifier.PUBLIC) || u.getModifiers().contains(JavaModifier.PROTECTED));

    /** Names no type of this package that is not public, and no type of an internal package. */
    private static final ArchCondition<JavaCodeUnit> NAME_ONLY_PUBLIC_TYPES = new ArchCondition<>(
            "name only public types of io.softrdma.rsocket and no internal type") {
        @Override
        public void check(JavaCodeUnit u, ConditionEvents events) {
            List<JavaType> types = new ArrayList<>(u.getParameterTypes());
            types.add(u.getReturnType());
            types.addAll(u.getThrowsClause().getTypes());
            Set<String> hidden = new TreeSet<>();
            for (JavaType t : types) {
                for (JavaClass c : t.getAllInvolvedRawTypes()) {
                    boolean packagePrivateHere = c.getPackageName().equals(PACKAGE)
                            && !c.getModifiers().contains(JavaModifier.PUBLIC);
                    if (packagePrivateHere || c.getPackageName().contains(".internal")) {
                        hidden.add(c.getName());
                    }
                }
            }
            events.add(new SimpleConditionEvent(u, hidden.isEmpty(), u.getFullName()
                    + (hidden.isEmpty() ? " names only public types" : " names " + hidden)));
        }
    };

    @Test
    void thePackageExposesOnlyTheTransportsTheStartedServerThePeerAndTheMessagingSizes() {
        Set<String> exposed = new TreeSet<>();
        for (JavaClass c : CLASSES) {
            if (c.getPackageName().equals(PACKAGE) && c.getModifiers().contains(JavaModifier.PUBLIC)) {
                exposed.add(c.getName().substring(PACKAGE.length() + 1));
            }
        }
        assertThat(exposed).containsExactly("CloseableRdmaServer", "RSocketMessaging", "RdmaClientTransport",
                "RdmaPeer", "RdmaServerTransport");
    }

    @Test
    void publicSignaturesNameOnlyPublicTypes() {
        codeUnits().that(VISIBLE).and().areDeclaredInClassesThat().resideInAPackage(PACKAGE)
                .and().areDeclaredInClassesThat().arePublic()
                .should(NAME_ONLY_PUBLIC_TYPES).check(CLASSES);
    }

    @Test
    void itUsesNoInternalPackageOfSoftRdma() {
        noClasses().that().resideInAPackage(PACKAGE + "..")
                .should().dependOnClassesThat().resideInAnyPackage("io.softrdma.internal..",
                        "io.softrdma.reactive.internal..")
                .check(CLASSES);
    }
}
