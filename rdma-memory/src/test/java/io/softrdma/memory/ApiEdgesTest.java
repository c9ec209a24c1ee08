package io.softrdma.memory;

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
 * The edges of rdma-memory's API, held by ArchUnit: public signatures of {@code io.softrdma.memory} name no internal
 * type, and the module is built on the supported API of rdma-core and rdma-reactive only.
 */
class ApiEdgesTest {
    private static final String PACKAGE = "io.softrdma.memory";
    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(PACKAGE);

    private static final DescribedPredicate<JavaCodeUnit> VISIBLE = DescribedPredicate.describe("public or protected",
            u -> u.getModifiers().contains(JavaModifier.PUBLIC) || u.getModifiers().contains(JavaModifier.PROTECTED));

    private static final ArchCondition<JavaCodeUnit> NAME_ONLY_PUBLIC_TYPES = new ArchCondition<>(
            "name only public types and no internal type") {
        @Override
        public void check(JavaCodeUnit u, ConditionEvents events) {
            List<JavaType> types = new ArrayList<>(u.getParameterTypes());
            types.add(u.getReturnType());
            types.addAll(u.getThrowsClause().getTypes());
            Set<String> hidden = new TreeSet<>();
            for (JavaType t : types) {
                for (JavaClass c : t.getAllInvolvedRawTypes()) {
                    if (c.getPackageName().contains(".internal") || (c.getPackageName().startsWith(PACKAGE)
                            && !c.getModifiers().contains(JavaModifier.PUBLIC))) {
                        hidden.add(c.getName());
                    }
                }
            }
            events.add(new SimpleConditionEvent(u, hidden.isEmpty(), u.getFullName()
                    + (hidden.isEmpty() ? " names only public types" : " names " + hidden)));
        }
    };

    @Test
    void publicSignaturesNameNoInternalType() {
        codeUnits().that(VISIBLE).and().areDeclaredInClassesThat().resideInAPackage(PACKAGE)
                .and().areDeclaredInClassesThat().arePublic()
                .should(NAME_ONLY_PUBLIC_TYPES).check(CLASSES);
    }

    @Test
    void itUsesNoInternalPackageOfRdmaCoreOrRdmaReactive() {
        noClasses().that().resideInAPackage(PACKAGE + "..")
                .should().dependOnClassesThat().resideInAnyPackage("io.softrdma.internal..",
                        "io.softrdma.reactive.internal..")
                .check(CLASSES);
    }

    @Test
    void everyPublicTypeSaysItsThreadSafetyInItsJavadoc() throws Exception {
        List<String> silent = new ArrayList<>();
        for (JavaClass c : CLASSES) {
            if (c.getPackageName().equals(PACKAGE) && c.getModifiers().contains(JavaModifier.PUBLIC)
                    && !c.isNestedClass()) {
                String source = java.nio.file.Files.readString(java.nio.file.Path.of("src/main/java",
                        c.getName().replace('.', '/') + ".java"));
                if (!source.contains("Thread safety")) {
                    silent.add(c.getSimpleName());
                }
            }
        }
        assertThat(silent).as("public types whose Javadoc does not state their thread safety").isEmpty();
    }
}
