package io.softrdma.memory.cache;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static org.assertj.core.api.Assertions.assertThat;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The cache's API edges, held by ArchUnit: its public signatures name no internal type, every public type states its
 * thread safety, and it is built on the supported API of rdma-memory, rdma-reactive and rdma-core only (no one's
 * internal package but its own).
 */
class CacheApiEdgesTest {
    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.softrdma.memory.cache");

    private static final ArchCondition<JavaMethod> EXPOSE_NO_INTERNAL_TYPE = new ArchCondition<>(
            "expose no type of an internal package") {
        @Override
        public void check(JavaMethod method, ConditionEvents events) {
            List<JavaClass> types = new ArrayList<>(method.getRawParameterTypes());
            types.add(method.getRawReturnType());
            for (JavaClass t : types) {
                if (t.getPackageName().contains(".internal")) {
                    events.add(SimpleConditionEvent.violated(method, method.getFullName() + " exposes "
                            + t.getName()));
                }
            }
        }
    };

    @Test
    void theCacheApiExposesNoInternalType() {
        methods().that(DescribedPredicate.describe("public or protected",
                        (JavaMethod m) -> m.getModifiers().contains(JavaModifier.PUBLIC)
                                || m.getModifiers().contains(JavaModifier.PROTECTED)))
                .and().areDeclaredInClassesThat().resideInAPackage("io.softrdma.memory.cache")
                .and().areDeclaredInClassesThat().arePublic()
                .should(EXPOSE_NO_INTERNAL_TYPE).check(CLASSES);
    }

    @Test
    void everyPublicTypeSaysItsThreadSafety() throws Exception {
        List<String> silent = new ArrayList<>();
        for (JavaClass c : CLASSES) {
            if (c.getModifiers().contains(JavaModifier.PUBLIC) && !c.isNestedClass()) {
                String source = Files.readString(Path.of("src/main/java", c.getName().replace('.', '/') + ".java"));
                if (!source.contains("Thread safety")) {
                    silent.add(c.getName());
                }
            }
        }
        assertThat(silent).as("public types whose Javadoc does not state their thread safety").isEmpty();
    }

    @Test
    void theCacheUsesNoOtherModulesInternals() {
        noClasses().that().resideInAPackage("io.softrdma.memory.cache..")
                .should().dependOnClassesThat().resideInAnyPackage("io.softrdma.memory.internal..",
                        "io.softrdma.reactive.internal..", "io.softrdma.internal..")
                .check(CLASSES);
    }
}
