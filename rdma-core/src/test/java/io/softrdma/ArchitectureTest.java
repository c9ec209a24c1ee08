package io.softrdma;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.codeUnits;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.fields;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The layering of rdma-core, checked on its compiled main classes (tests may reach anywhere):
 * transport below MPA (RFC 5044) below DDP (RFC 5041) below RDMAP (RFC 5040, RFC 7306) below the
 * verbs below the connection manager. A layer may use the layers below it, never one above; a layer's
 * supported API package ({@code io.softrdma.mpa}, ...) and its internal package
 * ({@code io.softrdma.internal.mpa}, ...) are one layer; {@code io.softrdma} itself (the exceptions
 * every layer throws) is below them all. No packages depend on each other in a cycle, and no public or
 * protected member of a public class in an API package names an internal type: an application never
 * needs one.
 *
 * <p>Run by ArchUnit's JUnit Platform engine ({@code archunit-junit5}), not by Jupiter.
 */
@AnalyzeClasses(packages = "io.softrdma", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
    static final String[] API_PACKAGES = {
        "io.softrdma", "io.softrdma.mpa", "io.softrdma.ddp", "io.softrdma.rdmap", "io.softrdma.verbs", "io.softrdma.cm"};
    static final String INTERNAL = "io.softrdma.internal..";

    /** A public class (or a public member class of one) in an API package. */
    static final DescribedPredicate<JavaClass> API_TYPE = new DescribedPredicate<>("public types of API packages") {
        @Override
        public boolean test(JavaClass c) {
            if (!Set.of(API_PACKAGES).contains(c.getPackageName())) {
                return false;
            }
            for (JavaClass k = c; k != null; k = k.getEnclosingClass().orElse(null)) {
                if (!k.getModifiers().contains(JavaModifier.PUBLIC)) {
                    return false;
                }
            }
            return true;
        }
    };

    static final DescribedPredicate<JavaClass> INTERNAL_TYPE =
            JavaClass.Predicates.resideInAPackage(INTERNAL).as("an internal type");

    static final DescribedPredicate<JavaCodeUnit> EXPOSED = new DescribedPredicate<>("public or protected") {
        @Override
        public boolean test(JavaCodeUnit u) {
            return u.getModifiers().contains(JavaModifier.PUBLIC) || u.getModifiers().contains(JavaModifier.PROTECTED);
        }
    };

    static final DescribedPredicate<JavaField> EXPOSED_FIELD = new DescribedPredicate<>("public or protected") {
        @Override
        public boolean test(JavaField f) {
            return f.getModifiers().contains(JavaModifier.PUBLIC) || f.getModifiers().contains(JavaModifier.PROTECTED);
        }
    };

    private static ArchCondition<JavaCodeUnit> nameNoInternalType() {
        return new ArchCondition<>("name no internal type in their signature") {
            @Override
            public void check(JavaCodeUnit u, ConditionEvents events) {
                List<JavaType> types = new ArrayList<>();
                types.add(u.getReturnType());
                types.addAll(u.getParameterTypes());
                types.addAll(u.getThrowsClause().getTypes());
                report(u.getFullName(), types, events, u);
            }
        };
    }

    private static ArchCondition<JavaField> haveNoInternalType() {
        return new ArchCondition<>("have no internal type") {
            @Override
            public void check(JavaField f, ConditionEvents events) {
                report(f.getFullName(), List.of(f.getType()), events, f);
            }
        };
    }

    private static void report(String what, List<JavaType> types, ConditionEvents events, Object item) {
        Set<String> internal = new TreeSet<>();
        for (JavaType t : types) {
            for (JavaClass c : t.getAllInvolvedRawTypes()) {
                if (INTERNAL_TYPE.test(c)) {
                    internal.add(c.getName());
                }
            }
        }
        events.add(new SimpleConditionEvent(item, internal.isEmpty(),
                what + (internal.isEmpty() ? " names no internal type" : " names " + internal)));
    }

    @ArchTest
    static final ArchRule EACH_LAYER_USES_ONLY_THE_LAYERS_BELOW_IT = layeredArchitecture()
            .consideringOnlyDependenciesInLayers()
            .layer("common").definedBy("io.softrdma")
            .layer("transport").definedBy("io.softrdma.internal.transport..")
            .layer("mpa").definedBy("io.softrdma.mpa..", "io.softrdma.internal.mpa..")
            .layer("ddp").definedBy("io.softrdma.ddp..", "io.softrdma.internal.ddp..")
            .layer("rdmap").definedBy("io.softrdma.rdmap..", "io.softrdma.internal.rdmap..")
            .layer("verbs").definedBy("io.softrdma.verbs..")
            .layer("cm").definedBy("io.softrdma.cm..")
            .whereLayer("cm").mayNotBeAccessedByAnyLayer()
            .whereLayer("verbs").mayOnlyBeAccessedByLayers("cm")
            .whereLayer("rdmap").mayOnlyBeAccessedByLayers("verbs", "cm")
            .whereLayer("ddp").mayOnlyBeAccessedByLayers("rdmap", "verbs", "cm")
            .whereLayer("mpa").mayOnlyBeAccessedByLayers("ddp", "rdmap", "verbs", "cm")
            .whereLayer("transport").mayOnlyBeAccessedByLayers("mpa", "ddp", "rdmap", "verbs", "cm")
            .whereLayer("common").mayOnlyBeAccessedByLayers("transport", "mpa", "ddp", "rdmap", "verbs", "cm");

    @ArchTest
    static final ArchRule NO_PACKAGES_DEPEND_ON_EACH_OTHER_IN_A_CYCLE =
            slices().matching("io.softrdma.(**)").should().beFreeOfCycles();

    @ArchTest
    static final ArchRule NO_PUBLIC_API_METHOD_OR_CONSTRUCTOR_NAMES_AN_INTERNAL_TYPE =
            codeUnits().that().areDeclaredInClassesThat(API_TYPE).and(EXPOSED).should(nameNoInternalType());

    @ArchTest
    static final ArchRule NO_PUBLIC_API_FIELD_HAS_AN_INTERNAL_TYPE =
            fields().that().areDeclaredInClassesThat(API_TYPE).and(EXPOSED_FIELD).should(haveNoInternalType());

    @ArchTest
    static final ArchRule NO_PUBLIC_API_TYPE_EXTENDS_AN_INTERNAL_TYPE =
            noClasses().that(API_TYPE).should().beAssignableTo(INTERNAL_TYPE);
}
