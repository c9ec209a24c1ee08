package io.softrdma.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * On a {@code @ParameterizedTest} of many cheap generated cases: {@link LeakCheckExtension} checks for
 * leaks once, after the method's last invocation, instead of after each one. A leak then fails the
 * method as a whole rather than the invocation that leaked (the report's access records still name the
 * code that touched the buffer). The check costs two full garbage collections, about 50 ms here, which
 * is far more than such a case takes: a method of hundreds of cases spends most of its time in it.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface LeakCheckAfterLastInvocation {
}
